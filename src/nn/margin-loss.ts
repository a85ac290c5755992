/**
 * Margin and embedding losses (PyTorch's margin_ranking_loss, hinge_embedding_loss,
 * soft_margin_loss, multilabel_soft_margin_loss, cosine_embedding_loss, triplet_margin_loss,
 * multi_margin_loss), written as torch's ATen composites are, with tensor ops, so every backend
 * runs them and autodiff differentiates them. Hinges are clampMin(0) where torch clamps (the
 * gradient passes at a margin exactly hit) and relu where torch's kernel tests z > 0.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { isFloat } from '../ir/dtype.js';
import { broadcastShapes, sameShape } from '../ir/shape.js';
import { checkBoolean, checkKeys, checkNumber, checkOptions, field, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { checkOrder } from '../tensor/norms.js';
import { asIndexCaller } from '../tensor/index-scope.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkEps, checkOptionalTensors, checkTensors } from './check.js';
import { pairwiseDistance } from './functional/distance.js';
import { logSigmoid } from './functional/activation.js';
import { checkReduction, reduce, type Reduction } from './reduction.js';

type F<B extends Backend> = Tensor<B, 'float'>;
type I<B extends Backend> = Tensor<B, 'int'>;

/** The options object of `op`: an object with only `keys` (an unknown key, such as `size_average`, is refused as torch refuses it). */
export function lossOptions(op: string, options: unknown, keys: readonly string[]): Record<string, unknown> {
  const o = checkOptions(op, options);
  checkKeys(op, o, [...keys, 'reduction']);
  return o;
}

/** Float tensors of one dtype (a float16 input with a float32 target would only fail inside, naming mul). */
export function checkFloats(op: string, named: Readonly<Record<string, Tensor<Backend> | undefined>>): void {
  const list = Object.entries(named).filter((e): e is [string, Tensor<Backend>] => e[1] !== undefined);
  for (const [name, t] of list) {
    if (!isFloat(t.dtype)) throw new DTypeError(`${name} must be a float tensor, got ${t.dtype}`, { op, dtypes: [t.dtype], hint: "cast it with .cast('float32')" });
  }
  const first = list[0];
  for (const [name, t] of list) {
    if (first && t.dtype !== first[1].dtype) {
      throw new DTypeError(`${name} must have the ${first[0]}'s dtype (${first[1].dtype}), got ${t.dtype}`, { op, dtypes: list.map(([, v]) => v.dtype), hint: `cast it: .cast('${first[1].dtype}')` });
    }
  }
}

/** Tensors of one shape (torch warns and broadcasts; a mismatch is nearly always a bug, as for mseLoss here). */
export function checkOneShape(op: string, named: Readonly<Record<string, Tensor<Backend>>>): void {
  const list = Object.entries(named);
  const [n0, t0] = list[0]!;
  for (const [name, t] of list.slice(1)) {
    if (!sameShape(t.shape, t0.shape)) throw new ShapeError(`${name} must have the ${n0}'s shape [${t0.shape.join(', ')}], got [${t.shape.join(', ')}]`, { op, shapes: list.map(([, v]) => v.shape) });
  }
}

/** A finite margin (torch takes any float; NaN or a string would poison or break every loss). */
function margin(op: string, o: Record<string, unknown>, fallback: number): number {
  return checkNumber(op, 'margin', field(o, 'margin') ?? fallback, true);
}

/** -1 / 1 targets: float of the input's dtype or int32 (torch takes any numeric dtype). */
function checkSignTarget<B extends Backend>(op: string, input: F<B>, target: Tensor<B>): void {
  if (target.dtype !== 'int32' && target.dtype !== input.dtype) {
    throw new DTypeError(`target must hold 1 / -1 as int32 or in the input's dtype (${input.dtype}), got ${target.dtype}`, { op, dtypes: [input.dtype, target.dtype] });
  }
}

export interface MarginRankingLossOptions {
  /** Default 0. */
  margin?: number;
  reduction?: Reduction;
}

/**
 * torch.nn.functional.margin_ranking_loss: max(0, -target (input1 - input2) + margin), target 1
 * when input1 should rank higher, -1 when input2 should. The three have one rank and broadcast.
 */
export function marginRankingLoss<B extends Backend>(input1: F<B>, input2: F<B>, target: F<B>, options: MarginRankingLossOptions = {}): F<B> {
  const op = 'marginRankingLoss';
  checkTensors(op, { input1, input2, target });
  const o = lossOptions(op, options, ['margin']);
  const m = margin(op, o, 0);
  const reduction = checkReduction(op, field(o, 'reduction'));
  checkFloats(op, { input1, input2, target });
  if (input1.rank !== input2.rank || input1.rank !== target.rank) {
    throw new ShapeError('input1, input2 and target must have one rank', { op, shapes: [input1.shape, input2.shape, target.shape], hint: 'reshape them to one rank (torch refuses this too)' });
  }
  broadcastShapes(op, input1.shape, input2.shape, target.shape);
  return tidy(() => reduce(op, target.neg().mul(input1.sub(input2)).add(m).clampMin(0), reduction));
}

export interface HingeEmbeddingLossOptions {
  /** Default 1. */
  margin?: number;
  reduction?: Reduction;
}

/**
 * torch.nn.functional.hinge_embedding_loss: x where target is 1, max(0, margin - x) where it is
 * -1 (any other target value gets both terms, as torch's where(target != 1) + where(target != -1)).
 * input and target broadcast.
 */
export function hingeEmbeddingLoss<B extends Backend>(input: F<B>, target: F<B> | I<B>, options: HingeEmbeddingLossOptions = {}): F<B> {
  const op = 'hingeEmbeddingLoss';
  checkTensors(op, { input, target });
  const o = lossOptions(op, options, ['margin']);
  const m = margin(op, o, 1);
  const reduction = checkReduction(op, field(o, 'reduction'));
  checkFloats(op, { input });
  checkSignTarget(op, input, target);
  broadcastShapes(op, input.shape, target.shape);
  return tidy(() => {
    const hinge = input.neg().add(m).clampMin(0).where(target.notEqual(1), 0);
    return reduce(op, hinge.add(input.where(target.notEqual(-1), 0)), reduction);
  });
}

/**
 * torch.nn.functional.soft_margin_loss: log(1 + exp(-target input)), as softplus so that it stays
 * finite (torch's log1p(exp(z)) is inf past z = 88.7 and its gradient NaN; below, the two agree).
 * input and target have one shape.
 */
export function softMarginLoss<B extends Backend>(input: F<B>, target: F<B>, options: { reduction?: Reduction } = {}): F<B> {
  const op = 'softMarginLoss';
  checkTensors(op, { input, target });
  const o = lossOptions(op, options, []);
  const reduction = checkReduction(op, field(o, 'reduction'));
  checkFloats(op, { input, target });
  checkOneShape(op, { input, target });
  return tidy(() => reduce(op, input.neg().mul(target).softplus(), reduction));
}

export interface MultiLabelSoftMarginLossOptions<B extends Backend> {
  /** A weight per class (or any shape that broadcasts to the input's without growing it). */
  weight?: F<B> | undefined;
  reduction?: Reduction;
}

/**
 * torch.nn.functional.multilabel_soft_margin_loss: per sample, the mean over the classes (the
 * last dim) of -(t logsigmoid(x) + (1 - t) logsigmoid(-x)), times weight; 'none' gives one loss
 * per sample (the input's shape without its last dim).
 */
export function multiLabelSoftMarginLoss<B extends Backend>(input: F<B>, target: F<B>, options: MultiLabelSoftMarginLossOptions<B> = {}): F<B> {
  const op = 'multiLabelSoftMarginLoss';
  checkTensors(op, { input, target });
  const o = lossOptions(op, options, ['weight']);
  const weight = field(o, 'weight');
  checkOptionalTensors(op, { weight });
  const reduction = checkReduction(op, field(o, 'reduction'));
  const w = options.weight;
  checkFloats(op, { input, target, weight: w });
  checkOneShape(op, { input, target });
  if (input.rank === 0) throw new ShapeError('the input must be [C] or [N, C] (classes on the last dim), got a scalar', { op, shapes: [input.shape] });
  // Broadcasts to the input without growing it: each of weight's dims, aligned from the right, is the input's or 1.
  if (w && (w.rank > input.rank || w.shape.some((d, i) => d !== 1 && d !== input.shape[input.rank - w.rank + i]))) {
    throw new ShapeError(`weight [${w.shape.join(', ')}] must broadcast to the input's shape [${input.shape.join(', ')}]`, { op, shapes: [input.shape, w.shape], hint: 'give one weight per class, [C]' });
  }
  const c = input.shape[input.rank - 1]!;
  return tidy(() => {
    let losses = target.mul(logSigmoid(input)).add(target.neg().add(1).mul(logSigmoid(input.neg()))).neg();
    if (w) losses = losses.mul(w);
    return reduce(op, losses.sum(-1).div(c), reduction);
  });
}

export interface CosineEmbeddingLossOptions {
  /** Default 0 (torch suggests 0 to 0.5). */
  margin?: number;
  reduction?: Reduction;
}

/**
 * torch.nn.functional.cosine_embedding_loss: 1 - cos(x1, x2) where target is 1, max(0, cos - margin)
 * where it is -1, with torch's cos = sum(x1 x2) / sqrt((sum(x1^2) + 1e-12)(sum(x2^2) + 1e-12)).
 * Inputs [N, D] with target [N], or [D] with a scalar target.
 */
export function cosineEmbeddingLoss<B extends Backend>(input1: F<B>, input2: F<B>, target: F<B> | I<B>, options: CosineEmbeddingLossOptions = {}): F<B> {
  const op = 'cosineEmbeddingLoss';
  checkTensors(op, { input1, input2, target });
  const o = lossOptions(op, options, ['margin']);
  const m = margin(op, o, 0);
  const reduction = checkReduction(op, field(o, 'reduction'));
  checkFloats(op, { input1, input2 });
  checkSignTarget(op, input1, target);
  checkOneShape(op, { input1, input2 });
  const shapes = [input1.shape, input2.shape, target.shape];
  if (target.rank > 1) throw new ShapeError('target must be [N] or a scalar (one label per pair)', { op, shapes });
  if (input1.rank !== target.rank + 1) throw new ShapeError(`a target of rank ${target.rank} needs inputs of rank ${target.rank + 1} ([N, D] with [N], [D] with a scalar)`, { op, shapes });
  if (target.rank === 1 && target.shape[0] !== input1.shape[0]) throw new ShapeError(`target must have one label per row: [${input1.shape[0]}]`, { op, shapes });
  const d = target.rank;
  return tidy(() => {
    const eps = 1e-12;
    const dot = input1.mul(input2).sum(d);
    const mag1 = input1.mul(input1).sum(d).add(eps);
    const mag2 = input2.mul(input2).sum(d).add(eps);
    const cos = dot.div(mag1.mul(mag2).sqrt());
    // Masked fills where the label is not +-1 (cos has target's shape; a NaN label is in both).
    const pos = cos.neg().add(1).maskFill(target.notEqual(1), 0);
    const neg = cos.sub(m).clampMin(0).maskFill(target.notEqual(-1), 0);
    return reduce(op, pos.add(neg), reduction);
  });
}

export interface TripletMarginLossOptions {
  /** Default 1. */
  margin?: number;
  /** The distance's norm order (default 2). */
  p?: number;
  /** Added to the differences before the norm (default 1e-6), as pairwiseDistance. */
  eps?: number;
  /** Use min(d(a, n), d(p, n)) as the negative distance (Balntas et al.; default false). */
  swap?: boolean;
  reduction?: Reduction;
}

/**
 * torch.nn.functional.triplet_margin_loss: max(0, margin + d(a, p) - d(a, n)) with d the
 * pairwiseDistance over the last dim; anchor, positive and negative have one rank and broadcast.
 */
export function tripletMarginLoss<B extends Backend>(anchor: F<B>, positive: F<B>, negative: F<B>, options: TripletMarginLossOptions = {}): F<B> {
  const op = 'tripletMarginLoss';
  checkTensors(op, { anchor, positive, negative });
  const o = lossOptions(op, options, ['margin', 'p', 'eps', 'swap']);
  const m = margin(op, o, 1);
  const p = checkOrder(op, field(o, 'p') ?? 2);
  const eps = checkEps(op, field(o, 'eps') ?? 1e-6);
  const swap = checkBoolean(op, 'swap', field(o, 'swap') ?? false);
  const reduction = checkReduction(op, field(o, 'reduction'));
  checkFloats(op, { anchor, positive, negative });
  if (anchor.rank !== positive.rank || anchor.rank !== negative.rank) {
    throw new ShapeError(`anchor, positive and negative must have one rank, got ${anchor.rank}, ${positive.rank} and ${negative.rank}`, { op, shapes: [anchor.shape, positive.shape, negative.shape] });
  }
  if (anchor.rank === 0) throw new ShapeError('the inputs must be [N, D] or [D] (distances over the last dim), got scalars', { op, shapes: [anchor.shape, positive.shape, negative.shape] });
  broadcastShapes(op, anchor.shape, positive.shape, negative.shape);
  return tidy(() => {
    const dPos = pairwiseDistance(anchor, positive, { p, eps });
    let dNeg = pairwiseDistance(anchor, negative, { p, eps });
    if (swap) dNeg = dNeg.minimum(pairwiseDistance(positive, negative, { p, eps }));
    return reduce(op, dPos.add(m).sub(dNeg).clampMin(0), reduction);
  });
}

export interface MultiMarginLossOptions<B extends Backend> {
  /** 1 (default) or 2: the hinge or its square. */
  p?: 1 | 2;
  /** Default 1. */
  margin?: number;
  /** A weight per class [C]: each sample's terms are scaled by its target class's weight. */
  weight?: F<B> | undefined;
  reduction?: Reduction;
}

/**
 * torch.nn.functional.multi_margin_loss: per sample, sum over classes j != y of
 * max(0, margin - x[y] + x[j])^p, times weight[y], divided by C. Input [N, C] (or [C], or a
 * scalar as one class) with int32 targets [N] (or a scalar); 'none' gives [N] (a scalar for a
 * scalar target). A term exactly at the margin has gradient 0 (torch's kernel tests z > 0).
 */
export function multiMarginLoss<B extends Backend>(input: F<B>, target: I<B>, options: MultiMarginLossOptions<B> = {}): F<B> {
  const op = 'multiMarginLoss';
  checkTensors(op, { input, target });
  const o = lossOptions(op, options, ['p', 'margin', 'weight']);
  const weight = field(o, 'weight');
  checkOptionalTensors(op, { weight });
  const pv = field(o, 'p') ?? 1;
  if (pv !== 1 && pv !== 2) throw new ArgumentError(`p must be 1 or 2, got ${show(pv)}`, { op });
  const m = margin(op, o, 1);
  const reduction = checkReduction(op, field(o, 'reduction'));
  const w = options.weight;
  checkFloats(op, { input, weight: w });
  if (target.dtype !== 'int32') throw new DTypeError(`targets must be int32 class indices, got ${target.dtype}`, { op, dtypes: [input.dtype, target.dtype], hint: "cast them with .cast('int32')" });
  const shapes = [input.shape, target.shape];
  if (input.rank > 2) throw new ShapeError('the input must be [N, C] or [C]', { op, shapes });
  const n = input.rank === 2 ? input.shape[0]! : 1;
  const c = input.rank === 0 ? 1 : input.shape[input.rank - 1]!;
  if (c === 0) throw new ShapeError('the input must have at least one class', { op, shapes });
  if (target.rank > 1 || target.size !== n) throw new ShapeError(`target must hold ${n} class ${n === 1 ? 'index' : 'indices'} ([${n}]${n === 1 ? ' or a scalar' : ''})`, { op, shapes });
  if (w && (w.rank !== 1 || w.shape[0] !== c)) throw new ShapeError(`weight must be [${c}] (one per class), got [${w.shape.join(', ')}]`, { op, shapes: [input.shape, w.shape] });
  // An out-of-range target fails the gather, indexSelect and oneHot below naming this loss.
  return asIndexCaller({ name: op, what: 'target', of: 'classes' }, () =>
    tidy(() => {
      const x = input.reshape([n, c]);
      const t = target.reshape([n]);
      // (margin - x[y]) + x[j], in torch's order of rounding.
      const z = x.gather(1, t.unsqueeze(1)).neg().add(m).add(x);
      let h = z.relu();
      if (pv === 2) h = h.square();
      if (w) h = h.mul(w.indexSelect(0, t).unsqueeze(1));
      const losses = h.maskFill(t.oneHot(c).equal(1), 0).sum(1).div(c);
      return reduce(op, target.rank === 0 ? losses.reshape([]) : losses, reduction);
    }),
  );
}
