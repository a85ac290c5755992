/**
 * Which ops share a kernel: every backend fills the same groups (one elementwise kernel for the
 * whole elementwise table, one reduction kernel, ...) and gets a table with an entry for every
 * op it must run. Ops the executors handle themselves (views, host data, transfers) have none.
 */
import { BINARY_OPS, PARAM_UNARY_OPS, UNARY_OPS, type BinaryOp, type ParamUnaryOp, type ScalarOp, type UnaryOp } from './elementwise.js';
import { REDUCE_OPS, type OpName, type ReduceOp } from './ops.js';

/** Ops an executor handles itself: views (no kernel, no copy), host data, transfers. */
export type ExecutorOp = 'reshape' | 'permute' | 'slice' | 'expand' | 'fromData' | 'transfer';
export type KernelOp = Exclude<OpName, ExecutorOp>;

export interface KernelGroups<K> {
  /** Unary (plain and parameterised), binary and scalar ops of the table, plus clamp, where, maskFill, cast and copy. */
  readonly elementwise: K;
  readonly reduce: K;
  /** softmax and logSoftmax. */
  readonly softmax: K;
  readonly full: K;
  readonly arange: K;
  readonly random: K;
  readonly cat: K;
  readonly sliceAssign: K;
  readonly gather: K;
  readonly scatterAdd: K;
  readonly indexSelect: K;
  readonly matmul: K;
  /** var (mean and squared deviations of each row, in one kernel). */
  readonly variance: K;
  /** cumsum and cumprod. */
  readonly scan: K;
  /** flip, roll, tril and triu: copies whose source index is a function of the output index. */
  readonly reorder: K;
  /** argsort and argtopk. */
  readonly argsort: K;
  /** Fused elementwise programs (src/ir/fused.ts). */
  readonly fused: K;
}

type Listed = UnaryOp | ParamUnaryOp | BinaryOp | ScalarOp | ReduceOp | 'full' | 'arange' | 'random' | 'clamp' | 'where' | 'maskFill' | 'cast' | 'copy' | 'cat' | 'sliceAssign' | 'gather' | 'scatterAdd' | 'indexSelect' | 'softmax' | 'logSoftmax' | 'matmul' | 'var' | 'cumsum' | 'cumprod' | 'flip' | 'roll' | 'tril' | 'triu' | 'argsort' | 'argtopk' | 'fused';
/** A new op in the vocabulary that kernelTable does not place is a compile error here. */
const exhaustive: [Exclude<KernelOp, Listed>] extends [never] ? true : never = true;
void exhaustive;

export function kernelTable<K>(g: KernelGroups<K>): Record<KernelOp, K> {
  const ew = g.elementwise;
  const table: Record<string, K> = {
    full: g.full,
    arange: g.arange,
    random: g.random,
    clamp: ew,
    where: ew,
    maskFill: ew,
    cast: ew,
    copy: ew,
    cat: g.cat,
    sliceAssign: g.sliceAssign,
    gather: g.gather,
    scatterAdd: g.scatterAdd,
    indexSelect: g.indexSelect,
    softmax: g.softmax,
    logSoftmax: g.softmax,
    matmul: g.matmul,
    var: g.variance,
    cumsum: g.scan,
    cumprod: g.scan,
    flip: g.reorder,
    roll: g.reorder,
    tril: g.reorder,
    triu: g.reorder,
    argsort: g.argsort,
    argtopk: g.argsort,
    fused: g.fused,
  };
  for (const op of UNARY_OPS) table[op] = ew;
  for (const op of PARAM_UNARY_OPS) table[op] = ew;
  for (const op of BINARY_OPS) {
    table[op] = ew;
    table[`${op}Scalar`] = ew;
  }
  for (const op of REDUCE_OPS) table[op] = g.reduce;
  return table as Record<KernelOp, K>;
}
