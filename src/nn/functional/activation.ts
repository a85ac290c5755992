/** Activations as functions (torch.nn.functional), from tensor ops so autodiff differentiates them. */
import type { Backend } from '../../backends/backend.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';
import { ArgumentError } from '../../errors.js';
import { checkNumber, show } from '../../ir/validate.js';
import { checkTensors } from '../check.js';

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
function linearBetween<B extends Backend>(x: F<B>, lo: number, hi: number, closed: boolean): F<B> {
  const inside = closed ? x.greaterEqual(lo).logicalAnd(x.lowerEqual(hi)) : x.greater(lo).logicalAnd(x.lower(hi));
  return x.where(inside, x.clamp(lo, hi).detach());
}

/** GELU (torch.nn.functional.gelu): exact (erf) by default, or 'tanh': 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). */
export function gelu<B extends Backend>(x: F<B>, approximate: 'none' | 'tanh' = 'none'): F<B> {
  checkTensors('gelu', { input: x });
  if (approximate === 'none') return x.gelu();
  if (approximate !== 'tanh') throw new ArgumentError(`approximate must be 'none' or 'tanh', got ${show(approximate)}`, { op: 'gelu' });
  return tidy(() => x.mul(x.square().mul(0.044715).add(1).mul(x).mul(Math.sqrt(2 / Math.PI)).tanh().add(1)).mul(0.5));
}

/** min(max(x, minVal), maxVal) (torch.nn.functional.hardtanh, default [-1, 1]); gradient 0 at the kinks, as torch. */
export function hardtanh<B extends Backend>(x: F<B>, minVal = -1, maxVal = 1): F<B> {
  checkTensors('hardtanh', { input: x });
  checkNumber('hardtanh', 'minVal', minVal, true);
  checkNumber('hardtanh', 'maxVal', maxVal, true);
  if (!(maxVal > minVal)) throw new ArgumentError(`maxVal must be greater than minVal, got [${minVal}, ${maxVal}]`, { op: 'hardtanh' });
  return tidy(() => linearBetween(x, minVal, maxVal, false));
}

/** min(max(x, 0), 6) (torch.nn.functional.relu6). */
export function relu6<B extends Backend>(x: F<B>): F<B> {
  checkTensors('relu6', { input: x });
  return tidy(() => linearBetween(x, 0, 6, false));
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
