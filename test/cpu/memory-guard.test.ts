/**
 * A CPU tensor larger than the memory the system has available is refused with a KernelError
 * before anything is allocated (granted address space would be filled until the out-of-memory
 * killer ended the process). The available memory is mocked: no test allocates gigabytes.
 */
import { describe, expect, it, vi } from 'vitest';
import { SharedPoolAllocator } from '../../src/backends/cpu/allocator.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { KernelError } from '../../src/errors.js';
import { arange, zeros } from '../../src/tensor/creation.js';

const memory = vi.hoisted(() => ({ available: 300 * 1024 * 1024, asked: 0 }));

vi.mock('../../src/backends/cpu/pool.js', async (original) => ({
  ...(await original<typeof import('../../src/backends/cpu/pool.js')>()),
  availableMemory: () => {
    memory.asked++;
    return memory.available;
  },
}));

describe('the CPU memory guard', () => {
  it('refuses a tensor larger than the available memory, allocates nothing, and keeps working', async () => {
    const real = new SharedPoolAllocator();
    const sizes: number[] = [];
    const cpu = new Cpu({
      threads: 0,
      device: CpuDevice.named('cpu:guarded'),
      allocator: { alloc: (d, n) => (sizes.push(n), real.alloc(d, n)), free: (a) => real.free(a), stats: () => real.stats() },
    });
    // 512 MiB of float32 against 300 MiB available.
    const huge = zeros(cpu, [2 ** 27]);
    const e = await huge.toData().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(KernelError);
    expect((e as Error).message).toMatch(/could not allocate 536870912 bytes for a float32 tensor of shape \[134217728\].*the system has 314572800 bytes available/);
    expect(sizes).not.toContain(2 ** 27);
    // What fuzzing found: an arange of 3.3e9 elements (13 GB) within the element limit.
    const range = arange(cpu, 1e10, -2.25, -3);
    expect(await range.toData().catch((err: unknown) => err)).toBeInstanceOf(KernelError);
    // Later work on the backend is unaffected, and nothing stays live once disposed.
    const small = arange(cpu, 4);
    expect(Array.from((await small.toData()).values)).toEqual([0, 1, 2, 3]);
    for (const t of [huge, range, small]) t.dispose();
    expect(cpu.memory().tensors).toBe(0);
    await cpu.close();
  });

  it('small tensors do not ask the system (the check is for allocations of 256 MiB and more)', async () => {
    const cpu = new Cpu({ threads: 0, device: CpuDevice.named('cpu:small') });
    const before = memory.asked;
    await zeros(cpu, [1024, 1024]).toData();
    expect(memory.asked).toBe(before);
    await cpu.close();
  });
});
