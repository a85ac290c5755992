/**
 * GPU storage: a reference-counted buffer plus a strided layout (shape, strides and offset in
 * elements), so permute, slice, expand and reshape of contiguous tensors are views without a
 * copy. Bool is stored as u32 on the GPU (WGSL has no 8-bit storage type).
 */
import type { DType } from '../../ir/dtype.js';
import { contiguousStrides, type SliceRange } from '../../ir/ops.js';
import type { GpuBuffer } from './buffers.js';
import type { Fault } from './faults.js';

export interface Layout {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
}

export interface GpuStorage extends Layout {
  readonly buffer: GpuBuffer;
  readonly dtype: DType;
  /** Late verdicts on the work that produced these values (see faults.ts). */
  readonly faults: readonly Fault[];
}

/** Row-major contiguous, ignoring dims of size 1 (their stride never matters). */
export function isContiguous(l: Layout): boolean {
  let expected = 1;
  for (let i = l.shape.length - 1; i >= 0; i--) {
    const d = l.shape[i]!;
    if (d !== 1 && l.strides[i] !== expected) return false;
    expected *= d;
  }
  return true;
}

export function permuteLayout(l: Layout, dims: readonly number[]): Layout {
  return { shape: dims.map((d) => l.shape[d]!), strides: dims.map((d) => l.strides[d]!), offset: l.offset };
}

export function sliceLayout(l: Layout, ranges: readonly SliceRange[]): Layout {
  let offset = l.offset;
  const shape: number[] = [];
  const strides: number[] = [];
  ranges.forEach((r, i) => {
    const n = Math.max(0, Math.ceil((r.end - r.start) / r.step));
    shape.push(n);
    strides.push(l.strides[i]! * r.step);
    if (n > 0) offset += r.start * l.strides[i]!;
  });
  return { shape, strides, offset };
}

/** Broadcast to `shape` with stride 0 on stretched and new leading dims. */
export function expandLayout(l: Layout, shape: readonly number[]): Layout {
  const off = shape.length - l.shape.length;
  const strides = shape.map((d, i) => {
    if (i < off) return 0;
    return l.shape[i - off] === d ? l.strides[i - off]! : 0;
  });
  return { shape: [...shape], strides, offset: l.offset };
}

/** Reshape as a view when the layout is contiguous; undefined when it needs a copy. */
export function reshapeLayout(l: Layout, shape: readonly number[]): Layout | undefined {
  if (!isContiguous(l)) return undefined;
  return { shape: [...shape], strides: contiguousStrides(shape), offset: l.offset };
}

/** Strides of `l` aligned to an output `shape` it broadcasts to (0 on stretched and new dims). */
export function alignedStrides(l: Layout, shape: readonly number[]): number[] {
  const off = shape.length - l.shape.length;
  return shape.map((d, i) => {
    if (i < off) return 0;
    const s = l.shape[i - off]!;
    return s === 1 && d !== 1 ? 0 : l.strides[i - off]!;
  });
}
