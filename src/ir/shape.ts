/** Shape helpers shared by the tensor API, shape inference and the kernels. */
import { ArgumentError, ShapeError } from '../errors.js';
import type { SliceRange } from './ops.js';

/** numpy broadcasting: align from the right; a dim of 1 stretches. */
export function broadcastShapes(op: string, ...shapes: ReadonlyArray<readonly number[]>): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const v = s[s.length - rank + i] ?? 1;
      if (v === 1) continue;
      if (d === 1) d = v;
      else if (d !== v) {
        throw new ShapeError(`shapes are not broadcastable (dim ${i - rank} is ${d} vs ${v})`, {
          op,
          shapes,
          hint: 'dims must be equal or 1, aligned from the right; use reshape/unsqueeze to line them up',
        });
      }
    }
    out[i] = d;
  }
  return out;
}

/** Resolves a possibly negative dim against a rank (PyTorch style); `extra` allows dim == rank (unsqueeze). */
export function normDim(op: string, dim: number, rank: number, shape: readonly number[], extra = 0): number {
  const n = rank + extra;
  if (!Number.isInteger(dim) || dim < -Math.max(n, 1) || dim >= Math.max(n, 1)) {
    throw new ShapeError(`dim ${dim} is out of range for a tensor of rank ${rank}`, {
      op,
      shapes: [shape],
      hint: `use a dim in [${-Math.max(n, 1)}, ${Math.max(n, 1) - 1}]`,
    });
  }
  return dim < 0 ? dim + Math.max(n, 1) : dim;
}

/** Several dims of one reduction: each resolved, none twice, sorted ascending. */
export function normDims(op: string, dims: readonly number[], rank: number, shape: readonly number[]): number[] {
  const out = dims.map((d) => normDim(op, d, rank, shape));
  const twice = out.find((d, i) => out.indexOf(d) !== i);
  if (twice !== undefined) {
    throw new ShapeError(`dim ${twice} appears more than once in [${dims.join(', ')}]`, { op, shapes: [shape], hint: 'list each dim once' });
  }
  return out.sort((a, b) => a - b);
}

export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export function checkShape(op: string, shape: readonly number[]): void {
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0) {
      throw new ArgumentError(`shape [${shape.join(', ')}] has a dim that is not a non-negative integer`, { op, hint: 'dims are integers >= 0' });
    }
  }
}

/** Resolves one -1 in a reshape target. */
export function resolveReshape(op: string, from: readonly number[], to: readonly number[]): number[] {
  const size = from.reduce((a, b) => a * b, 1);
  const out = [...to];
  const neg = out.flatMap((d, i) => (d === -1 ? [i] : []));
  if (neg.length > 1) throw new ShapeError('only one dim may be -1', { op, shapes: [from, to] });
  for (const d of out) {
    if (d !== -1 && (!Number.isInteger(d) || d < 0)) throw new ShapeError(`bad dim ${d} in the target shape`, { op, shapes: [from, to] });
  }
  if (neg.length === 1) {
    const known = out.reduce((a, d) => (d === -1 ? a : a * d), 1);
    if (known === 0 || size % known !== 0) {
      throw new ShapeError(`cannot infer the -1 dim: ${size} elements do not divide into ${known}`, { op, shapes: [from, to] });
    }
    out[neg[0]!] = size / known;
  }
  const n = out.reduce((a, b) => a * b, 1);
  if (n !== size) {
    throw new ShapeError(`cannot reshape ${size} elements into ${n}`, { op, shapes: [from, out], hint: 'the number of elements must stay the same' });
  }
  return out;
}

/** A user's slice spec for one dim: an index (drops nothing: the dim stays, size 1), a [start, end) pair, or a full object. */
export type SliceSpec = number | readonly [number | null, number | null] | { start?: number; end?: number; step?: number } | null | undefined;

/** PyTorch-style slice normalisation: negative indices count from the end; bounds are clamped. */
export function normSlices(op: string, shape: readonly number[], specs: readonly SliceSpec[]): SliceRange[] {
  if (specs.length > shape.length) {
    throw new ShapeError(`${specs.length} slice ranges given for a tensor of rank ${shape.length}`, { op, shapes: [shape] });
  }
  return shape.map((size, i) => {
    const spec = specs[i];
    if (spec === null || spec === undefined) return { start: 0, end: size, step: 1 };
    if (typeof spec === 'number') {
      if (!Number.isInteger(spec) || spec < -size || spec >= size) {
        throw new ShapeError(`index ${spec} is out of range for dim ${i} of size ${size}`, { op, shapes: [shape] });
      }
      const s = spec < 0 ? spec + size : spec;
      return { start: s, end: s + 1, step: 1 };
    }
    let start: number | null | undefined;
    let end: number | null | undefined;
    let step: number | undefined;
    if (Array.isArray(spec)) {
      [start, end] = spec as readonly [number | null, number | null];
    } else {
      const o = spec as { start?: number; end?: number; step?: number };
      start = o.start;
      end = o.end;
      step = o.step;
    }
    const st = step ?? 1;
    if (!Number.isInteger(st) || st < 1) throw new ArgumentError(`slice step must be a positive integer, got ${st}`, { op });
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + size : v, 0), size);
    const s0 = start === null || start === undefined ? 0 : clamp(start);
    const e0 = end === null || end === undefined ? size : clamp(end);
    return { start: s0, end: Math.max(e0, s0), step: st };
  });
}

export function sliceShape(ranges: readonly SliceRange[]): number[] {
  return ranges.map((r) => Math.max(0, Math.ceil((r.end - r.start) / r.step)));
}
