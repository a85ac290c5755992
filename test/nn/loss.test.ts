/** Losses against float64 references, values and gradients. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ShapeError } from '../../src/errors.js';
import { crossEntropy, mseLoss } from '../../src/nn/loss.js';
import { fromData } from '../../src/tensor/creation.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());

describe('crossEntropy', () => {
  const logits = [
    [2, -1, 0.5],
    [0.1, 0.2, 3],
    [-2, 4, 1],
  ];
  const targets = [0, 2, 0];

  it('is the mean negative log-softmax at the targets, with gradient (softmax - onehot) / N', async () => {
    const x = fromData(ad, logits).requireGrad();
    const t = fromData(ad, new Int32Array(targets));
    const loss = crossEntropy(x, t);
    const grads = loss.backward();
    let ref = 0;
    const refGrad: number[] = [];
    logits.forEach((row, i) => {
      const m = Math.max(...row);
      const z = row.reduce((s, v) => s + Math.exp(v - m), 0);
      ref -= row[targets[i]!]! - m - Math.log(z);
      row.forEach((v, j) => refGrad.push((Math.exp(v - m) / z - (j === targets[i] ? 1 : 0)) / logits.length));
    });
    expect(await loss.item()).toBeCloseTo(ref / logits.length, 5);
    const g = Array.from((await x.grad(grads)!.toData()).values);
    g.forEach((v, i) => expect(v).toBeCloseTo(refGrad[i]!, 6));
  });

  it('checks its shapes', () => {
    expect(() => crossEntropy(fromData(ad, [1, 2]), fromData(ad, new Int32Array([0])))).toThrow(ShapeError);
  });

  it('an ignored row adds 0 in every reduction, even where its scores hold -inf (torch)', async () => {
    // Row 0 is ignored and its class 0 (the index an ignored row reads) is -inf: 0, not -(-inf) * 0.
    const rows = [
      [-Infinity, 0, 1],
      [2, 0.5, -1],
    ];
    const t = fromData(ad, new Int32Array([-100, 1]));
    const kept = Math.log(Math.exp(2) + Math.exp(0.5) + Math.exp(-1)) - 0.5;
    for (const labelSmoothing of [0, 0.2]) {
      // With smoothing, the kept row's loss is (1 - s) nll + s * mean over classes of -log p.
      const lse = Math.log(Math.exp(2) + Math.exp(0.5) + Math.exp(-1));
      const row = labelSmoothing === 0 ? kept : (1 - labelSmoothing) * kept + (labelSmoothing / 3) * (3 * lse - (2 + 0.5 - 1));
      const sum = await crossEntropy(fromData(ad, rows), t, { reduction: 'sum', labelSmoothing }).item();
      expect(sum).toBeCloseTo(row, 5);
      const none = Array.from((await crossEntropy(fromData(ad, rows), t, { reduction: 'none', labelSmoothing }).toData()).values);
      expect(none[0]).toBe(0);
      expect(none[1]).toBeCloseTo(row, 5);
      expect(await crossEntropy(fromData(ad, rows), t, { labelSmoothing }).item()).toBeCloseTo(row, 5);
    }
  });
});

describe('mseLoss', () => {
  it('is the mean squared difference', async () => {
    const p = fromData(ad, [1, 2, 4]).requireGrad();
    const loss = mseLoss(p, fromData(ad, [0, 2, 1]));
    expect(await loss.item()).toBeCloseTo((1 + 0 + 9) / 3, 6);
    const g = Array.from((await p.grad(loss.backward())!.toData()).values);
    [2 / 3, 0, 2].forEach((v, i) => expect(g[i]).toBeCloseTo(v, 6));
  });
});
