/** Losses against float64 references of PyTorch's definitions, with finite-difference gradients. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { binaryCrossEntropy, binaryCrossEntropyWithLogits, crossEntropy, nllLoss } from '../../src/nn/loss.js';
import { huberLoss, klDiv, l1Loss, mseLoss, smoothL1Loss } from '../../src/nn/regression-loss.js';
import { fromData } from '../../src/tensor/creation.js';
import { checkCase, type AD, type FnCase } from './check.js';
import { mismatch, type Nd } from './conv-ref.js';

const cpu = new Autodiff(new Cpu({ threads: 0 }));
const ad: AD = cpu;
afterAll(() => cpu.close());

const scalar = (v: number): Nd => ({ shape: [], data: Float64Array.of(v) });
const ints = (v: number[], shape?: number[]) => fromData(ad, Int32Array.from(v), shape ? { shape } : {});

/** Row i's log-softmax, in float64. */
function logSoftmaxRow(x: ArrayLike<number>, at: number, c: number, stride = 1): number[] {
  const row = Array.from({ length: c }, (_, j) => x[at + j * stride]!);
  const m = Math.max(...row);
  const lz = m + Math.log(row.reduce((s, v) => s + Math.exp(v - m), 0));
  return row.map((v) => v - lz);
}

const targets = [2, -100, 0, 1, 2];
const weights = [0.5, 2, 1.5];

const CASES: FnCase[] = [
  {
    name: 'crossEntropy with class weights, ignoreIndex and label smoothing 0.2 (mean over the summed weights)',
    shapes: [[5, 3]],
    run: ([x]) => crossEntropy(x!, ints(targets), { weight: fromData(ad, weights), labelSmoothing: 0.2 }),
    ref: ([x]) => {
      let num = 0;
      let den = 0;
      targets.forEach((t, i) => {
        if (t === -100) return;
        const lp = logSoftmaxRow(x!.data, i * 3, 3);
        const nll = -weights[t]! * lp[t]!;
        const smooth = -lp.reduce((s, v, c) => s + weights[c]! * v, 0);
        num += 0.8 * nll + (0.2 / 3) * smooth;
        den += weights[t]!;
      });
      return scalar(num / den);
    },
  },
  {
    name: 'crossEntropy over [N, C, L] with [N, L] targets, reduction none',
    shapes: [[2, 3, 4]],
    run: ([x]) => crossEntropy(x!, ints([0, 1, 2, 1, 2, 2, 0, -100], [2, 4]), { reduction: 'none' }),
    ref: ([x]) => {
      const t = [0, 1, 2, 1, 2, 2, 0, -100];
      const out = t.map((c, k) => {
        const n = Math.floor(k / 4);
        const l = k % 4;
        return c === -100 ? 0 : -logSoftmaxRow(x!.data, n * 12 + l, 3, 4)[c]!;
      });
      return { shape: [2, 4], data: Float64Array.from(out) };
    },
  },
  {
    name: 'crossEntropy against probabilities, smoothed, summed',
    shapes: [[2, 3]],
    run: ([x]) => crossEntropy(x!, fromData(ad, [[0.2, 0.3, 0.5], [1, 0, 0]]), { labelSmoothing: 0.1, reduction: 'sum' }),
    ref: ([x]) => {
      const p = [[0.2, 0.3, 0.5], [1, 0, 0]].map((r) => r.map((v) => Math.fround(v) * 0.9 + 0.1 / 3));
      let s = 0;
      for (let i = 0; i < 2; i++) logSoftmaxRow(x!.data, i * 3, 3).forEach((lp, c) => (s -= p[i]![c]! * lp));
      return scalar(s);
    },
  },
  {
    name: 'nllLoss with weights, summed',
    shapes: [[3, 4]],
    run: ([x]) => nllLoss(x!, ints([3, 0, 3]), { weight: fromData(ad, [1, 2, 3, 4]), reduction: 'sum' }),
    ref: ([x]) => scalar(-(4 * x!.data[3]! + 1 * x!.data[4]! + 4 * x!.data[11]!)),
  },
  {
    name: 'binaryCrossEntropy with element weights',
    shapes: [[2, 3]],
    values: [[0.1, 0.5, 0.9, 0.3, 0.7, 0.2]],
    run: ([p]) => binaryCrossEntropy(p!, fromData(ad, [[0, 1, 1], [0.5, 0, 1]]), { weight: fromData(ad, [1, 2, 0.5]) }),
    ref: ([p]) => {
      const y = [0, 1, 1, 0.5, 0, 1];
      const w = [1, 2, 0.5];
      const l = Array.from(p!.data, (v, i) => -w[i % 3]! * (y[i]! * Math.log(v) + (1 - y[i]!) * Math.log(1 - v)));
      return scalar(l.reduce((a, b) => a + b, 0) / 6);
    },
  },
  {
    name: 'binaryCrossEntropyWithLogits with posWeight, none',
    shapes: [[2, 2]],
    run: ([x]) => binaryCrossEntropyWithLogits(x!, fromData(ad, [[1, 0], [0.25, 1]]), { posWeight: fromData(ad, [3, 0.5]), reduction: 'none' }),
    ref: ([x]) => {
      const y = [1, 0, 0.25, 1];
      const pw = [3, 0.5];
      const sig = (v: number) => 1 / (1 + Math.exp(-v));
      return { shape: [2, 2], data: Float64Array.from(x!.data, (v, i) => -(pw[i % 2]! * y[i]! * Math.log(sig(v)) + (1 - y[i]!) * Math.log(1 - sig(v)))) };
    },
  },
  {
    name: 'l1Loss',
    shapes: [[2, 3], [2, 3]],
    run: ([a, b]) => l1Loss(a!, b!),
    ref: ([a, b]) => scalar(Array.from(a!.data, (v, i) => Math.abs(v - b!.data[i]!)).reduce((x, y) => x + y, 0) / 6),
  },
  {
    name: 'smoothL1Loss beta 0.5, none',
    shapes: [[6], [6]],
    values: [[0.1, -0.2, 0.9, -1.5, 0.3, 2], [0, 0.1, 0.1, 0, 0.6, -0.3]],
    run: ([a, b]) => smoothL1Loss(a!, b!, { beta: 0.5, reduction: 'none' }),
    ref: ([a, b]) => ({ shape: [6], data: Float64Array.from(a!.data, (v, i) => { const d = Math.abs(v - b!.data[i]!); return d < 0.5 ? (0.5 * d * d) / 0.5 : d - 0.25; }) }),
  },
  {
    name: 'huberLoss delta 2, summed',
    shapes: [[6], [6]],
    values: [[0.1, -2.6, 0.9, -1.5, 3.3, 2], [0, 0.1, 0.1, 0, 0.6, -0.3]],
    run: ([a, b]) => huberLoss(a!, b!, { delta: 2, reduction: 'sum' }),
    ref: ([a, b]) => scalar(Array.from(a!.data, (v, i) => { const d = Math.abs(v - b!.data[i]!); return d < 2 ? 0.5 * d * d : 2 * (d - 1); }).reduce((x, y) => x + y, 0)),
  },
  {
    name: 'mseLoss none',
    shapes: [[2, 2], [2, 2]],
    run: ([a, b]) => mseLoss(a!, b!, { reduction: 'none' }),
    ref: ([a, b]) => ({ shape: [2, 2], data: a!.data.map((v, i) => (v - b!.data[i]!) ** 2) }),
  },
  {
    name: 'klDiv batchmean with a zero in the target',
    shapes: [[2, 3]],
    run: ([x]) => klDiv(x!, fromData(ad, [[0.5, 0, 0.5], [0.2, 0.3, 0.5]]), { reduction: 'batchmean' }),
    ref: ([x]) => {
      const t = [0.5, 0, 0.5, 0.2, 0.3, 0.5].map(Math.fround);
      return scalar(t.reduce((s, v, i) => s + (v === 0 ? 0 : v * (Math.log(v) - x!.data[i]!)), 0) / 2);
    },
  },
  {
    name: 'klDiv with log targets, mean',
    shapes: [[4], [4]],
    run: ([x, t]) => klDiv(x!, t!, { logTarget: true }),
    ref: ([x, t]) => scalar(Array.from(x!.data, (v, i) => Math.exp(t!.data[i]!) * (t!.data[i]! - v)).reduce((a, b) => a + b, 0) / 4),
  },
];

describe('losses', () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_n, c, i) => {
    await checkCase(ad, c, 600 + i);
  });

  it('binaryCrossEntropyWithLogits stays finite for large logits; binaryCrossEntropy clamps its logs at -100', async () => {
    const l = binaryCrossEntropyWithLogits(fromData(ad, [100, -100]), fromData(ad, [0, 1]), { reduction: 'none' });
    expect(Array.from((await l.toData()).values)).toEqual([100, 100]);
    const b = binaryCrossEntropy(fromData(ad, [0, 1]), fromData(ad, [1, 0]), { reduction: 'none' });
    expect(Array.from((await b.toData()).values)).toEqual([100, 100]);
  });

  it('crossEntropy with every target ignored is NaN (0 / 0, as PyTorch)', async () => {
    expect(await crossEntropy(fromData(ad, [[1, 2]]), ints([-100])).item()).toBeNaN();
    const v = await crossEntropy(fromData(ad, [1, 2, 0]), fromData(ad, Int32Array.of(1), { shape: [] })).item();
    expect(mismatch([v], [-(2 - Math.log(Math.exp(1) + Math.exp(2) + 1))])).toBeUndefined();
  });

  it('report bad input', () => {
    const x = fromData(ad, [[1, 2, 3]]);
    expect(() => crossEntropy(x, ints([0, 1]))).toThrow(ShapeError);
    expect(() => crossEntropy(x, ints([0]), { weight: fromData(ad, [1, 2]) })).toThrow(/crossEntropy: weight must be \[3\]/);
    expect(() => crossEntropy(x, ints([0]), { labelSmoothing: 2 })).toThrow(ArgumentError);
    expect(() => crossEntropy(x, fromData(ad, [[0.5, 0.5]]))).toThrow(/probability targets/);
    expect(() => nllLoss(x, fromData(ad, [0]) as never)).toThrow(DTypeError);
    expect(() => l1Loss(x, fromData(ad, [1, 2, 3]))).toThrow(/l1Loss: input and target must have one shape/);
    expect(() => mseLoss(x, x, { reduction: 'avg' as never })).toThrow(/unknown reduction 'avg'/);
  });
});
