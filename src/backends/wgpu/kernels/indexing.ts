/** gather, indexSelect, scatterAdd: index-driven copies; out-of-range indices fail the op (late, via flags). */
import { indexError, type IndexCaller, type IndexOp } from '../../../ir/index-caller.js';
import { contiguousStrides, numel, type OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import type { GpuStorage } from '../storage.js';
import { Params, grid } from '../wgsl/common.js';
import { INDEX_WORKGROUP, gatherProgram, indexSelectProgram, scatterAddProgram } from '../wgsl/indexing.js';
import { contiguousCopy } from './copy.js';
import { freshStorage, type GpuKernel } from './kernel.js';

function outOfRange(ctx: GpuContext, op: IndexOp, caller: IndexCaller | undefined, dim: number, size: number): number {
  return ctx.indexCheck((i) => indexError(op, caller, i, dim, size));
}

export const gatherKernel: GpuKernel<'gather'> = {
  run(ctx, record: OpRecord<'gather'>, inputs) {
    const [x, idx] = inputs as readonly [GpuStorage, GpuStorage];
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { dim } = record.attrs;
    const n = numel(meta.shape);
    if (n === 0) return [out];
    const size = x.shape[dim]!;
    const p = new Params();
    p.u(n);
    p.u(x.offset);
    p.u(idx.offset);
    p.u(size);
    p.u(x.strides[dim]!);
    p.u(outOfRange(ctx, 'gather', record.attrs.caller, dim, size));
    p.us(idx.shape);
    p.us(idx.strides);
    p.us(x.strides.map((s, d) => (d === dim ? 0 : s)));
    ctx.dispatch(gatherProgram(idx.shape.length), [x.buffer.gpu, idx.buffer.gpu, out.buffer.gpu, ctx.flags], p, grid(Math.ceil(n / INDEX_WORKGROUP), ctx.maxWorkgroupsPerDim));
    return [out];
  },
};

export const indexSelectKernel: GpuKernel<'indexSelect'> = {
  run(ctx, record: OpRecord<'indexSelect'>, inputs) {
    const [x, idx] = inputs as readonly [GpuStorage, GpuStorage];
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { dim } = record.attrs;
    const n = numel(meta.shape);
    if (n === 0) return [out];
    const size = x.shape[dim]!;
    const p = new Params();
    p.u(n);
    p.u(x.offset);
    p.u(0);
    p.u(size);
    p.u(x.strides[dim]!);
    p.u(outOfRange(ctx, 'indexSelect', record.attrs.caller, dim, size));
    p.u(idx.offset);
    p.u(idx.strides[0]!);
    p.us(meta.shape);
    p.us(x.strides.map((s, d) => (d === dim ? 0 : s)));
    p.us(meta.shape.map((_, d) => (d === dim ? 1 : 0)));
    ctx.dispatch(indexSelectProgram(meta.shape.length), [x.buffer.gpu, idx.buffer.gpu, out.buffer.gpu, ctx.flags], p, grid(Math.ceil(n / INDEX_WORKGROUP), ctx.maxWorkgroupsPerDim));
    return [out];
  },
};

export const scatterAddKernel: GpuKernel<'scatterAdd'> = {
  run(ctx, record: OpRecord<'scatterAdd'>, inputs) {
    const [x, idx, src] = inputs as readonly [GpuStorage, GpuStorage, GpuStorage];
    const out = contiguousCopy(ctx, x);
    const { dim } = record.attrs;
    const m = idx.shape[dim]!;
    const count = numel(idx.shape);
    if (count === 0) return [out];
    const lines = count / m;
    const os = contiguousStrides(out.shape);
    const outer = idx.shape.map((_, d) => d).filter((d) => d !== dim);
    const size = out.shape[dim]!;
    const p = new Params();
    p.u(lines);
    p.u(m);
    p.u(size);
    p.u(outOfRange(ctx, 'scatterAdd', record.attrs.caller, dim, size));
    p.u(idx.offset);
    p.u(src.offset);
    p.u(0);
    p.u(idx.strides[dim]!);
    p.u(src.strides[dim]!);
    p.u(os[dim]!);
    p.us(outer.map((d) => idx.shape[d]!));
    p.us(outer.map((d) => idx.strides[d]!));
    p.us(outer.map((d) => src.strides[d]!));
    p.us(outer.map((d) => os[d]!));
    ctx.dispatch(scatterAddProgram(out.dtype, outer.length), [idx.buffer.gpu, src.buffer.gpu, out.buffer.gpu, ctx.flags], p, grid(Math.ceil(lines / INDEX_WORKGROUP), ctx.maxWorkgroupsPerDim));
    return [out];
  },
};
