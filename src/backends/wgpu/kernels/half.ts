/**
 * float16 records on WebGPU: the op's kernel runs in f32 on widened copies of its float16
 * inputs, and its float16 outputs are narrowed (rounded to nearest even) into f16 buffers.
 * Every kernel thus serves float16 unchanged, reductions and matmul accumulating in f32.
 */
import { DTypeError } from '../../../errors.js';
import { contiguousStrides, numel, type OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { isContiguous, type GpuStorage, type Layout } from '../storage.js';
import { Params, grid } from '../wgsl/common.js';
import { HALF_WORKGROUP, narrowProgram, widenProgram } from '../wgsl/half.js';
import { contiguousCopy } from './copy.js';
import { freshStorage, type RawStorage } from './kernel.js';

export function touchesFloat16(record: OpRecord): boolean {
  // Loops, not closures: this runs twice for every op (at submit and at encoding).
  for (const m of record.inputs) if (m.dtype === 'float16') return true;
  for (const m of record.outputs) if (m.dtype === 'float16') return true;
  return false;
}

/** Throws where the device cannot hold float16 tensors. */
export function requireFloat16(ctx: GpuContext, record: OpRecord): void {
  if (ctx.float16) return;
  throw new DTypeError(`float16 tensors need the WebGPU feature 'shader-f16', which the adapter '${ctx.adapterName}' does not offer`, {
    op: record.op,
    dtypes: [...record.inputs, ...record.outputs].map((m) => m.dtype),
    hint: "cast to float32 with .cast('float32'), or keep float16 tensors on the CPU (README: WebGPU, float16)",
  });
}

/** A contiguous f32 copy of a float16 layout (exact). */
export function widenHalf(ctx: GpuContext, s: Layout & { buffer: RawStorage['buffer'] }): RawStorage {
  const n = numel(s.shape);
  const out = freshStorage(ctx, s.shape, 'float32');
  if (n === 0) return out;
  const contiguous = isContiguous(s);
  const p = new Params();
  p.u(n);
  p.u(s.offset);
  if (!contiguous) {
    p.us(s.shape);
    p.us(s.strides);
  }
  ctx.dispatch(widenProgram(s.shape.length, contiguous), [s.buffer.gpu, out.buffer.gpu], p, grid(Math.ceil(n / HALF_WORKGROUP), ctx.maxWorkgroupsPerDim));
  return out;
}

/** A contiguous float16 storage of an f32 storage's values, rounded to nearest even, in `shape` (same size). */
export function narrowHalf(ctx: GpuContext, s: RawStorage, shape: readonly number[] = s.shape): RawStorage {
  const n = numel(s.shape);
  const out = freshStorage(ctx, shape, 'float16');
  if (n === 0) return out;
  const src = isContiguous(s) && s.offset === 0 ? s : contiguousCopy(ctx, s);
  const p = new Params();
  p.u(n);
  ctx.dispatch(narrowProgram(), [src.buffer.gpu, out.buffer.gpu], p, grid(Math.ceil(Math.ceil(n / 2) / HALF_WORKGROUP), ctx.maxWorkgroupsPerDim));
  if (src !== s) ctx.unref(src.buffer);
  return out;
}

/** The record with float32 in place of float16 in its inputs and outputs (cast targets and fused steps keep float16: they round). */
function widenRecord<R extends OpRecord>(record: R): R {
  const wide = (m: OpRecord['inputs'][number]) => (m.dtype === 'float16' ? { ...m, dtype: 'float32' as const } : m);
  return { ...record, inputs: record.inputs.map(wide), outputs: record.outputs.map(wide) };
}

/** Runs `encode` (the op's f32 kernel) on widened inputs and narrows its float16 outputs. */
export function runWidened(ctx: GpuContext, record: OpRecord, inputs: readonly GpuStorage[], encode: (record: OpRecord, inputs: readonly GpuStorage[]) => RawStorage[]): RawStorage[] {
  const wide = inputs.map((s): GpuStorage => (s.dtype === 'float16' ? { ...widenHalf(ctx, s), faults: s.faults } : s));
  let raw: RawStorage[];
  try {
    raw = encode(widenRecord(record), wide);
  } finally {
    wide.forEach((w, i) => {
      if (w !== inputs[i]) ctx.unref(w.buffer);
    });
  }
  return raw.map((r, i) => {
    if (record.outputs[i]?.dtype !== 'float16') return r;
    const h = narrowHalf(ctx, r);
    ctx.unref(r.buffer);
    return h;
  });
}

/** A float16 layout copied into a new contiguous shape (a reshape that needs a copy). */
export function reshapeHalf(ctx: GpuContext, s: RawStorage, shape: readonly number[]): RawStorage {
  const w = widenHalf(ctx, s);
  const out = narrowHalf(ctx, { ...w, shape: [...shape], strides: contiguousStrides(shape) }, shape);
  ctx.unref(w.buffer);
  return out;
}
