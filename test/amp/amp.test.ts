/** Mixed precision: the loss-scale rule step by step, GradScaler on real gradients, autocast matmuls. */
import { afterAll, describe, expect, it } from 'vitest';
import { GradScaler, LossScale, autocast, isAutocastEnabled } from '../../src/amp/index.js';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError } from '../../src/errors.js';
import { roundHalf } from '../../src/ir/half.js';
import { Linear } from '../../src/nn/linear.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { SGD } from '../../src/optim/sgd.js';
import { fromData } from '../../src/tensor/creation.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());

describe('LossScale', () => {
  it('halves on overflow, grows after the interval of good steps, and says which steps apply', () => {
    const s = new LossScale({ initScale: 8, growthInterval: 3 });
    const outcomes = [false, false, false, true, false, false, true, true, false, false, false].map((overflow) => {
      const applied = s.update(overflow);
      return [applied, s.scale, s.state.goodSteps];
    });
    expect(outcomes).toEqual([
      [true, 8, 1],
      [true, 8, 2],
      [true, 16, 0], // third good step in a row: grows
      [false, 8, 0], // overflow: skipped, halved, count reset
      [true, 8, 1],
      [true, 8, 2],
      [false, 4, 0],
      [false, 2, 0],
      [true, 2, 1],
      [true, 2, 2],
      [true, 4, 0],
    ]);
  });

  it('keeps its state across save and load, and rejects bad options', () => {
    const s = new LossScale({ initScale: 2 ** 10, growthFactor: 4, backoffFactor: 0.25, growthInterval: 1 });
    s.update(false);
    expect(s.scale).toBe(2 ** 12);
    s.update(true);
    expect(s.scale).toBe(2 ** 10);
    const t = new LossScale();
    t.load(s.state);
    expect(t.state).toEqual({ scale: 2 ** 10, goodSteps: 0 });
    expect(() => new LossScale({ initScale: 0 })).toThrow(ArgumentError);
    expect(() => new LossScale({ backoffFactor: 1 })).toThrow(ArgumentError);
    expect(() => new LossScale({ growthInterval: 1.5 })).toThrow(ArgumentError);
  });
});

describe('GradScaler', () => {
  async function setup(gradValues: number[]) {
    const model = new Linear(ad, 2, 1, { bias: false });
    model.weight.set(fromData(ad, [[1], [2]]));
    const grads = new ParamGrads<typeof ad>();
    grads.set(model.weight.id, fromData(ad, gradValues, { shape: [2, 1] }));
    return { model, grads, opt: new SGD<typeof ad>({ lr: 0.5 }) };
  }

  it('unscales finite gradients and applies the step', async () => {
    const scaler = new GradScaler({ initScale: 1024, growthInterval: 100 });
    const { model, grads, opt } = await setup([1024, -2048]);
    expect(await scaler.step(opt, model, grads)).toBe(true);
    // SGD on the unscaled gradients [1, -2]: w - 0.5 g.
    expect(Array.from((await model.weight.value.toData()).values)).toEqual([0.5, 3]);
    expect(scaler.scale).toBe(1024);
    grads.dispose();
  });

  it.each([[Infinity], [NaN]])('skips the step and halves the scale when a gradient is %s', async (bad) => {
    const scaler = new GradScaler({ initScale: 1024 });
    const { model, grads, opt } = await setup([1, bad]);
    expect(await scaler.step(opt, model, grads)).toBe(false);
    expect(Array.from((await model.weight.value.toData()).values)).toEqual([1, 2]);
    expect(scaler.scale).toBe(512);
    grads.dispose();
  });

  it('scales the loss, and does nothing when disabled', async () => {
    const loss = fromData(ad, 0.75);
    expect(await new GradScaler({ initScale: 8 }).scaleLoss(loss).item()).toBe(6);
    const off = new GradScaler({ enabled: false });
    expect(off.scale).toBe(1);
    const { model, grads, opt } = await setup([1, Infinity]);
    expect(await off.step(opt, model, grads)).toBe(true);
    grads.dispose();
  });
});

describe('autocast', () => {
  const A = [[0.1, -1.3, 2.7], [3.3, 0.01, -0.5]];
  const B = [[1.1, 0.2], [-0.7, 2.9], [0.35, -1.05]];

  it('runs float32 matmuls in float16 and returns float32', async () => {
    const a = fromData(ad, A);
    const b = fromData(ad, B);
    expect(isAutocastEnabled(ad.runtime)).toBe(false);
    const y = autocast(() => {
      expect(isAutocastEnabled(ad.runtime)).toBe(true);
      return a.matmul(b);
    }, { runtime: ad.runtime });
    expect(y.dtype).toBe('float32');
    // Reference: float64 products of the float16-rounded inputs, rounded once to float16.
    const want = A.map((row) => B[0]!.map((_, j) => roundHalf(row.reduce((s, v, k) => s + roundHalf(v) * roundHalf(B[k]![j]!), 0))));
    expect(await y.toArray()).toEqual(want);
    // Outside the scope: float32 as before.
    const exact = await a.matmul(b).toArray();
    expect(exact).not.toEqual(want);
  });

  it('gives float32 weights float32 gradients through the float16 matmul', async () => {
    const w = fromData(ad, B).requireGrad();
    const x = fromData(ad, A);
    const loss = autocast(() => x.matmul(w).sum(), { runtime: ad.runtime });
    const g = w.grad(loss.backward())!;
    expect(g.dtype).toBe('float32');
    // d sum(x w) / dw[k][j] = sum_i x[i][k], of the float16-rounded x.
    const want = B.map((row, k) => row.map(() => roundHalf(A.reduce((s, r) => s + roundHalf(r[k]!), 0))));
    expect(await g.toArray()).toEqual(want);
  });

  it('takes synchronous functions only', () => {
    expect(() => autocast(async () => 1)).toThrow(ArgumentError);
  });
});
