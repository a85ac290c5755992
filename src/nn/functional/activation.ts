/** Activations as functions (torch.nn.functional), from tensor ops so autodiff differentiates them. */
import type { Backend } from '../../backends/backend.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';
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
