/** argsort / argtopk: one bitonic network per line in shared memory up to 1024 elements, staged passes over padded buffers beyond. */
import type { OpRecord } from '../../../ir/ops.js';
import { sortAttrs } from '../../../ir/reorder.js';
import { Params, grid } from '../wgsl/common.js';
import { SORT_BLOCK, SORT_WORKGROUP, sortProgram, type SortMode } from '../wgsl/argsort.js';
import { freshStorage, type GpuKernel } from './kernel.js';
import { rowParams } from './scan.js';

function nextPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

export const argsortKernel: GpuKernel<'argsort' | 'argtopk'> = {
  run(ctx, record: OpRecord<'argsort' | 'argtopk'>, inputs) {
    const x = inputs[0]!;
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { dim, descending, outN } = sortAttrs(record, x.shape);
    const P = nextPow2(x.shape[dim]!);
    // The whole line is sorted; only the first outN positions are written.
    const { p, rows, n, outer } = rowParams(x, dim, [P, outN], meta.shape);
    if (rows === 0) return [out];
    const type = x.dtype === 'int32' ? 'i32' : 'f32';
    const spec = (mode: SortMode) => sortProgram({ mode, type, descending, outerRank: outer });
    const max = ctx.maxWorkgroupsPerDim;
    if (P <= SORT_BLOCK) {
      ctx.dispatch(spec('line'), [x.buffer.gpu, out.buffer.gpu], p, grid(rows, max));
      return [out];
    }
    const total = rows * P;
    const keys = ctx.alloc(total * 4);
    const idx = ctx.alloc(total * 4);
    ctx.dispatch(spec('init'), [x.buffer.gpu, keys.gpu, idx.gpu], p, grid(Math.ceil(total / SORT_WORKGROUP), max));
    const blocks = total / SORT_BLOCK;
    const block = (k: number) => {
      const q = new Params();
      q.us([blocks, n, P, k]);
      ctx.dispatch(spec('block'), [keys.gpu, idx.gpu], q, grid(blocks, max));
    };
    block(0);
    for (let k = 2 * SORT_BLOCK; k <= P; k *= 2) {
      for (let j = k / 2; j >= SORT_BLOCK; j /= 2) {
        const q = new Params();
        q.us([total / 2, n, P, k, j]);
        ctx.dispatch(spec('global'), [keys.gpu, idx.gpu], q, grid(Math.ceil(total / 2 / SORT_WORKGROUP), max));
      }
      block(k);
    }
    ctx.dispatch(spec('final'), [idx.gpu, out.buffer.gpu], p, grid(Math.ceil(total / SORT_WORKGROUP), max));
    ctx.unref(keys);
    ctx.unref(idx);
    return [out];
  },
};
