/** Reductions along a dim (thread or workgroup per row) and over all elements (two passes when large). */
import { numel, type OpRecord, type ReduceAttrs, type ReduceOp } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { isContiguous, type Layout } from '../storage.js';
import { Params, grid } from '../wgsl/common.js';
import { REDUCE_WORKGROUP, reduceKey, reduceProgram, type AccOp, type ReduceSpec } from '../wgsl/reduce.js';
import { contiguousCopy } from './copy.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';

/** Rows up to this long over everything run as one workgroup; longer ones in chunks of at least this. */
const ONE_PASS = 4096;
const MAX_CHUNKS = 1024;

interface Rows {
  readonly rows: number;
  readonly n: number;
  readonly stride: number;
  readonly total: number;
  readonly divisor: number;
  readonly offset: number;
  readonly outerShape: readonly number[];
  readonly outerStrides: readonly number[];
}

function dispatchRows(ctx: GpuContext, spec: ReduceSpec, r: Rows, buffers: GPUBuffer[]): void {
  const p = new Params();
  p.u(r.rows);
  p.u(r.n);
  p.u(r.stride);
  p.u(r.total);
  p.u(r.divisor);
  p.u(r.offset);
  p.us(r.outerShape);
  p.us(r.outerStrides);
  const groups = spec.strategy === 'group' ? r.rows : Math.ceil(r.rows / REDUCE_WORKGROUP);
  const key = reduceKey(spec);
  const program = ctx.cachedProgram(key) ?? ctx.keepProgram(reduceProgram(spec, key));
  ctx.dispatch(program, buffers, p, grid(groups, ctx.maxWorkgroupsPerDim));
}

function chooseStrategy(n: number, rows: number, stride: number): 'thread' | 'group' {
  return n >= 128 && (stride === 1 || rows < 4096) ? 'group' : 'thread';
}

/** The accumulating op of a reduction (a mean sums, then divides). */
function accOp(op: ReduceOp): AccOp {
  return op === 'mean' ? 'sum' : op;
}

function reduceAll(ctx: GpuContext, op: ReduceOp, x: RawStorage, out: RawStorage): void {
  const type = x.dtype === 'int32' ? 'i32' : 'f32';
  const arg = op === 'argmax' || op === 'argmin';
  let src = x;
  let temp: RawStorage | undefined;
  if (!isContiguous(x)) src = temp = contiguousCopy(ctx, x);
  const total = numel(x.shape);
  const outputs = arg ? 'index' : 'value';
  const acc = accOp(op);
  if (total <= ONE_PASS) {
    const spec: ReduceSpec = { op: acc, type, strategy: total >= 128 ? 'group' : 'thread', source: 'tensor', outerRank: 0, globalIndex: false, outputs, mean: op === 'mean' };
    dispatchRows(ctx, spec, { rows: 1, n: total, stride: 1, total, divisor: total, offset: src.offset, outerShape: [], outerStrides: [] }, [src.buffer.gpu, out.buffer.gpu]);
  } else {
    const chunk = Math.max(ONE_PASS, Math.ceil(total / MAX_CHUNKS));
    const g = Math.ceil(total / chunk);
    const pv = ctx.alloc(g * 4);
    const pidx = arg ? ctx.alloc(g * 4) : undefined;
    const first: ReduceSpec = { op: acc, type, strategy: 'group', source: 'tensor', outerRank: 1, globalIndex: true, outputs: arg ? 'both' : 'value', mean: false };
    dispatchRows(ctx, first, { rows: g, n: chunk, stride: 1, total, divisor: 1, offset: src.offset, outerShape: [g], outerStrides: [chunk] }, [src.buffer.gpu, pv.gpu, ...(pidx ? [pidx.gpu] : [])]);
    // Partial sums and products combine with the same op; mean divides once at the end.
    const second: ReduceSpec = { op: acc, type, strategy: 'group', source: 'partials', outerRank: 0, globalIndex: false, outputs, mean: op === 'mean' };
    dispatchRows(ctx, second, { rows: 1, n: g, stride: 1, total: g, divisor: total, offset: 0, outerShape: [], outerStrides: [] }, [pv.gpu, ...(pidx ? [pidx.gpu] : []), out.buffer.gpu]);
    ctx.unref(pv);
    if (pidx) ctx.unref(pidx);
  }
  if (temp) ctx.unref(temp.buffer);
}

function reduceDim(ctx: GpuContext, op: ReduceOp, x: Layout & RawStorage, dim: number, out: RawStorage): void {
  const n = x.shape[dim]!;
  const rows = numel(out.shape);
  const stride = x.strides[dim]!;
  const outerShape = x.shape.filter((_, i) => i !== dim);
  const outerStrides = x.strides.filter((_, i) => i !== dim);
  const type = x.dtype === 'int32' ? 'i32' : 'f32';
  const arg = op === 'argmax' || op === 'argmin';
  const spec: ReduceSpec = { op: accOp(op), type, strategy: chooseStrategy(n, rows, stride), source: 'tensor', outerRank: outerShape.length, globalIndex: false, outputs: arg ? 'index' : 'value', mean: op === 'mean' };
  dispatchRows(ctx, spec, { rows, n, stride, total: rows * n, divisor: n, offset: x.offset, outerShape, outerStrides }, [x.buffer.gpu, out.buffer.gpu]);
}

export const reduceKernel: GpuKernel<ReduceOp> = {
  run(ctx, record: OpRecord<ReduceOp>, inputs) {
    const x = inputs[0]!;
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { dim } = record.attrs as ReduceAttrs;
    if (dim === null || x.shape.length === 0) reduceAll(ctx, record.op, x, out);
    else reduceDim(ctx, record.op, x, dim, out);
    return [out];
  },
};
