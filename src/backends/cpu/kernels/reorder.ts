/**
 * Copies whose source element is a function of the output index: flip and roll (per dim, a
 * reversed or rotated coordinate) and tril / triu (a zero outside the triangle).
 */
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import { coordinateMaps } from '../../../ir/reorder.js';
import type { CpuKernel } from './kernel.js';

type ReorderOp = 'flip' | 'roll' | 'tril' | 'triu';

function runReorder(record: OpRecord<ReorderOp>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!.data;
  const shape = x.shape;
  const r = shape.length;
  if (record.op === 'tril' || record.op === 'triu') {
    const k = record.attrs.diagonal;
    const rows = shape[r - 2]!;
    const cols = shape[r - 1]!;
    const lower = record.op === 'tril';
    const sc = x.stride[r - 1]!;
    let i = lo;
    while (i < hi) {
      const line = Math.floor(i / cols);
      const base = offsetAt(x, line * cols);
      const row = line % rows;
      const end = Math.min(hi, (line + 1) * cols);
      for (let col = i - line * cols; i < end; i++, col++) {
        const keep = lower ? col - row <= k : col - row >= k;
        out[i] = keep ? x.data[base + col * sc]! : 0;
      }
    }
    return;
  }
  const { flips, adds } = coordinateMaps(record, shape);
  if (r === 0) {
    if (lo < hi) out[0] = x.data[x.offset]!;
    return;
  }
  // Walk the last dim in an inner loop; the other coordinates map once per run of it.
  const n = shape[r - 1]!;
  const sl = x.stride[r - 1]!;
  const flipLast = flips[r - 1]!;
  const addLast = adds[r - 1]!;
  let i = lo;
  while (i < hi) {
    let rem = Math.floor(i / n);
    let base = x.offset;
    for (let d = r - 2; d >= 0; d--) {
      const m = shape[d]!;
      const q = rem % m;
      rem = (rem - q) / m;
      base += (flips[d] ? m - 1 - q : (q + adds[d]!) % m) * x.stride[d]!;
    }
    const end = Math.min(hi, (Math.floor(i / n) + 1) * n);
    for (let j = i % n; i < end; i++, j++) {
      const src = flipLast ? n - 1 - j : j + addLast < n ? j + addLast : j + addLast - n;
      out[i] = x.data[base + src * sl]!;
    }
  }
}

/** The input offset of the element with row-major index i. */
function offsetAt(x: View, i: number): number {
  let p = x.offset;
  for (let d = x.shape.length - 1; d >= 0; d--) {
    const n = x.shape[d]!;
    const q = i % n;
    i = (i - q) / n;
    p += q * x.stride[d]!;
  }
  return p;
}

export const reorderKernel: CpuKernel<ReorderOp> = {
  units: (r) => numel(r.outputs[0]!.shape),
  cost: (r) => numel(r.outputs[0]!.shape),
  run: runReorder,
};
