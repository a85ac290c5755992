/**
 * The CPU kernel table: every op of the vocabulary that the executor does not handle itself
 * (src/ir/kernel-table.ts says which share a kernel).
 */
import type { OpName } from '../../../ir/ops.js';
import { kernelTable, type KernelGroups, type KernelOp } from '../../../ir/kernel-table.js';
import { argsortKernel } from './argsort.js';
import { arangeKernel, fullKernel, randomKernel } from './creation.js';
import { elementwiseKernel } from './elementwise.js';
import { fusedKernel } from './fused.js';
import { catKernel, gatherKernel, indexSelectKernel, scatterAddKernel, sliceAssignKernel } from './indexing.js';
import type { CpuKernel } from './kernel.js';
import { withFloat16 } from './half.js';
import { matmulKernel } from './matmul.js';
import { reduceKernel } from './reduce.js';
import { reorderKernel } from './reorder.js';
import { scanKernel } from './scan.js';
import { varianceKernel } from './variance.js';
import { softmaxKernel } from './softmax.js';
import { wasmElementwiseKernel, wasmMatmulKernel, wasmReduceKernel, wasmSoftmaxKernel } from '../wasm/kernels.js';

export type { ExecutorOp, KernelOp } from '../../../ir/kernel-table.js';

/** The JS kernel of each group: the reference kernels. */
const JS_GROUPS: KernelGroups<CpuKernel> = {
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
  variance: varianceKernel,
  scan: scanKernel,
  reorder: reorderKernel,
  argsort: argsortKernel,
  fused: fusedKernel,
};

export const KERNELS: Record<KernelOp, CpuKernel> = kernelTable<CpuKernel>(JS_GROUPS);

export function kernelFor(op: OpName): CpuKernel | undefined {
  return (KERNELS as Partial<Record<OpName, CpuKernel>>)[op];
}

/** Which kernels a CPU backend runs: the SIMD WebAssembly ones (src/backends/cpu/wasm), or the JS reference kernels. */
export type KernelChoice = 'js' | 'wasm';

/** The same table with matmul, elementwise, reductions and softmax on the wasm module (each falls back to its JS kernel where it has no wasm form). */
export const WASM_KERNELS: Record<KernelOp, CpuKernel> = kernelTable<CpuKernel>({
  ...JS_GROUPS,
  elementwise: wasmElementwiseKernel,
  reduce: wasmReduceKernel,
  softmax: wasmSoftmaxKernel,
  matmul: wasmMatmulKernel,
});

export type KernelLookup = (op: OpName) => CpuKernel | undefined;

/** Each kernel of a table, with float16 records run by the JS kernel on float32 copies (src/backends/cpu/kernels/half.ts). */
function withHalves(table: Record<KernelOp, CpuKernel>): Partial<Record<OpName, CpuKernel>> {
  const out: Partial<Record<OpName, CpuKernel>> = {};
  for (const op of Object.keys(table) as KernelOp[]) out[op] = withFloat16(table[op], KERNELS[op]);
  return out;
}

const LOOKUPS: Record<KernelChoice, Partial<Record<OpName, CpuKernel>>> = { js: withHalves(KERNELS), wasm: withHalves(WASM_KERNELS) };

export function kernelsFor(choice: KernelChoice): KernelLookup {
  const table = LOOKUPS[choice];
  return (op) => table[op];
}
