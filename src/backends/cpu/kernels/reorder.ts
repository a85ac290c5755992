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
    for (let i = lo; i < hi; i++) {
      const col = i % cols;
      const row = Math.floor(i / cols) % rows;
      const keep = lower ? col - row <= k : col - row >= k;
      out[i] = keep ? x.data[offsetAt(x, i)]! : 0;
    }
    return;
  }
  const { flips, adds } = coordinateMaps(record, shape);
  for (let i = lo; i < hi; i++) {
    let rem = i;
    let p = x.offset;
    for (let d = r - 1; d >= 0; d--) {
      const n = shape[d]!;
      const q = rem % n;
      rem = (rem - q) / n;
      const src = flips[d] ? n - 1 - q : adds[d] === 0 ? q : (q + adds[d]!) % n;
      p += src * x.stride[d]!;
    }
    out[i] = x.data[p]!;
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
