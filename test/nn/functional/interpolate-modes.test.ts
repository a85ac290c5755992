/**
 * interpolate's 'bicubic', 'trilinear', 'nearest-exact', 'area' and 5-D 'nearest' on every test
 * backend: against a float64 reference that reads each output pixel from torch's CPU rules
 * (coordinates in float32 as torch's kernels compute them; weights and sums in float64), against
 * values derived by hand from those rules, gradients against finite differences of the reference,
 * laws (fast-check) and errors.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../../src/errors.js';
import { Upsample } from '../../../src/nn/index.js';
import { avgPool1d, avgPool2d, interpolate, type InterpolateOptions } from '../../../src/nn/functional/index.js';
import { fromData } from '../../../src/tensor/creation.js';
import { testBackends } from '../../autodiff/backends.js';
import { untyped } from '../../untyped.js';
import { finiteDiff, leaf, mismatch, numel, randoms, ravel, unravel, valuesAndGrads, type Arr } from '../../unit/ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const f = Math.fround;
type Mode = 'nearest' | 'nearest-exact' | 'linear' | 'bicubic' | 'area';

/** Keys' cubic convolution kernel with a = -0.75 (torch's), from its textbook definition, in float64. */
function keys(x: number): number {
  const a = -0.75;
  const t = Math.abs(x);
  if (t <= 1) return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1;
  if (t < 2) return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a;
  return 0;
}

/**
 * torch's (CPU) sources of output index i along one dim as [index, weight] pairs. Coordinates are
 * float32 (torch's opmath for float); weights float64. `shortcut`: nearest's copy at equal sizes and
 * shift at double (torch's 4-D path here), absent from its 3-D and 5-D kernels.
 */
function sources(mode: Mode, i: number, input: number, output: number, align: boolean, scale: number | undefined, shortcut: boolean): Array<[number, number]> {
  const s = align ? (output > 1 ? f((input - 1) / (output - 1)) : 0) : scale !== undefined ? f(1 / scale) : f(input / output);
  // area_pixel_compute_source_index: half-pixel centres; clamped at 0 except for cubic.
  const centre = (cubic: boolean) => {
    if (align) return f(s * i);
    const r = f(f(s * f(i + 0.5)) - 0.5);
    return !cubic && r < 0 ? 0 : r;
  };
  switch (mode) {
    case 'nearest':
      if (shortcut && output === input) return [[i, 1]];
      if (shortcut && output === 2 * input) return [[Math.floor(i / 2), 1]];
      return [[Math.min(Math.floor(f(i * s)), input - 1), 1]];
    case 'nearest-exact':
      return [[Math.min(Math.floor(f(centre(false) + 0.5)), input - 1), 1]];
    case 'area': {
      // Adaptive average pooling: the window [floor(i in / out), ceil((i + 1) in / out)).
      const lo = Math.floor((i * input) / output);
      const hi = Math.ceil(((i + 1) * input) / output);
      return Array.from({ length: hi - lo }, (_, k): [number, number] => [lo + k, 1 / (hi - lo)]);
    }
    case 'linear': {
      if (output === input) return [[i, 1]];
      const r = centre(false);
      const lo = Math.min(Math.floor(r), input - 1);
      const t = Math.min(Math.max(f(r - lo), 0), 1);
      return [
        [lo, 1 - t],
        [lo < input - 1 ? lo + 1 : lo, t],
      ];
    }
    case 'bicubic': {
      const r = centre(true);
      const lo = Math.min(Math.floor(r), input - 1);
      const t = Math.min(Math.max(f(r - lo), 0), 1);
      // Neighbours lo - 1 .. lo + 2 at distances t + 1, t, 1 - t, 2 - t; indices clamped into the input.
      return [-1, 0, 1, 2].map((k): [number, number] => [Math.max(0, Math.min(lo + k, input - 1)), keys(t - k)]);
    }
  }
}

/** interpolate in float64: each output pixel the tensor-product sum over its per-dim sources. */
function interp64(x: Arr, o: InterpolateOptions): Arr {
  const spatial = x.shape.slice(2);
  const n = spatial.length;
  const list = (v: number | readonly number[] | undefined): Array<number | undefined> => (v === undefined ? spatial.map(() => undefined) : typeof v === 'number' ? spatial.map(() => v) : [...v]);
  const factors = list(o.scaleFactor);
  const sizes = o.size !== undefined ? list(o.size).map((v) => v!) : spatial.map((d, k) => Math.floor(d * factors[k]!));
  const scales = o.recomputeScaleFactor === true || o.size !== undefined ? spatial.map(() => undefined) : factors;
  const mode: Mode = o.mode === undefined ? 'nearest' : o.mode === 'bilinear' || o.mode === 'trilinear' ? 'linear' : o.mode;
  const shape = [...x.shape.slice(0, 2), ...sizes];
  const data = Array.from({ length: numel(shape) }, (_, p) => {
    const idx = unravel(p, shape);
    const per = sizes.map((out, k) => sources(mode, idx[2 + k]!, spatial[k]!, out, o.alignCorners === true, scales[k], x.shape.length === 4));
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
// Up, down, equal, to 1, and from 1; a size-preserving factor that is not 1 (no shortcut in torch's cubic and 5-D nearest).
const specs2: InterpolateOptions[] = [{ size: [7, 3] }, { size: 2 }, { size: [1, 1] }, { size: [4, 5] }, { scaleFactor: [2, 0.6] }, { scaleFactor: 1.5 }, { scaleFactor: [1.1, 2.05] }, { scaleFactor: 3 }, { scaleFactor: [1.3, 1.3], recomputeScaleFactor: true }];
for (const shape of [[1, 2, 4, 5], [2, 1, 3, 3], [1, 1, 1, 3]]) {
  for (const spec of specs2) {
    const sf = spec.scaleFactor;
    if (sf !== undefined && (typeof sf === 'number' ? [sf, sf] : sf).some((v, k) => Math.floor(shape[2 + k]! * v) === 0)) continue;
    for (const alignCorners of [false, true]) CASES.push([shape, { ...spec, mode: 'bicubic', alignCorners }]);
    for (const mode of ['nearest-exact', 'area'] as const) CASES.push([shape, { ...spec, mode }]);
  }
}
const specs3: InterpolateOptions[] = [{ size: [3, 4, 2] }, { size: 1 }, { scaleFactor: 2 }, { scaleFactor: [0.5, 1.5, 1.1] }, { scaleFactor: [2.05, 1, 0.7] }, { scaleFactor: [1.4, 1.4, 1.4], recomputeScaleFactor: true }];
for (const shape of [[1, 2, 2, 3, 4], [2, 1, 3, 1, 2]]) {
  for (const spec of specs3) {
    const sf = spec.scaleFactor;
    if (sf !== undefined && (typeof sf === 'number' ? [sf, sf, sf] : sf).some((v, k) => Math.floor(shape[2 + k]! * v) === 0)) continue;
    for (const alignCorners of [false, true]) CASES.push([shape, { ...spec, mode: 'trilinear', alignCorners }]);
    for (const mode of ['nearest', 'nearest-exact', 'area'] as const) CASES.push([shape, { ...spec, mode }]);
  }
}
for (const spec of [{ size: 3 }, { size: 8 }, { scaleFactor: 0.35 }, { scaleFactor: 1.7 }, { scaleFactor: 0.6, recomputeScaleFactor: true }] as InterpolateOptions[]) {
  for (const mode of ['nearest-exact', 'area'] as const) CASES.push([[2, 3, 5], { ...spec, mode }]);
}

for (const tb of backends) {
  describe(`interpolate modes on ${tb.name}`, () => {
    const b = tb.backend;
    const t = (x: Arr) => fromData(b, Float32Array.from(x.data), { shape: x.shape });

    it('bicubic, trilinear, nearest-exact, area and 5-D nearest match the float64 reference of torch coordinates', async () => {
      let seed = 300;
      for (const [shape, o] of CASES) {
        const x = { shape, data: randoms(numel(shape), seed++) };
        const xt = t(x);
        const out = interpolate(xt, o);
        const ref = interp64(x, o);
        const label = `[${shape}] ${JSON.stringify(o)}`;
        expect(out.shape, label).toEqual(ref.shape);
        expect(mismatch((await out.toData()).values, [...ref.data], 1e-5, 1e-5), label).toBeUndefined();
        for (const v of [xt, out]) v.dispose();
      }
    });

    it('values derived by hand from torch\'s rules', async () => {
      const ar = (shape: number[]) => fromData(b, Float32Array.from({ length: numel(shape) }, (_, i) => i), { shape });
      const rows: Array<[number[], InterpolateOptions, number[]]> = [
        // Source positions -0.25, 0.25, ..., 3.25 (scale 0.5); at -0.25 the neighbours -2, -1, 0, 1 clamp to 0, 0, 0, 1 and weigh
        // W(1.75) = -0.03515625, W(0.75) = 0.26171875, W(0.25) = 0.87890625, W(1.25) = -0.10546875 (a = -0.75).
        [[1, 1, 1, 4], { size: [1, 8], mode: 'bicubic' }, [-0.10546875, 0.19140625, 0.66796875, 1.296875, 1.703125, 2.33203125, 2.80859375, 3.10546875]],
        // alignCorners: positions 0, 1.5, 3; at 1.5 the weights are W(1.5) = -0.09375, W(0.5) = 0.59375 each side.
        [[1, 1, 1, 4], { size: [1, 3], mode: 'bicubic', alignCorners: true }, [0, 1.5, 3]],
        // nearest-exact rounds the half-pixel centre: 5 -> 3 reads 0, 2, 4 (nearest reads 0, 1, 3).
        [[1, 1, 5], { size: 3, mode: 'nearest-exact' }, [0, 2, 4]],
        [[1, 1, 10], { scaleFactor: 0.35, mode: 'nearest-exact' }, [1, 4, 7]],
        // area 5 -> 3: windows [0, 2), [1, 4), [3, 5).
        [[1, 1, 5], { size: 3, mode: 'area' }, [0.5, 2, 3.5]],
        // trilinear with alignCorners reproduces an affine function: x[d, h, w] = 4d + 2h + w at (d/2, h/2, w/2).
        [[1, 1, 2, 2, 2], { size: 3, mode: 'trilinear', alignCorners: true }, Array.from({ length: 27 }, (_, p) => 2 * Math.floor(p / 9) + (Math.floor(p / 3) % 3) + (p % 3) / 2)],
        // 5-D and 3-D nearest have no shortcut at equal sizes: 5 at scaleFactor 1.1 reads floor(i / 1.1) = 0, 0, 1, 2, 3 (torch 1.13 and 2.11).
        [[1, 1, 5, 1, 1], { scaleFactor: [1.1, 1, 1] }, [0, 0, 1, 2, 3]],
        [[1, 1, 5], { scaleFactor: 1.1 }, [0, 0, 1, 2, 3]],
      ];
      for (const [shape, o, expected] of rows) {
        const x = ar(shape);
        const out = interpolate(x, o);
        expect(mismatch((await out.toData()).values, expected, 1e-6, 1e-6), JSON.stringify(o)).toBeUndefined();
        for (const v of [x, out]) v.dispose();
      }
      // The same factor on a 4-D input keeps torch's copy there.
      const x4 = ar([1, 1, 5, 1]);
      const o4 = interpolate(x4, { scaleFactor: [1.1, 1] });
      expect(Array.from((await o4.toData()).values)).toEqual([0, 1, 2, 3, 4]);
      for (const v of [x4, o4]) v.dispose();
    });

    it('gradients match finite differences of the reference', async () => {
      const grads: Array<[number[], InterpolateOptions]> = [
        [[1, 1, 3, 4], { size: [5, 3], mode: 'bicubic' }],
        [[1, 2, 2, 3], { scaleFactor: 2, mode: 'bicubic', alignCorners: true }],
        [[1, 1, 2, 2, 3], { size: [3, 1, 4], mode: 'trilinear' }],
        [[1, 1, 2, 3, 2], { scaleFactor: 1.5, mode: 'trilinear', alignCorners: true }],
        [[1, 2, 5, 4], { size: [3, 3], mode: 'area' }],
        [[1, 1, 3, 2, 4], { size: [2, 1, 3], mode: 'area' }],
        [[1, 1, 4, 5], { size: [3, 7], mode: 'nearest-exact' }],
        [[1, 1, 2, 3, 3], { scaleFactor: [1.5, 1.1, 0.7] }],
      ];
      let seed = 700;
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

    it('edge values spread as the weighted sums do; empty batches pass; Upsample takes the new modes', async () => {
      const x = { shape: [1, 1, 1, 5], data: [1, Infinity, 3, NaN, 2] };
      for (const o of [{ size: [1, 3], mode: 'area' }, { size: [1, 9], mode: 'nearest-exact' }] as const) {
        const xt = t(x);
        const out = interpolate(xt, o);
        expect(mismatch((await out.toData()).values, [...interp64(x, o).data]), JSON.stringify(o)).toBeUndefined();
        for (const v of [xt, out]) v.dispose();
      }
      const empty = fromData(b, new Float32Array(0), { shape: [0, 2, 2, 3, 3] });
      const out = interpolate(empty, { scaleFactor: 2, mode: 'trilinear' });
      expect(out.shape).toEqual([0, 2, 4, 6, 6]);
      const v = { shape: [1, 1, 2, 2, 2], data: randoms(8, 5) };
      const vt = t(v);
      const up = new Upsample<typeof b>({ scaleFactor: [1, 2, 2], mode: 'trilinear', alignCorners: true }).forward(vt);
      expect(mismatch((await up.toData()).values, [...interp64(v, { scaleFactor: [1, 2, 2], mode: 'trilinear', alignCorners: true }).data], 1e-6, 1e-6)).toBeUndefined();
      for (const y of [empty, out, vt, up]) y.dispose();
    });
  });
}

describe('interpolate laws (fast-check, CPU)', () => {
  const b = backends[0]!.backend;
  const dims = fc.integer({ min: 1, max: 5 });

  it('bicubic to the input size is the identity, with or without alignCorners', async () => {
    await fc.assert(
      fc.asyncProperty(dims, dims, fc.boolean(), fc.integer({ min: 1, max: 1000 }), async (h, w, alignCorners, seed) => {
        const values = randoms(2 * h * w, seed);
        const x = fromData(b, Float32Array.from(values), { shape: [1, 2, h, w] });
        const y = interpolate(x, { size: [h, w], mode: 'bicubic', alignCorners });
        expect(Array.from((await y.toData()).values)).toEqual(values);
        for (const v of [x, y]) v.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('area by an integer factor is average pooling with that kernel (1-D and 2-D)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), dims, dims, fc.integer({ min: 1, max: 1000 }), async (kh, kw, oh, ow, seed) => {
        const shape = [1, 2, kh * oh, kw * ow];
        const x = fromData(b, Float32Array.from(randoms(numel(shape), seed)), { shape });
        const area = interpolate(x, { size: [oh, ow], mode: 'area' });
        const pool = avgPool2d(x, [kh, kw]);
        expect(mismatch((await area.toData()).values, Array.from((await pool.toData()).values), 1e-6, 1e-6)).toBeUndefined();
        const x1 = fromData(b, Float32Array.from(randoms(2 * kw * ow, seed + 1)), { shape: [1, 2, kw * ow] });
        const a1 = interpolate(x1, { scaleFactor: 1 / kw, mode: 'area' });
        const p1 = avgPool1d(x1, kw);
        expect(mismatch((await a1.toData()).values, Array.from((await p1.toData()).values), 1e-6, 1e-6)).toBeUndefined();
        for (const v of [x, area, pool, x1, a1, p1]) v.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('trilinear with alignCorners reproduces affine functions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.tuple(dims, dims, dims), fc.tuple(dims, dims, dims), fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })), async (ins, outs, [a, c, e]) => {
        const shape = [1, 1, ...ins];
        const affine = (d: number, h: number, w: number) => a * d + c * h + e * w + 1;
        const x = fromData(b, Float32Array.from({ length: numel(shape) }, (_, p) => affine(...(unravel(p, ins) as [number, number, number]))), { shape });
        const y = interpolate(x, { size: outs, mode: 'trilinear', alignCorners: true });
        // Output index i sits at i (in - 1) / (out - 1) (0 for one output).
        const at = (i: number, k: number) => (outs[k]! > 1 ? (i * (ins[k]! - 1)) / (outs[k]! - 1) : 0);
        const expected = Array.from({ length: numel(outs) }, (_, p) => {
          const [d, h, w] = unravel(p, outs) as [number, number, number];
          return affine(at(d, 0), at(h, 1), at(w, 2));
        });
        expect(mismatch((await y.toData()).values, expected, 1e-5, 1e-5)).toBeUndefined();
        for (const v of [x, y]) v.dispose();
      }),
      { numRuns: 30 },
    );
  });
});

describe('interpolate mode errors', () => {
  const b = backends[0]!.backend;
  it('typed errors naming the function, the ranks and what to do, for typed and untyped callers', () => {
    const x2 = fromData(b, new Float32Array(6), { shape: [2, 3] });
    const x3 = fromData(b, new Float32Array(6), { shape: [1, 2, 3] });
    const x4 = fromData(b, new Float32Array(12), { shape: [1, 1, 3, 4] });
    const x5 = fromData(b, new Float32Array(24), { shape: [1, 1, 2, 3, 4] });
    const x6 = fromData(b, new Float32Array(2), { shape: [1, 1, 1, 1, 1, 2] });
    const i5 = fromData(b, new Int32Array(24), { shape: [1, 1, 2, 3, 4] });
    expect(() => interpolate(x3, { size: 4, mode: 'bicubic' })).toThrow(ShapeError);
    expect(() => interpolate(x5, { size: 4, mode: 'bicubic' })).toThrow(/interpolate: mode 'bicubic' needs the input \[N, C, H, W\], got rank 5.*use mode 'trilinear'/s);
    expect(() => interpolate(x4, { size: 4, mode: 'trilinear' })).toThrow(/mode 'trilinear' needs the input \[N, C, D, H, W\], got rank 4.*use mode 'bilinear'/s);
    expect(() => interpolate(x3, { size: 4, mode: 'trilinear' })).toThrow(/use mode 'linear'/);
    for (const mode of ['nearest', 'nearest-exact', 'area'] as const) {
      expect(() => interpolate(x2, { size: 4, mode })).toThrow(ShapeError);
      expect(() => interpolate(x6, { size: 4, mode })).toThrow(/\[N, C, L\] or \[N, C, H, W\] or \[N, C, D, H, W\], got rank 6/);
      expect(() => interpolate(x4, { size: 4, mode, alignCorners: false })).toThrow(ArgumentError);
      expect(() => interpolate(x4, { size: 4, mode, alignCorners: true })).toThrow(new RegExp(`alignCorners can only be set with the interpolating modes.*not '${mode}'`));
    }
    expect(() => interpolate(x5, { size: [2, 2] })).toThrow(/list of 3/);
    expect(() => interpolate(x5, { scaleFactor: [2, 0.1, 2], mode: 'area' })).toThrow(/greater than 0/);
    expect(() => interpolate(x5, { size: 2, mode: 'trilinear', recomputeScaleFactor: true })).toThrow(/not meaningful/);
    expect(() => interpolate(x4, untyped({ size: 4, mode: 'cubic' }))).toThrow(/mode must be 'nearest' or 'nearest-exact' or .*'area', got/);
    expect(() => interpolate(x4, untyped({ size: 4, mode: 'bicubic', alignCorners: 'yes' }))).toThrow(ArgumentError);
    expect(() => interpolate(untyped(i5), { size: 4, mode: 'trilinear' })).toThrow(DTypeError);
    for (const v of [x2, x3, x4, x5, x6, i5]) v.dispose();
  });
});
