/**
 * Strided layouts and the view ops, once for every backend: a tensor's storage is a buffer plus
 * shape, strides and offset (in elements), so permute, slice, expand, and reshape of contiguous
 * data are new layouts over the same buffer. Backends keep their buffers; this is only the algebra.
 */
import { contiguousStrides, type OpRecord, type SliceRange } from './ops.js';

export interface Layout {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
}

export function contiguousLayout(shape: readonly number[]): Layout {
  return { shape: [...shape], strides: contiguousStrides(shape), offset: 0 };
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
  return { shape: [...shape], strides: alignedStrides(l, shape), offset: l.offset };
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

/** The view ops: records an executor runs as a new layout of its input's buffer. */
export type ViewOp = 'permute' | 'slice' | 'expand' | 'reshape';

export function isViewRecord(record: OpRecord): record is Extract<OpRecord, { op: ViewOp }> {
  const op = record.op;
  return op === 'permute' || op === 'slice' || op === 'expand' || op === 'reshape';
}

/** The output layout of a view record over `input`, or undefined when (a reshape) needs a copy. */
export function viewLayout(record: Extract<OpRecord, { op: ViewOp }>, input: Layout): Layout | undefined {
  switch (record.op) {
    case 'permute':
      return permuteLayout(input, record.attrs.dims);
    case 'slice':
      return sliceLayout(input, record.attrs.ranges);
    case 'expand':
      return expandLayout(input, record.outputs[0]!.shape);
    case 'reshape':
      return reshapeLayout(input, record.outputs[0]!.shape);
  }
}
