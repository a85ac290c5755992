/** argsort along a dim, one line per work unit: a stable sort of positions (NaN above +inf; ties by position). */
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';
import { rowBase } from './reduce.js';

function runArgsort(record: OpRecord<'argsort'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!.data;
  const { dim, descending } = record.attrs;
  const n = x.shape[dim]!;
  const s = x.stride[dim]!;
  const inner = x.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
  const keys = new Float64Array(n);
  const order = new Int32Array(n);
  const sign = descending ? -1 : 1;
  // NaN sorts above +inf: the comparison key is (isNaN, value), then the position.
  const cmp = (i: number, j: number): number => {
    const a = keys[i]!;
    const b = keys[j]!;
    const na = a !== a;
    const nb = b !== b;
    let c = 0;
    if (na || nb) c = na === nb ? 0 : na ? 1 : -1;
    else c = a < b ? -1 : a > b ? 1 : 0;
    return sign * c || i - j;
  };
  for (let row = lo; row < hi; row++) {
    const p = rowBase(x, dim, row);
    const ob = Math.floor(row / inner) * n * inner + (row % inner);
    for (let j = 0; j < n; j++) {
      keys[j] = x.data[p + j * s]!;
      order[j] = j;
    }
    order.sort(cmp);
    for (let j = 0; j < n; j++) out[ob + j * inner] = order[j]!;
  }
}

export const argsortKernel: CpuKernel<'argsort'> = {
  units: (r) => {
    const shape = r.inputs[0]!.shape;
    const n = shape[r.attrs.dim]!;
    return n === 0 ? 0 : numel(shape) / n;
  },
  cost: (r) => {
    const shape = r.inputs[0]!.shape;
    const n = shape[r.attrs.dim]!;
    return numel(shape) * Math.max(1, Math.log2(Math.max(n, 1))) * 4;
  },
  run: runArgsort,
};
