/** Gradients of the scans and the reordering copies (argsort's and argtopk's int32 results cut the graph). */
import { NONE, type FloatT, type GradEntry } from './rule.js';

type ReorderOp = 'cumsum' | 'cumprod' | 'flip' | 'roll' | 'tril' | 'triu' | 'argsort' | 'argtopk';

/** sum_{j >= i} t_j along `dim`. */
function reverseCumsum(t: FloatT, dim: number): FloatT {
  return t.flip(dim).cumsum(dim).flip(dim);
}

export const REORDER_GRADS: { readonly [N in ReorderOp]: GradEntry<N> } = {
  // Each element reaches every later output.
  cumsum: { backward: (c) => [reverseCumsum(c.dy, c.attrs.dim)] },
  // d y_j / d x_i = y_j / x_i for j >= i while no zero precedes. At the first zero z of a line the
  // other factors' products stand in (x_z set to 1); after it every gradient is 0 (torch's rule).
  cumprod: {
    saveInputs: [0],
    saveOutput: true,
    backward: (c) => {
      const d = c.attrs.dim;
      const x = c.input(0);
      const isZero = x.equal(0);
      const zerosSoFar = isZero.cast(x.dtype).cumsum(d);
      const beforeFirst = zerosSoFar.equal(0);
      const first = isZero.logicalAnd(zerosSoFar.equal(1));
      const plain = reverseCumsum(c.dy.mul(c.output()), d).div(x);
      const others = reverseCumsum(c.dy.mul(x.maskFill(first, 1).cumprod(d)), d);
      return [plain.where(beforeFirst, others.where(first, 0))];
    },
  },
  flip: { backward: (c) => [c.dy.flip(c.attrs.dims)] },
  roll: { backward: (c) => [c.dy.roll(c.attrs.shifts.map((s) => -s), c.attrs.dims)] },
  tril: { backward: (c) => [c.dy.tril(c.attrs.diagonal)] },
  triu: { backward: (c) => [c.dy.triu(c.attrs.diagonal)] },
  argsort: NONE,
  argtopk: NONE,
};
