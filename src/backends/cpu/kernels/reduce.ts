/**
 * Reductions along one dim (split across workers by output element) and over all elements.
 * Floats accumulate in float64; ints wrap at 32 bits like int32 arithmetic.
 */
import { numel, type OpRecord, type ReduceAttrs, type ReduceOp } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';
import { forEachOffset } from './strided.js';

interface Acc {
  /** Reduce `n` elements at data[base + j * stride]. */
  (data: View['data'], base: number, stride: number, n: number, isInt: boolean): number;
}

const sum: Acc = (x, p, s, n, isInt) => {
  let acc = 0;
  if (isInt) for (let j = 0; j < n; j++, p += s) acc = (acc + x[p]!) | 0;
  else for (let j = 0; j < n; j++, p += s) acc += x[p]!;
  return acc;
};
const prod: Acc = (x, p, s, n, isInt) => {
  let acc = 1;
  if (isInt) for (let j = 0; j < n; j++, p += s) acc = Math.imul(acc, x[p]!);
  else for (let j = 0; j < n; j++, p += s) acc *= x[p]!;
  return acc;
};
const max: Acc = (x, p, s, n) => {
  let m = -Infinity;
  for (let j = 0; j < n; j++, p += s) {
    const v = x[p]!;
    if (v !== v) return NaN;
    if (v > m) m = v;
  }
  return m;
};
const min: Acc = (x, p, s, n) => {
  let m = Infinity;
  for (let j = 0; j < n; j++, p += s) {
    const v = x[p]!;
    if (v !== v) return NaN;
    if (v < m) m = v;
  }
  return m;
};
/** First index of the max; a NaN counts as the max (torch.argmax). */
const argmax: Acc = (x, p, s, n) => {
  let best = 0;
  let bv = x[p]!;
  if (bv !== bv) return 0;
  for (let j = 1; j < n; j++) {
    const v = x[p + j * s]!;
    if (v !== v) return j;
    if (v > bv) {
      bv = v;
      best = j;
    }
  }
  return best;
};
const argmin: Acc = (x, p, s, n) => {
  let best = 0;
  let bv = x[p]!;
  if (bv !== bv) return 0;
  for (let j = 1; j < n; j++) {
    const v = x[p + j * s]!;
    if (v !== v) return j;
    if (v < bv) {
      bv = v;
      best = j;
    }
  }
  return best;
};
const mean: Acc = (x, p, s, n) => (n === 0 ? NaN : sum(x, p, s, n, false) / n);

const ACCS: Record<ReduceOp, Acc> = { sum, prod, max, min, argmax, argmin, mean };

/** Maps output element `o` of a reduction along `dim` to the input offset of its first element. */
export function rowBase(x: View, dim: number, o: number): number {
  let p = x.offset;
  for (let d = x.shape.length - 1; d >= 0; d--) {
    if (d === dim) continue;
    const s = x.shape[d]!;
    const q = o % s;
    p += q * x.stride[d]!;
    o = (o - q) / s;
  }
  return p;
}

function runReduce(record: OpRecord<ReduceOp>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!.data;
  const { dim } = record.attrs as ReduceAttrs;
  const isInt = x.data instanceof Int32Array;
  const acc = ACCS[record.op];
  if (dim === null) {
    if (lo > 0) return;
    const n = numel(x.shape);
    // Contiguous inputs reduce in place; others are gathered first (flat indices for argmax).
    let flat: View['data'];
    let base = 0;
    if (x.shape.every((d, i) => d === 1 || x.stride[i] === x.shape.slice(i + 1).reduce((a, b) => a * b, 1))) {
      flat = x.data;
      base = x.offset;
    } else {
      const f = new Float64Array(n);
      forEachOffset(x, (p, i) => (f[i] = x.data[p]!));
      flat = f as unknown as View['data'];
    }
    out[0] = acc(flat, base, 1, n, isInt);
    return;
  }
  const n = x.shape[dim]!;
  const s = x.stride[dim]!;
  for (let o = lo; o < hi; o++) out[o] = acc(x.data, rowBase(x, dim, o), s, n, isInt);
}

export const reduceKernel: CpuKernel<ReduceOp> = {
  units: (r) => ((r.attrs as ReduceAttrs).dim === null ? 1 : numel(r.outputs[0]!.shape)),
  cost: (r) => numel(r.inputs[0]!.shape),
  run: runReduce,
};
