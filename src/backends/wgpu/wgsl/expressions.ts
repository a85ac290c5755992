/**
 * The WGSL expression of each elementwise op (from the table in src/ir/elementwise.ts) with the
 * typed parameters it reads: what the single-op and the fused elementwise programs are made of.
 */
import { isFloat, type DType } from '../../../ir/dtype.js';
import { BINARY, UNARY, UNARY_PARAM, isBinaryOp, isUnaryOp, paramValues, scalarBase } from '../../../ir/elementwise.js';
import { isParamUnaryCall, isScalarCall, type FusableCall } from '../../../ir/fused.js';

export type ScalarType = 'f32' | 'i32' | 'u32';

function pick(spec: { wgsl: string; wgslInt?: string; wgslBool?: string }, dtype: DType): string {
  if (dtype === 'int32') return spec.wgslInt ?? spec.wgsl;
  if (dtype === 'bool') return spec.wgslBool ?? spec.wgsl;
  return spec.wgsl;
}

export function scalarType(dtype: DType): ScalarType {
  return dtype === 'float32' || dtype === 'float16' ? 'f32' : dtype === 'int32' ? 'i32' : 'u32';
}

function castExpr(from: DType, to: DType): string {
  if (from === to) return 'a';
  if (to === 'bool') return isFloat(from) ? 'sy_truthy(a)' : from === 'int32' ? 'select(0u, 1u, a != 0)' : 'a';
  if (to === 'int32') return isFloat(from) ? 'sy_f2i(a)' : 'i32(a)';
  // float16 values are f32 in registers, rounded to float16 where a step yields float16.
  if (to === 'float16') return 'sy_round_half(f32(a))';
  return 'f32(a)';
}

/** An op's WGSL expression over `a` (`b`, `c`: its tensor operands) and the typed parameters it reads. */
export interface WgslExpr {
  readonly expr: string;
  /** A scalar operand is the parameter `b`; others are `p0`, `p1`. */
  readonly params: ReadonlyArray<{ readonly name: string; readonly type: ScalarType; readonly value: number }>;
}

const NO_PARAMS: WgslExpr['params'] = [];

/** Whether `s` is +-2^k with 2^-k a normal float32 (so x / s == x * (1 / s) for every float32 x). */
function exactInverse(s: number): boolean {
  const a = Math.abs(s);
  if (!(a > 0) || !Number.isFinite(a)) return false;
  const k = Math.log2(a);
  return Number.isInteger(k) && k >= -126 && k <= 126;
}

/** The expression of an elementwise op whose first operand has dtype `dt`. */
export function wgslExpression(call: FusableCall, dt: DType): WgslExpr {
  const op = call.op;
  if (isUnaryOp(op)) return { expr: pick(UNARY[op], dt), params: NO_PARAMS };
  if (isParamUnaryCall(call)) {
    const [p0, p1] = paramValues(call.op, call.attrs);
    return { expr: UNARY_PARAM[call.op].wgsl, params: [{ name: 'p0', type: 'f32', value: p0 }, { name: 'p1', type: 'f32', value: p1 }] };
  }
  if (isBinaryOp(op)) return { expr: pick(BINARY[op], dt), params: NO_PARAMS };
  if (isScalarCall(call)) {
    // A float divided by a power of two is multiplied by its inverse: the same correctly rounded value, no division.
    if (call.op === 'divScalar' && dt === 'float32' && exactInverse(call.attrs.scalar)) return { expr: 'a * b', params: [{ name: 'b', type: 'f32', value: 1 / call.attrs.scalar }] };
    return { expr: pick(BINARY[scalarBase(call.op)], dt), params: [{ name: 'b', type: scalarType(dt), value: call.attrs.scalar }] };
  }
  switch (call.op) {
    case 'clamp': {
      const t = scalarType(dt);
      return { expr: dt === 'int32' ? 'sy_iclamp(a, p0, p1)' : 'sy_clamp(a, p0, p1)', params: [{ name: 'p0', type: t, value: call.attrs.min }, { name: 'p1', type: t, value: call.attrs.max }] };
    }
    case 'cast':
      return { expr: castExpr(dt, call.attrs.dtype), params: NO_PARAMS };
    case 'copy':
      return { expr: 'a', params: NO_PARAMS };
    case 'where':
      return { expr: 'select(c, b, a != 0u)', params: NO_PARAMS };
    case 'maskFill':
      // `dt` is x's dtype here (stepDType in src/ir/fused.ts), so the value is a parameter of x's type.
      return { expr: 'select(b, p0, a != 0u)', params: [{ name: 'p0', type: scalarType(dt), value: call.attrs.value }] };
    case 'full':
      return { expr: 'p0', params: [{ name: 'p0', type: scalarType(dt), value: call.attrs.value }] };
  }
  throw new Error(`not an elementwise op: ${String(op)}`);
}

