/** var along a dim (a row per work unit) or over all elements: the mean, then the squared deviations, in float64. */
import { numel, type OpAttrs, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';
import { rowBase } from './reduce.js';
import { forEachOffset } from './strided.js';

function rowVariance(data: View['data'] | Float64Array, p: number, s: number, n: number, correction: number): number {
  let sum = 0;
  for (let j = 0; j < n; j++) sum += data[p + j * s]!;
  const mean = sum / n;
  let ss = 0;
  for (let j = 0; j < n; j++) {
    const d = data[p + j * s]! - mean;
    ss += d * d;
  }
  return ss / Math.max(0, n - correction);
}

function runVariance(record: OpRecord<'var'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!.data;
  const { dim, correction } = record.attrs;
  if (dim === null) {
    if (lo > 0) return;
    const flat = new Float64Array(numel(x.shape));
    forEachOffset(x, (p, i) => (flat[i] = x.data[p]!));
    out[0] = rowVariance(flat, 0, 1, flat.length, correction);
    return;
  }
  const n = x.shape[dim]!;
  const s = x.stride[dim]!;
  for (let o = lo; o < hi; o++) out[o] = rowVariance(x.data, rowBase(x, dim, o), s, n, correction);
}

export const varianceKernel: CpuKernel<'var'> = {
  units: (r) => (r.attrs.dim === null ? 1 : numel(r.outputs[0]!.shape)),
  cost: (r) => 2 * numel(r.inputs[0]!.shape),
  run: runVariance,
};
