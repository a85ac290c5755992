/**
 * The WebGPU kernel table, typed over the op vocabulary: an op without a kernel here (and not
 * handled by the executor as a view, host data or transfer) is a compile error.
 */
import { kernelTable as groupTable, type KernelOp } from '../../../ir/kernel-table.js';
import { argsortKernel } from './argsort.js';
import { catKernel, sliceAssignKernel } from './copy.js';
import { arangeKernel, fullKernel, randomKernel } from './creation.js';
import { elementwiseKernel } from './elementwise.js';
import { fusedKernel } from './fused.js';
import { gatherKernel, indexSelectKernel, scatterAddKernel } from './indexing.js';
import type { GpuKernel } from './kernel.js';
import { matmulKernel, type MatmulConfig } from './matmul.js';
import { reduceKernel } from './reduce.js';
import { reorderKernel } from './reorder.js';
import { scanKernel } from './scan.js';
import { varianceKernel } from './variance.js';
import { softmaxKernel } from './softmax.js';

export type { ExecutorOp, KernelOp } from '../../../ir/kernel-table.js';

export type KernelTable = { readonly [N in KernelOp]: GpuKernel<N> };

export function kernelTable(matmul: MatmulConfig): KernelTable {
  return groupTable<GpuKernel>({
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
    matmul: matmulKernel(matmul),
    variance: varianceKernel,
    scan: scanKernel,
    reorder: reorderKernel,
    argsort: argsortKernel,
    fused: fusedKernel,
  });
}
