/**
 * elu, celu, glu, logSigmoid, softsign, tanhshrink, hardshrink, softshrink, threshold, softmin and
 * prelu (functional and modules) on every test backend, against float64 references written here
 * with torch's definitions: values, and gradients with torch's choice at each kink (the derivative
 * is written out, and checked against finite differences of the reference away from the kinks);
 * edge values (kinks, zeros, huge magnitudes, NaN), float16, laws, and bad input.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { Celu, Elu, Glu, Hardshrink, LogSigmoid, PRelu, Softmin, Softshrink, Softsign, Tanhshrink, Threshold } from '../../src/nn/index.js';
import { celu, elu, glu, hardshrink, logSigmoid, prelu, softmin, softshrink, softsign, tanhshrink, threshold } from '../../src/nn/functional/index.js';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from '../autodiff/backends.js';
import { thrown } from '../thrown.js';
import { untyped } from '../untyped.js';
import { finiteDiff, leaf, mismatch, numel, randoms, ravel, unravel, valuesAndGrads, type F } from '../unit/ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const f32 = Math.fround;
const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));

/** An elementwise activation: the op, its float64 value and torch's derivative (the kink's side chosen as torch's backward). */
interface Pointwise {
  readonly name: string;
  run(x: F): F;
  value(x: number): number;
  slope(x: number): number;
  /** Points where the derivative jumps: finite differences there are not a reference. */
  readonly kinks: readonly number[];
}

function shrinkCases(l: number): Pointwise[] {
  const L = f32(l);
  const band = (x: number) => x >= -L && x <= L;
  return [
    { name: `hardshrink(${l})`, run: (x) => hardshrink(x, l), value: (x) => (band(x) ? 0 : x), slope: (x) => (band(x) ? 0 : 1), kinks: [-L, L] },
    { name: `softshrink(${l})`, run: (x) => softshrink(x, l), value: (x) => (x > L ? x - L : x < -L ? x + L : 0), slope: (x) => (band(x) ? 0 : 1), kinks: [-L, L] },
  ];
}

const POINTWISE: Pointwise[] = [
  { name: 'elu', run: (x) => elu(x), value: (x) => (x > 0 ? x : Math.expm1(x)), slope: (x) => (x > 0 ? 1 : Math.exp(x)), kinks: [0] },
  { name: 'elu(0.7)', run: (x) => elu(x, 0.7), value: (x) => (x > 0 ? x : 0.7 * Math.expm1(x)), slope: (x) => (x > 0 ? 1 : 0.7 * Math.exp(x)), kinks: [0] },
  ...[1, 2, -1.5].map((a): Pointwise => ({ name: `celu(${a})`, run: (x) => celu(x, a), value: (x) => (x > 0 ? x : a * Math.expm1(x / a)), slope: (x) => (x > 0 ? 1 : Math.exp(x / a)), kinks: [0] })),
  { name: 'logSigmoid', run: (x) => logSigmoid(x), value: (x) => (x < 0 ? x - Math.log1p(Math.exp(x)) : -Math.log1p(Math.exp(-x))), slope: (x) => sigmoid(-x), kinks: [] },
  { name: 'softsign', run: (x) => softsign(x), value: (x) => x / (1 + Math.abs(x)), slope: (x) => 1 / (1 + Math.abs(x)) ** 2, kinks: [] },
  { name: 'tanhshrink', run: (x) => tanhshrink(x), value: (x) => x - Math.tanh(x), slope: (x) => Math.tanh(x) ** 2, kinks: [] },
  ...shrinkCases(0.5),
  ...shrinkCases(0.1),
  ...shrinkCases(0),
  { name: 'threshold(0.1, -3)', run: (x) => threshold(x, 0.1, -3), value: (x) => (x > f32(0.1) ? x : -3), slope: (x) => (x > f32(0.1) ? 1 : 0), kinks: [f32(0.1)] },
  { name: 'threshold(-1, 20)', run: (x) => threshold(x, -1, 20), value: (x) => (x > -1 ? x : 20), slope: (x) => (x > -1 ? 1 : 0), kinks: [-1] },
];

/** Kinks, signed zeros, tiny and huge magnitudes, the shrink bands' edges, plus randoms. */
const EDGES = [0, -0, 1e-8, -1e-8, 0.5, -0.5, f32(0.1), -f32(0.1), 1, -1, 20, -20, 88, -88, 100, -100, 1e4, -1e4, 1e30, -1e30];
const INPUTS = [...EDGES, ...randoms(24, 11, -3, 3)];

for (const tb of backends) {
  describe(`more activations on ${tb.name}`, () => {
    const b = tb.backend;

    it('values and gradients match float64 references, kinks and huge magnitudes included', async () => {
      const w = randoms(INPUTS.length, 12, -1, 1);
      for (const a of POINTWISE) {
        const x = leaf(b, INPUTS, [INPUTS.length]);
        const y = a.run(x);
        expect(y.shape).toEqual([INPUTS.length]);
        const { values, grads } = await valuesAndGrads(b, y, [x], w);
        expect(mismatch(values, INPUTS.map(a.value), 1e-6, 1e-5), `${a.name} value`).toBeUndefined();
        expect(mismatch(grads[0]!, INPUTS.map((v, i) => a.slope(v) * w[i]!), 1e-6, 1e-5), `${a.name} gradient`).toBeUndefined();
        for (const t of [x, y]) t.dispose();
      }
    });

    it('NaN stays NaN (torch propagates it through every branch)', async () => {
      for (const a of POINTWISE) {
        const x = fromData(b, [Number.NaN, 1, -1]);
        const y = a.run(x);
        const v = (await y.toData()).values;
        expect(v[0], a.name).toBeNaN();
        for (const t of [x, y]) t.dispose();
      }
    });

    it('glu halves the dim: a * sigmoid(b), with its gradient, along any dim', async () => {
      for (const [shape, dim] of [[[2, 6], -1], [[4, 3], 0], [[2, 4, 3], 1], [[2], 0]] as const) {
        const values = randoms(numel(shape), 20 + dim, -4, 4);
        const d = dim < 0 ? dim + shape.length : dim;
        const outShape = shape.map((n, k) => (k === d ? n / 2 : n));
        const ref = (v: readonly number[]) =>
          Array.from({ length: numel(outShape) }, (_, p) => {
            const idx = unravel(p, outShape);
            const other = idx.map((i, k) => (k === d ? i + shape[d]! / 2 : i));
            return v[ravel(idx, shape)]! * sigmoid(v[ravel(other, shape)]!);
          });
        const w = randoms(numel(outShape), 30, -1, 1);
        const x = leaf(b, values, shape);
        const y = glu(x, dim);
        expect(y.shape).toEqual(outShape);
        const { values: got, grads } = await valuesAndGrads(b, y, [x], w);
        expect(mismatch(got, ref(values), 1e-6, 1e-5)).toBeUndefined();
        expect(mismatch(grads[0]!, finiteDiff(([v]) => ref(v!), [values], w)[0]!, 1e-4, 1e-3), `glu gradient [${shape}] dim ${dim}`).toBeUndefined();
        for (const t of [x, y]) t.dispose();
      }
    });

    it('softmin is softmax(-x) along dim, with its Jacobian; huge values stay finite', async () => {
      const shape = [3, 4];
      const values = [...randoms(8, 40, -3, 3), 1e4, -1e4, 0, 50];
      for (const dim of [0, 1, -1]) {
        const d = dim < 0 ? dim + 2 : dim;
        const ref = (v: readonly number[]) => {
          const out = new Array<number>(v.length).fill(0);
          const lines = d === 1 ? [0, 1, 2].map((r) => [0, 1, 2, 3].map((c) => r * 4 + c)) : [0, 1, 2, 3].map((c) => [0, 1, 2].map((r) => r * 4 + c));
          for (const line of lines) {
            const m = Math.min(...line.map((i) => v[i]!));
            const e = line.map((i) => Math.exp(-(v[i]! - m)));
            const s = e.reduce((p, q) => p + q, 0);
            line.forEach((i, k) => (out[i] = e[k]! / s));
          }
          return out;
        };
        const w = randoms(12, 41 + d, -1, 1);
        const x = leaf(b, values, shape);
        const y = softmin(x, dim);
        const { values: got, grads } = await valuesAndGrads(b, y, [x], w);
        const yr = ref(values);
        expect(mismatch(got, yr, 1e-6, 1e-5)).toBeUndefined();
        // dL/dx_i = -y_i (w_i - sum_j w_j y_j) along each line.
        const lines = d === 1 ? [0, 1, 2].map((r) => [0, 1, 2, 3].map((c) => r * 4 + c)) : [0, 1, 2, 3].map((c) => [0, 1, 2].map((r) => r * 4 + c));
        const g = new Array<number>(12).fill(0);
        for (const line of lines) {
          const dot = line.reduce((s, i) => s + w[i]! * yr[i]!, 0);
          for (const i of line) g[i] = -yr[i]! * (w[i]! - dot);
        }
        expect(mismatch(grads[0]!, g, 1e-6, 1e-5), `softmin gradient dim ${dim}`).toBeUndefined();
        for (const t of [x, y]) t.dispose();
      }
    });

    it('prelu: one slope or one per channel (dim 1); at 0 the input takes the slope and the weight 0', async () => {
      const shape = [2, 3, 4];
      const values = [0, -0, 1e-8, -1e4, ...randoms(20, 50, -2, 2)];
      const w = randoms(24, 51, -1, 1);
      for (const slopes of [[0.25], [0.1, -0.5, 2]]) {
        const per = (i: number) => slopes[slopes.length === 1 ? 0 : unravel(i, shape)[1]!]!;
        const x = leaf(b, values, shape);
        const wt = leaf(b, slopes, [slopes.length]);
        const y = prelu(x, wt);
        const { values: got, grads } = await valuesAndGrads(b, y, [x, wt], w);
        expect(mismatch(got, values.map((v, i) => (v > 0 ? v : per(i) * v)), 1e-6, 1e-5)).toBeUndefined();
        expect(mismatch(grads[0]!, values.map((v, i) => (v > 0 ? 1 : per(i)) * w[i]!), 1e-6, 1e-5), 'input gradient').toBeUndefined();
        const gw = slopes.map((_, c) => values.reduce((s, v, i) => (v <= 0 && (slopes.length === 1 || unravel(i, shape)[1] === c) ? s + v * w[i]! : s), 0));
        expect(mismatch(grads[1]!, gw, 1e-4, 1e-5), 'weight gradient').toBeUndefined();
        for (const t of [x, wt, y]) t.dispose();
      }
      // A rank-1 input is one channel (torch): only a single weight fits it.
      const x1 = fromData(b, [-2, 3]);
      const y1 = prelu(x1, fromData(b, [0.5]));
      expect(Array.from((await y1.toData()).values)).toEqual([-1, 3]);
      expect(() => prelu(x1, fromData(b, [0.5, 0.5]))).toThrow(/1 channel/);
    });

    it('float16 in, float16 out, within a few float16 steps of float64 on the rounded inputs (overflow to inf as torch)', async () => {
      const inputs = [0, -0.5, 0.5, 1, -1, 3.25, -3.25, 100, -100, 0.099975586, -7];
      // Beyond the largest float16 (65504, rounding up from 65520) a result is infinite.
      const half = (v: number) => (Math.abs(v) >= 65520 ? Math.sign(v) * Infinity : v);
      for (const a of POINTWISE) {
        const x = fromData(b, inputs, { dtype: 'float16' });
        const xs = Array.from((await x.toData()).values);
        const y = a.run(x);
        expect(y.dtype, a.name).toBe('float16');
        expect(mismatch((await y.toData()).values, xs.map((v) => half(a.value(v))), 2e-3, 4e-3), a.name).toBeUndefined();
        for (const t of [x, y]) t.dispose();
      }
    });

    it('modules: the functional values, settings checked at construction, PRelu learns its weight', async () => {
      const x = fromData(b, [[-2, -0.5, 0, 0.3, 4, 1.5]]);
      const pairs: Array<[{ forward(t: F): F }, F]> = [
        [new Elu<typeof b>(0.5), elu(x, 0.5)],
        [new Celu<typeof b>(2), celu(x, 2)],
        [new Glu<typeof b>(), glu(x)],
        [new LogSigmoid<typeof b>(), logSigmoid(x)],
        [new Softsign<typeof b>(), softsign(x)],
        [new Tanhshrink<typeof b>(), tanhshrink(x)],
        [new Hardshrink<typeof b>(), hardshrink(x)],
        [new Softshrink<typeof b>(0.3), softshrink(x, 0.3)],
        [new Threshold<typeof b>(0.3, 7), threshold(x, 0.3, 7)],
        [new Softmin<typeof b>(), softmin(x, -1)],
      ];
      for (const [m, expected] of pairs) {
        const y = m.forward(x);
        expect(Array.from((await y.toData()).values), m.constructor.name).toEqual(Array.from((await expected.toData()).values));
      }
      const p1 = new PRelu(b);
      expect(p1.weight.shape).toEqual([1]);
      expect(Array.from((await p1.weight.value.toData()).values)).toEqual([0.25]);
      expect(p1.numParams()).toBe(1);
      const p3 = new PRelu(b, { numParameters: 3, init: 0.1 });
      expect(p3.namedParams().map(([n]) => n)).toEqual(['weight']);
      const img = leaf(b, [-1, 2, -3, 4, -5, 6], [1, 3, 2]);
      const out = p3.forward(img);
      const g = out.sum().backward();
      expect(mismatch((await p3.weight.value.grad(g)!.toData()).values, [-1, -3, -5])).toBeUndefined();
      expect(mismatch((await out.toData()).values, [-0.1, 2, -0.3, 4, -0.5, 6].map(f32))).toBeUndefined();
      expect(() => p3.forward(fromData(b, [[1, 2]]))).toThrow(ShapeError);
    });
  });
}

describe('activation references away from the kinks (float64 finite differences)', () => {
  it("each written derivative is its value's derivative", () => {
    const xs = randoms(40, 70, -4, 4);
    for (const a of POINTWISE) {
      const smooth = xs.filter((v) => a.kinks.every((k) => Math.abs(v - k) > 1e-3));
      const numeric = finiteDiff(([v]) => v!.map(a.value), [smooth], smooth.map(() => 1))[0]!;
      // finiteDiff sums all outputs: elementwise, each element's own slope.
      expect(mismatch(numeric, smooth.map(a.slope), 1e-6, 1e-6), a.name).toBeUndefined();
    }
  });
});

describe('activation laws (fast-check, CPU)', () => {
  const b = backends[0]!.backend;
  it('logSigmoid(x) - logSigmoid(-x) = x; softmin sums to 1 and is largest at the minimum; celu(x, 1) = elu(x)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.float({ min: -30, max: 30, noNaN: true }), { minLength: 1, maxLength: 8 }), async (v) => {
        const x = fromData(b, v);
        const diff = logSigmoid(x).sub(logSigmoid(x.neg()));
        expect(mismatch((await diff.toData()).values, v.map(f32), 1e-5, 1e-5)).toBeUndefined();
        const s = Array.from((await softmin(x, 0).toData()).values);
        expect(Math.abs(s.reduce((p, q) => p + q, 0) - 1)).toBeLessThan(1e-5);
        const min = Math.min(...v.map(f32));
        expect(s[v.map(f32).indexOf(min)]).toBe(Math.max(...s));
        expect(Array.from((await celu(x, 1).toData()).values)).toEqual(Array.from((await elu(x).toData()).values));
        x.dispose();
      }),
      { numRuns: 40 },
    );
  });
});

describe('more activations: bad input', () => {
  const b = backends[0]!.backend;
  it('typed errors naming the function, for typed and untyped callers', () => {
    const x = fromData(b, [[1, 2, 3]]);
    const i = fromData(b, Int32Array.of(1, 2));
    expect(() => elu(untyped(null))).toThrow(ArgumentError);
    expect(() => softsign(untyped('x'))).toThrow(/softsign: input must be a tensor/);
    expect(() => tanhshrink(untyped(i))).toThrow(DTypeError);
    expect(() => hardshrink(untyped(i))).toThrow(/hardshrink: takes float tensors/);
    expect(() => elu(x, untyped('1'))).toThrow(ArgumentError);
    expect(() => celu(x, 0)).toThrow(/celu: alpha cannot be 0/);
    expect(() => celu(x, Number.NaN)).toThrow(ArgumentError);
    expect(() => hardshrink(x, Number.NaN)).toThrow(/lambd must be a number, got NaN/);
    expect(() => softshrink(x, -0.5)).toThrow(/softshrink: lambd must be >= 0/);
    expect(() => threshold(x, untyped(undefined), 0)).toThrow(/threshold: threshold must be a number/);
    expect(() => threshold(x, 0, untyped(null))).toThrow(/value must be a number/);
    expect(() => glu(x)).toThrow(/glu: the halved dim 1 must have an even size, got 3/);
    expect(() => glu(fromData(b, 1))).toThrow(ShapeError);
    expect(() => glu(fromData(b, [1, 2]), 1)).toThrow(/glu: dim 1 is out of range/);
    expect(() => glu(x, untyped(0.5))).toThrow(ArgumentError);
    expect(() => softmin(x, untyped(undefined))).toThrow(/softmin: dim is required/);
    expect(() => softmin(x, 2)).toThrow(ShapeError);
    expect(() => prelu(x, fromData(b, [0.1, 0.2]))).toThrow(/prelu: weight has 2 elements but the input has 3 channels/);
    expect(() => prelu(x, fromData(b, [[0.1]]))).toThrow(/scalar or 1-D/);
    expect(() => prelu(x, fromData(b, [0.1], { dtype: 'float16' }))).toThrow(DTypeError);
    expect(() => prelu(x, untyped(null))).toThrow(ArgumentError);
    expect(() => new Celu(0)).toThrow(ArgumentError);
    expect(() => new Softshrink(-1)).toThrow(/Softshrink: lambd must be >= 0/);
    expect(() => new Hardshrink(untyped('0.5'))).toThrow(ArgumentError);
    expect(() => new Threshold(untyped(undefined), 1)).toThrow(ArgumentError);
    expect(() => new Glu(untyped(1.5))).toThrow(ArgumentError);
    expect(() => new Softmin(untyped('x'))).toThrow(ArgumentError);
    expect(() => new PRelu(b, { numParameters: 0 })).toThrow(/PRelu: numParameters must be an integer >= 1/);
    expect(() => new PRelu(b, untyped({ num_parameters: 3 }))).toThrow(/unknown option 'num_parameters'.*numParameters/);
    expect(() => new PRelu(b, { init: Number.NaN })).toThrow(ArgumentError);
    expect(() => new PRelu(untyped<typeof b>(null))).toThrow(ArgumentError);
    const e = thrown(() => glu(x, 0));
    expect(e).toBeInstanceOf(ShapeError);
  });
});
