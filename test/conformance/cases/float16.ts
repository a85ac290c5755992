/**
 * float16 tensors through every op family: inputs are float16 values (float64 draws rounded to
 * float16), references are float64 on those values, rounded to float16 by the comparison
 * (harness.ts `halfTol` states the tolerance rule).
 */
import type { Backend } from '../../../src/backends/backend.js';
import { roundHalf } from '../../../src/ir/half.js';
import { arange, eye, fromData, full, linspace, zeros } from '../../../src/tensor/creation.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import { ARITH, EXACT, TRANS, accTol, fmtShape, halfTol } from '../harness.js';
import * as R from '../ref.js';
import { Rng } from '../rng.js';
import { FLOAT_BINARY, FLOAT_UNARY } from './elementwise.js';
import { callReduce, type ReduceName } from './reduce.js';
import { ex, ft, it, randWith, value, type Case, type FT } from './util.js';

/** A float16 tensor of the values of `a` (already float16 values). */
export function ht(b: Backend, a: R.Arr): FT {
  return fromData(b, Float32Array.from(a.data), { shape: a.shape, dtype: 'float16' });
}

/** Values rounded to float16: the inputs every reference starts from. */
export function halves(a: R.Arr): R.Arr {
  return { shape: a.shape, data: a.data.map(roundHalf) };
}

function randH(rng: Rng, shape: readonly number[], gen: (r: Rng) => number = (r) => r.float(-1, 1)): R.Arr {
  return halves(randWith(rng, shape, gen));
}

function elementwise(out: Case[]): void {
  for (const [op, s] of Object.entries(FLOAT_UNARY)) {
    const name = `float16 ${op}`;
    const a = randH(new Rng(name), [4, 7], s.gen);
    const want = () => ex(R.map([a], s.ref), s.bool ? 'bool' : 'float16');
    out.push(value(name, op, s.bool ? EXACT : halfTol(s.tol), (b) => s.call(ht(b, a)), want));
  }
  for (const [op, s] of Object.entries(FLOAT_BINARY)) {
    for (const [sa, sb] of [
      [[3, 5], [3, 5]],
      [[2, 1, 5], [3, 1]],
    ] as const) {
      const name = `float16 ${op} ${fmtShape(sa)}x${fmtShape(sb)}`;
      const rng = new Rng(name);
      const a = randH(rng, sa, s.a);
      const c = randH(rng, sb, s.b);
      out.push(value(name, op, halfTol(s.tol), (b) => s.call(ht(b, a), ht(b, c)), () => ex(R.map([a, c], s.ref), 'float16')));
    }
    const k = s.scalars[0]!;
    const name = `float16 ${op} scalar ${k}`;
    const a = randH(new Rng(name), [9], s.a);
    out.push(value(name, op, halfTol(s.tol), (b) => s.call(ht(b, a), k), () => ex(R.map([a], (x) => s.ref(x, roundHalf(k))), 'float16')));
  }
  // Results beyond the float16 range overflow to infinity; tiny ones become subnormals or 0.
  {
    const a = halves({ shape: [6], data: [300, -300, 65504, 1e-3, 6e-5, -2e-4] });
    const c = halves({ shape: [6], data: [300, 300, 2, 1e-3, 0.25, 1e-3] });
    out.push(value('float16 mul overflow and subnormals', 'mul', halfTol(ARITH), (b) => ht(b, a).mul(ht(b, c)), () => ex(R.map([a, c], (x, y) => x * y), 'float16')));
  }
  {
    const a = halves({ shape: [8], data: [-2, -0.5, 0, 0.5, 1, 2, 3, NaN] });
    const c = halves({ shape: [8], data: [1, -0.5, 0, 1, 1, -2, 2.5, 0] });
    for (const op of ['greater', 'equal', 'lowerEqual'] as const) {
      const ref = op === 'greater' ? (x: number, y: number) => +(x > y) : op === 'equal' ? (x: number, y: number) => +(x === y) : (x: number, y: number) => +(x <= y);
      out.push(value(`float16 ${op}`, op, EXACT, (b) => ht(b, a)[op](ht(b, c)), () => ex(R.map([a, c], ref), 'bool')));
    }
    out.push(
      value('float16 where', 'where', EXACT, (b) => ht(b, a).where(ht(b, a).greater(ht(b, c)), ht(b, c)), () => ex(R.map([a, c], (x, y) => (x > y ? x : y)), 'float16')),
    );
    out.push(value('float16 clamp', 'clamp', EXACT, (b) => ht(b, a).clamp(-0.5, 2.25), () => ex(R.map([a], (x) => (Number.isNaN(x) ? NaN : Math.min(2.25, Math.max(-0.5, x)))), 'float16')));
  }
}

function casts(out: Case[]): void {
  const raw: R.Arr = { shape: [2, 5], data: [0.1, -2.7, 65519, 70000, -1e-8, 3.5, 1e-6, 2049, 0, NaN] };
  const a = halves(raw);
  out.push(value('float16 cast from float32 rounds to nearest even', 'cast', EXACT, (b) => ft(b, raw).cast('float16'), () => ex(a, 'float16')));
  out.push(value('float16 cast to float32 is exact', 'cast', EXACT, (b) => ht(b, a).cast('float32'), () => ex(a, 'float32')));
  // Infinity to int32 differs between backends (as in torch): finite values and NaN only.
  const finite = halves({ shape: [6], data: [0.1, -2.7, 65504, -1e-8, 2049, NaN] });
  out.push(value('float16 cast to int32 truncates', 'cast', EXACT, (b) => ht(b, finite).cast('int32'), () => ex(R.map([finite], R.truncToInt), 'int32')));
  out.push(value('float16 cast to bool', 'cast', EXACT, (b) => ht(b, a).cast('bool'), () => ex(R.map([a], (x) => +(x !== 0)), 'bool')));
  const ints: R.Arr = { shape: [4], data: [1, -2049, 4097, 100000] };
  out.push(value('float16 cast from int32', 'cast', EXACT, (b) => fromData(b, Int32Array.from(ints.data)).cast('float16'), () => ex(halves(ints), 'float16')));
  out.push(value('float16 cast from bool', 'cast', EXACT, (b) => fromData(b, [true, false]).cast('float16'), () => ex({ shape: [2], data: [1, 0] }, 'float16')));
  // A fused chain rounds at each float16 step, not only at its store: 2049 * 3 = 6147 is 6144 in float16.
  const chain: R.Arr = { shape: [3], data: [2049, 0.1, -1.7].map(Math.fround) };
  out.push(
    value('float16 cast round trip inside a chain', 'cast', ARITH, (b) => ft(b, chain).mul(3).cast('float16').cast('float32').mul(0.5), () => ex(R.map([chain], (x) => roundHalf(Math.fround(x * 3)) * 0.5), 'float32')),
  );
}

function reductions(out: Case[]): void {
  const ops: ReduceName[] = ['sum', 'mean', 'max', 'min', 'prod', 'argmax', 'argmin'];
  for (const op of ops) {
    for (const [shape, dim] of [
      [[3, 40], 1],
      [[5, 4, 3], 0],
      [[300], undefined],
    ] as const) {
      const name = `float16 ${op} ${fmtShape(shape)} dim ${dim ?? 'all'}`;
      const a = randH(new Rng(name), shape, op === 'prod' ? (r) => r.float(0.8, 1.25) : (r) => r.float(-1, 1));
      const n = dim === undefined ? R.size(shape) : shape[dim]!;
      const isIndex = op === 'argmax' || op === 'argmin';
      out.push(value(name, op, isIndex ? EXACT : halfTol(accTol(n)), (b) => callReduce(op, ht(b, a), dim, false), () => ex(R.reduce(a, dim ?? null, false, R.reducers[op]), isIndex ? 'int32' : 'float16')));
    }
  }
  // 4096 ones: a float16 accumulator would stop at 2048; float32 accumulation gets it exact.
  {
    const a: R.Arr = { shape: [4096], data: new Array<number>(4096).fill(1) };
    out.push(value('float16 sum accumulates in float32', 'sum', EXACT, (b) => ht(b, a).sum(), () => ex({ shape: [], data: [4096] }, 'float16')));
  }
  for (const log of [false, true]) {
    const name = `float16 ${log ? 'logSoftmax' : 'softmax'}`;
    const a = randH(new Rng(name), [4, 33], (r) => r.float(-6, 6));
    out.push(value(name, log ? 'logSoftmax' : 'softmax', halfTol(TRANS), (b) => (log ? ht(b, a).logSoftmax(1) : ht(b, a).softmax(1)), () => ex(R.softmax(a, 1, log), 'float16')));
  }
}

function matmuls(out: Case[]): void {
  for (const [sa, sb] of [
    [[3, 4], [4, 5]],
    [[7, 13], [13, 5]],
    [[33, 65], [65, 17]],
    [[2, 3, 40], [40, 9]],
    [[5, 300], [300, 7]],
  ] as const) {
    const name = `float16 matmul ${fmtShape(sa)}x${fmtShape(sb)}`;
    const rng = new Rng(name);
    const a = randH(rng, sa);
    const c = randH(rng, sb);
    out.push(value(name, 'matmul', halfTol(accTol(sa[sa.length - 1]!)), (b) => ht(b, a).matmul(ht(b, c)), () => ex(R.matmul(a, c), 'float16')));
  }
}

function movement(out: Case[]): void {
  const a = randH(new Rng('float16 movement'), [3, 5]);
  out.push(value('float16 transpose then contiguous', 'permute', EXACT, (b) => ht(b, a).transpose().add(0), () => ex(R.permute(a, [1, 0]), 'float16')));
  out.push(value('float16 slice', 'slice', EXACT, (b) => ht(b, a).slice([[1, 3], { start: 0, end: 5, step: 2 }]).add(0), () => ex(R.slice(a, [{ start: 1, stop: 3 }, { start: 0, stop: 5, step: 2 }]), 'float16')));
  // Odd element counts (2-byte elements: buffer sizes and copies need not be multiples of 4).
  const odd = randH(new Rng('float16 odd'), [7]);
  const three: R.Arr = { shape: [3], data: [1, 2, 3] };
  out.push(value('float16 oneHot', 'scatterAdd', EXACT, (b) => it(b, { shape: [3], data: [2, 0, 3] }).oneHot(4, 'float16'), () => ex({ shape: [3, 4], data: [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1] }, 'float16')));
  out.push(value('float16 cat of odd lengths', 'cat', EXACT, (b) => Tensor.cat([ht(b, odd), ht(b, three)]), () => ex(R.cat([odd, three], 0), 'float16')));
  out.push(value('float16 reshape of an odd slice', 'reshape', EXACT, (b) => ht(b, a).slice([[0, 3], [1, 4]]).reshape([9]), () => ex(R.reshape(R.slice(a, [{ start: 0, stop: 3 }, { start: 1, stop: 4 }]), [9]), 'float16')));
  out.push(
    value('float16 full, zeros, arange, linspace, eye', 'full', EXACT, (b) => [full(b, [3], 0.1, { dtype: 'float16' }), zeros(b, [5], { dtype: 'float16' }), arange(b, 0, 2, 0.5, { dtype: 'float16' }), linspace(b, 0, 1, 4, { dtype: 'float16' }), eye(b, 2, 3, { dtype: 'float16' })], () => [
      ex(halves({ shape: [3], data: [0.1, 0.1, 0.1] }), 'float16'),
      ex({ shape: [5], data: [0, 0, 0, 0, 0] }, 'float16'),
      ex({ shape: [4], data: [0, 0.5, 1, 1.5] }, 'float16'),
      ex(halves({ shape: [4], data: [0, 1 / 3, 2 / 3, 1] }), 'float16'),
      ex({ shape: [2, 3], data: [1, 0, 0, 0, 1, 0] }, 'float16'),
    ]),
  );
}

/** `f` applied to each row of a 2-D array. */
function alongRows(a: R.Arr, f: (row: number[]) => number[]): R.Arr {
  const n = a.shape[1]!;
  const data: number[] = [];
  for (let i = 0; i < a.shape[0]!; i++) data.push(...f(a.data.slice(i * n, (i + 1) * n)));
  return { shape: a.shape, data };
}

function ordering(out: Case[]): void {
  const a = randH(new Rng('float16 ordering'), [3, 6], (r) => r.float(-4, 4));
  out.push(
    value('float16 sort and cumsum', 'sort', halfTol(accTol(6)), (b) => {
      const x = ht(b, a);
      return [x.sort(1).values, x.cumsum(1), x.flip([1])];
    }, () => [
      ex(alongRows(a, (line) => [...line].sort((x, y) => x - y)), 'float16'),
      ex(alongRows(a, (line) => line.map((_, i) => line.slice(0, i + 1).reduce((s, v) => s + v, 0))), 'float16'),
      ex(alongRows(a, (line) => [...line].reverse()), 'float16'),
    ]),
  );
}

export function float16Cases(): Case[] {
  const out: Case[] = [];
  elementwise(out);
  casts(out);
  reductions(out);
  matmuls(out);
  movement(out);
  ordering(out);
  return out;
}
