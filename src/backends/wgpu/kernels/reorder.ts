/** flip, roll, tril and triu: one bitwise copy per output element from a computed source. */
import { numel, type OpRecord } from '../../../ir/ops.js';
import { coordinateMaps } from '../../../ir/reorder.js';
import { Params, grid } from '../wgsl/common.js';
import { REORDER_WORKGROUP, reorderProgram } from '../wgsl/reorder.js';
import { freshStorage, type GpuKernel } from './kernel.js';

type ReorderOp = 'flip' | 'roll' | 'tril' | 'triu';

export const reorderKernel: GpuKernel<ReorderOp> = {
  run(ctx, record: OpRecord<ReorderOp>, inputs) {
    const x = inputs[0]!;
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const n = numel(meta.shape);
    const rank = x.shape.length;
    const p = new Params();
    p.u(n);
    p.u(x.offset);
    let mode: 'map' | 'triangle';
    if (record.op === 'tril' || record.op === 'triu') {
      mode = 'triangle';
      p.u(x.shape[rank - 2]!);
      p.u(x.shape[rank - 1]!);
      p.i(record.attrs.diagonal);
      p.u(record.op === 'tril' ? 1 : 0);
      p.us(x.shape);
      p.us(x.strides);
    } else {
      mode = 'map';
      const { flips, adds } = coordinateMaps(record, x.shape);
      p.us(x.shape);
      p.us(x.strides);
      p.us(flips.map((f) => (f ? 1 : 0)));
      p.us(adds);
    }
    ctx.dispatch(reorderProgram(mode, rank), [x.buffer.gpu, out.buffer.gpu], p, grid(Math.ceil(n / REORDER_WORKGROUP), ctx.maxWorkgroupsPerDim));
    return [out];
  },
};
