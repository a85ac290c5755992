/**
 * Which executors hold memory on which device key. Several backends may share a key (two
 * `new Cpu()` in one program both own 'cpu'): `memory(device)` adds them up.
 */
import type { MemoryInfo, MemoryReporter } from '../memory/info.js';

export class MemoryRegistry {
  private readonly byKey = new Map<string, Set<MemoryReporter>>();

  register(deviceKey: string, r: MemoryReporter): void {
    let set = this.byKey.get(deviceKey);
    if (!set) this.byKey.set(deviceKey, (set = new Set()));
    set.add(r);
  }

  unregister(deviceKey: string, r: MemoryReporter): void {
    this.byKey.get(deviceKey)?.delete(r);
  }

  /** Live tensors and bytes on a device over every executor of that key; zeros for a key nobody used. */
  report(deviceKey: string): MemoryInfo {
    let tensors = 0;
    let bytes = 0;
    let pooledBytes = 0;
    for (const r of this.byKey.get(deviceKey) ?? []) {
      const m = r.memory();
      tensors += m.tensors;
      bytes += m.bytes;
      pooledBytes += m.pooledBytes;
    }
    return { device: deviceKey, tensors, bytes, pooledBytes };
  }
}
