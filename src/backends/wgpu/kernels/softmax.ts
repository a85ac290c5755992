/** softmax / logSoftmax along a dim, one thread or one workgroup per row. */
import { contiguousStrides, numel, type OpRecord } from '../../../ir/ops.js';
import { Params, grid } from '../wgsl/common.js';
import { SOFTMAX_WORKGROUP, softmaxProgram } from '../wgsl/softmax.js';
import { freshStorage, type GpuKernel } from './kernel.js';

type SoftmaxOp = 'softmax' | 'logSoftmax';

export const softmaxKernel: GpuKernel<SoftmaxOp> = {
  run(ctx, record: OpRecord<SoftmaxOp>, inputs) {
    const x = inputs[0]!;
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const total = numel(x.shape);
    if (total === 0) return [out];
    // A rank-0 tensor is one row of one element.
    const dim = x.shape.length === 0 ? -1 : record.attrs.dim;
    const n = dim < 0 ? 1 : x.shape[dim]!;
    const stride = dim < 0 ? 1 : x.strides[dim]!;
    const os = contiguousStrides(x.shape);
    const outer = x.shape.map((_, i) => i).filter((i) => i !== dim);
    const rows = total / n;
    const strategy = n >= 128 && (stride === 1 || rows < 4096) ? 'group' : 'thread';
    const p = new Params();
    p.u(rows);
    p.u(n);
    p.u(stride);
    p.u(dim < 0 ? 1 : os[dim]!);
    p.u(x.offset);
    p.us(outer.map((i) => x.shape[i]!));
    p.us(outer.map((i) => x.strides[i]!));
    p.us(outer.map((i) => os[i]!));
    const groups = strategy === 'group' ? rows : Math.ceil(rows / SOFTMAX_WORKGROUP);
    ctx.dispatch(softmaxProgram(record.op === 'logSoftmax', strategy, outer.length), [x.buffer.gpu, out.buffer.gpu], p, grid(groups, ctx.maxWorkgroupsPerDim));
    return [out];
  },
};
