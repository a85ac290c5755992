/**
 * Regressions in the ops2 tensor ops (median / nanmedian, repeatInterleaveAsync, scatterReduce,
 * unique, mode, lerp, aminmax): the expected numbers are PyTorch 1.13's (printed beside each).
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DisposedError, ShapeError } from '../../src/errors.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const cpu = new Cpu({ threads: 0 });
const ad = new Autodiff(cpu);
afterAll(() => cpu.close());

const vec = (v: number[]) => fromData(ad, Float32Array.from(v), { shape: [v.length] }).requireGrad();

describe('median / nanmedian of all elements: the gradient at a -inf median', () => {
  test('shared among the -inf ties alone (torch: [0.5, 0.5, 0] and [0, 0.5, 0.5, 0])', async () => {
    const cases: Array<[number[], 'median' | 'nanmedian', number[], number]> = [
      [[-Infinity, -Infinity, 5], 'median', [0.5, 0.5, 0], -Infinity],
      [[NaN, -Infinity, -Infinity, 3], 'nanmedian', [0, 0.5, 0.5, 0], -Infinity],
      [[Infinity, Infinity, -5], 'median', [0.5, 0.5, 0], Infinity],
      [[2, 7, 2, 9, 2], 'median', [1 / 3, 0, 1 / 3, 0, 1 / 3], 2],
    ];
    for (const [v, op, grad, value] of cases) {
      const x = vec(v);
      const m = op === 'median' ? x.median() : x.nanmedian();
      const g = m.backward();
      expect((await m.toData()).values[0]).toBe(value);
      expect(Array.from((await x.grad(g)!.toData()).values)).toEqual(grad.map(Math.fround));
      g.dispose();
    }
  });
});

describe('repeatInterleaveAsync', () => {
  test('a huge repeat count is a ShapeError naming repeatInterleave, before any index is built', async () => {
    const x = fromData(cpu, Float32Array.from([1, 2, 3]));
    const big = fromData(cpu, Int32Array.from([2 ** 31 - 1, 2 ** 31 - 1, 5]));
    const e = await x.repeatInterleaveAsync(big).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ShapeError);
    expect((e as ShapeError).op).toBe('repeatInterleave');
    expect((e as ShapeError).message).toMatch(/4294967299 elements/);
  });
  test('values as torch (repeat_interleave([1, 2, 3], [2, 0, 3]) = [1, 1, 3, 3, 3]); the count error names the flattened tensor without a dim', async () => {
    const x = fromData(cpu, Float32Array.from([1, 2, 3]));
    const y = await x.repeatInterleaveAsync(fromData(cpu, Int32Array.from([2, 0, 3])));
    expect(Array.from((await y.toData()).values)).toEqual([1, 1, 3, 3, 3]);
    const m = fromData(cpu, Float32Array.from([1, 2, 3, 4]), { shape: [2, 2] });
    const z = await m.repeatInterleaveAsync(fromData(cpu, Int32Array.from([3, 1])), 0);
    expect(Array.from((await z.toData()).values)).toEqual([1, 2, 1, 2, 1, 2, 3, 4]);
    await expect(m.repeatInterleaveAsync(fromData(cpu, Int32Array.from([1, 2])))).rejects.toThrow(/must hold 1 or 4 counts \(one per entry of the flattened tensor\)/);
    await expect(m.repeatInterleaveAsync(fromData(cpu, Int32Array.from([1, 2, 3])), 1)).rejects.toThrow(/must hold 1 or 2 counts \(one per entry of dim 1\)/);
  });
});

describe('scatterReduce with an empty index', () => {
  test('every reduce, with and without self, returns a copy of x (torch: x unchanged)', async () => {
    const x = fromData(cpu, Float32Array.from([1, 2, 3, 4]), { shape: [2, 2] });
    const index = fromData(cpu, new Int32Array(0), { shape: [2, 0] });
    const src = fromData(cpu, new Float32Array(0), { shape: [2, 0] });
    for (const reduce of ['sum', 'prod', 'mean', 'amax', 'amin'] as const) {
      for (const includeSelf of [true, false]) {
        const y = x.scatterReduce(1, index, src, reduce, includeSelf);
        expect(y).not.toBe(x);
        expect(y.shape).toEqual([2, 2]);
        expect(Array.from((await y.toData()).values)).toEqual([1, 2, 3, 4]);
        y.dispose();
      }
    }
    const xi = fromData(cpu, Int32Array.from([5, -7]));
    const yi = xi.scatterReduce(0, fromData(cpu, new Int32Array(0)), fromData(cpu, new Int32Array(0)), 'amin', false);
    expect(Array.from((await yi.toData()).values)).toEqual([5, -7]);
  });
});

describe('the async ops leak nothing when x is disposed while the read is pending', () => {
  test('unique (flat and along a dim), maskedSelect, repeatInterleaveAsync: DisposedError, and the live tensor count back to the start', async () => {
    const mask = fromData(cpu, Uint8Array.from([1, 0, 1]), { dtype: 'bool' });
    const repeats = fromData(cpu, Int32Array.from([2]));
    const runs: Array<(x: Tensor<Cpu, 'float'>) => Promise<unknown>> = [
      (x) => x.unique(),
      (x) => x.unique({ dim: 1, returnInverse: true }),
      (x) => x.maskedSelect(mask),
      (x) => x.repeatInterleaveAsync(repeats),
    ];
    for (const run of runs) {
      const before = cpu.memory().tensors;
      const x = fromData(cpu, Float32Array.from([3, 1, 3, 2, 5, 2]), { shape: [2, 3] });
      const p = run(x);
      x.dispose();
      await expect(p).rejects.toBeInstanceOf(DisposedError);
      expect(cpu.memory().tensors).toBe(before);
    }
    mask.dispose();
    repeats.dispose();
  });
});

describe('lerp with a non-finite tensor weight', () => {
  test('values and gradients as torch (no NaN from the discarded branch)', async () => {
    // torch.lerp([1, 2], [3, 4], w).sum().backward(): start.grad, end.grad, weight.grad.
    const cases: Array<[number[], number[], number[], number[], number[]]> = [
      [[Infinity, 0.7], [Infinity, 3.4], [-Infinity, 0.3], [Infinity, 0.7], [2, 2]],
      [[-Infinity, 0.2], [-Infinity, 2.4], [Infinity, 0.8], [-Infinity, 0.2], [2, 2]],
      [[NaN, 0.5], [NaN, 3], [NaN, 0.5], [NaN, 0.5], [2, 2]],
    ];
    for (const [w, value, ga, gb, gw] of cases) {
      const a = vec([1, 2]);
      const b = vec([3, 4]);
      const wt = vec(w);
      const y = a.lerp(b, wt);
      const g = y.sum().backward();
      const read = async (t: typeof a) => Array.from((await t.toData()).values);
      const close = (got: number[], want: number[]) => got.forEach((v, i) => (Number.isFinite(want[i]!) ? expect(v).toBeCloseTo(want[i]!, 6) : expect(v).toBe(want[i])));
      close(await read(y), value);
      close(await read(a.grad(g)!), ga);
      close(await read(b.grad(g)!), gb);
      close(await read(wt.grad(g)!), gw);
      g.dispose();
    }
  });
});

describe('mode in O(n log n)', () => {
  /** The brute-force reference: the smallest most frequent value (NaNs equal), its last index. */
  function modeRef(line: number[]): [number, number] {
    const key = (v: number) => (Number.isNaN(v) ? 'nan' : String(v));
    const counts = new Map<string, number>();
    for (const v of line) counts.set(key(v), (counts.get(key(v)) ?? 0) + 1);
    let best = NaN;
    let bestCount = 0;
    for (const v of line) {
      const c = counts.get(key(v))!;
      const smaller = Number.isNaN(best) ? !Number.isNaN(v) : v < best;
      if (c > bestCount || (c === bestCount && smaller)) [best, bestCount] = [v, c];
    }
    let at = -1;
    line.forEach((v, i) => (key(v) === key(best) ? (at = i) : undefined));
    return [best, at];
  }

  test('random lines with ties and NaN, along each dim, match the reference (torch: mode([3, 1, 3, 1, 2]) = (1, 3))', async () => {
    const t = fromData(cpu, Int32Array.from([3, 1, 3, 1, 2]));
    const r = t.mode(0);
    expect([(await r.values.toData()).values[0], (await r.indices.toData()).values[0]]).toEqual([1, 3]);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const [rows, cols] of [[6, 9], [5, 1], [1, 7], [4, 32]] as const) {
      const v = Array.from({ length: rows * cols }, () => (rand() < 0.15 ? NaN : Math.floor(rand() * 4) - 1.5));
      const x = fromData(cpu, Float32Array.from(v), { shape: [rows, cols] });
      for (const dim of [0, 1]) {
        const { values, indices } = x.mode(dim);
        const got = Array.from((await values.toData()).values);
        const idx = Array.from((await indices.toData()).values);
        const lines = dim === 1 ? rows : cols;
        for (let l = 0; l < lines; l++) {
          const line = dim === 1 ? v.slice(l * cols, (l + 1) * cols) : Array.from({ length: rows }, (_, r2) => v[r2 * cols + l]!);
          expect([got[l], idx[l]]).toEqual(modeRef(line));
        }
      }
    }
  });

  test('a [1000, 1000] mode is no n^2 grid: it runs in a couple of seconds', async () => {
    const x = fromData(cpu, Float32Array.from({ length: 1e6 }, (_, i) => (i * 7919) % 13), { shape: [1000, 1000] });
    const start = Date.now();
    const { values } = x.mode(-1);
    await values.toData();
    expect(Date.now() - start).toBeLessThan(10000);
  });
});

describe('scatterReduce amax / amin / prod grid budget', () => {
  test('a [1000, 1000] scatter along dim 1 (a 1e9-element grid) is a ShapeError naming scatterReduce with a hint to chunk', () => {
    const x = fromData(cpu, new Float32Array(1e6), { shape: [1000, 1000] });
    const index = fromData(cpu, new Int32Array(1e6), { shape: [1000, 1000] });
    for (const reduce of ['amax', 'amin', 'prod'] as const) {
      let e: unknown;
      try {
        x.scatterReduce(1, index, x, reduce, false);
      } catch (err) {
        e = err;
      }
      expect(e).toBeInstanceOf(ShapeError);
      expect((e as ShapeError).op).toBe('scatterReduce');
      expect((e as ShapeError).message).toMatch(/grid \[1000, 1000, 1001, 1\] of 1001000000 elements, past the budget of 134217728/);
      expect((e as ShapeError).hint).toMatch(/chunk along a dim other than 1/);
    }
  });
});

describe('aminmax over a dim of an empty tensor', () => {
  test('a [0, 3] tensor over dim 1 gives empty [0] results (torch), over dim 0 it throws', async () => {
    const x = fromData(cpu, new Float32Array(0), { shape: [0, 3] });
    const r = x.aminmax(1);
    expect(r.min.shape).toEqual([0]);
    expect(r.max.shape).toEqual([0]);
    expect(x.aminmax(1, true).max.shape).toEqual([0, 1]);
    expect(() => x.aminmax(0)).toThrow(ShapeError);
    expect(() => x.aminmax()).toThrow(/aminmax of an empty tensor/);
  });
});

describe('unique of the flattened tensor', () => {
  test('values, inverse and counts match a float64 reference (NaN each its own value, -0 equal to 0); 1e6 elements in well under a second', async () => {
    const v = [3, -0, NaN, 1, 0, 3, NaN, -2, 1, 3];
    const r = await fromData(cpu, Float32Array.from(v)).unique({ returnInverse: true, returnCounts: true });
    // The reference by hand: ascending, NaN last and each its own value, -0 the first of the zeros
    // (torch 1.13's CPU unique scrambles the order once NaN is present, so it is no reference here).
    expect(Array.from((await r.values.toData()).values)).toEqual([-2, -0, 1, 3, NaN, NaN]);
    expect(Array.from((await r.inverse!.toData()).values)).toEqual([3, 1, 4, 2, 1, 3, 5, 0, 2, 3]);
    expect(Array.from((await r.counts!.toData()).values)).toEqual([1, 2, 2, 3, 1, 1]);
    const big = fromData(cpu, Float32Array.from({ length: 1e6 }, (_, i) => (i * 7919) % 1000));
    const start = Date.now();
    const u = await big.unique({ returnCounts: true });
    expect(Date.now() - start).toBeLessThan(3000);
    expect(u.values.shape).toEqual([1000]);
    expect(Array.from((await u.counts!.toData()).values).every((c) => c === 1000)).toBe(true);
  });
});
