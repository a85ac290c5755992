/** var along a dim (a thread or a workgroup per row), or over all elements as one row of a contiguous copy. */
import { numel, type OpRecord } from '../../../ir/ops.js';
import { isContiguous } from '../storage.js';
import { grid } from '../wgsl/common.js';
import { VARIANCE_WORKGROUP, varianceProgram } from '../wgsl/variance.js';
import { contiguousCopy } from './copy.js';
import { fill } from './creation.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';
import { rowParams } from './scan.js';

export const varianceKernel: GpuKernel<'var'> = {
  run(ctx, record: OpRecord<'var'>, inputs) {
    const x = inputs[0]!;
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { dim, correction } = record.attrs;
    let src: RawStorage = x;
    let temp: RawStorage | undefined;
    let d = dim ?? 0;
    if (dim === null || x.shape.length === 0) {
      // Everything as one row of a flat contiguous tensor.
      if (!isContiguous(x)) src = temp = contiguousCopy(ctx, x);
      const total = numel(x.shape);
      src = { ...src, shape: [total], strides: [1] };
      d = 0;
    }
    // The correction travels as float bits after the offset (word 5).
    const { p, rows, n, outer } = rowParams(src, d, [new Uint32Array(Float32Array.of(correction).buffer)[0]!]);
    if (n === 0) fill(ctx, out, NaN); // the mean of nothing
    else if (rows > 0) {
      const strategy = n >= 128 && (src.strides[d] === 1 || rows < 4096) ? 'group' : 'thread';
      const groups = strategy === 'group' ? rows : Math.ceil(rows / VARIANCE_WORKGROUP);
      ctx.dispatch(varianceProgram(strategy, outer), [src.buffer.gpu, out.buffer.gpu], p, grid(groups, ctx.maxWorkgroupsPerDim));
    }
    if (temp) ctx.unref(temp.buffer);
    return [out];
  },
};
