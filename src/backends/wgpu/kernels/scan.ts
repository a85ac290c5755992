/** cumsum / cumprod along a dim: a thread per row for short rows, a workgroup per row for long ones. */
import { contiguousStrides, numel, type OpRecord } from '../../../ir/ops.js';
import { Params, grid } from '../wgsl/common.js';
import { SCAN_WORKGROUP, scanProgram } from '../wgsl/scan.js';
import { freshStorage, type GpuKernel } from './kernel.js';

type ScanOp = 'cumsum' | 'cumprod';

/** Row parameters shared by the row kernels: [rows, n, stride, outStride, offset, ...extra, outer shape / strides / out strides] (out strides of a contiguous `outShape`). */
export function rowParams(x: { shape: readonly number[]; strides: readonly number[]; offset: number }, dim: number, extra: readonly number[] = [], outShape: readonly number[] = x.shape): { p: Params; rows: number; n: number; outer: number } {
  const n = x.shape[dim]!;
  const os = contiguousStrides(outShape);
  const outer = x.shape.map((_, i) => i).filter((i) => i !== dim);
  const rows = n === 0 ? 0 : numel(x.shape) / n;
  const p = new Params();
  p.u(rows);
  p.u(n);
  p.u(x.strides[dim]!);
  p.u(os[dim]!);
  p.u(x.offset);
  for (const v of extra) p.u(v);
  p.us(outer.map((i) => x.shape[i]!));
  p.us(outer.map((i) => x.strides[i]!));
  p.us(outer.map((i) => os[i]!));
  return { p, rows, n, outer: outer.length };
}

export const scanKernel: GpuKernel<ScanOp> = {
  run(ctx, record: OpRecord<ScanOp>, inputs) {
    const x = inputs[0]!;
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { dim } = record.attrs;
    const { p, rows, n, outer } = rowParams(x, dim);
    if (rows === 0) return [out];
    const strategy = n >= 256 && rows < 4096 ? 'group' : 'thread';
    const spec = { op: record.op, type: x.dtype === 'int32' ? 'i32' : 'f32', strategy, outerRank: outer } as const;
    const groups = strategy === 'group' ? rows : Math.ceil(rows / SCAN_WORKGROUP);
    ctx.dispatch(scanProgram(spec), [x.buffer.gpu, out.buffer.gpu], p, grid(groups, ctx.maxWorkgroupsPerDim));
    return [out];
  },
};
