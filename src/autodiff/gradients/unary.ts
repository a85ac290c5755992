/** Gradients of the unary elementwise ops. */
import type { ParamUnaryOp, UnaryOp } from '../../ir/elementwise.js';
import { NONE, zeroGrad, type FloatT, type GradContext, type GradEntry, type GradRule } from './rule.js';

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
const HALF_SQRT_PI = Math.sqrt(Math.PI) / 2;

/**
 * polygamma(2, x): the recurrence psi2(z) = psi2(z + 6) - 2 sum_k (z + k)^-3 up to the asymptotic
 * series (its first omitted term is below 1e-9 there), and below 1/2 the reflection
 * psi2(x) = psi2(1 - x) - 2 pi^3 cos(pi x) / sin(pi x)^3. The discarded branch reads safe values.
 */
function tetragamma(x: FloatT): FloatT {
  const reflect = x.lower(0.5);
  const z = x.neg().add(1).where(reflect, x);
  let s = z.pow(-3);
  for (let k = 1; k < 6; k++) s = s.add(z.add(k).pow(-3));
  const r = z.add(6).recip();
  const r2 = r.square();
  // -(r^2 + r^3 + r^4 / 2 - r^6 / 6 + r^8 / 6 - 3 r^10 / 10)
  const series = r2.mul(r2.mul(r2.mul(r2.mul(r2.mul(-0.3).add(1 / 6)).add(-1 / 6)).add(0.5)).add(r).add(1)).neg();
  const psi2 = series.sub(s.mul(2));
  // cos / sin^3 has period pi: read at pi (x - round(x)), exact, so that the angle keeps its digits (float16 too).
  const xr = x.where(reflect, 0.25);
  const angle = xr.sub(xr.round()).mul(Math.PI);
  const term = angle.cos().div(angle.sin().pow(3)).mul(-2 * Math.PI ** 3);
  return psi2.add(term).where(reflect, psi2);
}

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
  // PyTorch's convention: the gradient at 0 is 0; at NaN it passes (threshold_backward zeroes y <= 0 only).
  relu: ofInput((dy, x) => dy.maskFill(x.lowerEqual(0), 0)),
  // d/dx x Phi(x) = Phi(x) + x phi(x)
  gelu: ofInput((dy, x) => {
    const cdf = x.mul(Math.SQRT1_2).erf().add(1).mul(0.5);
    const pdf = x.square().mul(-0.5).exp().mul(INV_SQRT_2PI);
    return dy.mul(cdf.add(x.mul(pdf)));
  }),
  recip: ofOutput((dy, y) => dy.mul(y.square()).neg()),
  square: ofInput((dy, x) => dy.mul(x.mul(2))),
  // Piecewise constant: a zero gradient (as PyTorch), not a cut.
  sign: { backward: (c) => [zeroGrad(c)] },
  isNan: NONE,
  isInf: NONE,
  logicalNot: NONE,
  // Piecewise constant: zero gradients (torch), not cuts.
  floor: { backward: (c) => [zeroGrad(c)] },
  ceil: { backward: (c) => [zeroGrad(c)] },
  round: { backward: (c) => [zeroGrad(c)] },
  trunc: { backward: (c) => [zeroGrad(c)] },
  frac: { backward: (c) => [c.dy] },
  tan: ofOutput((dy, y) => dy.mul(y.square().add(1))),
  asin: ofInput((dy, x) => dy.mul(x.square().neg().add(1).rsqrt())),
  acos: ofInput((dy, x) => dy.mul(x.square().neg().add(1).rsqrt()).neg()),
  atan: ofInput((dy, x) => dy.div(x.square().add(1))),
  sinh: ofInput((dy, x) => dy.mul(x.cosh())),
  cosh: ofInput((dy, x) => dy.mul(x.sinh())),
  asinh: ofInput((dy, x) => dy.mul(x.square().add(1).rsqrt())),
  acosh: ofInput((dy, x) => dy.mul(x.square().sub(1).rsqrt())),
  exp2: ofOutput((dy, y) => dy.mul(y).mul(Math.LN2)),
  expm1: ofOutput((dy, y) => dy.mul(y.add(1))),
  log2: ofInput((dy, x) => dy.div(x.mul(Math.LN2))),
  log10: ofInput((dy, x) => dy.div(x.mul(Math.LN10))),
  // d/dx x s(x) = s(x) (1 + x (1 - s(x))), torch's silu_backward
  silu: ofInput((dy, x) => {
    const s = x.sigmoid();
    return dy.mul(s.mul(x.mul(s.neg().add(1)).add(1)));
  }),
  atanh: ofInput((dy, x) => dy.div(x.square().neg().add(1))),
  // 1 / (x (1 - x)), NaN outside [0, 1] (torch's logit_backward without eps).
  logit: ofInput((dy, x) => dy.div(x.mul(x.neg().add(1))).maskFill(x.lower(0).logicalOr(x.greater(1)), NaN)),
  erfinv: ofOutput((dy, y) => dy.mul(y.square().exp().mul(HALF_SQRT_PI))),
  lgamma: ofInput((dy, x) => dy.mul(x.digamma())),
  digamma: ofInput((dy, x) => dy.mul(x.trigamma())),
  // polygamma(2, x), built from differentiable ops (so every higher order works too).
  trigamma: ofInput((dy, x) => dy.mul(tetragamma(x))),
};

/** The parameterised activations; at 0 each takes torch's branch (leakyRelu: slope, elu: alpha). */
export const PARAM_UNARY_GRADS: { readonly [N in ParamUnaryOp]: GradEntry<N> } = {
  leakyRelu: { saveInputs: [0], backward: (c) => [c.dy.where(c.input(0).greater(0), c.dy.mul(c.attrs.slope))] },
  elu: {
    saveInputs: [0],
    backward: (c) => {
      const x = c.input(0);
      // NaN takes the x > 0 branch, as torch's elu_backward (its test is x <= 0). exp reads 0 where
      // its branch is discarded: exp(88.8) is inf, whose 0 * inf is NaN in a second backward.
      const negative = x.lowerEqual(0);
      return [c.dy.mul(x.where(negative, 0).exp().mul(c.attrs.alpha)).where(negative, c.dy)];
    },
  },
  // Below the threshold: d/dx log1p(exp(beta x)) / beta = sigmoid(beta x).
  softplus: {
    saveInputs: [0],
    backward: (c) => {
      const z = c.input(0).mul(c.attrs.beta);
      return [c.dy.where(z.greater(c.attrs.threshold), c.dy.mul(z.sigmoid()))];
    },
  },
};
