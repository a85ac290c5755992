/**
 * A strided view over a typed array: the `ndarray` layout (data, shape, stride, offset).
 * Kernels take views, so the same code runs on the main thread and in workers.
 */
import ndarray from 'ndarray';
import type { TypedArray } from '../../ir/dtype.js';
import { contiguousStrides, type SliceRange } from '../../ir/ops.js';

export interface View {
  readonly data: TypedArray;
  readonly shape: readonly number[];
  readonly stride: readonly number[];
  readonly offset: number;
}

export function makeView(data: TypedArray, shape: readonly number[], stride?: readonly number[], offset = 0): View {
  return { data, shape, stride: stride ?? contiguousStrides(shape), offset };
}

/** Row-major contiguous (ignoring dims of size 1, whose stride never matters). */
export function isContiguous(v: View): boolean {
  let expected = 1;
  for (let i = v.shape.length - 1; i >= 0; i--) {
    const d = v.shape[i]!;
    if (d !== 1 && v.stride[i] !== expected) return false;
    expected *= d;
  }
  return true;
}

export function permuteView(v: View, dims: readonly number[]): View {
  const t = ndarray(v.data, [...v.shape], [...v.stride], v.offset).transpose(...dims);
  return { data: v.data, shape: t.shape, stride: t.stride, offset: t.offset };
}

export function sliceView(v: View, ranges: readonly SliceRange[]): View {
  let offset = v.offset;
  const shape: number[] = [];
  const stride: number[] = [];
  ranges.forEach((r, i) => {
    const n = Math.max(0, Math.ceil((r.end - r.start) / r.step));
    shape.push(n);
    stride.push(v.stride[i]! * r.step);
    if (n > 0) offset += r.start * v.stride[i]!;
  });
  return { data: v.data, shape, stride, offset };
}

/** Broadcast `v` to `shape` with stride 0 on stretched and new leading dims. */
export function expandView(v: View, shape: readonly number[]): View {
  const off = shape.length - v.shape.length;
  const stride = shape.map((d, i) => {
    if (i < off) return 0;
    const s = v.shape[i - off]!;
    return s === d ? v.stride[i - off]! : 0;
  });
  return { data: v.data, shape: [...shape], stride, offset: v.offset };
}

/** Reshape without a copy when the view is contiguous; undefined otherwise. */
export function reshapeView(v: View, shape: readonly number[]): View | undefined {
  if (!isContiguous(v)) return undefined;
  return { data: v.data, shape: [...shape], stride: contiguousStrides(shape), offset: v.offset };
}
