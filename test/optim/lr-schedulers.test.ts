/**
 * Learning-rate schedulers: every rate against PyTorch's formulas written out here in float64
 * (step k is torch's scheduler after k calls of step()), option and state checks, and laws
 * between schedulers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../src/errors.js';
import {
  ConstantLR,
  CosineAnnealingWarmRestarts,
  CosineLR,
  ExponentialLR,
  LambdaLR,
  LinearLR,
  type LrScheduler,
  type LrSchedulerState,
  MultiStepLR,
  OneCycleLR,
  PolynomialLR,
  ReduceLROnPlateau,
  SequentialLR,
  StepLR,
} from '../../src/optim/index.js';

const N = 61;
const steps = Array.from({ length: N }, (_, k) => k);
/** What a JavaScript caller may pass where the types would not let TypeScript pass it. */
const untyped = <T>(v: unknown): T => v as T;

function rates(s: LrScheduler, base: number, n = N): number[] {
  return Array.from({ length: n }, () => s.next(base));
}

/** Equal to 1e-12 relative (pow and cos may differ from CPython's libm in the last bit). */
function expectClose(got: readonly number[], want: readonly number[]): void {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    const w = want[i]!;
    expect(Math.abs(g - w), `step ${i}: got ${g}, want ${w}`).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(w)));
  });
}

// torch.optim.lr_scheduler's closed forms (_get_closed_form_lr), with last_epoch = k.
const ref = {
  step: (base: number, k: number, stepSize: number, gamma: number) => base * gamma ** Math.floor(k / stepSize),
  // bisect_right(sorted(Counter(milestones).elements()), k)
  multiStep: (base: number, k: number, milestones: readonly number[], gamma: number) => base * gamma ** [...milestones].sort((a, b) => a - b).filter((m) => m <= k).length,
  constant: (base: number, k: number, factor: number, totalIters: number) => base * (factor + (k >= totalIters ? 1 : 0) * (1 - factor)),
  polynomial: (base: number, k: number, totalIters: number, power: number) => base * (1 - Math.min(totalIters, k) / totalIters) ** power,
  linear: (base: number, k: number, start: number, end: number, totalIters: number) => base * (start + ((end - start) * Math.min(totalIters, k)) / totalIters),
  exponential: (base: number, k: number, gamma: number) => base * gamma ** k,
};

/** torch CosineAnnealingWarmRestarts driven by step() without an epoch: T_cur += 1, restart when T_cur >= T_i. */
function warmRestartsRef(base: number, n: number, t0: number, tMult: number, etaMin: number): number[] {
  const out: number[] = [];
  let tCur = 0;
  let tI = t0;
  for (let k = 0; k < n; k++) {
    if (k > 0) {
      tCur += 1;
      if (tCur >= tI) {
        tCur -= tI;
        tI *= tMult;
      }
    }
    out.push(etaMin + ((base - etaMin) * (1 + Math.cos((Math.PI * tCur) / tI))) / 2);
  }
  return out;
}

/** torch OneCycleLR.get_lr, held at the last step after totalSteps - 1. */
function oneCycleRef(k: number, o: { maxLr: number; total: number; pct: number; div: number; finalDiv: number; anneal: 'cos' | 'linear'; three: boolean }): number {
  const initial = o.maxLr / o.div;
  const min = initial / o.finalDiv;
  const cos = (a: number, b: number, p: number) => b + ((a - b) / 2) * (Math.cos(Math.PI * p) + 1);
  const lin = (a: number, b: number, p: number) => (b - a) * p + a;
  const f = o.anneal === 'cos' ? cos : lin;
  const phases = o.three
    ? [
        [o.pct * o.total - 1, initial, o.maxLr],
        [2 * o.pct * o.total - 2, o.maxLr, initial],
        [o.total - 1, initial, min],
      ]
    : [
        [o.pct * o.total - 1, initial, o.maxLr],
        [o.total - 1, o.maxLr, min],
      ];
  const t = Math.min(k, o.total - 1);
  let start = 0;
  for (const [i, [end, a, b]] of phases.entries()) {
    if (t <= end! || i === phases.length - 1) return f(a!, b!, (t - start) / (end! - start));
    start = end!;
  }
  throw new Error('no phase');
}

describe('schedules against torch closed forms, steps 0..60', () => {
  it('StepLR, with the default gamma 0.1 and with gamma 0 (torch accepts any gamma >= 0)', () => {
    expectClose(rates(new StepLR({ stepSize: 7 }), 0.3), steps.map((k) => ref.step(0.3, k, 7, 0.1)));
    expectClose(rates(new StepLR({ stepSize: 1, gamma: 0.97 }), 2), steps.map((k) => ref.step(2, k, 1, 0.97)));
    expectClose(rates(new StepLR({ stepSize: 4, gamma: 0 }), 1), steps.map((k) => ref.step(1, k, 4, 0)));
    expectClose(rates(new StepLR({ stepSize: 5, gamma: 1.5 }), 0.01), steps.map((k) => ref.step(0.01, k, 5, 1.5)));
  });

  it('MultiStepLR: unsorted milestones, a repeated one counts twice, a milestone 0 applies at step 0', () => {
    const cases: Array<[readonly number[], number | undefined]> = [
      [[30, 10, 45], undefined],
      [[20, 20, 50], 0.5],
      [[0, 3], 0.9],
      [[], 0.5],
      [[100], 0.1],
    ];
    for (const [milestones, gamma] of cases) {
      const got = rates(new MultiStepLR({ milestones, gamma }), 0.2);
      expectClose(got, steps.map((k) => ref.multiStep(0.2, k, milestones, gamma ?? 0.1)));
    }
    const dup = rates(new MultiStepLR({ milestones: [20, 20], gamma: 0.5 }), 1);
    expect([dup[19], dup[20]]).toEqual([1, 0.25]);
  });

  it('ConstantLR: defaults 1/3 for 5 steps; factor 0, factor 1, totalSteps 0', () => {
    expectClose(rates(new ConstantLR(), 0.6), steps.map((k) => ref.constant(0.6, k, 1 / 3, 5)));
    for (const [factor, total] of [[0.5, 12], [0, 3], [1, 4], [0.25, 0]] as const) {
      expectClose(rates(new ConstantLR({ factor, totalSteps: total }), 0.6), steps.map((k) => ref.constant(0.6, k, factor, total)));
    }
    const r = rates(new ConstantLR(), 3, 7);
    expect(r[4]).toBeCloseTo(1, 14);
    expect(r[5]).toBe(3);
  });

  it('PolynomialLR: defaults 5 steps, power 1; other powers, held at 0 after the end', () => {
    expectClose(rates(new PolynomialLR(), 0.1), steps.map((k) => ref.polynomial(0.1, k, 5, 1)));
    for (const [total, power] of [[40, 2], [33, 0.5], [10, 0], [60, 3.7]] as const) {
      expectClose(rates(new PolynomialLR({ totalSteps: total, power }), 0.1), steps.map((k) => ref.polynomial(0.1, k, total, power)));
    }
    expect(rates(new PolynomialLR({ totalSteps: 3 }), 1, 5)).toEqual([1, 1 - 1 / 3, 1 - 2 / 3, 0, 0]);
  });

  it('LambdaLR: base * lrLambda(step); the step passed is the 0-based optimizer step', () => {
    const seen: number[] = [];
    const f = (k: number) => {
      seen.push(k);
      return 0.95 ** k * (k < 10 ? (k + 1) / 10 : 1);
    };
    expectClose(rates(new LambdaLR({ lrLambda: f }), 0.5), steps.map((k) => 0.5 * 0.95 ** k * (k < 10 ? (k + 1) / 10 : 1)));
    expect(seen).toEqual(steps);
  });

  it('LambdaLR: a result that is not a finite number is an ArgumentError naming the step', () => {
    const s = new LambdaLR({ lrLambda: (k) => (k === 3 ? Number.NaN : 1) });
    expect(rates(s, 1, 3)).toEqual([1, 1, 1]);
    expect(() => s.next(1)).toThrow(ArgumentError);
    expect(() => s.peek(1)).toThrow(/LambdaLR: lrLambda\(3\) must return a finite number, got NaN/);
    expect(s.stepCount).toBe(3);
    const str = new LambdaLR({ lrLambda: untyped<(k: number) => number>(() => '0.5') });
    expect(() => str.next(1)).toThrow(/lrLambda\(0\) must return a finite number, got "0\.5" \(a string\)/);
    expect(() => new LambdaLR({ lrLambda: () => Infinity }).next(1)).toThrow(/lrLambda\(0\) .* got Infinity/);
  });

  it('CosineAnnealingWarmRestarts: torch step() semantics for tMult 1, 2, 3 and a minLr', () => {
    for (const [t0, tMult, minLr] of [[10, 1, 0], [5, 2, 0], [3, 3, 0.01], [1, 1, 0.05], [1, 2, 0], [7, 1, 0.02]] as const) {
      const got = rates(new CosineAnnealingWarmRestarts({ t0, tMult, minLr }), 0.1);
      expectClose(got, warmRestartsRef(0.1, N, t0, tMult, minLr));
    }
    // Defaults tMult 1 and minLr 0.
    expectClose(rates(new CosineAnnealingWarmRestarts({ t0: 6 }), 1), warmRestartsRef(1, N, 6, 1, 0));
    // Restarts at 5 and 5 + 10 = 15 with tMult 2: the base rate again.
    const r = rates(new CosineAnnealingWarmRestarts({ t0: 5, tMult: 2 }), 1, 16);
    expect([r[0], r[5], r[15]]).toEqual([1, 1, 1]);
  });

  it('LinearLR, ExponentialLR and CosineLR keep their forms', () => {
    expectClose(rates(new LinearLR({ startFactor: 0.1, totalSteps: 20 }), 0.4), steps.map((k) => ref.linear(0.4, k, 0.1, 1, 20)));
    expectClose(rates(new ExponentialLR({ gamma: 0.93 }), 0.4), steps.map((k) => ref.exponential(0.4, k, 0.93)));
    const cos = (k: number) => (k < 5 ? k / 5 : 0.01 + ((1 - 0.01) * (1 + Math.cos((Math.PI * Math.min(1, (k - 5) / 45))))) / 2);
    expectClose(rates(new CosineLR({ totalSteps: 50, warmupSteps: 5, minLr: 0.01 }), 1), steps.map(cos));
  });

  it('OneCycleLR, two and three phases, cos and linear, default and given factors', () => {
    const base = { maxLr: 0.2, total: 61, div: 25, finalDiv: 1e4 };
    for (const three of [false, true]) {
      for (const anneal of ['cos', 'linear'] as const) {
        for (const pct of [0.3, 0.25, 0.45]) {
          const o = { ...base, pct, anneal, three };
          const s = new OneCycleLR({ maxLr: o.maxLr, totalSteps: o.total, pctStart: pct, anneal, threePhase: three });
          expectClose(rates(s, 123, N + 5), Array.from({ length: N + 5 }, (_, k) => oneCycleRef(k, o)));
        }
      }
    }
    const o = { maxLr: 1, total: 40, pct: 0.2, div: 10, finalDiv: 100, anneal: 'cos' as const, three: true };
    expectClose(rates(new OneCycleLR({ maxLr: 1, totalSteps: 40, pctStart: 0.2, divFactor: 10, finalDivFactor: 100, threePhase: true }), 1, 40), Array.from({ length: 40 }, (_, k) => oneCycleRef(k, o)));
    // Three phases: maxLr at pct*T - 1 = 7, the initial rate again at 2*pct*T - 2 = 14, the minimum at T - 1.
    const r = rates(new OneCycleLR({ maxLr: 1, totalSteps: 40, pctStart: 0.2, divFactor: 10, finalDivFactor: 100, threePhase: true }), 1, 40);
    expect(r[0]).toBeCloseTo(0.1, 14);
    expect(r[7]).toBeCloseTo(1, 14);
    expect(r[14]).toBeCloseTo(0.1, 14);
    expect(r[39]).toBeCloseTo(0.001, 14);
    // Defaults (pct 0.3, cos, 25, 1e4, two phases); threePhase: undefined is the default too.
    const d = { maxLr: 0.5, total: 30, pct: 0.3, div: 25, finalDiv: 1e4, anneal: 'cos' as const, three: false };
    expectClose(rates(new OneCycleLR({ maxLr: 0.5, totalSteps: 30, threePhase: undefined }), 1, 35), Array.from({ length: 35 }, (_, k) => oneCycleRef(k, d)));
  });

  it('SequentialLR: each scheduler from its milestone, restarted at its own step 0', () => {
    // The common warm-up then decay: LinearLR(0.1 -> 1 over 5) until 5, then ExponentialLR(0.9).
    const warm = new SequentialLR({ schedulers: [new LinearLR({ startFactor: 0.1, totalSteps: 5 }), new ExponentialLR(0.9)], milestones: [5] });
    expectClose(rates(warm, 0.5), steps.map((k) => (k < 5 ? ref.linear(0.5, k, 0.1, 1, 5) : ref.exponential(0.5, k - 5, 0.9))));
    const three = new SequentialLR({
      schedulers: [new ConstantLR({ factor: 0.5, totalSteps: 20 }), new StepLR({ stepSize: 4, gamma: 0.5 }), new CosineAnnealingWarmRestarts({ t0: 6, tMult: 2, minLr: 0.001 })],
      milestones: [10, 25],
    });
    const restarts = warmRestartsRef(0.3, N, 6, 2, 0.001);
    expectClose(rates(three, 0.3), steps.map((k) => (k < 10 ? ref.constant(0.3, k, 0.5, 20) : k < 25 ? ref.step(0.3, k - 10, 4, 0.5) : restarts[k - 25]!)));
    // Nested: a SequentialLR inside a SequentialLR.
    const inner = new SequentialLR({ schedulers: [new ConstantLR({ factor: 0.1, totalSteps: 100 }), new PolynomialLR({ totalSteps: 10, power: 2 })], milestones: [3] });
    const nested = new SequentialLR({ schedulers: [new StepLR({ stepSize: 2 }), inner], milestones: [8] });
    expectClose(rates(nested, 1), steps.map((k) => (k < 8 ? ref.step(1, k, 2, 0.1) : k - 8 < 3 ? 0.1 : ref.polynomial(1, k - 11, 10, 2))));
  });

  it("SequentialLR moves the running scheduler's own step count, as torch's last_epoch", () => {
    const a = new ConstantLR();
    const b = new StepLR({ stepSize: 2 });
    const s = new SequentialLR({ schedulers: [a, b], milestones: [3] });
    rates(s, 1, 7);
    expect([s.stepCount, a.stepCount, b.stepCount]).toEqual([7, 3, 4]);
  });
});

describe('ReduceLROnPlateau as torch', () => {
  it('minLr bounds a reduction only: a base rate below minLr is kept, not raised', () => {
    const s = new ReduceLROnPlateau({ minLr: 0.05, patience: 0 });
    const seen = [s.next(0.01)];
    for (let i = 0; i < 5; i++) {
      // A reduction would give max(0.01 * 0.1, 0.05) = 0.05: old - new < 0, skipped as torch does.
      expect(s.observe(1)).toBe(false);
      seen.push(s.next(0.01));
    }
    expect(seen).toEqual([0.01, 0.01, 0.01, 0.01, 0.01, 0.01]);
  });

  it('reductions floored at minLr, then none once there; eps skips a small one', () => {
    const s = new ReduceLROnPlateau({ factor: 0.5, patience: 0, minLr: 0.3 });
    expect(s.next(1)).toBe(1);
    const reduced: boolean[] = [];
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      reduced.push(s.observe(2));
      seen.push(s.next(1));
    }
    // The first observation sets best (from Infinity); each later one is bad: 1 -> 0.5 -> max(0.25, 0.3).
    expect(reduced).toEqual([false, true, true, false, false]);
    expectClose(seen, [1, 0.5, 0.3, 0.3, 0.3]);
    const tiny = new ReduceLROnPlateau({ factor: 0.5, patience: 0, eps: 1e-3 });
    tiny.next(1e-3);
    tiny.observe(1);
    expect(tiny.observe(1)).toBe(false);
    expect(tiny.next(1e-3)).toBe(1e-3);
  });

  it('options given as undefined take the defaults', () => {
    const s = new ReduceLROnPlateau({ minLr: undefined, patience: undefined, factor: undefined, mode: undefined, threshold: undefined, thresholdMode: undefined, cooldown: undefined, eps: undefined });
    expect(s.next(0.2)).toBe(0.2);
    const reduced: boolean[] = [];
    for (let i = 0; i < 12; i++) reduced.push(s.observe(1));
    // Patience 10: the first sets best, the next 10 are tolerated, the 12th reduces by 0.1.
    expect(reduced.indexOf(true)).toBe(11);
    expect(s.next(0.2)).toBeCloseTo(0.02, 15);
  });
});

describe('options given as undefined are the defaults', () => {
  it('every scheduler', () => {
    const pairs: Array<[LrScheduler, LrScheduler]> = [
      [new StepLR({ stepSize: 3, gamma: undefined }), new StepLR({ stepSize: 3, gamma: 0.1 })],
      [new MultiStepLR({ milestones: [2, 9], gamma: undefined }), new MultiStepLR({ milestones: [2, 9], gamma: 0.1 })],
      [new ConstantLR({ factor: undefined, totalSteps: undefined }), new ConstantLR({ factor: 1 / 3, totalSteps: 5 })],
      [new LinearLR({ startFactor: undefined, endFactor: undefined, totalSteps: undefined }), new LinearLR({ startFactor: 1 / 3, endFactor: 1, totalSteps: 5 })],
      [new PolynomialLR({ totalSteps: undefined, power: undefined }), new PolynomialLR({ totalSteps: 5, power: 1 })],
      [new CosineLR({ totalSteps: 20, warmupSteps: undefined, minLr: undefined }), new CosineLR({ totalSteps: 20, warmupSteps: 0, minLr: 0 })],
      [new CosineAnnealingWarmRestarts({ t0: 4, tMult: undefined, minLr: undefined }), new CosineAnnealingWarmRestarts({ t0: 4, tMult: 1, minLr: 0 })],
      [
        new OneCycleLR({ maxLr: 1, totalSteps: 30, pctStart: undefined, divFactor: undefined, finalDivFactor: undefined, anneal: undefined, threePhase: undefined }),
        new OneCycleLR({ maxLr: 1, totalSteps: 30, pctStart: 0.3, divFactor: 25, finalDivFactor: 1e4, anneal: 'cos', threePhase: false }),
      ],
    ];
    for (const [a, b] of pairs) {
      const got = rates(a, 0.7, 30);
      expect(got.every(Number.isFinite), a.kind).toBe(true);
      expect(got, a.kind).toEqual(rates(b, 0.7, 30));
    }
  });
});

describe('options are checked at construction', () => {
  const bad: Array<[string, () => unknown, RegExp]> = [
    ['StepLR gamma NaN', () => new StepLR({ stepSize: 2, gamma: Number.NaN }), /StepLR: gamma must be a finite number >= 0, got NaN/],
    ['StepLR gamma string', () => new StepLR({ stepSize: 2, gamma: untyped<number>('0.1') }), /StepLR: gamma must be a finite number >= 0, got "0\.1" \(a string\)/],
    ['StepLR gamma < 0', () => new StepLR({ stepSize: 2, gamma: -0.1 }), /gamma must be a finite number >= 0, got -0\.1/],
    ['StepLR stepSize 0', () => new StepLR({ stepSize: 0 }), /StepLR: stepSize must be an integer >= 1, got 0/],
    ['StepLR stepSize 1.5', () => new StepLR({ stepSize: 1.5 }), /stepSize must be an integer >= 1, got 1\.5/],
    ['StepLR no options', () => new StepLR(untyped<{ stepSize: number }>(undefined)), /StepLR: options must be an object, got undefined/],
    ['StepLR null options', () => new StepLR(untyped<{ stepSize: number }>(null)), /StepLR: options must be an object, got null/],
    ['StepLR unknown key', () => new StepLR(untyped<{ stepSize: number }>({ stepSize: 2, step_size: 3 })), /StepLR: unknown option 'step_size' \(did you mean 'stepSize'\?\)/],
    ['ExponentialLR gamma NaN', () => new ExponentialLR(Number.NaN), /ExponentialLR: gamma must be a finite number > 0, got NaN/],
    ['ExponentialLR unknown key', () => new ExponentialLR(untyped<{ gamma: number }>({ gamma: 0.9, decay: 1 })), /ExponentialLR: unknown option 'decay'/],
    ['MultiStepLR milestones missing', () => new MultiStepLR(untyped<{ milestones: number[] }>({})), /MultiStepLR: milestones must be an array of step numbers, got undefined/],
    ['MultiStepLR milestone negative', () => new MultiStepLR({ milestones: [3, -1] }), /MultiStepLR: milestones\[1\] must be an integer >= 0, got -1/],
    ['MultiStepLR milestone fraction', () => new MultiStepLR({ milestones: [2.5] }), /milestones\[0\] must be an integer >= 0, got 2\.5/],
    ['MultiStepLR gamma Infinity', () => new MultiStepLR({ milestones: [2], gamma: Infinity }), /MultiStepLR: gamma must be a finite number >= 0, got Infinity/],
    ['ConstantLR factor > 1', () => new ConstantLR({ factor: 1.5 }), /ConstantLR: factor must be a number in \[0, 1\], got 1\.5/],
    ['ConstantLR totalSteps -1', () => new ConstantLR({ totalSteps: -1 }), /ConstantLR: totalSteps must be an integer >= 0, got -1/],
    ['PolynomialLR totalSteps 0', () => new PolynomialLR({ totalSteps: 0 }), /PolynomialLR: totalSteps must be an integer >= 1, got 0/],
    ['PolynomialLR power < 0', () => new PolynomialLR({ power: -1 }), /PolynomialLR: power must be a finite number >= 0, got -1/],
    ['LambdaLR no function', () => new LambdaLR({ lrLambda: untyped<(k: number) => number>(0.5) }), /LambdaLR: lrLambda must be a function of the step giving the factor, got 0\.5/],
    ['LinearLR typo key', () => new LinearLR(untyped<object>({ start_factor: 0.5 })), /LinearLR: unknown option 'start_factor' \(did you mean 'startFactor'\?\)/],
    ['CosineLR minLr < 0', () => new CosineLR({ totalSteps: 10, minLr: -0.1 }), /CosineLR: minLr must be a finite number >= 0, got -0\.1/],
    ['CosineLR minLr NaN', () => new CosineLR({ totalSteps: 10, minLr: Number.NaN }), /minLr must be a finite number >= 0, got NaN/],
    ['CosineLR warmupSteps = totalSteps', () => new CosineLR({ totalSteps: 5, warmupSteps: 5 }), /CosineLR: warmupSteps must be an integer in \[0, 4\], got 5/],
    ['WarmRestarts t0 0', () => new CosineAnnealingWarmRestarts({ t0: 0 }), /CosineAnnealingWarmRestarts: t0 must be an integer >= 1, got 0/],
    ['WarmRestarts tMult 1.5', () => new CosineAnnealingWarmRestarts({ t0: 3, tMult: 1.5 }), /tMult must be an integer >= 1, got 1\.5/],
    ['WarmRestarts tMult 0', () => new CosineAnnealingWarmRestarts({ t0: 3, tMult: 0 }), /tMult must be an integer >= 1, got 0/],
    ['WarmRestarts minLr -1', () => new CosineAnnealingWarmRestarts({ t0: 3, minLr: -1 }), /minLr must be a finite number >= 0, got -1/],
    ['OneCycleLR 0/0 warm-up', () => new OneCycleLR({ maxLr: 1, totalSteps: 10, pctStart: 0.1 }), /OneCycleLR: pctStart \* totalSteps - 1 \(the warm-up's last step\) must be > 0, got 0 .*divides by zero/],
    ['OneCycleLR no warm-up step', () => new OneCycleLR({ maxLr: 1, totalSteps: 3 }), /pctStart \* totalSteps - 1 .* must be > 0, got -0\.1/],
    ['OneCycleLR pctStart 1', () => new OneCycleLR({ maxLr: 1, totalSteps: 10, pctStart: 1 }), /OneCycleLR: pctStart must be a number in \(0, 1\), got 1/],
    ['OneCycleLR pctStart NaN', () => new OneCycleLR({ maxLr: 1, totalSteps: 10, pctStart: Number.NaN }), /pctStart must be a number in \(0, 1\), got NaN/],
    ['OneCycleLR divFactor 0', () => new OneCycleLR({ maxLr: 1, totalSteps: 10, divFactor: 0 }), /OneCycleLR: divFactor must be a finite number > 0, got 0/],
    ['OneCycleLR finalDivFactor Infinity', () => new OneCycleLR({ maxLr: 1, totalSteps: 10, finalDivFactor: Infinity }), /finalDivFactor must be a finite number > 0, got Infinity/],
    ['OneCycleLR anneal cosine', () => new OneCycleLR({ maxLr: 1, totalSteps: 10, anneal: untyped<'cos'>('cosine') }), /OneCycleLR: anneal must be 'cos' or 'linear', got "cosine" \(a string\)/],
    ['OneCycleLR threePhase 1', () => new OneCycleLR({ maxLr: 1, totalSteps: 10, threePhase: untyped<boolean>(1) }), /OneCycleLR: threePhase must be true or false, got 1/],
    ['OneCycleLR maxLr 0', () => new OneCycleLR({ maxLr: 0, totalSteps: 10 }), /maxLr must be a finite number > 0, got 0/],
    ['Plateau mode', () => new ReduceLROnPlateau({ mode: untyped<'min'>('minimum') }), /ReduceLROnPlateau: mode must be 'min' or 'max', got "minimum" \(a string\)/],
    ['Plateau thresholdMode', () => new ReduceLROnPlateau({ thresholdMode: untyped<'rel'>('relative') }), /thresholdMode must be 'rel' or 'abs', got "relative"/],
    ['Plateau patience -1', () => new ReduceLROnPlateau({ patience: -1 }), /ReduceLROnPlateau: patience must be an integer >= 0, got -1/],
    ['Plateau patience 1.5', () => new ReduceLROnPlateau({ patience: 1.5 }), /patience must be an integer >= 0, got 1\.5/],
    ['Plateau cooldown NaN', () => new ReduceLROnPlateau({ cooldown: Number.NaN }), /cooldown must be an integer >= 0, got NaN/],
    ['Plateau threshold < 0', () => new ReduceLROnPlateau({ threshold: -1e-4 }), /threshold must be a finite number >= 0, got -0\.0001/],
    ['Plateau eps Infinity', () => new ReduceLROnPlateau({ eps: Infinity }), /eps must be a finite number >= 0, got Infinity/],
    ['Plateau minLr NaN', () => new ReduceLROnPlateau({ minLr: Number.NaN }), /minLr must be a finite number >= 0, got NaN/],
    ['Plateau factor 1', () => new ReduceLROnPlateau({ factor: 1 }), /factor must be a number in \[0, 1\), got 1/],
    ['Plateau factor -0.5', () => new ReduceLROnPlateau({ factor: -0.5 }), /factor must be a number in \[0, 1\), got -0\.5/],
    ['Plateau unknown key', () => new ReduceLROnPlateau(untyped<object>({ min_lr: 0.1 })), /ReduceLROnPlateau: unknown option 'min_lr' \(did you mean 'minLr'\?\)/],
    ['Sequential with a plateau', () => new SequentialLR({ schedulers: [new StepLR({ stepSize: 2 }), new ReduceLROnPlateau()], milestones: [3] }), /SequentialLR: schedulers\[1\] is a ReduceLROnPlateau, which cannot be in a SequentialLR/],
    ['Sequential milestones count', () => new SequentialLR({ schedulers: [new StepLR({ stepSize: 2 }), new ConstantLR()], milestones: [3, 6] }), /milestones must have one entry fewer than schedulers \(1\), got 2/],
    ['Sequential milestones not increasing', () => new SequentialLR({ schedulers: [new ConstantLR(), new ConstantLR(), new ConstantLR()], milestones: [5, 5] }), /milestones\[1\] must be an integer >= 6, got 5/],
    ['Sequential milestone 0', () => new SequentialLR({ schedulers: [new ConstantLR(), new ConstantLR()], milestones: [0] }), /milestones\[0\] must be an integer >= 1, got 0/],
    ['Sequential not a scheduler', () => new SequentialLR({ schedulers: untyped<LrScheduler[]>([new ConstantLR(), { rateAt: () => 1 }]), milestones: [2] }), /schedulers\[1\] must be a scheduler .*got an object/],
    ['Sequential empty', () => new SequentialLR({ schedulers: [], milestones: [] }), /schedulers must be a non-empty array of schedulers, got an array of 0/],
  ];
  for (const [name, make, message] of bad) {
    it(name, () => {
      expect(make).toThrow(ArgumentError);
      expect(make).toThrow(message);
    });
  }

  it('ReduceLROnPlateau.observe takes a number', () => {
    expect(() => new ReduceLROnPlateau().observe(untyped<number>('0.5'))).toThrow(/ReduceLROnPlateau.observe: metric must be a number, got "0\.5" \(a string\)/);
  });
});

/** Every kind, made fresh each call: saved mid-schedule into one, loaded into the other. */
const makers: Array<[string, () => LrScheduler]> = [
  ['step', () => new StepLR({ stepSize: 3, gamma: 0.5 })],
  ['multiStep', () => new MultiStepLR({ milestones: [4, 9, 9], gamma: 0.5 })],
  ['exponential', () => new ExponentialLR(0.9)],
  ['constant', () => new ConstantLR({ factor: 0.2, totalSteps: 12 })],
  ['linear', () => new LinearLR({ totalSteps: 15 })],
  ['polynomial', () => new PolynomialLR({ totalSteps: 20, power: 2 })],
  ['lambda', () => new LambdaLR({ lrLambda: (k) => 1 / (1 + k) })],
  ['cosine', () => new CosineLR({ totalSteps: 30, warmupSteps: 4 })],
  ['cosineWarmRestarts', () => new CosineAnnealingWarmRestarts({ t0: 3, tMult: 2 })],
  ['oneCycle', () => new OneCycleLR({ maxLr: 1, totalSteps: 30, threePhase: true })],
  ['plateau', () => new ReduceLROnPlateau({ patience: 1, factor: 0.5, cooldown: 2 })],
  ['sequential', () => new SequentialLR({ schedulers: [new LinearLR({ startFactor: 0.1, totalSteps: 4 }), new StepLR({ stepSize: 5 }), new CosineAnnealingWarmRestarts({ t0: 4 })], milestones: [4, 12] })],
];

/** Steps (observing a metric for the plateau) and gives the rates. */
function drive(s: LrScheduler, n: number, from: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(s.next(0.4));
    if (s instanceof ReduceLROnPlateau) s.observe(Math.cos(from + i) + (from + i) / 50);
  }
  return out;
}

describe('state and loadState', () => {
  it('kinds are unique', () => {
    const kinds = makers.map(([, make]) => make().kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(kinds).toEqual(makers.map(([kind]) => kind));
  });

  for (const [kind, make] of makers) {
    it(`${kind}: saved mid-schedule and loaded into a fresh one (also through JSON), the rates continue identically`, () => {
      for (const cut of [0, 7, 13]) {
        const a = make();
        drive(a, cut, 0);
        const saved = a.state();
        const b = make();
        const c = make();
        b.loadState(saved);
        c.loadState(untyped<LrSchedulerState>(JSON.parse(JSON.stringify(saved))));
        expect(b.state()).toEqual(saved);
        expect(b.stepCount).toBe(cut);
        const want = drive(a, 30, cut);
        expect(drive(b, 30, cut)).toEqual(want);
        expect(drive(c, 30, cut)).toEqual(want);
      }
    });
  }

  it("ReduceLROnPlateau's state keeps a reduced rate, best, counts and the base it reduced from", () => {
    const a = new ReduceLROnPlateau({ mode: 'max', patience: 0, minLr: 0.15, factor: 0.5 });
    a.next(1);
    a.observe(1);
    a.observe(0.5);
    expect(a.state()).toEqual({ kind: 'plateau', stepCount: 1, extra: { reductions: 1, best: 1, bad: 0, cooldownLeft: 0, lastBase: 1 } });
    const b = new ReduceLROnPlateau({ mode: 'max', patience: 0, minLr: 0.15, factor: 0.5 });
    b.loadState(a.state());
    // The next reduction works from the loaded rate and floors at minLr: max(0.25, 0.15), then max(0.125, 0.15).
    expect(b.observe(0.5)).toBe(true);
    expect(b.next(1)).toBe(0.25);
    expect(b.observe(0.5)).toBe(true);
    expect(b.next(1)).toBe(0.15);
    // A state saved before 'reductions' (its factor as 'scale') loads as the same count.
    const c = new ReduceLROnPlateau({ mode: 'max', patience: 0, minLr: 0.15, factor: 0.5 });
    c.loadState({ kind: 'plateau', stepCount: 1, extra: { scale: 0.5, best: 1, bad: 0, cooldownLeft: 0, lastBase: 1 } });
    expect(c.state().extra?.reductions).toBe(1);
    expect(() => c.loadState({ kind: 'plateau', stepCount: 1, extra: { scale: 0.3, lastBase: 1 } })).toThrow(/extra.scale 0.3 is no rate this schedule reaches from its base 1/);
  });

  it('ReduceLROnPlateau floors each base at minLr on its own (torch reduces each group)', () => {
    const s = new ReduceLROnPlateau({ patience: 0, factor: 0.2, minLr: 0.005 });
    s.next(0.1);
    s.observe(1);
    s.observe(1);
    // 0.1 -> 0.02, 0.02 -> max(0.004, 0.005); then 0.02 -> 0.005, and 0.005 stays (no change > eps).
    expect([s.peek(0.1), s.peek(0.02)]).toEqual([0.020000000000000004, 0.005]);
    s.observe(1);
    expect([s.peek(0.1), s.peek(0.02)]).toEqual([0.005, 0.005]);
  });

  it('SequentialLR holds its schedulers\u2019 states and loads them back', () => {
    const make = makers.find(([k]) => k === 'sequential')![1];
    const a = make();
    drive(a, 6, 0);
    const st = a.state();
    expect(st.schedulers?.map((s) => [s.kind, s.stepCount])).toEqual([
      ['linear', 4],
      ['step', 2],
      ['cosineWarmRestarts', 0],
    ]);
    expect(() => make().loadState({ ...st, schedulers: st.schedulers?.slice(1) })).toThrow(/SequentialLR.loadState: the state must hold the states of 3 schedulers, got 2/);
    // An inner state of another kind is refused, and nothing is half loaded.
    const b = make();
    const before = b.state();
    expect(() => b.loadState({ ...st, schedulers: [st.schedulers![0]!, st.schedulers![2]!, st.schedulers![1]!] })).toThrow(/kind 'cosineWarmRestarts' cannot load into step/);
    expect(b.state()).toEqual(before);
  });

  const refused: Array<[string, unknown, RegExp]> = [
    ['null', null, /StepLR.loadState: the state must be an object as state\(\) returns, got null/],
    ['a number', 3, /the state must be an object .*got 3/],
    ['no kind', { stepCount: 1 }, /the state's kind must be a string, got undefined/],
    ['another kind', { kind: 'plateau', stepCount: 1 }, /scheduler state of kind 'plateau' cannot load into step/],
    ['stepCount -5', { kind: 'step', stepCount: -5 }, /StepLR.loadState: the state's stepCount must be an integer >= 0, got -5/],
    ['stepCount 1.5', { kind: 'step', stepCount: 1.5 }, /stepCount must be an integer >= 0, got 1\.5/],
    ['stepCount missing', { kind: 'step' }, /stepCount must be an integer >= 0, got undefined/],
    ['stepCount a string', { kind: 'step', stepCount: '3' }, /stepCount must be an integer >= 0, got "3" \(a string\)/],
    ['extra not an object', { kind: 'step', stepCount: 1, extra: 'x' }, /the state's extra must be an object of numbers, got "x"/],
    ['schedulers not an array', { kind: 'step', stepCount: 1, schedulers: {} }, /the state's schedulers must be an array of states, got an object/],
  ];
  for (const [name, state, message] of refused) {
    it(`loadState refuses ${name}, and keeps its own state`, () => {
      const s = new StepLR({ stepSize: 2 });
      s.next(1);
      const load = () => s.loadState(untyped<LrSchedulerState>(state));
      expect(load).toThrow(ArgumentError);
      expect(load).toThrow(message);
      expect(s.stepCount).toBe(1);
    });
  }

  it("ReduceLROnPlateau.loadState checks its extra values; best may be ±Infinity (or null, as JSON writes it)", () => {
    const load = (extra: Record<string, unknown>, mode: 'min' | 'max' = 'min') => {
      const s = new ReduceLROnPlateau({ mode });
      s.loadState(untyped<LrSchedulerState>({ kind: 'plateau', stepCount: 2, extra }));
      return s;
    };
    expect(() => load({ scale: Number.NaN })).toThrow(/ReduceLROnPlateau.loadState: the state's extra.scale must be a number, got NaN/);
    expect(() => load({ scale: Infinity })).toThrow(/the state's extra.scale must be a finite number, got Infinity/);
    expect(() => load({ bad: -1 })).toThrow(/the state's extra.bad must be an integer >= 0, got -1/);
    expect(() => load({ cooldownLeft: 0.5 })).toThrow(/extra.cooldownLeft must be an integer >= 0, got 0\.5/);
    expect(() => load({ lastBase: -Infinity })).toThrow(/extra.lastBase must be a finite number, got -Infinity/);
    expect(() => load({ best: '1' })).toThrow(/extra.best must be a number, got "1" \(a string\)/);
    expect(load({ best: Infinity }).state().extra?.best).toBe(Infinity);
    expect(load({ best: -Infinity }, 'max').state().extra?.best).toBe(-Infinity);
    expect(load({ best: null }, 'max').state().extra?.best).toBe(-Infinity);
    expect(load({ best: 0.25 }).state().extra?.best).toBe(0.25);
  });
});

describe('laws', () => {
  it('MultiStepLR with the multiples of stepSize as milestones (any order) is StepLR', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0, max: 2, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.integer(), (stepSize, gamma, base, seed) => {
        const milestones = Array.from({ length: Math.floor(60 / stepSize) }, (_, i) => (i + 1) * stepSize);
        // A seeded shuffle: the order given must not matter.
        milestones.sort((a, b) => ((a * 2654435761 + seed) % 97) - ((b * 2654435761 + seed) % 97));
        expect(rates(new MultiStepLR({ milestones, gamma }), base)).toEqual(rates(new StepLR({ stepSize, gamma }), base));
      }),
      { numRuns: 200 },
    );
  });

  const anyScheduler: fc.Arbitrary<() => LrScheduler> = fc.oneof(
    fc.record({ stepSize: fc.integer({ min: 1, max: 9 }), gamma: fc.double({ min: 0, max: 1, noNaN: true }) }).map((o) => () => new StepLR(o)),
    fc.record({ factor: fc.double({ min: 0, max: 1, noNaN: true }), totalSteps: fc.integer({ min: 0, max: 40 }) }).map((o) => () => new ConstantLR(o)),
    fc.record({ totalSteps: fc.integer({ min: 1, max: 70 }), power: fc.double({ min: 0, max: 4, noNaN: true }) }).map((o) => () => new PolynomialLR(o)),
    fc.record({ t0: fc.integer({ min: 1, max: 10 }), tMult: fc.integer({ min: 1, max: 3 }), minLr: fc.double({ min: 0, max: 0.01, noNaN: true }) }).map((o) => () => new CosineAnnealingWarmRestarts(o)),
    fc.record({ totalSteps: fc.integer({ min: 10, max: 80 }), pctStart: fc.double({ min: 0.2, max: 0.8, noNaN: true }), threePhase: fc.boolean() }).map((o) => () => new OneCycleLR({ maxLr: 0.3, ...o })),
  );

  it('SequentialLR of one scheduler is that scheduler', () => {
    fc.assert(
      fc.property(anyScheduler, fc.double({ min: 0, max: 1, noNaN: true }), (make, base) => {
        expect(rates(new SequentialLR({ schedulers: [make()], milestones: [] }), base)).toEqual(rates(make(), base));
      }),
      { numRuns: 200 },
    );
  });

  it('SequentialLR of two: the first before the milestone, the second from its own step 0 after', () => {
    fc.assert(
      fc.property(anyScheduler, anyScheduler, fc.integer({ min: 1, max: 59 }), (first, second, m) => {
        const got = rates(new SequentialLR({ schedulers: [first(), second()], milestones: [m] }), 0.5);
        const a = first();
        const b = second();
        expect(got).toEqual(steps.map((k) => (k < m ? a.rateAt(k, 0.5) : b.rateAt(k - m, 0.5))));
      }),
      { numRuns: 200 },
    );
  });

  it('CosineAnnealingWarmRestarts with tMult 1 repeats every t0 steps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 15 }), fc.double({ min: 0, max: 0.5, noNaN: true }), (t0, minLr) => {
        const r = rates(new CosineAnnealingWarmRestarts({ t0, minLr }), 1);
        for (let k = t0; k < N; k++) expect(r[k]).toBe(r[k - t0]);
      }),
      { numRuns: 100 },
    );
  });
});
