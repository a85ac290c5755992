/**
 * A strided view over a typed array: the `ndarray` layout (data, shape, stride, offset).
 * Kernels take views, so the same code runs on the main thread and in workers.
 */
import type { TypedArray } from '../../ir/dtype.js';
import { expandLayout, isContiguous as isContiguousLayout, permuteLayout, reshapeLayout, sliceLayout, viewLayout, type Layout } from '../../ir/layout.js';
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

/** The shared layout of a view (src/ir/layout.ts names strides `strides`; ndarray says `stride`). */
export function layoutOf(v: View): Layout {
  return { shape: v.shape, strides: v.stride, offset: v.offset };
}

export function viewOf(data: TypedArray, l: Layout): View {
  return { data, shape: l.shape, stride: l.strides, offset: l.offset };
}

export function isContiguous(v: View): boolean {
  return isContiguousLayout(layoutOf(v));
}

/** The output view of a view record, or undefined when (a reshape) needs a copy. */
export function recordView(record: Parameters<typeof viewLayout>[0], v: View): View | undefined {
  const l = viewLayout(record, layoutOf(v));
  return l && viewOf(v.data, l);
}

export function permuteView(v: View, dims: readonly number[]): View {
  return viewOf(v.data, permuteLayout(layoutOf(v), dims));
}

export function sliceView(v: View, ranges: readonly SliceRange[]): View {
  return viewOf(v.data, sliceLayout(layoutOf(v), ranges));
}

export function expandView(v: View, shape: readonly number[]): View {
  return viewOf(v.data, expandLayout(layoutOf(v), shape));
}

export function reshapeView(v: View, shape: readonly number[]): View | undefined {
  const l = reshapeLayout(layoutOf(v), shape);
  return l && viewOf(v.data, l);
}
