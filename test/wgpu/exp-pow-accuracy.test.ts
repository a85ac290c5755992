/**
 * float32 exp, exp2, expm1, pow and the ops built on exp, on WebGPU, in ulp against float64
 * references rounded to float32 (Math.exp, Math.pow, ...: independent of the kernels). A driver's
 * exp builtin is tens of ulp off near |x| = 88 and pow by exp2(b * log2 a) grows with |b log2 a|;
 * the prelude's own versions stay within 1 ulp on lavapipe, and the bounds here leave one more.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { fromData, type Tensor } from '../../src/index.js';
import { describeGpu } from './gpu.js';

type FT = Tensor<Wgpu, 'float'>;

const bits = new Float32Array(1);
const ints = new Int32Array(bits.buffer);
/** A float32's position on the number line in ulp steps (+0 and -0 both 0). */
function ord(x: number): number {
  bits[0] = x;
  const i = ints[0]!;
  return i < 0 ? -(i & 0x7fffffff) : i;
}
/** Distance in float32 ulp between a result and a float64 reference rounded to float32. */
function ulps(got: number, want: number): number {
  if (Number.isNaN(want) || Number.isNaN(got)) return Number.isNaN(want) && Number.isNaN(got) ? 0 : Infinity;
  return Math.abs(ord(got) - ord(Math.fround(want)));
}
const MIN_NORMAL = 2 ** -126;
const isNormal = (w: number): boolean => Number.isFinite(w) && Math.abs(w) >= MIN_NORMAL;

/** Deterministic uniform float32 values in [lo, hi) (a small LCG). */
function uniform(n: number, lo: number, hi: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround(lo + ((hi - lo) * s) / 2 ** 32);
  });
}

interface Worst {
  readonly ulps: number;
  readonly at: string;
}
/** The largest ulp distance over the points whose reference passes `keep`, with where it is. */
function worst(args: ReadonlyArray<readonly number[]>, got: ArrayLike<number>, ref: (...a: number[]) => number, keep: (w: number) => boolean = isNormal): Worst {
  let max = 0;
  let at = '';
  for (let i = 0; i < got.length; i++) {
    const xs = args.map((a) => a[i]!);
    const w = ref(...xs);
    if (!keep(Math.fround(w))) continue;
    const d = ulps(got[i]!, w);
    if (d > max) {
      max = d;
      at = `(${xs.join(', ')}) -> ${got[i]}, want ${Math.fround(w)}`;
    }
  }
  return { ulps: max, at };
}

describeGpu('exp, pow and their users are within a few ulp on WebGPU', () => {
  let w: Wgpu;
  /** Whether the device keeps subnormal results of float32 arithmetic (some flush them to 0). */
  let keepsSubnormals = false;
  beforeAll(async () => {
    w = await Wgpu.create();
    const d = await fromData(w, Float32Array.from([2 ** -120]), { shape: [1], dtype: 'float32' }).mul(2 ** -20).toData();
    keepsSubnormals = d.values[0] === 2 ** -140;
  });
  afterAll(async () => {
    await w.close();
  });

  const f32 = (xs: readonly number[]): FT => fromData(w, Float32Array.from(xs), { shape: [xs.length], dtype: 'float32' });
  async function unary(xs: readonly number[], op: (t: FT) => FT): Promise<Float32Array> {
    return Float32Array.from((await op(f32(xs)).toData()).values);
  }
  async function binary(a: readonly number[], b: readonly number[], op: (x: FT, y: FT) => FT): Promise<Float32Array> {
    return Float32Array.from((await op(f32(a), f32(b)).toData()).values);
  }
  /** Subnormal results: within 1 ulp where the device keeps them, else 0 or within 1 ulp. */
  function expectSubnormals(args: ReadonlyArray<readonly number[]>, got: Float32Array, ref: (...a: number[]) => number): void {
    const sub = (v: number): boolean => v !== 0 && Math.abs(v) < MIN_NORMAL;
    if (keepsSubnormals) expect(worst(args, got, ref, sub).ulps).toBeLessThanOrEqual(1);
    else expect(worst(args, got.map((v, i) => (v === 0 ? Math.fround(ref(...args.map((a) => a[i]!))) : v)), ref, sub).ulps).toBeLessThanOrEqual(1);
  }

  test('exp within 2 ulp over its normal range, 1 into the subnormals', async () => {
    const xs = [...uniform(40000, -103.9, 89, 1), ...uniform(10000, -1, 1, 2), ...uniform(10000, 80, 88.72, 3), ...uniform(10000, -87.33, -80, 4)];
    const got = await unary(xs, (t) => t.exp());
    const r = worst([xs], got, Math.exp);
    expect(r.ulps, r.at).toBeLessThanOrEqual(2);
    expectSubnormals([xs], got, Math.exp);
  });

  test('exp at its edges: signed zeros, infinities, NaN, the overflow and underflow thresholds', async () => {
    // 88.7228394 is the first float32 whose exp overflows, -103.98 one whose exp rounds to 0.
    const xs = [0, -0, Infinity, -Infinity, NaN, 88.7228394, 89, 1000, -103.98, -104, -150, -1e30, 1e-30, -1e-30, 1e-8];
    expect(Array.from(await unary(xs, (t) => t.exp()))).toEqual([1, 1, Infinity, 0, NaN, Infinity, Infinity, Infinity, 0, 0, 0, 0, 1, 1, 1]);
    // The largest finite result and the smallest normal one.
    const edge = await unary([88.72283, -87.33654], (t) => t.exp());
    expect(ulps(edge[0]!, Math.exp(Math.fround(88.72283)))).toBeLessThanOrEqual(1);
    expect(ulps(edge[1]!, Math.exp(Math.fround(-87.33654)))).toBeLessThanOrEqual(1);
    const tiny = await unary([-103.97], (t) => t.exp());
    expect(tiny[0] === 2 ** -149 || (!keepsSubnormals && tiny[0] === 0)).toBe(true);
  });

  test('exp2 within 2 ulp, exact at integers', async () => {
    const xs = [...uniform(20000, -126, 127.99, 5), ...uniform(10000, -1, 1, 6)];
    const got = await unary(xs, (t) => t.exp2());
    const r = worst([xs], got, (x) => 2 ** x);
    expect(r.ulps, r.at).toBeLessThanOrEqual(2);
    const ks = Array.from({ length: 254 }, (_, i) => i - 126);
    expect(Array.from(await unary(ks, (t) => t.exp2()))).toEqual(ks.map((k) => 2 ** k));
    expect(Array.from(await unary([128, -Infinity, Infinity, NaN, -160], (t) => t.exp2()))).toEqual([Infinity, 0, Infinity, NaN, 0]);
  });

  test('expm1 within 2 ulp, signed zero kept', async () => {
    const xs = [...uniform(20000, -20, 88.7, 7), ...uniform(20000, -1, 1, 8), ...uniform(5000, -1e-3, 1e-3, 9), ...[16.8, -16.8, 17.5, -17.5, 1e-30, -1e-30].map(Math.fround)];
    const got = await unary(xs, (t) => t.expm1());
    const r = worst([xs], got, Math.expm1);
    expect(r.ulps, r.at).toBeLessThanOrEqual(2);
    const edge = await unary([-0, 0, Infinity, -Infinity, NaN, 89], (t) => t.expm1());
    expect(Array.from(edge)).toEqual([-0, 0, Infinity, -1, NaN, Infinity]);
  });

  test('pow within 2 ulp for large |b log2 a|, bases near 1, and negative bases with integer exponents', async () => {
    const n = 40000;
    // Bases log-uniform over [1e-6, 1e6], exponents with |b log2 a| up to 126, and up to +-1e3.
    const bases = uniform(n, -1, 1, 10).map((u) => Math.fround(Math.exp(u * Math.log(1e6))));
    const span = uniform(n, -126, 126, 11).map((p, i) => Math.fround(p / Math.log2(bases[i]!)));
    const wide = uniform(n, -1000, 1000, 12);
    const near1 = uniform(n, -1e-3, 1e-3, 13).map((d) => Math.fround(1 + d));
    const near1e = uniform(n, -120, 120, 14).map((p, i) => Math.fround(p / Math.log2(near1[i]!)));
    const neg = bases.map((b) => -b);
    const negE = uniform(n, -126, 126, 15).map((p, i) => Math.round(p / Math.log2(bases[i]!)));
    const small = uniform(n, -40, 40, 16).map(Math.round);
    for (const [a, b] of [[bases, span], [bases, wide], [near1, near1e], [neg, negE], [neg, small]] as const) {
      const got = await binary(a, b, (x, y) => x.pow(y));
      const r = worst([a, b], got, Math.pow);
      expect(r.ulps, r.at).toBeLessThanOrEqual(2);
      expectSubnormals([a, b], got, Math.pow);
    }
  });

  test('pow edge values and exact results', async () => {
    // C99 pow: (-8)^(1/3) is NaN; subnormal bases; results at the top and bottom of the range.
    const a = [2, 0.5, 1e-45, 1e-45, -8, 10, -2, 3e-39, 1.0000001, 0.9999999, 2, 10, 3, 0.5, -3, 7, 1.5, 2, 21, -23];
    const b = [127.99, 126, 0.5, -0.1, 1 / 3, 38, 127, 0.5, 1e7, -1e7, 128, 7, 15, 20, 13, -3, -2, -1, 5, 5];
    const got = await binary(a, b, (x, y) => x.pow(y));
    const want = a.map((x, i) => Math.fround(Math.pow(Math.fround(x), Math.fround(b[i]!))));
    for (let i = 0; i < a.length; i++) expect(ulps(got[i]!, want[i]!), `${a[i]} ^ ${b[i]}: ${got[i]}, want ${want[i]}`).toBeLessThanOrEqual(1);
    // Results exact in float32 come out exact: 0.5^126, (-2)^127, 2^128 = inf, 10^7, 3^15, 0.5^20,
    // (-3)^13, 2^-1, 21^5 and (-23)^5 (whose bases have 5 significant bits: 25 > 24 in all).
    for (const i of [1, 6, 10, 11, 12, 13, 14, 17, 18, 19]) expect(got[i], `${a[i]} ^ ${b[i]}`).toBe(want[i]);
    const tiny = await binary([0.5, 2], [149, -149], (x, y) => x.pow(y));
    for (const v of tiny) expect(v === 2 ** -149 || (!keepsSubnormals && v === 0)).toBe(true);
    // x^1 is x, x^2 and x^-1 one rounding of x * x and 1 / x.
    const xs = uniform(4000, -1e3, 1e3, 17);
    const ones = await binary(xs, xs.map(() => 1), (x, y) => x.pow(y));
    expect(Array.from(ones)).toEqual(xs);
    const sq = await binary(xs, xs.map(() => 2), (x, y) => x.pow(y));
    expect(Array.from(sq)).toEqual(xs.map((x) => Math.fround(x * x)));
    const inv = await binary(xs, xs.map(() => -1), (x, y) => x.pow(y));
    expect(worst([xs], inv, (x) => 1 / x).ulps).toBeLessThanOrEqual(1);
  });

  test('every integer power of an integer base that float32 holds exactly comes out exact', async () => {
    const a: number[] = [];
    const b: number[] = [];
    for (let base = 2; base <= 4096; base++) {
      for (let e = 2; base ** e < 2 ** 24; e++) {
        a.push(base, -base);
        b.push(e, e);
      }
    }
    const got = await binary(a, b, (x, y) => x.pow(y));
    const bad = a.map((x, i) => [x, b[i]!, got[i]!] as const).filter(([x, e, g]) => g !== x ** e);
    expect(bad.slice(0, 5)).toEqual([]);
  });

  test('sinh and cosh within 2 ulp up to their overflow', async () => {
    const xs = [...uniform(30000, -89.41, 89.41, 18), ...uniform(10000, -12.5, 12.5, 19)];
    for (const [op, ref] of [[(t: FT) => t.sinh(), Math.sinh], [(t: FT) => t.cosh(), Math.cosh]] as const) {
      const got = await unary(xs, op);
      const r = worst([xs], got, ref);
      expect(r.ulps, r.at).toBeLessThanOrEqual(2);
    }
    expect(Array.from(await unary([89.5, -89.5, NaN], (t) => t.sinh()))).toEqual([Infinity, -Infinity, NaN]);
    expect(Array.from(await unary([89.5, -89.5, NaN], (t) => t.cosh()))).toEqual([Infinity, Infinity, NaN]);
  });

  test('sigmoid, silu, softplus, elu, tanh and logaddexp within a few ulp', async () => {
    const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
    const cases: ReadonlyArray<readonly [string, (t: FT) => FT, (x: number) => number, number, number, number]> = [
      ['sigmoid', (t) => t.sigmoid(), sigmoid, -87, 20, 2],
      ['silu', (t) => t.silu(), (x) => x * sigmoid(x), -87, 20, 3],
      // softplus is log1p(exp(x)) below its threshold (20): exp's error passes through for x << 0.
      ['softplus', (t) => t.softplus(), (x) => (x > 20 ? x : Math.log1p(Math.exp(x))), -87, 25, 2],
      ['elu', (t) => t.elu(), (x) => (x > 0 ? x : Math.expm1(x)), -20, 5, 2],
      ['tanh', (t) => t.tanh(), Math.tanh, -10, 10, 2],
    ];
    for (const [name, op, ref, lo, hi, bound] of cases) {
      const xs = uniform(30000, lo, hi, name.length);
      const got = await unary(xs, op);
      const r = worst([xs], got, ref);
      expect(r.ulps, `${name} ${r.at}`).toBeLessThanOrEqual(bound);
    }
    // logaddexp where the sum does not cancel (both operands >= 0): max + log1p(exp(-|a - b|)).
    const a = uniform(30000, 0, 100, 20);
    const b = uniform(30000, 0, 100, 21);
    const got = await binary(a, b, (x, y) => x.logaddexp(y));
    const r = worst([a, b], got, (x, y) => Math.max(x, y) + Math.log1p(Math.exp(-Math.abs(x - y))));
    expect(r.ulps, r.at).toBeLessThanOrEqual(2);
  });
});
