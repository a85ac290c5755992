/**
 * Elementwise records (unary, binary, scalar, clamp, cast, copy, where) as generated programs:
 * the expression comes from the table in src/ir/elementwise.ts, the read mode of each input
 * from its layout.
 */
import { BINARY, UNARY, UNARY_PARAM, isBinaryOp, isParamUnaryOp, isParamUnaryRecord, isScalarRecord, isScalarOp, isUnaryOp, asScalarExpr, paramValues, scalarBase } from '../../../ir/elementwise.js';
import type { DType } from '../../../ir/dtype.js';
import { contiguousStrides, numel, type OpName, type OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { alignedStrides, type GpuStorage, type Layout } from '../storage.js';
import { Params, grid } from '../wgsl/common.js';
import { EW_WORKGROUP, elementwiseProgram, type InputMode, type ScalarType } from '../wgsl/elementwise.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';

interface Expr {
  readonly expr: string;
  readonly scalars: ReadonlyArray<{ readonly type: ScalarType; readonly value: number }>;
}

function pick(spec: { wgsl: string; wgslInt?: string; wgslBool?: string }, dtype: DType): string {
  if (dtype === 'int32') return spec.wgslInt ?? spec.wgsl;
  if (dtype === 'bool') return spec.wgslBool ?? spec.wgsl;
  return spec.wgsl;
}


function scalarType(dtype: DType): ScalarType {
  return dtype === 'float32' ? 'f32' : dtype === 'int32' ? 'i32' : 'u32';
}

function castExpr(from: DType, to: DType): string {
  if (from === to) return 'a';
  if (to === 'bool') return from === 'float32' ? 'sy_truthy(a)' : from === 'int32' ? 'select(0u, 1u, a != 0)' : 'a';
  if (to === 'int32') return from === 'float32' ? 'sy_f2i(a)' : 'i32(a)';
  return 'f32(a)';
}

/** The expression and scalar parameters of an elementwise record, or undefined if it is not one. */
export function elementwiseExpr(record: OpRecord): Expr | undefined {
  const op = record.op;
  const dt = record.inputs[0]?.dtype ?? 'float32';
  if (isUnaryOp(op)) return { expr: pick(UNARY[op], dt), scalars: [] };
  if (isParamUnaryRecord(record)) {
    const op = record.op;
    const [p0, p1] = paramValues(op, record.attrs);
    return { expr: UNARY_PARAM[op].wgsl, scalars: [{ type: 'f32', value: p0 }, { type: 'f32', value: p1 }] };
  }
  if (isBinaryOp(op)) return { expr: pick(BINARY[op], dt), scalars: [] };
  if (isScalarRecord(record)) {
    const op = record.op;
    const s = record.attrs.scalar;
    return { expr: asScalarExpr(pick(BINARY[scalarBase(op)], dt)), scalars: [{ type: scalarType(dt), value: s }] };
  }
  switch (op) {
    case 'clamp': {
      const { min, max } = record.attrs;
      const t = scalarType(dt);
      return { expr: dt === 'int32' ? 'sy_iclamp(a, p0, p1)' : 'sy_clamp(a, p0, p1)', scalars: [{ type: t, value: min }, { type: t, value: max }] };
    }
    case 'cast':
      return { expr: castExpr(dt, record.attrs.dtype), scalars: [] };
    case 'copy':
      return { expr: 'a', scalars: [] };
    case 'where':
      return { expr: 'select(c, b, a != 0u)', scalars: [] };
  }
  return undefined;
}

function sameAsContiguous(strides: readonly number[], shape: readonly number[]): boolean {
  const c = contiguousStrides(shape);
  return shape.every((d, i) => d === 1 || strides[i] === c[i]);
}

function modeOf(strides: readonly number[], shape: readonly number[]): InputMode {
  if (sameAsContiguous(strides, shape)) return 'c';
  if (strides.every((s, i) => s === 0 || shape[i] === 1)) return 'b';
  return 's';
}

/** Runs an expression over inputs (broadcast to the output's shape) into the contiguous `out`. */
export function runExpression(ctx: GpuContext, e: Expr, inputs: readonly GpuStorage[] | readonly RawStorage[], out: RawStorage): void {
  const shape = out.shape;
  const n = numel(shape);
  if (n === 0) return;
  const strides = inputs.map((s: Layout) => alignedStrides(s, shape));
  const modes = strides.map((s) => modeOf(s, shape));
  const rank = modes.includes('s') ? shape.length : 0;
  const vec4 = n % 4 === 0 && rank === 0 && inputs.every((s, k) => modes[k] !== 'c' || s.offset % 4 === 0);
  const spec = { expr: e.expr, inputs: inputs.map((s) => s.dtype), out: out.dtype, modes, rank, scalars: e.scalars.map((s) => s.type), vec4 };
  const p = new Params();
  p.u(n);
  for (const s of inputs) p.u(s.offset);
  for (const s of e.scalars) {
    if (s.type === 'f32') p.f(s.value);
    else p.i(s.value);
  }
  if (rank > 0) {
    p.us(shape);
    modes.forEach((m, k) => {
      if (m === 's') p.us(strides[k]!);
    });
  }
  ctx.dispatch(elementwiseProgram(spec), [...inputs.map((s) => s.buffer.gpu), out.buffer.gpu], p, grid(Math.ceil((vec4 ? n / 4 : n) / EW_WORKGROUP), ctx.maxWorkgroupsPerDim));
}

export const elementwiseKernel: GpuKernel<OpName> = {
  run(ctx, record, inputs) {
    const e = elementwiseExpr(record);
    if (!e) throw new Error(`not an elementwise op: ${record.op}`);
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    runExpression(ctx, e, inputs, out);
    return [out];
  },
};
