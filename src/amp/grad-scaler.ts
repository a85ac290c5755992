/**
 * Loss scaling for float16 training (torch.cuda.amp.GradScaler): the loss is multiplied by the
 * scale before backward, so small gradients survive float16; `step` divides the gradients by
 * it, skips the optimizer step when any gradient is inf or NaN, and moves the scale (loss-scale.ts).
 */
import { ArgumentError } from '../errors.js';
import { checkBoolean, checkKeys, checkNumber, checkOptions, field, show } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import type { Module } from '../nn/module.js';
import { refuseLBFGS } from '../optim/lbfgs.js';
import type { LrScheduler } from '../optim/lr-scheduler.js';
import type { Optimizer } from '../optim/optimizer.js';
import type { ParamGrads } from '../optim/param-grads.js';
import { checkTensor, type Tensor } from '../tensor/tensor.js';
import { LOSS_SCALE_KEYS, LossScale, type LossScaleOptions, type LossScaleState } from './loss-scale.js';

export interface GradScalerOptions extends LossScaleOptions {
  /** false: scale 1, no checks, every step applied (one flag to turn mixed precision off). */
  readonly enabled?: boolean;
}

export class GradScaler {
  private readonly rule: LossScale;
  readonly enabled: boolean;

  constructor(options: GradScalerOptions = {}) {
    checkOptions('GradScaler', options);
    checkKeys('GradScaler', options, [...LOSS_SCALE_KEYS, 'enabled']);
    const { enabled = true, ...rule } = options;
    this.enabled = checkBoolean('GradScaler', 'enabled', enabled);
    this.rule = new LossScale(rule, 'GradScaler');
  }

  /** The scale the next `scaleLoss` applies. */
  get scale(): number {
    return this.enabled ? this.rule.scale : 1;
  }

  get state(): LossScaleState {
    return this.rule.state;
  }

  load(state: LossScaleState): void {
    this.rule.load(state);
  }

  /** The loss times the scale: call backward on this. */
  scaleLoss<B extends Backend>(loss: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensor('GradScaler.scaleLoss', 'the loss', loss);
    return this.enabled ? loss.mul(this.rule.scale) : loss.mul(1);
  }

  /**
   * Divides `grads` by the scale (in place), then steps `optimizer` unless a gradient is inf or
   * NaN, and updates the scale. Reads one number per gradient from its device. Resolves to
   * whether the step was applied.
   */
  async step<B extends Backend>(optimizer: Optimizer<B>, module: Module<B>, grads: ParamGrads<B>, rate?: number | LrScheduler): Promise<boolean> {
    // Every argument first: the gradients are unscaled in place and the scale moves before the
    // optimizer would check them, so a bad one found there would leave both changed.
    checkStepArgs(optimizer, module, grads, rate);
    if (!this.enabled) {
      optimizer.step(module, grads, rate);
      return true;
    }
    const inv = 1 / this.rule.scale;
    // x * 0 is 0 for finite x and NaN for inf and NaN: one sum per gradient tells them apart.
    const probes: Array<Tensor<B, 'float'>> = [];
    for (const [id, g] of grads.entries()) {
      const u = g.mul(inv);
      grads.set(id, u);
      probes.push(u.mul(0).sum());
    }
    const sums = await Promise.all(probes.map((p) => p.item()));
    for (const p of probes) p.dispose();
    const overflow = sums.some((s) => !Number.isFinite(s));
    const apply = this.rule.update(overflow);
    if (apply) optimizer.step(module, grads, rate);
    return apply;
  }
}

/** What `step` needs of its arguments (untyped callers may pass anything). */
function checkStepArgs(optimizer: unknown, module: unknown, grads: unknown, rate: unknown): void {
  const op = 'GradScaler.step';
  const hint = 'scaler.step(optimizer, model, ParamGrads.from(scaler.scaleLoss(loss).backward(), model), rate?)';
  if (typeof field(optimizer, 'step') !== 'function') throw new ArgumentError(`the first argument must be an optimizer (SGD, Adam, ...), got ${show(optimizer)}`, { op, hint });
  refuseLBFGS(op, optimizer);
  if (typeof field(module, 'params') !== 'function') throw new ArgumentError(`the second argument must be the module to step, got ${show(module)}`, { op, hint });
  if (typeof field(grads, 'entries') !== 'function' || typeof field(grads, 'set') !== 'function' || typeof field(grads, 'get') !== 'function') {
    throw new ArgumentError(`the gradients must be a ParamGrads, got ${show(grads)}`, { op, hint });
  }
  if (rate === undefined || typeof field(rate, 'next') === 'function') return;
  if (typeof rate !== 'number') throw new ArgumentError(`the rate must be a number or a learning-rate scheduler, got ${show(rate)}`, { op, hint: 'leave it out to use the optimizer\'s lr or scheduler' });
  checkNumber(op, 'the rate', rate, true);
}
