/** Reduces a gradient of a broadcast result back to an input's shape (sum over the broadcast dims). */
import { sameShape } from '../../ir/shape.js';
import type { FloatT } from './rule.js';

export function reduceTo(g: FloatT, shape: readonly number[]): FloatT {
  if (sameShape(g.shape, shape)) return g;
  let t = g;
  // New leading dims: summed away.
  while (t.rank > shape.length) t = t.sum(0);
  // Dims that were 1 and stretched: summed, kept as 1.
  for (let i = 0; i < shape.length; i++) {
    if (shape[i] === 1 && t.shape[i] !== 1) t = t.sum(i, true);
  }
  return t;
}
