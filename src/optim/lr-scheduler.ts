/**
 * Learning-rate schedules as objects the optimizer's step consumes: pass one as
 * `new Adam({ lr, scheduler })` or as `opt.step(model, grads, scheduler)`, and each optimizer step
 * takes the next rate (PyTorch's schedulers, counted in optimizer steps rather than epochs).
 * Step k of a schedule is torch's closed form at last_epoch = k (after k calls of its step()).
 */
import { ArgumentError } from '../errors.js';
import { checkBoolean, checkChoice, checkInteger, checkKeys, checkNumber, checkOptions, field, show } from '../ir/validate.js';
import { checkSetting } from './optimizer.js';

export interface LrSchedulerState {
  readonly kind: string;
  readonly stepCount: number;
  readonly extra?: Readonly<Record<string, number>>;
  /** SequentialLR: the states of its schedulers, in order. */
  readonly schedulers?: readonly LrSchedulerState[];
}

/**
 * A state as loadState takes it, checked and copied: untyped callers, and JSON from a checkpoint
 * (where ReduceLROnPlateau's first best, ±Infinity, was written as null: such an entry is left
 * out, and the scheduler keeps its own). `kind` undefined: any kind (the loading scheduler checks).
 */
function readState(op: string, state: unknown, kind?: string): LrSchedulerState {
  if (typeof state !== 'object' || state === null || Array.isArray(state)) throw new ArgumentError(`the state must be an object as state() returns, got ${show(state)}`, { op, hint: 'pass what scheduler.state() returned' });
  const k = field(state, 'kind');
  if (typeof k !== 'string') throw new ArgumentError(`the state's kind must be a string, got ${show(k)}`, { op, hint: 'pass what scheduler.state() returned' });
  if (kind !== undefined && k !== kind) throw new ArgumentError(`scheduler state of kind '${k}' cannot load into ${kind}`, { op });
  const stepCount = checkInteger(op, 'the state\'s stepCount', field(state, 'stepCount'), 0);
  const e = field(state, 'extra');
  let extra: Record<string, number> | undefined;
  if (e !== undefined) {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new ArgumentError(`the state's extra must be an object of numbers, got ${show(e)}`, { op });
    extra = {};
    for (const [name, v] of Object.entries(e)) {
      if (v === null) continue;
      if (typeof v !== 'number' || Number.isNaN(v)) throw new ArgumentError(`the state's extra.${name} must be a number, got ${show(v)}`, { op });
      extra[name] = v;
    }
  }
  const ss = field(state, 'schedulers');
  let schedulers: LrSchedulerState[] | undefined;
  if (ss !== undefined) {
    if (!Array.isArray(ss)) throw new ArgumentError(`the state's schedulers must be an array of states, got ${show(ss)}`, { op });
    schedulers = [];
    for (const inner of ss) schedulers.push(readState(op, inner));
  }
  return { kind: k, stepCount, ...(extra ? { extra } : {}), ...(schedulers ? { schedulers } : {}) };
}

export abstract class LrScheduler {
  abstract readonly kind: string;
  /** Optimizer steps taken under this schedule so far. */
  stepCount = 0;

  /** The rate of step `step` (0-based), given the optimizer's own `lr` as the base. */
  abstract rateAt(step: number, base: number): number;

  /** The rate for the next optimizer step; moves the schedule on by one step. */
  next(base: number): number {
    // Counted once the rate is known: a rate that throws (LambdaLR) does not move the schedule on.
    const rate = this.rateAt(this.stepCount, base);
    this.advance(base);
    return rate;
  }

  /**
   * Moves on one step as next() does, for a caller that read the step's rates first (ratesAt):
   * an optimizer step checks them all before the schedule moves. What a subclass does at each
   * move goes here, not in next() (the optimizer does not call next()).
   */
  advance(base: number): void {
    void base;
    this.stepCount++;
  }

  /** The rate the next step would use, without moving on. */
  peek(base: number): number {
    return this.rateAt(this.stepCount, base);
  }

  /**
   * The rate of step `step` for a parameter group whose lr is `base * scale` (ParamGroup.lrScale):
   * the schedule run from the group's own lr, as torch schedules each group from its lr, so
   * that a floor (CosineLR's minLr) is the same for every group rather than scaled with it.
   */
  groupRate(step: number, base: number, scale: number): number {
    return this.rateAt(step, base * scale);
  }

  /**
   * Step `step`'s rate (rateAt) and, for each of `scales`, a group's (groupRate): what an
   * optimizer step reads, once, before it moves the schedule on.
   */
  ratesAt(step: number, base: number, scales: readonly number[]): { rate: number; groups: number[] } {
    return { rate: this.rateAt(step, base), groups: scales.map((scale) => this.groupRate(step, base, scale)) };
  }

  /**
   * The momentum of step `step` where the schedule sets it (OneCycleLR's cycleMomentum: SGD's and
   * RMSprop's momentum, the others' beta1, in every group), else undefined: the optimizer's own.
   */
  momentumAt(step: number): number | undefined {
    void step;
    return undefined;
  }

  /**
   * Whether momentumAt gives a momentum at some step: an optimizer without one refuses the
   * schedule when it is made or first given (torch's OneCycleLR refuses such an optimizer when
   * made), not at the step where the momentum starts (a SequentialLR's later milestone).
   */
  setsMomentum(): boolean {
    return false;
  }

  /** Plain data, to checkpoint beside the optimizer state. */
  state(): LrSchedulerState {
    return { kind: this.kind, stepCount: this.stepCount };
  }

  /** Restores what state() returned; a state of another kind, or not one, is an ArgumentError. */
  loadState(state: LrSchedulerState): void {
    this.stepCount = readState(`${this.constructor.name}.loadState`, state, this.kind).stepCount;
  }
}

/** An option as given, or its default when left out or given as undefined. */
function given(o: Readonly<Record<string, unknown>>, name: string, dflt: unknown): unknown {
  const v = o[name];
  return v === undefined ? dflt : v;
}


/**
 * The options object of a scheduler: an object with only the keys it knows; undefined only
 * where every option has a default (`required`: some option has none).
 */
function optionsOf(op: string, options: unknown, known: readonly string[], required = false): Readonly<Record<string, unknown>> {
  if (required && options === undefined) throw new ArgumentError(`options must be an object, got undefined`, { op, hint: `${op} takes ${known.map((k) => `'${k}'`).join(', ')}` });
  const o = checkOptions(op, options);
  checkKeys(op, o, known);
  return o;
}

/** From `start` at progress 0 to `end` at 1 along half a cosine (the annealing every cosine schedule shares). */
function cosineFrom(start: number, end: number, progress: number): number {
  return end + ((start - end) * (1 + Math.cos(Math.PI * progress))) / 2;
}

const atLeast0 = (x: number): boolean => x >= 0;
const above0 = (x: number): boolean => x > 0;
const in01 = (x: number): boolean => x >= 0 && x <= 1;

/** base * gamma^floor(step / stepSize) (torch StepLR). */
export class StepLR extends LrScheduler {
  readonly kind = 'step';
  readonly stepSize: number;
  readonly gamma: number;
  constructor(options: { stepSize: number; gamma?: number }) {
    super();
    const op = 'StepLR';
    const o = optionsOf(op, options, ['stepSize', 'gamma'], true);
    this.stepSize = checkInteger(op, 'stepSize', o.stepSize, 1);
    this.gamma = checkSetting(op, 'gamma', given(o, 'gamma', 0.1), atLeast0, 'a finite number >= 0');
  }
  rateAt(step: number, base: number): number {
    return base * this.gamma ** Math.floor(step / this.stepSize);
  }
}

/**
 * base * gamma^(the number of milestones <= step) (torch MultiStepLR; a milestone given twice
 * counts twice, as torch's Counter does).
 */
export class MultiStepLR extends LrScheduler {
  readonly kind = 'multiStep';
  /** Sorted. */
  readonly milestones: readonly number[];
  readonly gamma: number;
  constructor(options: { milestones: readonly number[]; gamma?: number }) {
    super();
    const op = 'MultiStepLR';
    const o = optionsOf(op, options, ['milestones', 'gamma'], true);
    const ms = o.milestones;
    if (!Array.isArray(ms)) throw new ArgumentError(`milestones must be an array of step numbers, got ${show(ms)}`, { op });
    const milestones: number[] = [];
    for (const [i, m] of ms.entries()) milestones.push(checkInteger(op, `milestones[${i}]`, m, 0));
    this.milestones = Object.freeze(milestones.sort((a, b) => a - b));
    this.gamma = checkSetting(op, 'gamma', given(o, 'gamma', 0.1), atLeast0, 'a finite number >= 0');
  }
  rateAt(step: number, base: number): number {
    let passed = 0;
    for (const m of this.milestones) if (m <= step) passed++;
    return base * this.gamma ** passed;
  }
}

/** base * gamma^step (torch ExponentialLR). */
export class ExponentialLR extends LrScheduler {
  readonly kind = 'exponential';
  readonly gamma: number;
  /** `new ExponentialLR(0.9)`, or `{ gamma: 0.9 }` as the other schedulers take their options. */
  constructor(gamma: number | { gamma: number }) {
    super();
    const op = 'ExponentialLR';
    const g: unknown = typeof gamma === 'object' && gamma !== null ? gamma.gamma : gamma;
    if (typeof gamma === 'object') checkKeys(op, gamma, ['gamma']);
    this.gamma = checkSetting(op, 'gamma', g, above0, 'a finite number > 0');
  }
  rateAt(step: number, base: number): number {
    return base * this.gamma ** step;
  }
}

/** base * factor before step totalSteps, base from there (torch ConstantLR: defaults 1/3 and 5). */
export class ConstantLR extends LrScheduler {
  readonly kind = 'constant';
  readonly factor: number;
  readonly totalSteps: number;
  constructor(options: { factor?: number; totalSteps?: number } = {}) {
    super();
    const op = 'ConstantLR';
    const o = optionsOf(op, options, ['factor', 'totalSteps']);
    this.factor = checkSetting(op, 'factor', given(o, 'factor', 1 / 3), in01, 'a number in [0, 1]');
    this.totalSteps = checkInteger(op, 'totalSteps', given(o, 'totalSteps', 5), 0);
  }
  rateAt(step: number, base: number): number {
    return step < this.totalSteps ? base * this.factor : base;
  }
}

/**
 * base times a factor going linearly from startFactor to endFactor over totalSteps, then held
 * (torch LinearLR, with its defaults: 1/3 to 1 over 5 steps, a warm-up; endFactor < startFactor
 * decays).
 */
export class LinearLR extends LrScheduler {
  readonly kind = 'linear';
  readonly startFactor: number;
  readonly endFactor: number;
  readonly totalSteps: number;
  constructor(options: { totalSteps?: number; startFactor?: number; endFactor?: number } = {}) {
    super();
    const op = 'LinearLR';
    const o = optionsOf(op, options, ['totalSteps', 'startFactor', 'endFactor']);
    this.totalSteps = checkInteger(op, 'totalSteps', given(o, 'totalSteps', 5), 1);
    // torch's ranges: a start of 0 would give a first step of rate 0.
    this.startFactor = checkSetting(op, 'startFactor', given(o, 'startFactor', 1 / 3), (x) => x > 0 && x <= 1, 'a number in (0, 1]');
    this.endFactor = checkSetting(op, 'endFactor', given(o, 'endFactor', 1), in01, 'a number in [0, 1]');
  }
  rateAt(step: number, base: number): number {
    const t = Math.min(step, this.totalSteps) / this.totalSteps;
    return base * (this.startFactor + (this.endFactor - this.startFactor) * t);
  }
}

/** base * (1 - min(step, totalSteps) / totalSteps)^power (torch PolynomialLR: defaults 5 and 1). */
export class PolynomialLR extends LrScheduler {
  readonly kind = 'polynomial';
  readonly totalSteps: number;
  readonly power: number;
  constructor(options: { totalSteps?: number; power?: number } = {}) {
    super();
    const op = 'PolynomialLR';
    const o = optionsOf(op, options, ['totalSteps', 'power']);
    this.totalSteps = checkInteger(op, 'totalSteps', given(o, 'totalSteps', 5), 1);
    // A negative power would make the last rate 0^-p, infinite.
    this.power = checkSetting(op, 'power', given(o, 'power', 1), atLeast0, 'a finite number >= 0');
  }
  rateAt(step: number, base: number): number {
    return base * (1 - Math.min(step, this.totalSteps) / this.totalSteps) ** this.power;
  }
}

/** base * lrLambda(step) (torch LambdaLR); the function must return a finite number. */
export class LambdaLR extends LrScheduler {
  readonly kind = 'lambda';
  readonly lrLambda: (step: number) => number;
  constructor(options: { lrLambda: (step: number) => number }) {
    super();
    const op = 'LambdaLR';
    const o = optionsOf(op, options, ['lrLambda'], true);
    const f = o.lrLambda;
    if (typeof f !== 'function') throw new ArgumentError(`lrLambda must be a function of the step giving the factor, got ${show(f)}`, { op });
    this.lrLambda = (step) => {
      const r: unknown = Reflect.apply(f, undefined, [step]);
      if (typeof r !== 'number' || !Number.isFinite(r)) throw new ArgumentError(`lrLambda(${step}) must return a finite number, got ${show(r)}`, { op });
      return r;
    };
  }
  rateAt(step: number, base: number): number {
    return base * this.lrLambda(step);
  }
  /** The function runs once for the step, whatever the number of groups. */
  override ratesAt(step: number, base: number, scales: readonly number[]): { rate: number; groups: number[] } {
    const f = this.lrLambda(step);
    return { rate: base * f, groups: scales.map((scale) => base * scale * f) };
  }
}

/**
 * Linear warm-up from 0 over warmupSteps (step t has base * t / warmupSteps), then a cosine from
 * base down to minLr at totalSteps, held after (torch CosineAnnealingLR after a warm-up, as
 * Hugging Face's get_cosine_schedule_with_warmup).
 */
export class CosineLR extends LrScheduler {
  readonly kind = 'cosine';
  readonly totalSteps: number;
  readonly warmupSteps: number;
  readonly minLr: number;
  constructor(options: { totalSteps: number; warmupSteps?: number; minLr?: number }) {
    super();
    const op = 'CosineLR';
    const o = optionsOf(op, options, ['totalSteps', 'warmupSteps', 'minLr'], true);
    this.totalSteps = checkInteger(op, 'totalSteps', o.totalSteps, 1);
    this.warmupSteps = checkInteger(op, 'warmupSteps', given(o, 'warmupSteps', 0), 0, this.totalSteps - 1);
    this.minLr = checkSetting(op, 'minLr', given(o, 'minLr', 0), atLeast0, 'a finite number >= 0');
  }
  rateAt(step: number, base: number): number {
    if (step < this.warmupSteps) return (base * step) / this.warmupSteps;
    const progress = Math.min(1, (step - this.warmupSteps) / (this.totalSteps - this.warmupSteps));
    return cosineFrom(base, this.minLr, progress);
  }
}

/**
 * torch CosineAnnealingWarmRestarts: minLr + (base - minLr)(1 + cos(pi tCur / tI)) / 2, where the
 * cycle length tI starts at t0 and is multiplied by tMult at each restart, and tCur counts the
 * steps since the last restart.
 */
export class CosineAnnealingWarmRestarts extends LrScheduler {
  readonly kind = 'cosineWarmRestarts';
  readonly t0: number;
  readonly tMult: number;
  readonly minLr: number;
  constructor(options: { t0: number; tMult?: number; minLr?: number }) {
    super();
    const op = 'CosineAnnealingWarmRestarts';
    const o = optionsOf(op, options, ['t0', 'tMult', 'minLr'], true);
    this.t0 = checkInteger(op, 't0', o.t0, 1);
    this.tMult = checkInteger(op, 'tMult', given(o, 'tMult', 1), 1);
    this.minLr = checkSetting(op, 'minLr', given(o, 'minLr', 0), atLeast0, 'a finite number >= 0');
  }
  rateAt(step: number, base: number): number {
    let tCur = step;
    let tI = this.t0;
    // Whole cycles in integers (torch's closed form takes a float log, which can land one cycle off).
    if (this.tMult === 1) tCur = step % tI;
    else {
      while (tCur >= tI) {
        tCur -= tI;
        tI *= this.tMult;
      }
    }
    return cosineFrom(base, this.minLr, tCur / tI);
  }
}

interface OneCyclePhase {
  readonly end: number;
  readonly from: number;
  readonly to: number;
  /** The momentum at the phase's start and end (cycleMomentum). */
  readonly momentum: readonly [number, number];
}

/**
 * The one-cycle policy (torch OneCycleLR): from maxLr / divFactor up to maxLr over pctStart of the
 * steps, then down to that / finalDivFactor, by cosine (or linear) annealing; with threePhase,
 * back down to maxLr / divFactor by 2 * pctStart first, then to the minimum. Held after the last
 * step. It sets the rate itself: the optimizer's lr is not used. With cycleMomentum (torch's
 * default) the momentum goes the other way, maxMomentum to baseMomentum while the rate rises and
 * back (three phases: held at maxMomentum in the last), replacing every group's (SGD's and
 * RMSprop's momentum, Adam's, AdamW's, Adamax's and RAdam's beta1); an optimizer without one
 * refuses the schedule, as torch.
 */
export class OneCycleLR extends LrScheduler {
  readonly kind = 'oneCycle';
  readonly maxLr: number;
  readonly totalSteps: number;
  readonly pctStart: number;
  readonly initialLr: number;
  readonly minLr: number;
  readonly anneal: 'cos' | 'linear';
  readonly threePhase: boolean;
  /** Whether it sets the momentum too (default true, as torch's cycle_momentum). */
  readonly cycleMomentum: boolean;
  readonly baseMomentum: number;
  readonly maxMomentum: number;
  private readonly phases: readonly OneCyclePhase[];
  constructor(options: {
    maxLr: number;
    totalSteps: number;
    pctStart?: number;
    divFactor?: number;
    finalDivFactor?: number;
    anneal?: 'cos' | 'linear';
    threePhase?: boolean;
    /** Default true. */
    cycleMomentum?: boolean;
    /** The momentum at the peak rate (default 0.85). */
    baseMomentum?: number;
    /** The momentum at the lowest rates (default 0.95). */
    maxMomentum?: number;
  }) {
    super();
    const op = 'OneCycleLR';
    const o = optionsOf(op, options, ['maxLr', 'totalSteps', 'pctStart', 'divFactor', 'finalDivFactor', 'anneal', 'threePhase', 'cycleMomentum', 'baseMomentum', 'maxMomentum'], true);
    this.totalSteps = checkInteger(op, 'totalSteps', o.totalSteps, 1);
    this.maxLr = checkSetting(op, 'maxLr', o.maxLr, above0, 'a finite number > 0');
    this.pctStart = checkSetting(op, 'pctStart', given(o, 'pctStart', 0.3), (x) => x > 0 && x < 1, 'a number in (0, 1)');
    const divFactor = checkSetting(op, 'divFactor', given(o, 'divFactor', 25), above0, 'a finite number > 0');
    const finalDivFactor = checkSetting(op, 'finalDivFactor', given(o, 'finalDivFactor', 1e4), above0, 'a finite number > 0');
    this.anneal = checkChoice(op, 'anneal', given(o, 'anneal', 'cos'), ['cos', 'linear']);
    this.threePhase = checkBoolean(op, 'threePhase', given(o, 'threePhase', false));
    this.cycleMomentum = checkBoolean(op, 'cycleMomentum', given(o, 'cycleMomentum', true));
    // A momentum or beta1 outside [0, 1) would reach every group unchecked.
    const momentum = (x: number): boolean => x >= 0 && x < 1;
    this.baseMomentum = checkSetting(op, 'baseMomentum', given(o, 'baseMomentum', 0.85), momentum, 'a number in [0, 1)');
    this.maxMomentum = checkSetting(op, 'maxMomentum', given(o, 'maxMomentum', 0.95), momentum, 'a number in [0, 1)');
    const down: readonly [number, number] = [this.maxMomentum, this.baseMomentum];
    const up: readonly [number, number] = [this.baseMomentum, this.maxMomentum];
    this.initialLr = this.maxLr / divFactor;
    this.minLr = this.initialLr / finalDivFactor;
    // torch's phase ends, computed as torch does.
    const upEnd = this.pctStart * this.totalSteps - 1;
    // Step 0 is the warm-up's start: its end must come after it, or the warm-up's pct is 0 / 0
    // (torch's ZeroDivisionError) or step 0 is already past it.
    if (!(upEnd > 0)) {
      throw new ArgumentError(`pctStart * totalSteps - 1 (the warm-up's last step) must be > 0, got ${upEnd} from pctStart ${this.pctStart} and totalSteps ${this.totalSteps}`, {
        op,
        hint: 'the warm-up would have no step after step 0 (torch divides by zero there): raise pctStart or totalSteps',
      });
    }
    const end = this.totalSteps - 1;
    this.phases = this.threePhase
      ? [
          { end: upEnd, from: this.initialLr, to: this.maxLr, momentum: down },
          { end: 2 * this.pctStart * this.totalSteps - 2, from: this.maxLr, to: this.initialLr, momentum: up },
          { end, from: this.initialLr, to: this.minLr, momentum: [this.maxMomentum, this.maxMomentum] },
        ]
      : [
          { end: upEnd, from: this.initialLr, to: this.maxLr, momentum: down },
          { end, from: this.maxLr, to: this.minLr, momentum: up },
        ];
  }
  /** Its rates ignore the base: a group's scale multiplies them (torch's per-group max_lr list, in proportion). */
  override groupRate(step: number, _base: number, scale: number): number {
    return this.rateAt(step) * scale;
  }
  private interpolate(start: number, end: number, pct: number): number {
    return this.anneal === 'cos' ? cosineFrom(start, end, pct) : (end - start) * pct + start;
  }
  /** Step `step`'s phase and how far into it (0 to 1), as torch: the first phase whose end is not passed, else the last one. */
  private locate(step: number): { phase: OneCyclePhase; pct: number } {
    const t = Math.min(step, this.totalSteps - 1);
    let start = 0;
    for (const [i, phase] of this.phases.entries()) {
      if (t <= phase.end || i === this.phases.length - 1) return { phase, pct: (t - start) / (phase.end - start) };
      start = phase.end;
    }
    throw new Error('unreachable: OneCycleLR has phases');
  }
  rateAt(step: number): number {
    const { phase, pct } = this.locate(step);
    return this.interpolate(phase.from, phase.to, pct);
  }
  override setsMomentum(): boolean {
    return this.cycleMomentum;
  }
  override momentumAt(step: number): number | undefined {
    if (!this.cycleMomentum) return undefined;
    const { phase, pct } = this.locate(step);
    return this.interpolate(phase.momentum[0], phase.momentum[1], pct);
  }
}

export interface ReduceLROnPlateauOptions {
  /** Whether a lower ('min', default) or higher ('max') metric is better. */
  mode?: 'min' | 'max';
  /** Multiplies the rate on a plateau (default 0.1). */
  factor?: number;
  /** Observations without improvement tolerated before reducing (default 10). */
  patience?: number;
  /** Improvement needed to count (default 1e-4), relative ('rel', default) or absolute ('abs'). */
  threshold?: number;
  thresholdMode?: 'rel' | 'abs';
  /** Observations to wait after a reduction before counting again (default 0). */
  cooldown?: number;
  /** A reduction goes no lower than this (default 0); a rate already below it stays. */
  minLr?: number;
  /** Reductions smaller than this are skipped (default 1e-8). */
  eps?: number;
}

/**
 * torch ReduceLROnPlateau: `observe(metric)` after each validation (fit does it with the validation
 * loss); after `patience` observations without improvement the rate is multiplied by `factor`.
 * Each rate is its base after that many of torch's reductions, so a parameter group (another
 * base) is floored at minLr on its own, as torch reduces each group's lr.
 */
export class ReduceLROnPlateau extends LrScheduler {
  readonly kind = 'plateau';
  private readonly o: Required<ReduceLROnPlateauOptions>;
  /** Plateaus that called for a reduction so far. */
  private reductions = 0;
  private best: number;
  private bad = 0;
  private cooldownLeft = 0;
  /** The base of the last rate given: observe reports whether its rate changed. */
  private lastBase: number | undefined;

  constructor(options: ReduceLROnPlateauOptions = {}) {
    super();
    const op = 'ReduceLROnPlateau';
    const o = optionsOf(op, options, ['mode', 'factor', 'patience', 'threshold', 'thresholdMode', 'cooldown', 'minLr', 'eps']);
    this.o = {
      mode: checkChoice(op, 'mode', given(o, 'mode', 'min'), ['min', 'max']),
      factor: checkSetting(op, 'factor', given(o, 'factor', 0.1), (x) => x >= 0 && x < 1, 'a number in [0, 1)'),
      patience: checkInteger(op, 'patience', given(o, 'patience', 10), 0),
      threshold: checkSetting(op, 'threshold', given(o, 'threshold', 1e-4), atLeast0, 'a finite number >= 0'),
      thresholdMode: checkChoice(op, 'thresholdMode', given(o, 'thresholdMode', 'rel'), ['rel', 'abs']),
      cooldown: checkInteger(op, 'cooldown', given(o, 'cooldown', 0), 0),
      minLr: checkSetting(op, 'minLr', given(o, 'minLr', 0), atLeast0, 'a finite number >= 0'),
      eps: checkSetting(op, 'eps', given(o, 'eps', 1e-8), atLeast0, 'a finite number >= 0'),
    };
    this.best = this.worst();
  }

  private worst(): number {
    return this.o.mode === 'min' ? Infinity : -Infinity;
  }

  /**
   * `base` after `n` of torch's reductions (_reduce_lr: max(lr * factor, minLr), skipped when it
   * changes the rate by eps or less, which then holds for every later one: the loop ends there).
   */
  private reduced(base: number, n: number): number {
    let r = base;
    for (let i = 0; i < n; i++) {
      const next = Math.max(r * this.o.factor, this.o.minLr);
      if (!(r - next > this.o.eps)) break;
      r = next;
    }
    return r;
  }

  rateAt(_step: number, base: number): number {
    return this.reduced(base, this.reductions);
  }

  /** Records the base (observe reports on its rate); rateAt stays pure, so a group's rate can be asked at any time. */
  override advance(base: number): void {
    this.lastBase = base;
    super.advance(base);
  }

  private improves(metric: number): boolean {
    const { mode, threshold, thresholdMode } = this.o;
    if (mode === 'min') return thresholdMode === 'rel' ? metric < this.best * (1 - threshold) : metric < this.best - threshold;
    return thresholdMode === 'rel' ? metric > this.best * (1 + threshold) : metric > this.best + threshold;
  }

  /** Reports a metric; returns true when this observation reduced the rate (of the last base given). */
  observe(metric: number): boolean {
    // NaN is allowed as torch allows it: it never improves.
    checkNumber('ReduceLROnPlateau.observe', 'metric', metric);
    if (this.improves(metric)) {
      this.best = metric;
      this.bad = 0;
    } else this.bad++;
    if (this.cooldownLeft > 0) {
      this.cooldownLeft--;
      this.bad = 0;
    }
    if (this.bad <= this.o.patience) return false;
    this.bad = 0;
    this.cooldownLeft = this.o.cooldown;
    // Counted even where it changes no rate: torch tries every group's, and another base may change.
    const base = this.lastBase ?? 1;
    const before = this.reduced(base, this.reductions);
    this.reductions++;
    return this.reduced(base, this.reductions) !== before;
  }

  override state(): LrSchedulerState {
    const extra: Record<string, number> = { reductions: this.reductions, best: this.best, bad: this.bad, cooldownLeft: this.cooldownLeft };
    if (this.lastBase !== undefined) extra.lastBase = this.lastBase;
    return { kind: this.kind, stepCount: this.stepCount, extra };
  }

  override loadState(state: LrSchedulerState): void {
    const op = 'ReduceLROnPlateau.loadState';
    const { stepCount, extra = {} } = readState(op, state, this.kind);
    const finite = (name: string, dflt: number): number => checkSetting(op, `the state's extra.${name}`, extra[name] ?? dflt, () => true, 'a finite number');
    const count = (name: string): number => checkInteger(op, `the state's extra.${name}`, extra[name] ?? 0, 0);
    // best is ±Infinity until a metric improves on it; readState has refused NaN.
    const best = extra.best ?? this.worst();
    const bad = count('bad');
    const cooldownLeft = count('cooldownLeft');
    const lastBase = extra.lastBase === undefined ? undefined : finite('lastBase', 1);
    // A state saved before 'reductions' holds the rate's factor over its base ('scale').
    const reductions = extra.reductions !== undefined ? count('reductions') : this.reductionsFor(finite('scale', 1), lastBase ?? 1, op);
    this.stepCount = stepCount;
    this.reductions = reductions;
    this.best = best;
    this.bad = bad;
    this.cooldownLeft = cooldownLeft;
    this.lastBase = lastBase;
  }

  /** The number of reductions that take `base` to `base * scale`. */
  private reductionsFor(scale: number, base: number, op: string): number {
    const want = base * scale;
    for (let n = 0, r = base; ; n++) {
      if (Math.abs(r - want) <= 1e-9 * Math.abs(want)) return n;
      const next = Math.max(r * this.o.factor, this.o.minLr);
      if (!(r - next > this.o.eps)) throw new ArgumentError(`the state's extra.scale ${scale} is no rate this schedule reaches from its base ${base}`, { op, hint: 'load a state saved by a ReduceLROnPlateau with the same options' });
      r = next;
    }
  }
}

/**
 * torch SequentialLR: schedulers[0] until milestones[0], then schedulers[i] from milestones[i - 1],
 * each started from its own step 0 at its milestone (torch calls step(0) on it there).
 */
export class SequentialLR extends LrScheduler {
  readonly kind = 'sequential';
  readonly schedulers: readonly LrScheduler[];
  readonly milestones: readonly number[];
  constructor(options: { schedulers: readonly LrScheduler[]; milestones: readonly number[] }) {
    super();
    const op = 'SequentialLR';
    const o = optionsOf(op, options, ['schedulers', 'milestones'], true);
    const ss = o.schedulers;
    const ms = o.milestones;
    if (!Array.isArray(ss) || ss.length === 0) throw new ArgumentError(`schedulers must be a non-empty array of schedulers, got ${show(ss)}`, { op });
    const schedulers: LrScheduler[] = [];
    for (const [i, s] of ss.entries()) {
      if (!(s instanceof LrScheduler)) throw new ArgumentError(`schedulers[${i}] must be a scheduler (StepLR, LinearLR...), got ${show(s)}`, { op });
      // Its rate follows observe(), not the step: it has no rate of a step to start from.
      if (s instanceof ReduceLROnPlateau) throw new ArgumentError(`schedulers[${i}] is a ReduceLROnPlateau, which cannot be in a SequentialLR (as in torch)`, { op });
      schedulers.push(s);
    }
    if (!Array.isArray(ms)) throw new ArgumentError(`milestones must be an array of step numbers, got ${show(ms)}`, { op });
    if (ms.length !== schedulers.length - 1) throw new ArgumentError(`milestones must have one entry fewer than schedulers (${schedulers.length - 1}), got ${ms.length}`, { op, hint: 'milestones[i] is the step where schedulers[i + 1] takes over' });
    const milestones: number[] = [];
    for (const [i, m] of ms.entries()) milestones.push(checkInteger(op, `milestones[${i}]`, m, i === 0 ? 1 : (milestones[i - 1] ?? 0) + 1));
    this.schedulers = Object.freeze(schedulers);
    this.milestones = Object.freeze(milestones);
  }

  /** Which scheduler runs step `step`, and at which of its own steps. */
  private locate(step: number): { scheduler: LrScheduler; local: number } {
    let i = 0;
    while (i < this.milestones.length && (this.milestones[i] ?? Infinity) <= step) i++;
    const scheduler = this.schedulers[i];
    if (!scheduler) throw new Error('unreachable: SequentialLR has a scheduler per interval');
    return { scheduler, local: step - (i === 0 ? 0 : (this.milestones[i - 1] ?? 0)) };
  }

  rateAt(step: number, base: number): number {
    const { scheduler, local } = this.locate(step);
    return scheduler.rateAt(local, base);
  }

  override groupRate(step: number, base: number, scale: number): number {
    const { scheduler, local } = this.locate(step);
    return scheduler.groupRate(local, base, scale);
  }

  /**
   * The running scheduler's momentum (a OneCycleLR's with cycleMomentum), else the optimizer's own:
   * torch's momentum stays where a OneCycleLR last set it once the next scheduler runs.
   */
  override momentumAt(step: number): number | undefined {
    const { scheduler, local } = this.locate(step);
    return scheduler.momentumAt(local);
  }

  override setsMomentum(): boolean {
    return this.schedulers.some((s) => s.setsMomentum());
  }

  override ratesAt(step: number, base: number, scales: readonly number[]): { rate: number; groups: number[] } {
    const { scheduler, local } = this.locate(step);
    return scheduler.ratesAt(local, base, scales);
  }

  /** Also moves the running scheduler's own count, so its state() says where it is (as torch's last_epoch). */
  override advance(base: number): void {
    const { scheduler, local } = this.locate(this.stepCount);
    super.advance(base);
    scheduler.stepCount = local + 1;
  }

  override state(): LrSchedulerState {
    return { kind: this.kind, stepCount: this.stepCount, schedulers: this.schedulers.map((s) => s.state()) };
  }

  override loadState(state: LrSchedulerState): void {
    const op = 'SequentialLR.loadState';
    const { stepCount, schedulers } = readState(op, state, this.kind);
    if (!schedulers || schedulers.length !== this.schedulers.length) {
      throw new ArgumentError(`the state must hold the states of ${this.schedulers.length} schedulers, got ${schedulers ? schedulers.length : 'none'}`, { op });
    }
    // All or nothing: a state an inner scheduler refuses puts back the ones already loaded.
    const saved = this.schedulers.map((s) => s.state());
    try {
      for (const [i, st] of schedulers.entries()) this.schedulers[i]?.loadState(st);
    } catch (e) {
      for (const [i, st] of saved.entries()) this.schedulers[i]?.loadState(st);
      throw e;
    }
    this.stepCount = stepCount;
  }
}
