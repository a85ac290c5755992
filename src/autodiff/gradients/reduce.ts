/** Gradients of the reductions: the output gradient is broadcast back over the reduced dim. */
import type { ReduceAttrs, ReduceOp } from '../../ir/ops.js';
import { numel } from '../../ir/ops.js';
import { full } from '../../tensor/creation.js';
import { Tensor } from '../../tensor/tensor.js';
import { NONE, type FloatT, type GradContext, type GradEntry } from './rule.js';

/** `g` (the reduced shape) reshaped with the reduced dims kept as 1, ready to broadcast against x. */
function kept(g: FloatT, attrs: ReduceAttrs, xShape: readonly number[]): FloatT {
  const shape = attrs.dim === null ? xShape.map(() => 1) : xShape.map((d, i) => (i === attrs.dim ? 1 : d));
  return g.reshape(shape);
}

function spread(c: GradContext<ReduceOp>, g: FloatT): FloatT {
  return kept(g, c.attrs, c.metas[0]!.shape).expand(c.metas[0]!.shape);
}

/** max / min: the gradient is shared evenly by the elements equal to the result. */
function extreme(c: GradContext<ReduceOp>): FloatT[] {
  const x = c.input(0);
  const shape = c.metas[0]!.shape;
  const hit = x.equal(kept(c.output(), c.attrs, shape)).cast(x.dtype);
  const count = c.attrs.dim === null ? hit.sum(null, true) : hit.sum(c.attrs.dim, true);
  return [hit.mul(kept(c.dy, c.attrs, shape).div(count))];
}

/**
 * The product of the other elements as the products before and after each element along the
 * line (torch's prod_safe_zeros_backward): no division, so differentiable again at zeros too.
 */
function prodOfOthers(c: GradContext<'prod'>): FloatT[] {
  const x = c.input(0);
  const shape = c.metas[0]!.shape;
  const line = c.attrs.dim === null ? x.reshape([x.size]) : x;
  const d = c.attrs.dim ?? 0;
  const others = exclusiveCumprod(line, d, false).mul(exclusiveCumprod(line, d, true));
  return [others.reshape(shape).mul(kept(c.dy, c.attrs, shape))];
}

/** prod_{i < k} x_i along `dim` (or prod_{i > k} x_i when `reverse`), 1 at the line's start. */
function exclusiveCumprod(x: FloatT, dim: number, reverse: boolean): FloatT {
  const n = x.shape[dim]!;
  const oneShape = x.shape.map((s, i) => (i === dim ? 1 : s));
  const one = full(x.backend, oneShape, 1, { device: x.device, dtype: x.dtype });
  if (n <= 1) return n === 1 ? one : x;
  if (!reverse) return Tensor.cat([one, x.narrow(dim, 0, n - 1)], dim).cumprod(dim);
  return Tensor.cat([x.narrow(dim, 1, n - 1), one], dim).flip(dim).cumprod(dim).flip(dim);
}

export const REDUCE_GRADS: { readonly [N in ReduceOp]: GradEntry<N> } = {
  sum: { backward: (c) => [spread(c, c.dy)] },
  mean: {
    backward: (c) => {
      const shape = c.metas[0]!.shape;
      const n = c.attrs.dim === null ? numel(shape) : shape[c.attrs.dim]!;
      return [spread(c, c.dy.div(n))];
    },
  },
  max: { saveInputs: [0], saveOutput: true, backward: extreme },
  min: { saveInputs: [0], saveOutput: true, backward: extreme },
  // Always the products of the others (torch's prod_safe_zeros_backward), never prod / x: that is
  // 0 / 0 at zeros and inf / inf or NaN / NaN at an infinite or NaN element, whose gradient is the
  // (finite) product of the rest; torch takes this form whenever its input holds a zero.
  prod: { saveInputs: [0], backward: prodOfOthers },
  argmax: NONE,
  argmin: NONE,
};

/** d var / dx = 2 (x - mean) / max(0, n - correction), broadcast from the reduced shape. */
export const VAR_GRAD: GradEntry<'var'> = {
  saveInputs: [0],
  backward: (c) => {
    const x = c.input(0);
    const shape = c.metas[0]!.shape;
    const { dim, correction } = c.attrs;
    const n = dim === null ? numel(shape) : shape[dim]!;
    const mean = dim === null ? x.mean(null, true) : x.mean(dim, true);
    const g = kept(c.dy, { dim, keepDims: true }, shape);
    return [x.sub(mean).mul(g).mul(2 / Math.max(0, n - correction))];
  },
};
