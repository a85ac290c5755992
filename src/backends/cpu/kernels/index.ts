/**
 * The CPU kernel table, typed over the op vocabulary: an op without a kernel here (and not
 * handled as a view or transfer by the executor) is a compile error.
 */
import { BINARY_OPS, UNARY_OPS, type BinaryOp, type ScalarOp, type UnaryOp } from '../../../ir/elementwise.js';
import { REDUCE_OPS, type OpName, type ReduceOp } from '../../../ir/ops.js';
import { arangeKernel, fullKernel, randomKernel } from './creation.js';
import { elementwiseKernel } from './elementwise.js';
import { catKernel, gatherKernel, indexSelectKernel, scatterAddKernel, sliceAssignKernel } from './indexing.js';
import type { CpuKernel } from './kernel.js';
import { matmulKernel } from './matmul.js';
import { reduceKernel } from './reduce.js';
import { softmaxKernel } from './softmax.js';

/** Ops the executor handles itself: views (no kernel, no copy), host data, transfers. */
export type ExecutorOp = 'reshape' | 'permute' | 'slice' | 'expand' | 'fromData' | 'transfer';
export type KernelOp = Exclude<OpName, ExecutorOp>;

type Table = { readonly [N in KernelOp]: CpuKernel<N> };

const fixed = {
  full: fullKernel,
  arange: arangeKernel,
  random: randomKernel,
  clamp: elementwiseKernel,
  where: elementwiseKernel,
  cast: elementwiseKernel,
  copy: elementwiseKernel,
  cat: catKernel,
  sliceAssign: sliceAssignKernel,
  gather: gatherKernel,
  scatterAdd: scatterAddKernel,
  indexSelect: indexSelectKernel,
  softmax: softmaxKernel,
  logSoftmax: softmaxKernel,
  matmul: matmulKernel,
} as const;

const unary = Object.fromEntries(UNARY_OPS.map((op) => [op, elementwiseKernel])) as Record<UnaryOp, CpuKernel<UnaryOp>>;
const binary = Object.fromEntries(BINARY_OPS.map((op) => [op, elementwiseKernel])) as Record<BinaryOp, CpuKernel<BinaryOp>>;
const scalar = Object.fromEntries(BINARY_OPS.map((op) => [`${op}Scalar`, elementwiseKernel])) as Record<ScalarOp, CpuKernel<ScalarOp>>;
const reduce = Object.fromEntries(REDUCE_OPS.map((op) => [op, reduceKernel])) as Record<ReduceOp, CpuKernel<ReduceOp>>;

export const KERNELS: Table = { ...fixed, ...unary, ...binary, ...scalar, ...reduce };

export function kernelFor(op: OpName): CpuKernel | undefined {
  return (KERNELS as Partial<Record<OpName, CpuKernel>>)[op];
}
