/**
 * nn.functional.interpolate, pixelShuffle / pixelUnshuffle and the Upsample / PixelShuffle
 * modules on every test backend, against a float64 reference that reads each output pixel from
 * torch's CPU coordinate rules (computed in float32 as torch's kernels compute them), against
 * values torch prints for a few cases, gradients against finite differences, and errors.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../../src/errors.js';
import { PixelShuffle, PixelUnshuffle, Upsample } from '../../../src/nn/index.js';
import { interpolate, pixelShuffle, pixelUnshuffle, type InterpolateOptions } from '../../../src/nn/functional/index.js';
import { fromData } from '../../../src/tensor/creation.js';
import { testBackends } from '../../autodiff/backends.js';
import { untyped } from '../../untyped.js';
import { finiteDiff, leaf, mismatch, numel, randoms, ravel, unravel, valuesAndGrads, type Arr } from '../../unit/ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const f = Math.fround;

/** torch's (CPU) source position of output index i along one dim: [index, weight] pairs. */
function sources(mode: 'nearest' | 'linear', i: number, input: number, output: number, align: boolean, scale: number | undefined, shortcut: boolean): Array<[number, number]> {
  const s = scale !== undefined ? f(1 / scale) : f(input / output);
  if (mode === 'nearest') {
    // nearest_idx (torch's 4-D path): equal sizes copy, exactly double shifts; else (and on 3-D inputs) floor(i * scale) in float32.
    if (shortcut && output === input) return [[i, 1]];
    if (shortcut && output === 2 * input) return [[Math.floor(i / 2), 1]];
    return [[Math.min(Math.floor(f(i * s)), input - 1), 1]];
  }
  const r = align ? (output > 1 ? f(f((input - 1) / (output - 1)) * i) : 0) : Math.max(0, f(f(s * f(i + 0.5)) - 0.5));
  const lo = Math.min(Math.floor(r), input - 1);
  const hi = lo < input - 1 ? lo + 1 : lo;
  const t = Math.min(Math.max(f(r - lo), 0), 1);
  return [
    [lo, f(1 - t)],
    [hi, t],
  ];
}

/** Each output pixel as the weighted sum over its 1 (nearest), 2 (linear) or 4 (bilinear) sources, in float64. */
function interp64(x: Arr, o: InterpolateOptions): Arr {
  const spatial = x.shape.slice(2);
  const n = spatial.length;
  const list = (v: number | readonly number[] | undefined): Array<number | undefined> => (v === undefined ? spatial.map(() => undefined) : typeof v === 'number' ? spatial.map(() => v) : [...v]);
  const factors = list(o.scaleFactor);
  const sizes = o.size !== undefined ? list(o.size).map((v) => v!) : spatial.map((d, k) => Math.floor(d * factors[k]!));
  const scales = o.recomputeScaleFactor === true || o.size !== undefined ? spatial.map(() => undefined) : factors;
  const mode = o.mode === 'nearest' || o.mode === undefined ? 'nearest' : 'linear';
  const shape = [...x.shape.slice(0, 2), ...sizes];
  const data = Array.from({ length: numel(shape) }, (_, p) => {
    const idx = unravel(p, shape);
    const per = sizes.map((out, k) => sources(mode, idx[2 + k]!, spatial[k]!, out, o.alignCorners === true, scales[k], x.shape.length === 4));
    // Every combination of the per-dim sources (the tensor product of the 1-D weights).
    let total = 0;
    const walk = (k: number, at: number[], w: number): void => {
      if (k === n) {
        total += w * x.data[ravel([idx[0]!, idx[1]!, ...at], x.shape)]!;
        return;
      }
      for (const [i, wi] of per[k]!) walk(k + 1, [...at, i], w * wi);
    };
    walk(0, [], 1);
    return total;
  });
  return { shape, data };
}

const CASES: Array<[number[], InterpolateOptions]> = [];
for (const shape of [[2, 3, 5], [1, 2, 1]]) {
  for (const spec of [{ size: 8 }, { size: 3 }, { size: 5 }, { size: 1 }, { scaleFactor: 2 }, { scaleFactor: 0.5 }, { scaleFactor: 1.7 }, { scaleFactor: 0.35 }, { scaleFactor: 2.05 }, { scaleFactor: 0.6, recomputeScaleFactor: true }]) {
    if (Math.floor(shape[2]! * (spec.scaleFactor ?? 1)) === 0) continue;
    CASES.push([shape, { ...spec, mode: 'nearest' }]);
    for (const alignCorners of [false, true]) CASES.push([shape, { ...spec, mode: 'linear', alignCorners }]);
  }
}
for (const shape of [[1, 2, 4, 5], [2, 1, 3, 3], [1, 1, 1, 3]]) {
  for (const spec of [{ size: [7, 3] }, { size: 2 }, { size: [1, 1] }, { scaleFactor: [2, 0.6] }, { scaleFactor: 1.5 }, { scaleFactor: 3 }, { scaleFactor: [1.3, 1.3], recomputeScaleFactor: true }]) {
    const sf = spec.scaleFactor;
    if (sf !== undefined && (typeof sf === 'number' ? [sf, sf] : sf).some((v, k) => Math.floor(shape[2 + k]! * v) === 0)) continue;
    CASES.push([shape, { ...spec, mode: 'nearest' }]);
    for (const alignCorners of [false, true]) CASES.push([shape, { ...spec, mode: 'bilinear', alignCorners }]);
  }
}

for (const tb of backends) {
  describe(`interpolate on ${tb.name}`, () => {
    const b = tb.backend;
    const t = (x: Arr) => fromData(b, Float32Array.from(x.data), { shape: x.shape });

    it('matches the float64 reference of torch coordinates for every mode, size and scale', async () => {
      let seed = 1;
      for (const [shape, o] of CASES) {
        const x = { shape, data: randoms(numel(shape), seed++) };
        const xt = t(x);
        const out = interpolate(xt, o);
        const ref = interp64(x, o);
        const label = `[${shape}] ${JSON.stringify(o)}`;
        expect(out.shape, label).toEqual(ref.shape);
        expect(mismatch((await out.toData()).values, [...ref.data], 1e-6, 1e-5), label).toBeUndefined();
        for (const v of [xt, out]) v.dispose();
      }
    });

    it('values torch prints (torch.nn.functional.interpolate on CPU)', async () => {
      const ar = (n: number) => fromData(b, Float32Array.from({ length: n }, (_, i) => i), { shape: [1, 1, n] });
      const rows: Array<[number, InterpolateOptions, number[]]> = [
        [4, { scaleFactor: 2, mode: 'linear' }, [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3]],
        [4, { size: 7, mode: 'linear', alignCorners: true }, [0, 0.5, 1, 1.5, 2, 2.5, 3]],
        [5, { size: 3 }, [0, 1, 3]],
        // scale_factor 0.35: the coordinates use 1 / 0.35 (torch's default), not 10 / 3.
        [10, { scaleFactor: 0.35 }, [0, 2, 5]],
        [10, { scaleFactor: 0.35, recomputeScaleFactor: true }, [0, 3, 6]],
        // An output of exactly twice the input: torch's 3-D kernel still reads floor(i / 2.05) (its 4-D one takes i >> 1, below).
        [10, { scaleFactor: 2.05 }, [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9]],
      ];
      for (const [n, o, expected] of rows) {
        const x = ar(n);
        const out = interpolate(x, o);
        expect(mismatch((await out.toData()).values, expected, 1e-6, 1e-6), JSON.stringify(o)).toBeUndefined();
        for (const v of [x, out]) v.dispose();
      }
      // On a 4-D input an output of exactly twice the input takes i >> 1 (torch's vectorised shortcut), whatever the factor.
      const x4 = fromData(b, Float32Array.from({ length: 10 }, (_, i) => i), { shape: [1, 1, 1, 10] });
      const o4 = interpolate(x4, { scaleFactor: [1, 2.05] });
      expect(mismatch((await o4.toData()).values, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9], 1e-6, 1e-6)).toBeUndefined();
      for (const v of [x4, o4]) v.dispose();
    });

    it('edge values: inf and NaN spread as the weighted sums do; empty batches pass', async () => {
      const x = { shape: [1, 1, 4], data: [1, Infinity, NaN, 2] };
      for (const o of [{ size: 7, mode: 'linear' }, { size: 9 }, { size: 3, mode: 'linear', alignCorners: true }] as const) {
        const xt = t(x);
        const out = interpolate(xt, o);
        expect(mismatch((await out.toData()).values, [...interp64(x, o).data]), JSON.stringify(o)).toBeUndefined();
        for (const v of [xt, out]) v.dispose();
      }
      const empty = fromData(b, new Float32Array(0), { shape: [0, 2, 3, 3] });
      const out = interpolate(empty, { scaleFactor: 2, mode: 'bilinear' });
      expect(out.shape).toEqual([0, 2, 6, 6]);
      for (const v of [empty, out]) v.dispose();
    });

    it('gradients match finite differences of the reference', async () => {
      const grads: Array<[number[], InterpolateOptions]> = [
        [[1, 2, 5], { size: 8, mode: 'linear' }],
        [[1, 2, 5], { size: 3, mode: 'linear', alignCorners: true }],
        [[1, 1, 3, 4], { size: [5, 3], mode: 'bilinear' }],
        [[1, 1, 3, 4], { scaleFactor: 2, mode: 'bilinear', alignCorners: true }],
        [[1, 2, 3, 3], { size: [5, 2] }],
        [[2, 1, 4], { scaleFactor: 1.5 }],
      ];
      let seed = 70;
      for (const [shape, o] of grads) {
        const values = randoms(numel(shape), seed++);
        const ref = (v: number[]) => interp64({ shape, data: v }, o);
        const w = randoms(numel(ref(values).shape), seed++, -1, 1);
        const x = leaf(b, values, shape);
        const out = interpolate(x, o);
        const { grads: g } = await valuesAndGrads(b, out, [x], w);
        const numeric = finiteDiff(([v]) => ref(v!).data, [values], w)[0]!;
        expect(mismatch(g[0]!, numeric, 1e-3, 1e-3), JSON.stringify(o)).toBeUndefined();
        for (const v of [x, out]) v.dispose();
      }
    });

    it('pixelShuffle / pixelUnshuffle move channels to r x r blocks and back; gradients are the inverse move', async () => {
      const shape = [2, 8, 2, 3];
      const values = randoms(numel(shape), 9);
      const x = leaf(b, values, shape);
      const y = pixelShuffle(x, 2);
      expect(y.shape).toEqual([2, 2, 4, 6]);
      const expected = Array.from({ length: numel(y.shape) }, (_, p) => {
        const [n, c, hh, ww] = unravel(p, y.shape) as [number, number, number, number];
        return values[ravel([n, c * 4 + (hh % 2) * 2 + (ww % 2), Math.floor(hh / 2), Math.floor(ww / 2)], shape)]!;
      });
      const w = randoms(numel(y.shape), 10, -1, 1);
      const { values: got, grads } = await valuesAndGrads(b, y, [x], w);
      expect(Array.from(got)).toEqual(expected.map(f));
      // d sum(shuffle(x) * w) / dx = unshuffle(w).
      const wt = fromData(b, Float32Array.from(w), { shape: y.shape });
      const back = pixelUnshuffle(wt, 2);
      expect(Array.from(grads[0]!)).toEqual(Array.from((await back.toData()).values));
      const round = pixelUnshuffle(y, 2);
      expect(Array.from((await round.toData()).values)).toEqual(values.map(f));
      // Any leading dims (rank 3 and 5), and ints.
      const i3 = fromData(b, Int32Array.from({ length: 4 * 2 * 2 }, (_, k) => k), { shape: [4, 2, 2] });
      const s3 = pixelShuffle(i3, 2);
      expect(s3.shape).toEqual([1, 4, 4]);
      expect(Array.from((await s3.toData()).values)).toEqual([0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15]);
      const r5 = fromData(b, new Float32Array(2 * 1 * 9 * 2 * 2), { shape: [2, 1, 9, 2, 2] });
      expect(pixelShuffle(r5, 3).shape).toEqual([2, 1, 1, 6, 6]);
      for (const v of [x, y, wt, back, round, i3, s3, r5]) v.dispose();
    });

    it('Upsample, PixelShuffle and PixelUnshuffle modules', async () => {
      const x = fromData(b, Float32Array.from({ length: 16 }, (_, i) => i), { shape: [1, 4, 2, 2] });
      const up = new Upsample<typeof b>({ scaleFactor: 2, mode: 'bilinear' }).forward(x);
      expect(up.shape).toEqual([1, 4, 4, 4]);
      const ps = new PixelShuffle<typeof b>(2).forward(x);
      const pu = new PixelUnshuffle<typeof b>(2).forward(ps);
      expect(Array.from((await pu.toData()).values)).toEqual(Array.from({ length: 16 }, (_, i) => i));
      for (const v of [x, up, ps, pu]) v.dispose();
    });
  });
}

describe('pixelShuffle law (fast-check, CPU)', () => {
  const b = backends[0]!.backend;
  it('pixelUnshuffle(pixelShuffle(x, r), r) = x', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), async (r, c, h, w) => {
        const shape = [1, c * r * r, h, w];
        const values = Float32Array.from({ length: numel(shape) }, (_, i) => i);
        const x = fromData(b, values, { shape });
        const y = pixelShuffle(x, r);
        const z = pixelUnshuffle(y, r);
        expect(z.shape).toEqual(shape);
        expect(Array.from((await z.toData()).values)).toEqual(Array.from(values));
        for (const v of [x, y, z]) v.dispose();
      }),
      { numRuns: 40 },
    );
  });
});

describe('interpolate and pixelShuffle errors', () => {
  const b = backends[0]!.backend;
  it('typed errors naming the function, for typed and untyped callers', () => {
    const x3 = fromData(b, new Float32Array(6), { shape: [1, 2, 3] });
    const x4 = fromData(b, new Float32Array(12), { shape: [1, 1, 3, 4] });
    const i4 = fromData(b, new Int32Array(12), { shape: [1, 1, 3, 4] });
    expect(() => interpolate(x3, {})).toThrow(/give size or scaleFactor/);
    expect(() => interpolate(x3, { size: 4, scaleFactor: 2 })).toThrow(/only one of size and scaleFactor/);
    expect(() => interpolate(x3, { size: 4, mode: 'bilinear' })).toThrow(ShapeError);
    expect(() => interpolate(x4, { size: 4, mode: 'linear' })).toThrow(/use mode 'bilinear'/);
    expect(() => interpolate(x4, { size: [4, 4, 4] })).toThrow(/list of 2/);
    expect(() => interpolate(x4, { size: 4, alignCorners: true })).toThrow(/alignCorners can only be set/);
    expect(() => interpolate(x4, { size: 0 })).toThrow(ShapeError);
    expect(() => interpolate(x4, { scaleFactor: 0.1 })).toThrow(/greater than 0/);
    expect(() => interpolate(x4, { scaleFactor: -1 })).toThrow(ArgumentError);
    expect(() => interpolate(x4, { size: 2.5 })).toThrow(ArgumentError);
    expect(() => interpolate(x4, { size: 4, recomputeScaleFactor: true })).toThrow(/not meaningful/);
    expect(() => interpolate(x4, untyped({ size: 4, mode: 'cubic' }))).toThrow(/mode must be/);
    expect(() => interpolate(x4, untyped({ size: 4, mode: null }))).toThrow(/mode must be/);
    expect(() => interpolate(x4, untyped({ size: 4, align_corners: true }))).toThrow(/unknown option 'align_corners'.*alignCorners/);
    expect(() => interpolate(untyped(i4), { size: 4 })).toThrow(DTypeError);
    expect(() => interpolate(untyped(null), { size: 4 })).toThrow(ArgumentError);
    expect(() => interpolate(x4, untyped(4))).toThrow(ArgumentError);
    expect(() => pixelShuffle(x4, 2)).toThrow(/divisible by upscaleFactor\^2 = 4/);
    expect(() => pixelUnshuffle(x4, 2)).toThrow(/divisible by downscaleFactor = 2/);
    expect(() => pixelShuffle(x4, 0)).toThrow(ArgumentError);
    expect(() => pixelShuffle(fromData(b, [[1]]), 1)).toThrow(ShapeError);
    expect(() => pixelUnshuffle(untyped<typeof x4>('x'), 1)).toThrow(ArgumentError);
    for (const v of [x3, x4, i4]) v.dispose();
  });
});
