/** The reduction every loss takes (PyTorch's `reduction`): 'mean' (default), 'sum', or 'none' for the per-element losses. */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import type { Tensor } from '../tensor/tensor.js';

export type Reduction = 'mean' | 'sum' | 'none';

export function reduce<B extends Backend>(op: string, losses: Tensor<B, 'float'>, reduction: Reduction | undefined): Tensor<B, 'float'> {
  switch (reduction ?? 'mean') {
    case 'mean':
      return losses.mean();
    case 'sum':
      return losses.sum();
    case 'none':
      return losses;
    default:
      throw new ArgumentError(`unknown reduction '${String(reduction)}'`, { op, hint: "use 'mean', 'sum' or 'none'" });
  }
}

/** The reduction option, checked at the call (an untyped 'avg' or null is refused before any work). */
export function checkReduction(op: string, v: unknown): Reduction {
  if (v === undefined) return 'mean';
  if (v === 'mean' || v === 'sum' || v === 'none') return v;
  throw new ArgumentError(`unknown reduction ${typeof v === 'string' ? `'${v}'` : show(v)}`, { op, hint: "use 'mean', 'sum' or 'none'" });
}
