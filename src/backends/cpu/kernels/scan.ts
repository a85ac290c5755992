/** Inclusive scans along a dim (cumsum, cumprod), one line per work unit. Floats accumulate in float64; ints wrap at 32 bits. */
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';
import { rowBase } from './reduce.js';

type ScanOp = 'cumsum' | 'cumprod';

function runScan(record: OpRecord<ScanOp>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!.data;
  const { dim } = record.attrs;
  const n = x.shape[dim]!;
  const s = x.stride[dim]!;
  const inner = x.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
  const isInt = x.data instanceof Int32Array;
  const prod = record.op === 'cumprod';
  for (let row = lo; row < hi; row++) {
    const p = rowBase(x, dim, row);
    const ob = Math.floor(row / inner) * n * inner + (row % inner);
    let acc = prod ? 1 : 0;
    for (let j = 0; j < n; j++) {
      const v = x.data[p + j * s]!;
      if (isInt) acc = prod ? Math.imul(acc, v) : (acc + v) | 0;
      else acc = prod ? acc * v : acc + v;
      out[ob + j * inner] = acc;
    }
  }
}

export const scanKernel: CpuKernel<ScanOp> = {
  units: (r) => {
    const shape = r.inputs[0]!.shape;
    const n = shape[r.attrs.dim]!;
    return n === 0 ? 0 : numel(shape) / n;
  },
  cost: (r) => numel(r.inputs[0]!.shape),
  run: runScan,
};
