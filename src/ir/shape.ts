/** Shape helpers shared by the tensor API, shape inference and the kernels. */
import { ArgumentError, ShapeError } from '../errors.js';
import { bytesPerElement, type DType } from './dtype.js';
import type { SliceRange } from './ops.js';
import { MAX_ELEMENTS, MAX_RANK, show } from './validate.js';

/** numpy broadcasting: align from the right; a dim of 1 stretches. */
export function broadcastShapes(op: string, ...shapes: ReadonlyArray<readonly number[]>): number[] {
  // Loops, no spread: every binary op and where() calls this.
  let rank = 0;
  for (const s of shapes) if (s.length > rank) rank = s.length;
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
  const n = Math.max(rank + extra, 1);
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < -n || dim >= n) {
    const what = typeof dim === 'number' && Number.isInteger(dim) ? `dim ${dim} is out of range` : `dim ${show(dim)} is not an integer`;
    throw new ShapeError(`${what} for a tensor of rank ${rank}`, { op, shapes: [shape], hint: `use a dim in [${-n}, ${n - 1}]` });
  }
  return dim < 0 ? dim + n : dim;
}

/** Several dims of one reduction: each resolved, none twice, sorted ascending. */
export function normDims(op: string, dims: readonly number[], rank: number, shape: readonly number[]): number[] {
  // Untyped callers can pass anything here.
  if (!Array.isArray(dims)) throw new ArgumentError(`dims must be a dim or a list of dims, got ${show(dims)}`, { op });
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

/** What is wrong with a shape (an array of integer dims >= 0, or -1 where `minusOne`), or undefined. */
function shapeProblem(shape: unknown, minusOne: boolean, maxRank: number): string | undefined {
  if (!Array.isArray(shape)) return `a shape must be an array of dims, got ${show(shape)}`;
  if (shape.length > maxRank) return `shape of rank ${shape.length}: tensors have at most ${maxRank} dims`;
  for (const d of shape as unknown[]) {
    if (typeof d === 'number' && Number.isSafeInteger(d) && d >= (minusOne ? -1 : 0) && d <= MAX_ELEMENTS) continue;
    const listed = (shape as unknown[]).map((x) => (typeof x === 'number' ? String(x) : show(x))).join(', ');
    return `shape [${listed}] has dim ${show(d)}: dims are integers >= 0${minusOne ? ' (or -1 to infer)' : ''} and at most ${MAX_ELEMENTS}`;
  }
  return undefined;
}

/** A creation shape: an array of integer dims >= 0, at most MAX_RANK of them and MAX_ELEMENTS elements. */
export function checkShape(op: string, shape: unknown, dtype: DType = 'float32'): number[] {
  const problem = shapeProblem(shape, false, MAX_RANK);
  if (problem) throw new ArgumentError(problem, { op, hint: 'see the README, section Creation' });
  // -0 passes as a dim of 0; it is stored as 0 (a size of -0 would surprise Object.is and 1 / size).
  const dims = (shape as number[]).map((d) => d + 0);
  checkSize(op, dims, dtype);
  return dims;
}

/** Rejects a shape with more elements than a tensor can hold, naming the elements and bytes. */
export function checkSize(op: string, shape: readonly number[], dtype: DType): void {
  let n = 1;
  for (const d of shape) n *= d;
  if (n > MAX_ELEMENTS) {
    throw new ShapeError(`shape [${shape.join(', ')}] has ${n} elements (${n * bytesPerElement(dtype)} bytes of ${dtype}); a tensor holds at most ${MAX_ELEMENTS} elements`, {
      op,
      shapes: [shape],
      hint: 'split the work into smaller tensors (chunk / narrow)',
    });
  }
}

/**
 * An op's target shape (reshape, expand): as checkShape, -1 allowed, and a ShapeError. The
 * public methods pass MAX_RANK; internal steps (repeat's interleaved view) may go past it.
 */
export function checkTargetShape(op: string, from: readonly number[], shape: unknown, maxRank = Infinity): number[] {
  const problem = shapeProblem(shape, true, maxRank);
  if (problem) throw new ShapeError(problem, { op, shapes: [from] });
  return (shape as number[]).map((d) => d + 0);
}

/** Resolves one -1 in a reshape target. */
export function resolveReshape(op: string, from: readonly number[], to: readonly number[]): number[] {
  const size = from.reduce((a, b) => a * b, 1);
  const out = checkTargetShape(op, from, to);
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

/** A slice bound: null / undefined (open) or an integer. */
function bound(op: string, v: unknown, what: string): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new ArgumentError(`${what} must be an integer or null, got ${show(v)}`, { op, hint: 'slices take integer bounds (null for an open end); see the README, section The op set' });
  }
  return v;
}

const SLICE_KEYS = new Set(['start', 'end', 'step']);

/** PyTorch-style slice normalisation: negative indices count from the end; bounds are clamped. */
export function normSlices(op: string, shape: readonly number[], specs: readonly SliceSpec[]): SliceRange[] {
  if (!Array.isArray(specs)) throw new ArgumentError(`slices must be an array with one entry per dim, got ${show(specs)}`, { op });
  if (specs.length > shape.length) {
    throw new ShapeError(`${specs.length} slice ranges given for a tensor of rank ${shape.length}`, { op, shapes: [shape] });
  }
  return shape.map((size, i) => {
    const spec: unknown = specs[i];
    if (spec === null || spec === undefined) return { start: 0, end: size, step: 1 };
    if (typeof spec === 'number') {
      const k = bound(op, spec, `index for dim ${i}`)!;
      if (k < -size || k >= size) {
        throw new ShapeError(`index ${k} is out of range for dim ${i} of size ${size}`, { op, shapes: [shape] });
      }
      const s = k < 0 ? k + size : k;
      return { start: s, end: s + 1, step: 1 };
    }
    let start: number | undefined;
    let end: number | undefined;
    let step: number | undefined;
    if (Array.isArray(spec)) {
      if (spec.length !== 2) throw new ArgumentError(`the range for dim ${i} must be [start, end], got ${show(spec)}`, { op });
      start = bound(op, spec[0], `start for dim ${i}`);
      end = bound(op, spec[1], `end for dim ${i}`);
    } else if (typeof spec === 'object') {
      const o = spec as Record<string, unknown>;
      for (const k of Object.keys(o)) if (!SLICE_KEYS.has(k)) throw new ArgumentError(`unknown key '${k}' in the slice for dim ${i} (keys: start, end, step)`, { op });
      start = bound(op, o['start'], `start for dim ${i}`);
      end = bound(op, o['end'], `end for dim ${i}`);
      step = bound(op, o['step'], `step for dim ${i}`);
    } else {
      throw new ArgumentError(`the slice for dim ${i} must be an index, [start, end], { start, end, step } or null, got ${show(spec)}`, { op });
    }
    const st = step ?? 1;
    if (st < 1) throw new ArgumentError(`slice step must be a positive integer, got ${st}`, { op });
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + size : v, 0), size);
    const s0 = start === undefined ? 0 : clamp(start);
    const e0 = end === undefined ? size : clamp(end);
    return { start: s0, end: Math.max(e0, s0), step: st };
  });
}

export function sliceShape(ranges: readonly SliceRange[]): number[] {
  return ranges.map((r) => Math.max(0, Math.ceil((r.end - r.start) / r.step)));
}
