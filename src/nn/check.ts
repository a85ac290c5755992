/** Argument checks shared by layers and losses, for untyped JavaScript callers. */
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import { Tensor } from '../tensor/tensor.js';

/** Each named value must be a tensor: else an ArgumentError naming the op and the argument. */
export function checkTensors(op: string, args: Readonly<Record<string, unknown>>): void {
  for (const [name, v] of Object.entries(args)) {
    if (!(v instanceof Tensor)) throw new ArgumentError(`${name} must be a tensor, got ${show(v)}`, { op, hint: 'make one with fromData(backend, values)' });
  }
}
