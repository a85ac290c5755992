/** Stable softmax / logSoftmax along a dim: subtract the row max, sum exps in float64. */
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';
import { rowBase } from './reduce.js';

type SoftmaxOp = 'softmax' | 'logSoftmax';

function runSoftmax(record: OpRecord<SoftmaxOp>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!.data;
  const { dim } = record.attrs;
  const n = x.shape[dim]!;
  const s = x.stride[dim]!;
  const inner = x.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
  const log = record.op === 'logSoftmax';
  for (let row = lo; row < hi; row++) {
    const p = rowBase(x, dim, row);
    const ob = Math.floor(row / inner) * n * inner + (row % inner);
    let m = -Infinity;
    let nan = false;
    for (let j = 0; j < n; j++) {
      const v = x.data[p + j * s]!;
      if (v !== v) nan = true;
      else if (v > m) m = v;
    }
    if (nan) {
      for (let j = 0; j < n; j++) out[ob + j * inner] = NaN;
      continue;
    }
    let z = 0;
    for (let j = 0; j < n; j++) z += Math.exp(x.data[p + j * s]! - m);
    if (log) {
      // (x - m) - log z: with log z + m first, a max past ~1e16 swallows log z.
      const lz = Math.log(z);
      for (let j = 0; j < n; j++) out[ob + j * inner] = x.data[p + j * s]! - m - lz;
    } else {
      for (let j = 0; j < n; j++) out[ob + j * inner] = Math.exp(x.data[p + j * s]! - m) / z;
    }
  }
}

export const softmaxKernel: CpuKernel<SoftmaxOp> = {
  units: (r) => {
    const shape = r.inputs[0]!.shape;
    const n = shape[r.attrs.dim]!;
    return n === 0 ? 0 : numel(shape) / n;
  },
  cost: (r) => 4 * numel(r.inputs[0]!.shape),
  run: runSoftmax,
};
