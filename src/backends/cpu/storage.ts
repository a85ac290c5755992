/** CPU storage: a reference-counted shared buffer and a strided view into it (views share buffers). */
import type { DType, TypedArray } from '../../ir/dtype.js';
import type { View } from './view.js';

export interface CpuBuffer {
  readonly data: TypedArray;
  /** Storages (tensors and views) that point into this buffer. */
  refs: number;
}

export interface CpuStorage {
  readonly buffer: CpuBuffer;
  readonly view: View;
  readonly dtype: DType;
}

/** How a view travels to a worker: the shared buffer itself (no copy) plus the layout. */
export interface WireView {
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  readonly length: number;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly stride: readonly number[];
  readonly offset: number;
}

export function toWire(v: View, dtype: DType): WireView {
  return { buffer: v.data.buffer, byteOffset: v.data.byteOffset, length: v.data.length, dtype, shape: v.shape, stride: v.stride, offset: v.offset };
}
