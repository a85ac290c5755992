import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import type { Device } from './device.js';

/** A CPU device: typed arrays in shared memory, kernels inline or on the worker pool. */
export interface CpuDevice extends Device {
  readonly backend: 'cpu';
  /** 'cpu' for the default one; 'cpu:<name>' for extra ones (a router of two CPU backends). */
  readonly key: 'cpu' | `cpu:${string}`;
}

export const CpuDevice = {
  /** The one CPU device (Burn's `NdArrayDevice::Cpu`). */
  Cpu: Object.freeze({ backend: 'cpu', key: 'cpu' }) as CpuDevice,
  /** Another CPU device with its own executor and pool: `new Cpu({ device: CpuDevice.named('cpu:1') })`. */
  named(key: CpuDevice['key']): CpuDevice {
    if (typeof key !== 'string' || !(key === 'cpu' || (key.startsWith('cpu:') && key.length > 4))) {
      throw new ArgumentError(`CpuDevice.named(${show(key)}): the key must be 'cpu' or 'cpu:<name>'`, { op: 'CpuDevice' });
    }
    return Object.freeze({ backend: 'cpu', key });
  },
  is(d: Device): d is CpuDevice {
    return d !== null && typeof d === 'object' && d.backend === 'cpu';
  },
} as const;
