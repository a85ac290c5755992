/**
 * Norm-based functions (torch.nn.functional.normalize / cosine_similarity / pairwise_distance),
 * written as torch's ATen composites are, on Tensor.norm, so gradients come from the parts.
 */
import type { Backend } from '../../backends/backend.js';
import { broadcastShapes, normDim } from '../../ir/shape.js';
import { checkBoolean, checkInteger, checkIntegers, checkKeys, checkNumber, checkOptions, field } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { checkOrder } from '../../tensor/norms.js';
import { coveredDims } from '../../tensor/reductions.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkEps, checkTensors } from '../check.js';
import { checkFloat } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface NormalizeOptions {
  /** The norm's order (default 2): as Tensor.norm. */
  readonly p?: number;
  /** The dim (or dims) normalised over (default 1). */
  readonly dim?: number | readonly number[];
  /** The smallest divisor (default 1e-12). */
  readonly eps?: number;
}

export interface CosineSimilarityOptions {
  /** The dim of the broadcast shape compared along (default 1); it is removed from the result. */
  readonly dim?: number;
  /** The smallest each norm is clamped to (default 1e-8). */
  readonly eps?: number;
}

export interface PairwiseDistanceOptions {
  /** The norm's order (default 2). */
  readonly p?: number;
  /** Added to the difference before the norm (default 1e-6), as torch. */
  readonly eps?: number;
  readonly keepDims?: boolean;
}

/** The options of `op`, checked for untyped callers (unknown keys are refused, as torch refuses unknown keywords). */
function options(op: string, o: unknown, keys: readonly string[]): Record<string, unknown> {
  const r = checkOptions(op, o);
  checkKeys(op, r, keys);
  return r;
}

/** torch.nn.functional.normalize: x / max(||x||_p over dim, eps), the norm broadcast back over dim. */
export function normalize<B extends Backend>(x: F<B>, opts: NormalizeOptions = {}): F<B> {
  const op = 'normalize';
  checkTensors(op, { input: x });
  const o = options(op, opts, ['p', 'dim', 'eps']);
  const p = checkOrder(op, field(o, 'p') ?? 2);
  const dimArg = field(o, 'dim') ?? 1;
  const dim = Array.isArray(dimArg) ? checkIntegers(op, 'dim', dimArg) : checkInteger(op, 'dim', dimArg);
  const eps = checkEps(op, field(o, 'eps') ?? 1e-12);
  checkFloat(op, x);
  x.live(op);
  // Checked here so that a bad dim names normalize, not the norm inside it.
  coveredDims(op, dim, x.shape);
  return tidy(() => x.div(x.norm(p, dim, true).clampMin(eps)), x.backend.runtime);
}

/**
 * torch.nn.functional.cosine_similarity as torch 2.x computes it: a and b broadcast, each
 * divided by its 2-norm over `dim` clamped to at least eps, then the products summed over `dim`.
 * torch clamps the norms under no_grad, so the gradient flows through the unclamped norm; the
 * clamp here is likewise a detached correction added to the norm.
 */
export function cosineSimilarity<B extends Backend>(a: F<B>, b: F<B>, opts: CosineSimilarityOptions = {}): F<B> {
  const op = 'cosineSimilarity';
  checkTensors(op, { x1: a, x2: b });
  const o = options(op, opts, ['dim', 'eps']);
  const dim = checkInteger(op, 'dim', field(o, 'dim') ?? 1);
  const eps = checkEps(op, field(o, 'eps') ?? 1e-8);
  checkFloat(op, a, b);
  a.live(op);
  b.live(op);
  const shape = broadcastShapes(op, a.shape, b.shape);
  normDim(op, dim, shape.length, shape);
  return tidy(() => {
    const [x1, x2] = [a.expand(shape), b.expand(shape)];
    const unit = (x: F<B>): F<B> => {
      const n = x.norm(2, dim, true);
      const frozen = n.detach();
      // eps - n where n < eps, else exactly 0 (an infinite norm stays inf: inf - inf would be NaN).
      const lift = frozen.neg().add(eps).where(frozen.lower(eps), 0);
      return x.div(n.add(lift));
    };
    return unit(x1).mul(unit(x2)).sum(dim);
  }, a.backend.runtime);
}

/** torch.nn.functional.pairwise_distance: ||a - b + eps||_p over the last dim of the broadcast shape. */
export function pairwiseDistance<B extends Backend>(a: F<B>, b: F<B>, opts: PairwiseDistanceOptions = {}): F<B> {
  const op = 'pairwiseDistance';
  checkTensors(op, { x1: a, x2: b });
  const o = options(op, opts, ['p', 'eps', 'keepDims']);
  const p = checkOrder(op, field(o, 'p') ?? 2);
  // Any finite shift (torch does not check its sign).
  const eps = checkNumber(op, 'eps', field(o, 'eps') ?? 1e-6, true);
  const keepDims = checkBoolean(op, 'keepDims', field(o, 'keepDims') ?? false);
  checkFloat(op, a, b);
  a.live(op);
  b.live(op);
  broadcastShapes(op, a.shape, b.shape);
  return tidy(() => a.sub(b).add(eps).norm(p, -1, keepDims), a.backend.runtime);
}
