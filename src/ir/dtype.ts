/** Element types and the kinds the type system tracks (float, int, bool). */
export type DType = 'float32' | 'int32' | 'bool';
export type Kind = 'float' | 'int' | 'bool';

export type DTypeOf<K extends Kind> = K extends 'float' ? 'float32' : K extends 'int' ? 'int32' : 'bool';
export type KindOf<D extends DType> = D extends 'float32' ? 'float' : D extends 'int32' ? 'int' : 'bool';

export const DTYPES: readonly DType[] = ['float32', 'int32', 'bool'];

export function kindOf(dtype: DType): Kind {
  return dtype === 'float32' ? 'float' : dtype === 'int32' ? 'int' : 'bool';
}

export function dtypeOf(kind: Kind): DType {
  return kind === 'float' ? 'float32' : kind === 'int' ? 'int32' : 'bool';
}

/** Bytes per element as stored (bool is one byte on the CPU; the WebGPU backend widens it to u32). */
export function bytesPerElement(dtype: DType): number {
  return dtype === 'bool' ? 1 : 4;
}

export type TypedArray = Float32Array | Int32Array | Uint8Array;

export function typedArrayFor(dtype: DType, buffer: ArrayBufferLike, offset = 0, length?: number): TypedArray {
  switch (dtype) {
    case 'float32':
      return new Float32Array(buffer, offset, length);
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
    case 'int32':
      return new Int32Array(length);
    case 'bool':
      return new Uint8Array(length);
  }
}

/** Converts a JS number to the value a tensor of `dtype` stores (int32 truncates toward zero, bool is `v != 0`, NaN true as in PyTorch). */
export function coerce(dtype: DType, v: number): number {
  if (dtype === 'float32') return Math.fround(v);
  if (dtype === 'int32') return Number.isNaN(v) ? 0 : v | 0;
  return v !== 0 ? 1 : 0;
}
