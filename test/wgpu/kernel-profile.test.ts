/**
 * Kernel profiling: GPU time per kernel from timestamp queries. The table names each kernel run
 * while profiling, with one call per dispatch; values computed while profiling stay right; work
 * after the stop is not counted. (Where the adapter lacks timestamps the start is a DeviceError.)
 */
import { afterAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { ArgumentError, DeviceError } from '../../src/errors.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { fromData } from '../../src/tensor/creation.js';
import { describeGpu } from './gpu.js';

describeGpu('kernel profiling', () => {
  const wgpu = new Wgpu({ runtime: new Runtime(), autotune: false });
  afterAll(async () => wgpu.close());

  test('one entry per kernel, one call per dispatch, and the values unchanged', async () => {
    const a = [1, -2, 3, 4, -5, 6];
    const b = [0.5, 1, -1, 2, 3, -0.25];
    const x = fromData(wgpu, a, { shape: [2, 3] });
    const w = fromData(wgpu, b, { shape: [3, 2] });
    await x.toData();
    const ctx = wgpu.exec(wgpu.defaultDevice()).context!;
    let started = true;
    try {
      await wgpu.startKernelProfile();
    } catch (e) {
      // Only an adapter without timestamps may refuse, and it says so.
      expect(e).toBeInstanceOf(DeviceError);
      expect(ctx.features.timestamps).toBe(false);
      started = false;
    }
    if (!started) return;
    const before = ctx.dispatchCount;
    const outs: number[][] = [];
    for (let r = 0; r < 3; r++) {
      const y = x.matmul(w).add(1);
      outs.push(Array.from((await y.toData()).values));
      y.dispose();
    }
    const dispatched = ctx.dispatchCount - before;
    const table = await wgpu.stopKernelProfile();
    // float64 reference: [2,3] x [3,2] + 1
    const want: number[] = [];
    for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) want.push(1 + [0, 1, 2].reduce((s, k) => s + a[i * 3 + k]! * b[k * 2 + j]!, 0));
    for (const o of outs) expect(o).toEqual(want);
    expect(table.reduce((s, k) => s + k.calls, 0)).toBe(dispatched);
    expect(table.some((k) => k.kernel.startsWith('matmul') && k.calls === 3)).toBe(true);
    expect(table.some((k) => k.kernel.startsWith('fz|addScalar') && k.calls === 3)).toBe(true);
    for (const k of table) {
      expect(k.totalMs).toBeGreaterThanOrEqual(0);
      expect(k.meanUs).toBeCloseTo((k.totalMs * 1000) / k.calls, 6);
    }
    // Sorted, costliest first.
    for (let i = 1; i < table.length; i++) expect(table[i - 1]!.totalMs).toBeGreaterThanOrEqual(table[i]!.totalMs);
    // Not profiling any more: later work adds nothing.
    const z = x.add(2);
    await z.toData();
    expect(await wgpu.stopKernelProfile()).toEqual([]);
    for (const t of [x, w, z]) t.dispose();
  });

  test('while profiling (a pass per dispatch), an index out of range still fails its op and only it', async () => {
    if (!(await wgpu.features()).timestamps) return;
    const x = fromData(wgpu, [[1, 2], [3, 4]]);
    await x.toData();
    await wgpu.startKernelProfile();
    const results: Array<Promise<unknown>> = [];
    for (let i = 0; i < 700; i++) {
      const idx = fromData(wgpu, Int32Array.from([i % 2, i === 699 ? 5 : 0]), { shape: [2, 1] });
      const g = x.gather(1, idx);
      results.push(g.toData().then(() => 'ok', (e: unknown) => e));
    }
    const settled = await Promise.all(results);
    await wgpu.stopKernelProfile();
    expect(settled.slice(0, 699).every((r) => r === 'ok')).toBe(true);
    expect(settled[699]).toBeInstanceOf(ArgumentError);
  });
});
