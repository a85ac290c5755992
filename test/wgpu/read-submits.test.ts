/**
 * Reads asked for in one JS turn share the turn's submit: each read's copy is encoded when it is
 * asked for (so it sees the values of that moment), and the batch goes to the GPU once.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import type { GpuContext } from '../../src/backends/wgpu/context.js';
import { BufferUsage } from '../../src/backends/wgpu/flags.js';
import { KernelError } from '../../src/errors.js';
import { fromData } from '../../src/tensor/creation.js';
import { describeGpu, openGpu } from './gpu.js';

describeGpu('reads and submits', () => {
  let wgpu: Wgpu;
  let ctx: GpuContext;
  beforeAll(async () => {
    ({ wgpu, ctx } = await openGpu());
  });
  afterAll(() => wgpu.close());

  test('three reads after a few ops in one turn: one submit, each read its own values', async () => {
    const x = fromData(wgpu, [1, 2, 3, 4], { shape: [4] });
    await x.toData();
    const before = ctx.submitCount;
    const a = x.add(1);
    const b = x.mul(3);
    const c = a.sum();
    const reads = Promise.all([a.toData(), b.toData(), c.item()]);
    const [av, bv, cv] = await reads;
    // The ops and the three copies in one batch (four submits before: the ops, then one per read).
    expect(ctx.submitCount - before).toBe(1);
    expect(Array.from(av.values)).toEqual([2, 3, 4, 5]);
    expect(Array.from(bv.values)).toEqual([3, 6, 9, 12]);
    expect(cv).toBe(14);
    for (const t of [x, a, b, c]) t.dispose();
  });

  test('a tensor freed right after its read is asked for, its buffer reused in the same turn: the read keeps the old values', async () => {
    const x = fromData(wgpu, [1, 2, 3, 4, 5, 6, 7, 8], { shape: [8] });
    await x.toData();
    const y = x.mul(2);
    const read = y.toData();
    y.dispose();
    // Same size: the pool may hand y's buffer to z, written before the turn's submit.
    const z = x.add(100);
    const w = z.mul(-1);
    expect(Array.from((await read).values)).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
    expect(Array.from((await w.toData()).values)).toEqual([-101, -102, -103, -104, -105, -106, -107, -108]);
    for (const t of [x, z, w]) t.dispose();
  });

  test('reads in separate turns each go as soon as their turn ends', async () => {
    const x = fromData(wgpu, [5, 6], { shape: [2] });
    await x.toData();
    const before = ctx.submitCount;
    expect(Array.from((await x.add(1).toData()).values)).toEqual([6, 7]);
    expect(Array.from((await x.add(2).toData()).values)).toEqual([7, 8]);
    expect(ctx.submitCount - before).toBe(2);
    x.dispose();
  });

  test('a submit that throws fails the reads of its batch with a KernelError (no stale bytes, no uncaught throw), and the next batch works', async () => {
    const x = fromData(wgpu, [1, 2, 3, 4], { shape: [4] });
    // A staging buffer of this size now holds other values.
    const junk = fromData(wgpu, [-9, -9, -9, -9], { shape: [4] });
    await x.toData();
    await junk.toData();
    const queue = ctx.device.queue;
    const submit = queue.submit;
    let armed = true;
    queue.submit = (buffers: Iterable<GPUCommandBuffer>): undefined => {
      if (armed) {
        armed = false;
        throw new Error('simulated submit failure');
      }
      return submit.call(queue, buffers);
    };
    try {
      const failed = await x.toData().then(
        (d) => `resolved ${Array.from(d.values).join(',')}`,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(KernelError);
      expect(failed).toMatchObject({ message: expect.stringContaining('simulated submit failure') });
    } finally {
      queue.submit = submit;
    }
    expect(Array.from((await x.add(1).toData()).values)).toEqual([2, 3, 4, 5]);
    expect(Array.from((await x.toData()).values)).toEqual([1, 2, 3, 4]);
    for (const t of [x, junk]) t.dispose();
  });

  test('a validation error in the batch voids the copy too: a read whose copy was in it rejects with that error, not stale bytes', async () => {
    const x = fromData(wgpu, [7, 8], { shape: [2] });
    const junk = fromData(wgpu, [-9, -9], { shape: [2] });
    await x.toData();
    await junk.toData();
    const a = ctx.device.createBuffer({ size: 16, usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST });
    const b = ctx.device.createBuffer({ size: 16, usage: BufferUsage.COPY_SRC | BufferUsage.COPY_DST });
    const read = x.toData().then(
      () => 'resolved',
      (e: unknown) => e,
    );
    // Into the same open batch: a copy past the buffers' ends, which fails validation.
    ctx.commands().copyBufferToBuffer(a, 0, b, 0, 1024);
    const out = await read;
    expect(out).toBeInstanceOf(KernelError);
    expect(out).toMatchObject({ message: expect.stringContaining('GPU error in a batch of kernels') });
    a.destroy();
    b.destroy();
    expect(Array.from((await x.toData()).values)).toEqual([7, 8]);
    for (const t of [x, junk]) t.dispose();
  });
});
