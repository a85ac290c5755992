/**
 * Batches that hold a heavy kernel (a matmul of at least HEAVY_FLOPS) go to the GPU after 1, 2, 4,
 * ... dispatches while earlier ones are in flight, so the GPU starts at once; batches of light
 * kernels are submitted at the batch size or the end of the turn, as before.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import type { GpuContext } from '../../src/backends/wgpu/context.js';
import { HEAVY_FLOPS } from '../../src/backends/wgpu/context.js';
import { fromData } from '../../src/tensor/creation.js';
import { describeGpu, openGpu } from './gpu.js';

describeGpu('submits of heavy and light batches', () => {
  let wgpu: Wgpu;
  let ctx: GpuContext;
  beforeAll(async () => {
    ({ wgpu, ctx } = await openGpu());
  });
  afterAll(() => wgpu.close());

  /** Submits made by `count` matmuls of n x n x n queued in one turn, after the device went idle. */
  async function submitsFor(n: number, count: number): Promise<number> {
    const values = Array.from({ length: n * n }, (_, i) => ((i * 7) % 13) / 13 - 0.5);
    const a = fromData(wgpu, values, { shape: [n, n] });
    const b = fromData(wgpu, values, { shape: [n, n] });
    await a.toData();
    await b.toData();
    const before = ctx.submitCount;
    const outs = Array.from({ length: count }, () => a.matmul(b));
    const after = ctx.submitCount;
    await outs[count - 1]!.toData();
    for (const t of [a, b, ...outs]) t.dispose();
    return after - before;
  }

  test('seven heavy matmuls in one turn: submitted after the 1st, the 3rd and the 7th', async () => {
    const n = 800;
    expect(2 * n ** 3).toBeGreaterThanOrEqual(HEAVY_FLOPS);
    expect(await submitsFor(n, 7)).toBe(3);
  });

  test('seven light matmuls in one turn: one batch, submitted at the end of the turn', async () => {
    expect(await submitsFor(64, 7)).toBe(0);
  });
});
