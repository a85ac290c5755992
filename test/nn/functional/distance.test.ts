/**
 * nn.functional.normalize / cosineSimilarity / pairwiseDistance against float64 references on
 * every test backend: shapes with broadcasting, size-0 and size-1 dims, negative dims, edge
 * values, gradients against finite differences, torch's eps conventions, and argument errors.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../../src/errors.js';
import { cosineSimilarity, normalize, pairwiseDistance } from '../../../src/nn/functional/index.js';
import { fromData } from '../../../src/tensor/creation.js';
import { testBackends } from '../../autodiff/backends.js';
import { untyped } from '../../untyped.js';
import { broadcastShape, broadcastTo, dimsOf, finiteDiff, leaf, mapGroups, mismatch, norm64, numel, randoms, reduceDims, valuesAndGrads, type Arr } from '../../unit/ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

function normalize64(x: Arr, p: number, dim: number | number[], eps: number): Arr {
  return mapGroups(x, dimsOf(dim, x.shape.length), (g) => {
    const n = Math.max(norm64(g, p), eps);
    return g.map((v) => v / (Number.isNaN(n) ? NaN : n));
  });
}

function cosine64(a: Arr, b: Arr, dim: number, eps: number): Arr {
  const shape = broadcastShape(a.shape, b.shape);
  const [x, y] = [broadcastTo(a, shape), broadcastTo(b, shape)];
  const d = dimsOf(dim, shape.length);
  const ux = normalize64(x, 2, d, eps);
  const uy = normalize64(y, 2, d, eps);
  return reduceDims({ shape, data: ux.data.map((v, i) => v * uy.data[i]!) }, d, false, (g) => g.reduce((s, v) => s + v, 0));
}

function pairwise64(a: Arr, b: Arr, p: number, eps: number, keepDims: boolean): Arr {
  const shape = broadcastShape(a.shape, b.shape);
  const [x, y] = [broadcastTo(a, shape), broadcastTo(b, shape)];
  const diff = { shape, data: x.data.map((v, i) => v - y.data[i]! + eps) };
  return reduceDims(diff, dimsOf(-1, shape.length), keepDims, (g) => norm64(g, p));
}

const arr = (shape: number[], seed: number, lo = -2, hi = 2): Arr => ({ shape, data: randoms(numel(shape), seed, lo, hi) });

for (const tb of backends) {
  describe(`norm functions on ${tb.name}`, () => {
    const b = tb.backend;
    const t = (x: Arr) => fromData(b, Float32Array.from(x.data), { shape: x.shape });

    it('normalize matches the reference over dims, orders and shapes', async () => {
      const cases: Array<[number[], number | number[]]> = [
        [[3, 4], 1],
        [[3, 4], 0],
        [[3, 4], -1],
        [[2, 3, 4], [1, 2]],
        [[2, 1, 3], 1],
        [[2, 0, 3], 1],
        [[2, 0, 3], 2],
        [[5], 0],
      ];
      let seed = 1;
      for (const [shape, dim] of cases) {
        for (const p of [2, 1, Infinity, 0.5]) {
          const x = arr(shape, seed++);
          // The inf-norm of an empty line has no value: refused (torch too).
          const xt = t(x);
          if (p === Infinity && dimsOf(dim, shape.length).some((d) => shape[d] === 0)) {
            expect(() => normalize(xt, { p, dim })).toThrow(ShapeError);
            xt.dispose();
            continue;
          }
          const out = normalize(xt, { p, dim });
          expect(out.shape).toEqual(shape);
          expect(mismatch((await out.toData()).values, [...normalize64(x, p, dim, 1e-12).data], 1e-6, 1e-5), `[${shape}] dim ${dim} p ${p}`).toBeUndefined();
          for (const v of [xt, out]) v.dispose();
        }
      }
      // Defaults: p 2 over dim 1; a zero row stays 0 (0 / eps); inf gives NaN there and 0 beside it, as torch.
      const edge: Arr = { shape: [4, 2], data: [3, 4, 0, 0, Infinity, 1, NaN, 1] };
      const xt = t(edge);
      const out = normalize(xt);
      expect(mismatch((await out.toData()).values, [0.6, 0.8, 0, 0, NaN, 0, NaN, NaN])).toBeUndefined();
      // A large eps clamps the divisor.
      const small = normalize(xt, { eps: 100 });
      expect(mismatch((await small.toData()).values, [0.03, 0.04, 0, 0, NaN, 0, NaN, NaN])).toBeUndefined();
      for (const v of [xt, out, small]) v.dispose();
    });

    it('cosineSimilarity matches the reference, broadcasting a and b', async () => {
      const cases: Array<[number[], number[], number]> = [
        [[3, 4], [3, 4], 1],
        [[3, 4], [3, 4], 0],
        [[2, 1, 4], [3, 4], -1],
        [[2, 1, 4], [3, 4], 1],
        [[4], [2, 4], -1],
        [[1, 4], [3, 1], 0],
        [[0, 4], [0, 4], 1],
        [[3, 0], [3, 0], 1],
        [[3, 1], [3, 1], 1],
      ];
      let seed = 100;
      for (const [sa, sb, dim] of cases) {
        const a = arr(sa, seed++);
        const bb = arr(sb, seed++);
        const [at, bt] = [t(a), t(bb)];
        const out = cosineSimilarity(at, bt, { dim });
        const ref = cosine64(a, bb, dim, 1e-8);
        expect(out.shape).toEqual(ref.shape);
        expect(mismatch((await out.toData()).values, [...ref.data], 1e-6, 1e-5), `[${sa}] [${sb}] dim ${dim}`).toBeUndefined();
        for (const v of [at, bt, out]) v.dispose();
      }
      // Zero vectors give 0; NaN propagates; values whose squares overflow float32 give 0 (their norm is inf), as torch.
      const a = t({ shape: [4, 2], data: [0, 0, 1, NaN, 1e20, 1e20, 2, 0] });
      const c = t({ shape: [4, 2], data: [1, 2, 1, 1, 1e20, 1e20, -5, 0] });
      const out = cosineSimilarity(a, c);
      expect(mismatch((await out.toData()).values, [0, NaN, 0, -1])).toBeUndefined();
      for (const v of [a, c, out]) v.dispose();
    });

    it('pairwiseDistance matches the reference (the last dim of the broadcast shape, eps added to the difference)', async () => {
      const cases: Array<[number[], number[]]> = [
        [[3, 4], [3, 4]],
        [[2, 1, 4], [3, 4]],
        [[4], [4]],
        [[], []],
        [[0, 4], [0, 4]],
        [[3, 0], [3, 0]],
        [[3, 1], [1, 5]],
      ];
      let seed = 200;
      for (const [sa, sb] of cases) {
        for (const p of [2, 1, Infinity, 3, 0]) {
          for (const keepDims of [false, true]) {
            const a = arr(sa, seed++);
            const bb = arr(sb, seed++);
            const [at, bt] = [t(a), t(bb)];
            if (p === Infinity && sa[sa.length - 1] === 0) {
              expect(() => pairwiseDistance(at, bt, { p, keepDims })).toThrow(ShapeError);
              for (const v of [at, bt]) v.dispose();
              continue;
            }
            const out = pairwiseDistance(at, bt, { p, keepDims });
            const ref = pairwise64(a, bb, p, 1e-6, keepDims);
            const label = `[${sa}] [${sb}] p ${p} keepDims ${keepDims}`;
            expect(out.shape, label).toEqual(ref.shape);
            expect(mismatch((await out.toData()).values, [...ref.data], 1e-5, 1e-5), label).toBeUndefined();
            for (const v of [at, bt, out]) v.dispose();
          }
        }
      }
      // eps: torch's 1e-6 shift makes the distance of equal rows sqrt(n) * 1e-6, not 0.
      const x = t({ shape: [1, 4], data: [1, 2, 3, 4] });
      const d = pairwiseDistance(x, x);
      expect(mismatch((await d.toData()).values, [2e-6], 1e-12, 1e-3)).toBeUndefined();
      const d0 = pairwiseDistance(x, x, { eps: 0 });
      expect((await d0.toData()).values[0]).toBe(0);
      for (const v of [x, d, d0]) v.dispose();
    });

    it('gradients match finite differences of the references', async () => {
      let seed = 300;
      const check = async (label: string, shapes: number[][], run: (xs: ReturnType<typeof leaf>[]) => ReturnType<typeof leaf>, ref: (xs: Arr[]) => Arr) => {
        const inputs = shapes.map((s) => arr(s, seed++, 0.2, 2).data.map((v, i) => (i % 3 === 1 ? -v - 0.01 * i : v + 0.01 * i)));
        const outRef = ref(inputs.map((d, k) => ({ shape: shapes[k]!, data: d })));
        const w = randoms(numel(outRef.shape), seed++, -1, 1);
        const xs = inputs.map((d, k) => leaf(b, d, shapes[k]!));
        const out = run(xs);
        const { grads } = await valuesAndGrads(b, out, xs, w);
        const numeric = finiteDiff((vs) => ref(vs.map((d, k) => ({ shape: shapes[k]!, data: d }))).data, inputs, w);
        grads.forEach((g, k) => {
          expect(g, `${label}: input ${k}`).toBeDefined();
          expect(mismatch(g!, numeric[k]!, 2e-3, 2e-3), `${label}: input ${k}`).toBeUndefined();
        });
        for (const v of [...xs, out]) v.dispose();
      };
      for (const p of [2, 1, 3]) await check(`normalize p ${p}`, [[3, 4]], ([x]) => normalize(x!, { p }), ([x]) => normalize64(x!, p, 1, 1e-12));
      await check('normalize dims [0, 2]', [[2, 3, 2]], ([x]) => normalize(x!, { dim: [0, 2] }), ([x]) => normalize64(x!, 2, [0, 2], 1e-12));
      await check('cosineSimilarity', [[3, 4], [3, 4]], ([x, y]) => cosineSimilarity(x!, y!), ([x, y]) => cosine64(x!, y!, 1, 1e-8));
      await check('cosineSimilarity broadcast', [[2, 1, 3], [4, 3]], ([x, y]) => cosineSimilarity(x!, y!, { dim: -1 }), ([x, y]) => cosine64(x!, y!, -1, 1e-8));
      for (const p of [2, 1, 3]) await check(`pairwiseDistance p ${p}`, [[3, 4], [1, 4]], ([x, y]) => pairwiseDistance(x!, y!, { p }), ([x, y]) => pairwise64(x!, y!, p, 1e-6, false));
    });

    it("cosineSimilarity's gradient below eps flows through the unclamped norm, as torch's no_grad clamp", async () => {
      // a = [1e-9, 0], |a| < eps = 1e-8: forward a0 / eps * 1 = 0.1; d/da0 (a0 / (|a| + const)) = 1/eps - a0^2 / (|a| eps^2) = 9e7.
      const a = leaf(b, [1e-9, 0], [1, 2]);
      const c = leaf(b, [1, 0], [1, 2]);
      const out = cosineSimilarity(a, c);
      const { values, grads } = await valuesAndGrads(b, out, [a, c], [1]);
      expect(mismatch(values, [0.1], 0, 1e-5)).toBeUndefined();
      expect(mismatch(grads[0]!, [9e7, 0], 0, 1e-4)).toBeUndefined();
      // Zero inputs: a finite (zero) gradient, not NaN.
      const z = leaf(b, [0, 0], [1, 2]);
      const oz = cosineSimilarity(z, c);
      const gz = await valuesAndGrads(b, oz, [z], [1]);
      expect(mismatch(gz.grads[0]!, [1e8, 0], 0, 1e-5)).toBeUndefined();
      for (const v of [a, c, out, z, oz]) v.dispose();
    });
  });
}

describe('norm function errors', () => {
  const b = backends[0]!.backend;
  it('typed errors that name the function, for typed and untyped callers', () => {
    const x = fromData(b, [[1, 2], [3, 4]]);
    const y = fromData(b, [[1, 2, 3]]);
    const i = fromData(b, Int32Array.from([1, 2]));
    expect(() => normalize(x, { dim: 2 })).toThrow(/normalize/);
    expect(() => normalize(x, { dim: 2 })).toThrow(ShapeError);
    expect(() => normalize(x, { p: NaN })).toThrow(ArgumentError);
    expect(() => normalize(x, { eps: -1 })).toThrow(ArgumentError);
    expect(() => normalize(x, untyped({ dims: 1 }))).toThrow(/unknown option 'dims'/);
    expect(() => normalize(untyped(null))).toThrow(ArgumentError);
    expect(() => normalize(untyped(i))).toThrow(DTypeError);
    expect(() => cosineSimilarity(x, y)).toThrow(ShapeError);
    expect(() => cosineSimilarity(x, x, { dim: 3 })).toThrow(/cosineSimilarity/);
    expect(() => cosineSimilarity(x, untyped([1, 2]))).toThrow(ArgumentError);
    expect(() => cosineSimilarity(x, x, untyped({ dim: '1' }))).toThrow(ArgumentError);
    expect(() => pairwiseDistance(x, y)).toThrow(/pairwiseDistance/);
    expect(() => pairwiseDistance(x, x, { p: untyped('2') })).toThrow(ArgumentError);
    expect(() => pairwiseDistance(x, x, { keepDims: untyped(1) })).toThrow(ArgumentError);
    expect(() => pairwiseDistance(x, untyped(i))).toThrow(DTypeError);
    for (const v of [x, y, i]) v.dispose();
  });
});
