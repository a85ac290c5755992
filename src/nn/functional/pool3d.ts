/**
 * 3-D pooling (torch.nn.functional.max_pool3d / avg_pool3d / adaptive_avg_pool3d /
 * adaptive_max_pool3d), built as the 2-D ones (pool.ts, adaptive-pool.ts): each window gathered by
 * one `indexSelect` (windows3d.ts) and reduced, or, when the windows tile the volume, reshaped into
 * place without a gather.
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { checkInteger } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { fromData } from '../../tensor/creation.js';
import { inFloat32 } from '../../tensor/precision.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkElements, checkFloat, checkRank, outLength } from './args.js';
import { triple, type Triple } from './args3d.js';
import { checkArgs } from './pool.js';
import { unfold } from './windows.js';
import { adaptiveKernel3d, adaptiveSizes3d, adaptiveWindowTable3d, poolWindowTable3d, windowTable3d, type WindowSpec3d } from './windows3d.js';

type F<B extends Backend> = Tensor<B, 'float'>;
type Dims = [number, number, number];

export interface MaxPool3dOptions {
  /** Default: the kernel size. */
  stride?: Triple;
  /** Implicit -Infinity padding per side (at most half the kernel). Default 0. */
  padding?: Triple;
  dilation?: Triple;
  /** Round the output size up (windows may then hang over the end). Default false. */
  ceilMode?: boolean;
}

export interface AvgPool3dOptions {
  stride?: Triple;
  /** Implicit zero padding per side (at most half the kernel). Default 0. */
  padding?: Triple;
  ceilMode?: boolean;
  /** Count the padding in the divisor (PyTorch's default, true). */
  countIncludePad?: boolean;
  /** Divide every window by this instead. */
  divisorOverride?: number;
}

/** Output size 3-D: n, or [d, h, w] where null keeps that input dim. */
export type AdaptiveSize3d = number | readonly [number | null, number | null, number | null];

const LAYOUT = '[N, C, D, H, W] or [C, D, H, W]';

function geometry<B extends Backend>(op: string, x: F<B>, kernelSize: Triple, stride: Triple | undefined, padding: Triple, dilation: Triple, ceilMode: boolean): WindowSpec3d {
  checkFloat(op, x);
  checkRank(op, 'the input', x, [4, 5], LAYOUT);
  const kernel = triple(op, 'kernelSize', kernelSize, 1);
  const s = triple(op, 'stride', stride ?? kernel, 1);
  const d = triple(op, 'dilation', dilation, 1);
  const p = triple(op, 'padding', padding, 0);
  if (p.some((v, i) => v > Math.floor(kernel[i]! / 2))) {
    throw new ArgumentError(`padding [${p.join(', ')}] must be at most half the kernel [${kernel.join(', ')}]`, { op, hint: 'pad the input explicitly for more' });
  }
  const input = x.shape.slice(-3) as Dims;
  const output = input.map((size, i) => outLength(size, p[i]!, p[i]!, kernel[i]!, s[i]!, d[i]!, ceilMode)) as Dims;
  if (output.some((v) => v < 1)) {
    throw new ShapeError(`the window ${kernel.join('x')} (dilation ${d.join('x')}) is larger than the padded input ${input.map((v, i) => v + 2 * p[i]!).join('x')}`, {
      op,
      shapes: [x.shape],
      hint: 'use a smaller kernel, or pad the input',
    });
  }
  const k = kernel[0] * kernel[1] * kernel[2];
  const planes = x.shape.slice(0, -3).reduce((a, v) => a * v, 1);
  checkElements(op, 'the window table', [k, ...output], [x.shape]);
  checkElements(op, 'the gathered windows', [planes, k, ...output], [x.shape]);
  return { input, kernel, stride: s, dilation: d, pads: [p[0], p[0], p[1], p[1], p[2], p[2]], output };
}

/** The input as [planes, 1, 1, D H W] for `unfold` (the table holds flat positions in the volume). */
function volumes<B extends Backend>(x: F<B>): F<B> {
  const [d, h, w] = x.shape.slice(-3) as Dims;
  return x.reshape([x.shape.slice(0, -3).reduce((a, v) => a * v, 1), 1, 1, d * h * w]);
}

/** Whether the windows tile the input (stride = kernel, no padding or dilation): then no gather is needed. */
function tiles(s: WindowSpec3d): boolean {
  return s.kernel.every((k, i) => s.stride[i] === k && s.dilation[i] === 1 && s.output[i]! * k <= s.input[i]!) && s.pads.every((p) => p === 0);
}

/** [..., D, H, W] -> [planes, D', H', W', kd kh kw] for tiling windows, by reshapes and one permuted copy. */
function tiled<B extends Backend>(x: F<B>, s: WindowSpec3d): F<B> {
  const [od, oh, ow] = s.output;
  const [kd, kh, kw] = s.kernel;
  const planes = x.shape.slice(0, -3).reduce((a, v) => a * v, 1);
  const whole = s.output.every((o, i) => o * s.kernel[i]! === s.input[i]);
  const cropped = whole ? x : x.slice([...x.shape.slice(0, -3).map(() => null), [0, od * kd], [0, oh * kh], [0, ow * kw]]);
  return cropped.reshape([planes, od, kd, oh, kh, ow, kw]).permute([0, 1, 3, 5, 2, 4, 6]).reshape([planes, od, oh, ow, kd * kh * kw]);
}

/**
 * torch.nn.functional.max_pool3d. NaN propagates. A window's gradient goes to its first maximum
 * in (d, h, w) row-major order among its in-bounds elements, never to the padding, as torch's.
 */
export function maxPool3d<B extends Backend>(x: F<B>, kernelSize: Triple, options: MaxPool3dOptions = {}): F<B> {
  const op = 'maxPool3d';
  checkArgs(op, x, options);
  const spec = geometry(op, x, kernelSize, options.stride, options.padding ?? 0, options.dilation ?? 1, options.ceilMode ?? false);
  const k = spec.kernel[0] * spec.kernel[1] * spec.kernel[2];
  return tidy(() => {
    // [planes, D', H', W', k] when the windows tile the input, else [planes, 1, k, P].
    const windows = tiles(spec) ? tiled(x, spec) : unfold(volumes(x), poolWindowTable3d(spec), k, -Infinity);
    const axis = windows.rank === 5 ? 4 : 2;
    // Without a gradient to route, the plain maximum (the same values, one op).
    const pooled = x.requiresGrad ? windows.maxWithIndices(axis).values : windows.max(axis);
    return pooled.reshape([...x.shape.slice(0, -3), ...spec.output]);
  });
}

/** PyTorch's divisor per window: the window clipped to the padded input, or to the input without `countIncludePad`. */
function divisors(s: WindowSpec3d, countIncludePad: boolean): Float32Array {
  // Per dim, each output index's [padded length, in-input length].
  const lengths = [0, 1, 2].map((i) =>
    Array.from({ length: s.output[i]! }, (_, o) => {
      const pad = s.pads[2 * i]!;
      const size = s.input[i]!;
      const start = o * s.stride[i]! - pad;
      const end = Math.min(start + s.kernel[i]!, size + pad);
      return [end - start, Math.min(end, size) - Math.max(start, 0)] as const;
    }),
  );
  const out = new Float32Array(s.output[0] * s.output[1] * s.output[2]);
  const which = countIncludePad ? 0 : 1;
  let p = 0;
  for (const a of lengths[0]!) for (const b of lengths[1]!) for (const c of lengths[2]!) out[p++] = a[which] * b[which] * c[which];
  return out;
}

/** torch.nn.functional.avg_pool3d. */
export function avgPool3d<B extends Backend>(x: F<B>, kernelSize: Triple, options: AvgPool3dOptions = {}): F<B> {
  const op = 'avgPool3d';
  checkArgs(op, x, options);
  const spec = geometry(op, x, kernelSize, options.stride, options.padding ?? 0, 1, options.ceilMode ?? false);
  const k = spec.kernel[0] * spec.kernel[1] * spec.kernel[2];
  // torch's divisor_override is an int > 0.
  const override = options.divisorOverride === undefined ? undefined : checkInteger(op, 'divisorOverride', options.divisorOverride, 1);
  const div = override === undefined ? divisors(spec, options.countIncludePad ?? true) : undefined;
  const uniform = override ?? (div!.every((v) => v === div![0]) ? div![0]! : undefined);
  const shape = [...x.shape.slice(0, -3), ...spec.output];
  return tidy(() => {
    if (tiles(spec) && override === undefined) return tiled(x, spec).mean(4).reshape(shape);
    const sums = unfold(volumes(x), windowTable3d(spec), k, 0).sum(2).reshape(shape);
    if (uniform !== undefined) return sums.div(uniform);
    // The divisors (window sizes, exact in float16 up to 2048) in the input's dtype.
    return sums.div(fromData(x.backend, div!, { shape: spec.output, device: x.device, dtype: x.dtype }));
  });
}

/** The checked input and its output size [od, oh, ow]. */
function adaptiveSize<B extends Backend>(op: string, t: F<B>, outputSize: unknown): Dims {
  checkArgs(op, t, undefined);
  checkFloat(op, t);
  checkRank(op, 'the input', t, [4, 5], LAYOUT);
  const input = t.shape.slice(-3);
  let out: number[];
  if (!Array.isArray(outputSize)) out = input.map(() => checkInteger(op, 'outputSize', outputSize, 1));
  else if (outputSize.length !== 3) throw new ArgumentError(`outputSize must be a number or a list of 3, got ${JSON.stringify(outputSize)}`, { op });
  else out = outputSize.map((d: unknown, i) => (d === null ? input[i]! : checkInteger(op, 'outputSize', d, 1)));
  if (input.some((d) => d === 0)) throw new ShapeError(`the input has an empty spatial dim (${input.join('x')})`, { op, shapes: [t.shape] });
  checkElements(op, 'the output', [...t.shape.slice(0, -3), ...out], [t.shape]);
  return out as Dims;
}

/**
 * torch.nn.functional.adaptive_avg_pool3d: x [N, C, D, H, W] or [C, D, H, W] to `outputSize` (null
 * keeps that dim), output cell i covering [floor(i size / out), ceil((i + 1) size / out)) per dim.
 * Each window is summed and divided by its size (float16 in float32, as torch accumulates), so an
 * inf or NaN reaches only the cells whose windows hold it.
 */
export function adaptiveAvgPool3d<B extends Backend>(x: F<B>, outputSize: AdaptiveSize3d): F<B> {
  const op = 'adaptiveAvgPool3d';
  const output = adaptiveSize(op, x, outputSize);
  const input = x.shape.slice(-3) as Dims;
  const k = adaptiveKernel3d(input, output);
  checkElements(op, 'the gathered windows', [...x.shape.slice(0, -3), k, ...output], [x.shape]);
  return inFloat32(x, (x32) =>
    tidy(() => {
      // Slots past a window's end read 0: they add nothing to its sum.
      const sums = unfold(volumes(x32), adaptiveWindowTable3d(input, output), k, 0).sum(2);
      const sizes = fromData(x32.backend, adaptiveSizes3d(input, output), { shape: [output[0] * output[1] * output[2]], device: x32.device, dtype: x32.dtype });
      return sums.div(sizes).reshape([...x.shape.slice(0, -3), ...output]);
    }),
  );
}

/**
 * torch.nn.functional.adaptive_max_pool3d (the values): x [N, C, D, H, W] or [C, D, H, W] to
 * `outputSize` (null keeps that dim). A window's gradient goes to its first maximum in row-major
 * order (a NaN counts as the maximum), as max pooling's.
 */
export function adaptiveMaxPool3d<B extends Backend>(x: F<B>, outputSize: AdaptiveSize3d): F<B> {
  const op = 'adaptiveMaxPool3d';
  const output = adaptiveSize(op, x, outputSize);
  const input = x.shape.slice(-3) as Dims;
  const k = adaptiveKernel3d(input, output);
  checkElements(op, 'the gathered windows', [...x.shape.slice(0, -3), k, ...output], [x.shape]);
  return tidy(() => {
    const windows = unfold(volumes(x), adaptiveWindowTable3d(input, output), k, -Infinity);
    const pooled = x.requiresGrad ? windows.maxWithIndices(2).values : windows.max(2);
    return pooled.reshape([...x.shape.slice(0, -3), ...output]);
  });
}
