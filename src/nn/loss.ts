/**
 * Classification losses (PyTorch's cross_entropy, nll_loss, binary_cross_entropy and
 * binary_cross_entropy_with_logits), written with tensor ops so autodiff differentiates them.
 * Regression and divergence losses are in regression-loss.ts.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import { zeros } from '../tensor/creation.js';
import { asIndexCaller } from '../tensor/index-scope.js';
import type { Tensor } from '../tensor/tensor.js';
import { isFloat } from '../ir/dtype.js';
import { checkInteger, checkOptions } from '../ir/validate.js';
import { checkOptionalTensors, checkTensors } from './check.js';
import { checkFloat } from './functional/args.js';
import { reduce, type Reduction } from './reduction.js';

export { mseLoss, l1Loss, smoothL1Loss, huberLoss, klDiv } from './regression-loss.js';
export type { Reduction } from './reduction.js';

type F<B extends Backend> = Tensor<B, 'float'>;
type I<B extends Backend> = Tensor<B, 'int'>;

export interface ClassLossOptions<B extends Backend> {
  /** A weight per class [C]: a sample counts with its class's weight (and 'mean' divides by the summed weights). */
  weight?: F<B> | undefined;
  /** Targets equal to this are skipped, and left out of the mean (default -100, as PyTorch). */
  ignoreIndex?: number;
  reduction?: Reduction;
}

export interface CrossEntropyOptions<B extends Backend> extends ClassLossOptions<B> {
  /** Mixes the target with the uniform distribution: (1 - s) onehot + s / C (default 0). */
  labelSmoothing?: number;
}

/** Logits [N, C, d...] with targets [N, d...] as rows [M, C] and [M]; classes on dim 1 as PyTorch. */
function rows<B extends Backend>(op: string, x: F<B>, target: Tensor<B>): { x: F<B>; target: Tensor<B>; restShape: number[] } {
  const shapes = [x.shape, target.shape];
  if (x.rank < 1) throw new ShapeError('the input must be [N, C] or [N, C, d...] (or [C])', { op, shapes });
  if (x.rank === 1) return { x: x.unsqueeze(0), target: target.rank === 0 ? target.reshape([1]) : target.unsqueeze(0), restShape: [] };
  const c = x.shape[1]!;
  if (x.rank === 2) return { x, target, restShape: [x.shape[0]!] };
  const dims = [0, ...Array.from({ length: x.rank - 2 }, (_, i) => i + 2), 1];
  return { x: x.permute(dims).reshape([-1, c]), target: target.rank === x.rank ? target.permute(dims).reshape([-1, c]) : target.reshape([-1]), restShape: [x.shape[0]!, ...x.shape.slice(2)] };
}

function checkIndexTargets<B extends Backend>(op: string, x: F<B>, target: Tensor<B>): void {
  const want = x.rank === 1 ? [] : [x.shape[0]!, ...x.shape.slice(2)];
  if (target.rank !== want.length || target.shape.some((d, i) => d !== want[i])) {
    throw new ShapeError(`class-index targets must be [${want.join(', ')}] for an input [${x.shape.join(', ')}] (classes on dim ${x.rank === 1 ? 0 : 1})`, { op, shapes: [x.shape, target.shape] });
  }
}

/** Float scores, an optional weight tensor and an integer ignoreIndex (torch's is an int). */
function checkClassOptions<B extends Backend>(op: string, x: F<B>, options: ClassLossOptions<B>): void {
  checkOptionalTensors(op, { weight: options.weight });
  checkFloat(op, x, options.weight);
  if (options.ignoreIndex !== undefined) checkInteger(op, 'ignoreIndex', options.ignoreIndex);
}

function checkWeight<B extends Backend>(op: string, weight: F<B> | undefined, c: number): void {
  if (weight && (weight.rank !== 1 || weight.shape[0] !== c)) throw new ShapeError(`weight must be [${c}] (one per class), got [${weight.shape.join(', ')}]`, { op, shapes: [weight.shape] });
}

/**
 * The weighted negative log-likelihood of `logp` rows [M, C] at `target` [M], with ignored
 * targets dropped: per-sample losses and per-sample weights (0 where ignored).
 */
function picked<B extends Backend>(op: string, logp: F<B>, target: I<B>, weight: F<B> | undefined, ignoreIndex: number): { losses: F<B>; weights: F<B>; ignored: Tensor<B, 'bool'> } {
  const ignored = target.equal(ignoreIndex);
  // Ignored targets read class 0; the others reach the gather as given, so an error shows the target.
  const safe = target.maskFill(ignored, 0);
  // An out-of-range target fails the gather (and the weight's indexSelect) naming the loss.
  return asIndexCaller({ name: op, what: 'target', of: 'classes' }, () => {
    // Without class weights, the kept rows' indicator in the scores' dtype (mul does not promote):
    // two ops where unit weights masked took three.
    const weights = weight ? weight.indexSelect(0, safe).maskFill(ignored, 0) : ignored.logicalNot().cast(logp.dtype);
    const losses = logp.gather(1, safe.unsqueeze(1)).reshape([-1]).neg().mul(weights);
    return { losses, weights, ignored };
  });
}

function finish<B extends Backend>(op: string, losses: F<B>, weights: F<B>, reduction: Reduction | undefined, restShape: number[], ignored: Tensor<B, 'bool'>): F<B> {
  const r = reduction ?? 'mean';
  // Ignored rows are masked rather than multiplied by their zero weight: their log-probability may
  // be -inf (0 * inf = NaN where torch has 0), and with every target ignored the mean is 0 / 0
  // (NaN, as torch) whose gradient 1 / 0 must reach no input (torch's is 0).
  const kept = losses.maskFill(ignored, 0);
  if (r === 'mean') return kept.sum().div(weights.sum());
  if (r === 'none') return kept.reshape(restShape);
  return reduce(op, kept, r);
}

/** torch.nn.functional.nll_loss: log-probabilities [N, C, d...] (or [C]) and class indices [N, d...]. */
export function nllLoss<B extends Backend>(logProbs: F<B>, target: I<B>, options: ClassLossOptions<B> = {}): F<B> {
  checkTensors('nllLoss', { input: logProbs, target: target });
  checkOptions('nllLoss', options);
  const op = 'nllLoss';
  checkClassOptions(op, logProbs, options);
  if (target.dtype !== 'int32') throw new DTypeError('targets must be int32 class indices', { op, dtypes: [target.dtype] });
  checkIndexTargets(op, logProbs, target);
  const c = logProbs.shape[logProbs.rank === 1 ? 0 : 1]!;
  checkWeight(op, options.weight, c);
  return tidy(() => {
    const r = rows(op, logProbs, target);
    const { losses, weights, ignored } = picked(op, r.x, r.target as I<B>, options.weight, options.ignoreIndex ?? -100);
    return finish(op, losses, weights, options.reduction, r.restShape, ignored);
  });
}

/**
 * torch.nn.functional.cross_entropy: logits [N, C, d...] (or [C]) against class indices
 * [N, d...] (int32) or class probabilities of the logits' shape and dtype, with class weights,
 * ignoreIndex (indices only) and label smoothing.
 */
export function crossEntropy<B extends Backend>(logits: F<B>, target: I<B> | F<B>, options: CrossEntropyOptions<B> = {}): F<B> {
  checkTensors('crossEntropy', { logits: logits, target: target });
  checkOptions('crossEntropy', options);
  const op = 'crossEntropy';
  checkClassOptions(op, logits, options);
  const s = options.labelSmoothing ?? 0;
  if (!(s >= 0 && s <= 1)) throw new ArgumentError(`labelSmoothing must be in [0, 1], got ${s}`, { op });
  const c = logits.shape[logits.rank === 1 ? 0 : 1];
  if (c === undefined) throw new ShapeError('the logits must be [N, C], [N, C, d...] or [C]', { op, shapes: [logits.shape, target.shape] });
  checkWeight(op, options.weight, c);
  if (isFloat(target.dtype)) {
    // Probabilities in the logits' dtype (float16 logits take float16 targets, as torch); named
    // here rather than by the mul inside.
    if (target.dtype !== logits.dtype) {
      throw new DTypeError(`probability targets must have the logits' dtype (${logits.dtype}), got ${target.dtype}`, { op, dtypes: [logits.dtype, target.dtype], hint: `cast them: target.cast('${logits.dtype}')` });
    }
    if (target.rank !== logits.rank || target.shape.some((d, i) => d !== logits.shape[i])) {
      throw new ShapeError('probability targets must have the logits\' shape', { op, shapes: [logits.shape, target.shape] });
    }
    return tidy(() => {
      const r = rows(op, logits, target);
      const logp = r.x.logSoftmax(1);
      let p = r.target as F<B>;
      if (s > 0) p = p.mul(1 - s).add(s / c);
      let terms = logp.mul(p);
      if (options.weight) terms = terms.mul(options.weight);
      const losses = terms.sum(1).neg();
      return options.reduction === 'none' ? losses.reshape(r.restShape) : reduce(op, losses, options.reduction);
    });
  }
  if (target.dtype !== 'int32') throw new DTypeError('targets must be int32 class indices or float probabilities', { op, dtypes: [target.dtype] });
  checkIndexTargets(op, logits, target);
  return tidy(() => {
    const r = rows(op, logits, target);
    const logp = r.x.logSoftmax(1);
    const ignoreIndex = options.ignoreIndex ?? -100;
    const { losses, weights, ignored } = picked(op, logp, r.target as I<B>, options.weight, ignoreIndex);
    if (s === 0) return finish(op, losses, weights, options.reduction, r.restShape, ignored);
    // The uniform part: -sum_c w_c log p_c / C per sample (0 where ignored), over the same denominator.
    const all = options.weight ? logp.mul(options.weight) : logp;
    const kept = (r.target as I<B>).notEqual(ignoreIndex).cast(logp.dtype);
    const smooth = all.sum(1).neg().mul(kept);
    const mixed = losses.mul(1 - s).add(smooth.mul(s / c));
    return finish(op, mixed, weights, options.reduction, r.restShape, ignored);
  });
}

export interface BinaryLossOptions<B extends Backend> {
  /** A weight per element, broadcast to the input. */
  weight?: F<B> | undefined;
  reduction?: Reduction;
}

function checkSame<B extends Backend>(op: string, x: F<B>, y: F<B>): void {
  if (x.rank !== y.rank || x.shape.some((d, i) => d !== y.shape[i])) throw new ShapeError('input and target must have one shape', { op, shapes: [x.shape, y.shape] });
}

/**
 * The broadcast of `shape` with the option tensor `t`'s shape, checked here so that a bad weight is
 * a ShapeError naming the loss and the option (the mul inside would only say 'not broadcastable').
 */
function broadcastOption<B extends Backend>(op: string, name: string, t: F<B> | undefined, shape: readonly number[], what: string): readonly number[] {
  if (!t) return shape;
  const rank = Math.max(shape.length, t.rank);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const a = shape[shape.length - rank + i] ?? 1;
    const b = t.shape[t.rank - rank + i] ?? 1;
    if (a !== b && a !== 1 && b !== 1) {
      throw new ShapeError(`${name} [${t.shape.join(', ')}] does not broadcast with the ${what} [${shape.join(', ')}] (dim ${i - rank}: ${b} vs ${a})`, {
        op,
        shapes: [shape, t.shape],
        hint: `${name}'s dims must equal the ${what}'s or be 1, aligned from the right`,
      });
    }
    out.push(a === 1 ? b : a);
  }
  return out;
}

/**
 * torch.nn.functional.binary_cross_entropy: probabilities in [0, 1]; each log is clamped at -100,
 * as PyTorch. A probability outside [0, 1] or NaN makes that loss and its gradient NaN (torch
 * raises, which needs a device sync; a loud NaN instead of a finite, wrong loss).
 */
export function binaryCrossEntropy<B extends Backend>(probs: F<B>, target: F<B>, options: BinaryLossOptions<B> = {}): F<B> {
  checkTensors('binaryCrossEntropy', { input: probs, target: target });
  checkOptions('binaryCrossEntropy', options);
  const op = 'binaryCrossEntropy';
  checkOptionalTensors(op, { weight: options.weight });
  checkFloat(op, options.weight);
  checkSame(op, probs, target);
  broadcastOption(op, 'weight', options.weight, probs.shape, 'input');
  return tidy(() => {
    // log clamped at -100 as torch; at p = 0 or 1 exactly the clamped side is the constant -100
    // through `where`, whose other branch reads a safe value: the gradient stays finite there
    // (log's 1/0 times the clamp's 0 was NaN, and one NaN spread to every parameter).
    const pos = probs.greater(0);
    const belowOne = probs.lower(1);
    const logP = probs.where(pos, 1).log().clampMin(-100).where(pos, -100);
    const log1mP = probs.where(belowOne, 0).neg().log1p().clampMin(-100).where(belowOne, -100);
    let losses = target.mul(logP).add(target.neg().add(1).mul(log1mP)).neg();
    // p * (0 inside [0, 1], NaN elsewhere): NaN in value and gradient where p is invalid, + 0 elsewhere.
    const valid = probs.greaterEqual(0).logicalAnd(probs.lowerEqual(1));
    const poison = zeros(probs.backend, [], { device: probs.device, dtype: probs.dtype }).where(valid, Number.NaN);
    losses = losses.add(probs.mul(poison));
    if (options.weight) losses = losses.mul(options.weight);
    return reduce(op, losses, options.reduction);
  });
}

/**
 * torch.nn.functional.binary_cross_entropy_with_logits: sigmoid and BCE in one stable
 * expression; `posWeight` [C] (broadcast over the last dim) weighs the positive term.
 */
export function binaryCrossEntropyWithLogits<B extends Backend>(logits: F<B>, target: F<B>, options: BinaryLossOptions<B> & { posWeight?: F<B> | undefined } = {}): F<B> {
  checkTensors('binaryCrossEntropyWithLogits', { logits: logits, target: target });
  checkOptions('binaryCrossEntropyWithLogits', options);
  const op = 'binaryCrossEntropyWithLogits';
  checkOptionalTensors(op, { weight: options.weight, posWeight: options.posWeight });
  checkFloat(op, options.weight, options.posWeight);
  checkSame(op, logits, target);
  // posWeight scales the target's term; weight then scales the losses, of the broadcast shape.
  const lossShape = broadcastOption(op, 'posWeight', options.posWeight, target.shape, 'target');
  broadcastOption(op, 'weight', options.weight, lossShape, lossShape.length === logits.rank && lossShape.every((d, i) => d === logits.shape[i]) ? 'input' : 'input broadcast with posWeight');
  return tidy(() => {
    // log(1 + exp(-x)) as softplus(-x): stable, and its gradient, -sigmoid(-x), is right at x = 0
    // (log1p(exp(-|x|)) + relu(-x) had abs' and relu's gradient 0 there).
    const softplusNeg = logits.neg().softplus();
    const scale = options.posWeight ? options.posWeight.sub(1).mul(target).add(1) : undefined;
    let losses = target.neg().add(1).mul(logits).add(scale ? scale.mul(softplusNeg) : softplusNeg);
    if (options.weight) losses = losses.mul(options.weight);
    return reduce(op, losses, options.reduction);
  });
}
