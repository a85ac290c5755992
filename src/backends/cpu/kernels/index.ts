/**
 * The CPU kernel table: every op of the vocabulary that the executor does not handle itself
 * (src/ir/kernel-table.ts says which share a kernel).
 */
import type { OpName } from '../../../ir/ops.js';
import { kernelTable, type KernelOp } from '../../../ir/kernel-table.js';
import { argsortKernel } from './argsort.js';
import { arangeKernel, fullKernel, randomKernel } from './creation.js';
import { elementwiseKernel } from './elementwise.js';
import { fusedKernel } from './fused.js';
import { catKernel, gatherKernel, indexSelectKernel, scatterAddKernel, sliceAssignKernel } from './indexing.js';
import type { CpuKernel } from './kernel.js';
import { matmulKernel } from './matmul.js';
import { reduceKernel } from './reduce.js';
import { reorderKernel } from './reorder.js';
import { scanKernel } from './scan.js';
import { softmaxKernel } from './softmax.js';

export type { ExecutorOp, KernelOp } from '../../../ir/kernel-table.js';

export const KERNELS: Record<KernelOp, CpuKernel> = kernelTable<CpuKernel>({
  elementwise: elementwiseKernel,
  reduce: reduceKernel,
  softmax: softmaxKernel,
  full: fullKernel,
  arange: arangeKernel,
  random: randomKernel,
  cat: catKernel,
  sliceAssign: sliceAssignKernel,
  gather: gatherKernel,
  scatterAdd: scatterAddKernel,
  indexSelect: indexSelectKernel,
  matmul: matmulKernel,
  scan: scanKernel,
  reorder: reorderKernel,
  argsort: argsortKernel,
  fused: fusedKernel,
});

export function kernelFor(op: OpName): CpuKernel | undefined {
  return (KERNELS as Partial<Record<OpName, CpuKernel>>)[op];
}
