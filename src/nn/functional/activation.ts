/** Activations as functions (torch.nn.functional), from tensor ops so autodiff differentiates them. */
import type { Backend } from '../../backends/backend.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';
import { ArgumentError, DTypeError, ShapeError } from '../../errors.js';
import { normDim } from '../../ir/shape.js';
import { checkInteger, checkNumber, show } from '../../ir/validate.js';
import { checkTensors } from '../check.js';
import { checkFloat } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** x * sigmoid(x) (torch.nn.functional.silu, also called swish). */
export function silu<B extends Backend>(x: F<B>): F<B> {
  checkTensors('silu', { input: x });
  return tidy(() => x.mul(x.sigmoid()));
}

/** x where x > 0, else slope * x (torch.nn.functional.leaky_relu, slope default 0.01). */
export function leakyRelu<B extends Backend>(x: F<B>, negativeSlope = 0.01): F<B> {
  checkTensors('leakyRelu', { input: x });
  return x.leakyRelu(negativeSlope);
}

/**
 * log(1 + exp(beta x)) / beta, linear above `threshold` (torch.nn.functional.softplus). The
 * tensor op: its gradient is sigmoid(beta x) everywhere, 0.5 at x = 0 included.
 */
export function softplus<B extends Backend>(x: F<B>, beta = 1, threshold = 20): F<B> {
  checkTensors('softplus', { input: x });
  return x.softplus(beta, threshold);
}

/**
 * x on [lo, hi] (open, or `closed`), else x clamped there as a constant: the gradient is 1 inside
 * and 0 outside, with the kinks on the side torch's backward puts them.
 */
function linearBetween<B extends Backend>(x: F<B>, lo: number, hi: number, closed: boolean, nanInside = false): F<B> {
  // nanInside: "not at or beyond a bound" (torch's hardtanh backward), which a NaN is, so its gradient passes.
  const inside = nanInside ? x.lowerEqual(lo).logicalOr(x.greaterEqual(hi)).logicalNot() : closed ? x.greaterEqual(lo).logicalAnd(x.lowerEqual(hi)) : x.greater(lo).logicalAnd(x.lower(hi));
  return x.where(inside, x.clamp(lo, hi).detach());
}

/** GELU (torch.nn.functional.gelu): exact (erf) by default, or 'tanh': 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). */
export function gelu<B extends Backend>(x: F<B>, approximate: 'none' | 'tanh' = 'none'): F<B> {
  checkTensors('gelu', { input: x });
  if (approximate === 'none') return x.gelu();
  if (approximate !== 'tanh') throw new ArgumentError(`approximate must be 'none' or 'tanh', got ${show(approximate)}`, { op: 'gelu' });
  return tidy(() => x.mul(x.square().mul(0.044715).add(1).mul(x).mul(Math.sqrt(2 / Math.PI)).tanh().add(1)).mul(0.5));
}

/** min(max(x, minVal), maxVal) (torch.nn.functional.hardtanh, default [-1, 1]); gradient 0 at the kinks and beyond, 1 elsewhere (a NaN's too), as torch. */
export function hardtanh<B extends Backend>(x: F<B>, minVal = -1, maxVal = 1): F<B> {
  checkTensors('hardtanh', { input: x });
  checkNumber('hardtanh', 'minVal', minVal, true);
  checkNumber('hardtanh', 'maxVal', maxVal, true);
  if (!(maxVal > minVal)) throw new ArgumentError(`maxVal must be greater than minVal, got [${minVal}, ${maxVal}]`, { op: 'hardtanh' });
  return tidy(() => linearBetween(x, minVal, maxVal, false, true));
}

/** min(max(x, 0), 6) (torch.nn.functional.relu6: hardtanh(x, 0, 6), gradients included). */
export function relu6<B extends Backend>(x: F<B>): F<B> {
  checkTensors('relu6', { input: x });
  return tidy(() => linearBetween(x, 0, 6, false, true));
}

/** relu6(x + 3) / 6 (torch.nn.functional.hardsigmoid); gradient 1/6 on (-3, 3). */
export function hardsigmoid<B extends Backend>(x: F<B>): F<B> {
  checkTensors('hardsigmoid', { input: x });
  return tidy(() => linearBetween(x.add(3), 0, 6, false).div(6));
}

/** x relu6(x + 3) / 6 (torch.nn.functional.hardswish); gradient x / 3 + 1/2 on [-3, 3] (torch's, kinks included). */
export function hardswish<B extends Backend>(x: F<B>): F<B> {
  checkTensors('hardswish', { input: x });
  return tidy(() => x.mul(linearBetween(x.add(3), 0, 6, true).div(6)));
}

/** x tanh(softplus(x)) (torch.nn.functional.mish). */
export function mish<B extends Backend>(x: F<B>): F<B> {
  checkTensors('mish', { input: x });
  return tidy(() => x.mul(x.softplus().tanh()));
}

/** SELU's self-normalising constants (torch's). */
export const SELU_ALPHA = 1.6732632423543772848170429916717;
export const SELU_SCALE = 1.0507009873554804934193349852946;

/** torch.nn.functional.selu: scale (x for x > 0, else alpha (exp(x) - 1)); gradient at 0 alpha scale, as torch. */
export function selu<B extends Backend>(x: F<B>): F<B> {
  checkTensors('selu', { input: x });
  return tidy(() => x.elu(SELU_ALPHA).mul(SELU_SCALE));
}

/** A float tensor input, for untyped callers (a string, null, an int tensor are refused naming `op`). */
function floatInput<B extends Backend>(op: string, x: F<B>): void {
  checkTensors(op, { input: x });
  checkFloat(op, x);
}

/** A number that is not NaN (a NaN option would silently pick one branch of every comparison). */
function checkValue(op: string, name: string, v: unknown): number {
  const n = checkNumber(op, name, v);
  if (Number.isNaN(n)) throw new ArgumentError(`${name} must be a number, got NaN`, { op });
  return n;
}

/** x for x > 0, else alpha (exp(x) - 1) (torch.nn.functional.elu, alpha 1): the tensor op; gradient alpha at 0, as torch. */
export function elu<B extends Backend>(x: F<B>, alpha = 1): F<B> {
  floatInput('elu', x);
  checkNumber('elu', 'alpha', alpha, true);
  return x.elu(alpha);
}

/**
 * max(0, x) + min(0, alpha (exp(x / alpha) - 1)) (torch.nn.functional.celu, alpha 1). torch runs
 * it as elu with input scale 1 / alpha, testing x <= 0 itself: so a negative alpha keeps its
 * branches and the gradient at 0 is 1. alpha 0 is refused, as torch.
 */
export function celu<B extends Backend>(x: F<B>, alpha = 1): F<B> {
  const op = 'celu';
  floatInput(op, x);
  checkNumber(op, 'alpha', alpha, true);
  if (alpha === 0) throw new ArgumentError('alpha cannot be 0 (it divides x)', { op, hint: 'use relu for the limit alpha -> 0' });
  return tidy(() => {
    const negative = x.lowerEqual(0);
    // expm1 reads 0 where its branch is discarded: exp(x / alpha) overflows for large x, and
    // inf times where's zero gradient is NaN.
    return x.where(negative, 0).div(alpha).expm1().mul(alpha).where(negative, x);
  });
}

/** torch.nn.functional.glu: a * sigmoid(b) for the halves a, b of `dim` (default -1), which must be even. */
export function glu<B extends Backend>(x: F<B>, dim = -1): F<B> {
  const op = 'glu';
  floatInput(op, x);
  checkInteger(op, 'dim', dim);
  if (x.rank === 0) throw new ShapeError('glu does not take a scalar: it halves a dim', { op, shapes: [x.shape], hint: 'give a tensor of rank 1 or more' });
  const d = normDim(op, dim, x.rank, x.shape);
  const n = x.shape[d]!;
  if (n % 2 !== 0) throw new ShapeError(`the halved dim ${d} must have an even size, got ${n}`, { op, shapes: [x.shape] });
  const h = n / 2;
  return tidy(() => x.narrow(d, 0, h).mul(x.narrow(d, h, h).sigmoid()));
}

/** log(sigmoid(x)) as -softplus(-x) (torch.nn.functional.logsigmoid): finite for every finite x; gradient sigmoid(-x). */
export function logSigmoid<B extends Backend>(x: F<B>): F<B> {
  floatInput('logSigmoid', x);
  return tidy(() => x.neg().softplus().neg());
}

/** x / (1 + |x|) (torch.nn.functional.softsign); gradient 1 / (1 + |x|)^2, 1 at 0. */
export function softsign<B extends Backend>(x: F<B>): F<B> {
  floatInput('softsign', x);
  return tidy(() => x.div(x.abs().add(1)));
}

/** x - tanh(x) (torch.nn.functional.tanhshrink). */
export function tanhshrink<B extends Backend>(x: F<B>): F<B> {
  floatInput('tanhshrink', x);
  return tidy(() => x.sub(x.tanh()));
}

/** -lambd <= x <= lambd: the band the shrink functions zero, with a zero gradient (torch's test, its edges included). */
function band<B extends Backend>(x: F<B>, lambd: number): Tensor<B, 'bool'> {
  return x.greaterEqual(-lambd).logicalAnd(x.lowerEqual(lambd));
}

/** 0 on [-lambd, lambd], else x (torch.nn.functional.hardshrink, lambd 0.5); NaN stays NaN. */
export function hardshrink<B extends Backend>(x: F<B>, lambd = 0.5): F<B> {
  const op = 'hardshrink';
  floatInput(op, x);
  checkValue(op, 'lambd', lambd);
  return tidy(() => x.maskFill(band(x, lambd), 0));
}

/** x - lambd above lambd, x + lambd below -lambd, else 0 (torch.nn.functional.softshrink, lambd 0.5 >= 0); NaN stays NaN. */
export function softshrink<B extends Backend>(x: F<B>, lambd = 0.5): F<B> {
  const op = 'softshrink';
  floatInput(op, x);
  checkValue(op, 'lambd', lambd);
  if (lambd < 0) throw new ArgumentError(`lambd must be >= 0, got ${lambd}`, { op });
  // x minus x clamped to the band: one rounding, as torch's x - lambd; the gradient is 1 outside.
  return tidy(() => x.sub(x.clamp(-lambd, lambd).detach()).maskFill(band(x, lambd), 0));
}

/** x where x > threshold, else value (torch.nn.functional.threshold); gradient 0 at and below the threshold, NaN passes. */
export function threshold<B extends Backend>(x: F<B>, threshold: number, value: number): F<B> {
  const op = 'threshold';
  floatInput(op, x);
  checkValue(op, 'threshold', threshold);
  checkNumber(op, 'value', value);
  return tidy(() => x.maskFill(x.lowerEqual(threshold), value));
}

/** softmax(-x) along `dim` (torch.nn.functional.softmin; the dim is required, torch's implicit one is deprecated). */
export function softmin<B extends Backend>(x: F<B>, dim: number): F<B> {
  const op = 'softmin';
  floatInput(op, x);
  const given: unknown = dim;
  if (given === undefined) throw new ArgumentError('dim is required', { op, hint: 'softmin(x, -1) for the last dim' });
  checkInteger(op, 'dim', dim);
  normDim(op, dim, x.rank, x.shape);
  return tidy(() => x.neg().softmax(dim));
}

/**
 * x where x > 0, else weight x (torch.nn.functional.prelu). weight has one element, or one per
 * channel (dim 1 of the input; a rank-1 input counts as one channel, as torch). At 0 the input's
 * gradient is weight and the weight's is 0, as torch's backward.
 */
export function prelu<B extends Backend>(x: F<B>, weight: F<B>): F<B> {
  const op = 'prelu';
  checkTensors(op, { input: x, weight });
  checkFloat(op, x, weight);
  if (weight.dtype !== x.dtype) throw new DTypeError(`weight must have the input's dtype (${x.dtype}), got ${weight.dtype}`, { op, dtypes: [x.dtype, weight.dtype], hint: `cast it: weight.cast('${x.dtype}')` });
  if (weight.rank > 1) throw new ShapeError(`weight must be a scalar or 1-D, got rank ${weight.rank}`, { op, shapes: [x.shape, weight.shape] });
  if (weight.size !== 1) {
    if (x.rank === 0) throw new ShapeError(`a weight of ${weight.size} elements needs an input with a channel dim, got a scalar`, { op, shapes: [x.shape, weight.shape] });
    const channels = x.rank > 1 ? x.shape[1]! : 1;
    if (channels !== weight.size) {
      throw new ShapeError(`weight has ${weight.size} elements but the input has ${channels} channel${channels === 1 ? '' : 's'} (dim 1)`, { op, shapes: [x.shape, weight.shape], hint: 'give one weight, or one per channel' });
    }
  }
  return tidy(() => {
    // [C] -> [1, C, 1, ...] so each channel takes its own slope.
    const w = x.rank > 1 ? weight.reshape([1, weight.size, ...new Array<number>(x.rank - 2).fill(1)]) : weight.reshape([]);
    return x.where(x.greater(0), x.mul(w));
  });
}
