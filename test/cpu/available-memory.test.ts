/** What the CPU memory guard reads: the system's available memory, capped by a container's limit. */
import { totalmem } from 'node:os';
import { afterEach, expect, it, vi } from 'vitest';
import { availableMemory } from '../../src/backends/cpu/pool.js';

afterEach(() => {
  vi.restoreAllMocks();
});

it('without a memory limit it is the free memory the system reports (below the total)', () => {
  vi.spyOn(process, 'constrainedMemory').mockReturnValue(2 ** 64);
  const a = availableMemory()!;
  expect(a).toBeGreaterThan(0);
  expect(a).toBeLessThanOrEqual(totalmem());
});

it('a container limit caps it at what the limit leaves beside what the process holds', () => {
  const limit = process.memoryUsage.rss() + 64 * 1024 * 1024;
  vi.spyOn(process, 'constrainedMemory').mockReturnValue(limit);
  expect(availableMemory()!).toBeLessThanOrEqual(64 * 1024 * 1024);
  // A limit already reached leaves nothing.
  vi.spyOn(process, 'constrainedMemory').mockReturnValue(1024);
  expect(availableMemory()).toBe(0);
});
