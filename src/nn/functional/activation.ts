/** Activations composed from primitive ops (so autodiff differentiates them through their parts). */
import type { Backend } from '../../backends/backend.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** x * sigmoid(x) (torch.nn.functional.silu, also called swish). */
export function silu<B extends Backend>(x: F<B>): F<B> {
  return tidy(() => x.mul(x.sigmoid()));
}

/** x where x > 0, else slope * x (torch.nn.functional.leaky_relu, slope default 0.01). */
export function leakyRelu<B extends Backend>(x: F<B>, negativeSlope = 0.01): F<B> {
  return tidy(() => x.where(x.greater(0), x.mul(negativeSlope)));
}

/** log(1 + exp(beta x)) / beta, linear above `threshold` (torch.nn.functional.softplus). */
export function softplus<B extends Backend>(x: F<B>, beta = 1, threshold = 20): F<B> {
  return tidy(() => {
    const bx = x.mul(beta);
    // log1p(exp(-|bx|)) + max(bx, 0) is exact and never overflows.
    const smooth = bx.abs().neg().exp().log1p().add(bx.relu()).div(beta);
    return x.where(bx.greater(threshold), smooth);
  });
}
