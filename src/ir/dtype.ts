/** Element types and the kinds the type system tracks (float, int, bool). */
import { roundHalf, toHalfBits } from './half.js';

export type DType = 'float32' | 'float16' | 'int32' | 'bool';
export type Kind = 'float' | 'int' | 'bool';
/** The float dtypes: one kind, two storage widths. */
export type FloatDType = 'float32' | 'float16';

export type DTypeOf<K extends Kind> = K extends 'float' ? FloatDType : K extends 'int' ? 'int32' : 'bool';
export type KindOf<D extends DType> = D extends FloatDType ? 'float' : D extends 'int32' ? 'int' : 'bool';

export const DTYPES: readonly DType[] = ['float32', 'float16', 'int32', 'bool'];

export function kindOf(dtype: DType): Kind {
  return dtype === 'float32' || dtype === 'float16' ? 'float' : dtype === 'int32' ? 'int' : 'bool';
}

export function isFloat(dtype: DType): dtype is FloatDType {
  return dtype === 'float32' || dtype === 'float16';
}

/** The default dtype of a kind (float32 for floats). */
export function dtypeOf(kind: Kind): DType {
  return kind === 'float' ? 'float32' : kind === 'int' ? 'int32' : 'bool';
}

/** Bytes per element as stored (bool is one byte on the CPU; the WebGPU backend widens it to u32). */
export function bytesPerElement(dtype: DType): number {
  return dtype === 'bool' ? 1 : dtype === 'float16' ? 2 : 4;
}

/**
 * Storage arrays. A float16 tensor is stored as its 16-bit patterns in a Uint16Array (Node 20
 * has no Float16Array); `toData()` hands its values out as a Float32Array.
 */
export type TypedArray = Float32Array | Int32Array | Uint8Array | Uint16Array;

export function typedArrayFor(dtype: DType, buffer: ArrayBufferLike, offset = 0, length?: number): TypedArray {
  switch (dtype) {
    case 'float32':
      return new Float32Array(buffer, offset, length);
    case 'float16':
      return new Uint16Array(buffer, offset, length);
    case 'int32':
      return new Int32Array(buffer, offset, length);
    case 'bool':
      return new Uint8Array(buffer, offset, length);
  }
}

export function allocTyped(dtype: DType, length: number): TypedArray {
  switch (dtype) {
    case 'float32':
      return new Float32Array(length);
    case 'float16':
      return new Uint16Array(length);
    case 'int32':
      return new Int32Array(length);
    case 'bool':
      return new Uint8Array(length);
  }
}

/** Converts a JS number to the value a tensor of `dtype` holds (int32 truncates toward zero, bool is `v != 0`, NaN true as in PyTorch). */
export function coerce(dtype: DType, v: number): number {
  if (dtype === 'float32') return Math.fround(v);
  if (dtype === 'float16') return roundHalf(v);
  if (dtype === 'int32') return Number.isNaN(v) ? 0 : v | 0;
  return v !== 0 ? 1 : 0;
}

/** What a storage array of `dtype` stores for the number `v`: `coerce`, but float16 as its bit pattern. */
export function storedValue(dtype: DType, v: number): number {
  return dtype === 'float16' ? toHalfBits(v) : coerce(dtype, v);
}
