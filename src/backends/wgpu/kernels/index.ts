/**
 * The WebGPU kernel table, typed over the op vocabulary: an op without a kernel here (and not
 * handled by the executor as a view, host data or transfer) is a compile error.
 */
import { BINARY_OPS, UNARY_OPS, type BinaryOp, type ScalarOp, type UnaryOp } from '../../../ir/elementwise.js';
import { REDUCE_OPS, type OpName, type ReduceOp } from '../../../ir/ops.js';
import { catKernel, sliceAssignKernel } from './copy.js';
import { arangeKernel, fullKernel, randomKernel } from './creation.js';
import { elementwiseKernel } from './elementwise.js';
import { gatherKernel, indexSelectKernel, scatterAddKernel } from './indexing.js';
import type { GpuKernel } from './kernel.js';
import { matmulKernel, type MatmulConfig } from './matmul.js';
import { reduceKernel } from './reduce.js';
import { softmaxKernel } from './softmax.js';

/** Ops the executor handles itself: views (no kernel, no copy), host data, transfers. */
export type ExecutorOp = 'reshape' | 'permute' | 'slice' | 'expand' | 'fromData' | 'transfer';
export type KernelOp = Exclude<OpName, ExecutorOp>;

export type KernelTable = { readonly [N in KernelOp]: GpuKernel<N> };

export function kernelTable(matmul: MatmulConfig): KernelTable {
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
    matmul: matmulKernel(matmul),
  } as const;
  const unary = Object.fromEntries(UNARY_OPS.map((op) => [op, elementwiseKernel])) as Record<UnaryOp, GpuKernel<UnaryOp>>;
  const binary = Object.fromEntries(BINARY_OPS.map((op) => [op, elementwiseKernel])) as Record<BinaryOp, GpuKernel<BinaryOp>>;
  const scalar = Object.fromEntries(BINARY_OPS.map((op) => [`${op}Scalar`, elementwiseKernel])) as Record<ScalarOp, GpuKernel<ScalarOp>>;
  const reduce = Object.fromEntries(REDUCE_OPS.map((op) => [op, reduceKernel])) as Record<ReduceOp, GpuKernel<ReduceOp>>;
  return { ...fixed, ...unary, ...binary, ...scalar, ...reduce };
}
