/** The contract of one WebGPU kernel: encode the op's dispatches, return its output layouts. */
import type { DType } from '../../../ir/dtype.js';
import { contiguousStrides, numel, type OpName, type OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import type { GpuStorage } from '../storage.js';

/** A storage before the executor attaches its faults. */
export type RawStorage = Omit<GpuStorage, 'faults'>;

export interface GpuKernel<N extends OpName = OpName> {
  run(ctx: GpuContext, record: OpRecord<N>, inputs: readonly GpuStorage[]): RawStorage[];
  /**
   * Whether the kernel reads and writes this record's float16 tensors itself. Otherwise (the
   * default) a float16 record runs the kernel on widened f32 copies (kernels/half.ts).
   */
  float16?(ctx: GpuContext, record: OpRecord<N>): boolean;
}

/**
 * A fresh contiguous storage (at least 4 bytes, so empty tensors have a valid buffer). float16
 * takes 2 bytes an element, rounded up to whole 4-byte words (WebGPU sizes and copies are in words).
 */
export function freshStorage(ctx: GpuContext, shape: readonly number[], dtype: DType): RawStorage {
  const n = numel(shape);
  const buffer = ctx.alloc(dtype === 'float16' ? 4 * Math.ceil(n / 2) : n * 4);
  return { buffer, dtype, shape: [...shape], strides: contiguousStrides(shape), offset: 0 };
}
