/**
 * Learning-rate schedules as objects the optimizer's step consumes: pass one as
 * `new Adam({ lr, scheduler })` or as `opt.step(model, grads, scheduler)`, and each optimizer step
 * takes the next rate (PyTorch's schedulers, counted in optimizer steps rather than epochs).
 */
import { ArgumentError } from '../errors.js';

export interface LrSchedulerState {
  readonly kind: string;
  readonly stepCount: number;
  readonly extra?: Readonly<Record<string, number>>;
}

export abstract class LrScheduler {
  abstract readonly kind: string;
  /** Optimizer steps taken under this schedule so far. */
  stepCount = 0;

  /** The rate of step `step` (0-based), given the optimizer's own `lr` as the base. */
  abstract rateAt(step: number, base: number): number;

  /** The rate for the next optimizer step; moves the schedule on by one step. */
  next(base: number): number {
    return this.rateAt(this.stepCount++, base);
  }

  /** The rate the next step would use, without moving on. */
  peek(base: number): number {
    return this.rateAt(this.stepCount, base);
  }

  /** Plain data, to checkpoint beside the optimizer state. */
  state(): LrSchedulerState {
    return { kind: this.kind, stepCount: this.stepCount };
  }

  loadState(state: LrSchedulerState): void {
    if (state.kind !== this.kind) throw new ArgumentError(`scheduler state of kind '${state.kind}' cannot load into ${this.kind}`, { op: 'LrScheduler.loadState' });
    this.stepCount = state.stepCount;
  }
}

/** Untyped callers: a scheduler's options object must be there. */
function needOptions(op: string, options: unknown): void {
  if (typeof options !== 'object' || options === null) throw new ArgumentError(`options must be an object, got ${options === null ? 'null' : typeof options}`, { op });
}

function positive(op: string, name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new ArgumentError(`${name} must be a positive integer, got ${v}`, { op });
}

/** base * gamma^floor(step / stepSize) (torch StepLR). */
export class StepLR extends LrScheduler {
  readonly kind = 'step';
  readonly stepSize: number;
  readonly gamma: number;
  constructor(options: { stepSize: number; gamma?: number }) {
    super();
    needOptions('StepLR', options);
    positive('StepLR', 'stepSize', options.stepSize);
    this.stepSize = options.stepSize;
    this.gamma = options.gamma ?? 0.1;
  }
  rateAt(step: number, base: number): number {
    return base * this.gamma ** Math.floor(step / this.stepSize);
  }
}

/** base * gamma^step (torch ExponentialLR). */
export class ExponentialLR extends LrScheduler {
  readonly kind = 'exponential';
  readonly gamma: number;
  /** `new ExponentialLR(0.9)`, or `{ gamma: 0.9 }` as the other schedulers take their options. */
  constructor(gamma: number | { gamma: number }) {
    super();
    const g: unknown = typeof gamma === 'object' && gamma !== null ? gamma.gamma : gamma;
    if (typeof g !== 'number' || !Number.isFinite(g) || g <= 0) throw new ArgumentError(`gamma must be a finite number > 0, got ${String(g)}`, { op: 'ExponentialLR' });
    this.gamma = g;
  }
  rateAt(step: number, base: number): number {
    return base * this.gamma ** step;
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
    needOptions('LinearLR', options);
    const total = options.totalSteps ?? 5;
    positive('LinearLR', 'totalSteps', total);
    this.totalSteps = total;
    const factor = (name: string, v: unknown, ok: (x: number) => boolean, range: string): number => {
      if (typeof v !== 'number' || !ok(v)) throw new ArgumentError(`${name} must be a number in ${range}, got ${String(v)}`, { op: 'LinearLR', hint: 'the rate is the base rate times this factor' });
      return v;
    };
    // torch's ranges: a start of 0 would give a first step of rate 0.
    this.startFactor = factor('startFactor', options.startFactor ?? 1 / 3, (x) => x > 0 && x <= 1, '(0, 1]');
    this.endFactor = factor('endFactor', options.endFactor ?? 1, (x) => x >= 0 && x <= 1, '[0, 1]');
  }
  rateAt(step: number, base: number): number {
    const t = Math.min(step, this.totalSteps) / this.totalSteps;
    return base * (this.startFactor + (this.endFactor - this.startFactor) * t);
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
    needOptions('CosineLR', options);
    positive('CosineLR', 'totalSteps', options.totalSteps);
    this.totalSteps = options.totalSteps;
    this.warmupSteps = options.warmupSteps ?? 0;
    this.minLr = options.minLr ?? 0;
    if (!Number.isInteger(this.warmupSteps) || this.warmupSteps < 0 || this.warmupSteps >= this.totalSteps) {
      throw new ArgumentError(`warmupSteps must be an integer in [0, totalSteps), got ${this.warmupSteps}`, { op: 'CosineLR' });
    }
  }
  rateAt(step: number, base: number): number {
    if (step < this.warmupSteps) return (base * step) / this.warmupSteps;
    const progress = Math.min(1, (step - this.warmupSteps) / (this.totalSteps - this.warmupSteps));
    return this.minLr + ((base - this.minLr) * (1 + Math.cos(Math.PI * progress))) / 2;
  }
}

/**
 * The one-cycle policy (torch OneCycleLR, two phases): from maxLr / divFactor up to maxLr over
 * pctStart of the steps, then down to that / finalDivFactor, by cosine (or linear) annealing.
 * It sets the rate itself: the optimizer's lr is not used.
 */
export class OneCycleLR extends LrScheduler {
  readonly kind = 'oneCycle';
  readonly maxLr: number;
  readonly totalSteps: number;
  readonly pctStart: number;
  readonly initialLr: number;
  readonly minLr: number;
  readonly anneal: 'cos' | 'linear';
  constructor(options: { maxLr: number; totalSteps: number; pctStart?: number; divFactor?: number; finalDivFactor?: number; anneal?: 'cos' | 'linear' }) {
    super();
    needOptions('OneCycleLR', options);
    positive('OneCycleLR', 'totalSteps', options.totalSteps);
    if (typeof options.maxLr !== 'number' || !Number.isFinite(options.maxLr) || options.maxLr <= 0) throw new ArgumentError(`maxLr must be a finite number > 0, got ${String(options.maxLr)}`, { op: 'OneCycleLR' });
    this.maxLr = options.maxLr;
    this.totalSteps = options.totalSteps;
    this.pctStart = options.pctStart ?? 0.3;
    if (!(this.pctStart > 0 && this.pctStart < 1)) throw new ArgumentError(`pctStart must be in (0, 1), got ${this.pctStart}`, { op: 'OneCycleLR' });
    this.initialLr = this.maxLr / (options.divFactor ?? 25);
    this.minLr = this.initialLr / (options.finalDivFactor ?? 1e4);
    this.anneal = options.anneal ?? 'cos';
  }
  private interpolate(start: number, end: number, pct: number): number {
    return this.anneal === 'cos' ? end + ((start - end) / 2) * (1 + Math.cos(Math.PI * pct)) : (end - start) * pct + start;
  }
  rateAt(step: number): number {
    const upEnd = this.pctStart * this.totalSteps - 1;
    const downEnd = this.totalSteps - 1;
    const t = Math.min(step, downEnd);
    if (t <= upEnd) return this.interpolate(this.initialLr, this.maxLr, t / upEnd);
    return this.interpolate(this.maxLr, this.minLr, (t - upEnd) / (downEnd - upEnd));
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
  minLr?: number;
  /** Reductions smaller than this are skipped (default 1e-8). */
  eps?: number;
}

/**
 * torch ReduceLROnPlateau: `observe(metric)` after each validation (fit does it with the validation
 * loss); after `patience` observations without improvement the rate is multiplied by `factor`.
 */
export class ReduceLROnPlateau extends LrScheduler {
  readonly kind = 'plateau';
  private readonly o: Required<ReduceLROnPlateauOptions>;
  /** The current rate's factor over the base (1 until the first reduction). */
  private scale = 1;
  private best: number;
  private bad = 0;
  private cooldownLeft = 0;
  private lastBase: number | undefined;

  constructor(options: ReduceLROnPlateauOptions = {}) {
    super();
    this.o = { mode: 'min', factor: 0.1, patience: 10, threshold: 1e-4, thresholdMode: 'rel', cooldown: 0, minLr: 0, eps: 1e-8, ...options };
    if (!(this.o.factor < 1 && this.o.factor >= 0)) throw new ArgumentError(`factor must be in [0, 1), got ${this.o.factor}`, { op: 'ReduceLROnPlateau' });
    this.best = this.o.mode === 'min' ? Infinity : -Infinity;
  }

  rateAt(_step: number, base: number): number {
    this.lastBase = base;
    return Math.max(base * this.scale, this.o.minLr);
  }

  private improves(metric: number): boolean {
    const { mode, threshold, thresholdMode } = this.o;
    if (mode === 'min') return thresholdMode === 'rel' ? metric < this.best * (1 - threshold) : metric < this.best - threshold;
    return thresholdMode === 'rel' ? metric > this.best * (1 + threshold) : metric > this.best + threshold;
  }

  /** Reports a metric; returns true when this observation reduced the rate. */
  observe(metric: number): boolean {
    if (this.improves(metric)) {
      this.best = metric;
      this.bad = 0;
    } else this.bad++;
    if (this.cooldownLeft > 0) {
      this.cooldownLeft--;
      this.bad = 0;
    }
    if (this.bad <= this.o.patience) return false;
    const base = this.lastBase ?? 1;
    const old = Math.max(base * this.scale, this.o.minLr);
    const reduced = Math.max(old * this.o.factor, this.o.minLr);
    this.bad = 0;
    this.cooldownLeft = this.o.cooldown;
    if (old - reduced <= this.o.eps) return false;
    this.scale = reduced / base;
    return true;
  }

  override state(): LrSchedulerState {
    return { kind: this.kind, stepCount: this.stepCount, extra: { scale: this.scale, best: this.best, bad: this.bad, cooldownLeft: this.cooldownLeft } };
  }

  override loadState(state: LrSchedulerState): void {
    super.loadState(state);
    const e = state.extra ?? {};
    this.scale = e.scale ?? 1;
    this.best = e.best ?? this.best;
    this.bad = e.bad ?? 0;
    this.cooldownLeft = e.cooldownLeft ?? 0;
  }
}
