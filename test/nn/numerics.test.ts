/**
 * Values and gradients at edges, against float64 references of PyTorch's formulas: softplus at
 * x = 0 (functional and module), binary cross-entropy on invalid probabilities, kl_div at an
 * input of -Infinity.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import * as nn from '../../src/nn/index.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
const F = nn.functional;

async function values(t: Tensor<typeof ad> | undefined): Promise<number[]> {
  if (!t) throw new Error('no tensor');
  return Array.from((await t.toData()).values);
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
/** torch.nn.functional.softplus: log1p(exp(beta x)) / beta, x where beta x > threshold. */
const softplusRef = (x: number, beta: number, threshold: number): number => (beta * x > threshold ? x : Math.log1p(Math.exp(beta * x)) / beta);
const softplusGradRef = (x: number, beta: number, threshold: number): number => (beta * x > threshold ? 1 : sigmoid(beta * x));

describe('softplus', () => {
  const xs = [0, -0, 1e-4, -1e-4, 2, -3, 25];
  for (const [beta, threshold] of [[1, 20], [2, 20], [0.5, 1]] as const) {
    test(`F.softplus and nn.Softplus (beta ${beta}, threshold ${threshold}): sigmoid(beta x) as the gradient, 0.5 at x = 0`, async () => {
      for (const run of [(x: Tensor<typeof ad, 'float'>) => F.softplus(x, beta, threshold), (x: Tensor<typeof ad, 'float'>) => new nn.Softplus<typeof ad>(beta, threshold).forward(x)]) {
        const x = fromData(ad, xs).requireGrad();
        const y = run(x);
        const g = await values(x.grad(y.sum().backward()));
        const v = await values(y);
        xs.forEach((xi, i) => {
          expect(v[i]!, `value at ${xi}`).toBeCloseTo(softplusRef(xi, beta, threshold), 6);
          expect(g[i]!, `gradient at ${xi}`).toBeCloseTo(softplusGradRef(xi, beta, threshold), 6);
        });
      }
    });
  }
});

describe('binaryCrossEntropy on invalid probabilities', () => {
  test('NaN and probabilities outside [0, 1] give a NaN loss and a NaN gradient; valid ones are untouched', async () => {
    const ps = [NaN, 1.5, -0.2, 0.3, 0, 1];
    const ys = [1, 1, 0, 0.25, 1, 0];
    const p = fromData(ad, ps).requireGrad();
    const losses = nn.binaryCrossEntropy(p, fromData(ad, ys), { reduction: 'none' });
    const got = await values(losses);
    const grad = await values(p.grad(losses.sum().backward()));
    for (const i of [0, 1, 2]) {
      expect(got[i], `loss at p = ${ps[i]}`).toBeNaN();
      expect(grad[i], `gradient at p = ${ps[i]}`).toBeNaN();
    }
    // torch: -(y log p + (1 - y) log(1 - p)), each log clamped at -100; d/dp = (p - y) / (p (1 - p)).
    expect(got[3]!).toBeCloseTo(-(0.25 * Math.log(0.3) + 0.75 * Math.log(0.7)), 5);
    expect(grad[3]!).toBeCloseTo((0.3 - 0.25) / (0.3 * 0.7), 4);
    expect(got.slice(4)).toEqual([100, 100]);
    expect(grad.slice(4).every(Number.isFinite)).toBe(true);
    // Reduced, the NaN shows.
    expect((await values(nn.binaryCrossEntropy(fromData(ad, [0.5, 1.5]), fromData(ad, [1, 1]))))[0]).toBeNaN();
  });
});

describe('klDiv', () => {
  test('xlogy(t, t) - t input as torch: a zero target at an input of -Infinity is NaN', async () => {
    const input = [-Infinity, -0.5, -Infinity, -2];
    const target = [0, 1, 0.5, 0];
    const got = await values(nn.klDiv(fromData(ad, input), fromData(ad, target), { reduction: 'none' }));
    const xlogy = (x: number, y: number): number => (x === 0 && !Number.isNaN(y) ? 0 : x * Math.log(y));
    const ref = input.map((x, i) => xlogy(target[i]!, target[i]!) - target[i]! * x);
    expect(got[0]).toBeNaN();
    expect(ref[0]).toBeNaN();
    expect(got[1]!).toBeCloseTo(ref[1]!, 6);
    expect(got[2]).toBe(Infinity);
    expect(got[3]).toBe(0);
  });

  test('logTarget: exp(t) (t - input) as torch (NaN at a target of -Infinity)', async () => {
    const input = [-Infinity, -1, -0.5];
    const target = [-2, -Infinity, -1];
    const got = await values(nn.klDiv(fromData(ad, input), fromData(ad, target), { reduction: 'none', logTarget: true }));
    expect(got[0]).toBe(Infinity);
    expect(got[1]).toBeNaN();
    expect(got[2]!).toBeCloseTo(Math.exp(-1) * (-1 + 0.5), 6);
  });

  test('the gradient with respect to the input is -target', async () => {
    const x = fromData(ad, [-1, -0.5, -3]).requireGrad();
    const g = await values(x.grad(nn.klDiv(x, fromData(ad, [0, 0.25, 0.75]), { reduction: 'sum' }).backward()));
    expect(g.map((v) => v + 0)).toEqual([-0, -0.25, -0.75].map((v) => v + 0));
  });
});
