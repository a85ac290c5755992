/** Strided copies between layouts, and the data-movement ops built on them: cat and sliceAssign. */
import { contiguousStrides, numel, type OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { isContiguous, type GpuStorage, type Layout } from '../storage.js';
import { Params, grid } from '../wgsl/common.js';
import { COPY_WORKGROUP, copyProgram } from '../wgsl/copy.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';

/** Copies the elements of `src` (in row-major order of its shape) to the layout `dst` (same shape) of buffer `dstBuf`. */
export function copyLayout(ctx: GpuContext, src: Layout & { buffer: RawStorage['buffer'] }, dstBuf: GPUBuffer, dst: Layout): void {
  const n = numel(src.shape);
  if (n === 0) return;
  const sc = isContiguous(src);
  const dc = isContiguous(dst);
  const rank = src.shape.length;
  const p = new Params();
  p.u(n);
  p.u(src.offset);
  p.u(dst.offset);
  if (!(sc && dc)) {
    p.us(src.shape);
    p.us(src.strides);
    p.us(dst.strides);
  }
  ctx.dispatch(copyProgram(rank, sc, dc), [src.buffer.gpu, dstBuf], p, grid(Math.ceil(n / COPY_WORKGROUP), ctx.maxWorkgroupsPerDim));
}

/** A contiguous copy of any storage. */
export function contiguousCopy(ctx: GpuContext, src: RawStorage, shape: readonly number[] = src.shape): RawStorage {
  const out = freshStorage(ctx, shape, src.dtype);
  copyLayout(ctx, src, out.buffer.gpu, { shape: src.shape, strides: contiguousStrides(src.shape), offset: 0 });
  return out;
}

export const catKernel: GpuKernel<'cat'> = {
  run(ctx, record: OpRecord<'cat'>, inputs) {
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { dim } = record.attrs;
    const os = contiguousStrides(meta.shape);
    let at = 0;
    for (const s of inputs) {
      copyLayout(ctx, s, out.buffer.gpu, { shape: s.shape, strides: os, offset: at * os[dim]! });
      at += s.shape[dim]!;
    }
    return [out];
  },
};

export const sliceAssignKernel: GpuKernel<'sliceAssign'> = {
  run(ctx, record: OpRecord<'sliceAssign'>, inputs) {
    const [x, value] = inputs as readonly [GpuStorage, GpuStorage];
    const out = contiguousCopy(ctx, x);
    const { ranges } = record.attrs;
    const os = contiguousStrides(out.shape);
    const strides = ranges.map((r, d) => os[d]! * r.step);
    const offset = ranges.reduce((acc, r, d) => acc + r.start * os[d]!, 0);
    copyLayout(ctx, value, out.buffer.gpu, { shape: value.shape, strides, offset });
    return [out];
  },
};
