/**
 * Parameter initialisers, as in PyTorch's torch.nn.init. Shapes follow PyTorch's convention for
 * fans ([out, in, ...kernel]: fanIn = in * kernel, fanOut = out * kernel); a weight stored
 * [in, out] (Linear's layout here) passes `{ fanIn, fanOut }` instead. Values come from the
 * device's seeded random stream, so `backend.seed(n)` makes every initialiser reproducible.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { FloatDType } from '../ir/dtype.js';
import { ArgumentError, DTypeError } from '../errors.js';
import { randomNormal, randomUnit } from '../ir/random.js';
import { Distribution, fromData, random } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';

export interface InitOptions {
  device?: Device;
  /** Default float32; float16 values are the float32 ones rounded once. */
  dtype?: FloatDType;
}

export interface FanOptions extends InitOptions {
  /** Override the fans computed from the shape. */
  fanIn?: number;
  fanOut?: number;
}

export type Nonlinearity = 'linear' | 'conv1d' | 'conv2d' | 'convTranspose2d' | 'sigmoid' | 'tanh' | 'relu' | 'leakyRelu' | 'selu';

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

/** torch.nn.init.calculate_gain: the recommended gain for a nonlinearity (`param`: leakyRelu's slope, default 0.01). */
export function calculateGain(nonlinearity: Nonlinearity, param?: number): number {
  switch (nonlinearity) {
    case 'linear':
    case 'conv1d':
    case 'conv2d':
    case 'convTranspose2d':
    case 'sigmoid':
      return 1;
    case 'tanh':
      return 5 / 3;
    case 'relu':
      return Math.SQRT2;
    case 'leakyRelu': {
      const slope = param ?? 0.01;
      return Math.sqrt(2 / (1 + slope * slope));
    }
    case 'selu':
      return 3 / 4;
    default:
      throw new ArgumentError(`unknown nonlinearity '${String(nonlinearity)}'`, { op: 'calculateGain' });
  }
}

/** torch.nn.init._calculate_fan_in_and_fan_out, for [out, in, ...kernel] shapes. */
export function fans(shape: readonly number[], options: FanOptions = {}): { fanIn: number; fanOut: number } {
  if (options.fanIn !== undefined && options.fanOut !== undefined) return { fanIn: options.fanIn, fanOut: options.fanOut };
  if (shape.length < 2) {
    throw new ArgumentError(`fans need a shape of rank >= 2, got [${shape.join(', ')}]`, { op: 'init', hint: 'pass { fanIn, fanOut } for other shapes' });
  }
  const receptive = shape.slice(2).reduce((a, b) => a * b, 1);
  return { fanIn: options.fanIn ?? shape[1]! * receptive, fanOut: options.fanOut ?? shape[0]! * receptive };
}

export function uniform<B extends Backend>(backend: B, shape: readonly number[], low: number, high: number, options: InitOptions = {}): Tensor<B, 'float'> {
  return random(backend, shape, Distribution.Uniform(low, high), options);
}

export function normal<B extends Backend>(backend: B, shape: readonly number[], mean: number, std: number, options: InitOptions = {}): Tensor<B, 'float'> {
  return random(backend, shape, Distribution.Normal(mean, std), options);
}

/**
 * kaiming_uniform_: U(-b, b) with b = gain * sqrt(3 / fanIn), gain = sqrt(2 / (1 + a^2)).
 * PyTorch's Linear and Conv layers use a = sqrt(5), which makes b = 1 / sqrt(fanIn).
 */
export function kaimingUniform<B extends Backend>(backend: B, shape: readonly number[], fanIn: number, options: InitOptions & { a?: number } = {}): Tensor<B, 'float'> {
  const a = options.a ?? Math.sqrt(5);
  const bound = Math.sqrt(2 / (1 + a * a)) * Math.sqrt(3 / fanIn);
  return uniform(backend, shape, -bound, bound, options);
}

export interface KaimingOptions extends FanOptions {
  /** The negative slope of the rectifier after this layer (leakyRelu), default 0. */
  a?: number;
  /** 'fanIn' (default) keeps the forward pass's variance, 'fanOut' the backward pass's. */
  mode?: 'fanIn' | 'fanOut';
  /** Default 'leakyRelu' (with `a`), as PyTorch. */
  nonlinearity?: Nonlinearity;
}

/** kaiming_normal_: N(0, std^2) with std = gain / sqrt(fan). */
export function kaimingNormal<B extends Backend>(backend: B, shape: readonly number[], options: KaimingOptions = {}): Tensor<B, 'float'> {
  const f = fans(shape, options);
  const fan = (options.mode ?? 'fanIn') === 'fanIn' ? f.fanIn : f.fanOut;
  const std = calculateGain(options.nonlinearity ?? 'leakyRelu', options.a ?? 0) / Math.sqrt(fan);
  return normal(backend, shape, 0, std, options);
}

/** xavier_uniform_ (Glorot): U(-b, b) with b = gain * sqrt(6 / (fanIn + fanOut)). */
export function xavierUniform<B extends Backend>(backend: B, shape: readonly number[], options: FanOptions & { gain?: number } = {}): Tensor<B, 'float'> {
  const { fanIn, fanOut } = fans(shape, options);
  const bound = (options.gain ?? 1) * Math.sqrt(6 / (fanIn + fanOut));
  return uniform(backend, shape, -bound, bound, options);
}

/** xavier_normal_ (Glorot): N(0, std^2) with std = gain * sqrt(2 / (fanIn + fanOut)). */
export function xavierNormal<B extends Backend>(backend: B, shape: readonly number[], options: FanOptions & { gain?: number } = {}): Tensor<B, 'float'> {
  const { fanIn, fanOut } = fans(shape, options);
  return normal(backend, shape, 0, (options.gain ?? 1) * Math.sqrt(2 / (fanIn + fanOut)), options);
}

export const glorotUniform = xavierUniform;
export const glorotNormal = xavierNormal;

/** Standard normals from the device's stream (the positions a normal `random` op would use), on the host in float64. */
function hostNormals<B extends Backend>(backend: B, device: Device, n: number): Float64Array {
  const { seed, counter } = backend.randomStream(device as DeviceOf<B>, 2 * n);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = randomNormal(seed, counter + 2 * i);
  return out;
}

/** The standard normal CDF, from erfc (Numerical Recipes' erfcc, relative error < 1.2e-7). */
function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/**
 * trunc_normal_: N(mean, std^2) restricted to [a, b] (default [-2, 2], absolute values as in
 * PyTorch), drawn by the inverse CDF as PyTorch does.
 */
export function truncatedNormal<B extends Backend>(backend: B, shape: readonly number[], options: InitOptions & { mean?: number; std?: number; a?: number; b?: number } = {}): Tensor<B, 'float'> {
  const mean = options.mean ?? 0;
  const std = options.std ?? 1;
  const a = options.a ?? -2;
  const b = options.b ?? 2;
  if (!(a < b) || !(std > 0)) throw new ArgumentError(`truncatedNormal needs a < b and std > 0, got a ${a}, b ${b}, std ${std}`, { op: 'truncatedNormal' });
  const dtype = floatDType('truncatedNormal', options.dtype);
  const device = options.device ?? backend.defaultDevice();
  const n = shape.reduce((x, y) => x * y, 1);
  const lo = normalCdf((a - mean) / std);
  const hi = normalCdf((b - mean) / std);
  const { seed, counter } = backend.randomStream(device as DeviceOf<B>, n);
  const out = new Float32Array(n);
  const unit = hostUniform(seed, counter);
  for (let i = 0; i < n; i++) {
    const v = mean + std * normalQuantile(lo + (hi - lo) * unit(i));
    out[i] = Math.min(b, Math.max(a, v));
  }
  return fromData(backend, out, { shape, device, dtype });
}

/** An initialiser's dtype: float32 (default) or float16; anything else from an untyped caller is a DTypeError. */
function floatDType(op: string, dtype: unknown): FloatDType {
  if (dtype === undefined) return 'float32';
  if (dtype === 'float32' || dtype === 'float16') return dtype;
  throw new DTypeError(`${op} makes float tensors, not ${String(dtype)}`, { op, dtypes: [String(dtype)], hint: "pass dtype 'float32' or 'float16', or cast the result" });
}

/** The stream's uniforms moved to the middle of their 2^-24 cells: in (0, 1), so the quantile stays finite. */
function hostUniform(seed: number, counter: number): (i: number) => number {
  return (i) => randomUnit(seed, counter + i) + 2 ** -25;
}

/**
 * orthogonal_: a (semi-)orthogonal matrix (rows or columns orthonormal, whichever are fewer),
 * scaled by `gain`: Q of the QR decomposition of a normal matrix with the signs of R's diagonal
 * folded in (so Q is uniformly distributed), as PyTorch. Dims after the first are flattened.
 */
export function orthogonal<B extends Backend>(backend: B, shape: readonly number[], options: InitOptions & { gain?: number } = {}): Tensor<B, 'float'> {
  if (shape.length < 2) throw new ArgumentError(`orthogonal needs a shape of rank >= 2, got [${shape.join(', ')}]`, { op: 'orthogonal' });
  const dtype = floatDType('orthogonal', options.dtype);
  const device = options.device ?? backend.defaultDevice();
  const rows = shape[0]!;
  const cols = shape.slice(1).reduce((a, b) => a * b, 1);
  const flat = hostNormals(backend, device, rows * cols);
  // Work on the tall orientation [m, k] with m >= k, then transpose back if needed.
  const tall = rows >= cols;
  const m = tall ? rows : cols;
  const k = tall ? cols : rows;
  const A = new Float64Array(m * k);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) A[tall ? i * k + j : j * k + i] = flat[i * cols + j]!;
  const q = householderQ(A, m, k);
  const gain = options.gain ?? 1;
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[i * cols + j] = gain * q[tall ? i * k + j : j * k + i]!;
  return fromData(backend, out, { shape, device, dtype });
}

/** The thin Q [m, k] of A [m, k] (m >= k) by Householder reflections, with diag(R) made positive. */
function householderQ(A: Float64Array, m: number, k: number): Float64Array {
  const R = Float64Array.from(A);
  const vs: Float64Array[] = [];
  const signs = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    let norm = 0;
    for (let i = j; i < m; i++) norm += R[i * k + j]! ** 2;
    norm = Math.sqrt(norm);
    const x0 = R[j * k + j]!;
    const alpha = x0 >= 0 ? -norm : norm;
    const v = new Float64Array(m);
    for (let i = j; i < m; i++) v[i] = R[i * k + j]!;
    v[j] = x0 - alpha;
    let vn = 0;
    for (let i = j; i < m; i++) vn += v[i]! ** 2;
    vs.push(v);
    // R's diagonal entry is alpha; its sign goes into the column of Q.
    signs[j] = alpha >= 0 ? 1 : -1;
    if (vn === 0) continue;
    for (let c = j; c < k; c++) {
      let dot = 0;
      for (let i = j; i < m; i++) dot += v[i]! * R[i * k + c]!;
      const f = (2 * dot) / vn;
      for (let i = j; i < m; i++) R[i * k + c] = R[i * k + c]! - f * v[i]!;
    }
  }
  // Q = H_0 H_1 ... H_{k-1} applied to the first k columns of the identity.
  const Q = new Float64Array(m * k);
  for (let j = 0; j < k; j++) Q[j * k + j] = 1;
  for (let h = k - 1; h >= 0; h--) {
    const v = vs[h]!;
    let vn = 0;
    for (let i = h; i < m; i++) vn += v[i]! ** 2;
    if (vn === 0) continue;
    for (let c = 0; c < k; c++) {
      let dot = 0;
      for (let i = h; i < m; i++) dot += v[i]! * Q[i * k + c]!;
      const f = (2 * dot) / vn;
      for (let i = h; i < m; i++) Q[i * k + c] = Q[i * k + c]! - f * v[i]!;
    }
  }
  for (let i = 0; i < m; i++) for (let j = 0; j < k; j++) Q[i * k + j] = Q[i * k + j]! * signs[j]!;
  return Q;
}
