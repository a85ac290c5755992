/**
 * What both matmul encoders (f32 tiles and tensor cores) read off the storages: sizes, batch
 * broadcast strides, the last two dims' strides, whether loads can be vectors, and the
 * parameter words their programs share ([M, N, K, sam, sak, sbk, sbn, aOffset, bOffset,
 * batchBase, batchShape, aBatchStrides, bBatchStrides]).
 */
import { numel } from '../../../ir/ops.js';
import type { Layout } from '../storage.js';
import { Params } from '../wgsl/common.js';
import type { RawStorage } from './kernel.js';

export interface MatmulProblem {
  readonly M: number;
  readonly N: number;
  readonly K: number;
  readonly batchShape: readonly number[];
  readonly batches: number;
  /** Batch strides of A and B over the output's batch dims (0 where broadcast). */
  readonly aB: readonly number[];
  readonly bB: readonly number[];
  readonly sam: number;
  readonly sak: number;
  readonly sbk: number;
  readonly sbn: number;
  readonly aOffset: number;
  readonly bOffset: number;
}

function batchStrides(l: Layout, batchShape: readonly number[]): number[] {
  const vb = l.shape.length - 2;
  const off = batchShape.length - vb;
  return batchShape.map((d, i) => (i < off ? 0 : l.shape[i - off] === 1 && d !== 1 ? 0 : l.strides[i - off]!));
}

export function matmulProblem(a: RawStorage, b: RawStorage, out: RawStorage): MatmulProblem {
  const rank = out.shape.length;
  const batchShape = out.shape.slice(0, -2);
  return {
    M: out.shape[rank - 2]!,
    N: out.shape[rank - 1]!,
    K: a.shape[a.shape.length - 1]!,
    batchShape,
    batches: numel(batchShape),
    aB: batchStrides(a, batchShape),
    bB: batchStrides(b, batchShape),
    sam: a.strides[a.shape.length - 2]!,
    sak: a.strides[a.shape.length - 1]!,
    sbk: b.strides[b.shape.length - 2]!,
    sbn: b.strides[b.shape.length - 1]!,
    aOffset: a.offset,
    bOffset: b.offset,
  };
}

/** Whether A (k-contiguous) and B (n-contiguous) can be read `width` elements at a time. */
export function vectorLoads(p: MatmulProblem, width: number): { vecA: boolean; vecB: boolean } {
  const div = (v: number): boolean => v % width === 0;
  return {
    vecA: (p.sak === 1 || p.K === 1) && div(p.K) && (div(p.sam) || p.M === 1) && div(p.aOffset) && p.aB.every(div),
    vecB: (p.sbn === 1 || p.N === 1) && div(p.N) && (div(p.sbk) || p.K === 1) && div(p.bOffset) && p.bB.every(div),
  };
}

/** The parameter words of the batches from `base` on. */
export function matmulParams(p: MatmulProblem, base: number): Params {
  const w = new Params();
  w.us([p.M, p.N, p.K, p.sam, p.sak, p.sbk, p.sbn, p.aOffset, p.bOffset, base]);
  w.us(p.batchShape);
  w.us(p.aB);
  w.us(p.bB);
  return w;
}
