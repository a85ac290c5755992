/** Optimizers against float64 re-implementations of the PyTorch update rules, state round trips, clipping. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { Module } from '../../src/nn/module.js';
import { Param } from '../../src/nn/param.js';
import { transferables } from '../../src/nn/record.js';
import { Adam, AdamW } from '../../src/optim/adam.js';
import { clipGradNorm } from '../../src/optim/clip.js';
import type { Optimizer } from '../../src/optim/optimizer.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { SGD } from '../../src/optim/sgd.js';
import { Router } from '../../src/router/router.js';
import { fromData } from '../../src/tensor/creation.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());

type AD = typeof ad;

class Two<B extends Backend> extends Module<B> {
  constructor(
    readonly a: Param<B>,
    readonly b: Param<B>,
  ) {
    super();
  }
}

const A0 = [0.5, -1.25, 2];
const B0 = [[1, -0.5], [0.25, 3]];
/** Gradients for three steps, per parameter. */
const GA = [[0.1, -0.2, 0.3], [-0.4, 0.5, 0.05], [0.2, 0.2, -0.6]];
const GB = [[1, 0, -1, 0.5], [0.3, -0.3, 0.3, -0.3], [-2, 1, 0.5, 0.25]];

function model(): Two<AD> {
  return new Two(new Param(fromData(ad, A0)), new Param(fromData(ad, B0)));
}

function gradsFor(m: Two<AD>, step: number): ParamGrads<AD> {
  const g = new ParamGrads<AD>();
  g.set(m.a.id, fromData(ad, GA[step]!));
  g.set(m.b.id, fromData(ad, GB[step]!, { shape: [2, 2] }));
  return g;
}

type Rule = (p: number, g: number, s: Record<string, number>, t: number) => number;

/** Runs a scalar float64 update rule over both parameters for `steps` steps. */
function reference(rule: Rule, steps: number): number[][] {
  const params = [A0, B0.flat()].map((v) => [...v]);
  const grads = [GA, GB];
  const states = params.map((v) => v.map(() => ({}) as Record<string, number>));
  for (let t = 1; t <= steps; t++) {
    params.forEach((v, k) => v.forEach((p, i) => (v[i] = rule(p, grads[k]![t - 1]![i]!, states[k]![i]!, t))));
  }
  return params;
}

async function run(opt: Optimizer<AD>, steps: number, m = model()): Promise<number[][]> {
  for (let t = 0; t < steps; t++) {
    const g = gradsFor(m, t);
    opt.step(m, g);
    g.dispose();
  }
  return [Array.from((await m.a.value.toData()).values), Array.from((await m.b.value.toData()).values)];
}

function expectClose(actual: number[][], expected: number[][]): void {
  actual.forEach((row, k) => row.forEach((v, i) => expect(Math.abs(v - expected[k]![i]!), `param ${k}[${i}]: ${v} vs ${expected[k]![i]}`).toBeLessThan(1e-5)));
}

const sgdRule = (lr: number, momentum: number, dampening: number, wd: number, nesterov: boolean): Rule => (p, g, s, t) => {
  let d = g + wd * p;
  if (momentum !== 0) {
    s.buf = t === 1 ? d : momentum * s.buf! + (1 - dampening) * d;
    d = nesterov ? d + momentum * s.buf : s.buf;
  }
  return p - lr * d;
};

const adamRule = (lr: number, b1: number, b2: number, eps: number, wd: number, decoupled: boolean, amsgrad = false): Rule => (p, g, s, t) => {
  let base = p;
  let grad = g;
  if (decoupled) base = p * (1 - lr * wd);
  else grad = g + wd * p;
  s.m = b1 * (s.m ?? 0) + (1 - b1) * grad;
  s.v = b2 * (s.v ?? 0) + (1 - b2) * grad * grad;
  // torch: max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq), used in place of exp_avg_sq.
  s.vMax = Math.max(s.vMax ?? 0, s.v);
  const mHat = s.m / (1 - b1 ** t);
  const vHat = (amsgrad ? s.vMax : s.v) / (1 - b2 ** t);
  return base - (lr * mHat) / (Math.sqrt(vHat) + eps);
};

describe('SGD', () => {
  it('plain', async () => expectClose(await run(new SGD({ lr: 0.1 }), 3), reference(sgdRule(0.1, 0, 0, 0, false), 3)));
  it('with momentum, dampening and weight decay', async () => {
    expectClose(await run(new SGD({ lr: 0.05, momentum: 0.9, dampening: 0.1, weightDecay: 0.01 }), 3), reference(sgdRule(0.05, 0.9, 0.1, 0.01, false), 3));
  });
  it('Nesterov', async () => {
    expectClose(await run(new SGD({ lr: 0.05, momentum: 0.8, nesterov: true }), 3), reference(sgdRule(0.05, 0.8, 0, 0, true), 3));
  });
});

describe('Adam and AdamW', () => {
  it('Adam', async () => expectClose(await run(new Adam({ lr: 0.01 }), 3), reference(adamRule(0.01, 0.9, 0.999, 1e-8, 0, false), 3)));
  it('Adam with L2 weight decay and other betas', async () => {
    expectClose(await run(new Adam({ lr: 0.02, betas: [0.8, 0.99], weightDecay: 0.1 }), 3), reference(adamRule(0.02, 0.8, 0.99, 1e-8, 0.1, false), 3));
  });
  it('AdamW (decoupled weight decay, default 1e-2)', async () => {
    expectClose(await run(new AdamW({ lr: 0.01 }), 3), reference(adamRule(0.01, 0.9, 0.999, 1e-8, 0.01, true), 3));
  });
  it('amsgrad (the largest second moment so far in the denominator), for Adam and AdamW, capturable too', async () => {
    const plain = reference(adamRule(0.05, 0.5, 0.6, 1e-8, 0, false), 3);
    const ams = reference(adamRule(0.05, 0.5, 0.6, 1e-8, 0, false, true), 3);
    // The gradients shrink in places, so the rule differs from Adam's there.
    expect(Math.max(...ams.flat().map((v, i) => Math.abs(v - plain.flat()[i]!)))).toBeGreaterThan(1e-3);
    expectClose(await run(new Adam({ lr: 0.05, betas: [0.5, 0.6], amsgrad: true }), 3), ams);
    expectClose(await run(new Adam({ lr: 0.05, betas: [0.5, 0.6], amsgrad: true, capturable: true }), 3), ams);
    expectClose(await run(new AdamW({ lr: 0.02, betas: [0.8, 0.7], amsgrad: true }), 3), reference(adamRule(0.02, 0.8, 0.7, 1e-8, 0.01, true, true), 3));
    expect(() => new Adam({ amsgrad: 'yes' as unknown as boolean })).toThrow(/Adam: amsgrad must be true or false, got "yes" \(a string\)/);
  });

  it('capturable (the step count a device tensor, the corrections tensor ops): the same rule, for Adam and AdamW', async () => {
    expectClose(await run(new Adam({ lr: 0.02, betas: [0.8, 0.99], weightDecay: 0.1, capturable: true }), 3), reference(adamRule(0.02, 0.8, 0.99, 1e-8, 0.1, false), 3));
    expectClose(await run(new AdamW({ lr: 0.01, capturable: true }), 3), reference(adamRule(0.01, 0.9, 0.999, 1e-8, 0.01, true), 3));
  });
});

describe('optimizer state', () => {
  it('saved after two steps and restored elsewhere, gives the same third step', async () => {
    const expected = reference(adamRule(0.01, 0.9, 0.999, 1e-8, 0, false), 3);
    const m = model();
    const first = new Adam<AD>({ lr: 0.01 });
    await run(first, 2, m);
    const rec = await first.state();
    expect(rec.kind).toBe('adam');
    expect(Object.keys(rec.params).sort()).toEqual([m.a.id, m.b.id].sort());
    expect(rec.params[m.a.id]!.step).toBe(2);
    const buffers = Object.values(rec.params).flatMap((p) => transferables({ params: p.tensors }));
    const moved = structuredClone(rec, { transfer: buffers });
    const second = new Adam<AD>({ lr: 0.01 });
    second.loadState(moved, m);
    const g = gradsFor(m, 2);
    second.step(m, g);
    expectClose([Array.from((await m.a.value.toData()).values), Array.from((await m.b.value.toData()).values)], expected);
    expect(() => new SGD<AD>({ lr: 1 }).loadState(moved, m)).toThrow(/kind 'adam'/);
  });

  it('keeps parameters leaves that require grad after a step', () => {
    const m = model();
    const g = gradsFor(m, 0);
    new SGD<AD>({ lr: 0.1 }).step(m, g);
    expect(m.a.value.requiresGrad).toBe(true);
  });
});

describe('gradients by ParamId', () => {
  it('come from a backward pass and a module', async () => {
    const m = model();
    const loss = m.a.value.mul(fromData(ad, [1, 2, 3])).sum().add(m.b.value.sum());
    const pg = ParamGrads.from(loss.backward(), m);
    expect(pg.ids().sort()).toEqual([m.a.id, m.b.id].sort());
    expect(Array.from((await pg.get(m.a.id)!.toData()).values)).toEqual([1, 2, 3]);
  });

  it('from a record (another thread) apply to the right parameters', async () => {
    const m = model();
    const rec = await gradsFor(m, 0).toRecord();
    const moved = structuredClone(rec, { transfer: transferables(rec) });
    const g = ParamGrads.fromRecord(ad, moved);
    expectClose(await run(new SGD({ lr: 0.1 }), 0, m), [A0, B0.flat()]);
    new SGD<AD>({ lr: 0.1 }).step(m, g);
    expectClose([Array.from((await m.a.value.toData()).values), Array.from((await m.b.value.toData()).values)], reference(sgdRule(0.1, 0, 0, 0, false), 1));
  });

  it('on another device are moved to the parameter first', async () => {
    const A = CpuDevice.named('cpu:oa');
    const B = CpuDevice.named('cpu:ob');
    const router = new Router([new Cpu({ threads: 0, device: A }), new Cpu({ threads: 0, device: B })]);
    const ar = new Autodiff(router);
    const onA = router.device(0, A);
    const onB = router.device(1, B);
    const p = new Param(fromData(ar, [1, 2], { device: onA }));
    const m = new Two(p, new Param(fromData(ar, [0], { device: onA })));
    const g = new ParamGrads<typeof ar>();
    g.set(p.id, fromData(ar, [10, 20], { device: onB }));
    new SGD<typeof ar>({ lr: 0.1 }).step(m, g);
    expect(p.value.device.key).toBe(onA.key);
    expect(Array.from((await p.value.toData()).values)).toEqual([0, 0]);
    await ar.close();
  });
});

describe('clipGradNorm', () => {
  it('scales all gradients by maxNorm / total norm when above it, and returns the norm', async () => {
    const m = model();
    const g = gradsFor(m, 0);
    const total = Math.sqrt([...GA[0]!, ...GB[0]!].reduce((s, v) => s + v * v, 0));
    const norm = clipGradNorm(g, 0.5)!;
    expect(await norm.item()).toBeCloseTo(total, 5);
    const scale = 0.5 / (total + 1e-6);
    const a = Array.from((await g.get(m.a.id)!.toData()).values);
    a.forEach((v, i) => expect(v).toBeCloseTo(GA[0]![i]! * scale, 6));
  });

  it('leaves gradients below the norm alone', async () => {
    const m = model();
    const g = gradsFor(m, 1);
    clipGradNorm(g, 100);
    expect(Array.from((await g.get(m.a.id)!.toData()).values)).toEqual(GA[1]!.map(Math.fround));
  });

  it('as an optimizer option', async () => {
    const total = (t: number) => Math.sqrt([...GA[t]!, ...GB[t]!].reduce((s, v) => s + v * v, 0));
    const clipped: Rule = (p, g, _s, t) => p - 0.1 * g * Math.min(1, 0.3 / (total(t - 1) + 1e-6));
    expectClose(await run(new SGD({ lr: 0.1, clipNorm: 0.3 }), 3), reference(clipped, 3));
  });
});
