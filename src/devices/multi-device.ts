/**
 * A Router's device tag: which inner backend (its position in the Router's tuple, from 0) and
 * that backend's own device tag. The key is the inner key, so events and errors read 'wgpu:0'
 * or 'cpu', and the tag stays plain data (structuredClone and JSON safe).
 */
import { ArgumentError } from '../errors.js';
import { checkDevice, show } from '../ir/validate.js';
import type { Device } from './device.js';

export interface MultiDevice<I extends number = number, D extends Device = Device> extends Device {
  readonly backend: 'router';
  readonly key: D['key'];
  /** Position of the inner backend in the Router's tuple (B1 is 0). */
  readonly index: I;
  readonly inner: D;
}

function at<I extends number, D extends Device>(index: I, inner: D): MultiDevice<I, D> {
  // Untyped callers: a named error, not a TypeError reading `key` of undefined.
  if (!Number.isSafeInteger(index) || index < 0) throw new ArgumentError(`a router position must be an integer >= 0, got ${show(index)}`, { op: 'MultiDevice' });
  checkDevice('MultiDevice', inner);
  return Object.freeze({ backend: 'router', key: inner.key, index, inner });
}

/** Typed constructors in Burn's spelling: `MultiDevice.B1(WgpuDevice.DiscreteGpu(0))`, `MultiDevice.B2(CpuDevice.Cpu)`. */
export const MultiDevice = {
  B1: <D extends Device>(inner: D): MultiDevice<0, D> => at(0, inner),
  B2: <D extends Device>(inner: D): MultiDevice<1, D> => at(1, inner),
  B3: <D extends Device>(inner: D): MultiDevice<2, D> => at(2, inner),
  B4: <D extends Device>(inner: D): MultiDevice<3, D> => at(3, inner),
  B5: <D extends Device>(inner: D): MultiDevice<4, D> => at(4, inner),
  B6: <D extends Device>(inner: D): MultiDevice<5, D> => at(5, inner),
  B7: <D extends Device>(inner: D): MultiDevice<6, D> => at(6, inner),
  B8: <D extends Device>(inner: D): MultiDevice<7, D> => at(7, inner),
  /** Any position, for code that computes it (`router.device(i, d)` checks it against the tuple). */
  at,
  is(d: Device): d is MultiDevice {
    if (typeof d !== 'object' || d === null) return false;
    const m = d as Partial<MultiDevice>;
    return d.backend === 'router' && typeof m.index === 'number' && typeof m.inner === 'object' && m.inner !== null;
  },
  /** 'B2(cpu)': how errors and hints name a MultiDevice. */
  describe(d: Device): string {
    return MultiDevice.is(d) ? `B${d.index + 1}(${d.inner.key})` : checkDevice('MultiDevice.describe', d).key;
  },
} as const;
