/**
 * Dropout as functions (torch.nn.functional.dropout, dropout1d / 2d / 3d, alpha_dropout,
 * feature_alpha_dropout). Masks are Bernoulli draws from the device's seeded stream (`random`), so
 * `b.seed(n)` makes them reproducible; the channel forms draw one value per channel and broadcast it.
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { checkBoolean, show } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { Distribution, random } from '../../tensor/creation.js';
import { asDType } from '../../tensor/precision.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** A dropout probability: a number in [0, 1] (1 drops everything, as torch allows). */
export function checkDropout(op: string, p: unknown, name = 'dropout probability'): number {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new ArgumentError(`${name} must be a number in [0, 1], got ${show(p)}`, { op });
  return p;
}

/** SELU's scale * alpha: the value alpha dropout's dropped units take before its affine correction (torch's constant). */
const SELU_ALPHA = 1.7580993408473766;

/**
 * x with a Bernoulli(1 - p) mask of shape `mask` (x's shape, or its leading dims then ones) applied:
 * inverted dropout (kept values / (1 - p)), or with `alpha` torch's alpha dropout (kept a x + A a p,
 * dropped -A a (1 - p), a = 1 / sqrt((A^2 p + 1)(1 - p)): zero mean, unit variance kept for SELU outputs).
 */
function masked<B extends Backend>(op: string, x: F<B>, p: number, training: boolean, mask: readonly number[], alpha: boolean): F<B> {
  checkDropout(op, p);
  checkBoolean(op, 'training', training);
  if (!training || p === 0) return x;
  // x * 0, not a fresh zeros tensor: the gradient stays connected (zeros), NaN and Infinity give NaN as torch's.
  if (p === 1) return x.mul(0);
  return tidy(() => {
    const drawn = random(x.backend, mask, Distribution.Bernoulli(1 - p), { device: x.device });
    // random() draws float32; the 0 / 1 mask is exact in any float dtype, and mul needs the input's.
    const keep = asDType(drawn, x.dtype);
    if (!alpha) return x.mul(keep.mul(1 / (1 - p)));
    const a = 1 / Math.sqrt((SELU_ALPHA * SELU_ALPHA * p + 1) * (1 - p));
    // torch's form: x * (keep a) + (keep - 1) A a + A a p.
    const shift = keep.sub(1).mul(SELU_ALPHA * a).add(SELU_ALPHA * a * p);
    return x.mul(keep.mul(a)).add(shift);
  }, x.backend.runtime);
}

/**
 * While `training`, zeroes each element with probability p and scales the rest by 1 / (1 - p);
 * otherwise returns x itself. p = 1 gives zeros (and a zero gradient), as torch.
 */
export function dropout<B extends Backend>(x: F<B>, p: number, training = true): F<B> {
  checkTensors('dropout', { input: x });
  return masked('dropout', x, p, training, x.shape, false);
}

/**
 * Channel dropout over `spatial` trailing dims: x is [N, C, ...spatial] or unbatched [C, ...spatial];
 * one draw per (sample, channel). Other ranks are a ShapeError (torch warns and guesses for some).
 */
function channelDropout<B extends Backend>(op: string, x: F<B>, p: number, training: boolean, spatial: number, alpha: boolean): F<B> {
  checkTensors(op, { input: x });
  if (x.rank !== spatial + 1 && x.rank !== spatial + 2) {
    const dims = ['L', 'H, W', 'D, H, W'][spatial - 1]!;
    throw new ShapeError(`the input must be [N, C, ${dims}] or unbatched [C, ${dims}] (rank ${spatial + 2} or ${spatial + 1}), got rank ${x.rank}`, {
      op,
      shapes: [x.shape],
      hint: spatial === 1 ? 'dropout1d is for [N, C, L] inputs; use dropout for element-wise dropout' : `use ${spatial === 3 ? 'dropout1d or dropout2d' : `dropout${spatial - 1}d or dropout${spatial + 1}d`} for another number of spatial dims, or dropout for element-wise dropout`,
    });
  }
  const kept = x.rank - spatial;
  return masked(op, x, p, training, x.shape.map((d, i) => (i < kept ? d : 1)), alpha);
}

/** torch.nn.functional.dropout1d: zeroes whole channels of [N, C, L] (or [C, L]) with probability p, scaling the rest by 1 / (1 - p). */
export function dropout1d<B extends Backend>(x: F<B>, p = 0.5, training = true): F<B> {
  return channelDropout('dropout1d', x, p, training, 1, false);
}

/**
 * torch.nn.functional.dropout2d on [N, C, H, W] or unbatched [C, H, W]. torch 1.13 / 2.x read a
 * rank-3 input as [N, C, L] (with a warning that this will change); here it is [C, H, W], as documented.
 */
export function dropout2d<B extends Backend>(x: F<B>, p = 0.5, training = true): F<B> {
  return channelDropout('dropout2d', x, p, training, 2, false);
}

/** torch.nn.functional.dropout3d on [N, C, D, H, W] or unbatched [C, D, H, W]. */
export function dropout3d<B extends Backend>(x: F<B>, p = 0.5, training = true): F<B> {
  return channelDropout('dropout3d', x, p, training, 3, false);
}

/** torch.nn.functional.alpha_dropout: element-wise alpha dropout (keeps the mean and variance of SELU's outputs), any rank. */
export function alphaDropout<B extends Backend>(x: F<B>, p = 0.5, training = false): F<B> {
  checkTensors('alphaDropout', { input: x });
  return masked('alphaDropout', x, p, training, x.shape, true);
}

/**
 * torch.nn.functional.feature_alpha_dropout: alpha dropout of whole channels, one draw per entry of
 * dims 0 and 1 (rank 2 or more), as torch's kernel: an unbatched [C, ...] input needs unsqueeze(0).
 */
export function featureAlphaDropout<B extends Backend>(x: F<B>, p = 0.5, training = false): F<B> {
  const op = 'featureAlphaDropout';
  checkTensors(op, { input: x });
  if (x.rank < 2) throw new ShapeError(`the input must be [N, C, *] (rank 2 or more), got rank ${x.rank}`, { op, shapes: [x.shape], hint: 'use alphaDropout for element-wise alpha dropout' });
  return masked(op, x, p, training, x.shape.map((d, i) => (i < 2 ? d : 1)), true);
}
