/** Argument parsing for the 3-D (volumetric) convolutions and pools: triples and paddings. */
import { ArgumentError } from '../../errors.js';
import { show } from '../../ir/validate.js';

/** One number for all three spatial dims, or [depth, height, width]. */
export type Triple = number | readonly [number, number, number];

/** Per-dim zero padding, or 'same' (output size = input size, stride 1) / 'valid' (no padding). */
export type Padding3d = Triple | 'same' | 'valid';

/** A normalised padding: [front, back, top, bottom, left, right] (asymmetric only for 'same' with even kernels). */
export type Pads3d = readonly [number, number, number, number, number, number];

export function triple(op: string, name: string, v: Triple, min: number): [number, number, number] {
  const given: unknown = v;
  if (!Array.isArray(given) && typeof given !== 'number') throw new ArgumentError(`${name} must be a number or a triple, got ${show(given)}`, { op });
  // A list of another length is a mistake (a 2-D stride for a 3-D op), not a prefix of it.
  if (Array.isArray(given) && given.length !== 3) throw new ArgumentError(`${name} must be a number or a triple [d, h, w], got ${JSON.stringify(given)}`, { op });
  const t: [number, number, number] = typeof v === 'number' ? [v, v, v] : [v[0], v[1], v[2]];
  for (const x of t) {
    if (!Number.isInteger(x) || x < min) {
      throw new ArgumentError(`${name} must be ${min === 0 ? 'a non-negative' : 'a positive'} integer (or a triple of them), got ${JSON.stringify(v)}`, { op });
    }
  }
  return t;
}

/**
 * Padding as [front, back, top, bottom, left, right]. 'same' puts the odd voxel at the back /
 * bottom / right, as PyTorch does, and needs stride 1 (PyTorch refuses it for strided convolutions too).
 */
export function pads3d(op: string, padding: Padding3d, kernel: readonly number[], stride: readonly number[], dilation: readonly number[]): Pads3d {
  if (padding === 'valid') return [0, 0, 0, 0, 0, 0];
  if (padding === 'same') {
    if (stride.some((s) => s !== 1)) {
      throw new ArgumentError(`padding 'same' needs stride 1, got stride [${stride.join(', ')}]`, { op, hint: "give the padding as numbers for a strided convolution (see the README's nn section)" });
    }
    const [a, b, c] = [0, 1, 2].map((i) => dilation[i]! * (kernel[i]! - 1)) as [number, number, number];
    return [Math.floor(a / 2), a - Math.floor(a / 2), Math.floor(b / 2), b - Math.floor(b / 2), Math.floor(c / 2), c - Math.floor(c / 2)];
  }
  if (typeof padding === 'string') {
    throw new ArgumentError(`unknown padding mode '${String(padding)}'`, { op, hint: "padding is a number, a triple [d, h, w], 'same' or 'valid'" });
  }
  const [pd, ph, pw] = triple(op, 'padding', padding, 0);
  return [pd, pd, ph, ph, pw, pw];
}
