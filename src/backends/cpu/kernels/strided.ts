/** Index helpers shared by kernels: broadcast strides and strided walks. */
import { contiguousStrides } from '../../../ir/ops.js';
import type { View } from '../view.js';

/** Strides of `v` aligned to an output `shape` it broadcasts to (0 on stretched / new dims). */
export function alignedStrides(v: View, shape: readonly number[]): number[] {
  const off = shape.length - v.shape.length;
  return shape.map((d, i) => {
    if (i < off) return 0;
    const s = v.shape[i - off]!;
    return s === 1 && d !== 1 ? 0 : v.stride[i - off]!;
  });
}

export function sameAsContiguous(strides: readonly number[], shape: readonly number[]): boolean {
  const c = contiguousStrides(shape);
  return shape.every((d, i) => d === 1 || strides[i] === c[i]);
}

/** Calls fn(offset, linearIndex) for every element of a view, in row-major order. */
export function forEachOffset(v: View, fn: (offset: number, i: number) => void): void {
  const r = v.shape.length;
  const n = v.shape.reduce((a, b) => a * b, 1);
  if (n === 0) return;
  if (r === 0) {
    fn(v.offset, 0);
    return;
  }
  const idx = new Array<number>(r).fill(0);
  let p = v.offset;
  const last = r - 1;
  const nl = v.shape[last]!;
  const sl = v.stride[last]!;
  let i = 0;
  while (i < n) {
    for (let j = 0; j < nl; j++, i++) {
      fn(p, i);
      p += sl;
    }
    p -= sl * nl;
    let d = last - 1;
    while (d >= 0) {
      idx[d]!++;
      p += v.stride[d]!;
      if (idx[d]! < v.shape[d]!) break;
      p -= v.stride[d]! * v.shape[d]!;
      idx[d] = 0;
      d--;
    }
  }
}

/** The offset in `v` of the element with row-major linear index `i` over `shape` (strides aligned). */
export function offsetOf(i: number, shape: readonly number[], strides: readonly number[], base: number): number {
  let p = base;
  for (let d = shape.length - 1; d >= 0; d--) {
    const s = shape[d]!;
    const q = i % s;
    p += q * strides[d]!;
    i = (i - q) / s;
  }
  return p;
}
