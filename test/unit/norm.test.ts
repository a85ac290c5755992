/**
 * Tensor.norm (torch.linalg.vector_norm) against a float64 reference on every test backend (CPU,
 * a Router, WebGPU when an adapter exists): orders, dims, keepDims, empty and size-1 dims, edge
 * values, gradients against finite differences, torch's gradient conventions at zeros and ties,
 * the norm laws (fast-check), and the errors untyped callers get.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from '../autodiff/backends.js';
import { untyped } from '../untyped.js';
import { dimsOf, finiteDiff, leaf, mismatch, norm64, numel, randoms, reduceDims, valuesAndGrads, type Arr } from './ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

function ref(x: Arr, p: number, dim: number | number[] | null | undefined, keepDims: boolean): Arr {
  return reduceDims(x, dimsOf(dim, x.shape.length), keepDims, (g) => norm64(g, p));
}

const ORDERS = [2, 1, 0, 3, 0.5, 1.5, Infinity, -Infinity];
const SHAPES: Array<{ shape: number[]; dims: Array<number | number[] | null | undefined> }> = [
  { shape: [3, 4], dims: [undefined, 0, 1, -1, [0, 1], [], [-2]] },
  { shape: [2, 3, 4], dims: [null, 1, [0, 2], [-1, 0], [2, 1, 0]] },
  { shape: [5], dims: [undefined, 0, -1] },
  { shape: [], dims: [undefined, 0, -1] },
  { shape: [1, 5, 1], dims: [0, 1, 2, [0, 2]] },
  { shape: [2, 0, 3], dims: [0, 2, [0, 2]] },
  { shape: [2, 0, 3], dims: [1, undefined] },
];

for (const tb of backends) {
  describe(`norm on ${tb.name}`, () => {
    it('matches the float64 reference for every order, dim and keepDims', async () => {
      const b = tb.backend;
      let seed = 7;
      for (const { shape, dims } of SHAPES) {
        // A few exact zeros among the values (the 0-norm counts them).
        const values = randoms(numel(shape), seed++).map((v, i) => (i % 5 === 3 ? 0 : v));
        const x = fromData(b, Float32Array.from(values), { shape });
        for (const dim of dims) {
          const covered = dimsOf(dim, shape.length);
          const empty = covered.some((d) => shape[d] === 0) || (numel(shape) === 0 && covered.length === shape.length);
          for (const p of ORDERS) {
            if (empty && !Number.isFinite(p)) continue;
            for (const keepDims of [false, true]) {
              const out = x.norm(p, dim, keepDims);
              const expected = ref({ shape, data: values }, p, dim, keepDims);
              const label = `shape [${shape}] p ${p} dim ${JSON.stringify(dim)} keepDims ${keepDims}`;
              expect(out.shape, label).toEqual(expected.shape);
              expect(mismatch((await out.toData()).values, [...expected.data], 1e-5, 2e-5), label).toBeUndefined();
              out.dispose();
            }
          }
        }
        x.dispose();
      }
    });

    it('edge values: zeros, infinities, NaN, float32 overflow of x^2 (as torch, no rescaling), tiny values', async () => {
      const b = tb.backend;
      const rows: Array<[number[], number, number]> = [
        [[0, 0, 0], 2, 0],
        [[0, 0, 0], Infinity, 0],
        [[0, -0, 0], 0, 0],
        [[Infinity, 1], 2, Infinity],
        [[-Infinity, 1], 1, Infinity],
        [[-Infinity, 1], -Infinity, 1],
        [[NaN, 1], 2, NaN],
        [[NaN, 1], Infinity, NaN],
        [[NaN, 1], -Infinity, NaN],
        [[NaN, 0], 0, 1],
        [[Infinity, 0], 0, 1],
        // float32: 1e20^2 overflows, so the 2-norm is inf (torch.linalg.vector_norm on float32 too).
        [[1e20, 1], 2, Infinity],
        [[1e20, 1], 1, Math.fround(1e20)],
        [[1e20, -3e20], Infinity, Math.fround(3e20)],
        [[3e19, 4e19], 3, Infinity],
        // 1e-30^2 underflows to 0 in float32: the norm is 0, not 1e-30.
        [[1e-30, 1e-30], 2, 0],
        [[1e-30, 1e-30], 1, Math.fround(1e-30) * 2],
      ];
      for (const [values, p, expected] of rows) {
        const x = fromData(b, Float32Array.from(values));
        const out = x.norm(p);
        const got = (await out.toData()).values;
        expect(mismatch(got, [expected], 0, 1e-6), `norm([${values}], ${p})`).toBeUndefined();
        for (const t of [x, out]) t.dispose();
      }
    });

    it('gradients match finite differences of the float64 reference', async () => {
      const b = tb.backend;
      const shape = [3, 4];
      let seed = 40;
      for (const p of ORDERS.filter((q) => q !== 0)) {
        for (const dim of [undefined, 1, [0, 1], 0]) {
          // Away from 0 (the kinks) and with distinct magnitudes (no ties for the inf-norms).
          const values = randoms(12, seed++, 0.3, 2).map((v, i) => (i % 3 === 1 ? -v - i * 0.01 : v + i * 0.01));
          const w = randoms(numel(ref({ shape, data: values }, p, dim, false).shape), seed++, -1, 1);
          const x = leaf(b, values, shape);
          const out = x.norm(p, dim);
          const { grads } = await valuesAndGrads(b, out, [x], w);
          const numeric = finiteDiff(([v]) => ref({ shape, data: v! }, p, dim, false).data, [values], w)[0]!;
          expect(mismatch(grads[0]!, numeric, 2e-3, 2e-3), `p ${p} dim ${JSON.stringify(dim)}`).toBeUndefined();
          for (const t of [x, out]) t.dispose();
        }
      }
    });

    it("torch's gradient conventions: 0 at a zero norm, 0 at zero entries, ties of the inf-norm share evenly, 0 along a line with NaN for the inf-norm, the 0-norm's is 0", async () => {
      const b = tb.backend;
      const cases: Array<[number[], number, number[]]> = [
        [[0, 0, 0], 2, [0, 0, 0]],
        [[0, 0, 0], 3, [0, 0, 0]],
        [[0, 0, 0], 0.5, [0, 0, 0]],
        [[0, 0, 0], 1, [0, 0, 0]],
        [[0, 0, 0], Infinity, [0, 0, 0]],
        // p < 1 with a zero entry: torch masks x == 0 (else inf * 0 = NaN).
        [[0, 4, 0], 0.5, [0, 1, 0]],
        [[3, 0, -4], 2, [0.6, 0, -0.8]],
        [[3, 0, -4], 3, [9 / 91 ** (2 / 3), 0, -16 / 91 ** (2 / 3)]],
        // The inf-norm: the gradient is split among the tied maxima, with their signs.
        [[2, -2, 1], Infinity, [0.5, -0.5, 0]],
        [[1, -1, 2], -Infinity, [0.5, -0.5, 0]],
        [[1, -3, 2, 0], 0, [0, 0, 0, 0]],
        // A NaN makes the ±inf-norm NaN; torch counts the NaN as the extreme and gives it sgn(NaN) = 0, so the line's gradient is 0 (not NaN spread by dy / 0).
        [[NaN, 2, -3], Infinity, [0, 0, 0]],
        [[NaN, 2, -3], -Infinity, [0, 0, 0]],
      ];
      for (const [values, p, expected] of cases) {
        const x = leaf(b, values, [values.length]);
        const out = x.norm(p);
        const { grads } = await valuesAndGrads(b, out, [x], [1]);
        expect(grads[0], `norm([${values}], ${p})`).toBeDefined();
        expect(mismatch(grads[0]!, expected, 1e-6, 1e-5), `norm([${values}], ${p})`).toBeUndefined();
        for (const t of [x, out]) t.dispose();
      }
    });
  });
}

describe('norm laws (fast-check, CPU)', () => {
  const b = backends[0]!.backend;
  const vec = fc.array(fc.float({ min: -100, max: 100, noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 12 });
  const order = fc.constantFrom(1, 2, 3, 1.5, Infinity);

  it('triangle inequality ||x + y|| <= ||x|| + ||y|| for p >= 1', async () => {
    await fc.assert(
      fc.asyncProperty(vec, fc.array(fc.float({ min: -100, max: 100, noNaN: true }), { minLength: 12, maxLength: 12 }), order, async (xs, ys, p) => {
        const x = fromData(b, Float32Array.from(xs), { shape: [xs.length] });
        const y = fromData(b, Float32Array.from(ys.slice(0, xs.length)), { shape: [xs.length] });
        const s = x.add(y);
        const [ns, nx, ny] = await Promise.all([s.norm(p).item(), x.norm(p).item(), y.norm(p).item()]);
        expect(ns).toBeLessThanOrEqual((nx + ny) * (1 + 1e-5) + 1e-5);
        for (const t of [x, y, s]) t.dispose();
      }),
      { numRuns: 60 },
    );
  });

  it('absolute homogeneity ||c x|| = |c| ||x||', async () => {
    await fc.assert(
      fc.asyncProperty(vec, fc.integer({ min: -64, max: 64 }).map((k) => k / 8), order, async (xs, c, p) => {
        const x = fromData(b, Float32Array.from(xs), { shape: [xs.length] });
        const cx = x.mul(c);
        const [a, n] = await Promise.all([cx.norm(p).item(), x.norm(p).item()]);
        expect(Math.abs(a - Math.abs(c) * n)).toBeLessThanOrEqual(1e-5 * Math.abs(c) * n + 1e-6);
        for (const t of [x, cx]) t.dispose();
      }),
      { numRuns: 60 },
    );
  });
});

describe('norm errors', () => {
  const b = backends[0]!.backend;
  it('names the op, for typed and untyped callers', () => {
    const x = fromData(b, [[1, 2], [3, 4]]);
    const i = fromData(b, Int32Array.from([1, 2]));
    const e = fromData(b, new Float32Array(0), { shape: [0, 2] });
    expect(() => untyped<{ norm(p: unknown): unknown }>(i).norm(2)).toThrow(DTypeError);
    expect(() => x.norm(untyped<number>(null))).toThrow(ArgumentError);
    expect(() => e.norm(-1)).toThrow(/-1 norm of an empty reduction/);
    expect(() => x.norm(NaN)).toThrow(/norm: p must be/);
    expect(() => x.norm(untyped<number>('2'))).toThrow(ArgumentError);
    expect(() => x.norm(2, 2)).toThrow(ShapeError);
    expect(() => x.norm(2, [0, 0])).toThrow(ShapeError);
    expect(() => x.norm(2, untyped<number>('0'))).toThrow(/norm/);
    expect(() => x.norm(2, 0, untyped<boolean>(1))).toThrow(ArgumentError);
    expect(() => e.norm(Infinity, 0)).toThrow(ShapeError);
    expect(() => e.norm(-Infinity)).toThrow(/inf norm of an empty reduction/);
    const d = fromData(b, [1, 2]);
    d.dispose();
    expect(() => d.norm()).toThrow(/disposed/);
    for (const t of [x, i, e]) t.dispose();
  });
});
