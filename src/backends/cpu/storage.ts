/** CPU storage: a reference-counted shared buffer and a strided view into it (views share buffers). */
import type { DType, TypedArray } from '../../ir/dtype.js';
import type { View } from './view.js';
import { runtimeOf } from './wasm/runtime.js';

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

/**
 * How a view travels to a worker, without a copy: a tensor in the backend's wasm memory as its
 * byte address (the worker has the same memory), any other as its SharedArrayBuffer; plus the layout.
 */
export interface WireView {
  /** The shared buffer; absent for a tensor in the backend's wasm memory. */
  readonly buffer?: ArrayBufferLike;
  /** Byte offset of the array in `buffer`, or its byte address in the wasm memory. */
  readonly byteOffset: number;
  readonly length: number;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly stride: readonly number[];
  readonly offset: number;
}

export function toWire(v: View, dtype: DType): WireView {
  const layout = { byteOffset: v.data.byteOffset, length: v.data.length, dtype, shape: v.shape, stride: v.stride, offset: v.offset };
  return runtimeOf(v.data) ? layout : { buffer: v.data.buffer, ...layout };
}
