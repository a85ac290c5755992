/**
 * Device strings for command lines: each device family parses its own spelling, and the Router
 * picks the inner backend that owns the result.
 *   cpu: 'cpu', 'cpu:<name>'
 *   wgpu: 'wgpu' (the default adapter), 'wgpu:<n>' (the n-th discrete GPU, Burn's DiscreteGpu(n)),
 *         'wgpu:cpu', 'wgpu:default', and every WgpuDevice key ('wgpu:integrated:0', 'wgpu:name:<s>', ...)
 */
import { CpuDevice } from '../devices/cpu.js';
import type { Device } from '../devices/device.js';
import { WgpuDevice } from '../devices/wgpu.js';

type Parser = (s: string) => Device | undefined;

function parseCpu(s: string): Device | undefined {
  return s === 'cpu' || /^cpu:\S+$/.test(s) ? CpuDevice.named(s as CpuDevice['key']) : undefined;
}

function parseWgpu(s: string): Device | undefined {
  const m = /^wgpu(?::(.+))?$/.exec(s);
  if (!m) return undefined;
  const rest = m[1] ?? 'default';
  if (rest === 'default') return WgpuDevice.Default;
  if (rest === 'cpu') return WgpuDevice.Cpu;
  if (/^\d+$/.test(rest)) return WgpuDevice.DiscreteGpu(Number(rest));
  const kind = /^(discrete|integrated|virtual):(\d+)$/.exec(rest);
  if (kind) {
    const i = Number(kind[2]);
    return kind[1] === 'discrete' ? WgpuDevice.DiscreteGpu(i) : kind[1] === 'integrated' ? WgpuDevice.IntegratedGpu(i) : WgpuDevice.VirtualGpu(i);
  }
  const named = /^name:(.+)$/.exec(rest);
  return named ? WgpuDevice.byName(named[1]!) : undefined;
}

/** Parsers by the `backend` field of a device tag. */
const PARSERS = new Map<string, Parser>([
  ['cpu', parseCpu],
  ['wgpu', parseWgpu],
]);

export function parseInnerDevice(family: string, s: string): Device | undefined {
  return PARSERS.get(family)?.(s);
}
