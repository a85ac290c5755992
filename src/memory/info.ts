import { field } from '../ir/validate.js';
import { Runtime } from '../runtime/runtime.js';
import { ArgumentError } from '../errors.js';

/** What `memory(device)` reports. */
export interface MemoryInfo {
  readonly device: string;
  /** Live storages (tensors and views that own or share a buffer). */
  readonly tensors: number;
  /** Bytes held by live buffers. */
  readonly bytes: number;
  /** Bytes parked in the reuse pool, ready for the next allocation. */
  readonly pooledBytes: number;
}

export interface MemoryReporter {
  memory(): MemoryInfo;
}

/** Live tensors and bytes on a device (`memory(CpuDevice.Cpu)`), over every backend of the default runtime that uses it. */
export function memory(device: { readonly key: string }): MemoryInfo {
  if (typeof field(device, 'key') !== 'string') throw new ArgumentError('memory() takes a device tag (CpuDevice.Cpu, WgpuDevice.Default, ...)', { op: 'memory' });
  return Runtime.default.memory.report(device.key);
}
