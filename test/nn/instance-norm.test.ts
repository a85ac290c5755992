/**
 * nn.functional.instanceNorm and InstanceNorm1d / InstanceNorm2d on every test backend, against a
 * float64 reference written here (each sample's channel normalised over its positions, biased
 * variance; running statistics blended per instance with the unbiased variance and averaged over
 * the batch, as torch's batch_norm over [1, N C, ...]): values, gradients by finite differences,
 * torch's defaults, float16 statistics in float32, a law, and bad input.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { InstanceNorm1d, InstanceNorm2d } from '../../src/nn/index.js';
import { instanceNorm } from '../../src/nn/functional/index.js';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from '../autodiff/backends.js';
import { untyped } from '../untyped.js';
import { finiteDiff, leaf, mismatch, numel, randoms, valuesAndGrads } from '../unit/ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const f32 = Math.fround;

/** Per (n, c): the positions' values, their mean and biased variance. */
function instances(x: readonly number[], shape: readonly number[]): Array<{ at: number[]; mean: number; variance: number; c: number }> {
  const [n, c] = shape as [number, number];
  const s = numel(shape.slice(2));
  const out = [];
  for (let i = 0; i < n * c; i++) {
    const at = Array.from({ length: s }, (_, k) => i * s + k);
    const mean = at.reduce((a, k) => a + x[k]!, 0) / s;
    const variance = at.reduce((a, k) => a + (x[k]! - mean) ** 2, 0) / s;
    out.push({ at, mean, variance, c: i % c });
  }
  return out;
}

function instanceNorm64(x: readonly number[], shape: readonly number[], eps: number, weight?: readonly number[], bias?: readonly number[]): number[] {
  const y = new Array<number>(x.length).fill(0);
  for (const g of instances(x, shape)) for (const k of g.at) y[k] = ((x[k]! - g.mean) / Math.sqrt(g.variance + eps)) * (weight?.[g.c] ?? 1) + (bias?.[g.c] ?? 0);
  return y;
}

/** torch's running statistics after one training batch: per instance blended, then averaged over the batch. */
function runningAfter(x: readonly number[], shape: readonly number[], m: number, mean0: readonly number[], var0: readonly number[]): { mean: number[]; variance: number[] } {
  const [n, c] = shape as [number, number];
  const s = numel(shape.slice(2));
  const mean = new Array<number>(c).fill(0);
  const variance = new Array<number>(c).fill(0);
  for (const g of instances(x, shape)) {
    mean[g.c] = mean[g.c]! + ((1 - m) * mean0[g.c]! + m * g.mean) / n;
    variance[g.c] = variance[g.c]! + ((1 - m) * var0[g.c]! + m * g.variance * (s / (s - 1))) / n;
  }
  return { mean, variance };
}

for (const tb of backends) {
  describe(`instance normalisation on ${tb.name}`, () => {
    const b = tb.backend;

    it('instanceNorm: values and gradients (input, weight, bias) against float64, [N, C, L] and [N, C, H, W]', async () => {
      for (const [shape, eps] of [[[2, 3, 5], 1e-5], [[2, 2, 3, 4], 0.1], [[1, 1, 2], 1e-5]] as const) {
        const c = shape[1];
        const values = randoms(numel(shape), 3 + shape.length, -3, 3);
        const wv = randoms(c, 8, 0.5, 2);
        const bv = randoms(c, 9, -1, 1);
        const w = randoms(numel(shape), 10, -1, 1);
        const x = leaf(b, values, shape);
        const weight = leaf(b, wv, [c]);
        const bias = leaf(b, bv, [c]);
        const y = instanceNorm(x, { weight, bias, eps });
        expect(y.shape).toEqual(shape);
        const { values: got, grads } = await valuesAndGrads(b, y, [x, weight, bias], w);
        expect(mismatch(got, instanceNorm64(values, shape, f32(eps), wv, bv), 1e-5, 1e-4), `[${shape}]`).toBeUndefined();
        const numeric = finiteDiff(([v, wt, bs]) => instanceNorm64(v!, shape, f32(eps), wt, bs), [values, wv, bv], w);
        // Two positions per instance: the gradient is 0 up to rounding, against a finite difference of rounding noise.
        grads.forEach((g, k) => expect(mismatch(g!, numeric[k]!, 1e-3, 1e-3), `[${shape}] gradient ${k}`).toBeUndefined());
        for (const t of [x, weight, bias, y]) t.dispose();
      }
    });

    it('useInputStats: false normalises with the running statistics', async () => {
      const shape = [2, 2, 3];
      const values = randoms(12, 20);
      const x = fromData(b, values, { shape });
      const y = instanceNorm(x, { runningMean: fromData(b, [0.5, -1]), runningVar: fromData(b, [2, 0.25]), useInputStats: false });
      const expected = values.map((v, i) => {
        const c = Math.floor(i / 3) % 2;
        return (f32(v) - [0.5, -1][c]!) / Math.sqrt([2, 0.25][c]! + f32(1e-5));
      });
      expect(mismatch((await y.toData()).values, expected, 1e-5, 1e-5)).toBeUndefined();
    });

    it("modules take torch's defaults (no affine, no running statistics); unbatched input works; affine parameters train", async () => {
      const plain = new InstanceNorm1d(b, 3);
      expect(plain.numParams()).toBe(0);
      expect(plain.namedParams()).toEqual([]);
      const values = randoms(2 * 3 * 4, 30);
      const x = fromData(b, values, { shape: [2, 3, 4] });
      const y = plain.forward(x);
      expect(mismatch((await y.toData()).values, instanceNorm64(values, [2, 3, 4], f32(1e-5)), 1e-5, 1e-4)).toBeUndefined();
      // eval changes nothing without running statistics.
      plain.eval();
      expect(Array.from((await plain.forward(x).toData()).values)).toEqual(Array.from((await y.toData()).values));
      const one = plain.forward(fromData(b, values.slice(0, 12), { shape: [3, 4] }));
      expect(one.shape).toEqual([3, 4]);
      expect(mismatch((await one.toData()).values, instanceNorm64(values.slice(0, 12), [1, 3, 4], f32(1e-5)), 1e-5, 1e-4)).toBeUndefined();

      const affine = new InstanceNorm2d(b, 2, { affine: true });
      expect(affine.namedParams().map(([n]) => n)).toEqual(['weight', 'bias']);
      const img = leaf(b, randoms(2 * 2 * 3 * 3, 31), [2, 2, 3, 3]);
      const out = affine.forward(img);
      const g = out.mul(img).sum().backward();
      expect(affine.weight!.value.grad(g)?.shape).toEqual([2]);
      expect(affine.bias!.value.grad(g)?.shape).toEqual([2]);
      g.dispose();
    });

    it('trackRunningStats: training blends torch\'s per-instance statistics, eval uses them, momentum null keeps them', async () => {
      const shape = [3, 2, 4];
      const values = randoms(numel(shape), 40, -2, 3);
      const m = new InstanceNorm1d(b, 2, { trackRunningStats: true, momentum: 0.3 });
      expect(m.numParams()).toBe(0);
      const x = fromData(b, values, { shape });
      const y = m.forward(x);
      // Training output: the batch's own statistics.
      expect(mismatch((await y.toData()).values, instanceNorm64(values, shape, f32(1e-5)), 1e-5, 1e-4)).toBeUndefined();
      const want = runningAfter(values, shape, 0.3, [0, 0], [1, 1]);
      expect(mismatch((await m.runningMean!.value.toData()).values, want.mean, 1e-6, 1e-5)).toBeUndefined();
      expect(mismatch((await m.runningVar!.value.toData()).values, want.variance, 1e-6, 1e-5)).toBeUndefined();
      // torch keeps num_batches_tracked for InstanceNorm but never counts.
      expect(await m.numBatchesTracked!.value.item()).toBe(0);
      m.eval();
      const e = await m.forward(x).toData();
      const expected = values.map((v, i) => {
        const c = Math.floor(i / 4) % 2;
        return (v - want.mean[c]!) / Math.sqrt(want.variance[c]! + 1e-5);
      });
      expect(mismatch(e.values, expected, 1e-5, 1e-4)).toBeUndefined();

      const frozen = new InstanceNorm1d(b, 2, { trackRunningStats: true, momentum: null });
      frozen.forward(x);
      expect(Array.from((await frozen.runningMean!.value.toData()).values)).toEqual([0, 0]);
      expect(Array.from((await frozen.runningVar!.value.toData()).values)).toEqual([1, 1]);
    });

    it('float16: statistics in float32 (squares past 65504 stay finite), one rounding to float16', async () => {
      const values = [1000, -1000, 3000, -2500, 2000, 0, -3000, 1500];
      const x = fromData(b, values, { dtype: 'float16', shape: [1, 2, 4] });
      const y = instanceNorm(x, { weight: fromData(b, [1, 2], { dtype: 'float16' }), bias: fromData(b, [0, 0.5], { dtype: 'float16' }) });
      expect(y.dtype).toBe('float16');
      const got = (await y.toData()).values;
      expect(got.every(Number.isFinite)).toBe(true);
      expect(mismatch(got, instanceNorm64(values, [1, 2, 4], 1e-5, [1, 2], [0, 0.5]), 2e-3, 2e-3)).toBeUndefined();
      // Squared deviations of 300 (9e4) overflow float16; the unbiased variance 66667 too; the blend, 6668, does not.
      const small = [300, -300, 100, -100, 200, -200, 0, 0];
      const m = new InstanceNorm1d(b, 2, { trackRunningStats: true });
      m.toDType('float16');
      m.forward(fromData(b, small, { dtype: 'float16', shape: [1, 2, 4] }));
      const rv = await m.runningVar!.value.toData();
      expect(mismatch(rv.values, runningAfter(small, [1, 2, 4], 0.1, [0, 0], [1, 1]).variance, 0, 1e-3)).toBeUndefined();
    });
  });
}

describe('instanceNorm law (fast-check, CPU)', () => {
  const b = backends[0]!.backend;
  it('each instance comes out with mean 0 and biased variance v / (v + eps)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.float({ min: -100, max: 100, noNaN: true }), { minLength: 6, maxLength: 6 }), async (v) => {
        const x = fromData(b, v, { shape: [1, 2, 3] });
        const y = Array.from((await instanceNorm(x).toData()).values);
        for (const g of instances(v.map(f32), [1, 2, 3])) {
          const out = g.at.map((k) => y[k]!);
          const mean = out.reduce((a, q) => a + q, 0) / 3;
          const variance = out.reduce((a, q) => a + (q - mean) ** 2, 0) / 3;
          expect(Math.abs(mean)).toBeLessThan(1e-5);
          expect(Math.abs(variance - g.variance / (g.variance + 1e-5))).toBeLessThan(1e-4);
        }
        x.dispose();
      }),
      { numRuns: 40 },
    );
  });
});

describe('instance normalisation: bad input', () => {
  const b = backends[0]!.backend;
  it('typed errors naming the function or layer, for typed and untyped callers', () => {
    const x = fromData(b, new Float32Array(2 * 3 * 4), { shape: [2, 3, 4] });
    expect(() => instanceNorm(fromData(b, [[1, 2]]))).toThrow(/instanceNorm: each instance needs more than one position/);
    expect(() => instanceNorm(fromData(b, [1, 2]))).toThrow(ShapeError);
    expect(() => instanceNorm(x, { weight: fromData(b, [1, 2]) })).toThrow(/instanceNorm: weight must be \[3\]/);
    expect(() => instanceNorm(x, { runningMean: fromData(b, [0, 0, 0]), useInputStats: false })).toThrow(/needs runningMean and runningVar/);
    expect(() => instanceNorm(x, { bias: fromData(b, [0, 0, 0], { dtype: 'float16' }) })).toThrow(DTypeError);
    expect(() => instanceNorm(x, untyped({ use_input_stats: false }))).toThrow(/unknown option 'use_input_stats'.*useInputStats/);
    expect(() => instanceNorm(x, untyped({ useInputStats: 'no' }))).toThrow(ArgumentError);
    expect(() => instanceNorm(x, { eps: -1 })).toThrow(/eps must be a finite number >= 0/);
    expect(() => instanceNorm(untyped(null))).toThrow(ArgumentError);
    expect(() => instanceNorm(untyped(fromData(b, Int32Array.of(1, 2, 3, 4), { shape: [1, 1, 4] })))).toThrow(DTypeError);
    const m = new InstanceNorm1d(b, 3);
    expect(() => m.forward(fromData(b, new Float32Array(8), { shape: [2, 4] }))).toThrow(/InstanceNorm1d: expects \[N, 3, L\] or \[3, L\]/);
    expect(() => m.forward(fromData(b, new Float32Array(24), { shape: [2, 3, 2, 2] }))).toThrow(ShapeError);
    expect(() => new InstanceNorm2d(b, 3).forward(x)).toThrow(/InstanceNorm2d: expects \[N, 3, H, W\] or \[3, H, W\]/);
    expect(() => m.forward(fromData(b, new Float32Array(6), { shape: [2, 3, 1] }))).toThrow(/more than one position/);
    expect(() => new InstanceNorm1d(b, 0)).toThrow(ArgumentError);
    expect(() => new InstanceNorm1d(b, 3, { momentum: 2 })).toThrow(/momentum must be a number in \[0, 1\] or null/);
    expect(() => new InstanceNorm1d(b, 3, untyped({ affine: 'yes' }))).toThrow(/affine must be true or false/);
    expect(() => new InstanceNorm1d(b, 3, untyped({ track_running_stats: true }))).toThrow(/unknown option 'track_running_stats'.*trackRunningStats/);
    expect(() => new InstanceNorm2d(untyped<typeof b>(null), 3)).toThrow(ArgumentError);
  });
});
