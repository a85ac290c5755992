/**
 * Elementwise records (unary, binary, scalar, clamp, cast, copy, where) as generated programs:
 * the expression comes from the table in src/ir/elementwise.ts, the read mode of each input
 * from its layout.
 */
import { isFusableRecord } from '../../../ir/fused.js';
import type { DType } from '../../../ir/dtype.js';
import { contiguousStrides, numel, type OpName, type OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { alignedStrides, type GpuStorage, type Layout } from '../storage.js';
import { Params, grid } from '../wgsl/common.js';
import { EW_WORKGROUP, elementwiseProgram, type InputMode, type ScalarType } from '../wgsl/elementwise.js';
import { wgslExpression } from '../wgsl/expressions.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';

interface Expr {
  readonly expr: string;
  readonly scalars: ReadonlyArray<{ readonly type: ScalarType; readonly value: number }>;
}

/** A scalar op's expression with its operand read from p0, made once per expression (not per call). */
const P0_FORMS = new Map<string, string>();
function withP0(expr: string): string {
  let f = P0_FORMS.get(expr);
  if (f === undefined) {
    f = expr.replace(/\bb\b/g, 'p0');
    P0_FORMS.set(expr, f);
  }
  return f;
}

/** The expression and scalar parameters of an elementwise record, or undefined if it is not one. */
export function elementwiseExpr(record: OpRecord): Expr | undefined {
  if (!isFusableRecord(record)) return undefined;
  const e = wgslExpression(record, record.inputs[0]?.dtype ?? 'float32');
  const first = e.params[0];
  // The scalar operand is the parameter p0 in place of `b`.
  if (first?.name === 'b') return { expr: withP0(e.expr), scalars: [first] };
  return { expr: e.expr, scalars: e.params };
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
