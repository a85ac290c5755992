/** A failure on one device (a kernel error, a worker crash) leaves work on the other device untouched. */
import { afterAll, describe, expect, test } from 'vitest';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { fromData } from '../../src/tensor/creation.js';
import { CPU1, cpuRouter, recordEvents } from './helpers.js';

// Pools of two workers each (one cannot split a range), every op on the pool, so both devices really run at once.
const router = cpuRouter(2);
for (const b of router.backends) b.exec.options.inlineThreshold = 0;
afterAll(() => router.close());
const D0 = MultiDevice.B1(CpuDevice.Cpu);
const D1 = MultiDevice.B2(CPU1);

/** A deterministic matrix and its float64 product with itself, k times (the independent reference). */
function matrix(n: number): number[][] {
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (((i * 7 + j * 3) % 11) - 5) / 16));
}
function matpow(a: number[][], k: number): number[][] {
  let r = a;
  for (let s = 1; s < k; s++) r = r.map((row) => a[0]!.map((_, j) => row.reduce((acc, v, t) => acc + v * a[t]![j]!, 0)));
  return r;
}

describe('failure isolation between devices', () => {
  test('an op failing on cpu:1 while a chain runs on cpu', async () => {
    const rec = recordEvents();
    const a = fromData(router, matrix(48), { device: D0 });
    let x = a;
    for (let i = 1; i < 4; i++) x = x.matmul(a);
    const y = fromData(router, [1, 2, 3], { device: D1 });
    const bad = y.indexSelect(0, fromData(router, Int32Array.of(3), { device: D1 })).exp();
    const fine = y.mul(2);
    await expect(bad.toData()).rejects.toThrow(/indexSelect: index 3 is out of range/);
    const got = (await x.toArray()) as number[][];
    const want = matpow(matrix(48), 4);
    got.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(want[i]![j]!, 4)));
    expect(await fine.toArray()).toEqual([2, 4, 6]);
    rec.stop();
    expect(rec.on('matmul')).toEqual(['cpu', 'cpu', 'cpu']);
    expect(rec.events.find((e) => e.op === 'exp')).toMatchObject({ device: 'cpu:1', where: 'skipped' });
  });

  test('a worker crash on cpu:1 fails its op only; cpu:1 recovers and cpu is unaffected', async () => {
    const a = fromData(router, matrix(32), { device: D0 });
    const b = fromData(router, matrix(32), { device: D1 });
    router.backends[1].exec.crashNextPoolTask = true;
    const crashed = b.matmul(b);
    const other = a.matmul(a);
    await expect(crashed.toData()).rejects.toThrow(/worker/);
    const want = matpow(matrix(32), 2);
    const got = (await other.toArray()) as number[][];
    got.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(want[i]![j]!, 5)));
    const again = (await b.matmul(b).toArray()) as number[][];
    again.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(want[i]![j]!, 5)));
  });
});
