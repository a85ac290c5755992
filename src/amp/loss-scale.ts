/**
 * The loss scale's rule (as torch.cuda.amp.GradScaler), apart from tensors so it can be tested
 * step by step: a step whose gradients overflowed (inf or NaN) is skipped and halves the scale;
 * after `growthInterval` good steps in a row the scale doubles.
 */
import { checkOptions } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';

export interface LossScaleOptions {
  /** The first scale (default 2^16). */
  readonly initScale?: number;
  /** Multiplies the scale after `growthInterval` good steps (default 2). */
  readonly growthFactor?: number;
  /** Multiplies the scale after an overflow (default 0.5). */
  readonly backoffFactor?: number;
  /** Good steps in a row before the scale grows (default 2000). */
  readonly growthInterval?: number;
}

export interface LossScaleState {
  readonly scale: number;
  readonly goodSteps: number;
}

function check(name: string, v: number, ok: (v: number) => boolean, what: string): number {
  if (typeof v !== 'number' || !ok(v)) throw new ArgumentError(`${name} must be ${what}, got ${String(v)}`, { op: 'GradScaler' });
  return v;
}

export class LossScale {
  private current: number;
  private good = 0;
  private readonly growth: number;
  private readonly backoff: number;
  private readonly interval: number;

  constructor(options: LossScaleOptions = {}) {
    checkOptions('LossScale', options);
    this.current = check('initScale', options.initScale ?? 2 ** 16, (v) => Number.isFinite(v) && v > 0, 'a finite number > 0');
    this.growth = check('growthFactor', options.growthFactor ?? 2, (v) => Number.isFinite(v) && v >= 1, 'a finite number >= 1');
    this.backoff = check('backoffFactor', options.backoffFactor ?? 0.5, (v) => v > 0 && v < 1, 'a number in (0, 1)');
    this.interval = check('growthInterval', options.growthInterval ?? 2000, (v) => Number.isSafeInteger(v) && v >= 1, 'an integer >= 1');
  }

  get scale(): number {
    return this.current;
  }

  get state(): LossScaleState {
    return { scale: this.current, goodSteps: this.good };
  }

  load(state: LossScaleState): void {
    this.current = check('scale', state.scale, (v) => Number.isFinite(v) && v > 0, 'a finite number > 0');
    this.good = check('goodSteps', state.goodSteps, (v) => Number.isSafeInteger(v) && v >= 0, 'an integer >= 0');
  }

  /** Records one step's outcome; returns whether the step may be applied (its gradients were finite). */
  update(overflow: boolean): boolean {
    if (overflow) {
      this.current *= this.backoff;
      this.good = 0;
      return false;
    }
    if (++this.good >= this.interval) {
      this.current *= this.growth;
      this.good = 0;
    }
    return true;
  }
}
