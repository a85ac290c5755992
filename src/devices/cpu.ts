import type { Device } from './device.js';

/** The CPU device: typed arrays in shared memory, kernels inline or on the worker pool. */
export interface CpuDevice extends Device {
  readonly backend: 'cpu';
  readonly key: 'cpu';
}

export const CpuDevice = {
  /** The one CPU device (Burn's `NdArrayDevice::Cpu`). */
  Cpu: Object.freeze({ backend: 'cpu', key: 'cpu' }) as CpuDevice,
  is(d: Device): d is CpuDevice {
    return d.backend === 'cpu';
  },
} as const;
