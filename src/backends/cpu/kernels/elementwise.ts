/**
 * Elementwise kernels generated from the one table in src/ir/elementwise.ts: each (expression,
 * arity) compiles once into a loop with the expression inlined, with a contiguous fast path and
 * a strided, broadcasting path that walks the last dim in an inner loop.
 */
import { BINARY, UNARY, UNARY_PARAM, isBinaryOp, isParamUnaryOp, isParamUnaryRecord, isScalarRecord, isScalarOp, isUnaryOp, asScalarExpr, paramValues, scalarBase } from '../../../ir/elementwise.js';
import type { DType } from '../../../ir/dtype.js';
import { numel, type OpName, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import { erf } from './erf.js';
import { copysign, fpow, frem, logaddexp, rint } from './float-math.js';
import { ipow } from './ipow.js';
import type { CpuKernel } from './kernel.js';
import { alignedStrides, sameAsContiguous } from './strided.js';

type Loop = (out: View['data'], inputs: readonly View[], strides: readonly (readonly number[])[], shape: readonly number[], contiguous: boolean, lo: number, hi: number, p0: number, p1: number) => void;

const cache = new Map<string, Loop>();
/** The helpers the table's JS expressions may call by name. */
const HELPERS = { erf, ipow, fpow, frem, rint, copysign, logaddexp };
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
  if (to === 'int32' && from === 'float32') return 'a | 0'; // truncates toward zero; NaN -> 0
  return 'a';
}

/** The expression, arity and parameters for an elementwise record, or undefined if it is not one. */
export function elementwiseOf(record: OpRecord): { expr: string; arity: number; p0: number; p1: number } | undefined {
  const op = record.op;
  const dt = record.inputs[0]?.dtype ?? 'float32';
  if (isUnaryOp(op)) return { expr: pick(UNARY[op], dt), arity: 1, p0: 0, p1: 0 };
  if (isParamUnaryRecord(record)) {
    const op = record.op;
    const [p0, p1] = paramValues(op, record.attrs);
    return { expr: UNARY_PARAM[op].js, arity: 1, p0, p1 };
  }
  if (isBinaryOp(op)) return { expr: pick(BINARY[op], dt), arity: 2, p0: 0, p1: 0 };
  if (isScalarRecord(record)) {
    const op = record.op;
    const s = record.attrs.scalar;
    // The scalar operand is the parameter p0 in place of `b`.
    return { expr: asScalarExpr(pick(BINARY[scalarBase(op)], dt)), arity: 1, p0: s, p1: 0 };
  }
  switch (op) {
    case 'clamp': {
      const { min, max } = record.attrs;
      return { expr: 'a < p0 ? p0 : a > p1 ? p1 : a', arity: 1, p0: min, p1: max };
    }
    case 'cast':
      return { expr: castExpr(dt, record.attrs.dtype), arity: 1, p0: 0, p1: 0 };
    case 'copy':
      return { expr: 'a', arity: 1, p0: 0, p1: 0 };
    case 'where':
      return { expr: 'a ? b : c', arity: 3, p0: 0, p1: 0 };
  }
  return undefined;
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
