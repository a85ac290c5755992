/** Elementwise families: binary ops with broadcasting, scalar forms, comparisons, logic, where, unary, clamp, int32. */
import { Tensor } from '../../../src/tensor/tensor.js';
import { ARITH, EXACT, TRANS, fmtShape, type Tol } from '../harness.js';
import * as R from '../ref.js';
import type { Arr } from '../ref.js';
import { Rng } from '../rng.js';
import { bt, ex, f32, ft, it, randB, randI, randWith, value, type BT, type Case, type FT, type IT } from './util.js';

type FloatBinary = 'add' | 'sub' | 'mul' | 'div' | 'pow' | 'remainder' | 'maximum' | 'minimum';

interface FloatBinarySpec {
  readonly ref: (a: number, b: number) => number;
  readonly call: (x: FT, y: FT | number) => FT;
  readonly a: (r: Rng) => number;
  readonly b: (r: Rng) => number;
  readonly tol: Tol;
  readonly scalars: readonly number[];
}

const REM_TOL: Tol = { abs: 1e-5, rel: 1e-6 };
/** A few float32 ulp, relative only: for the accuracy cases of the transcendental functions. */
const ULPS: Tol = { abs: 0, rel: 5e-7 };
/** As ULPS; near a root of sin or cos the result is only as good as the reduced argument (absolute). */
const TRIG_ULPS: Tol = { abs: 1e-7, rel: 5e-7 };

export const FLOAT_BINARY: Record<FloatBinary, FloatBinarySpec> = {
  add: { ref: (a, b) => a + b, call: (x, y) => x.add(y), a: (r) => r.float(-10, 10), b: (r) => r.float(-10, 10), tol: ARITH, scalars: [2.5, -0.75] },
  sub: { ref: (a, b) => a - b, call: (x, y) => x.sub(y), a: (r) => r.float(-10, 10), b: (r) => r.float(-10, 10), tol: ARITH, scalars: [2.5, -0.75] },
  mul: { ref: (a, b) => a * b, call: (x, y) => x.mul(y), a: (r) => r.float(-10, 10), b: (r) => r.float(-10, 10), tol: ARITH, scalars: [2.5, -0.75] },
  div: { ref: (a, b) => a / b, call: (x, y) => x.div(y), a: (r) => r.float(-10, 10), b: (r) => r.awayFromZero(0.5, 4), tol: ARITH, scalars: [2.5, -0.75] },
  pow: { ref: R.powF, call: (x, y) => x.pow(y), a: (r) => r.float(0.1, 4), b: (r) => r.float(-2, 2.5), tol: ULPS, scalars: [2, -0.5] },
  remainder: { ref: R.remainderF, call: (x, y) => x.remainder(y), a: (r) => r.float(-10, 10), b: (r) => r.awayFromZero(0.5, 4), tol: REM_TOL, scalars: [2.5, -0.75] },
  maximum: { ref: R.maximumF, call: (x, y) => x.maximum(y), a: (r) => r.float(-10, 10), b: (r) => r.float(-10, 10), tol: EXACT, scalars: [0.25, -0.75] },
  minimum: { ref: R.minimumF, call: (x, y) => x.minimum(y), a: (r) => r.float(-10, 10), b: (r) => r.float(-10, 10), tol: EXACT, scalars: [0.25, -0.75] },
};

const BROADCAST_PAIRS: ReadonlyArray<readonly [number[], number[]]> = [
  [[4], [4]],
  [[3, 4], [3, 4]],
  [[3, 1], [4]],
  [[2, 3, 4], [3, 4]],
  [[2, 1, 4], [1, 3, 1]],
  [[], [2, 3]],
  [[5, 1, 1], []],
  [[1], [2, 2]],
];

type Cmp = 'equal' | 'notEqual' | 'greater' | 'greaterEqual' | 'lower' | 'lowerEqual';

const CMP: Record<Cmp, { ref: (a: number, b: number) => boolean; call: <K extends 'float' | 'int'>(x: Tensor<FT['backend'], K>, y: Tensor<FT['backend'], K> | number) => BT }> = {
  equal: { ref: (a, b) => a === b, call: (x, y) => x.equal(y) },
  notEqual: { ref: (a, b) => a !== b, call: (x, y) => x.notEqual(y) },
  greater: { ref: (a, b) => a > b, call: (x, y) => x.greater(y) },
  greaterEqual: { ref: (a, b) => a >= b, call: (x, y) => x.greaterEqual(y) },
  lower: { ref: (a, b) => a < b, call: (x, y) => x.lower(y) },
  lowerEqual: { ref: (a, b) => a <= b, call: (x, y) => x.lowerEqual(y) },
};

type FloatUnary =
  | 'neg'
  | 'abs'
  | 'exp'
  | 'log'
  | 'log1p'
  | 'sqrt'
  | 'rsqrt'
  | 'sin'
  | 'cos'
  | 'tanh'
  | 'erf'
  | 'sigmoid'
  | 'relu'
  | 'gelu'
  | 'recip'
  | 'square'
  | 'sign'
  | 'isNan'
  | 'isInf';

interface UnarySpec {
  readonly ref: (a: number) => number;
  readonly call: (x: FT) => FT | BT;
  readonly gen: (r: Rng) => number;
  readonly tol: Tol;
  readonly bool?: boolean;
}

const specials = [NaN, Infinity, -Infinity, 0, 1.5, -2];

export const FLOAT_UNARY: Record<FloatUnary, UnarySpec> = {
  neg: { ref: (a) => -a, call: (x) => x.neg(), gen: (r) => r.float(-5, 5), tol: EXACT },
  abs: { ref: Math.abs, call: (x) => x.abs(), gen: (r) => r.float(-5, 5), tol: EXACT },
  exp: { ref: Math.exp, call: (x) => x.exp(), gen: (r) => r.float(-10, 10), tol: ULPS },
  log: { ref: Math.log, call: (x) => x.log(), gen: (r) => r.float(0.01, 100), tol: TRANS },
  log1p: { ref: Math.log1p, call: (x) => x.log1p(), gen: (r) => r.float(-0.9, 5), tol: TRANS },
  sqrt: { ref: Math.sqrt, call: (x) => x.sqrt(), gen: (r) => r.float(0, 100), tol: TRANS },
  rsqrt: { ref: (a) => 1 / Math.sqrt(a), call: (x) => x.rsqrt(), gen: (r) => r.float(0.01, 100), tol: TRANS },
  sin: { ref: Math.sin, call: (x) => x.sin(), gen: (r) => r.float(-10, 10), tol: TRANS },
  cos: { ref: Math.cos, call: (x) => x.cos(), gen: (r) => r.float(-10, 10), tol: TRANS },
  tanh: { ref: Math.tanh, call: (x) => x.tanh(), gen: (r) => r.float(-5, 5), tol: TRANS },
  erf: { ref: R.erf, call: (x) => x.erf(), gen: (r) => r.float(-4, 4), tol: TRANS },
  sigmoid: { ref: R.sigmoid, call: (x) => x.sigmoid(), gen: (r) => r.float(-10, 10), tol: TRANS },
  relu: { ref: (a) => (a > 0 ? a : Number.isNaN(a) ? NaN : 0), call: (x) => x.relu(), gen: (r) => r.float(-5, 5), tol: EXACT },
  gelu: { ref: R.gelu, call: (x) => x.gelu(), gen: (r) => r.float(-5, 5), tol: TRANS },
  recip: { ref: (a) => 1 / a, call: (x) => x.recip(), gen: (r) => r.awayFromZero(0.1, 10), tol: ARITH },
  square: { ref: (a) => a * a, call: (x) => x.square(), gen: (r) => r.float(-5, 5), tol: ARITH },
  sign: { ref: R.signF, call: (x) => x.sign(), gen: (r) => (r.next() < 0.2 ? 0 : r.float(-5, 5)), tol: EXACT },
  isNan: { ref: (a) => (Number.isNaN(a) ? 1 : 0), call: (x) => x.isNan(), gen: (r) => r.pick(specials), tol: EXACT, bool: true },
  isInf: { ref: (a) => (a === Infinity || a === -Infinity ? 1 : 0), call: (x) => x.isInf(), gen: (r) => r.pick(specials), tol: EXACT, bool: true },
};

/** The IEEE special values each unary op meets in the special-value cases. */
const SPECIAL_INPUT = [NaN, Infinity, -Infinity, 0, -0, 1, -1, 0.5, -2, 3];

function floatBinaryCases(out: Case[]): void {
  for (const [op, s] of Object.entries(FLOAT_BINARY) as Array<[FloatBinary, FloatBinarySpec]>) {
    for (const [sa, sb] of BROADCAST_PAIRS) {
      const name = `${op} broadcast ${fmtShape(sa)}x${fmtShape(sb)}`;
      const rng = new Rng(name);
      const a = randWith(rng, sa, s.a);
      const b = randWith(rng, sb, s.b);
      out.push(value(name, op, s.tol, (be) => s.call(ft(be, a), ft(be, b)), () => ex(R.map([a, b], s.ref))));
    }
    for (const k of s.scalars) {
      const name = `${op} scalar ${k}`;
      const a = randWith(new Rng(name), [3, 5], s.a);
      out.push(value(name, op, s.tol, (be) => s.call(ft(be, a), k), () => ex(R.map([a], (x) => s.ref(x, k)))));
    }
  }
  // pow of a negative base with integral exponents is real (torch.pow); a fractional one is NaN.
  {
    const a = f32([6], [-2, -1.5, -3, -0.5, 2, -2]);
    const b = f32([6], [2, 3, -1, 0, 0.5, 0.5]);
    out.push(value('pow negative base', 'pow', ULPS, (be) => ft(be, a).pow(ft(be, b)), () => ex(R.map([a, b], R.powF))));
    out.push(value('pow scalar 3 negative base', 'pow', ULPS, (be) => ft(be, a).pow(3), () => ex(R.map([a], (x) => x ** 3))));
  }
  {
    // C99 / torch.pow special cases (JS Math.pow differs for 1^NaN and (-1)^inf).
    const a = f32([14], [1, NaN, -1, -1, 0, 0, 2, 0.5, 2, -8, Infinity, -Infinity, -0, NaN]);
    const b = f32([14], [NaN, 0, Infinity, -Infinity, -1, 2, Infinity, Infinity, -Infinity, 1 / 3, -1, 3, -1, 1]);
    out.push(value('pow special values (C99 pow)', 'pow', ULPS, (be) => ft(be, a).pow(ft(be, b)), () => ex(R.map([a, b], R.powF))));
  }
  {
    // Subnormal bases: their logarithm is not the smallest normal's (a flushing log2 builtin's).
    const a = f32([6], [1e-45, 1e-40, 3e-39, 1e-45, 1e-40, 3e-39]);
    const b = f32([6], [0.5, 0.5, 0.5, 0.1, 0.1, 0.1]);
    out.push(value('pow of subnormal bases', 'pow', ULPS, (be) => ft(be, a).pow(ft(be, b)), () => ex(R.map([a, b], R.powF))));
  }
  {
    // torch.remainder: fmod, then add the divisor when the signs differ (x % inf is x for x >= 0).
    const a = f32([9], [5, -5, 5, Infinity, -Infinity, NaN, 0, -3.5, 3.5]);
    const b = f32([9], [Infinity, Infinity, 0, 3, 3, 2, -Infinity, -Infinity, -2]);
    out.push(value('remainder special values', 'remainder', EXACT, (be) => ft(be, a).remainder(ft(be, b)), () => ex(R.map([a, b], R.remainderF))));
  }
  {
    // fmod is exact in float32 whatever the quotient: one past 2^24, one past the float range
    // (a quotient computed in float32 is inexact or infinite there), a divisor of 2^-149.
    const a = f32([10], [1, 1e10, 3.4e38, 1, 1e8, -1e10, 7.5, 3.3e38, -123456.789, 0.3]);
    const b = f32([10], [0.1, -3, -3, 1e-45, 7, 3, -1e-3, 1.1e-30, 0.01, -0.1]);
    out.push(value('remainder of large quotients (exact)', 'remainder', EXACT, (be) => ft(be, a).remainder(ft(be, b)), () => ex(R.map([a, b], R.remainderF))));
  }
}

function comparisonCases(out: Case[]): void {
  const tieValues = [-1, 0, 0.5, 1, 2];
  const cmpPairs: ReadonlyArray<readonly [number[], number[]]> = [
    [[3, 4], [3, 4]],
    [[3, 1], [1, 4]],
    [[2, 3], []],
  ];
  for (const [op, s] of Object.entries(CMP) as Array<[Cmp, (typeof CMP)[Cmp]]>) {
    const ref = (x: number, y: number) => (s.ref(x, y) ? 1 : 0);
    for (const [sa, sb] of cmpPairs) {
      const name = `${op} ${fmtShape(sa)}x${fmtShape(sb)}`;
      const rng = new Rng(name);
      const a = randWith(rng, sa, (r) => r.pick(tieValues));
      const b = randWith(rng, sb, (r) => r.pick(tieValues));
      out.push(value(name, op, EXACT, (be) => s.call(ft(be, a), ft(be, b)), () => ex(R.map([a, b], ref), 'bool')));
    }
    {
      const name = `${op} scalar 0.5`;
      const a = randWith(new Rng(name), [4, 3], (r) => r.pick(tieValues));
      out.push(value(name, op, EXACT, (be) => s.call(ft(be, a), 0.5), () => ex(R.map([a], (x) => ref(x, 0.5)), 'bool')));
    }
    {
      // The scalar meets a float32 tensor as float32 (torch: tensor([0.1]) == 0.1 is true).
      const name = `${op} scalar 0.1 compares in float32`;
      const a = f32([5], [0.1, 0.2, 0.30000001192092896, 1 / 3, -0.1]);
      const k = Math.fround(0.1);
      out.push(value(name, op, EXACT, (be) => s.call(ft(be, a), 0.1), () => ex(R.map([a], (x) => ref(x, k)), 'bool')));
    }
    {
      const name = `${op} int32 [3,4]x[4]`;
      const rng = new Rng(name);
      const a = randI(rng, [3, 4], -3, 3);
      const b = randI(rng, [4], -3, 3);
      out.push(value(name, op, EXACT, (be) => s.call(it(be, a), it(be, b)), () => ex(R.map([a, b], ref), 'bool')));
    }
    {
      const name = `${op} int32 scalar 1`;
      const a = randI(new Rng(name), [7], -3, 3);
      out.push(value(name, op, EXACT, (be) => s.call(it(be, a), 1), () => ex(R.map([a], (x) => ref(x, 1)), 'bool')));
    }
  }
  for (const op of ['equal', 'notEqual'] as const) {
    const name = `${op} bool [2,3]x[3]`;
    const rng = new Rng(name);
    const a = randB(rng, [2, 3]);
    const b = randB(rng, [3]);
    const ref = op === 'equal' ? (x: number, y: number) => (x === y ? 1 : 0) : (x: number, y: number) => (x !== y ? 1 : 0);
    out.push(value(name, op, EXACT, (be) => (op === 'equal' ? bt(be, a).equal(bt(be, b)) : bt(be, a).notEqual(bt(be, b))), () => ex(R.map([a, b], ref), 'bool')));
  }
}

function logicalCases(out: Case[]): void {
  const pairs: ReadonlyArray<readonly [number[], number[]]> = [
    [[3, 4], [3, 4]],
    [[3, 1], [4]],
  ];
  for (const op of ['logicalAnd', 'logicalOr'] as const) {
    for (const [sa, sb] of pairs) {
      const name = `${op} ${fmtShape(sa)}x${fmtShape(sb)}`;
      const rng = new Rng(name);
      const a = randB(rng, sa);
      const b = randB(rng, sb);
      const ref = op === 'logicalAnd' ? (x: number, y: number) => (x && y ? 1 : 0) : (x: number, y: number) => (x || y ? 1 : 0);
      out.push(value(name, op, EXACT, (be) => (op === 'logicalAnd' ? bt(be, a).logicalAnd(bt(be, b)) : bt(be, a).logicalOr(bt(be, b))), () => ex(R.map([a, b], ref), 'bool')));
    }
  }
  {
    const a = randB(new Rng('logicalNot'), [2, 5]);
    out.push(value('logicalNot [2,5]', 'logicalNot', EXACT, (be) => bt(be, a).logicalNot(), () => ex(R.map([a], (x) => (x ? 0 : 1)), 'bool')));
  }
  {
    // A bool tensor built by a comparison feeds the logical ops.
    const rng = new Rng('logical chain');
    const a = randWith(rng, [4, 4], (r) => r.float(-1, 1));
    const ref = R.map([a], (x) => (x > 0 && !(x > 0.5) ? 1 : 0));
    out.push(value('logical chain (x>0) and not (x>0.5)', 'logicalAnd', EXACT, (be) => {
      const x = ft(be, a);
      return x.greater(0).logicalAnd(x.greater(0.5).logicalNot());
    }, () => ex(ref, 'bool')));
  }
}

function whereCases(out: Case[]): void {
  const sel = (c: number, x: number, y: number) => (c ? x : y);
  {
    const rng = new Rng('where same');
    const c = randB(rng, [3, 4]);
    const x = randWith(rng, [3, 4], (r) => r.float(-5, 5));
    const y = randWith(rng, [3, 4], (r) => r.float(-5, 5));
    out.push(value('where [3,4]', 'where', EXACT, (be) => ft(be, x).where(bt(be, c), ft(be, y)), () => ex(R.map([c, x, y], sel))));
  }
  {
    const rng = new Rng('where broadcast');
    const c = randB(rng, [3, 1]);
    const x = randWith(rng, [1, 4], (r) => r.float(-5, 5));
    const y = randWith(rng, [2, 3, 4], (r) => r.float(-5, 5));
    out.push(value('where broadcast cond [3,1] x [1,4] y [2,3,4]', 'where', EXACT, (be) => ft(be, x).where(bt(be, c), ft(be, y)), () => ex(R.map([c, x, y], sel))));
  }
  {
    const rng = new Rng('where scalar');
    const c = randB(rng, [2, 5]);
    const x = randWith(rng, [2, 5], (r) => r.float(-5, 5));
    out.push(value('where scalar other -1.5', 'where', EXACT, (be) => ft(be, x).where(bt(be, c), -1.5), () => ex(R.map([c, x], (cc, xx) => (cc ? xx : -1.5)))));
  }
  {
    const rng = new Rng('where int');
    const c = randB(rng, [4]);
    const x = randI(rng, [2, 4]);
    const y = randI(rng, [2, 1]);
    out.push(value('where int32 broadcast', 'where', EXACT, (be) => Tensor.where(bt(be, c), it(be, x), it(be, y)), () => ex(R.map([c, x, y], sel), 'int32')));
  }
  {
    const rng = new Rng('where bool');
    const c = randB(rng, [6]);
    const x = randB(rng, [6]);
    const y = randB(rng, [6]);
    out.push(value('where bool values', 'where', EXACT, (be) => Tensor.where(bt(be, c), bt(be, x), bt(be, y)), () => ex(R.map([c, x, y], sel), 'bool')));
  }
  {
    const rng = new Rng('maskFill');
    const m = randB(rng, [3, 4]);
    const x = randWith(rng, [3, 4], (r) => r.float(-5, 5));
    out.push(value('maskFill [3,4] value 9.5', 'maskFill', EXACT, (be) => ft(be, x).maskFill(bt(be, m), 9.5), () => ex(R.map([m, x], (mm, xx) => (mm ? 9.5 : xx)))));
  }
  {
    const rng = new Rng('maskFill bc');
    const m = randB(rng, [1, 4]);
    const x = randWith(rng, [3, 4], (r) => r.float(-5, 5));
    out.push(value('maskFill broadcast mask [1,4] on [3,4] value -inf', 'maskFill', EXACT, (be) => ft(be, x).maskFill(bt(be, m), -Infinity), () => ex(R.map([m, x], (mm, xx) => (mm ? -Infinity : xx)))));
  }
  {
    const rng = new Rng('maskFill int');
    const m = randB(rng, [2, 3]);
    const x = randI(rng, [2, 3]);
    out.push(value('maskFill int32 value 7', 'maskFill', EXACT, (be) => it(be, x).maskFill(bt(be, m), 7), () => ex(R.map([m, x], (mm, xx) => (mm ? 7 : xx)), 'int32')));
  }
  {
    const rng = new Rng('maskFill nan');
    const m = randB(rng, [5]);
    const x = randWith(rng, [5], (r) => r.float(-5, 5));
    out.push(value('maskFill value NaN', 'maskFill', EXACT, (be) => ft(be, x).maskFill(bt(be, m), NaN), () => ex(R.map([m, x], (mm, xx) => (mm ? NaN : xx)))));
  }
}

function unaryCases(out: Case[]): void {
  for (const [op, s] of Object.entries(FLOAT_UNARY) as Array<[FloatUnary, UnarySpec]>) {
    for (const shape of [[2, 3, 4], []]) {
      const name = `${op} ${fmtShape(shape)}`;
      const a = randWith(new Rng(name), shape, s.gen);
      out.push(value(name, op, s.tol, (be) => s.call(ft(be, a)), () => ex(R.map([a], s.ref), s.bool ? 'bool' : 'float32')));
    }
    if (op === 'gelu') {
      // gelu(-inf) is 0 * -inf: left out, implementations differ. NaN and +inf are clear.
      const a = f32([8], [NaN, Infinity, 0, -0, 1, -1, 0.5, -2]);
      out.push(value(`${op} special values`, op, s.tol, (be) => s.call(ft(be, a)), () => ex(R.map([a], s.ref))));
    } else {
      const a = f32([SPECIAL_INPUT.length], SPECIAL_INPUT);
      out.push(value(`${op} special values`, op, s.tol, (be) => s.call(ft(be, a)), () => ex(R.map([a], s.ref), s.bool ? 'bool' : 'float32')));
    }
  }
  {
    // log1p must be accurate for tiny arguments (log(1 + x) in float32 is not): a relative
    // tolerance of a few ulp, which a correction on (1 + x) - 1 folded away by a driver misses.
    const a = f32([14], [1e-4, -1e-4, 3e-6, -7e-7, 1e-8, 2.5e-5, 1e-7, -3.3e-8, 6.7e-8, -0.29, 0.41, 0.42, -0.3, 1e-30]);
    out.push(value('log1p tiny arguments', 'log1p', ULPS, (be) => ft(be, a).log1p(), () => ex(R.map([a], Math.log1p))));
  }
  {
    // sin, cos and tan over the whole float range: the reduction by pi/2 must be exact far past
    // where a float quotient is (a Cody-Waite reduction needs |x| below ~1e5, a driver's sin ~pi).
    const a = f32([16], [9.4, 3339.5078125, 6433.9, 6434, -8000.25, 1e5, -123456.7, 16777216, 1e10, -1e10, 3.4e38, -3e30, 65504, 1e20, 1.5707964, -4.712389]);
    for (const [op, ref] of [['sin', Math.sin], ['cos', Math.cos], ['tan', Math.tan]] as const) {
      out.push(value(`${op} of large arguments`, op, TRIG_ULPS, (be) => (op === 'sin' ? ft(be, a).sin() : op === 'cos' ? ft(be, a).cos() : ft(be, a).tan()), () => ex(R.map([a], ref))));
    }
  }
  {
    // erf on both sides of the split between its two approximations (0.927734375), tiny, large and
    // huge arguments (where the inner polynomial would overflow), and the value 1 past |x| ~ 3.9.
    const a = f32([12], [0.927734375, 0.92773431, 0.92773443, -0.92773443, 1e-30, -1e-20, 3.9, -5.5, 9.99, 10.5, 1e10, -3e38]);
    out.push(value('erf across its range', 'erf', TRANS, (be) => ft(be, a).erf(), () => ex(R.map([a], R.erf))));
    // Near the bottom of the normal range erf(x) ~ 1.128 x must not underflow on the way.
    const tiny = f32([4], [1e-37, -3e-38, 2e-38, 1.5e-37]);
    out.push(value('erf of tiny arguments', 'erf', ULPS, (be) => ft(be, tiny).erf(), () => ex(R.map([tiny], R.erf))));
  }
  {
    // Large |x|: sigmoid and tanh saturate without NaN; exp overflows to inf in float32.
    const a = f32([6], [-100, -50, 50, 100, 88, -104]);
    out.push(value('sigmoid large |x|', 'sigmoid', TRANS, (be) => ft(be, a).sigmoid(), () => ex(R.map([a], R.sigmoid))));
    out.push(value('tanh large |x|', 'tanh', TRANS, (be) => ft(be, a).tanh(), () => ex(R.map([a], Math.tanh))));
    out.push(value('exp overflow and underflow', 'exp', TRANS, (be) => ft(be, a).exp(), () => ex(R.map([a], Math.exp))));
  }
  {
    // exp over its normal range, pow with large |b log2 a| and bases near 1, in ulp: a float32
    // exp2(b * log2 a) or a driver's exp(x) = exp2(x log2 e) is tens of ulp off here.
    const x = f32([10], [88.72283, 88, -87.33654, -80.5, 60.25, -45.125, 33.3, 20.5, -10.75, 1e-3]);
    out.push(value('exp across its normal range', 'exp', ULPS, (be) => ft(be, x).exp(), () => ex(R.map([x], Math.exp))));
    const a = f32([10], [1.5, 0.75, 1.0001, 0.9999, 1e-6, 1e6, 123.456, -3.5, -0.9, 2]);
    const b = f32([10], [200, -300, 8e5, 7e5, 6, -6, 18.25, 65, -800, 127.99]);
    out.push(value('pow of large exponents', 'pow', ULPS, (be) => ft(be, a).pow(ft(be, b)), () => ex(R.map([a, b], R.powF))));
  }
  const clampRef = (lo: number, hi: number) => (x: number) => (Number.isNaN(x) ? NaN : Math.min(Math.max(x, lo), hi));
  const clamps: ReadonlyArray<readonly [string, (x: FT) => FT, number, number]> = [
    ['clamp(-1, 2)', (x) => x.clamp(-1, 2), -1, 2],
    ['clampMin(0.5)', (x) => x.clampMin(0.5), 0.5, Infinity],
    ['clampMax(-0.25)', (x) => x.clampMax(-0.25), -Infinity, -0.25],
    ['clamp(null, 1)', (x) => x.clamp(null, 1), -Infinity, 1],
  ];
  for (const [label, call, lo, hi] of clamps) {
    const name = `clamp ${label}`;
    const a = randWith(new Rng(name), [3, 5], (r) => r.float(-3, 3));
    out.push(value(name, 'clamp', EXACT, (be) => call(ft(be, a)), () => ex(R.map([a], clampRef(lo, hi)))));
  }
  {
    const a = f32([SPECIAL_INPUT.length], SPECIAL_INPUT);
    out.push(value('clamp special values', 'clamp', EXACT, (be) => ft(be, a).clamp(-1, 2), () => ex(R.map([a], clampRef(-1, 2)))));
  }
}

type IntBinary = 'add' | 'sub' | 'mul' | 'div' | 'remainder' | 'pow' | 'maximum' | 'minimum';

const INT_BINARY: Record<IntBinary, { call: (x: IT, y: IT | number) => IT; a: (r: Rng) => number; b: (r: Rng) => number; scalars: readonly number[] }> = {
  add: { call: (x, y) => x.add(y), a: (r) => r.int(-1000, 1000), b: (r) => r.int(-1000, 1000), scalars: [3] },
  sub: { call: (x, y) => x.sub(y), a: (r) => r.int(-1000, 1000), b: (r) => r.int(-1000, 1000), scalars: [-7] },
  mul: { call: (x, y) => x.mul(y), a: (r) => r.int(-1000, 1000), b: (r) => r.int(-1000, 1000), scalars: [-3] },
  div: { call: (x, y) => x.div(y), a: (r) => r.int(-100, 100), b: (r) => r.int(-7, 7), scalars: [3, -3, 0] },
  remainder: { call: (x, y) => x.remainder(y), a: (r) => r.int(-100, 100), b: (r) => r.pick([-7, -5, -3, -2, -1, 1, 2, 3, 5, 7]), scalars: [3, -3] },
  pow: { call: (x, y) => x.pow(y), a: (r) => r.int(-5, 5), b: (r) => r.int(0, 6), scalars: [2, 3] },
  maximum: { call: (x, y) => x.maximum(y), a: (r) => r.int(-100, 100), b: (r) => r.int(-100, 100), scalars: [0] },
  minimum: { call: (x, y) => x.minimum(y), a: (r) => r.int(-100, 100), b: (r) => r.int(-100, 100), scalars: [5] },
};

const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

function intCases(out: Case[]): void {
  const pairs: ReadonlyArray<readonly [number[], number[]]> = [
    [[3, 4], [3, 4]],
    [[2, 3, 1], [4]],
  ];
  for (const [op, s] of Object.entries(INT_BINARY) as Array<[IntBinary, (typeof INT_BINARY)[IntBinary]]>) {
    for (const [sa, sb] of pairs) {
      const name = `${op} int32 ${fmtShape(sa)}x${fmtShape(sb)}`;
      const rng = new Rng(name);
      const a = randWith(rng, sa, s.a);
      const b = randWith(rng, sb, s.b);
      out.push(value(name, op, EXACT, (be) => s.call(it(be, a), it(be, b)), () => ex(R.map([a, b], R.intOps[op]), 'int32')));
    }
    for (const k of s.scalars) {
      const name = `${op} int32 scalar ${k}`;
      const a = randWith(new Rng(name), [9], s.a);
      out.push(value(name, op, EXACT, (be) => s.call(it(be, a), k), () => ex(R.map([a], (x) => R.intOps[op](x, k)), 'int32')));
    }
  }
  {
    // Floor division and the divisor's sign, spelled out (Python: 7 // -2 == -4, -7 % 2 == 1).
    const a = R.arr([8], [7, -7, 7, -7, 0, 5, -5, 6]);
    const b = R.arr([8], [2, 2, -2, -2, 3, 0, 0, 3]);
    out.push(value('div int32 floors, x/0 = 0', 'div', EXACT, (be) => it(be, a).div(it(be, b)), () => ex(R.map([a, b], R.intOps.div), 'int32')));
    const bn = R.arr([8], [2, 2, -2, -2, 3, 4, -4, 3]);
    out.push(value('remainder int32 takes the divisor sign', 'remainder', EXACT, (be) => it(be, a).remainder(it(be, bn)), () => ex(R.map([a, bn], R.intOps.remainder), 'int32')));
  }
  const wrapCase = (name: string, op: string, build: (be: Parameters<typeof it>[0]) => IT, want: Arr) => out.push(value(name, op, EXACT, build, () => ex(want, 'int32')));
  {
    const a = R.arr([3], [I32_MAX, I32_MIN, 2_000_000_000]);
    const b = R.arr([3], [1, -1, 2_000_000_000]);
    wrapCase('add int32 wraps', 'add', (be) => it(be, a).add(it(be, b)), R.map([a, b], R.intOps.add));
    wrapCase('sub int32 wraps', 'sub', (be) => it(be, b).sub(it(be, a)), R.map([b, a], R.intOps.sub));
    const c = R.arr([4], [65536, 123456789, I32_MIN, -46341]);
    const d = R.arr([4], [65536, 1000, -1, 46341]);
    wrapCase('mul int32 wraps', 'mul', (be) => it(be, c).mul(it(be, d)), R.map([c, d], R.intOps.mul));
    wrapCase('square int32 wraps', 'square', (be) => it(be, c).square(), R.map([c], (x) => R.intOps.mul(x, x)));
    const e = R.arr([3], [I32_MIN, -5, I32_MAX]);
    wrapCase('neg int32 wraps at INT_MIN', 'neg', (be) => it(be, e).neg(), R.map([e], (x) => R.wrap(-BigInt(x))));
    wrapCase('abs int32 wraps at INT_MIN', 'abs', (be) => it(be, e).abs(), R.map([e], (x) => R.wrap(BigInt(Math.abs(x)))));
    const f = R.arr([2], [I32_MIN, I32_MIN]);
    const g = R.arr([2], [-1, 1]);
    wrapCase('div int32 INT_MIN / -1 wraps', 'div', (be) => it(be, f).div(it(be, g)), R.map([f, g], R.intOps.div));
    const p = R.arr([3], [3, 2, -2]);
    const q = R.arr([3], [21, 31, 31]);
    wrapCase('pow int32 wraps', 'pow', (be) => it(be, p).pow(it(be, q)), R.map([p, q], R.intOps.pow));
    const p2 = R.arr([3], [7, 3, 5]);
    const q2 = R.arr([3], [20, 40, 27]);
    wrapCase('pow int32 wraps (results beyond 2^53)', 'pow', (be) => it(be, p2).pow(it(be, q2)), R.map([p2, q2], R.intOps.pow));
    wrapCase('add int32 scalar wraps', 'add', (be) => it(be, R.arr([2], [I32_MAX, 5])).add(1), R.arr([2], [I32_MIN, 6]));
    wrapCase('mul int32 scalar wraps', 'mul', (be) => it(be, R.arr([2], [I32_MAX, 65536])).mul(65536), R.arr([2], [R.intOps.mul(I32_MAX, 65536), 0]));
  }
  const intUnary: ReadonlyArray<readonly [string, (x: IT) => IT, (x: number) => number]> = [
    ['neg', (x) => x.neg(), (x) => -x],
    ['abs', (x) => x.abs(), (x) => Math.abs(x)],
    ['relu', (x) => x.relu(), (x) => Math.max(x, 0)],
    ['square', (x) => x.square(), (x) => x * x],
    ['sign', (x) => x.sign(), (x) => Math.sign(x)],
    ['clamp', (x) => x.clamp(-10, 20), (x) => Math.min(Math.max(x, -10), 20)],
  ];
  for (const [op, call, ref] of intUnary) {
    const name = `${op} int32`;
    const a = randI(new Rng(name), [3, 4], -100, 100);
    out.push(value(name, op, EXACT, (be) => call(it(be, a)), () => ex(R.map([a], ref), 'int32')));
  }
  {
    // Fractional bounds on an int tensor: ceil(min), floor(max).
    const a = R.arr([2, 4], [-3, -2, -1, 0, 6, 7, 8, 100]);
    out.push(value('clamp int32 fractional bounds (-2.5, 7.5)', 'clamp', EXACT, (be) => it(be, a).clamp(-2.5, 7.5), () => ex(R.map([a], (x) => Math.min(Math.max(x, -2), 7)), 'int32')));
  }
}

export function elementwiseCases(): Case[] {
  const out: Case[] = [];
  floatBinaryCases(out);
  comparisonCases(out);
  logicalCases(out);
  whereCases(out);
  unaryCases(out);
  intCases(out);
  return out;
}
