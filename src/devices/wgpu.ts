import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import type { Device } from './device.js';

/** How a WebGPU device tag picks its adapter. */
export type WgpuDeviceKind = 'default' | 'discrete' | 'integrated' | 'virtual' | 'cpu' | 'name';

/**
 * A WebGPU device tag (Burn's `WgpuDevice`): plain, frozen and serialisable. The adapter behind
 * it is found lazily, on the first op that runs there.
 */
export interface WgpuDevice extends Device {
  readonly backend: 'wgpu';
  readonly key: string;
  readonly kind: WgpuDeviceKind;
  /** The n-th adapter of its kind (0 for 'default', 'cpu' and 'name'). */
  readonly index: number;
  /** For 'name': a case-insensitive substring of the adapter's name or description. */
  readonly name?: string;
}

function tag(kind: WgpuDeviceKind, index: number, key: string, name?: string): WgpuDevice {
  const d: WgpuDevice = name === undefined ? { backend: 'wgpu', key, kind, index } : { backend: 'wgpu', key, kind, index, name };
  return Object.freeze(d);
}

function checkIndex(what: string, i: number): number {
  if (typeof i !== 'number' || !Number.isSafeInteger(i) || i < 0) throw new ArgumentError(`WgpuDevice.${what}(${show(i)}): the index must be an integer >= 0`, { op: 'WgpuDevice' });
  return i;
}

export const WgpuDevice = {
  /** The adapter the platform prefers (high-performance when there is a choice). */
  Default: tag('default', 0, 'wgpu:default'),
  DiscreteGpu(i = 0): WgpuDevice {
    return tag('discrete', checkIndex('DiscreteGpu', i), `wgpu:discrete:${i}`);
  },
  IntegratedGpu(i = 0): WgpuDevice {
    return tag('integrated', checkIndex('IntegratedGpu', i), `wgpu:integrated:${i}`);
  },
  VirtualGpu(i = 0): WgpuDevice {
    return tag('virtual', checkIndex('VirtualGpu', i), `wgpu:virtual:${i}`);
  },
  /** A software adapter (lavapipe, SwiftShader, WARP). */
  Cpu: tag('cpu', 0, 'wgpu:cpu'),
  /** The first adapter whose name contains `name` (case-insensitive). */
  byName(name: string): WgpuDevice {
    if (typeof name !== 'string' || name.length === 0) throw new ArgumentError(`WgpuDevice.byName(${show(name)}): the name must be a non-empty string`, { op: 'WgpuDevice' });
    return tag('name', 0, `wgpu:name:${name}`, name);
  },
  is(d: Device): d is WgpuDevice {
    return d !== null && typeof d === 'object' && d.backend === 'wgpu';
  },
} as const;
