import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { fromData, zeros } from '../../src/index.js';
import { describeGpu } from './gpu.js';

describeGpu('int32 and bool on the GPU', () => {
  let w: Wgpu;
  beforeAll(async () => {
    w = await Wgpu.create();
  });
  afterAll(() => w.close());

  test('bool round trips as a Uint8Array of 0/1 (stored as u32 on the GPU)', async () => {
    const values = Uint8Array.from([1, 0, 0, 1, 1, 0, 1]);
    const d = await fromData(w, values).toData();
    expect(d.dtype).toBe('bool');
    expect(d.values).toBeInstanceOf(Uint8Array);
    expect(Array.from(d.values)).toEqual(Array.from(values));
    expect(await fromData(w, [[true, false], [false, true]]).toArray()).toEqual([[true, false], [false, true]]);
  });

  test('int32 round trips exactly, extremes included', async () => {
    const values = Int32Array.from([-(2 ** 31), -1, 0, 1, 2 ** 31 - 1, 123456789]);
    const d = await fromData(w, values).toData();
    expect(d.values).toBeInstanceOf(Int32Array);
    expect(Array.from(d.values)).toEqual(Array.from(values));
  });

  test('non-contiguous int and bool views read back row-major', async () => {
    const i = fromData(w, Int32Array.from([1, 2, 3, 4, 5, 6]), { shape: [2, 3] });
    expect(Array.from((await i.transpose().toData()).values)).toEqual([1, 4, 2, 5, 3, 6]);
    const b = fromData(w, Uint8Array.from([1, 0, 0, 0, 1, 1]), { shape: [2, 3] });
    const t = await b.transpose().slice([[1, 3]]).toData();
    expect(t.shape).toEqual([2, 2]);
    expect(Array.from(t.values)).toEqual([0, 1, 0, 1]);
  });

  test('comparisons give bool; casts between all three dtypes follow the documented rules', async () => {
    const x = fromData(w, [-1.5, 0, 2.7, NaN, -0]);
    expect(Array.from((await x.greater(0).toData()).values)).toEqual([0, 0, 1, 0, 0]);
    expect(Array.from((await x.cast('int32').toData()).values)).toEqual([-1, 0, 2, 0, 0]);
    // NaN is true, as in PyTorch; -0 is false.
    expect(Array.from((await x.cast('bool').toData()).values)).toEqual([1, 0, 1, 1, 0]);
    const b = fromData(w, [true, false, true]);
    expect(Array.from((await b.cast('float32').toData()).values)).toEqual([1, 0, 1]);
    expect(Array.from((await b.cast('int32').toData()).values)).toEqual([1, 0, 1]);
    const big = fromData(w, [3e9, -3e9, 2147483648]);
    // float -> int32 wraps modulo 2^32 (as `x | 0`).
    expect(Array.from((await big.cast('int32').toData()).values)).toEqual([3e9 | 0, -3e9 | 0, 2147483648 | 0]);
  });

  test('empty and rank-0 tensors', async () => {
    const e = zeros(w, [0, 3]);
    const d = await e.add(1).toData();
    expect(d.shape).toEqual([0, 3]);
    expect(d.values.length).toBe(0);
    expect(await e.sum().item()).toBe(0);
    const s = fromData(w, 2.5);
    expect(s.shape).toEqual([]);
    expect(await s.mul(s).item()).toBe(6.25);
  });
});
