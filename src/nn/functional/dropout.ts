/** Inverted dropout as a function (torch.nn.functional.dropout). */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError } from '../../errors.js';
import { tidy } from '../../memory/tidy.js';
import { Distribution, random } from '../../tensor/creation.js';
import type { Tensor } from '../../tensor/tensor.js';

/** While `training`, zeroes each element with probability p and scales the rest by 1 / (1 - p); otherwise returns x itself. */
export function dropout<B extends Backend>(x: Tensor<B, 'float'>, p: number, training = true): Tensor<B, 'float'> {
  if (!(p >= 0 && p < 1)) throw new ArgumentError(`dropout probability must be in [0, 1), got ${p}`, { op: 'dropout' });
  if (!training || p === 0) return x;
  return tidy(() => {
    const keep = random(x.backend, x.shape, Distribution.Bernoulli(1 - p), { device: x.device });
    return x.mul(keep.mul(1 / (1 - p)));
  });
}
