/**
 * Negative log-likelihood losses of distributions (PyTorch's poisson_nll_loss and
 * gaussian_nll_loss), with tensor ops so every backend runs them and autodiff differentiates them.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { broadcastShapes, sameShape } from '../ir/shape.js';
import { checkBoolean, checkNumber, field, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { full } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { checkTensors } from './check.js';
import { checkFloats, checkOneShape, lossOptions } from './margin-loss.js';
import { checkReduction, reduce, type Reduction } from './reduction.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface PoissonNllLossOptions {
  /** The input is log(rate) (default true): exp(x) - t x; else the rate: x - t log(x + eps). */
  logInput?: boolean;
  /** Add Stirling's approximation of log(t!), t log t - t + log(2 pi t) / 2, where t > 1 (default false). */
  full?: boolean;
  /** Keeps log(x + eps) finite at a rate of 0 when logInput is false (default 1e-8). */
  eps?: number;
  reduction?: Reduction;
}

/** torch.nn.functional.poisson_nll_loss: input and target of one shape. */
export function poissonNllLoss<B extends Backend>(input: F<B>, target: F<B>, options: PoissonNllLossOptions = {}): F<B> {
  const op = 'poissonNllLoss';
  checkTensors(op, { input, target });
  const o = lossOptions(op, options, ['logInput', 'full', 'eps']);
  const logInput = checkBoolean(op, 'logInput', field(o, 'logInput') ?? true);
  const withStirling = checkBoolean(op, 'full', field(o, 'full') ?? false);
  const eps = checkNumber(op, 'eps', field(o, 'eps') ?? 1e-8, true);
  const reduction = checkReduction(op, field(o, 'reduction'));
  checkFloats(op, { input, target });
  checkOneShape(op, { input, target });
  return tidy(() => {
    let losses = logInput ? input.exp().sub(target.mul(input)) : input.sub(target.mul(input.add(eps).log()));
    if (withStirling) {
      // torch's masked_fill(target <= 1, 0); the masked targets read 2 so that log(0) leaves no
      // NaN in a target's gradient (a NaN target is not masked and stays NaN, as torch).
      const small = target.lowerEqual(1);
      const t = target.maskFill(small, 2);
      const stirling = t.mul(t.log()).sub(t).add(t.mul(2 * Math.PI).log().mul(0.5));
      losses = losses.add(stirling.maskFill(small, 0));
    }
    return reduce(op, losses, reduction);
  });
}

export interface GaussianNllLossOptions {
  /** Add the constant log(2 pi) / 2 (default false). */
  full?: boolean;
  /** The smallest variance used (default 1e-6): var is clamped to it, its gradient passing as if unclamped (torch's no_grad clamp). */
  eps?: number;
  reduction?: Reduction;
}

/**
 * var as torch 2.x shapes it: the input's shape; the input's shape without its last dim
 * (unsqueezed); or the input's rank with exactly one dim of size 1 where the input's differs.
 */
function varNeedsUnsqueeze(op: string, input: readonly number[], v: readonly number[]): boolean {
  if (sameShape(v, input)) return false;
  if (input.length > 0 && sameShape(v, input.slice(0, -1))) return true;
  // torch's test: the var sizes at the mismatched dims sum to 1.
  if (v.length === input.length && v.reduce((s, d, i) => (d === input[i] ? s : s + d), 0) === 1) return false;
  throw new ShapeError(`var [${v.join(', ')}] is of incorrect size for the input [${input.join(', ')}]`, {
    op,
    shapes: [input, v],
    hint: "give var the input's shape, that shape without its last dim, or with one dim of size 1",
  });
}

/**
 * torch.nn.functional.gaussian_nll_loss: (log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2
 * (+ log(2 pi) / 2 with `full`). var is a tensor (see the shapes torch takes, above) or a number
 * >= 0; the gradient reaches var also where the clamp holds it at eps, as torch's. A negative
 * variance in a tensor makes its losses NaN (torch raises, which needs a device sync).
 */
export function gaussianNllLoss<B extends Backend>(input: F<B>, target: F<B>, variance: F<B> | number, options: GaussianNllLossOptions = {}): F<B> {
  const op = 'gaussianNllLoss';
  checkTensors(op, { input, target });
  const o = lossOptions(op, options, ['full', 'eps']);
  const withConstant = checkBoolean(op, 'full', field(o, 'full') ?? false);
  const eps = checkNumber(op, 'eps', field(o, 'eps') ?? 1e-6, true);
  const reduction = checkReduction(op, field(o, 'reduction'));
  const given: unknown = variance;
  if (!(given instanceof Tensor) && typeof given !== 'number') throw new ArgumentError(`var must be a tensor or a number, got ${show(given)}`, { op });
  if (typeof variance === 'number' && variance < 0) throw new ArgumentError(`var must be >= 0, got ${variance}`, { op });
  checkFloats(op, { input, target, var: typeof variance === 'number' ? undefined : variance });
  const unsqueeze = typeof variance !== 'number' && varNeedsUnsqueeze(op, input.shape, variance.shape);
  const vShape = typeof variance === 'number' ? input.shape : unsqueeze ? [...variance.shape, 1] : variance.shape;
  broadcastShapes(op, input.shape, target.shape, vShape);
  return tidy(() => {
    const raw = typeof variance === 'number' ? full(input.backend, input.shape, variance, { device: input.device, dtype: input.dtype }) : unsqueeze ? variance.unsqueeze(-1) : variance;
    // NaN where var < 0 (no gradient reaches var there; input's is NaN); a NaN var stays NaN.
    const v = raw.maskFill(raw.lower(0), Number.NaN);
    // The clamped value exactly, plus a zero that carries the gradient where the clamp holds.
    const frozen = v.detach();
    const clamped = v.clampMin(eps).add(v.sub(frozen).where(frozen.lower(eps), 0));
    let losses = clamped.log().add(input.sub(target).square().div(clamped)).mul(0.5);
    if (withConstant) losses = losses.add(0.5 * Math.log(2 * Math.PI));
    return reduce(op, losses, reduction);
  });
}
