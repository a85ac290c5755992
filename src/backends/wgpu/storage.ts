/**
 * GPU storage: a reference-counted buffer plus a strided layout (shape, strides and offset in
 * elements), so permute, slice, expand and reshape of contiguous tensors are views without a
 * copy. Bool is stored as u32 on the GPU (WGSL has no 8-bit storage type).
 */
import type { DType } from '../../ir/dtype.js';
import type { Layout } from '../../ir/layout.js';
import type { GpuBuffer } from './buffers.js';
import type { Fault } from './faults.js';

export interface GpuStorage extends Layout {
  readonly buffer: GpuBuffer;
  readonly dtype: DType;
  /** Late verdicts on the work that produced these values (see faults.ts). */
  readonly faults: readonly Fault[];
}

export { alignedStrides, expandLayout, isContiguous, permuteLayout, reshapeLayout, sliceLayout, type Layout } from '../../ir/layout.js';

/** Whether a storage the scheduler hands out (typed unknown there) is a GPU storage. */
export function isGpuStorage(x: unknown): x is GpuStorage {
  return typeof x === 'object' && x !== null && 'buffer' in x && 'faults' in x && 'strides' in x && 'offset' in x;
}

/** Bytes per element in a GPU buffer (bool is stored as u32, float16 as packed halves). */
export function gpuBytesPerElement(dtype: DType): number {
  return dtype === 'float16' ? 2 : 4;
}
