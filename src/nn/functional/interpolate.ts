/**
 * torch.nn.functional.interpolate for 3-D [N, C, L] and 4-D [N, C, H, W] inputs: 'nearest',
 * 'linear' (3-D) and 'bilinear' (4-D). Each spatial dim is resampled on its own (the modes are
 * separable): source indices and weights are tables computed here with torch's CPU coordinate
 * rules, in float32 as torch computes them, then applied with indexSelect and elementwise
 * weights, so gradients flow (indexSelect's backward adds into the sources).
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { checkBoolean, checkChoice, checkKeys, checkOptions, field, show } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { fromData } from '../../tensor/creation.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';
import { checkElements, checkFloat } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export type InterpolateMode = 'nearest' | 'linear' | 'bilinear';
const MODES: readonly InterpolateMode[] = ['nearest', 'linear', 'bilinear'];

export interface InterpolateOptions {
  /** The output's spatial size: one number for every spatial dim, or one per dim. */
  readonly size?: number | readonly number[];
  /** Or a multiplier per spatial dim: the output size is floor(input size * scaleFactor). */
  readonly scaleFactor?: number | readonly number[];
  /** Default 'nearest'. */
  readonly mode?: InterpolateMode;
  /** linear / bilinear only: map the corner pixels' centres onto each other (default false). */
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

/** torch's nearest_idx (CPU): a copy at equal sizes, a shift at exactly double, else min(floor(dst * scale), input - 1) in float32. */
export function nearestTable(input: number, output: number, scale: number | undefined): Int32Array {
  const s = scaleOf(scale, input, output);
  return Int32Array.from({ length: output }, (_, i) => {
    if (output === input) return i;
    if (output === 2 * input) return i >> 1;
    return Math.min(Math.floor(f32(i * s)), input - 1);
  });
}

/**
 * torch's linear source positions (area_pixel_compute_source_index and guard_index_and_lambda):
 * the two neighbours of each output position and their weights.
 */
export function linearTable(input: number, output: number, alignCorners: boolean, scale: number | undefined): { i0: Int32Array; i1: Int32Array; w0: Float32Array; w1: Float32Array } {
  const s = alignCorners ? (output > 1 ? f32((input - 1) / (output - 1)) : 0) : scaleOf(scale, input, output);
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
    // Half-pixel centres unless alignCorners; negative positions clamp to 0 (not for cubic, which is not here).
    const real = alignCorners ? f32(s * i) : Math.max(f32(f32(s * f32(i + 0.5)) - 0.5), 0);
    const at = Math.min(Math.floor(real), input - 1);
    const lambda = Math.min(Math.max(f32(real - at), 0), 1);
    i0[i] = at;
    i1[i] = at < input - 1 ? at + 1 : at;
    w0[i] = f32(1 - lambda);
    w1[i] = lambda;
  }
  return { i0, i1, w0, w1 };
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

/** Resamples dim `d` of `x` with the linear table (a weighted sum of two indexSelects). */
function linearAlong<B extends Backend>(x: F<B>, d: number, table: ReturnType<typeof linearTable>): F<B> {
  const dev = { device: x.device };
  const trailing = new Array<number>(x.rank - 1 - d).fill(1);
  const weight = (w: Float32Array) => fromData(x.backend, w, { ...dev, dtype: x.dtype, shape: [w.length, ...trailing] });
  const a = x.indexSelect(d, fromData(x.backend, table.i0, dev));
  const b = x.indexSelect(d, fromData(x.backend, table.i1, dev));
  return a.mul(weight(table.w0)).add(b.mul(weight(table.w1)));
}

/**
 * torch.nn.functional.interpolate(x, size | scale_factor, mode, align_corners,
 * recompute_scale_factor) for [N, C, L] ('nearest', 'linear') and [N, C, H, W] ('nearest',
 * 'bilinear'). Coordinates follow torch's CPU kernels: nearest takes floor(dst * scale); linear
 * takes (dst + 0.5) * scale - 0.5 clamped at 0, or dst * (in - 1) / (out - 1) with alignCorners;
 * `scale` is 1 / scaleFactor when scaleFactor is given (torch's default), else in / out.
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
    if (mode === 'nearest') throw new ArgumentError("alignCorners can only be set with the interpolating modes 'linear' and 'bilinear'", { op, hint: "leave it out for mode 'nearest'" });
  }
  checkFloat(op, x);
  const ranks: Record<InterpolateMode, readonly number[]> = { nearest: [3, 4], linear: [3], bilinear: [4] };
  if (!ranks[mode].includes(x.rank)) {
    const wanted = mode === 'linear' ? "[N, C, L] (mode 'linear')" : mode === 'bilinear' ? "[N, C, H, W] (mode 'bilinear')" : '[N, C, L] or [N, C, H, W]';
    throw new ShapeError(`the input must be ${wanted}, got rank ${x.rank}`, { op, shapes: [x.shape], hint: mode === 'nearest' ? 'add the batch and channel dims with unsqueeze' : `use mode '${x.rank === 4 ? 'bilinear' : 'linear'}' for a rank-${x.rank} input` });
  }
  x.live(op);
  const { sizes, scales } = plan(op, x, o, mode);
  return tidy(() => {
    let y = x;
    sizes.forEach((out, k) => {
      const d = 2 + k;
      const input = x.shape[d]!;
      if (mode === 'nearest') y = y.indexSelect(d, fromData(x.backend, nearestTable(input, out, scales[k]), { device: x.device }));
      else y = linearAlong(y, d, linearTable(input, out, align === true, scales[k]));
    });
    return y;
  }, x.backend.runtime);
}
