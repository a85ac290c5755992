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

const reporters = new Map<string, MemoryReporter>();

export function registerMemoryReporter(deviceKey: string, r: MemoryReporter): void {
  reporters.set(deviceKey, r);
}

export function memoryReporter(deviceKey: string): MemoryReporter | undefined {
  return reporters.get(deviceKey);
}

/** Live tensors and bytes on a device (`memory(CpuDevice.Cpu)`); zeros for a device no backend has used yet. */
export function memory(device: { readonly key: string }): MemoryInfo {
  return reporters.get(device.key)?.memory() ?? { device: device.key, tensors: 0, bytes: 0, pooledBytes: 0 };
}
