/**
 * torch.nn.functional.interpolate for 3-D [N, C, L], 4-D [N, C, H, W] and 5-D [N, C, D, H, W]
 * inputs: 'nearest', 'nearest-exact' and 'area' (any of the three ranks), 'linear' (3-D),
 * 'bilinear' and 'bicubic' (4-D), 'trilinear' (5-D). Each spatial dim is resampled on its own (the
 * modes are separable): source indices and weights are tables computed here with torch's CPU
 * coordinate rules, in float32 as torch computes them, then applied with indexSelect and
 * elementwise weights ('area': adaptive average pooling, adaptive-pool.ts's for 3-D and 4-D inputs,
 * windows gathered per dim for 5-D ones), so gradients flow (indexSelect's
 * backward adds into the sources).
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { checkBoolean, checkChoice, checkKeys, checkOptions, field, show } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { fromData } from '../../tensor/creation.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';
import { adaptiveAvgPool1d, adaptiveAvgPool2d } from './adaptive-pool.js';
import { checkElements, checkFloat } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export type InterpolateMode = 'nearest' | 'nearest-exact' | 'linear' | 'bilinear' | 'bicubic' | 'trilinear' | 'area';
const MODES: readonly InterpolateMode[] = ['nearest', 'nearest-exact', 'linear', 'bilinear', 'bicubic', 'trilinear', 'area'];
/** The input ranks each mode takes (torch's: a mode named for its dims takes only those). */
const RANKS: Readonly<Record<InterpolateMode, readonly number[]>> = { nearest: [3, 4, 5], 'nearest-exact': [3, 4, 5], area: [3, 4, 5], linear: [3], bilinear: [4], bicubic: [4], trilinear: [5] };
/** The modes that interpolate between neighbours: the only ones alignCorners means anything for. */
const INTERPOLATING: readonly InterpolateMode[] = ['linear', 'bilinear', 'bicubic', 'trilinear'];

export interface InterpolateOptions {
  /** The output's spatial size: one number for every spatial dim, or one per dim. */
  readonly size?: number | readonly number[];
  /** Or a multiplier per spatial dim: the output size is floor(input size * scaleFactor). */
  readonly scaleFactor?: number | readonly number[];
  /** Default 'nearest'. */
  readonly mode?: InterpolateMode;
  /** linear, bilinear, bicubic and trilinear only: map the corner pixels' centres onto each other (default false). */
  readonly alignCorners?: boolean;
  /** With scaleFactor: map coordinates by input / output size instead of 1 / scaleFactor (torch's recompute_scale_factor). */
  readonly recomputeScaleFactor?: boolean;
}

const f32 = Math.fround;

/** One number for every dim, or a list of exactly `n`. */
function perDim(op: string, name: string, v: unknown, n: number, ok: (x: number) => boolean, what: string): number[] {
  const list: readonly unknown[] = Array.isArray(v) ? v : [v];
  if (Array.isArray(v) && v.length !== n) throw new ArgumentError(`${name} must be a number or a list of ${n} (one per spatial dim), got a list of ${v.length}`, { op });
  return (Array.isArray(v) ? list : Array.from({ length: n }, () => v)).map((x) => {
    if (typeof x !== 'number' || !ok(x)) throw new ArgumentError(`${name} must be ${what}, got ${show(x)}`, { op });
    return x;
  });
}

/** torch's compute_scales_value: 1 / scaleFactor when one was given, else input / output, in float32. */
function scaleOf(scale: number | undefined, input: number, output: number): number {
  return scale !== undefined && scale > 0 ? f32(1 / scale) : f32(input / output);
}

/** torch's area_pixel_compute_scale: (in - 1) / (out - 1) with alignCorners (0 for one output), else scaleOf. */
function areaScale(input: number, output: number, alignCorners: boolean, scale: number | undefined): number {
  return alignCorners ? (output > 1 ? f32((input - 1) / (output - 1)) : 0) : scaleOf(scale, input, output);
}

/** torch's area_pixel_compute_source_index in float32: half-pixel centres, clamped at 0 except for cubic. */
function sourceIndex(s: number, i: number, alignCorners: boolean, cubic: boolean): number {
  if (alignCorners) return f32(s * i);
  const real = f32(f32(s * f32(i + 0.5)) - 0.5);
  return !cubic && real < 0 ? 0 : real;
}

/**
 * torch's nearest indices. `shortcuts` (the vectorised nearest_idx, which torch's 4-D path follows):
 * a copy at equal sizes, a shift at exactly double; without (HelperInterpNearest, torch's kernel for
 * 3-D and contiguous 5-D inputs): always min(floor(dst * scale), input - 1) in float32.
 * They differ only for a scaleFactor whose output is the input's size or twice it but that is not
 * exactly 1 or 2 (5 values at 1.1 read [0, 0, 1, 2, 3] without shortcuts).
 */
export function nearestTable(input: number, output: number, scale: number | undefined, shortcuts = true): Int32Array {
  const s = scaleOf(scale, input, output);
  return Int32Array.from({ length: output }, (_, i) => {
    if (shortcuts && output === input) return i;
    if (shortcuts && output === 2 * input) return i >> 1;
    return Math.min(Math.floor(f32(i * s)), input - 1);
  });
}

/** torch's nearest-exact (HelperInterpNearestExact): min(floor(((dst + 0.5) scale - 0.5 clamped at 0) + 0.5), input - 1), in float32. */
export function nearestExactTable(input: number, output: number, scale: number | undefined): Int32Array {
  const s = scaleOf(scale, input, output);
  return Int32Array.from({ length: output }, (_, i) => Math.min(Math.floor(f32(sourceIndex(s, i, false, false) + 0.5)), input - 1));
}

/** torch's guard_index_and_lambda: the index below `real` (at most input - 1) and the fraction past it, clamped to [0, 1]. */
function guard(real: number, input: number): [number, number] {
  const at = Math.min(Math.floor(real), input - 1);
  return [at, Math.min(Math.max(f32(real - at), 0), 1)];
}

/**
 * torch's linear source positions (area_pixel_compute_source_index and guard_index_and_lambda):
 * the two neighbours of each output position and their weights.
 */
export function linearTable(input: number, output: number, alignCorners: boolean, scale: number | undefined): { i0: Int32Array; i1: Int32Array; w0: Float32Array; w1: Float32Array } {
  const s = areaScale(input, output, alignCorners, scale);
  const i0 = new Int32Array(output);
  const i1 = new Int32Array(output);
  const w0 = new Float32Array(output);
  const w1 = new Float32Array(output);
  if (output === input) {
    // torch's kernels copy a dim whose size is unchanged, whatever the scale factor (UpSample.h:
    // compute_source_index_and_lambda), e.g. 5 values at scaleFactor 1.1.
    for (let i = 0; i < output; i++) {
      i0[i] = i;
      i1[i] = i;
      w0[i] = 1;
    }
    return { i0, i1, w0, w1 };
  }
  for (let i = 0; i < output; i++) {
    const [at, lambda] = guard(sourceIndex(s, i, alignCorners, false), input);
    i0[i] = at;
    i1[i] = at < input - 1 ? at + 1 : at;
    w0[i] = f32(1 - lambda);
    w1[i] = lambda;
  }
  return { i0, i1, w0, w1 };
}

/** Keys' cubic convolution with torch's A = -0.75 (cubic_convolution1 for |x| <= 1, cubic_convolution2 for 1 < |x| < 2), in float32. */
const A = -0.75;
const cubic1 = (x: number): number => f32(f32(f32(f32(f32(f32(A + 2) * x) - f32(A + 3)) * x) * x) + 1);
const cubic2 = (x: number): number => f32(f32(f32(f32(f32(f32(A * x) - f32(5 * A)) * x) + f32(8 * A)) * x) - f32(4 * A));

/** torch's get_cubic_upsample_coefficients for the fraction t in [0, 1]: the weights of the neighbours at -1, 0, +1, +2. */
export function cubicWeights(t: number): [number, number, number, number] {
  return [cubic2(f32(t + 1)), cubic1(t), cubic1(f32(1 - t)), cubic2(f32(f32(1 - t) + 1))];
}

/**
 * torch's bicubic tables (HelperInterpCubic): the source position without the clamp at 0, its
 * index and fraction guarded as linear's, the four neighbours at index - 1 .. index + 2 clamped
 * into [0, input - 1] (a border value repeats), and their cubic weights. No copy at equal sizes:
 * torch has none for cubic (a size-preserving scaleFactor other than 1 still resamples).
 */
export function cubicTable(input: number, output: number, alignCorners: boolean, scale: number | undefined): { index: Int32Array[]; weight: Float32Array[] } {
  const s = areaScale(input, output, alignCorners, scale);
  const index = Array.from({ length: 4 }, () => new Int32Array(output));
  const weight = Array.from({ length: 4 }, () => new Float32Array(output));
  for (let i = 0; i < output; i++) {
    const [at, t] = guard(sourceIndex(s, i, alignCorners, true), input);
    const w = cubicWeights(t);
    for (let j = 0; j < 4; j++) {
      index[j]![i] = Math.max(Math.min(at - 1 + j, input - 1), 0);
      weight[j]![i] = w[j]!;
    }
  }
  return { index, weight };
}

/** The checked options as the output's spatial size and the per-dim scales torch's kernels receive. */
function plan<B extends Backend>(op: string, x: F<B>, o: Record<string, unknown>, mode: InterpolateMode): { sizes: number[]; scales: Array<number | undefined> } {
  const spatial = x.shape.slice(2);
  const n = spatial.length;
  const size = field(o, 'size');
  const scaleFactor = field(o, 'scaleFactor');
  const recompute = field(o, 'recomputeScaleFactor');
  if (recompute !== undefined) checkBoolean(op, 'recomputeScaleFactor', recompute);
  if ((size === undefined) === (scaleFactor === undefined)) {
    throw new ArgumentError(size === undefined ? 'give size or scaleFactor' : 'give only one of size and scaleFactor', { op, hint: "interpolate(x, { size: [h, w] }) or interpolate(x, { scaleFactor: 2, mode: 'bilinear' })" });
  }
  let sizes: number[];
  let scales: Array<number | undefined>;
  if (size !== undefined) {
    if (recompute === true) throw new ArgumentError('recomputeScaleFactor is not meaningful with an explicit size', { op });
    sizes = perDim(op, 'size', size, n, (v) => Number.isSafeInteger(v) && v >= 0, 'a non-negative integer');
    scales = sizes.map(() => undefined);
  } else {
    const factors = perDim(op, 'scaleFactor', scaleFactor, n, (v) => Number.isFinite(v) && v > 0, 'a finite number > 0');
    sizes = factors.map((f, i) => Math.floor(spatial[i]! * f));
    scales = recompute === true ? sizes.map(() => undefined) : factors;
  }
  if (spatial.some((d) => d === 0) || sizes.some((d) => d === 0)) {
    throw new ShapeError(`input and output sizes must be greater than 0, got input [${spatial.join(', ')}] and output [${sizes.join(', ')}]`, { op, shapes: [x.shape], hint: `mode '${mode}' resamples non-empty spatial dims` });
  }
  checkElements(op, 'the output', [...x.shape.slice(0, 2), ...sizes], [x.shape]);
  return { sizes, scales };
}

/** `w` as a tensor [w.length, 1, ...] that broadcasts along dim `d` of `x`, in x's dtype (torch keeps the weights in the input's dtype). */
function weightAlong<B extends Backend>(x: F<B>, d: number, w: Float32Array): F<B> {
  return fromData(x.backend, w, { device: x.device, dtype: x.dtype, shape: [w.length, ...new Array<number>(x.rank - 1 - d).fill(1)] });
}

/** sum_j indexSelect(x, d, index_j) * weight_j, summed in j order as torch's kernels do. */
function weightedAlong<B extends Backend>(x: F<B>, d: number, index: readonly Int32Array[], weight: readonly Float32Array[]): F<B> {
  const term = (j: number): F<B> => x.indexSelect(d, fromData(x.backend, index[j]!, { device: x.device })).mul(weightAlong(x, d, weight[j]!));
  let y = term(0);
  for (let j = 1; j < index.length; j++) y = y.add(term(j));
  return y;
}

/**
 * Averages dim `d` of `x` into `out` windows (adaptive average pooling along one dim, torch's
 * windows [floor(i in / out), ceil((i + 1) in / out))): the window's k-th element gathered for
 * every output, summed where the window has one, divided by the window's length. Not a matmul
 * with an averaging matrix: its zeros would turn an inf or NaN outside a window into NaN inside.
 */
function areaAlong<B extends Backend>(x: F<B>, d: number, out: number): F<B> {
  const size = x.shape[d]!;
  const lo = Int32Array.from({ length: out }, (_, i) => Math.floor((i * size) / out));
  const len = Int32Array.from({ length: out }, (_, i) => Math.ceil(((i + 1) * size) / out) - lo[i]!);
  const trailing = new Array<number>(x.rank - 1 - d).fill(1);
  let sum: F<B> | undefined;
  for (let k = 0; k < Math.max(...len); k++) {
    // Past a window's end the index repeats its last element, masked out below.
    const index = fromData(x.backend, lo.map((v, i) => v + Math.min(k, len[i]! - 1)), { device: x.device });
    let term = x.indexSelect(d, index);
    if (len.some((n) => n <= k)) term = term.maskFill(fromData(x.backend, Uint8Array.from(len, (n) => (n <= k ? 1 : 0)), { device: x.device, shape: [out, ...trailing] }), 0);
    sum = sum === undefined ? term : sum.add(term);
  }
  return (sum ?? x).div(fromData(x.backend, Float32Array.from(len), { device: x.device, dtype: x.dtype, shape: [out, ...trailing] }));
}

/** Resamples dim `d` (input size `input`) to `out` with the mode's 1-D rule. */
function along<B extends Backend>(x: F<B>, d: number, mode: InterpolateMode, input: number, out: number, align: boolean, scale: number | undefined): F<B> {
  const dev = { device: x.device };
  switch (mode) {
    case 'nearest':
      // torch's 4-D kernel takes the shortcuts (nearestTable); its 3-D and 5-D (contiguous) ones do not (1.13 and 2.11 alike).
      return x.indexSelect(d, fromData(x.backend, nearestTable(input, out, scale, x.rank === 4), dev));
    case 'nearest-exact':
      return x.indexSelect(d, fromData(x.backend, nearestExactTable(input, out, scale), dev));
    case 'area':
      return areaAlong(x, d, out);
    case 'bicubic': {
      const { index, weight } = cubicTable(input, out, align, scale);
      return weightedAlong(x, d, index, weight);
    }
    default: {
      const t = linearTable(input, out, align, scale);
      return weightedAlong(x, d, [t.i0, t.i1], [t.w0, t.w1]);
    }
  }
}

/**
 * torch.nn.functional.interpolate(x, size | scale_factor, mode, align_corners,
 * recompute_scale_factor). Coordinates follow torch's CPU kernels, in float32: `scale` is
 * 1 / scaleFactor when scaleFactor is given (torch's default), else in / out; nearest takes
 * floor(dst * scale); nearest-exact floor((dst + 0.5) * scale); linear modes take
 * (dst + 0.5) * scale - 0.5 clamped at 0, or dst * (in - 1) / (out - 1) with alignCorners; bicubic
 * the same without the clamp, with four neighbours clamped into the input and a = -0.75; area is
 * adaptive average pooling to the output size (torch computes it so).
 */
export function interpolate<B extends Backend>(x: F<B>, options: InterpolateOptions): F<B> {
  const op = 'interpolate';
  checkTensors(op, { input: x });
  const o = checkOptions(op, options);
  checkKeys(op, o, ['size', 'scaleFactor', 'mode', 'alignCorners', 'recomputeScaleFactor']);
  // Only a missing mode defaults: an untyped null is refused like any other non-mode.
  const given = field(o, 'mode');
  const mode = checkChoice(op, 'mode', given === undefined ? 'nearest' : given, MODES);
  const align = field(o, 'alignCorners');
  if (align !== undefined) {
    checkBoolean(op, 'alignCorners', align);
    if (!INTERPOLATING.includes(mode)) throw new ArgumentError(`alignCorners can only be set with the interpolating modes 'linear', 'bilinear', 'bicubic' and 'trilinear', not '${mode}'`, { op, hint: `leave it out for mode '${mode}'` });
  }
  checkFloat(op, x);
  const ranks = RANKS[mode];
  if (!ranks.includes(x.rank)) {
    const named: Record<number, string> = { 3: '[N, C, L]', 4: '[N, C, H, W]', 5: '[N, C, D, H, W]' };
    const wanted = ranks.map((r) => named[r]).join(' or ');
    const fits = MODES.filter((m) => INTERPOLATING.includes(m) && RANKS[m].includes(x.rank));
    const hint = fits.length > 0 && ranks.length === 1 ? `use mode '${fits[0]}' for a rank-${x.rank} input` : x.rank < 3 ? 'add the batch and channel dims with unsqueeze' : 'inputs are [N, C, ...spatial] with 1 to 3 spatial dims: fold extra leading dims into N with reshape';
    throw new ShapeError(`mode '${mode}' needs the input ${wanted}, got rank ${x.rank}`, { op, shapes: [x.shape], hint });
  }
  x.live(op);
  const { sizes, scales } = plan(op, x, o, mode);
  // torch's area mode is adaptive average pooling: the pools' one gather per window, where they exist.
  if (mode === 'area' && x.rank === 3) return adaptiveAvgPool1d(x, sizes[0]!);
  if (mode === 'area' && x.rank === 4) return adaptiveAvgPool2d(x, [sizes[0]!, sizes[1]!]);
  return tidy(() => {
    let y = x;
    // Last dim first: torch's kernels sum the innermost (last) dim's neighbours first, then weight
    // those sums along the dims before it, so this rounds as they do.
    for (let k = sizes.length - 1; k >= 0; k--) y = along(y, 2 + k, mode, x.shape[2 + k]!, sizes[k]!, align === true, scales[k]);
    return y;
  }, x.backend.runtime);
}
