/**
 * What every optimizer shares: unknown option keys refused, `maximize` (torch's), the rate checked
 * wherever it comes from (lr, a schedule, step's argument), clipping by any p-norm and by value
 * against float64 references, and state that loads only onto parameters it fits (and in their
 * dtype).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError } from '../../src/errors.js';
import { Module } from '../../src/nn/module.js';
import { Param } from '../../src/nn/param.js';
import { Adagrad } from '../../src/optim/adagrad.js';
import { Adam, AdamW } from '../../src/optim/adam.js';
import { Adadelta } from '../../src/optim/adadelta.js';
import { Adamax } from '../../src/optim/adamax.js';
import { ASGD } from '../../src/optim/asgd.js';
import { NAdam } from '../../src/optim/nadam.js';
import { RAdam } from '../../src/optim/radam.js';
import { Rprop } from '../../src/optim/rprop.js';
import { clipGradNorm, clipGradValue } from '../../src/optim/clip.js';
import { ConstantLR, CosineLR, LambdaLR, LinearLR, LrScheduler, OneCycleLR, ReduceLROnPlateau, SequentialLR, StepLR } from '../../src/optim/lr-scheduler.js';
import type { Optimizer } from '../../src/optim/optimizer.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { RMSprop } from '../../src/optim/rmsprop.js';
import { SGD } from '../../src/optim/sgd.js';
import { fromData } from '../../src/tensor/creation.js';
import { untyped } from '../untyped.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
type AD = typeof ad;

class Two<B extends Backend> extends Module<B> {
  constructor(
    readonly w: Param<B>,
    readonly b: Param<B>,
  ) {
    super();
  }
}

const W0 = [0.5, -1.25, 2, 0.1];
const B0 = [0.3, -0.7];
const GW = [[0.1, -0.2, 0.3, 0], [-0.4, 0.5, 0.05, 1], [0.2, 0.2, -0.6, -1]];
const GB = [[1, -2], [0.5, 0.25], [-3, 0.125]];

function model(dtype: 'float32' | 'float16' = 'float32'): Two<AD> {
  return new Two(new Param(fromData(ad, W0, { dtype })), new Param(fromData(ad, B0, { dtype })));
}

function grads(m: Two<AD>, t: number, dtype: 'float32' | 'float16' = 'float32'): ParamGrads<AD> {
  const g = new ParamGrads<AD>();
  g.set(m.w.id, fromData(ad, GW[t]!, { dtype }));
  g.set(m.b.id, fromData(ad, GB[t]!, { dtype }));
  return g;
}

async function values(m: Two<AD>): Promise<number[]> {
  return [...(await m.w.value.toData()).values, ...(await m.b.value.toData()).values];
}

const KINDS: Array<[string, (o: Record<string, unknown>) => Optimizer<AD>]> = [
  ['SGD', (o) => new SGD<AD>({ lr: 0.1, ...o })],
  ['Adam', (o) => new Adam<AD>(o)],
  ['AdamW', (o) => new AdamW<AD>(o)],
  ['RMSprop', (o) => new RMSprop<AD>(o)],
  ['Adagrad', (o) => new Adagrad<AD>(o)],
  ['Adamax', (o) => new Adamax<AD>(o)],
  ['NAdam', (o) => new NAdam<AD>(o)],
  ['RAdam', (o) => new RAdam<AD>(o)],
  ['Adadelta', (o) => new Adadelta<AD>(o)],
  ['ASGD', (o) => new ASGD<AD>(o)],
];

describe('options', () => {
  it.each(KINDS)('%s refuses an unknown key, naming the one it meant', (name, make) => {
    expect(() => make({ weight_decay: 0.1 })).toThrow(ArgumentError);
    expect(() => make({ weight_decay: 0.1 })).toThrow(new RegExp(`^${name}: unknown option 'weight_decay' \\(did you mean 'weightDecay'\\?\\)`));
    expect(() => make({ maximise: true })).toThrow(/unknown option 'maximise'; hint: .* takes 'lr', 'clipNorm', 'scheduler', 'maximize'/);
    expect(() => make({ maximize: 'yes' })).toThrow(/maximize must be true or false, got "yes" \(a string\)/);
    expect(() => make({ clipNorm: NaN })).toThrow(/clipNorm must be a finite number >= 0, got NaN/);
    expect(() => make({ clipNorm: -1 })).toThrow(/clipNorm must be a finite number >= 0, got -1/);
    expect(() => make({ scheduler: 0.1 })).toThrow(/scheduler must be a learning-rate schedule/);
  });

  it("Rprop (torch's has no weight decay) refuses one, and checks its etas and step sizes; maximising g takes the steps of minimising -g", async () => {
    expect(() => new Rprop<AD>(untyped({ weightDecay: 0.1 }))).toThrow(/^Rprop: unknown option 'weightDecay'/);
    expect(() => new Rprop<AD>({ groups: [untyped({ params: () => true, weightDecay: 0 })] })).toThrow(/^Rprop: groups\[0\].weightDecay: Rprop has no weight decay/);
    expect(() => new Rprop<AD>({ etas: [1, 1.2] })).toThrow(/^Rprop: etas\[0\] must be a number in \(0, 1\), got 1/);
    expect(() => new Rprop<AD>({ etas: [0.5, 1] })).toThrow(/^Rprop: etas\[1\] must be a finite number > 1, got 1/);
    expect(() => new Rprop<AD>(untyped({ etas: 0.5 }))).toThrow(/^Rprop: etas must be two numbers/);
    expect(() => new Rprop<AD>({ stepSizes: [0.1, 0.01] })).toThrow(/^Rprop: stepSizes\[1\] must be a finite number >= stepSizes\[0\] \(0.1\), got 0.01/);
    expect(() => new Rprop<AD>({ lr: -0.1 })).toThrow(/^Rprop: lr must be a finite number >= 0/);
    const up = model();
    const down = model();
    const a = new Rprop<AD>({ maximize: true });
    const b = new Rprop<AD>();
    for (let t = 0; t < 3; t++) {
      a.step(up, grads(up, t));
      const g = grads(down, t);
      for (const [id, x] of g.entries()) g.set(id, x.neg());
      b.step(down, g);
    }
    expect(await values(up)).toEqual(await values(down));
  });

  it('the new optimizers name a bad option', () => {
    expect(() => new NAdam<AD>({ betas: [0.9, 1] })).toThrow(/^NAdam: betas\[1\] must be a number in \[0, 1\), got 1/);
    expect(() => new NAdam<AD>({ momentumDecay: -1 })).toThrow(/^NAdam: momentumDecay must be a finite number >= 0, got -1/);
    expect(() => new NAdam<AD>(untyped({ decoupledWeightDecay: 1 }))).toThrow(/^NAdam: decoupledWeightDecay must be true or false/);
    expect(() => new NAdam<AD>(untyped({ momentum_decay: 0.1 }))).toThrow(/^NAdam: unknown option 'momentum_decay' \(did you mean 'momentumDecay'\?\)/);
    expect(() => new RAdam<AD>({ eps: -1 })).toThrow(/^RAdam: eps must be a finite number >= 0, got -1/);
    expect(() => new RAdam<AD>(untyped({ betas: [0.9] }))).toThrow(/^RAdam: betas must be two numbers in \[0, 1\)/);
    expect(() => new Adadelta<AD>({ rho: 1.5 })).toThrow(/^Adadelta: rho must be a number in \[0, 1\], got 1.5/);
    expect(() => new Adadelta<AD>({ weightDecay: NaN })).toThrow(/^Adadelta: weightDecay must be a finite number >= 0, got NaN/);
    expect(() => new ASGD<AD>({ lambd: -1 })).toThrow(/^ASGD: lambd must be a finite number >= 0, got -1/);
    expect(() => new ASGD<AD>({ t0: Infinity })).toThrow(/^ASGD: t0 must be a finite number, got Infinity/);
    expect(() => new ASGD<AD>(untyped({ alpha: '0.75' }))).toThrow(/^ASGD: alpha must be a finite number, got "0.75"/);
  });

  it('lr set later is checked as lr given to the constructor', () => {
    const opt = new SGD<AD>({ lr: 0.1 });
    expect(() => (opt.lr = NaN)).toThrow(/SGD: lr must be a finite number, got NaN/);
    expect(opt.lr).toBe(0.1);
    opt.lr = -0.5;
    expect(opt.lr).toBe(-0.5);
  });

  it("step's rate: a number or a schedule, and a schedule's rate must be finite", () => {
    const m = model();
    const opt = new SGD<AD>({ lr: 0.1 });
    const step = opt.step.bind(opt) as (...a: unknown[]) => unknown;
    expect(() => step(m, grads(m, 0), '0.1')).toThrow(/Optimizer.step: the rate must be a number or a learning-rate schedule, got "0.1" \(a string\)/);
    expect(() => step(m, grads(m, 0), {})).toThrow(ArgumentError);
    expect(() => step(m, grads(m, 0), undefined, null)).not.toThrow();
    expect(() => step(m, grads(m, 0), undefined, { clip: 'no' })).toThrow(/options.clip must be true or false/);
    class Broken extends LrScheduler {
      readonly kind = 'broken';
      rateAt(step: number): number {
        return step < 1 ? 0.1 : NaN;
      }
    }
    const s = new Broken();
    opt.step(m, grads(m, 0), s);
    expect(() => opt.step(m, grads(m, 1), s)).toThrow(/the schedule 'broken' gave the rate NaN at its step 1/);
  });
});

describe('maximize', () => {
  it('SGD with momentum and Adam step up the gradient, as float64 references of torch with maximize=True', async () => {
    // torch: with maximize, g = -g before weight decay, momentum and the moments.
    const sgdRef = (): number[] => {
      const p = [...W0, ...B0];
      const buf: number[] = [];
      for (let t = 0; t < 3; t++) {
        const g = [...GW[t]!, ...GB[t]!];
        p.forEach((v, i) => {
          const d = -g[i]! + 0.01 * v;
          buf[i] = t === 0 ? d : 0.9 * buf[i]! + d;
          p[i] = v - 0.1 * buf[i]!;
        });
      }
      return p;
    };
    const adamRef = (): number[] => {
      const p = [...W0, ...B0];
      const m = p.map(() => 0);
      const v = p.map(() => 0);
      for (let t = 1; t <= 3; t++) {
        const g = [...GW[t - 1]!, ...GB[t - 1]!];
        p.forEach((x, i) => {
          const d = -g[i]!;
          m[i] = 0.9 * m[i]! + 0.1 * d;
          v[i] = 0.999 * v[i]! + 0.001 * d * d;
          p[i] = x - (0.01 * (m[i]! / (1 - 0.9 ** t))) / (Math.sqrt(v[i]! / (1 - 0.999 ** t)) + 1e-8);
        });
      }
      return p;
    };
    for (const [opt, want] of [
      [new SGD<AD>({ lr: 0.1, momentum: 0.9, weightDecay: 0.01, maximize: true }), sgdRef()],
      [new Adam<AD>({ lr: 0.01, maximize: true }), adamRef()],
    ] as const) {
      const m = model();
      for (let t = 0; t < 3; t++) opt.step(m, grads(m, t));
      const got = await values(m);
      want.forEach((v, i) => expect(Math.abs(got[i]! - v), `${opt.kind}[${i}]`).toBeLessThanOrEqual(1e-6 + 1e-5 * Math.abs(v)));
    }
  });

  it.each(KINDS)('%s: maximising g takes the steps of minimising -g', async (_, make) => {
    const up = model();
    const down = model();
    const a = make({ maximize: true });
    const b = make({});
    for (let t = 0; t < 3; t++) {
      a.step(up, grads(up, t));
      const g = grads(down, t);
      for (const [id, x] of g.entries()) g.set(id, x.neg());
      b.step(down, g);
    }
    expect(await values(up)).toEqual(await values(down));
    expect(await values(up)).not.toEqual([...W0, ...B0]);
  });
});

describe('groups', () => {
  it("AdamW without decay on 'b' and half the rate on 'w' (torch's parameter groups), against float64", async () => {
    const m = model();
    const opt = new AdamW<AD>({ lr: 0.01, weightDecay: 0.1, groups: [{ params: (name) => name === 'b', weightDecay: 0 }, { params: (name) => name === 'w', lrScale: 0.5 }] });
    for (let t = 0; t < 3; t++) opt.step(m, grads(m, t));
    const ref = (p0: number[], gs: number[][], lr: number, wd: number): number[] => {
      const p = [...p0];
      const mm = p.map(() => 0);
      const v = p.map(() => 0);
      for (let t = 1; t <= gs.length; t++) {
        p.forEach((x, i) => {
          const g = gs[t - 1]![i]!;
          const y = x * (1 - lr * wd);
          mm[i] = 0.9 * mm[i]! + 0.1 * g;
          v[i] = 0.999 * v[i]! + 0.001 * g * g;
          p[i] = y - (lr * (mm[i]! / (1 - 0.9 ** t))) / (Math.sqrt(v[i]! / (1 - 0.999 ** t)) + 1e-8);
        });
      }
      return p;
    };
    const want = [...ref(W0, GW, 0.005, 0.1), ...ref(B0, GB, 0.01, 0)];
    const got = await values(m);
    want.forEach((v, i) => expect(Math.abs(got[i]! - v), `[${i}]`).toBeLessThanOrEqual(1e-6 + 1e-5 * Math.abs(v)));
    // The groups changed something: without them both parameters decay at the full rate.
    const plain = model();
    const o2 = new AdamW<AD>({ lr: 0.01, weightDecay: 0.1 });
    for (let t = 0; t < 3; t++) o2.step(plain, grads(plain, t));
    expect(await values(plain)).not.toEqual(got);
  });

  it("a schedule runs from each group's lr: CosineLR's minLr is every group's floor, as torch's eta_min (not scaled by lrScale)", async () => {
    const m = model();
    // Unit gradients: each SGD step moves a parameter by exactly its rate.
    const ones = (): ParamGrads<AD> => {
      const g = new ParamGrads<AD>();
      g.set(m.w.id, fromData(ad, W0.map(() => 1)));
      g.set(m.b.id, fromData(ad, B0.map(() => 1)));
      return g;
    };
    const opt = new SGD<AD>({ lr: 0.1, scheduler: new CosineLR({ totalSteps: 2, minLr: 0.01 }), groups: [{ params: (name) => name === 'b', lrScale: 0.5 }] });
    // Steps 0, 1, 2: the base group 0.1, 0.055, 0.01; 'b' (lr 0.05) 0.05, 0.03, 0.01.
    for (let t = 0; t < 3; t++) opt.step(m, ones());
    const got = await values(m);
    [...W0.map((w) => w - 0.165), ...B0.map((b) => b - 0.09)].forEach((v, i) => expect(got[i], `[${i}]`).toBeCloseTo(v, 6));
  });

  it("ReduceLROnPlateau's rate for a group does not move the base it reduces from", () => {
    // With minLr the reduction depends on the rate reduced: had the group's rate (0.25) become
    // the base, the reduction would be to minLr, a factor 0.8 instead of 0.5.
    const s = new ReduceLROnPlateau({ patience: 0, factor: 0.5, minLr: 0.2 });
    expect(s.next(1)).toBe(1);
    expect(s.groupRate(0, 1, 0.25)).toBe(0.25);
    s.observe(1);
    expect(s.observe(2)).toBe(true);
    expect(s.peek(1)).toBe(0.5);
  });

  it('checks its groups', () => {
    expect(() => new SGD<AD>({ lr: 0.1, groups: [{ params: untyped('w') }] })).toThrow(/SGD: groups\[0\].params must be a function/);
    expect(() => new SGD<AD>({ lr: 0.1, groups: [{ params: () => true, weightDecay: -1 }] })).toThrow(/groups\[0\].weightDecay must be a finite number >= 0, got -1/);
    expect(() => new SGD<AD>({ lr: 0.1, groups: [{ params: () => true, lr: 0.5 } as never] })).toThrow(/unknown option 'lr'/);
    expect(() => new SGD<AD>({ lr: 0.1, groups: untyped({}) })).toThrow(/groups must be an array/);
  });

  it("a group's own settings are checked as the optimizer's, named with the group; one the optimizer lacks is refused, naming what it takes", () => {
    expect(() => new SGD<AD>({ lr: 0.1, groups: [{ params: () => true, momentum: -1 }] })).toThrow(/^SGD: groups\[0\].momentum must be a finite number >= 0, got -1/);
    // Nesterov is checked with the settings the group inherits.
    expect(() => new SGD<AD>({ lr: 0.1, momentum: 0.9, nesterov: true, groups: [{ params: () => true }, { params: () => true, momentum: 0 }] })).toThrow(/^SGD: groups\[1\]: Nesterov momentum needs momentum > 0 and dampening 0/);
    expect(() => new SGD<AD>({ lr: 0.1, groups: [untyped({ params: () => true, betas: [0.9, 0.99] })] })).toThrow(/^SGD groups\[0\]: unknown option 'betas'; hint: .*'momentum', 'dampening', 'nesterov'/);
    expect(() => new Adam<AD>({ groups: [{ params: () => true, betas: [0.9, 1] }] })).toThrow(/^Adam: groups\[0\].betas\[1\] must be a number in \[0, 1\), got 1/);
    expect(() => new AdamW<AD>({ groups: [untyped({ params: () => true, betas: 0.9 })] })).toThrow(/^AdamW: groups\[0\].betas must be two numbers in \[0, 1\), got 0.9/);
    expect(() => new Adam<AD>({ groups: [untyped({ params: () => true, amsgrad: 1 })] })).toThrow(/^Adam: groups\[0\].amsgrad must be true or false, got 1/);
    // capturable is the optimizer's (the captured step is one program), torch's Adagrad fills every sum with the optimizer's initial value.
    expect(() => new Adam<AD>({ groups: [untyped({ params: () => true, capturable: true })] })).toThrow(/^Adam groups\[0\]: unknown option 'capturable'/);
    expect(() => new Adagrad<AD>({ groups: [untyped({ params: () => true, initialAccumulatorValue: 0.1 })] })).toThrow(/^Adagrad groups\[0\]: unknown option 'initialAccumulatorValue'/);
    expect(() => new RMSprop<AD>({ groups: [untyped({ params: () => true, centered: 'yes' })] })).toThrow(/^RMSprop: groups\[0\].centered must be true or false/);
    expect(() => new Rprop<AD>({ groups: [{ params: () => true, etas: [0.5, 0.9] }] })).toThrow(/^Rprop: groups\[0\].etas\[1\] must be a finite number > 1, got 0.9/);
    expect(() => new ASGD<AD>({ groups: [{ params: () => true, t0: NaN }] })).toThrow(/^ASGD: groups\[0\].t0 must be a finite number, got NaN/);
    expect(() => new NAdam<AD>({ groups: [untyped({ params: () => true, momentum_decay: 0.1 })] })).toThrow(/^NAdam groups\[0\]: unknown option 'momentum_decay' \(did you mean 'momentumDecay'\?\)/);
    // A group that sets nothing of its own takes the optimizer's.
    const opt = new RMSprop<AD>({ alpha: 0.9, groups: [{ params: () => true, weightDecay: 0 }] });
    expect(opt.alpha).toBe(0.9);
  });

  it("OneCycleLR's cycleMomentum (its default) needs an optimizer with a momentum or betas, as torch's; refused before anything moves", () => {
    const m = model();
    for (const make of [() => new Adagrad<AD>(), () => new Adadelta<AD>(), () => new Rprop<AD>(), () => new ASGD<AD>(), () => new NAdam<AD>()]) {
      const opt = make();
      const s = new OneCycleLR({ maxLr: 0.1, totalSteps: 10 });
      expect(() => opt.step(m, grads(m, 0), s)).toThrow(new RegExp(`^Optimizer.step: the schedule 'oneCycle' sets the momentum \\(OneCycleLR's cycleMomentum\\), and ${opt.constructor.name} takes none from a schedule; hint: give the schedule cycleMomentum: false`));
      expect(s.stepCount).toBe(0);
      opt.step(m, grads(m, 0), new OneCycleLR({ maxLr: 0.1, totalSteps: 10, cycleMomentum: false }));
    }
    expect(() => new Adagrad<AD>({ scheduler: new OneCycleLR({ maxLr: 0.1, totalSteps: 10 }) })).toThrow(/^Adagrad: the schedule 'oneCycle' sets the momentum/);
    expect(() => new OneCycleLR({ maxLr: 0.1, totalSteps: 10, baseMomentum: 1 })).toThrow(/^OneCycleLR: baseMomentum must be a number in \[0, 1\), got 1/);
    expect(() => new OneCycleLR(untyped({ maxLr: 0.1, totalSteps: 10, cycle_momentum: false }))).toThrow(/^OneCycleLR: unknown option 'cycle_momentum' \(did you mean 'cycleMomentum'\?\)/);
  });

  it('a SequentialLR holding a cycling OneCycleLR is refused by an optimizer without momentum when made or first given, not at its milestone', () => {
    const seq = (cycleMomentum: boolean): SequentialLR => new SequentialLR({ schedulers: [new LinearLR({ startFactor: 0.5, totalSteps: 2 }), new OneCycleLR({ maxLr: 0.1, totalSteps: 10, cycleMomentum })], milestones: [2] });
    expect(seq(true).setsMomentum()).toBe(true);
    expect(seq(false).setsMomentum()).toBe(false);
    expect(new SequentialLR({ schedulers: [new ConstantLR(), seq(true)], milestones: [1] }).setsMomentum()).toBe(true);
    expect(() => new Adagrad<AD>({ scheduler: seq(true) })).toThrow(ArgumentError);
    expect(() => new Adagrad<AD>({ scheduler: seq(true) })).toThrow(/^Adagrad: the schedule 'sequential' sets the momentum/);
    const m = model();
    const opt = new Adagrad<AD>();
    const s = seq(true);
    expect(() => opt.step(m, grads(m, 0), s)).toThrow(/^Optimizer.step: the schedule 'sequential' sets the momentum/);
    expect(s.stepCount).toBe(0);
    // Without cycleMomentum it runs through the milestone.
    const quiet = new Adagrad<AD>({ scheduler: seq(false) });
    for (let k = 0; k < 4; k++) quiet.step(m, grads(m, k % 3));
    // An optimizer with a momentum takes the OneCycleLR's from the milestone on.
    const sgd = new SGD<AD>({ lr: 0.1, momentum: 0.5, scheduler: seq(true) });
    for (let k = 0; k < 4; k++) sgd.step(m, grads(m, k % 3));
  });

  it('a step reads every rate (groups too) before the schedule moves: a refused step leaves it, and a LambdaLR runs once per step', async () => {
    const m = model();
    let calls = 0;
    const lambda = new LambdaLR({ lrLambda: (k) => (calls++, k === 2 ? Number.NaN : 1 / (k + 1)) });
    const groups = [{ params: (name: string) => name === 'w', lrScale: 0.5 }, { params: (name: string) => name === 'b', lrScale: 2 }];
    const opt = new SGD<AD>({ lr: 0.1, scheduler: lambda, groups });
    opt.step(m, grads(m, 0));
    opt.step(m, grads(m, 1));
    expect(calls).toBe(2);
    const before = await values(m);
    expect(() => opt.step(m, grads(m, 2))).toThrow(/LambdaLR: lrLambda\(2\) must return a finite number, got NaN/);
    expect(lambda.stepCount).toBe(2);
    expect(await values(m)).toEqual(before);
    // A group's rate that overflows is refused with the schedule still where it was.
    const step = new StepLR({ stepSize: 2 });
    const big = new SGD<AD>({ lr: 10, scheduler: step, groups: [{ params: (name) => name === 'b', lrScale: 1e308 }] });
    expect(() => big.step(m, grads(m, 0))).toThrow(/^Optimizer.step: the schedule 'step' gave a group the rate Infinity at its step 0/);
    expect(step.stepCount).toBe(0);
    expect(await values(m)).toEqual(before);
    // The rates a group gets are groupRate's (float64: lr * lrScale * 1 / (k + 1)).
    const w = fromData(ad, W0);
    const b = fromData(ad, B0);
    const two = new Two(new Param(w), new Param(b));
    const sgd = new SGD<AD>({ lr: 0.1, scheduler: new LambdaLR({ lrLambda: (k) => 1 / (k + 1) }), groups });
    sgd.step(two, grads(two, 0));
    sgd.step(two, grads(two, 1));
    const want = [...W0.map((x, i) => x - 0.05 * GW[0]![i]! - 0.025 * GW[1]![i]!), ...B0.map((x, i) => x - 0.2 * GB[0]![i]! - 0.1 * GB[1]![i]!)];
    (await values(two)).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
  });

  it("OneCycleLR's momentum against torch's formula: cosine from maxMomentum to baseMomentum and back, against the rate", () => {
    const s = new OneCycleLR({ maxLr: 1, totalSteps: 11, pctStart: 0.3 });
    // torch: phase ends 0.3 * 11 - 1 = 2.3 and 10; cos annealing end + (start - end) / 2 * (1 + cos(pi pct)).
    const cos = (a: number, b: number, pct: number): number => b + ((a - b) / 2) * (1 + Math.cos(Math.PI * pct));
    for (let k = 0; k < 11; k++) {
      const want = k <= 2.3 ? cos(0.95, 0.85, k / 2.3) : cos(0.85, 0.95, (k - 2.3) / (10 - 2.3));
      expect(s.momentumAt(k)).toBeCloseTo(want, 14);
    }
    expect(s.momentumAt(20)).toBeCloseTo(0.95, 14);
    expect(new OneCycleLR({ maxLr: 1, totalSteps: 11, cycleMomentum: false }).momentumAt(3)).toBeUndefined();
  });

  it("a group's settings against float64: SGD's momentum and Nesterov for 'b' only", async () => {
    const m = model();
    const opt = new SGD<AD>({ lr: 0.1, groups: [{ params: (name) => name === 'b', momentum: 0.5, nesterov: true, lrScale: 0.5 }] });
    for (let t = 0; t < 3; t++) opt.step(m, grads(m, t));
    const w = [...W0];
    GW.forEach((g) => g.forEach((x, i) => (w[i]! -= 0.1 * x)));
    const b = [...B0];
    const buf = b.map(() => 0);
    GB.forEach((g, t) =>
      g.forEach((x, i) => {
        buf[i] = t === 0 ? x : 0.5 * buf[i]! + x;
        b[i]! -= 0.05 * (x + 0.5 * buf[i]!);
      }),
    );
    const got = await values(m);
    [...w, ...b].forEach((v, i) => expect(Math.abs(got[i]! - v), `[${i}]`).toBeLessThanOrEqual(1e-6 + 1e-5 * Math.abs(v)));
  });
});

describe('clipping', () => {
  const norm = (g: number[], p: number): number => (p === Infinity ? Math.max(...g.map(Math.abs)) : g.reduce((s, x) => s + Math.abs(x) ** p, 0) ** (1 / p));

  it.each([1, 2, 3, Infinity])('clipGradNorm with normType %s: the p-norm over every gradient, each scaled by maxNorm / (norm + 1e-6)', async (p) => {
    const m = model();
    const g = grads(m, 0);
    const all = [...GW[0]!, ...GB[0]!];
    const want = norm(all, p);
    const got = clipGradNorm(g, 0.5, { normType: p })!;
    expect((await got.toData()).values[0]).toBeCloseTo(want, 5);
    const scale = Math.min(1, 0.5 / (want + 1e-6));
    const clipped = [...(await g.get(m.w.id)!.toData()).values, ...(await g.get(m.b.id)!.toData()).values];
    all.forEach((v, i) => expect(clipped[i]!).toBeCloseTo(v * scale, 6));
    got.dispose();
  });

  it('clipGradValue clamps each gradient to [-v, v]; bad limits are ArgumentErrors', async () => {
    const m = model();
    const g = grads(m, 2);
    clipGradValue(g, 0.5);
    expect(Array.from((await g.get(m.b.id)!.toData()).values)).toEqual([-0.5, 0.125]);
    expect(Array.from((await g.get(m.w.id)!.toData()).values)).toEqual([0.2, 0.2, -0.5, -0.5].map(Math.fround));
    expect(() => clipGradValue(g, -1)).toThrow(/clipGradValue: clipValue must be >= 0, got -1/);
    expect(() => clipGradValue(g, NaN)).toThrow(ArgumentError);
    expect(() => clipGradNorm(g, NaN)).toThrow(/clipGradNorm: maxNorm must be a finite number, got NaN/);
    expect(() => clipGradNorm(g, 1, { normType: 0 })).toThrow(/normType must be a number > 0 or Infinity, got 0/);
    expect(() => (clipGradValue as (...a: unknown[]) => void)(null, 1)).toThrow(/clipGradValue takes ParamGrads/);
  });
});

describe('loadState', () => {
  it('refuses state that does not fit, and keeps the state it had', async () => {
    const m = model();
    const opt = new Adam<AD>({ lr: 0.1 });
    opt.step(m, grads(m, 0));
    const saved = await opt.state();
    const load = opt.loadState.bind(opt) as (...a: unknown[]) => void;
    expect(() => load(null, m)).toThrow(/loadState: the state must be \{ kind, params \}/);
    expect(() => load(saved, null)).toThrow(/the second argument must be the module/);
    const wrongShape = { kind: 'adam', params: { ...saved.params, [m.b.id]: { step: 1, tensors: { ...saved.params[m.b.id]!.tensors, m: { shape: [3], dtype: 'float32', data: new Float32Array(3) } } } } };
    expect(() => load(wrongShape, m)).toThrow(ShapeError);
    expect(() => load(wrongShape, m)).toThrow(/state 'm' of parameter .* must hold 2 float32 values of shape \[2\], got shape \[3\]/);
    const unknown = { kind: 'adam', params: { [m.b.id]: { step: 1, tensors: { momentum: { shape: [2], dtype: 'float32', data: new Float32Array(2) } } } } };
    expect(() => load(unknown, m)).toThrow(/adam keeps no state named 'momentum'/);
    expect(() => load({ kind: 'adam', params: { [m.b.id]: { step: -1, tensors: {} } } }, m)).toThrow(/a step count >= 0/);
    // The failed loads changed nothing: the next step continues from the state saved.
    const again = await opt.state();
    expect(again.params[m.w.id]!.tensors['v']!.data).toEqual(saved.params[m.w.id]!.tensors['v']!.data);
  });

  it('float16 parameters get float16 state back, and the run continues as if never stopped', async () => {
    for (const make of [() => new Adam<AD>({ lr: 0.1 }), () => new SGD<AD>({ lr: 0.1, momentum: 0.9 }), () => new Adam<AD>({ lr: 0.1, capturable: true })]) {
      const through = model('float16');
      const o1 = make();
      for (let t = 0; t < 3; t++) o1.step(through, grads(through, t, 'float16'));
      const stopped = model('float16');
      const o2 = make();
      o2.step(stopped, grads(stopped, 0, 'float16'));
      const o3 = make();
      o3.loadState(await o2.state(), stopped);
      expect(o3.stateTensors().every((t) => t.dtype === 'float16')).toBe(true);
      for (let t = 1; t < 3; t++) o3.step(stopped, grads(stopped, t, 'float16'));
      expect(await values(stopped)).toEqual(await values(through));
    }
  });
});
