/** Gradients of the unary elementwise ops. */
import type { UnaryOp } from '../../ir/elementwise.js';
import { NONE, type FloatT, type GradContext, type GradEntry, type GradRule } from './rule.js';

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

/** A rule that needs the input x: dx = f(dy, x). */
function ofInput<N extends UnaryOp>(f: (dy: FloatT, x: FloatT) => FloatT): GradRule<N> {
  return { saveInputs: [0], backward: (c: GradContext<N>) => [f(c.dy, c.input(0))] };
}

/** A rule that needs the output y: dx = f(dy, y). */
function ofOutput<N extends UnaryOp>(f: (dy: FloatT, y: FloatT) => FloatT): GradRule<N> {
  return { saveOutput: true, backward: (c: GradContext<N>) => [f(c.dy, c.output())] };
}

export const UNARY_GRADS: { readonly [N in UnaryOp]: GradEntry<N> } = {
  neg: { backward: (c) => [c.dy.neg()] },
  abs: ofInput((dy, x) => dy.mul(x.sign())),
  exp: ofOutput((dy, y) => dy.mul(y)),
  log: ofInput((dy, x) => dy.div(x)),
  log1p: ofInput((dy, x) => dy.div(x.add(1))),
  sqrt: ofOutput((dy, y) => dy.div(y.mul(2))),
  // y = x^-1/2, dy/dx = -y^3 / 2
  rsqrt: ofOutput((dy, y) => dy.mul(y.square().mul(y)).mul(-0.5)),
  sin: ofInput((dy, x) => dy.mul(x.cos())),
  cos: ofInput((dy, x) => dy.mul(x.sin()).neg()),
  tanh: ofOutput((dy, y) => dy.mul(y.square().neg().add(1))),
  erf: ofInput((dy, x) => dy.mul(x.square().neg().exp().mul(TWO_OVER_SQRT_PI))),
  sigmoid: ofOutput((dy, y) => dy.mul(y.mul(y.neg().add(1)))),
  // PyTorch's convention: the gradient at 0 is 0.
  relu: ofInput((dy, x) => dy.where(x.greater(0), 0)),
  // d/dx x Phi(x) = Phi(x) + x phi(x)
  gelu: ofInput((dy, x) => {
    const cdf = x.mul(Math.SQRT1_2).erf().add(1).mul(0.5);
    const pdf = x.square().mul(-0.5).exp().mul(INV_SQRT_2PI);
    return dy.mul(cdf.add(x.mul(pdf)));
  }),
  recip: ofOutput((dy, y) => dy.mul(y.square()).neg()),
  square: ofInput((dy, x) => dy.mul(x.mul(2))),
  // Piecewise constant: a zero gradient (as PyTorch), not a cut.
  sign: { backward: (c) => [c.dy.mul(0)] },
  isNan: NONE,
  isInf: NONE,
  logicalNot: NONE,
};
