/**
 * marginRankingLoss, hingeEmbeddingLoss, softMarginLoss, multiLabelSoftMarginLoss,
 * cosineEmbeddingLoss, tripletMarginLoss, multiMarginLoss, poissonNllLoss and gaussianNllLoss on
 * every test backend against float64 references written here from torch's definitions: every
 * reduction's value and gradient (finite differences of the reference, or torch's derivative
 * written out where it is not the reference's: margins exactly hit, gaussianNllLoss's clamp),
 * edge values, float16, laws and bad input.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import {
  cosineEmbeddingLoss,
  gaussianNllLoss,
  hingeEmbeddingLoss,
  marginRankingLoss,
  multiLabelSoftMarginLoss,
  multiMarginLoss,
  poissonNllLoss,
  softMarginLoss,
  tripletMarginLoss,
  type Reduction,
} from '../../src/nn/index.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { testBackends } from '../autodiff/backends.js';
import { untyped } from '../untyped.js';
import { finiteDiff, leaf, mismatch, numel, randoms, valuesAndGrads, type AD, type Arr, type F } from '../unit/ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const f32 = Math.fround;
const REDUCTIONS: readonly Reduction[] = ['none', 'mean', 'sum'];
const sum = (v: readonly number[]): number => v.reduce((a, x) => a + x, 0);
const ints = (b: AD, v: readonly number[], shape?: readonly number[]): Tensor<AD, 'int'> => fromData(b, Int32Array.from(v), shape ? { shape } : {});
const log1pExp = (z: number): number => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));
const logSig = (x: number): number => -log1pExp(-x);

interface Input {
  readonly values: readonly number[];
  readonly shape: readonly number[];
  /** Checked for a gradient (default: no, as for labels). */
  readonly grad?: boolean;
}

interface LossCase {
  readonly name: string;
  readonly inputs: readonly Input[];
  run(b: AD, xs: F[], reduction: Reduction): F;
  /** The unreduced losses ('none'), in float64 from the float32 inputs. */
  ref(xs: number[][]): Arr;
  /** The gradient of sum(losses * w) for each input with `grad`, where finite differences of `ref` are not torch's. */
  grads?(xs: number[][], w: readonly number[]): number[][];
}

const rows = (values: readonly number[], n: number): number[][] => Array.from({ length: values.length / n }, (_, i) => values.slice(i * n, i * n + n));

function pnorm(v: readonly number[], p: number): number {
  return sum(v.map((x) => Math.abs(x) ** p)) ** (1 / p);
}

function tripletRef(a: number[], pos: number[], neg: number[], d: number, margin: number, p: number, swap: boolean): number[] {
  const dist = (x: number[], y: number[]) => rows(x, d).map((r, i) => pnorm(r.map((v, k) => v - y[i * d + k]! + 1e-6), p));
  const dp = dist(a, pos);
  let dn = dist(a, neg);
  if (swap) dn = dn.map((v, i) => Math.min(v, dist(pos, neg)[i]!));
  return dp.map((v, i) => Math.max(0, margin + v - dn[i]!));
}

function cosRef(x1: number[], x2: number[], d: number, t: readonly number[], margin: number): number[] {
  return rows(x1, d).map((r, i) => {
    const s = x2.slice(i * d, i * d + d);
    const cos = sum(r.map((v, k) => v * s[k]!)) / Math.sqrt((sum(r.map((v) => v * v)) + 1e-12) * (sum(s.map((v) => v * v)) + 1e-12));
    return t[i] === 1 ? 1 - cos : t[i] === -1 ? Math.max(0, cos - margin) : 0;
  });
}

function multiMarginRef(x: number[], c: number, target: readonly number[], p: number, margin: number, weight?: readonly number[]): number[] {
  return rows(x, c).map((r, i) => {
    const y = target[i]!;
    let s = 0;
    for (let j = 0; j < c; j++) if (j !== y) s += Math.max(0, margin - r[y]! + r[j]!) ** p * (weight ? weight[y]! : 1);
    return s / c;
  });
}

const stirling = (t: number): number => (t > 1 ? t * Math.log(t) - t + 0.5 * Math.log(2 * Math.PI * t) : 0);

const sign6 = [1, -1, 1, 1, -1, -1];
const labels = [1, -1, 0.5, -1, 1, 1, -1, 1];

const CASES: LossCase[] = [
  {
    name: 'marginRankingLoss, margin 0.3',
    inputs: [{ values: randoms(6, 1), shape: [6], grad: true }, { values: randoms(6, 2), shape: [6], grad: true }, { values: sign6, shape: [6] }],
    run: (_b, [a, c, t], reduction) => marginRankingLoss(a!, c!, t!, { margin: 0.3, reduction }),
    ref: ([a, c, t]) => ({ shape: [6], data: a!.map((v, i) => Math.max(0, -t![i]! * (v - c![i]!) + f32(0.3))) }),
  },
  {
    name: 'marginRankingLoss, broadcast [2, 3] with [1, 3] and [2, 1]',
    inputs: [{ values: randoms(6, 3), shape: [2, 3], grad: true }, { values: randoms(3, 4), shape: [1, 3], grad: true }, { values: [1, -1], shape: [2, 1] }],
    run: (_b, [a, c, t], reduction) => marginRankingLoss(a!, c!, t!, { reduction }),
    ref: ([a, c, t]) => ({ shape: [2, 3], data: a!.map((v, i) => Math.max(0, -t![Math.floor(i / 3)]! * (v - c![i % 3]!))) }),
  },
  {
    name: 'hingeEmbeddingLoss, margin 1.5 (a target of 0.5 takes both terms, as torch)',
    inputs: [{ values: randoms(8, 5, -3, 3), shape: [2, 4], grad: true }, { values: labels, shape: [2, 4] }],
    run: (_b, [x, t], reduction) => hingeEmbeddingLoss(x!, t!, { margin: 1.5, reduction }),
    ref: ([x, t]) => ({ shape: [2, 4], data: x!.map((v, i) => (t![i] !== 1 ? Math.max(0, 1.5 - v) : 0) + (t![i] !== -1 ? v : 0)) }),
  },
  {
    name: 'hingeEmbeddingLoss with int32 labels, default margin',
    inputs: [{ values: randoms(6, 6, -2, 2), shape: [6], grad: true }],
    run: (b, [x], reduction) => hingeEmbeddingLoss(x!, ints(b, sign6), { reduction }),
    ref: ([x]) => ({ shape: [6], data: x!.map((v, i) => (sign6[i] === 1 ? v : Math.max(0, 1 - v))) }),
  },
  {
    name: 'softMarginLoss',
    inputs: [{ values: randoms(6, 7, -4, 4), shape: [2, 3], grad: true }, { values: sign6, shape: [2, 3] }],
    run: (_b, [x, t], reduction) => softMarginLoss(x!, t!, { reduction }),
    ref: ([x, t]) => ({ shape: [2, 3], data: x!.map((v, i) => log1pExp(-t![i]! * v)) }),
  },
  {
    name: 'multiLabelSoftMarginLoss with class weights and soft targets',
    inputs: [{ values: randoms(12, 8, -4, 4), shape: [3, 4], grad: true }, { values: [1, 0, 0, 1, 0.3, 0.7, 1, 0, 0, 0, 1, 1], shape: [3, 4], grad: true }, { values: [0.5, 1, 2, 0.25], shape: [4], grad: true }],
    run: (_b, [x, t, w], reduction) => multiLabelSoftMarginLoss(x!, t!, { weight: w!, reduction }),
    ref: ([x, t, w]) => ({ shape: [3], data: rows(x!, 4).map((r, i) => sum(r.map((v, j) => -w![j]! * (t![i * 4 + j]! * logSig(v) + (1 - t![i * 4 + j]!) * logSig(-v)))) / 4) }),
  },
  {
    name: 'multiLabelSoftMarginLoss of one sample [C]',
    inputs: [{ values: randoms(5, 9, -3, 3), shape: [5], grad: true }, { values: [1, 0, 1, 1, 0], shape: [5] }],
    run: (_b, [x, t], reduction) => multiLabelSoftMarginLoss(x!, t!, { reduction }),
    ref: ([x, t]) => ({ shape: [], data: [sum(x!.map((v, j) => -(t![j]! * logSig(v) + (1 - t![j]!) * logSig(-v)))) / 5] }),
  },
  {
    name: 'cosineEmbeddingLoss [N, D], margin 0.2',
    inputs: [{ values: randoms(15, 10), shape: [3, 5], grad: true }, { values: randoms(15, 11), shape: [3, 5], grad: true }],
    run: (b, [a, c], reduction) => cosineEmbeddingLoss(a!, c!, ints(b, [1, -1, -1]), { margin: 0.2, reduction }),
    ref: ([a, c]) => ({ shape: [3], data: cosRef(a!, c!, 5, [1, -1, -1], f32(0.2)) }),
  },
  {
    name: 'cosineEmbeddingLoss [D] with a scalar float target',
    inputs: [{ values: randoms(4, 12), shape: [4], grad: true }, { values: randoms(4, 13), shape: [4], grad: true }, { values: [-1], shape: [] }],
    run: (_b, [a, c, t], reduction) => cosineEmbeddingLoss(a!, c!, t!, { margin: -0.5, reduction }),
    ref: ([a, c]) => ({ shape: [], data: cosRef(a!, c!, 4, [-1], -0.5) }),
  },
  ...[
    { p: 2, swap: false, margin: 1 },
    { p: 1, swap: false, margin: 0.5 },
    { p: 2, swap: true, margin: 2 },
    { p: 3, swap: true, margin: 1 },
  ].map(
    ({ p, swap, margin }): LossCase => ({
      name: `tripletMarginLoss p ${p}, swap ${swap}, margin ${margin}`,
      inputs: [{ values: randoms(12, 14 + p), shape: [3, 4], grad: true }, { values: randoms(12, 15 + p), shape: [3, 4], grad: true }, { values: randoms(12, 16 + p), shape: [3, 4], grad: true }],
      run: (_b, [a, q, n], reduction) => tripletMarginLoss(a!, q!, n!, { p, swap, margin, reduction }),
      ref: ([a, q, n]) => ({ shape: [3], data: tripletRef(a!, q!, n!, 4, margin, p, swap) }),
    }),
  ),
  {
    name: 'tripletMarginLoss of one triplet [D]',
    inputs: [{ values: randoms(5, 20), shape: [5], grad: true }, { values: randoms(5, 21), shape: [5], grad: true }, { values: randoms(5, 22), shape: [5], grad: true }],
    run: (_b, [a, q, n], reduction) => tripletMarginLoss(a!, q!, n!, { margin: 3, reduction }),
    ref: ([a, q, n]) => ({ shape: [], data: tripletRef(a!, q!, n!, 5, 3, 2, false) }),
  },
  ...[
    { p: 1 as const, margin: 1, weight: undefined },
    { p: 2 as const, margin: 0.7, weight: [0.5, 2, 1, 3, 0.25] },
  ].map(
    ({ p, margin, weight }): LossCase => ({
      name: `multiMarginLoss p ${p}, margin ${margin}${weight ? ', class weights' : ''}`,
      inputs: [{ values: randoms(20, 23 + p), shape: [4, 5], grad: true }],
      run: (b, [x], reduction) => multiMarginLoss(x!, ints(b, [0, 3, 4, 1]), { p, margin, weight: weight ? fromData(b, weight) : undefined, reduction }),
      ref: ([x]) => ({ shape: [4], data: multiMarginRef(x!, 5, [0, 3, 4, 1], p, f32(margin), weight) }),
    }),
  ),
  {
    name: 'multiMarginLoss of one sample [C] with a scalar target',
    inputs: [{ values: randoms(4, 26), shape: [4], grad: true }],
    run: (b, [x], reduction) => multiMarginLoss(x!, fromData(b, Int32Array.of(2), { shape: [] }), { reduction }),
    ref: ([x]) => ({ shape: [], data: multiMarginRef(x!, 4, [2], 1, 1) }),
  },
  {
    name: 'poissonNllLoss, log input, full (targets 0, 0.5, 1 take no Stirling term)',
    inputs: [{ values: randoms(6, 27, -2, 2), shape: [6], grad: true }, { values: [0, 0.5, 1, 1.5, 3, 10], shape: [6], grad: true }],
    run: (_b, [x, t], reduction) => poissonNllLoss(x!, t!, { full: true, reduction }),
    ref: ([x, t]) => ({ shape: [6], data: x!.map((v, i) => Math.exp(v) - t![i]! * v + stirling(t![i]!)) }),
    // Written out: the Stirling term jumps at t = 1, where torch's masked_fill gives the target gradient 0.
    grads: ([x, t], w) => [x!.map((v, i) => w[i]! * (Math.exp(v) - t![i]!)), t!.map((v, i) => w[i]! * (-x![i]! + (v > 1 ? Math.log(v) + 1 / (2 * v) : 0)))],
  },
  {
    name: 'poissonNllLoss of rates, eps 0.01',
    inputs: [{ values: randoms(6, 28, 0.1, 3), shape: [2, 3], grad: true }, { values: [0, 2, 1, 4, 0.5, 7], shape: [2, 3], grad: true }],
    run: (_b, [x, t], reduction) => poissonNllLoss(x!, t!, { logInput: false, eps: 0.01, reduction }),
    ref: ([x, t]) => ({ shape: [2, 3], data: x!.map((v, i) => v - t![i]! * Math.log(v + f32(0.01))) }),
  },
  ...[
    { vShape: [3, 4], label: 'one variance per element' },
    { vShape: [3], label: 'var [N]: one per sample, unsqueezed' },
    { vShape: [3, 1], label: 'var [N, 1]' },
    { vShape: [1, 4], label: 'var [1, D]: one mismatched dim of size 1' },
  ].map(
    ({ vShape, label }): LossCase => ({
      name: `gaussianNllLoss, ${label}, full, eps 0.1 (some variances clamped)`,
      inputs: [
        { values: randoms(12, 29), shape: [3, 4], grad: true },
        { values: randoms(12, 30), shape: [3, 4], grad: true },
        { values: randoms(numel(vShape), 31, 0.02, 2), shape: vShape, grad: true },
      ],
      run: (_b, [x, t, v], reduction) => gaussianNllLoss(x!, t!, v!, { full: true, eps: 0.1, reduction }),
      ref: ([x, t, v]) => ({ shape: [3, 4], data: x!.map((xv, i) => { const s = Math.max(v![varAt(vShape, i)]!, f32(0.1)); return 0.5 * (Math.log(s) + (xv - t![i]!) ** 2 / s) + 0.5 * Math.log(2 * Math.PI); }) }),
      // torch clamps under no_grad: where the clamp holds, the gradient is the clamped value's, passed to var.
      grads: ([x, t, v], w) => {
        const gv = new Array<number>(v!.length).fill(0);
        const gx = x!.map((xv, i) => {
          const k = varAt(vShape, i);
          const s = Math.max(v![k]!, f32(0.1));
          const d = xv - t![i]!;
          gv[k] = gv[k]! + w[i]! * 0.5 * (1 / s - (d * d) / (s * s));
          return (w[i]! * d) / s;
        });
        return [gx, gx.map((g) => -g), gv];
      },
    }),
  ),
  {
    name: 'gaussianNllLoss with a number as the variance',
    inputs: [{ values: randoms(6, 32), shape: [6], grad: true }, { values: randoms(6, 33), shape: [6], grad: true }],
    run: (_b, [x, t], reduction) => gaussianNllLoss(x!, t!, 0.5, { reduction }),
    ref: ([x, t]) => ({ shape: [6], data: x!.map((v, i) => 0.5 * (Math.log(0.5) + (v - t![i]!) ** 2 / 0.5)) }),
  },
];

/** The flat index into var [3, 4] / [3] / [3, 1] / [1, 4] of the input's element i ([3, 4]). */
function varAt(shape: readonly number[], i: number): number {
  const [r, c] = [Math.floor(i / 4), i % 4];
  if (shape.length === 1) return r;
  return (shape[0] === 1 ? 0 : r) * shape[1]! + (shape[1] === 1 ? 0 : c);
}

for (const tb of backends) {
  describe(`more losses on ${tb.name}`, () => {
    const b = tb.backend;

    it.each(CASES.map((c) => [c.name, c] as const))('%s: every reduction, values and gradients against float64', async (_n, c) => {
      const xs = c.inputs.map((inp) => inp.values.map(f32));
      const ref = c.ref(xs);
      for (const reduction of REDUCTIONS) {
        const ts = c.inputs.map((inp, k) => (inp.grad ? leaf(b, xs[k]!, inp.shape) : fromData(b, Float32Array.from(xs[k]!), { shape: inp.shape })));
        const out = c.run(b, ts, reduction);
        const count = ref.data.length;
        const expected = reduction === 'none' ? ref.data : reduction === 'sum' ? [sum(ref.data)] : [sum(ref.data) / count];
        expect(out.shape, reduction).toEqual(reduction === 'none' ? ref.shape : []);
        // A random weight on the output: per element for 'none', spread over the elements by the reduction otherwise.
        const w = randoms(expected.length, 40 + count, -1, 1);
        const perElement = reduction === 'none' ? w : ref.data.map(() => (reduction === 'sum' ? w[0]! : w[0]! / count));
        const graded = ts.filter((_, k) => c.inputs[k]!.grad);
        const { values, grads } = await valuesAndGrads(b, out, graded, w);
        expect(mismatch(values, expected, 2e-6, 2e-5), `${reduction} value`).toBeUndefined();
        const want = c.grads ? c.grads(xs, perElement) : finiteDiff((v) => c.ref(c.inputs.map((inp, k) => (inp.grad ? v[graded.indexOf(ts[k]!)]! : xs[k]!))).data, xs.filter((_, k) => c.inputs[k]!.grad), perElement);
        want.forEach((g, k) => expect(mismatch(grads[k]!, g, 2e-4, 2e-3), `${reduction} gradient of input ${k}`).toBeUndefined());
        for (const t of [...ts, out]) t.dispose();
      }
    });

    it('margins exactly hit: clampMin passes the gradient (marginRanking, hingeEmbedding, cosineEmbedding), multiMargin\'s z > 0 test does not', async () => {
      // -1 * (1.5 - 1) + 0.5 = 0: loss 0, gradient -t to input1 and t to input2.
      const a = leaf(b, [1.5, 2], [2]);
      const c = leaf(b, [1, 0], [2]);
      const r = await valuesAndGrads(b, marginRankingLoss(a, c, fromData(b, [1, 1]), { margin: 0.5, reduction: 'sum' }), [a, c], [1]);
      expect(Array.from(r.values)).toEqual([0]);
      // (mismatch: the unused element's gradient is 0 * -t, a signed zero, in torch too.)
      expect(mismatch(r.grads[0]!, [-1, 0], 0, 0)).toBeUndefined();
      expect(mismatch(r.grads[1]!, [1, 0], 0, 0)).toBeUndefined();
      // margin - x = 0 at x = margin with target -1: gradient -1.
      const h = leaf(b, [1, 3], [2]);
      const hr = await valuesAndGrads(b, hingeEmbeddingLoss(h, fromData(b, [-1, -1]), { reduction: 'sum' }), [h], [1]);
      expect(Array.from(hr.values)).toEqual([0]);
      expect(mismatch(hr.grads[0]!, [-1, 0], 0, 0)).toBeUndefined();
      // Orthogonal pairs: cos = 0 = margin; d cos / d x1 = x2 / (|x1| |x2|) = [0, 1].
      const u = leaf(b, [1, 0], [1, 2]);
      const v = leaf(b, [0, 1], [1, 2]);
      const cr = await valuesAndGrads(b, cosineEmbeddingLoss(u, v, ints(b, [-1]), { reduction: 'sum' }), [u, v], [1]);
      expect(Array.from(cr.values)).toEqual([0]);
      expect(mismatch(cr.grads[0]!, [0, 1], 1e-6)).toBeUndefined();
      expect(mismatch(cr.grads[1]!, [1, 0], 1e-6)).toBeUndefined();
      // z = 1 - 1 + 0 = 0 for class 1: loss 0 and gradient 0 (torch's kernel counts z > 0 only).
      const m = leaf(b, [1, 0, -5], [1, 3]);
      const mr = await valuesAndGrads(b, multiMarginLoss(m, ints(b, [0])), [m], [1]);
      expect(Array.from(mr.values)).toEqual([0]);
      expect(mismatch(mr.grads[0]!, [0, 0, 0], 0, 0)).toBeUndefined();
    });

    it('edge values: huge magnitudes stay finite, empty batches reduce to NaN / 0, Stirling at target 1, var at and below eps, negative var', async () => {
      const big = leaf(b, [1e4, -1e4, 100, -100], [4]);
      const sm = await valuesAndGrads(b, softMarginLoss(big, fromData(b, [1, 1, -1, -1]), { reduction: 'none' }), [big], [1, 1, 1, 1]);
      // torch's log1p(exp(100)) is inf here in float32 and its gradient NaN; softplus keeps the limit.
      expect(mismatch(sm.values, [0, 1e4, 100, 0], 1e-6)).toBeUndefined();
      expect(mismatch(sm.grads[0]!, [0, -1, 1, 0], 1e-6)).toBeUndefined();
      const ml = await valuesAndGrads(b, multiLabelSoftMarginLoss(big, fromData(b, [0, 1, 0, 1]), { reduction: 'sum' }), [big], [1]);
      expect(mismatch(ml.values, [(1e4 + 1e4 + 100 + 100) / 4], 1e-6)).toBeUndefined();
      expect(mismatch(ml.grads[0]!, [0.25, -0.25, 0.25, -0.25], 1e-6)).toBeUndefined();

      const empty = fromData(b, new Float32Array(0), { shape: [0] });
      expect(await marginRankingLoss(empty, empty, empty).item()).toBeNaN();
      expect(await marginRankingLoss(empty, empty, empty, { reduction: 'sum' }).item()).toBe(0);
      expect(await poissonNllLoss(empty, empty, { reduction: 'sum' }).item()).toBe(0);

      const x = fromData(b, [0, 0, 0]);
      const p = await poissonNllLoss(x, fromData(b, [1, 1.0000001192092896, 2]), { full: true, reduction: 'none' }).toData();
      expect(mismatch(p.values, [1, 1, 1].map((e, i) => e + stirling([1, 1.0000001192092896, 2][i]!)), 1e-6)).toBeUndefined();

      // var 0.1 = eps: the clamp holds it there and its gradient is the unclamped one; var 0 and 0.01 read eps.
      const vr = leaf(b, [f32(0.1), 0, 0.01, 4], [4]);
      const xs = leaf(b, [1, 1, 1, 1], [4]);
      const g = await valuesAndGrads(b, gaussianNllLoss(xs, fromData(b, [0, 0, 0, 0]), vr, { eps: 0.1, reduction: 'none' }), [xs, vr], [1, 1, 1, 1]);
      const s = [f32(0.1), f32(0.1), f32(0.1), 4];
      expect(mismatch(g.values, s.map((v) => 0.5 * (Math.log(v) + 1 / v)), 1e-6, 1e-5)).toBeUndefined();
      expect(mismatch(g.grads[1]!, s.map((v) => 0.5 * (1 / v - 1 / (v * v))), 1e-5, 1e-5)).toBeUndefined();
      // A negative variance: NaN there (torch raises), the other losses untouched.
      const neg = await gaussianNllLoss(fromData(b, [1, 1]), fromData(b, [0, 0]), fromData(b, [-1, 1]), { reduction: 'none' }).toData();
      expect(neg.values[0]).toBeNaN();
      expect(mismatch([neg.values[1]!], [0.5], 1e-6)).toBeUndefined();
    });

    it('float16 in, float16 out, close to the float32 loss on the same values', async () => {
      const h = (v: readonly number[], shape: number[]) => fromData(b, v, { dtype: 'float16', shape });
      const s = (v: readonly number[], shape: number[]) => fromData(b, v, { shape });
      const x = [0.5, -1.25, 2, 0.75, -0.5, 1.5];
      const y = [0.25, 1, -1.5, 0.5, -2, 1];
      const t = [1, -1, 1, -1, 1, 1];
      const runs: Array<(mk: typeof h) => F> = [
        (mk) => marginRankingLoss(mk(x, [6]), mk(y, [6]), mk(t, [6]), { margin: 0.25 }),
        (mk) => hingeEmbeddingLoss(mk(x, [6]), mk(t, [6])),
        (mk) => softMarginLoss(mk(x, [6]), mk(t, [6])),
        (mk) => multiLabelSoftMarginLoss(mk(x, [2, 3]), mk([1, 0, 1, 0, 0, 1], [2, 3])),
        (mk) => cosineEmbeddingLoss(mk(x, [2, 3]), mk(y, [2, 3]), ints(b, [1, -1])),
        (mk) => tripletMarginLoss(mk(x, [2, 3]), mk(y, [2, 3]), mk(t, [2, 3]), { swap: true }),
        (mk) => multiMarginLoss(mk(x, [2, 3]), ints(b, [0, 2]), { p: 2 }),
        (mk) => poissonNllLoss(mk(x, [6]), mk([0, 1, 2, 3, 0.5, 4], [6]), { full: true }),
        (mk) => gaussianNllLoss(mk(x, [6]), mk(y, [6]), mk([0.5, 1, 2, 0.25, 1, 3], [6]), { full: true }),
      ];
      for (const [k, run] of runs.entries()) {
        const half = run(h);
        expect(half.dtype, `loss ${k}`).toBe('float16');
        expect(mismatch([await half.item()], [await run(s).item()], 2e-3, 4e-3), `loss ${k}`).toBeUndefined();
      }
    });
  });
}

describe('loss laws (fast-check, CPU)', () => {
  const b = backends[0]!.backend;
  const vec = fc.array(fc.float({ min: -10, max: 10, noNaN: true }), { minLength: 4, maxLength: 4 });
  it('marginRankingLoss(a, b, t) = marginRankingLoss(b, a, -t); swapping never lowers the triplet loss; every loss is >= 0', async () => {
    await fc.assert(
      fc.asyncProperty(vec, vec, vec, fc.float({ min: 0, max: 3, noNaN: true }), async (u, v, w, margin) => {
        const [x1, x2, x3] = [u, v, w].map((a) => fromData(b, a, { shape: [2, 2] }));
        const t = fromData(b, [1, -1, -1, 1], { shape: [2, 2] });
        const l1 = await marginRankingLoss(x1!, x2!, t, { margin, reduction: 'none' }).toData();
        const l2 = await marginRankingLoss(x2!, x1!, t.neg(), { margin, reduction: 'none' }).toData();
        expect(Array.from(l1.values)).toEqual(Array.from(l2.values));
        const plain = await tripletMarginLoss(x1!, x2!, x3!, { margin, reduction: 'none' }).toData();
        const swapped = await tripletMarginLoss(x1!, x2!, x3!, { margin, swap: true, reduction: 'none' }).toData();
        plain.values.forEach((p, i) => expect(swapped.values[i]).toBeGreaterThanOrEqual(p));
        expect(Math.min(...plain.values, ...l1.values)).toBeGreaterThanOrEqual(0);
        const mm = await multiMarginLoss(x1!, ints(b, [1, 0]), { margin, reduction: 'none' }).toData();
        expect(Math.min(...mm.values)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 40 },
    );
  });
});

describe('more losses: bad input', () => {
  const b = backends[0]!.backend;
  it('typed errors naming the loss, for typed and untyped callers', () => {
    const x = fromData(b, [[1, 2, 3], [4, 5, 6]]);
    const y = fromData(b, [[1, -1, 1], [1, 1, -1]]);
    const h = fromData(b, [[1, 2, 3], [4, 5, 6]], { dtype: 'float16' });
    const l = ints(b, [0, 2]);
    expect(() => marginRankingLoss(x, x, fromData(b, [1, -1]))).toThrow(/marginRankingLoss: input1, input2 and target must have one rank/);
    expect(() => marginRankingLoss(x, fromData(b, [[1, 2]]), y)).toThrow(ShapeError);
    expect(() => marginRankingLoss(x, x, y, { margin: Number.NaN })).toThrow(/margin must be a finite number/);
    expect(() => marginRankingLoss(x, h, y)).toThrow(/marginRankingLoss: input2 must have the input1's dtype/);
    expect(() => marginRankingLoss(untyped(null), x, y)).toThrow(ArgumentError);
    expect(() => marginRankingLoss(x, x, y, untyped({ reduction: 'avg' }))).toThrow(/marginRankingLoss: unknown reduction 'avg'/);
    expect(() => marginRankingLoss(x, x, y, untyped({ reduction: null }))).toThrow(ArgumentError);
    expect(() => hingeEmbeddingLoss(x, untyped(fromData(b, [true, false])))).toThrow(DTypeError);
    expect(() => hingeEmbeddingLoss(x, fromData(b, [[1, 1, 1, 1]]))).toThrow(ShapeError);
    expect(() => hingeEmbeddingLoss(x, y, untyped({ margin: '1' }))).toThrow(ArgumentError);
    expect(() => softMarginLoss(x, fromData(b, [1, -1, 1]))).toThrow(/softMarginLoss: target must have the input's shape/);
    expect(() => softMarginLoss(x, y, untyped({ size_average: true }))).toThrow(/unknown option 'size_average'/);
    expect(() => softMarginLoss(untyped(l), y)).toThrow(DTypeError);
    expect(() => multiLabelSoftMarginLoss(x, y, { weight: fromData(b, [1, 2]) })).toThrow(/weight \[2\] must broadcast to the input's shape/);
    expect(() => multiLabelSoftMarginLoss(x, y, untyped({ weight: [1, 2, 3] }))).toThrow(/weight must be a tensor or undefined/);
    expect(() => multiLabelSoftMarginLoss(fromData(b, 1), fromData(b, 1))).toThrow(ShapeError);
    expect(() => cosineEmbeddingLoss(x, x, ints(b, [1]))).toThrow(/one label per row/);
    expect(() => cosineEmbeddingLoss(x, x, fromData(b, [[1, 1]]))).toThrow(ShapeError);
    expect(() => cosineEmbeddingLoss(x, x, fromData(b, 1))).toThrow(/a target of rank 0 needs inputs of rank 1/);
    expect(() => cosineEmbeddingLoss(x, fromData(b, [[1, 2, 3]]), l)).toThrow(ShapeError);
    expect(() => tripletMarginLoss(x, x, fromData(b, [1, 2, 3]))).toThrow(/tripletMarginLoss: anchor, positive and negative must have one rank/);
    expect(() => tripletMarginLoss(x, x, fromData(b, [[1, 2]]))).toThrow(ShapeError);
    expect(() => tripletMarginLoss(x, x, x, { p: NaN })).toThrow(/p must be a number/);
    expect(() => tripletMarginLoss(x, x, x, { eps: -1 })).toThrow(ArgumentError);
    expect(() => tripletMarginLoss(x, x, x, untyped({ swap: 'yes' }))).toThrow(/swap must be true or false/);
    expect(() => multiMarginLoss(x, l, untyped({ p: 3 }))).toThrow(/multiMarginLoss: p must be 1 or 2, got 3/);
    expect(() => multiMarginLoss(x, ints(b, [0]))).toThrow(/target must hold 2 class indices/);
    expect(() => multiMarginLoss(x, untyped(fromData(b, [0, 1])))).toThrow(/targets must be int32/);
    expect(() => multiMarginLoss(x, l, { weight: fromData(b, [1, 2]) })).toThrow(/weight must be \[3\]/);
    expect(() => multiMarginLoss(fromData(b, [[[1]]]), ints(b, [0]))).toThrow(ShapeError);
    expect(() => multiMarginLoss(fromData(b, new Float32Array(0), { shape: [2, 0] }), l)).toThrow(/at least one class/);
    expect(() => poissonNllLoss(x, y, untyped({ logInput: 'no' }))).toThrow(ArgumentError);
    expect(() => poissonNllLoss(x, y, { eps: Number.POSITIVE_INFINITY })).toThrow(ArgumentError);
    expect(() => poissonNllLoss(x, fromData(b, [1, 2, 3]))).toThrow(ShapeError);
    expect(() => gaussianNllLoss(x, y, fromData(b, [1, 2, 3, 4]))).toThrow(/gaussianNllLoss: var \[4\] is of incorrect size/);
    expect(() => gaussianNllLoss(x, y, fromData(b, [[1], [1], [1]]))).toThrow(ShapeError);
    expect(() => gaussianNllLoss(fromData(b, [[1, 2, 3], [4, 5, 6]]), y, fromData(b, [[1]]))).toThrow(/incorrect size/);
    expect(() => gaussianNllLoss(x, y, -1)).toThrow(/var must be >= 0/);
    expect(() => gaussianNllLoss(x, y, untyped('1'))).toThrow(/var must be a tensor or a number/);
    expect(() => gaussianNllLoss(x, y, x, { eps: Number.NaN })).toThrow(ArgumentError);
    expect(() => gaussianNllLoss(x, y, x.cast('float16'))).toThrow(DTypeError);
  });
});
