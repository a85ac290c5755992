/** Creation (fromData, zeros, ones, full, arange, random) and casts. */
import type { Backend } from '../../../src/backends/backend.js';
import type { DType } from '../../../src/ir/dtype.js';
import { Distribution, arange, fromData, full, ones, random, zeros } from '../../../src/tensor/creation.js';
import type { Tensor } from '../../../src/tensor/tensor.js';
import { ConformanceError, EXACT, assert, compare, type Expected, type Tol } from '../harness.js';
import * as R from '../ref.js';
import { bt, ex, f32, ft, it, value, check, type Case } from './util.js';

function creation(out: Case[]): void {
  const c = (name: string, op: string, build: (b: Backend) => Tensor<Backend>, want: Expected, tol: Tol = EXACT) => out.push(value(name, op, tol, build, () => want));
  c('fromData nested float', 'fromData', (b) => fromData(b, [[1.5, 2], [3, -4], [0.1, 1e-3]]), ex(f32([3, 2], [1.5, 2, 3, -4, 0.1, 1e-3])));
  c('fromData nested with dtype int32 truncates', 'fromData', (b) => fromData(b, [[1.7, -2.7, 3]], { dtype: 'int32' }), ex(R.arr([1, 3], [1, -2, 3]), 'int32'));
  c('fromData nested booleans', 'fromData', (b) => fromData(b, [[true, false], [false, true]]), ex(R.arr([2, 2], [1, 0, 0, 1]), 'bool'));
  c('fromData Float32Array with shape', 'fromData', (b) => fromData(b, new Float32Array([1, 2, 3, 4, 5, 6]), { shape: [2, 3] }), ex(R.arr([2, 3], [1, 2, 3, 4, 5, 6])));
  c('fromData Int32Array', 'fromData', (b) => fromData(b, new Int32Array([-7, 0, 2147483647])), ex(R.arr([3], [-7, 0, 2147483647]), 'int32'));
  c('fromData Uint8Array', 'fromData', (b) => fromData(b, new Uint8Array([0, 1, 1])), ex(R.arr([3], [0, 1, 1]), 'bool'));
  c('fromData rank-0 number', 'fromData', (b) => fromData(b, 3.25), ex(R.arr([], [3.25])));
  c('fromData empty [0,3]', 'fromData', (b) => fromData(b, new Float32Array(0), { shape: [0, 3] }), ex(R.arr([0, 3], [])));
  c('fromData NaN and infinities', 'fromData', (b) => fromData(b, [NaN, Infinity, -Infinity, -0]), ex(R.arr([4], [NaN, Infinity, -Infinity, -0])));
  c('zeros [2,3]', 'full', (b) => zeros(b, [2, 3]), ex(R.arr([2, 3], [0, 0, 0, 0, 0, 0])));
  c('zeros int32 [4]', 'full', (b) => zeros(b, [4], { dtype: 'int32' }), ex(R.arr([4], [0, 0, 0, 0]), 'int32'));
  c('ones [2,2]', 'full', (b) => ones(b, [2, 2]), ex(R.arr([2, 2], [1, 1, 1, 1])));
  c('ones bool [3]', 'full', (b) => ones(b, [3], { dtype: 'bool' }), ex(R.arr([3], [1, 1, 1]), 'bool'));
  c('full [2,2] 7.25', 'full', (b) => full(b, [2, 2], 7.25), ex(R.arr([2, 2], [7.25, 7.25, 7.25, 7.25])));
  c('full 0.1 rounds to float32', 'full', (b) => full(b, [2], 0.1), ex(f32([2], [0.1, 0.1])));
  c('full int32 -3', 'full', (b) => full(b, [3], -3, { dtype: 'int32' }), ex(R.arr([3], [-3, -3, -3]), 'int32'));
  c('full bool from 2', 'full', (b) => full(b, [2], 2, { dtype: 'bool' }), ex(R.arr([2], [1, 1]), 'bool'));
  c('full rank-0', 'full', (b) => full(b, [], -1.5), ex(R.arr([], [-1.5])));
  c('full empty [0,2]', 'full', (b) => full(b, [0, 2], 4), ex(R.arr([0, 2], [])));
  c('full NaN', 'full', (b) => full(b, [3], NaN), ex(R.arr([3], [NaN, NaN, NaN])));
  c('full -inf', 'full', (b) => full(b, [2], -Infinity), ex(R.arr([2], [-Infinity, -Infinity])));
  c('full large [300,500]', 'full', (b) => full(b, [300, 500], 2.5), ex(R.arr([300, 500], new Array<number>(150000).fill(2.5))));

  // arange: [start, end) with step; int32 when every argument is an integer.
  const ar = (start: number, end: number, step: number) => {
    const n = Math.max(0, Math.ceil((end - start) / step));
    return Array.from({ length: n }, (_, i) => start + i * step);
  };
  const AR_TOL: Tol = { abs: 1e-6, rel: 1e-6 };
  c('arange(5)', 'arange', (b) => arange(b, 5), ex(R.arr([5], ar(0, 5, 1)), 'int32'));
  c('arange(2, 9, 3)', 'arange', (b) => arange(b, 2, 9, 3), ex(R.arr([3], ar(2, 9, 3)), 'int32'));
  c('arange(5, -3, -2)', 'arange', (b) => arange(b, 5, -3, -2), ex(R.arr([4], ar(5, -3, -2)), 'int32'));
  c('arange(-3, 4) int32', 'arange', (b) => arange(b, -3, 4), ex(R.arr([7], ar(-3, 4, 1)), 'int32'));
  c('arange(0, 1, 0.1) float', 'arange', (b) => arange(b, 0, 1, 0.1), ex(R.arr([10], ar(0, 1, 0.1))), AR_TOL);
  c('arange(1.5, -1, -0.5) float', 'arange', (b) => arange(b, 1.5, -1, -0.5), ex(R.arr([5], ar(1.5, -1, -0.5))), AR_TOL);
  c('arange(-2.5, 2.5, 1.25) float', 'arange', (b) => arange(b, -2.5, 2.5, 1.25), ex(R.arr([4], ar(-2.5, 2.5, 1.25))), AR_TOL);
  c('arange(0, 5, 1) dtype float32', 'arange', (b) => arange(b, 0, 5, 1, { dtype: 'float32' }), ex(R.arr([5], ar(0, 5, 1))));
  c('arange(3, 3) empty', 'arange', (b) => arange(b, 3, 3), ex(R.arr([0], []), 'int32'));
  c('arange(10, 0) empty (positive step)', 'arange', (b) => arange(b, 10, 0), ex(R.arr([0], []), 'int32'));
  c('arange(0, 1000, 1) long', 'arange', (b) => arange(b, 0, 1000), ex(R.arr([1000], ar(0, 1000, 1)), 'int32'));
}

async function values(t: Tensor<Backend>): Promise<{ shape: number[]; dtype: DType; values: ArrayLike<number> }> {
  try {
    return await t.toData();
  } finally {
    t.dispose();
  }
}

function stats(v: ArrayLike<number>): { mean: number; std: number; min: number; max: number } {
  let s = 0;
  let mn = Infinity;
  let mx = -Infinity;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    s += x;
    if (x < mn) mn = x;
    if (x > mx) mx = x;
  }
  const mean = s / v.length;
  let q = 0;
  for (let i = 0; i < v.length; i++) q += (v[i]! - mean) ** 2;
  return { mean, std: Math.sqrt(q / (v.length - 1)), min: mn, max: mx };
}

function shapeIs(name: string, got: readonly number[], want: readonly number[]): void {
  assert(got.length === want.length && got.every((d, i) => d === want[i]), `${name}: shape [${got.join(',')}], expected [${want.join(',')}]`);
}

function randomCases(out: Case[]): void {
  const STAT: Tol = { abs: 0, rel: 0 };
  out.push(
    check('random default is uniform in [0,1)', 'random', STAT, async (b) => {
      b.seed(11);
      const d = await values(random(b, [40, 25]));
      shapeIs('random default', d.shape, [40, 25]);
      assert(d.dtype === 'float32', `random default: dtype ${d.dtype}`);
      const s = stats(d.values);
      assert(s.min >= 0 && s.max < 1, `random default: values in [${s.min}, ${s.max}], expected [0, 1)`);
      assert(Math.abs(s.mean - 0.5) < 0.03, `random default: mean ${s.mean}, expected about 0.5`);
    }),
  );
  out.push(
    check('random Uniform(-2, 3) range and mean', 'random', STAT, async (b) => {
      b.seed(12);
      const d = await values(random(b, [100, 100], Distribution.Uniform(-2, 3)));
      shapeIs('Uniform', d.shape, [100, 100]);
      const s = stats(d.values);
      assert(s.min >= -2 && s.max < 3, `Uniform(-2, 3): values in [${s.min}, ${s.max}], expected [-2, 3)`);
      assert(s.min < -1.9 && s.max > 2.9, `Uniform(-2, 3): values cover only [${s.min}, ${s.max}]`);
      assert(Math.abs(s.mean - 0.5) < 0.06, `Uniform(-2, 3): mean ${s.mean}, expected about 0.5`);
      assert(Math.abs(s.std - 5 / Math.sqrt(12)) < 0.06, `Uniform(-2, 3): std ${s.std}, expected about ${5 / Math.sqrt(12)}`);
    }),
  );
  out.push(
    check('random Normal(1.5, 2) mean and std over 10k', 'random', STAT, async (b) => {
      b.seed(13);
      const d = await values(random(b, [10000], Distribution.Normal(1.5, 2)));
      shapeIs('Normal', d.shape, [10000]);
      const s = stats(d.values);
      assert(Math.abs(s.mean - 1.5) < 0.1, `Normal(1.5, 2): mean ${s.mean}, expected 1.5 +- 0.1`);
      assert(Math.abs(s.std - 2) < 0.1, `Normal(1.5, 2): std ${s.std}, expected 2 +- 0.1`);
      let within = 0;
      for (let i = 0; i < d.values.length; i++) if (Math.abs(d.values[i]! - 1.5) < 2) within++;
      const frac = within / d.values.length;
      assert(Math.abs(frac - 0.6827) < 0.03, `Normal(1.5, 2): ${frac} of values within one std, expected about 0.683`);
      for (let i = 0; i < d.values.length; i++) assert(Number.isFinite(d.values[i]!), `Normal: value ${i} is ${d.values[i]}`);
    }),
  );
  out.push(
    check('random Bernoulli(0.3) values in {0,1}', 'random', STAT, async (b) => {
      b.seed(14);
      const d = await values(random(b, [100, 100], Distribution.Bernoulli(0.3)));
      shapeIs('Bernoulli', d.shape, [100, 100]);
      assert(d.dtype === 'float32', `Bernoulli: dtype ${d.dtype}, expected float32`);
      for (let i = 0; i < d.values.length; i++) assert(d.values[i] === 0 || d.values[i] === 1, `Bernoulli: value ${i} is ${d.values[i]}`);
      const s = stats(d.values);
      assert(Math.abs(s.mean - 0.3) < 0.03, `Bernoulli(0.3): mean ${s.mean}, expected 0.3 +- 0.03`);
    }),
  );
  out.push(
    check('random Bernoulli(0) and Bernoulli(1)', 'random', STAT, async (b) => {
      const z = await values(random(b, [500], Distribution.Bernoulli(0)));
      const o = await values(random(b, [500], Distribution.Bernoulli(1)));
      for (let i = 0; i < 500; i++) {
        assert(z.values[i] === 0, `Bernoulli(0): value ${i} is ${z.values[i]}`);
        assert(o.values[i] === 1, `Bernoulli(1): value ${i} is ${o.values[i]}`);
      }
    }),
  );
  out.push(
    check('random Uniform(4, 4) is constant', 'random', STAT, async (b) => {
      const d = await values(random(b, [50], Distribution.Uniform(4, 4)));
      for (let i = 0; i < 50; i++) assert(d.values[i] === 4, `Uniform(4, 4): value ${i} is ${d.values[i]}`);
    }),
  );
  out.push(
    check('random seed(n) replays the stream', 'random', STAT, async (b) => {
      for (const dist of [Distribution.Default, Distribution.Normal(0, 1), Distribution.Uniform(-1, 1), Distribution.Bernoulli(0.5)]) {
        b.seed(123);
        const a1 = await values(random(b, [257], dist));
        const a2 = await values(random(b, [3, 5], dist));
        b.seed(123);
        const b1 = await values(random(b, [257], dist));
        const b2 = await values(random(b, [3, 5], dist));
        compare(`seed replay ${dist.kind} (first draw)`, b1, { shape: a1.shape, dtype: 'float32', values: Array.from(a1.values) }, EXACT);
        compare(`seed replay ${dist.kind} (second draw)`, b2, { shape: a2.shape, dtype: 'float32', values: Array.from(a2.values) }, EXACT);
        if (dist.kind !== 'bernoulli') {
          let same = 0;
          for (let i = 0; i < 15; i++) if (a1.values[i] === a2.values[i]) same++;
          assert(same < 3, `seed ${dist.kind}: the second draw repeats the first (${same} of 15 equal)`);
        }
      }
    }),
  );
  out.push(
    check('random Uniform(1000, 1001) stays below high after float32 rounding', 'random', STAT, async (b) => {
      // The float32 spacing near 1001 is 6e-5: low + (high - low) * u rounds up to high unless the kernel guards it.
      b.seed(5);
      const d = await values(random(b, [100000], Distribution.Uniform(1000, 1001)));
      let atHigh = 0;
      let below = 0;
      for (let i = 0; i < d.values.length; i++) {
        if (d.values[i]! >= 1001) atHigh++;
        if (d.values[i]! < 1000) below++;
      }
      assert(atHigh === 0 && below === 0, `Uniform(1000, 1001): ${atHigh} values >= high and ${below} below low of ${d.values.length}; expected all in [1000, 1001)`);
    }),
  );
  out.push(
    check('random stream: a small draw is a prefix of a large one', 'random', STAT, async (b) => {
      // Counter-based streams: element i depends only on (seed, position), not on how the op is split.
      for (const dist of [Distribution.Default, Distribution.Normal(0, 1)]) {
        b.seed(77);
        const big = await values(random(b, [200000], dist));
        b.seed(77);
        const small = await values(random(b, [17], dist));
        compare(`random prefix ${dist.kind}`, small, { shape: [17], dtype: 'float32', values: Array.from(big.values).slice(0, 17) }, EXACT);
      }
    }),
  );
  out.push(
    check('random different seeds differ', 'random', STAT, async (b) => {
      b.seed(1);
      const x = await values(random(b, [64]));
      b.seed(2);
      const y = await values(random(b, [64]));
      let same = 0;
      for (let i = 0; i < 64; i++) if (x.values[i] === y.values[i]) same++;
      assert(same < 4, `seeds 1 and 2 give ${same} of 64 equal values`);
    }),
  );
  out.push(
    check('random rank-0 and empty shapes', 'random', STAT, async (b) => {
      const s = await values(random(b, []));
      shapeIs('random rank-0', s.shape, []);
      assert(s.values.length === 1 && s.values[0]! >= 0 && s.values[0]! < 1, `random rank-0: ${Array.from(s.values).join(',')}`);
      const e = await values(random(b, [0, 4], Distribution.Normal(0, 1)));
      shapeIs('random empty', e.shape, [0, 4]);
      if (e.values.length !== 0) throw new ConformanceError(`random empty: ${e.values.length} values`);
    }),
  );
}

function castCases(out: Case[]): void {
  const F = f32([12], [1.7, -1.7, 2.5, -2.5, 0, -0, NaN, 1e9, -1e9, 0.9999, -0.9999, 123456.789]);
  out.push(value('cast float32 to int32 truncates, NaN -> 0', 'cast', EXACT, (b) => ft(b, F).cast('int32'), () => ex(R.map([F], R.truncToInt), 'int32')));
  const FB = f32([9], [0, -0, 1.5, -2, NaN, Infinity, -Infinity, 1e-30, 0.5]);
  out.push(value('cast float32 to bool is x != 0, NaN -> true', 'cast', EXACT, (b) => ft(b, FB).cast('bool'), () => ex(R.map([FB], (x) => (x !== 0 ? 1 : 0)), 'bool')));
  const I = R.arr([6], [-5, 0, 7, 16777217, 2147483647, -2147483648]);
  out.push(value('cast int32 to float32', 'cast', EXACT, (b) => it(b, I).cast('float32'), () => ex(R.map([I], (x) => x))));
  out.push(value('cast int32 to bool', 'cast', EXACT, (b) => it(b, I).cast('bool'), () => ex(R.map([I], (x) => (x !== 0 ? 1 : 0)), 'bool')));
  const B = R.arr([4], [0, 1, 1, 0]);
  out.push(value('cast bool to float32', 'cast', EXACT, (b) => bt(b, B).cast('float32'), () => ex(B)));
  out.push(value('cast bool to int32', 'cast', EXACT, (b) => bt(b, B).cast('int32'), () => ex(B, 'int32')));
  out.push(value('cast float32 to float32', 'cast', EXACT, (b) => ft(b, F).cast('float32'), () => ex(F)));
  out.push(value('cast int32 to int32', 'cast', EXACT, (b) => it(b, I).cast('int32'), () => ex(I, 'int32')));
  out.push(value('cast bool to bool', 'cast', EXACT, (b) => bt(b, B).cast('bool'), () => ex(B, 'bool')));
  const r = f32([2, 3], [-3.9, 3.9, 0.5, -0.5, 100.5, -100.5]);
  out.push(value('cast float32 to int32 to float32', 'cast', EXACT, (b) => ft(b, r).cast('int32').cast('float32'), () => ex(R.map([r], Math.trunc))));
}

export function creationCases(): Case[] {
  const out: Case[] = [];
  creation(out);
  randomCases(out);
  castCases(out);
  return out;
}
