/**
 * Pooling (torch.nn.functional.max_pool2d / avg_pool2d and the 1-D forms): windows gathered by
 * one `indexSelect` (windows.ts) and reduced. Adaptive pooling is in adaptive-pool.ts.
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { tidy } from '../../memory/tidy.js';
import { fromData } from '../../tensor/creation.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkBoolean, checkInteger, checkOptions, field, show } from '../../ir/validate.js';
import { checkTensors } from '../check.js';
import { checkElements, checkFloat, checkRank, outLength, pair, single, type Pair } from './args.js';
import { poolWindowTable, unfold, windowTable, type WindowSpec } from './windows.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface MaxPool2dOptions {
  /** Default: the kernel size. */
  stride?: Pair;
  /** Implicit -Infinity padding per side (at most half the kernel). Default 0. */
  padding?: Pair;
  dilation?: Pair;
  /** Round the output size up (windows may then hang over the end). Default false. */
  ceilMode?: boolean;
}

export interface AvgPool2dOptions {
  stride?: Pair;
  /** Implicit zero padding per side (at most half the kernel). Default 0. */
  padding?: Pair;
  ceilMode?: boolean;
  /** Count the padding in the divisor (PyTorch's default, true). */
  countIncludePad?: boolean;
  /** Divide every window by this instead. */
  divisorOverride?: number;
}

export interface Pool1dOptions {
  stride?: number;
  padding?: number;
  ceilMode?: boolean;
}

interface Geometry {
  readonly spec: WindowSpec;
  readonly batched: boolean;
}

/** The input and options every pool takes, for untyped callers. */
export function checkArgs(op: string, x: unknown, options: unknown): void {
  checkTensors(op, { input: x });
  checkOptions(op, options);
}

function geometry<B extends Backend>(op: string, x: F<B>, kernelSize: Pair, stride: Pair | undefined, padding: Pair, dilation: Pair, ceilMode: boolean): Geometry {
  checkFloat(op, x);
  checkRank(op, 'the input', x, [3, 4], '[N, C, H, W] or [C, H, W]');
  const kernel = pair(op, 'kernelSize', kernelSize, 1);
  const s = pair(op, 'stride', stride ?? kernel, 1);
  const d = pair(op, 'dilation', dilation, 1);
  const [ph, pw] = pair(op, 'padding', padding, 0);
  if (ph > Math.floor(kernel[0] / 2) || pw > Math.floor(kernel[1] / 2)) {
    throw new ArgumentError(`padding [${ph}, ${pw}] must be at most half the kernel [${kernel.join(', ')}]`, { op, hint: 'pad the input explicitly for more' });
  }
  const [h, w] = x.shape.slice(-2) as [number, number];
  const outH = outLength(h, ph, ph, kernel[0], s[0], d[0], ceilMode);
  const outW = outLength(w, pw, pw, kernel[1], s[1], d[1], ceilMode);
  if (outH < 1 || outW < 1) {
    throw new ShapeError(`the window ${kernel.join('x')} (dilation ${d.join('x')}) is larger than the padded input ${h + 2 * ph}x${w + 2 * pw}`, { op, shapes: [x.shape], hint: 'use a smaller kernel, or pad the input' });
  }
  const planes = x.shape.slice(0, -2).reduce((a, v) => a * v, 1);
  checkElements(op, 'the window table', [kernel[0] * kernel[1], outH, outW], [x.shape]);
  checkElements(op, 'the gathered windows', [planes, kernel[0] * kernel[1], outH, outW], [x.shape]);
  return { spec: { inH: h, inW: w, kernel, stride: s, dilation: d, pads: [ph, ph, pw, pw], outH, outW }, batched: x.rank === 4 };
}

/** Runs `f` on the input as [N, C, H, W] and gives the result the input's batching back. */
function batchedRun<B extends Backend>(x: F<B>, batched: boolean, f: (x4: F<B>) => F<B>): F<B> {
  if (batched) return f(x);
  return tidy(() => f(x.unsqueeze(0)).squeeze(0));
}

/**
 * torch.nn.functional.max_pool2d. NaN propagates. A window's gradient goes to its first maximum
 * in row-major order among its in-bounds elements (the one PyTorch, TensorFlow and Burn route it
 * to; a window of equal values, as after a ReLU or on a constant image, is common), never to the
 * padding (so a window of -Infinity values credits its first in-bounds element, as torch).
 */
export function maxPool2d<B extends Backend>(x: F<B>, kernelSize: Pair, options: MaxPool2dOptions & { returnIndices: true }): PoolWithIndices<B>;
export function maxPool2d<B extends Backend>(x: F<B>, kernelSize: Pair, options?: MaxPool2dOptions & { returnIndices?: false }): F<B>;
/**
 * With `returnIndices: true` (torch's return_indices), also each maximum's flat index in its
 * input plane (row * W + column), as int32 (torch: int64): what maxUnpool2d takes.
 */
export function maxPool2d<B extends Backend>(x: F<B>, kernelSize: Pair, options: MaxPool2dOptions & { returnIndices?: boolean } = {}): F<B> | PoolWithIndices<B> {
  checkArgs('maxPool2d', x, options);
  const { returnIndices, ...rest } = options;
  if (returnIndices !== undefined) checkBoolean('maxPool2d', 'returnIndices', returnIndices);
  return returnIndices === true ? maxPoolIndices('maxPool2d', x, kernelSize, rest) : maxPool('maxPool2d', x, kernelSize, rest);
}

/** A max pool's values and the flat per-plane input index of each (torch's return_indices). */
export interface PoolWithIndices<B extends Backend> {
  readonly values: F<B>;
  readonly indices: Tensor<B, 'int'>;
}

/**
 * The max pool with indices: the first maximum of each window (the pool table puts padding last,
 * so it is an input element) and, through the window table, its flat position in the plane.
 */
function maxPoolIndices<B extends Backend>(op: string, x: F<B>, kernelSize: Pair, options: MaxPool2dOptions): PoolWithIndices<B> {
  const { spec, batched } = geometry(op, x, kernelSize, options.stride, options.padding ?? 0, options.dilation ?? 1, options.ceilMode ?? false);
  const k = spec.kernel[0] * spec.kernel[1];
  const table = poolWindowTable(spec);
  return tidy(() => {
    const x4 = batched ? x : x.unsqueeze(0);
    const [n, c] = x4.shape as [number, number];
    const p = spec.outH * spec.outW;
    const { values, indices } = unfold(x4, table, k, -Infinity).maxWithIndices(2, true);
    const positions = fromData(x.backend, table.index, { shape: [1, 1, k, p], device: x.device }).expand([n, c, k, p]);
    const shape = batched ? [n, c, spec.outH, spec.outW] : [c, spec.outH, spec.outW];
    return { values: values.reshape(shape), indices: positions.gather(2, indices).reshape(shape) };
  });
}

function maxPool<B extends Backend>(op: string, x: F<B>, kernelSize: Pair, options: MaxPool2dOptions): F<B> {
  const { spec, batched } = geometry(op, x, kernelSize, options.stride, options.padding ?? 0, options.dilation ?? 1, options.ceilMode ?? false);
  const k = spec.kernel[0] * spec.kernel[1];
  return batchedRun(x, batched, (x4) =>
    tidy(() => {
      const [n, c] = x4.shape as [number, number];
      // [n, c, outH, outW, k] when the windows tile the input, else [n, c, k, outH * outW].
      const windows = tiles(spec) ? tiled(x4, spec) : unfold(x4, poolWindowTable(spec), k, -Infinity);
      const axis = windows.rank === 5 ? 4 : 2;
      // Without a gradient to route, the plain maximum (the same values, one op).
      const pooled = x4.requiresGrad ? windows.maxWithIndices(axis).values : windows.max(axis);
      return pooled.reshape([n, c, spec.outH, spec.outW]);
    }),
  );
}

/** Whether the windows tile the input (stride = kernel, no padding or dilation): then no gather is needed. */
function tiles(spec: WindowSpec): boolean {
  const { kernel, stride, dilation, pads } = spec;
  return (
    stride[0] === kernel[0] && stride[1] === kernel[1] && dilation[0] === 1 && dilation[1] === 1 && pads.every((p) => p === 0) &&
    spec.outH * kernel[0] <= spec.inH && spec.outW * kernel[1] <= spec.inW
  );
}

/** [N, C, H, W] -> [N, C, H', W', kh * kw] for tiling windows, by reshapes and one permuted copy. */
function tiled<B extends Backend>(x: F<B>, spec: WindowSpec): F<B> {
  const [n, c] = x.shape as [number, number];
  const [kh, kw] = spec.kernel;
  const { outH, outW } = spec;
  const cropped = outH * kh === spec.inH && outW * kw === spec.inW ? x : x.slice([null, null, [0, outH * kh], [0, outW * kw]]);
  return cropped.reshape([n, c, outH, kh, outW, kw]).permute([0, 1, 2, 4, 3, 5]).reshape([n, c, outH, outW, kh * kw]);
}

/** PyTorch's divisor per window: the window clipped to the padded input, or to the input without `countIncludePad`. */
function divisors(spec: WindowSpec, countIncludePad: boolean): Float32Array {
  const out = new Float32Array(spec.outH * spec.outW);
  const [kh, kw] = spec.kernel;
  const [ph, , pw] = spec.pads;
  for (let oy = 0; oy < spec.outH; oy++) {
    for (let ox = 0; ox < spec.outW; ox++) {
      let h0 = oy * spec.stride[0] - ph;
      let w0 = ox * spec.stride[1] - pw;
      let h1 = Math.min(h0 + kh, spec.inH + ph);
      let w1 = Math.min(w0 + kw, spec.inW + pw);
      const poolSize = (h1 - h0) * (w1 - w0);
      h0 = Math.max(h0, 0);
      w0 = Math.max(w0, 0);
      h1 = Math.min(h1, spec.inH);
      w1 = Math.min(w1, spec.inW);
      out[oy * spec.outW + ox] = countIncludePad ? poolSize : (h1 - h0) * (w1 - w0);
    }
  }
  return out;
}

/** torch.nn.functional.avg_pool2d. */
export function avgPool2d<B extends Backend>(x: F<B>, kernelSize: Pair, options: AvgPool2dOptions = {}): F<B> {
  checkArgs('avgPool2d', x, options);
  return avgPool('avgPool2d', x, kernelSize, options);
}

function avgPool<B extends Backend>(op: string, x: F<B>, kernelSize: Pair, options: AvgPool2dOptions): F<B> {
  const { spec, batched } = geometry(op, x, kernelSize, options.stride, options.padding ?? 0, 1, options.ceilMode ?? false);
  const k = spec.kernel[0] * spec.kernel[1];
  // torch's divisor_override is an int > 0.
  const override = options.divisorOverride === undefined ? undefined : checkInteger(op, 'divisorOverride', options.divisorOverride, 1);
  const div = override === undefined ? divisors(spec, options.countIncludePad ?? true) : undefined;
  const uniform = override ?? (div!.every((v) => v === div![0]) ? div![0]! : undefined);
  return batchedRun(x, batched, (x4) =>
    tidy(() => {
      const [n, c] = x4.shape as [number, number];
      if (tiles(spec) && override === undefined) return tiled(x4, spec).mean(4);
      const sums = unfold(x4, windowTable(spec), k, 0).sum(2).reshape([n, c, spec.outH, spec.outW]);
      if (uniform !== undefined) return sums.div(uniform);
      // The divisors (window sizes, exact in float16) in the input's dtype.
      return sums.div(fromData(x4.backend, div!, { shape: [spec.outH, spec.outW], device: x4.device, dtype: x4.dtype }));
    }),
  );
}

export function maxPool1d<B extends Backend>(x: F<B>, kernelSize: number, options: Pool1dOptions & { dilation?: number; returnIndices: true }): PoolWithIndices<B>;
export function maxPool1d<B extends Backend>(x: F<B>, kernelSize: number, options?: Pool1dOptions & { dilation?: number; returnIndices?: false }): F<B>;
/** torch.nn.functional.max_pool1d: x [N, C, L] or [C, L]; `returnIndices` also gives each maximum's position in its row. */
export function maxPool1d<B extends Backend>(x: F<B>, kernelSize: number, options: Pool1dOptions & { dilation?: number; returnIndices?: boolean } = {}): F<B> | PoolWithIndices<B> {
  const op = 'maxPool1d';
  checkArgs(op, x, options);
  checkRank(op, 'the input', x, [2, 3], '[N, C, L] or [C, L]');
  if (options.returnIndices !== undefined) checkBoolean(op, 'returnIndices', options.returnIndices);
  const k = single(op, 'kernelSize', kernelSize, 1);
  const o2d: MaxPool2dOptions = {
    stride: [1, single(op, 'stride', options.stride ?? k, 1)],
    padding: [0, single(op, 'padding', options.padding ?? 0, 0)],
    dilation: [1, single(op, 'dilation', options.dilation ?? 1, 1)],
    ceilMode: options.ceilMode ?? false,
  };
  return tidy(() => {
    // A plane of height 1: its flat index is the position in the row, as torch's 1-D index.
    if (options.returnIndices !== true) return maxPool(op, x.unsqueeze(-2), [1, k], o2d).squeeze(-2);
    const { values, indices } = maxPoolIndices(op, x.unsqueeze(-2), [1, k], o2d);
    return { values: values.squeeze(-2), indices: indices.squeeze(-2) };
  });
}

/** torch.nn.functional.avg_pool1d: x [N, C, L] or [C, L]. */
export function avgPool1d<B extends Backend>(x: F<B>, kernelSize: number, options: Pool1dOptions & { countIncludePad?: boolean; divisorOverride?: number } = {}): F<B> {
  const op = 'avgPool1d';
  checkArgs(op, x, options);
  checkRank(op, 'the input', x, [2, 3], '[N, C, L] or [C, L]');
  const k = single(op, 'kernelSize', kernelSize, 1);
  return tidy(() =>
    avgPool(op, x.unsqueeze(-2), [1, k], {
      stride: [1, single(op, 'stride', options.stride ?? k, 1)],
      padding: [0, single(op, 'padding', options.padding ?? 0, 0)],
      ceilMode: options.ceilMode ?? false,
      countIncludePad: options.countIncludePad ?? true,
      ...(options.divisorOverride === undefined ? {} : { divisorOverride: options.divisorOverride }),
    }).squeeze(-2),
  );
}

export { adaptiveAvgPool1d, adaptiveAvgPool2d, adaptiveMaxPool1d, adaptiveMaxPool2d } from './adaptive-pool.js';

export interface LpPool2dOptions {
  /** Default: the kernel size. */
  stride?: Pair;
  ceilMode?: boolean;
}

/**
 * torch.nn.functional.lp_pool2d: (sum of x^p over each window)^(1/p), computed as torch does:
 * sign(a) relu(|a|) kh kw, to the power 1/p, where a = avg_pool2d(x^p) without padding. With
 * `ceilMode` a window hanging over the end averages its in-bounds part and is still multiplied by
 * the full kernel size, as torch's (so such a window is scaled up).
 */
export function lpPool2d<B extends Backend>(x: F<B>, normType: number, kernelSize: Pair, options: LpPool2dOptions = {}): F<B> {
  const op = 'lpPool2d';
  checkArgs(op, x, options);
  checkNoPadding(op, options);
  const p = checkNorm(op, normType);
  const kernel = pair(op, 'kernelSize', kernelSize, 1);
  return tidy(() => lp(avgPool(op, x.pow(p), kernel, { ...(options.stride === undefined ? {} : { stride: options.stride }), ceilMode: options.ceilMode ?? false }), p, kernel[0] * kernel[1]));
}

/** torch.nn.functional.lp_pool1d: x [N, C, L] or [C, L]; lpPool2d's formula over windows of `kernelSize`. */
export function lpPool1d<B extends Backend>(x: F<B>, normType: number, kernelSize: number, options: Omit<Pool1dOptions, 'padding'> = {}): F<B> {
  const op = 'lpPool1d';
  checkArgs(op, x, options);
  checkNoPadding(op, options);
  checkRank(op, 'the input', x, [2, 3], '[N, C, L] or [C, L]');
  const p = checkNorm(op, normType);
  const k = single(op, 'kernelSize', kernelSize, 1);
  return tidy(() => {
    const pooled = avgPool(op, x.pow(p).unsqueeze(-2), [1, k], { stride: [1, single(op, 'stride', options.stride ?? k, 1)], ceilMode: options.ceilMode ?? false });
    return lp(pooled.squeeze(-2), p, k);
  });
}

/** torch's lp pools take no padding: one given is refused rather than ignored (undefined is none given). */
function checkNoPadding(op: string, options: object): void {
  if (field(options, 'padding') !== undefined) throw new ArgumentError('takes no padding (as torch.nn.functional.lp_pool); pad the input first', { op });
}

function checkNorm(op: string, p: unknown): number {
  if (typeof p !== 'number' || !Number.isFinite(p) || p === 0) throw new ArgumentError(`normType must be a finite non-zero number, got ${show(p)}`, { op });
  return p;
}

/** torch's tail: sign(a) relu(|a|) times the kernel's element count, to the power 1/p. */
function lp<B extends Backend>(avg: F<B>, p: number, kernelNumel: number): F<B> {
  return avg.sign().mul(avg.abs().relu()).mul(kernelNumel).pow(1 / p);
}
