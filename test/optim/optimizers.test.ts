/** RMSprop, Adagrad and Adamax against float64 re-implementations of PyTorch's update rules; schedules consumed by step(). */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Module } from '../../src/nn/module.js';
import { Param } from '../../src/nn/param.js';
import { Adagrad } from '../../src/optim/adagrad.js';
import { Adamax } from '../../src/optim/adamax.js';
import { StepLR } from '../../src/optim/lr-scheduler.js';
import type { Optimizer } from '../../src/optim/optimizer.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { RMSprop } from '../../src/optim/rmsprop.js';
import { SGD } from '../../src/optim/sgd.js';
import { fromData } from '../../src/tensor/creation.js';
import { adagrad, adamax, rmsprop, type Rule } from './rules.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
type AD = typeof ad;

class One<B extends Backend> extends Module<B> {
  constructor(readonly w: Param<B>) {
    super();
  }
}

const W0 = [0.5, -1.25, 2, 0.1];
const G = [[0.1, -0.2, 0.3, 0], [-0.4, 0.5, 0.05, 1], [0.2, 0.2, -0.6, -1], [1, -1, 0.5, 0.3]];

function reference(rule: Rule, steps: number): number[] {
  const states = W0.map(() => ({}) as Record<string, number>);
  const p = [...W0];
  for (let t = 1; t <= steps; t++) p.forEach((v, i) => (p[i] = rule(v, G[t - 1]![i]!, states[i]!, t)));
  return p;
}

async function run(opt: Optimizer<AD>, steps: number): Promise<number[]> {
  const m = new One(new Param(fromData(ad, W0)));
  for (let t = 0; t < steps; t++) {
    const g = new ParamGrads<AD>();
    g.set(m.w.id, fromData(ad, G[t]!));
    opt.step(m, g);
    g.dispose();
  }
  return Array.from((await m.w.value.toData()).values);
}

function expectClose(actual: number[], expected: number[]): void {
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]!), `${i}: ${v} vs ${expected[i]}`).toBeLessThan(2e-6 * Math.max(1, Math.abs(expected[i]!))));
}

describe('RMSprop', () => {
  it('defaults (lr 1e-2, alpha 0.99)', async () => expectClose(await run(new RMSprop(), 4), reference(rmsprop(0.01, 0.99, 1e-8, 0, 0, false), 4)));
  it('centred, with momentum and weight decay', async () => {
    expectClose(await run(new RMSprop({ lr: 0.005, alpha: 0.9, momentum: 0.8, centered: true, weightDecay: 0.1 }), 4), reference(rmsprop(0.005, 0.9, 1e-8, 0.1, 0.8, true), 4));
  });
});

describe('Adagrad', () => {
  it('defaults', async () => expectClose(await run(new Adagrad(), 4), reference(adagrad(0.01, 0, 0, 0, 1e-10), 4)));
  it('with rate decay, weight decay and an initial accumulator', async () => {
    expectClose(await run(new Adagrad({ lr: 0.1, lrDecay: 0.5, weightDecay: 0.01, initialAccumulatorValue: 0.3 }), 4), reference(adagrad(0.1, 0.5, 0.01, 0.3, 1e-10), 4));
  });
});

describe('Adamax', () => {
  it('defaults (lr 2e-3)', async () => expectClose(await run(new Adamax(), 4), reference(adamax(0.002, 0.9, 0.999, 1e-8, 0), 4)));
  it('other betas and weight decay', async () => {
    expectClose(await run(new Adamax({ lr: 0.01, betas: [0.8, 0.9], weightDecay: 0.05 }), 4), reference(adamax(0.01, 0.8, 0.9, 1e-8, 0.05), 4));
  });
});

describe('schedules consumed by step()', () => {
  const sgdAt = (rates: number[]): number[] => {
    const p = [...W0];
    rates.forEach((lr, t) => p.forEach((v, i) => (p[i] = v - lr * G[t]![i]!)));
    return p;
  };

  it('a scheduler in the options gives each step its rate, with lr as the base; lastLr reports it', async () => {
    const opt = new SGD<AD>({ lr: 0.5, scheduler: new StepLR({ stepSize: 2, gamma: 0.1 }) });
    expectClose(await run(opt, 4), sgdAt([0.5, 0.5, 0.05, 0.05]));
    expect(opt.lastLr).toBeCloseTo(0.05, 12);
  });

  it('a number or a scheduler passed to step() wins over the options', async () => {
    const m = new One(new Param(fromData(ad, W0)));
    const opt = new SGD<AD>({ lr: 0.5, scheduler: new StepLR({ stepSize: 1 }) });
    const sched = new StepLR({ stepSize: 1, gamma: 0.5 });
    for (let t = 0; t < 3; t++) {
      const g = new ParamGrads<AD>();
      g.set(m.w.id, fromData(ad, G[t]!));
      opt.step(m, g, t === 0 ? 0.2 : sched);
      g.dispose();
    }
    expectClose(Array.from((await m.w.value.toData()).values), sgdAt([0.2, 0.5, 0.25]));
    expect(opt.options.scheduler!.stepCount).toBe(0);
  });
});
