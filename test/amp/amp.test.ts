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

/** Calls a method the way untyped JavaScript may: the arguments go through `unknown` on purpose. */
function untyped(target: object, method: string, ...args: unknown[]): unknown {
  const fn: unknown = Reflect.get(target, method);
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return Reflect.apply(fn, target, args);
}

/** `new C(options)` with options of any type, as untyped JavaScript may call it. */
function construct(C: typeof GradScaler | typeof LossScale, options: unknown): unknown {
  return Reflect.construct(C, [options]);
}

/**
 * PyTorch's scale update (_amp_update_scale_, torch.amp.GradScaler.update), written out: the
 * scale is a float32 tensor, so each product is rounded to float32; on an overflow it backs off
 * and the tracker resets; after `interval` good steps in a row it grows, unless the grown scale
 * is not finite in float32, in which case it stays.
 */
function torchUpdates(scale: number, growth: number, backoff: number, interval: number, foundInf: boolean[]): Array<[number, number]> {
  let s = Math.fround(scale);
  let tracker = 0;
  return foundInf.map((inf) => {
    if (inf) {
      s = Math.fround(s * backoff);
      tracker = 0;
    } else if (tracker + 1 === interval) {
      const grown = Math.fround(s * growth);
      if (Number.isFinite(grown)) s = grown;
      tracker = 0;
    } else tracker += 1;
    return [s, tracker];
  });
}

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

  it('never grows past float32: the scale stays at the last finite value, as PyTorch', () => {
    const cases: Array<[number, number, number, number, boolean[]]> = [
      [2 ** 126, 2, 0.5, 1, [false, false, false, true, false, false]],
      [2 ** 125, 3, 0.5, 2, [false, false, false, false, false, false, true, false, false]],
      [2 ** 127, 2, 0.5, 1, [false]],
      // Factors that are not powers of two: the scale is rounded to float32 as PyTorch's tensor is.
      [1000, 2.5, 0.3, 1, [true, false, true, true, false, false]],
    ];
    for (const [initScale, growthFactor, backoffFactor, growthInterval, overflows] of cases) {
      const s = new LossScale({ initScale, growthFactor, backoffFactor, growthInterval });
      const got = overflows.map((o) => {
        s.update(o);
        return [s.scale, s.state.goodSteps];
      });
      expect(got).toEqual(torchUpdates(initScale, growthFactor, backoffFactor, growthInterval, overflows));
    }
    const top = new LossScale({ initScale: 2 ** 127, growthInterval: 1 });
    for (let i = 0; i < 5; i++) expect(top.update(false)).toBe(true);
    expect(top.scale).toBe(2 ** 127);
    expect(Number.isFinite(Math.fround(top.scale))).toBe(true);
  });

  it('refuses a scale float32 cannot hold, and the settings PyTorch refuses', () => {
    for (const initScale of [2 ** 128, 1e39, 1e-46, 0, -1, Infinity, NaN]) {
      expect(() => new LossScale({ initScale }), String(initScale)).toThrow(/LossScale: initScale must be a positive number that float32 holds/);
    }
    // The smallest and largest finite float32 values are fine.
    expect(new LossScale({ initScale: 2 ** -149 }).scale).toBe(2 ** -149);
    expect(new LossScale({ initScale: 3.4028234663852886e38 }).scale).toBe(3.4028234663852886e38);
    expect(() => construct(LossScale, { initScale: '8' })).toThrow(/initScale must be .*, got "8" \(a string\)/);
    for (const growthFactor of [1, 0.5, Infinity, NaN]) expect(() => new LossScale({ growthFactor }), String(growthFactor)).toThrow(/LossScale: growthFactor must be a finite number > 1/);
    for (const backoffFactor of [0, 1, -0.5, NaN]) expect(() => new LossScale({ backoffFactor }), String(backoffFactor)).toThrow(/LossScale: backoffFactor must be a number in \(0, 1\)/);
    for (const growthInterval of [0, -1, 1.5, NaN]) expect(() => new LossScale({ growthInterval }), String(growthInterval)).toThrow(/LossScale: growthInterval must be an integer >= 1/);
    expect(() => construct(LossScale, { init_scale: 8 })).toThrow(/LossScale: unknown option 'init_scale' \(did you mean 'initScale'\?\)/);
    expect(() => construct(LossScale, { enabled: false })).toThrow(/LossScale: unknown option 'enabled'/);
  });

  it('update takes a boolean, and load checks all of the state before changing any', () => {
    const s = new LossScale({ initScale: 8, growthInterval: 3 });
    s.update(false);
    for (const bad of ['yes', 1, undefined, null]) {
      expect(() => untyped(s, 'update', bad)).toThrow(/LossScale.update: overflow must be true or false/);
    }
    expect(s.state).toEqual({ scale: 8, goodSteps: 1 });
    for (const bad of [null, 3, { scale: 'x', goodSteps: 0 }, { scale: 16, goodSteps: -1 }, { scale: 16, goodSteps: 0.5 }, { scale: 2 ** 128, goodSteps: 0 }, { scale: 0, goodSteps: 0 }, {}]) {
      expect(() => untyped(s, 'load', bad), JSON.stringify(bad)).toThrow(/LossScale.load: /);
      expect(s.state).toEqual({ scale: 8, goodSteps: 1 });
    }
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

  it('stops growing at the largest float32 power of two: the scaled loss stays finite', async () => {
    const scaler = new GradScaler({ initScale: 2 ** 127, growthInterval: 1 });
    const { model, grads, opt } = await setup([2 ** 127, 0]);
    expect(await scaler.step(opt, model, grads)).toBe(true);
    // PyTorch: 2^127 * 2 is inf in float32, so the scale stays 2^127.
    expect(scaler.scale).toBe(2 ** 127);
    expect(await scaler.scaleLoss(fromData(ad, 1)).item()).toBe(2 ** 127);
    grads.dispose();
  });

  it('checks its options: enabled a boolean, no unknown keys, the rule settings under its own name', () => {
    expect(() => construct(GradScaler, { enabled: 'no' })).toThrow(/GradScaler: enabled must be true or false, got "no" \(a string\)/);
    expect(() => construct(GradScaler, { enable: false })).toThrow(/GradScaler: unknown option 'enable'/);
    expect(() => construct(GradScaler, { growth_interval: 10 })).toThrow(/did you mean 'growthInterval'/);
    expect(() => construct(GradScaler, null)).toThrow(ArgumentError);
    expect(() => new GradScaler({ initScale: 1e39 })).toThrow(/^GradScaler: initScale must be/);
    expect(() => new GradScaler({ growthFactor: 1 })).toThrow(/^GradScaler: growthFactor must be a finite number > 1/);
    expect(new GradScaler({ enabled: false }).enabled).toBe(false);
    const s = new GradScaler({ initScale: 8 });
    expect(() => untyped(s, 'load', null)).toThrow(/^GradScaler.load: the state must be an object/);
    expect(() => untyped(s, 'load', { scale: 8 })).toThrow(/^GradScaler.load: state.goodSteps must be an integer >= 0, got undefined/);
    expect(s.scale).toBe(8);
  });

  it('names a bad argument before unscaling any gradient or moving the scale', async () => {
    const scaler = new GradScaler({ initScale: 1024, growthInterval: 1 });
    const { model, grads, opt } = await setup([1024, -2048]);
    expect(() => untyped(scaler, 'scaleLoss', 3)).toThrow(/^GradScaler.scaleLoss: the loss must be a tensor, got 3/);
    const calls: Array<[unknown[], RegExp]> = [
      [[null, model, grads], /the first argument must be an optimizer .*got null/],
      [[opt, undefined, grads], /the second argument must be the module to step, got undefined/],
      [[opt, model, null], /the gradients must be a ParamGrads, got null/],
      [[opt, model, grads, 'x'], /the rate must be a number or a learning-rate scheduler, got "x" \(a string\)/],
      [[opt, model, grads, NaN], /the rate must be a finite number, got NaN/],
      [[opt, model, grads, {}], /the rate must be a number or a learning-rate scheduler, got an object/],
    ];
    for (const [args, message] of calls) {
      await expect(Promise.resolve().then(() => untyped(scaler, 'step', ...args))).rejects.toThrow(ArgumentError);
      await expect(Promise.resolve().then(() => untyped(scaler, 'step', ...args))).rejects.toThrow(message);
      // Nothing changed: the gradients still scaled, the scale and its count as they were, the weights too.
      expect(Array.from((await grads.get(model.weight.id)!.toData()).values)).toEqual([1024, -2048]);
      expect(scaler.state).toEqual({ scale: 1024, goodSteps: 0 });
      expect(Array.from((await model.weight.value.toData()).values)).toEqual([1, 2]);
    }
    const off = new GradScaler({ enabled: false });
    await expect(Promise.resolve().then(() => untyped(off, 'step', opt, model, grads, 'x'))).rejects.toThrow(/^GradScaler.step: the rate/);
    expect(() => untyped(off, 'scaleLoss', null)).toThrow(/^GradScaler.scaleLoss: the loss must be a tensor/);
    // A finite rate is still taken: SGD at 0.25 on [1, -2].
    expect(await scaler.step(opt, model, grads, 0.25)).toBe(true);
    expect(Array.from((await model.weight.value.toData()).values)).toEqual([0.75, 2.5]);
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
