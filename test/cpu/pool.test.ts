import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { KernelError, Runtime, fromData, full, random, scheduler, tidy } from '../../src/index.js';

// A threshold of 1 sends every splittable op to the pool.
const cpu = new Cpu({ threads: 2, inlineThreshold: 1 });
afterAll(() => cpu.close());

function ref(n: number, f: (i: number) => number): number[] {
  return Array.from({ length: n }, (_, i) => f(i));
}

describe('cpu worker pool', () => {
  test('ops split across workers give the same values as a float64 loop', async () => {
    const n = 10_001;
    const x = fromData(cpu, Float32Array.from(ref(n, (i) => Math.fround(i / 7 - 300))));
    const y = x.mul(x).add(1).sqrt();
    const got = (await y.toData()).values;
    const want = ref(n, (i) => Math.sqrt(Math.fround(i / 7 - 300) ** 2 + 1));
    for (let i = 0; i < n; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThanOrEqual(1e-6 * Math.abs(want[i]!) + 1e-7);
  });

  test('events say the op ran on the pool', async () => {
    const seen: string[] = [];
    const sub = scheduler.events$.subscribe((e) => seen.push(`${e.op}@${e.where}`));
    const x = full(cpu, [64, 64], 2);
    await x.exp().toData();
    sub.unsubscribe();
    expect(seen).toContain('exp@pool');
  });

  test('a worker dying mid-task fails that op; the pool replaces it and later ops succeed', async () => {
    const x = full(cpu, [1000], 3);
    cpu.exec.crashNextPoolTask = true;
    const bad = x.exp();
    const unrelated = x.add(1);
    await expect(bad.toData()).rejects.toBeInstanceOf(KernelError);
    await expect(bad.add(1).toData()).rejects.toBeInstanceOf(KernelError);
    expect(Array.from((await unrelated.toData()).values.slice(0, 2))).toEqual([4, 4]);
    const later = x.mul(2);
    expect((await later.toData()).values[999]).toBe(6);
  });

  test('an out-of-range gather index on a worker rejects the read with the kernel error', async () => {
    const x = fromData(cpu, [[1, 2], [3, 4]]);
    const idx = fromData(cpu, [[0, 5], [1, 0]], { dtype: 'int32' });
    await expect(x.gather(1, idx).toData()).rejects.toThrow(/index 5 is out of range/);
    expect((await x.sum().toData()).values[0]).toBe(10);
  });

  test('backpressure: a synchronous loop of 100k dependent tiny ops behind a pool op stays bounded', async () => {
    await full(cpu, [4096], 1).exp().toData(); // the pool is up, so tasks reach workers without the event loop
    const big = random(cpu, [256, 256]);
    let x = big.matmul(big).slice([[0, 1], [0, 4]]); // pending on the pool
    let maxPending = 0;
    for (let i = 0; i < 100_000; i++) {
      const next = tidy(() => x.add(1));
      x.dispose();
      x = next;
      maxPending = Math.max(maxPending, scheduler.pendingOps);
    }
    expect(maxPending).toBeLessThanOrEqual(scheduler.highWaterMark + 1);
    const v = (await x.toData()).values;
    expect(v.length).toBe(4);
    expect(scheduler.liveSlots).toBeLessThan(100);
  });
});

describe('cpu worker pool under backpressure', () => {
  test("the process's first pool op blocking a chain: this thread runs its chunks and the backlog stays bounded", async () => {
    const rt = new Runtime({ highWaterMark: 256 });
    const fresh = new Cpu({ threads: 2, inlineThreshold: 1, runtime: rt });
    try {
      // No worker has started yet: the task cannot even be posted before the event loop turns.
      const first = full(fresh, [4096], 1).exp().sum();
      let x = first;
      let maxPending = 0;
      for (let i = 0; i < 20_000; i++) {
        const next = x.add(1);
        if (x !== first) x.dispose();
        x = next;
        maxPending = Math.max(maxPending, rt.scheduler.pendingOps);
      }
      expect(maxPending).toBeLessThanOrEqual(rt.scheduler.highWaterMark + 1);
      const want = 4096 * Math.fround(Math.E) + 20_000;
      expect(Math.abs((await x.item()) - want)).toBeLessThan(2);
    } finally {
      await fresh.close();
    }
  });

  test('a worker dying while this thread relieves backpressure fails that op at once', { timeout: 10_000 }, async () => {
    const rt = new Runtime({ highWaterMark: 64 });
    const fresh = new Cpu({ threads: 2, inlineThreshold: 1, runtime: rt });
    try {
      await full(fresh, [4096], 1).exp().toData(); // workers are up
      fresh.exec.crashNextPoolTask = true;
      const bad = full(fresh, [1 << 16], 2).exp();
      let x = bad.sum();
      for (let i = 0; i < 2_000; i++) x = x.add(1);
      // Before the fix this thread slept 30 s in the first relief, waiting for the dead worker.
      await expect(x.toData()).rejects.toBeInstanceOf(KernelError);
      const ok = full(fresh, [1 << 16], 1).mul(3).sum();
      expect(await ok.item()).toBe(3 * (1 << 16));
    } finally {
      await fresh.close();
    }
  });
});
