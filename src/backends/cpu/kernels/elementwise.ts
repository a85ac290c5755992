/**
 * Elementwise kernels generated from the one table in src/ir/elementwise.ts: each (expression,
 * arity) compiles once into a loop with the expression inlined, with a contiguous fast path and
 * a strided, broadcasting path that walks the last dim in an inner loop.
 */
import { BINARY, UNARY, UNARY_PARAM, isBinaryOp, isUnaryOp, paramValues, scalarBase } from '../../../ir/elementwise.js';
import { isFusableRecord, isParamUnaryCall, isScalarCall, type FusableCall } from '../../../ir/fused.js';
import { isFloat, type DType } from '../../../ir/dtype.js';
import { roundHalf } from '../../../ir/half.js';
import { numel, type OpName, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import { erf } from './erf.js';
import { copysign, fpow, frem, logaddexp, rint } from './float-math.js';
import { ipow } from './ipow.js';
import { digamma, divFloor, erfinv, lgamma, trigamma } from './special.js';
import type { CpuKernel } from './kernel.js';
import { alignedStrides, sameAsContiguous } from './strided.js';

type Loop = (out: View['data'], inputs: readonly View[], strides: readonly (readonly number[])[], shape: readonly number[], contiguous: boolean, lo: number, hi: number, p0: number, p1: number) => void;

const cache = new Map<string, Loop>();
/** The helpers the table's JS expressions may call by name. */
export const HELPERS = { erf, ipow, fpow, frem, rint, copysign, logaddexp, rhalf: roundHalf, erfinv, lgamma, digamma, trigamma, divFloor };
const VARS = ['a', 'b', 'c'];

function compile(expr: string, arity: number): Loop {
  const key = `${arity}|${expr}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const ks = Array.from({ length: arity }, (_, k) => k);
  const load = (idx: (k: number) => string) => ks.map((k) => `const ${VARS[k]} = X${k}[${idx(k)}];`).join(' ');
  const src = `
return function loop(O, V, S, shape, contiguous, lo, hi, p0, p1) {
  ${ks.map((k) => `const X${k} = V[${k}].data, S${k} = S[${k}]; let P${k} = V[${k}].offset;`).join('\n  ')}
  if (contiguous) {
    for (let i = lo; i < hi; i++) { ${load((k) => `P${k} + i`)} O[i] = ${expr}; }
    return;
  }
  const r = shape.length;
  if (r === 0) { if (lo < hi) { ${load((k) => `P${k}`)} O[0] = ${expr}; } return; }
  const n = shape[r - 1];
  ${ks.map((k) => `const I${k} = S${k}[r - 1];`).join(' ')}
  const idx = new Array(r).fill(0);
  let rem = lo;
  for (let d = r - 1; d >= 0; d--) { const s = shape[d]; const q = rem % s; idx[d] = q; rem = (rem - q) / s; ${ks.map((k) => `P${k} += q * S${k}[d];`).join(' ')} }
  let i = lo;
  while (i < hi) {
    let m = n - idx[r - 1];
    if (m > hi - i) m = hi - i;
    const end = i + m;
    for (; i < end; i++) { ${load((k) => `P${k}`)} O[i] = ${expr}; ${ks.map((k) => `P${k} += I${k};`).join(' ')} }
    idx[r - 1] += m;
    if (idx[r - 1] === n && i < hi) {
      idx[r - 1] = 0; ${ks.map((k) => `P${k} -= I${k} * n;`).join(' ')}
      let d = r - 2;
      while (d >= 0) {
        idx[d]++; ${ks.map((k) => `P${k} += S${k}[d];`).join(' ')}
        if (idx[d] < shape[d]) break;
        ${ks.map((k) => `P${k} -= S${k}[d] * shape[d];`).join(' ')} idx[d] = 0; d--;
      }
    }
  }
};`;
  const loop = new Function(...Object.keys(HELPERS), src)(...Object.values(HELPERS)) as Loop;
  cache.set(key, loop);
  return loop;
}

function pick(spec: { js: string; jsInt?: string; jsBool?: string }, dtype: DType): string {
  if (dtype === 'int32') return spec.jsInt ?? spec.js;
  if (dtype === 'bool') return spec.jsBool ?? spec.js;
  return spec.js;
}


function castExpr(from: DType, to: DType): string {
  if (to === 'bool') return 'a !== 0 ? 1 : 0'; // NaN is truthy, as in PyTorch
  if (to === 'int32' && isFloat(from)) return 'a | 0'; // truncates toward zero; NaN -> 0
  if (to === 'float16') return 'rhalf(a)'; // a fused chain rounds here, not only at its store
  return 'a';
}

/** An op's JS expression over `a` (`b`, `c`: its tensor operands) and the named parameters it reads. */
export interface JsExpr {
  readonly expr: string;
  /** Tensor operands. */
  readonly arity: number;
  /** A scalar operand is the parameter `b`; others are `p0`, `p1`. */
  readonly params: ReadonlyArray<readonly [string, number]>;
}

const NO_PARAMS: JsExpr['params'] = [];

/** The expression of an elementwise op whose first operand has dtype `dt`. */
export function jsExpression(call: FusableCall, dt: DType): JsExpr {
  const op = call.op;
  if (isUnaryOp(op)) return { expr: pick(UNARY[op], dt), arity: 1, params: NO_PARAMS };
  if (isParamUnaryCall(call)) {
    const [p0, p1] = paramValues(call.op, call.attrs);
    return { expr: UNARY_PARAM[call.op].js, arity: 1, params: [['p0', p0], ['p1', p1]] };
  }
  if (isBinaryOp(op)) return { expr: pick(BINARY[op], dt), arity: 2, params: NO_PARAMS };
  if (isScalarCall(call)) return { expr: pick(BINARY[scalarBase(call.op)], dt), arity: 1, params: [['b', call.attrs.scalar]] };
  switch (call.op) {
    case 'clamp':
      // min(max(a, lo), hi) keeping NaN, as torch: with min > max every element becomes max.
      return { expr: '(a < p0 ? p0 : a) > p1 ? p1 : (a < p0 ? p0 : a)', arity: 1, params: [['p0', call.attrs.min], ['p1', call.attrs.max]] };
    case 'cast':
      return { expr: castExpr(dt, call.attrs.dtype), arity: 1, params: NO_PARAMS };
    case 'copy':
      return { expr: 'a', arity: 1, params: NO_PARAMS };
    case 'where':
      return { expr: 'a ? b : c', arity: 3, params: NO_PARAMS };
    case 'maskFill':
      // `a` is the mask, `b` is x; the value is already x's dtype's (src/ir/infer.ts).
      return { expr: 'a ? p0 : b', arity: 2, params: [['p0', call.attrs.value]] };
    case 'full':
      return { expr: 'p0', arity: 0, params: [['p0', call.attrs.value]] };
  }
  throw new Error(`not an elementwise op: ${String(op)}`);
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

/** The expression, arity and parameters for an elementwise record, or undefined if it is not one. */
export function elementwiseOf(record: OpRecord): { expr: string; arity: number; p0: number; p1: number } | undefined {
  if (!isFusableRecord(record)) return undefined;
  const e = jsExpression(record, record.inputs[0]?.dtype ?? 'float32');
  const [first, second] = e.params;
  // The scalar operand is the parameter p0 in place of `b`.
  if (first?.[0] === 'b') return { expr: withP0(e.expr), arity: e.arity, p0: first[1], p1: 0 };
  return { expr: e.expr, arity: e.arity, p0: first?.[1] ?? 0, p1: second?.[1] ?? 0 };
}

function runElementwise(record: OpRecord, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const e = elementwiseOf(record);
  if (!e) throw new Error(`not an elementwise op: ${record.op}`);
  const out = outputs[0]!;
  const shape = out.shape;
  const strides = inputs.map((v) => alignedStrides(v, shape));
  const contiguous = strides.every((s) => sameAsContiguous(s, shape));
  compile(e.expr, e.arity)(out.data, inputs, strides, shape, contiguous, lo, hi, e.p0, e.p1);
}

export const elementwiseKernel: CpuKernel<OpName> = {
  units: (r) => numel(r.outputs[0]!.shape),
  // Output elements: with this count one threshold fits adds and matmuls (measured sweep in BENCHMARKS.md).
  cost: (r) => numel(r.outputs[0]!.shape),
  run: runElementwise,
};
