/** Regression and divergence losses (PyTorch's mse_loss, l1_loss, smooth_l1_loss, huber_loss, kl_div). */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkOptions } from '../ir/validate.js';
import { checkTensors } from './check.js';
import { reduce, type Reduction } from './reduction.js';

type F<B extends Backend> = Tensor<B, 'float'>;

function diff<B extends Backend>(op: string, x: F<B>, y: F<B>): F<B> {
  if (x.rank !== y.rank || x.shape.some((d, i) => d !== y.shape[i])) throw new ShapeError('input and target must have one shape', { op, shapes: [x.shape, y.shape] });
  return x.sub(y);
}

/** Mean squared error. */
export function mseLoss<B extends Backend>(prediction: F<B>, target: F<B>, options: { reduction?: Reduction } = {}): F<B> {
  checkTensors('mseLoss', { prediction, target });
  checkOptions('mseLoss', options);
  return tidy(() => reduce('mseLoss', diff('mseLoss', prediction, target).square(), options.reduction));
}

/** Mean absolute error. */
export function l1Loss<B extends Backend>(prediction: F<B>, target: F<B>, options: { reduction?: Reduction } = {}): F<B> {
  checkTensors('l1Loss', { prediction, target });
  checkOptions('l1Loss', options);
  return tidy(() => reduce('l1Loss', diff('l1Loss', prediction, target).abs(), options.reduction));
}

/** 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta default 1; beta 0 is the L1 loss). */
export function smoothL1Loss<B extends Backend>(prediction: F<B>, target: F<B>, options: { beta?: number; reduction?: Reduction } = {}): F<B> {
  checkTensors('smoothL1Loss', { prediction, target });
  checkOptions('smoothL1Loss', options);
  const beta = options.beta ?? 1;
  if (!(beta >= 0)) throw new ArgumentError(`beta must be >= 0, got ${beta}`, { op: 'smoothL1Loss' });
  return tidy(() => {
    const a = diff('smoothL1Loss', prediction, target).abs();
    const losses = beta === 0 ? a : a.square().mul(0.5 / beta).where(a.lower(beta), a.sub(0.5 * beta));
    return reduce('smoothL1Loss', losses, options.reduction);
  });
}

/** 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (delta default 1): delta times smoothL1Loss with beta = delta. */
export function huberLoss<B extends Backend>(prediction: F<B>, target: F<B>, options: { delta?: number; reduction?: Reduction } = {}): F<B> {
  checkTensors('huberLoss', { prediction, target });
  checkOptions('huberLoss', options);
  const delta = options.delta ?? 1;
  if (!(delta > 0)) throw new ArgumentError(`delta must be > 0, got ${delta}`, { op: 'huberLoss' });
  return tidy(() => {
    const a = diff('huberLoss', prediction, target).abs();
    return reduce('huberLoss', a.square().mul(0.5).where(a.lower(delta), a.sub(0.5 * delta).mul(delta)), options.reduction);
  });
}

/**
 * torch.nn.functional.kl_div: `input` holds log-probabilities, `target` probabilities (or
 * log-probabilities with `logTarget`); pointwise xlogy(target, target) - target input as torch (0 log 0 = 0;
 * a target of 0 at an input of -Infinity is NaN, as torch).
 * 'batchmean' divides the sum by the batch size (the KL divergence; PyTorch's 'mean' divides by
 * every element).
 */
export function klDiv<B extends Backend>(input: F<B>, target: F<B>, options: { reduction?: Reduction | 'batchmean'; logTarget?: boolean } = {}): F<B> {
  checkTensors('klDiv', { input, target });
  checkOptions('klDiv', options);
  const op = 'klDiv';
  diff(op, input, target).dispose();
  return tidy(() => {
    let losses: F<B>;
    if (options.logTarget) losses = target.exp().mul(target.sub(input));
    else {
      // torch's xlogy(t, t) - t * input: 0 log 0 = 0, but 0 * input stays NaN for an infinite input.
      const logT = target.maskFill(target.equal(0), 1).log();
      losses = target.mul(logT).sub(target.mul(input));
    }
    if (options.reduction === 'batchmean') return losses.sum().div(input.rank === 0 ? 1 : input.shape[0]!);
    return reduce(op, losses, options.reduction);
  });
}
