/**
 * Fused elementwise programs (src/ir/fused.ts) on the CPU: one generated JS loop per program
 * structure, its steps written from the same expression table as the single-op kernels. Each
 * float32 step is rounded to float32 (Math.fround), as storing it would, so a fused chain gives
 * the values of the unfused ops exactly.
 */
import type { DType } from '../../../ir/dtype.js';
import { fusedStructure, stepDType, type FusedAttrs } from '../../../ir/fused.js';
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import { HELPERS, jsExpression } from './elementwise.js';
import type { CpuKernel } from './kernel.js';
import { alignedStrides, sameAsContiguous } from './strided.js';

type Loop = (outs: ReadonlyArray<View['data']>, inputs: readonly View[], strides: readonly (readonly number[])[], shape: readonly number[], contiguous: boolean, lo: number, hi: number, params: readonly number[]) => void;

const cache = new Map<string, Loop>();
const VARS = ['a', 'b', 'c'];

/** The loop body of a program: steps over loaded inputs `v<k>`, values `t<s>`, stores to `O<j>[i]`. */
function body(attrs: FusedAttrs, inputs: readonly { readonly dtype: DType }[]): { code: string; params: number } {
  const lines: string[] = [];
  let q = 0;
  attrs.steps.forEach((st, s) => {
    const e = jsExpression(st, stepDType(st, inputs, attrs.steps));
    const binds = st.args.map((a, k) => `${VARS[k]} = ${'input' in a ? `v${a.input}` : `t${a.step}`}`);
    for (const [name] of e.params) binds.push(`${name} = q${q++}`);
    const value = st.dtype === 'float32' ? `fround(${e.expr})` : st.dtype === 'float16' ? `rhalf(${e.expr})` : `(${e.expr})`;
    lines.push(`let t${s}; { const ${binds.join(', ')}; t${s} = ${value}; }`);
  });
  attrs.outputs.forEach((s, j) => lines.push(`O${j}[i] = t${s};`));
  return { code: lines.join(' '), params: q };
}

function compile(record: OpRecord<'fused'>): Loop {
  const key = fusedStructure(record.attrs, record.inputs);
  const hit = cache.get(key);
  if (hit) return hit;
  const k = record.inputs.length;
  const ks = Array.from({ length: k }, (_, i) => i);
  const { code, params } = body(record.attrs, record.inputs);
  const load = (idx: (i: number) => string) => ks.map((i) => `const v${i} = X${i}[${idx(i)}];`).join(' ');
  const src = `
return function loop(O, V, S, shape, contiguous, lo, hi, Q) {
  ${ks.map((i) => `const X${i} = V[${i}].data, S${i} = S[${i}]; let P${i} = V[${i}].offset;`).join('\n  ')}
  ${record.attrs.outputs.map((_, j) => `const O${j} = O[${j}];`).join(' ')}
  ${Array.from({ length: params }, (_, j) => `const q${j} = Q[${j}];`).join(' ')}
  if (contiguous) {
    for (let i = lo; i < hi; i++) { ${load((i) => `P${i} + i`)} ${code} }
    return;
  }
  const r = shape.length;
  if (r === 0) { if (lo < hi) { const i = 0; ${load((i) => `P${i}`)} ${code} } return; }
  const n = shape[r - 1];
  ${ks.map((i) => `const I${i} = S${i}[r - 1];`).join(' ')}
  const idx = new Array(r).fill(0);
  let rem = lo;
  for (let d = r - 1; d >= 0; d--) { const s = shape[d]; const q = rem % s; idx[d] = q; rem = (rem - q) / s; ${ks.map((i) => `P${i} += q * S${i}[d];`).join(' ')} }
  let i = lo;
  while (i < hi) {
    let m = n - idx[r - 1];
    if (m > hi - i) m = hi - i;
    const end = i + m;
    for (; i < end; i++) { ${load((i) => `P${i}`)} ${code} ${ks.map((i) => `P${i} += I${i};`).join(' ')} }
    idx[r - 1] += m;
    if (idx[r - 1] === n && i < hi) {
      idx[r - 1] = 0; ${ks.map((i) => `P${i} -= I${i} * n;`).join(' ')}
      let d = r - 2;
      while (d >= 0) {
        idx[d]++; ${ks.map((i) => `P${i} += S${i}[d];`).join(' ')}
        if (idx[d] < shape[d]) break;
        ${ks.map((i) => `P${i} -= S${i}[d] * shape[d];`).join(' ')} idx[d] = 0; d--;
      }
    }
  }
};`;
  const helpers = { ...HELPERS, fround: Math.fround };
  const loop = new Function(...Object.keys(helpers), src)(...Object.values(helpers)) as Loop;
  cache.set(key, loop);
  return loop;
}

/** The parameter values of a program, in step order (the order `body` names them). */
function paramValues(record: OpRecord<'fused'>): number[] {
  const out: number[] = [];
  const { steps } = record.attrs;
  for (const st of steps) for (const [, v] of jsExpression(st, stepDType(st, record.inputs, steps)).params) out.push(v);
  return out;
}

export const fusedKernel: CpuKernel<'fused'> = {
  units: (r) => numel(r.outputs[0]!.shape),
  // Each step costs about one elementwise op.
  cost: (r) => numel(r.outputs[0]!.shape) * r.attrs.steps.length,
  run(record, inputs, outputs, lo, hi) {
    const shape = outputs[0]!.shape;
    const strides = inputs.map((v) => alignedStrides(v, shape));
    const contiguous = strides.every((s) => sameAsContiguous(s, shape));
    compile(record)(
      outputs.map((o) => o.data),
      inputs,
      strides,
      shape,
      contiguous,
      lo,
      hi,
      paramValues(record),
    );
  },
};
