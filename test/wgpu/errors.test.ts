import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { ArgumentError, KernelError, fromData, zeros } from '../../src/index.js';
import { describeGpu } from './gpu.js';

describeGpu('failed GPU work', () => {
  let w: Wgpu;
  beforeAll(async () => {
    w = await Wgpu.create();
  });
  afterAll(() => w.close());

  test('an index out of range fails its op and everything downstream; unrelated tensors read normally', async () => {
    const x = fromData(w, [[1, 2], [3, 4]]);
    const bad = fromData(w, Int32Array.from([0, 5]), { shape: [2, 1] });
    const g = x.gather(1, bad);
    const downstream = g.add(1).sum();
    const unrelated = x.mul(10);
    const err = await g.toData().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArgumentError);
    expect((err as ArgumentError).message).toContain('index 5 is out of range for dim 1 of size 2');
    await expect(downstream.toData()).rejects.toBeInstanceOf(ArgumentError);
    expect(Array.from((await unrelated.toData()).values)).toEqual([10, 20, 30, 40]);
    const good = x.gather(1, fromData(w, Int32Array.from([1, 0]), { shape: [2, 1] }));
    expect(Array.from((await good.toData()).values)).toEqual([2, 3]);
  });

  test('indexSelect and scatterAdd check their indices too', async () => {
    const x = fromData(w, [[1, 2], [3, 4]]);
    await expect(x.indexSelect(0, fromData(w, Int32Array.from([2]))).toData()).rejects.toBeInstanceOf(ArgumentError);
    const idx = fromData(w, Int32Array.from([-1, 0]), { shape: [1, 2] });
    await expect(x.scatterAdd(0, idx, fromData(w, [[1, 1]])).toData()).rejects.toBeInstanceOf(ArgumentError);
  });

  test("a tensor past the adapter's largest binding fails with a KernelError naming the bytes and the limit; the device goes on", async () => {
    const limit = (await w.exec(w.defaultDevice()).ready()).maxBinding;
    const n = Math.floor(limit / 4) + 1; // one float32 past the limit
    // An adapter whose binding holds more than a tensor can: the call already says so.
    if (n > 2 ** 32 - 1) {
      expect(() => zeros(w, [n])).toThrow(/at most 4294967295/);
      return;
    }
    const err = await zeros(w, [n]).toData().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KernelError);
    expect((err as KernelError).message).toContain(`a tensor of ${n * 4} bytes exceeds this adapter's largest storage binding (${limit} bytes)`);
    expect(Array.from((await fromData(w, [1, 2]).add(1).toData()).values)).toEqual([2, 3]);
  });

  test('a lost device fails reads of its tensors and later ops with a KernelError', async () => {
    const lost = await Wgpu.create();
    const t = fromData(lost, [1, 2, 3]).mul(2);
    expect(Array.from((await t.toData()).values)).toEqual([2, 4, 6]);
    const ctx = lost.exec(lost.defaultDevice()).context!;
    ctx.simulateLoss();
    await ctx.device.lost; // the backend's handler runs first
    await expect(t.toData()).rejects.toBeInstanceOf(KernelError);
    await expect(t.add(1).toData()).rejects.toBeInstanceOf(KernelError);
    await expect(fromData(lost, [1]).toData()).rejects.toThrow(/lost/);
    await lost.close();
  });
});
