/**
 * The loss scale's rule (as torch.amp.GradScaler), apart from tensors so it can be tested
 * step by step: a step whose gradients overflowed (inf or NaN) is skipped and halves the scale;
 * after `growthInterval` good steps in a row the scale doubles, unless doubling would leave
 * float32's range. The scale is kept as a float32 value, as PyTorch keeps it in a float32 tensor.
 */
import { checkBoolean, checkInteger, checkKeys, checkOptions, field, show } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';

export interface LossScaleOptions {
  /** The first scale (default 2^16): a positive number that float32 holds as a finite nonzero value. */
  readonly initScale?: number;
  /** Multiplies the scale after `growthInterval` good steps (default 2; must be > 1). */
  readonly growthFactor?: number;
  /** Multiplies the scale after an overflow (default 0.5; in (0, 1)). */
  readonly backoffFactor?: number;
  /** Good steps in a row before the scale grows (default 2000; an integer >= 1). */
  readonly growthInterval?: number;
}

export interface LossScaleState {
  readonly scale: number;
  readonly goodSteps: number;
}

export const LOSS_SCALE_KEYS: readonly string[] = ['initScale', 'growthFactor', 'backoffFactor', 'growthInterval'];

/** A scale: a number whose float32 value is finite and > 0 (what scaleLoss multiplies by). */
function checkScale(op: string, name: string, v: unknown): number {
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(Math.fround(v)) || Math.fround(v) === 0) {
    throw new ArgumentError(`${name} must be a positive number that float32 holds as a finite nonzero value (at most about 3.4e38, at least about 1.4e-45), got ${show(v)}`, { op });
  }
  return Math.fround(v);
}

function checkFactor(op: string, name: string, v: unknown, ok: (v: number) => boolean, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new ArgumentError(`${name} must be ${what}, got ${show(v)}`, { op });
  return v;
}

export class LossScale {
  private current: number;
  private good = 0;
  private readonly growth: number;
  private readonly backoff: number;
  private readonly interval: number;
  /** The name errors carry: GradScaler passes its own, so its callers see the op they called. */
  private readonly op: string;

  constructor(options: LossScaleOptions = {}, op = 'LossScale') {
    this.op = op;
    checkOptions(op, options);
    checkKeys(op, options, LOSS_SCALE_KEYS);
    this.current = checkScale(op, 'initScale', options.initScale ?? 2 ** 16);
    // PyTorch's requirements: a growth that grows, a backoff that shrinks.
    this.growth = checkFactor(op, 'growthFactor', options.growthFactor ?? 2, (v) => v > 1, 'a finite number > 1');
    this.backoff = checkFactor(op, 'backoffFactor', options.backoffFactor ?? 0.5, (v) => v > 0 && v < 1, 'a number in (0, 1)');
    this.interval = checkInteger(op, 'growthInterval', options.growthInterval ?? 2000, 1);
  }

  get scale(): number {
    return this.current;
  }

  get state(): LossScaleState {
    return { scale: this.current, goodSteps: this.good };
  }

  /** Restores a `state`; checks all of it before changing anything. */
  load(state: LossScaleState): void {
    const op = `${this.op}.load`;
    const given: unknown = state;
    if (typeof given !== 'object' || given === null) throw new ArgumentError(`the state must be an object { scale, goodSteps }, got ${show(given)}`, { op, hint: 'pass what scaler.state gave' });
    const scale = checkScale(op, 'state.scale', field(given, 'scale'));
    const good = checkInteger(op, 'state.goodSteps', field(given, 'goodSteps'), 0);
    this.current = scale;
    this.good = good;
  }

  /** Records one step's outcome; returns whether the step may be applied (its gradients were finite). */
  update(overflow: boolean): boolean {
    checkBoolean(`${this.op}.update`, 'overflow', overflow);
    if (overflow) {
      this.current = Math.fround(this.current * this.backoff);
      this.good = 0;
      return false;
    }
    if (++this.good >= this.interval) {
      // As torch's _amp_update_scale_: a growth past float32's range is dropped (the scale stays),
      // else scaleLoss would give inf and every later step would be skipped.
      const grown = Math.fround(this.current * this.growth);
      if (Number.isFinite(grown)) this.current = grown;
      this.good = 0;
    }
    return true;
  }
}
