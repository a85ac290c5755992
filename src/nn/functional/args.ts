/** Argument parsing shared by the convolution and pooling functionals: pairs, paddings, checks. */
import { ArgumentError, DTypeError, ShapeError } from '../../errors.js';
import type { Backend } from '../../backends/backend.js';
import type { Tensor } from '../../tensor/tensor.js';
import { isFloat } from '../../ir/dtype.js';
import { MAX_ELEMENTS, show } from '../../ir/validate.js';

/** One number for both spatial dims, or [height, width]. */
export type Pair = number | readonly [number, number];

/** Per-dim zero padding, or 'same' (output size = input size, stride 1) / 'valid' (no padding). */
export type Padding2d = Pair | 'same' | 'valid';
export type Padding1d = number | 'same' | 'valid';

/** A normalised padding: [top, bottom, left, right] (asymmetric only for 'same' with even kernels). */
export type Pads = readonly [number, number, number, number];

export function pair(op: string, name: string, v: Pair, min: number): [number, number] {
  const given: unknown = v;
  if (!Array.isArray(given) && typeof given !== 'number') throw new ArgumentError(`${name} must be a number or a pair, got ${show(given)}`, { op });
  // A list of another length is a mistake (a 3-D stride for a 2-D op), not the first two of it.
  if (Array.isArray(given) && given.length !== 2) throw new ArgumentError(`${name} must be a number or a pair [h, w], got ${JSON.stringify(given)}`, { op });
  const p: [number, number] = typeof v === 'number' ? [v, v] : [v[0], v[1]];
  for (const x of p) {
    if (!Number.isInteger(x) || x < min) {
      throw new ArgumentError(`${name} must be ${min === 0 ? 'a non-negative' : 'a positive'} integer (or a pair of them), got ${JSON.stringify(v)}`, { op });
    }
  }
  return p;
}

/** A 1-D size: a number, or a list of one (torch takes (2,) too). */
export function single(op: string, name: string, v: unknown, min: number): number {
  const x: unknown = Array.isArray(v) && v.length === 1 ? v[0] : v;
  if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < min) {
    throw new ArgumentError(`${name} must be ${min === 0 ? 'a non-negative' : 'a positive'} integer, got ${Array.isArray(v) ? JSON.stringify(v) : show(v)}`, { op });
  }
  return x;
}

/**
 * The element count of a result or an intermediate (a window table, the gathered windows) must
 * fit MAX_ELEMENTS: else a ShapeError now, not a RangeError from a host table or an allocation.
 */
export function checkElements(op: string, what: string, dims: readonly number[], shapes: ReadonlyArray<readonly number[]>): void {
  const n = dims.reduce((a, d) => a * d, 1);
  if (n > MAX_ELEMENTS) {
    throw new ShapeError(`${what} [${dims.join(', ')}] would hold ${n} elements, more than ${MAX_ELEMENTS}`, { op, shapes, hint: 'use a smaller size, stride, padding or dilation' });
  }
}

/**
 * Padding as [top, bottom, left, right]. 'same' puts the odd pixel at the bottom / right, as
 * PyTorch does, and needs stride 1 (PyTorch refuses it for strided convolutions too).
 */
export function pads(op: string, padding: Padding2d, kernel: readonly [number, number], stride: readonly [number, number], dilation: readonly [number, number]): Pads {
  if (padding === 'valid') return [0, 0, 0, 0];
  if (padding === 'same') {
    if (stride[0] !== 1 || stride[1] !== 1) {
      throw new ArgumentError(`padding 'same' needs stride 1, got stride [${stride.join(', ')}]`, { op, hint: "give the padding as numbers for a strided convolution (see the README's nn section)" });
    }
    const th = dilation[0] * (kernel[0] - 1);
    const tw = dilation[1] * (kernel[1] - 1);
    return [Math.floor(th / 2), th - Math.floor(th / 2), Math.floor(tw / 2), tw - Math.floor(tw / 2)];
  }
  if (typeof padding === 'string') {
    throw new ArgumentError(`unknown padding mode '${String(padding)}'`, { op, hint: "padding is a number, a pair [h, w], 'same' or 'valid'" });
  }
  const [ph, pw] = pair(op, 'padding', padding, 0);
  return [ph, ph, pw, pw];
}

/** Output length of a sliding window: floor (or ceil) of (size + pads - span) / stride, plus one. */
export function outLength(size: number, padBefore: number, padAfter: number, kernel: number, stride: number, dilation: number, ceil = false): number {
  const span = dilation * (kernel - 1) + 1;
  const room = size + padBefore + padAfter - span;
  if (room < 0) return 0;
  let n = (ceil ? Math.ceil(room / stride) : Math.floor(room / stride)) + 1;
  // With ceil, the last window must start inside the input or its leading padding (PyTorch's rule).
  if (ceil && (n - 1) * stride >= size + padBefore) n--;
  return n;
}

export function checkFloat<B extends Backend>(op: string, ...tensors: Array<Tensor<B> | undefined>): void {
  for (const t of tensors) {
    if (t && !isFloat(t.dtype)) throw new DTypeError(`takes float tensors, got ${t.dtype}`, { op, dtypes: [t.dtype], hint: 'cast with .cast("float32") first' });
  }
}

export function checkRank<B extends Backend>(op: string, name: string, t: Tensor<B>, ranks: readonly number[], layout: string, others: ReadonlyArray<readonly number[]> = []): void {
  if (!ranks.includes(t.rank)) {
    throw new ShapeError(`${name} must be ${layout} (rank ${ranks.join(' or ')}), got rank ${t.rank}`, { op, shapes: [t.shape, ...others] });
  }
}
