/** Inverted dropout as a function (torch.nn.functional.dropout). */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError } from '../../errors.js';
import { checkBoolean, show } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { Distribution, random } from '../../tensor/creation.js';
import { asDType } from '../../tensor/precision.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';

/** A dropout probability: a number in [0, 1] (1 drops everything, as torch allows). */
export function checkDropout(op: string, p: unknown, name = 'dropout probability'): number {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new ArgumentError(`${name} must be a number in [0, 1], got ${show(p)}`, { op });
  return p;
}

/**
 * While `training`, zeroes each element with probability p and scales the rest by 1 / (1 - p);
 * otherwise returns x itself. p = 1 gives zeros (and a zero gradient), as torch.
 */
export function dropout<B extends Backend>(x: Tensor<B, 'float'>, p: number, training = true): Tensor<B, 'float'> {
  checkTensors('dropout', { input: x });
  checkDropout('dropout', p);
  checkBoolean('dropout', 'training', training);
  if (!training || p === 0) return x;
  // x * 0, not a fresh zeros tensor: the gradient stays connected (zeros), NaN and Infinity give NaN as torch's.
  if (p === 1) return x.mul(0);
  return tidy(() => {
    const drawn = random(x.backend, x.shape, Distribution.Bernoulli(1 - p), { device: x.device });
    // random() draws float32; the 0 / 1 mask is exact in any float dtype, and mul needs the input's.
    const keep = asDType(drawn, x.dtype);
    return x.mul(keep.mul(1 / (1 - p)));
  });
}
