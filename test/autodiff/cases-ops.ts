/**
 * Gradient checks for the rounding, trigonometric, hyperbolic and activation ops and the binary
 * atan2, hypot, copysign, logaddexp, xlogy (with their scalar forms). Forwards in float64 from
 * Math; inputs are drawn away from kinks and poles.
 */
import type { OpName } from '../../src/ir/ops.js';
import { scaledDotProductAttention } from '../../src/tensor/attention.js';
import type { Case, F, FloatSpec } from './cases.js';
import * as R from './ref64.js';

const S = [2, 3];

function unary(name: string, op: OpName, call: (x: F) => F, f: (x: number) => number, spec: Partial<FloatSpec> = {}): Case {
  return { name, op, floats: [{ shape: S, lo: -2, hi: 2, ...spec }], run: ([x]) => call(x!), ref: ([x]) => R.map(x!, f) };
}

function binary(name: string, op: OpName, call: (x: F, y: F) => F, f: (a: number, b: number) => number, a: FloatSpec, b: FloatSpec): Case {
  return { name, op, floats: [a, b], run: ([x, y]) => call(x!, y!), ref: ([x, y]) => R.zip(x!, y!, f) };
}

const INTEGERS = [-3, -2, -1, 0, 1, 2, 3];
const HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5];
const softplus = (x: number, beta: number, threshold: number) => (x * beta > threshold ? x : Math.log1p(Math.exp(x * beta)) / beta);
const logaddexp = (a: number, b: number) => Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b)));
const copysign = (a: number, b: number) => (b < 0 ? -Math.abs(a) : Math.abs(a));

/** Reduces `a` over `dims` with `f` over each group's values (row-major), keeping reduced dims as 1 when `keep`. */
function reduceDims(a: R.Arr, dims: readonly number[], keep: boolean, f: (v: number[]) => number): R.Arr {
  const kept = a.shape.map((d, i) => (dims.includes(i) ? 1 : d));
  const groups = new Map<number, number[]>();
  const strides = kept.map((_, i) => kept.slice(i + 1).reduce((p, q) => p * q, 1));
  for (let i = 0; i < a.data.length; i++) {
    let rem = i;
    let key = 0;
    for (let d = a.shape.length - 1; d >= 0; d--) {
      const q = rem % a.shape[d]!;
      rem = Math.floor(rem / a.shape[d]!);
      if (!dims.includes(d)) key += q * strides[d]!;
    }
    const g = groups.get(key) ?? [];
    g.push(a.data[i]!);
    groups.set(key, g);
  }
  const data = Array.from({ length: R.size(kept) }, (_, k) => f(groups.get(k) ?? []));
  return R.arr(keep ? kept : a.shape.filter((_, i) => !dims.includes(i)), data);
}

const variance = (c: number) => (v: number[]) => {
  const m = v.reduce((s, x) => s + x, 0) / v.length;
  return v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - c);
};
const lse = (v: number[]) => {
  const m = Math.max(...v);
  return m + Math.log(v.reduce((s, x) => s + Math.exp(x - m), 0));
};

/** `f` applied to each line along `dim` of a rank-2 array. */
function lines(a: R.Arr, dim: number, f: (line: number[]) => number[]): R.Arr {
  const [r, c] = [a.shape[0]!, a.shape[1]!];
  const out = new Float64Array(a.data.length);
  const outer = dim === 0 ? c : r;
  const n = dim === 0 ? r : c;
  const at = (o: number, k: number) => (dim === 0 ? k * c + o : o * c + k);
  for (let o = 0; o < outer; o++) {
    const line = Array.from({ length: n }, (_, k) => a.data[at(o, k)]!);
    f(line).forEach((v, k) => (out[at(o, k)] = v));
  }
  return { shape: a.shape, data: out };
}
const cumsum = (l: number[]) => {
  let s = 0;
  return l.map((v) => (s += v));
};
const cumprod = (l: number[]) => {
  let p = 1;
  return l.map((v) => (p *= v));
};
/** Pads a [r, c] array: (left, right) on the columns, (top, bottom) on the rows, by a source-index rule. */
function pad2(a: R.Arr, [l, rr, t, b]: readonly number[], src: (i: number, n: number) => number | undefined, fill = 0): R.Arr {
  const [r, c] = [a.shape[0]!, a.shape[1]!];
  return R.build([r + t! + b!, c + l! + rr!], ([i, j]) => {
    const si = src(i! - t!, r);
    const sj = src(j! - l!, c);
    return si === undefined || sj === undefined ? fill : a.data[si * c + sj]!;
  });
}
const reflect = (i: number, n: number) => (i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i);
const replicate = (i: number, n: number) => Math.min(Math.max(i, 0), n - 1);
const circular = (i: number, n: number) => ((i % n) + n) % n;
const inside = (i: number, n: number) => (i >= 0 && i < n ? i : undefined);

/** softmax(q k^T * scale + bias) v for [L, E], [S, E], [S, Ev] arrays. */
function attention(q: R.Arr, k: R.Arr, v: R.Arr, bias: (l: number, s: number) => number = () => 0): R.Arr {
  const [L, E] = [q.shape[0]!, q.shape[1]!];
  const S = k.shape[0]!;
  const Ev = v.shape[1]!;
  const scale = 1 / Math.sqrt(E);
  const out = new Float64Array(L * Ev);
  for (let l = 0; l < L; l++) {
    const sc = Array.from({ length: S }, (_, s) => {
      let d = 0;
      for (let e = 0; e < E; e++) d += q.data[l * E + e]! * k.data[s * E + e]!;
      return d * scale + bias(l, s);
    });
    const m = Math.max(...sc);
    const w = sc.map((x) => Math.exp(x - m));
    const z = w.reduce((p, x) => p + x, 0);
    for (let e = 0; e < Ev; e++) out[l * Ev + e] = w.reduce((p, x, s) => p + (x / z) * v.data[s * Ev + e]!, 0);
  }
  return { shape: [L, Ev], data: out };
}

// ---- independent float64 references for the special functions (not the kernels' algorithms)

/** Lanczos (g = 7, n = 9) coefficients: log gamma and its first two derivatives in closed form. */
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
/** [lgamma, digamma, trigamma] at x >= 0.5 from the Lanczos sum A(x) and t = x + 6.5. */
function lanczos(x: number): [number, number, number] {
  const z = x - 1;
  let a = LANCZOS[0]!;
  let da = 0;
  let dda = 0;
  for (let i = 1; i < 9; i++) {
    const d = z + i;
    a += LANCZOS[i]! / d;
    da -= LANCZOS[i]! / (d * d);
    dda += (2 * LANCZOS[i]!) / (d * d * d);
  }
  const t = z + 7.5;
  const lg = 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
  const dg = Math.log(t) + (z + 0.5) / t - 1 + da / a;
  const tg = 2 / t - (z + 0.5) / (t * t) + (dda * a - da * da) / (a * a);
  return [lg, dg, tg];
}
/** The three below 0.5 by reflection (gamma(x) gamma(1 - x) = pi / sin(pi x)). */
function gammaFns(x: number): [number, number, number] {
  if (x >= 0.5) return lanczos(x);
  const [lg, dg, tg] = lanczos(1 - x);
  const s = Math.sin(Math.PI * x);
  return [Math.log(Math.PI / Math.abs(s)) - lg, dg - Math.PI / Math.tan(Math.PI * x), -tg + (Math.PI * Math.PI) / (s * s)];
}
/** erfinv by bisection on the Taylor-series erf. */
function erfinv64(y: number): number {
  let lo = -3;
  let hi = 3;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (R.erf(mid) < y) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
const fmax64 = (a: number, b: number) => (Number.isNaN(b) ? a : Number.isNaN(a) ? b : Math.max(a, b));
const fmin64 = (a: number, b: number) => (Number.isNaN(b) ? a : Number.isNaN(a) ? b : Math.min(a, b));
const HALF_INTEGERS = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5];

const sorted = (desc: boolean) => (l: number[]) => [...l].sort((a, b) => (desc ? b - a : a - b));

export const OPS_CASES: readonly Case[] = [
  unary('floor', 'floor', (x) => x.floor().add(x), (v) => Math.floor(v) + v, { avoid: INTEGERS }),
  unary('ceil', 'ceil', (x) => x.ceil().mul(x), (v) => Math.ceil(v) * v, { avoid: INTEGERS }),
  unary('round', 'round', (x) => x.round().mul(x), (v) => Math.round(v) * v, { avoid: HALVES }),
  unary('trunc', 'trunc', (x) => x.trunc().add(x.square()), (v) => Math.trunc(v) + v * v, { avoid: INTEGERS }),
  unary('frac', 'frac', (x) => x.frac(), (v) => v - Math.trunc(v), { avoid: INTEGERS }),
  unary('tan', 'tan', (x) => x.tan(), Math.tan, { lo: -1.3, hi: 1.3 }),
  unary('asin', 'asin', (x) => x.asin(), Math.asin, { lo: -0.9, hi: 0.9 }),
  unary('acos', 'acos', (x) => x.acos(), Math.acos, { lo: -0.9, hi: 0.9 }),
  unary('atan', 'atan', (x) => x.atan(), Math.atan, { lo: -4, hi: 4 }),
  unary('sinh', 'sinh', (x) => x.sinh(), Math.sinh),
  unary('cosh', 'cosh', (x) => x.cosh(), Math.cosh),
  unary('asinh', 'asinh', (x) => x.asinh(), Math.asinh, { lo: -4, hi: 4 }),
  unary('acosh', 'acosh', (x) => x.acosh(), Math.acosh, { lo: 1.2, hi: 4 }),
  unary('exp2', 'exp2', (x) => x.exp2(), (v) => 2 ** v),
  unary('expm1', 'expm1', (x) => x.expm1(), Math.expm1),
  unary('log2', 'log2', (x) => x.log2(), Math.log2, { lo: 0.2, hi: 4 }),
  unary('log10', 'log10', (x) => x.log10(), Math.log10, { lo: 0.2, hi: 4 }),
  unary('silu', 'silu', (x) => x.silu(), (v) => v / (1 + Math.exp(-v)), { lo: -4, hi: 4 }),
  unary('softplus', 'softplus', (x) => x.softplus(), (v) => softplus(v, 1, 20), { lo: -4, hi: 4 }),
  unary('softplus(beta 2, threshold 3) across the threshold', 'softplus', (x) => x.softplus(2, 3), (v) => softplus(v, 2, 3), { lo: -3, hi: 3, avoid: [1.5] }),
  unary('leakyRelu', 'leakyRelu', (x) => x.leakyRelu(0.1), (v) => (v > 0 ? v : 0.1 * v), { avoid: [0] }),
  unary('elu', 'elu', (x) => x.elu(0.7), (v) => (v > 0 ? v : 0.7 * Math.expm1(v)), { avoid: [0] }),
  binary('atan2 [2,3], [3]', 'atan2', (a, b) => a.atan2(b), Math.atan2, { shape: S }, { shape: [3], avoid: [0], margin: 0.3 }),
  binary('hypot [2,3], [2,1]', 'hypot', (a, b) => a.hypot(b), Math.hypot, { shape: S, avoid: [0] }, { shape: [2, 1], avoid: [0] }),
  binary('copysign', 'copysign', (a, b) => a.copysign(b), copysign, { shape: S, avoid: [0] }, { shape: S, avoid: [0] }),
  binary('logaddexp [2,3], [3]', 'logaddexp', (a, b) => a.logaddexp(b), logaddexp, { shape: S, lo: -4, hi: 4 }, { shape: [3], lo: -4, hi: 4 }),
  binary('xlogy', 'xlogy', (a, b) => a.xlogy(b), (a, b) => a * Math.log(b), { shape: S }, { shape: S, lo: 0.2, hi: 3 }),
  unary('atan2Scalar(-1.5)', 'atan2Scalar', (x) => x.atan2(-1.5), (v) => Math.atan2(v, -1.5)),
  unary('hypotScalar(0.75)', 'hypotScalar', (x) => x.hypot(0.75), (v) => Math.hypot(v, 0.75)),
  unary('copysignScalar(-2)', 'copysignScalar', (x) => x.copysign(-2), (v) => -Math.abs(v), { avoid: [0] }),
  unary('logaddexpScalar(0.5)', 'logaddexpScalar', (x) => x.logaddexp(0.5), (v) => logaddexp(v, 0.5), { lo: -4, hi: 4 }),
  unary('xlogyScalar(2.5)', 'xlogyScalar', (x) => x.xlogy(2.5), (v) => v * Math.log(2.5)),
  // ---- special functions (second order through digamma and trigamma: their rules are differentiable)
  unary('atanh', 'atanh', (x) => x.atanh(), Math.atanh, { lo: -0.9, hi: 0.9 }),
  unary('logit', 'logit', (x) => x.logit(), (v) => Math.log(v / (1 - v)), { lo: 0.05, hi: 0.95 }),
  unary('logit(eps 0.2) across the clamp', 'logit', (x) => x.logit(0.2), (v) => Math.log(Math.min(Math.max(v, 0.2), 0.8) / (1 - Math.min(Math.max(v, 0.2), 0.8))), { lo: 0.05, hi: 0.95, avoid: [0.2, 0.8] }),
  unary('erfinv', 'erfinv', (x) => x.erfinv(), erfinv64, { lo: -0.9, hi: 0.9 }),
  unary('lgamma', 'lgamma', (x) => x.lgamma(), (v) => gammaFns(v)[0], { lo: -2.9, hi: 4, avoid: INTEGERS }),
  unary('digamma', 'digamma', (x) => x.digamma(), (v) => gammaFns(v)[1], { lo: -2.9, hi: 4, avoid: INTEGERS }),
  unary('trigamma (its gradient polygamma(2))', 'trigamma', (x) => x.trigamma(), (v) => gammaFns(v)[2], { lo: -2.9, hi: 4, avoid: INTEGERS }),
  unary('polygamma(1) of the positive half', 'trigamma', (x) => x.polygamma(1), (v) => gammaFns(v)[2], { lo: 0.6, hi: 9 }),
  binary('fmax [2,3], [3]', 'fmax', (a, b) => a.fmax(b), fmax64, { shape: S }, { shape: [3] }),
  binary('fmin', 'fmin', (a, b) => a.fmin(b), fmin64, { shape: S }, { shape: S }),
  binary('fmod [2,3], [3]', 'fmod', (a, b) => a.fmod(b), (a, b) => a % b, { shape: S, lo: -2.9, hi: 2.9, avoid: HALF_INTEGERS.map((v) => v * 0.8) }, { shape: [3], values: [0.8, -0.8, 0.8] }),
  binary('div trunc (zero gradients)', 'divTrunc', (a, b) => a.div(b, 'trunc').add(a.mul(b)), (a, b) => Math.trunc(a / b) + a * b, { shape: S, lo: -2.9, hi: 2.9, avoid: HALF_INTEGERS.map((v) => v * 0.8) }, { shape: S, values: [0.8, -0.8, 0.8, -0.8, 0.8, 0.8] }),
  binary('div floor (zero gradients)', 'divFloor', (a, b) => a.div(b, 'floor').add(a.mul(b)), (a, b) => Math.floor(a / b) + a * b, { shape: S, lo: -2.9, hi: 2.9, avoid: HALF_INTEGERS.map((v) => v * 0.8) }, { shape: S, values: [0.8, -0.8, 0.8, -0.8, 0.8, 0.8] }),
  binary('xlog1py [2,3], [3]', 'xlog1py', (a, b) => a.xlog1py(b), (a, b) => a * Math.log1p(b), { shape: S }, { shape: [3], lo: -0.8, hi: 3 }),
  unary('xlog1pyScalar(0.5)', 'xlog1pyScalar', (x) => x.xlog1py(0.5), (v) => v * Math.log1p(0.5)),
  unary('fmaxScalar(0.25)', 'fmaxScalar', (x) => x.fmax(0.25), (v) => Math.max(v, 0.25), { avoid: [0.25] }),
  unary('fminScalar(NaN) passes', 'fminScalar', (x) => x.fmin(NaN), (v) => v),
  unary('fmodScalar(-0.7)', 'fmodScalar', (x) => x.fmod(-0.7), (v) => v % -0.7, { lo: -2.5, hi: 2.5, avoid: [-2.1, -1.4, -0.7, 0, 0.7, 1.4, 2.1] }),
  unary('divTruncScalar(0.6) (zero gradient)', 'divTruncScalar', (x) => x.div(0.6, 'trunc').add(x), (v) => Math.trunc(v / 0.6) + v, { avoid: [-1.8, -1.2, -0.6, 0, 0.6, 1.2, 1.8] }),
  unary('divFloorScalar(-0.6) (zero gradient)', 'divFloorScalar', (x) => x.div(-0.6, 'floor').add(x), (v) => Math.floor(v / -0.6) + v, { avoid: [-1.8, -1.2, -0.6, 0, 0.6, 1.2, 1.8] }),
  // ---- reductions built from the primitive ones
  { name: 'sum dims [0, 2]', op: 'sum', floats: [{ shape: [2, 3, 4] }], run: ([x]) => x!.sum([0, 2]), ref: ([x]) => reduceDims(x!, [0, 2], false, (v) => v.reduce((s, y) => s + y, 0)) },
  { name: 'mean dims [1, 2] keepDims', op: 'mean', floats: [{ shape: [2, 3, 4] }], run: ([x]) => x!.mean([1, 2], true), ref: ([x]) => reduceDims(x!, [1, 2], true, (v) => v.reduce((s, y) => s + y, 0) / v.length) },
  { name: 'max dims [0, 1]', op: 'max', floats: [{ shape: [3, 2, 2] }], run: ([x]) => x!.max([0, 1]), ref: ([x]) => reduceDims(x!, [0, 1], false, (v) => Math.max(...v)) },
  { name: 'var dim 1 (correction 1)', op: 'var', floats: [{ shape: [3, 4] }], run: ([x]) => x!.var(1), ref: ([x]) => reduceDims(x!, [1], false, variance(1)) },
  { name: 'var all (correction 0)', op: 'var', floats: [{ shape: [3, 4] }], run: ([x]) => x!.var(null, { correction: 0 }), ref: ([x]) => reduceDims(x!, [0, 1], false, variance(0)) },
  { name: 'var dims [0, 2] of a permuted view', op: 'var', floats: [{ shape: [2, 3, 3] }], run: ([x]) => x!.permute([1, 0, 2]).var([0, 2]), ref: ([x]) => reduceDims(R.permute(x!, [1, 0, 2]), [0, 2], false, variance(1)) },
  { name: 'std dims [0, 2] keepDims', op: 'sqrt', floats: [{ shape: [2, 3, 3] }], run: ([x]) => x!.std([0, 2], { keepDims: true }), ref: ([x]) => reduceDims(x!, [0, 2], true, (v) => Math.sqrt(variance(1)(v))) },
  { name: 'logsumexp dim 1', op: 'exp', floats: [{ shape: [3, 4], lo: -3, hi: 3 }], run: ([x]) => x!.logsumexp(1), ref: ([x]) => reduceDims(x!, [1], false, lse) },
  { name: 'logsumexp dims [0, 1] keepDims', op: 'exp', floats: [{ shape: [2, 3] }], run: ([x]) => x!.logsumexp([0, 1], true), ref: ([x]) => reduceDims(x!, [0, 1], true, lse) },
  {
    name: 'maxWithIndices values (the gradient goes to the index)',
    op: 'gather',
    floats: [{ shape: [3, 4] }],
    run: ([x]) => x!.maxWithIndices(1).values,
    ref: ([x]) => reduceDims(x!, [1], false, (v) => Math.max(...v)),
  },
  {
    name: 'minWithIndices values keepDims',
    op: 'gather',
    floats: [{ shape: [3, 4] }],
    run: ([x]) => x!.minWithIndices(0, true).values,
    ref: ([x]) => reduceDims(x!, [0], true, (v) => Math.min(...v)),
  },
  // ---- scans, reorderings, sorting
  { name: 'cumsum dim 1', op: 'cumsum', floats: [{ shape: [3, 4] }], run: ([x]) => x!.cumsum(1), ref: ([x]) => lines(x!, 1, cumsum) },
  { name: 'cumsum dim 0', op: 'cumsum', floats: [{ shape: [3, 4] }], run: ([x]) => x!.cumsum(0), ref: ([x]) => lines(x!, 0, cumsum) },
  { name: 'cumprod dim 1', op: 'cumprod', floats: [{ shape: [3, 4], lo: 0.5, hi: 1.5 }], run: ([x]) => x!.cumprod(1), ref: ([x]) => lines(x!, 1, cumprod) },
  {
    name: 'cumprod with zeros (none, one, two per row)',
    op: 'cumprod',
    floats: [{ shape: [3, 4], values: [1.5, -0.5, 2, 0.75, 1.2, 0, -1.5, 2, 0.5, 0, 3, 0] }],
    run: ([x]) => x!.cumprod(1),
    ref: ([x]) => lines(x!, 1, cumprod),
  },
  { name: 'cumprod dim 0 with a zero first', op: 'cumprod', floats: [{ shape: [3, 2], values: [0, 1.5, 2, -1, 0.5, 2] }], run: ([x]) => x!.cumprod(0), ref: ([x]) => lines(x!, 0, cumprod) },
  { name: 'flip dims [0, 1]', op: 'flip', floats: [{ shape: [2, 3] }], run: ([x]) => x!.flip([0, 1]).mul(x!), ref: ([x]) => R.zip(R.build([2, 3], ([i, j]) => x!.data[(1 - i!) * 3 + (2 - j!)]!), x!, (a, b) => a * b) },
  { name: 'roll shift 1 dim 1', op: 'roll', floats: [{ shape: [2, 3] }], run: ([x]) => x!.roll(1, 1).mul(x!), ref: ([x]) => R.zip(R.build([2, 3], ([i, j]) => x!.data[i! * 3 + ((j! + 2) % 3)]!), x!, (a, b) => a * b) },
  { name: 'tril diagonal 0', op: 'tril', floats: [{ shape: [3, 3] }], run: ([x]) => x!.tril().exp(), ref: ([x]) => R.build([3, 3], ([i, j]) => (j! <= i! ? Math.exp(x!.data[i! * 3 + j!]!) : 1)) },
  { name: 'triu diagonal 1', op: 'triu', floats: [{ shape: [3, 4] }], run: ([x]) => x!.triu(1).square(), ref: ([x]) => R.build([3, 4], ([i, j]) => (j! - i! >= 1 ? x!.data[i! * 4 + j!]! ** 2 : 0)) },
  { name: 'sort values (gather at the order)', op: 'gather', floats: [{ shape: [3, 4] }], run: ([x]) => x!.sort(1).values.mul(x!), ref: ([x]) => R.zip(lines(x!, 1, sorted(false)), x!, (a, b) => a * b) },
  { name: 'pad constant [1, 2, 0, 1] value 0.5', op: 'sliceAssign', floats: [{ shape: [2, 3] }], run: ([x]) => x!.pad([1, 2, 0, 1], 'constant', 0.5).square(), ref: ([x]) => R.map(pad2(x!, [1, 2, 0, 1], inside, 0.5), (v) => v * v) },
  { name: 'pad constant with a crop [-1, 1]', op: 'slice', floats: [{ shape: [2, 3] }], run: ([x]) => x!.pad([-1, 1]).square(), ref: ([x]) => R.map(R.build([2, 3], ([i, j]) => (j! < 2 ? x!.data[i! * 3 + j! + 1]! : 0)), (v) => v * v) },
  { name: 'pad reflect [2, 1, 1, 1]', op: 'indexSelect', floats: [{ shape: [3, 3] }], run: ([x]) => x!.pad([2, 1, 1, 1], 'reflect').square(), ref: ([x]) => R.map(pad2(x!, [2, 1, 1, 1], reflect), (v) => v * v) },
  { name: 'pad replicate [1, 2, 2, 0]', op: 'indexSelect', floats: [{ shape: [2, 3] }], run: ([x]) => x!.pad([1, 2, 2, 0], 'replicate').square(), ref: ([x]) => R.map(pad2(x!, [1, 2, 2, 0], replicate), (v) => v * v) },
  { name: 'pad circular [2, 1]', op: 'indexSelect', floats: [{ shape: [2, 3] }], run: ([x]) => x!.pad([2, 1], 'circular').square(), ref: ([x]) => R.map(pad2(x!, [2, 1, 0, 0], circular), (v) => v * v) },
  {
    name: 'scaledDotProductAttention (q, k, v)',
    op: 'matmul',
    floats: [{ shape: [3, 4] }, { shape: [5, 4] }, { shape: [5, 2] }],
    run: ([q, k, v]) => scaledDotProductAttention(q!, k!, v!),
    ref: ([q, k, v]) => attention(q!, k!, v!),
  },
  {
    name: 'scaledDotProductAttention causal',
    op: 'softmax',
    floats: [{ shape: [4, 3] }, { shape: [4, 3] }, { shape: [4, 2] }],
    run: ([q, k, v]) => scaledDotProductAttention(q!, k!, v!, { isCausal: true }),
    ref: ([q, k, v]) => attention(q!, k!, v!, (l, s) => (s <= l ? 0 : -Infinity)),
  },
  {
    name: 'scaledDotProductAttention float mask (its gradient too)',
    op: 'add',
    floats: [{ shape: [2, 3] }, { shape: [3, 3] }, { shape: [3, 2] }, { shape: [2, 3] }],
    run: ([q, k, v, m]) => scaledDotProductAttention(q!, k!, v!, { attnMask: m! }),
    ref: ([q, k, v, m]) => attention(q!, k!, v!, (l, s) => m!.data[l * 3 + s]!),
  },
  { name: 'topk values k 2', op: 'gather', floats: [{ shape: [2, 5] }], run: ([x]) => x!.topk(2).values, ref: ([x]) => R.build([2, 2], ([i, j]) => sorted(true)(Array.from(x!.data.slice(i! * 5, i! * 5 + 5)))[j!]!) },
];
