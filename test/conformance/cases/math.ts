/**
 * Rounding, trigonometric and hyperbolic ops, exp2 / expm1 / log2 / log10, the activations
 * (silu, softplus, leakyRelu, elu), the special functions (atanh, logit, erfinv, lgamma, digamma)
 * and the binary atan2, hypot, copysign, logaddexp, xlogy, xlog1py, fmax, fmin, fmod, and div's
 * rounding modes:
 * random inputs in each op's domain, IEEE special values, and the edges torch documents.
 */
import { ARITH, EXACT, TRANS, fmtShape, type Tol } from '../harness.js';
import * as R from '../ref.js';
import * as M from '../ref-math.js';
import { Rng } from '../rng.js';
import { ex, f32, ft, it, randI, randWith, value, type Case, type FT } from './util.js';

interface UnarySpec {
  readonly ref: (a: number) => number;
  readonly call: (x: FT) => FT;
  readonly gen: (r: Rng) => number;
  readonly tol: Tol;
  /** Extra inputs worth a case of their own (edges of the domain, halves for round). */
  readonly edges?: readonly number[];
}

const SPECIALS = [NaN, Infinity, -Infinity, 0, -0, 1, -1, 0.5, -2, 3];
/** A few float32 ulp, relative only: exp and the ops made of it are that close on every backend. */
const ULPS: Tol = { abs: 0, rel: 5e-7 };

const UNARY: Record<string, UnarySpec> = {
  floor: { ref: Math.floor, call: (x) => x.floor(), gen: (r) => r.float(-10, 10), tol: EXACT, edges: [-0.5, 0.5, -1e-30, 2.9999998, -2.9999998, 8388607.5, -8388607.5] },
  ceil: { ref: Math.ceil, call: (x) => x.ceil(), gen: (r) => r.float(-10, 10), tol: EXACT, edges: [-0.5, 0.5, 1e-30, 2.0000002, -2.0000002, 8388607.5, -8388607.5] },
  round: { ref: M.roundHalfEven, call: (x) => x.round(), gen: (r) => r.float(-10, 10), tol: EXACT, edges: [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 0.49999997, -0.49999997, 4194304.5, 4194305.5, 1e20] },
  trunc: { ref: Math.trunc, call: (x) => x.trunc(), gen: (r) => r.float(-10, 10), tol: EXACT, edges: [-0.5, 0.5, -2.9999998, 8388607.5, -8388607.5] },
  frac: { ref: M.frac, call: (x) => x.frac(), gen: (r) => r.float(-10, 10), tol: EXACT, edges: [-0.75, 0.75, -2.5, 8388607.5, 1e20] },
  tan: { ref: Math.tan, call: (x) => x.tan(), gen: (r) => r.float(-1.5, 1.5), tol: TRANS, edges: [1.5707963, -1.5707963, 3.1415927, 100, -10.5] },
  asin: { ref: Math.asin, call: (x) => x.asin(), gen: (r) => r.float(-1, 1), tol: TRANS, edges: [0.99999994, -0.99999994, 1e-20, 1.0000001, -1.5] },
  acos: { ref: Math.acos, call: (x) => x.acos(), gen: (r) => r.float(-1, 1), tol: TRANS, edges: [0.99999994, -0.99999994, 1e-20, 1.0000001, -1.5] },
  atan: { ref: Math.atan, call: (x) => x.atan(), gen: (r) => r.float(-20, 20), tol: TRANS, edges: [1e-20, 0.41421357, 2.4142137, 1e30, -1e30] },
  sinh: { ref: Math.sinh, call: (x) => x.sinh(), gen: (r) => r.float(-5, 5), tol: ULPS, edges: [1e-6, -3e-4, 0.9, 20, -50, 88.5, 89.4, 90, -100] },
  cosh: { ref: Math.cosh, call: (x) => x.cosh(), gen: (r) => r.float(-5, 5), tol: ULPS, edges: [1e-6, 0.9, 20, -50, 88.5, 89.4, 90, -100] },
  asinh: { ref: Math.asinh, call: (x) => x.asinh(), gen: (r) => r.float(-10, 10), tol: TRANS, edges: [1e-6, -3e-4, 4000, 5000, -1e30, 1e38] },
  acosh: { ref: Math.acosh, call: (x) => x.acosh(), gen: (r) => r.float(1, 10), tol: TRANS, edges: [1.0000001, 1.5, 4000, 5000, 1e30, 0.99999994] },
  exp2: { ref: M.exp2, call: (x) => x.exp2(), gen: (r) => r.float(-10, 10), tol: ULPS, edges: [127, 128, -126, -150, 0.5, 10] },
  expm1: { ref: Math.expm1, call: (x) => x.expm1(), gen: (r) => r.float(-5, 5), tol: ULPS, edges: [1e-7, -1e-7, 3e-5, -2e-4, 0.3, -20, 88, 89] },
  log2: { ref: Math.log2, call: (x) => x.log2(), gen: (r) => r.float(0.01, 100), tol: TRANS, edges: [8, 1024, 0.125, 1e-30, 3e38, -1e-30] },
  log10: { ref: Math.log10, call: (x) => x.log10(), gen: (r) => r.float(0.01, 100), tol: TRANS, edges: [10, 1000, 0.001, 1e-30, 3e38, -1e-30] },
  silu: { ref: M.silu, call: (x) => x.silu(), gen: (r) => r.float(-8, 8), tol: TRANS, edges: [-50, -100, 50, 1e-6] },
  softplus: { ref: (a) => M.softplus(a, 1, 20), call: (x) => x.softplus(), gen: (r) => r.float(-10, 25), tol: TRANS, edges: [19.99, 20, 20.01, -80, 1e-6, 100] },
  leakyRelu: { ref: (a) => M.leakyRelu(a, 0.01), call: (x) => x.leakyRelu(), gen: (r) => r.float(-5, 5), tol: ARITH },
  elu: { ref: (a) => M.elu(a, 1), call: (x) => x.elu(), gen: (r) => r.float(-5, 5), tol: TRANS, edges: [-1e-6, -20, -100] },
  atanh: { ref: Math.atanh, call: (x) => x.atanh(), gen: (r) => r.float(-1, 1), tol: TRANS, edges: [0.99999994, -0.99999994, 1e-20, -3e-8, 1.0000001, 0.5] },
  logit: { ref: (a) => Math.log(a / (1 - a)), call: (x) => x.logit(), gen: (r) => r.float(0, 1), tol: TRANS, edges: [0.99999994, 1e-30, 5.9604645e-8, 0.5, 1.0000001, -1e-30] },
  erfinv: { ref: M.erfinv, call: (x) => x.erfinv(), gen: (r) => r.float(-1, 1), tol: TRANS, edges: [0.99999994, -0.9999999, 0.999, 1e-20, -3e-8, 0.8427008, 1.0000001] },
  lgamma: { ref: M.lgamma, call: (x) => x.lgamma(), gen: (r) => r.float(-10, 30), tol: TRANS, edges: [1e-30, -1e-30, 0.99999994, 1.0000001, 1.9999999, 2.0000002, -2.4570825, -0.5, -100.5, 171.5, 1e10, 1e30, 3e38] },
  digamma: { ref: M.digamma, call: (x) => x.digamma(), gen: (r) => r.float(-10, 30), tol: TRANS, edges: [1e-30, -1e-30, 1.4616321, -0.5040830, 10, 9.999999, -100.5, 1e6, 1e30, 3e38] },
};

function unaryCases(out: Case[]): void {
  for (const [op, s] of Object.entries(UNARY)) {
    for (const shape of [[2, 3, 4], []]) {
      const name = `${op} ${fmtShape(shape)}`;
      const a = randWith(new Rng(name), shape, s.gen);
      out.push(value(name, op, s.tol, (b) => s.call(ft(b, a)), () => ex(R.map([a], s.ref))));
    }
    const sp = f32([SPECIALS.length], SPECIALS);
    out.push(value(`${op} special values`, op, s.tol, (b) => s.call(ft(b, sp)), () => ex(R.map([sp], s.ref))));
    if (s.edges) {
      const e = f32([s.edges.length], s.edges);
      out.push(value(`${op} edges [${s.edges.join(', ')}]`, op, s.tol, (b) => s.call(ft(b, e)), () => ex(R.map([e], s.ref))));
    }
  }
  // Rounding ops on int32 return the input.
  for (const op of ['floor', 'ceil', 'round', 'trunc'] as const) {
    const a = randI(new Rng(`${op} int`), [3, 4], -1000, 1000);
    out.push(value(`${op} int32 is the identity`, op, EXACT, (b) => it(b, a)[op](), () => ex(a, 'int32')));
  }
  {
    const a = f32([8], [1.2345, -1.2355, 2.675, 1234.5678, -0.125, 0.135, 15, 25]);
    out.push(value('round(decimals 2)', 'round', ARITH, (b) => ft(b, a).round(2), () => ex(R.map([a], (x) => M.roundDecimals(x, 2)))));
    out.push(value('round(decimals -1)', 'round', ARITH, (b) => ft(b, a).round(-1), () => ex(R.map([a], (x) => M.roundDecimals(x, -1)))));
  }
  // Parameters of the activations.
  const params: ReadonlyArray<readonly [string, string, (x: FT) => FT, (a: number) => number, Tol]> = [
    ['leakyRelu', 'leakyRelu(0.2)', (x) => x.leakyRelu(0.2), (a) => M.leakyRelu(a, 0.2), ARITH],
    ['leakyRelu', 'leakyRelu(-1.5)', (x) => x.leakyRelu(-1.5), (a) => M.leakyRelu(a, -1.5), ARITH],
    ['elu', 'elu(0.5)', (x) => x.elu(0.5), (a) => M.elu(a, 0.5), TRANS],
    ['softplus', 'softplus(beta 2, threshold 5)', (x) => x.softplus(2, 5), (a) => M.softplus(a, 2, 5), TRANS],
    ['softplus', 'softplus(beta 0.5, threshold 20)', (x) => x.softplus(0.5, 20), (a) => M.softplus(a, 0.5, 20), TRANS],
  ];
  for (const [op, label, call, ref, tol] of params) {
    const a = randWith(new Rng(label), [4, 5], (r) => r.float(-6, 6));
    out.push(value(label, op, tol, (b) => call(ft(b, a)), () => ex(R.map([a], ref))));
    const sp = f32([SPECIALS.length], SPECIALS);
    out.push(value(`${label} special values`, op, tol, (b) => call(ft(b, sp)), () => ex(R.map([sp], ref))));
  }
}

interface BinarySpec {
  readonly ref: (a: number, b: number) => number;
  readonly call: (x: FT, y: FT | number) => FT;
  readonly a: (r: Rng) => number;
  readonly b: (r: Rng) => number;
  readonly tol: Tol;
  readonly scalars: readonly number[];
}

const BINARY: Record<string, BinarySpec> = {
  atan2: { ref: Math.atan2, call: (x, y) => x.atan2(y), a: (r) => r.float(-5, 5), b: (r) => r.float(-5, 5), tol: TRANS, scalars: [2, -0.5, 0] },
  hypot: { ref: M.hypot, call: (x, y) => x.hypot(y), a: (r) => r.float(-5, 5), b: (r) => r.float(-5, 5), tol: TRANS, scalars: [3, -1e-3] },
  copysign: { ref: M.copysign, call: (x, y) => x.copysign(y), a: (r) => r.float(-5, 5), b: (r) => r.float(-5, 5), tol: EXACT, scalars: [-1, 2, -0] },
  logaddexp: { ref: M.logaddexp, call: (x, y) => x.logaddexp(y), a: (r) => r.float(-30, 30), b: (r) => r.float(-30, 30), tol: TRANS, scalars: [0, -100] },
  xlogy: { ref: M.xlogy, call: (x, y) => x.xlogy(y), a: (r) => (r.next() < 0.2 ? 0 : r.float(-3, 3)), b: (r) => r.float(0.01, 10), tol: TRANS, scalars: [2.5, 0] },
  xlog1py: { ref: M.xlog1py, call: (x, y) => x.xlog1py(y), a: (r) => (r.next() < 0.2 ? 0 : r.float(-3, 3)), b: (r) => r.float(-0.99, 10), tol: TRANS, scalars: [2.5, -1, 1e-7] },
  fmax: { ref: M.fmax, call: (x, y) => x.fmax(y), a: (r) => (r.next() < 0.2 ? NaN : r.float(-5, 5)), b: (r) => (r.next() < 0.2 ? NaN : r.float(-5, 5)), tol: EXACT, scalars: [0.5, NaN, -Infinity] },
  fmin: { ref: M.fmin, call: (x, y) => x.fmin(y), a: (r) => (r.next() < 0.2 ? NaN : r.float(-5, 5)), b: (r) => (r.next() < 0.2 ? NaN : r.float(-5, 5)), tol: EXACT, scalars: [0.5, NaN, Infinity] },
  // C fmod is exact: JS's % is that operation on the float32 operands (a scalar is taken as float32, as torch's).
  fmod: { ref: (a, b) => a % Math.fround(b), call: (x, y) => x.fmod(y), a: (r) => r.float(-1e4, 1e4), b: (r) => r.float(-7, 7), tol: EXACT, scalars: [1.5, -0.1, Infinity] },
  divTrunc: { ref: (a, b) => Math.trunc(a / b), call: (x, y) => x.div(y, 'trunc'), a: (r) => r.float(-50, 50), b: (r) => r.float(-7, 7), tol: EXACT, scalars: [3, -0.75] },
  divFloor: { ref: M.divFloor, call: (x, y) => x.div(y, 'floor'), a: (r) => r.float(-50, 50), b: (r) => r.float(-7, 7), tol: EXACT, scalars: [3, -0.75, -Infinity] },
};

const PAIRS: ReadonlyArray<readonly [number[], number[]]> = [
  [[3, 4], [3, 4]],
  [[2, 1, 4], [3, 1]],
  [[], [5]],
];

/** Every special value against every other (10 x 10, as [10, 1] x [10]). */
const GRID = f32([10, 1], SPECIALS);
const GRID_T = f32([10], SPECIALS);

function binaryCases(out: Case[]): void {
  for (const [op, s] of Object.entries(BINARY)) {
    for (const [sa, sb] of PAIRS) {
      const name = `${op} ${fmtShape(sa)}x${fmtShape(sb)}`;
      const rng = new Rng(name);
      const a = randWith(rng, sa, s.a);
      const b = randWith(rng, sb, s.b);
      out.push(value(name, op, s.tol, (be) => s.call(ft(be, a), ft(be, b)), () => ex(R.map([a, b], s.ref))));
    }
    for (const k of s.scalars) {
      const name = `${op} scalar ${Object.is(k, -0) ? '-0' : k}`;
      const a = randWith(new Rng(name), [3, 5], s.a);
      out.push(value(name, op, s.tol, (be) => s.call(ft(be, a), k), () => ex(R.map([a], (x) => s.ref(x, k)))));
    }
    out.push(value(`${op} special values grid`, op, s.tol, (be) => s.call(ft(be, GRID), ft(be, GRID_T)), () => ex(R.map([GRID, GRID_T], s.ref))));
  }
  {
    // Large magnitudes: hypot and logaddexp must not overflow or cancel.
    const a = f32([4], [3e38, 1e-30, -2e38, 80]);
    const b = f32([4], [3e38, 1e-30, 1e38, 85]);
    out.push(value('hypot large and tiny magnitudes', 'hypot', TRANS, (be) => ft(be, a).hypot(ft(be, b)), () => ex(R.map([a, b], M.hypot))));
    const c = f32([4], [1000, -1000, 88, 1e30]);
    const d = f32([4], [999, -1001, 89, 1e30]);
    out.push(value('logaddexp large magnitudes', 'logaddexp', TRANS, (be) => ft(be, c).logaddexp(ft(be, d)), () => ex(R.map([c, d], M.logaddexp))));
  }
}

export function mathCases(): Case[] {
  const out: Case[] = [];
  unaryCases(out);
  binaryCases(out);
  return out;
}
