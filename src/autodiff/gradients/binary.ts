/** Gradients of the broadcasting binary ops: each input's gradient is reduced to its shape. */
import type { BinaryOp } from '../../ir/elementwise.js';
import { sameShape } from '../../ir/shape.js';
import { reduceTo } from './broadcast.js';
import { NONE, zeroGrad, type FloatT, type GradContext, type GradEntry } from './rule.js';

type Ctx = GradContext<BinaryOp>;

/** Applies each input's gradient function when that input needs one, reducing broadcast dims. */
function both(c: Ctx, da: () => FloatT, db: () => FloatT): Array<FloatT | undefined> {
  return [c.needs[0] ? reduceTo(da(), c.metas[0]!.shape) : undefined, c.needs[1] ? reduceTo(db(), c.metas[1]!.shape) : undefined];
}

/**
 * maximum / minimum: the losing input gets 0, each half on ties, and both the whole gradient
 * where a NaN makes every comparison false (PyTorch: where(a == b, g / 2, g) masked where a loses).
 */
function pick(c: Ctx, aWins: (a: FloatT, b: FloatT) => ReturnType<FloatT['greater']>): Array<FloatT | undefined> {
  const a = c.input(0);
  const b = c.input(1);
  const half = c.dy.mul(0.5).where(a.equal(b), c.dy);
  return both(
    c,
    () => half.maskFill(aWins(b, a), 0),
    () => half.maskFill(aWins(a, b), 0),
  );
}

export const BINARY_GRADS: { readonly [N in BinaryOp]: GradEntry<N> } = {
  add: { backward: (c) => both(c, () => c.dy, () => c.dy) },
  sub: { backward: (c) => both(c, () => c.dy, () => c.dy.neg()) },
  mul: { saveInputs: [0, 1], backward: (c) => both(c, () => c.dy.mul(c.input(1)), () => c.dy.mul(c.input(0))) },
  div: {
    saveInputs: [0, 1],
    // -dy (a / b) / b, as torch: dy a / b^2 overflows once |b| passes ~1.8e19 (or b^2 underflows).
    backward: (c) => both(c, () => c.dy.div(c.input(1)), () => c.dy.mul(c.input(0).div(c.input(1)).div(c.input(1))).neg()),
  },
  pow: {
    saveInputs: [0, 1],
    saveOutput: true,
    backward: (c) => {
      const a = c.input(0);
      const b = c.input(1);
      // Discarded branches read safe values (b = 1, log(1)), so that a second backward through
      // them sees no inf or NaN to multiply by its zero gradient.
      return both(
        c,
        // b * a^(b-1), with 0 where b == 0 (so 0^0 has gradient 0, as PyTorch). Masked fills of
        // b == 0, not selects on b != 0: no constants (NaN b is in neither, and passes through).
        () => {
          const unused = b.equal(0);
          return c.dy.mul(b.mul(a.pow(b.maskFill(unused, 1).sub(1)))).maskFill(unused, 0);
        },
        // a^b * log(a), with 0 where a == 0 and b >= 0 (a at the mask's shape, as the select had it)
        () => {
          const unused = a.equal(0).logicalAnd(b.greaterEqual(0));
          const wide = sameShape(a.shape, unused.shape) ? a : a.expand(unused.shape);
          return c.dy.mul(c.output().mul(wide.maskFill(unused, 1).log())).maskFill(unused, 0);
        },
      );
    },
  },
  // a - floor(a / b) * b: d/db = -floor(a / b) = -(a - y) / b
  remainder: {
    saveInputs: [0, 1],
    saveOutput: true,
    backward: (c) => both(c, () => c.dy, () => c.dy.mul(c.input(0).sub(c.output()).div(c.input(1))).neg()),
  },
  maximum: { saveInputs: [0, 1], backward: (c) => pick(c, (a, b) => a.greater(b)) },
  minimum: { saveInputs: [0, 1], backward: (c) => pick(c, (a, b) => a.lower(b)) },
  equal: NONE,
  notEqual: NONE,
  greater: NONE,
  greaterEqual: NONE,
  lower: NONE,
  lowerEqual: NONE,
  logicalAnd: NONE,
  logicalOr: NONE,
  atan2: {
    saveInputs: [0, 1],
    backward: (c) => {
      const a = c.input(0);
      const b = c.input(1);
      const r2 = a.square().add(b.square());
      return both(c, () => c.dy.mul(b).div(r2), () => c.dy.mul(a).div(r2).neg());
    },
  },
  hypot: {
    saveInputs: [0, 1],
    saveOutput: true,
    backward: (c) => both(c, () => c.dy.mul(c.input(0)).div(c.output()), () => c.dy.mul(c.input(1)).div(c.output())),
  },
  // y / a (the sign flip), 0 where a == 0; nothing flows to the sign source (torch).
  copysign: {
    saveInputs: [0],
    saveOutput: true,
    backward: (c) => {
      const a = c.input(0);
      const isZero = a.equal(0);
      // Divides by 1 where a == 0 (discarded): 0 / 0 there would be NaN in a second backward.
      return both(c, () => c.dy.mul(c.output().div(a.maskFill(isZero, 1)).maskFill(isZero, 0)), () => zeroGrad(c));
    },
  },
  // d/da = exp(a) / (exp(a) + exp(b)) = sigmoid(a - b)
  logaddexp: {
    saveInputs: [0, 1],
    backward: (c) => {
      const a = c.input(0);
      const b = c.input(1);
      return both(c, () => c.dy.mul(a.sub(b).sigmoid()), () => c.dy.mul(b.sub(a).sigmoid()));
    },
  },
  // d/da = log(b) (a log b is smooth in a, also at a = 0), as xlogy(dy, b) so a zero dy stays 0,
  // and 0 where a == 0 and b <= 0 (where the forward pins 0 * log b to 0); d/db = a / b (torch).
  xlogy: {
    saveInputs: [0, 1],
    backward: (c) => {
      const a = c.input(0);
      const b = c.input(1);
      return both(c, () => c.dy.xlogy(b).maskFill(a.equal(0).logicalAnd(b.lowerEqual(0)), 0), () => c.dy.mul(a).div(b));
    },
  },
  // As xlogy's: d/da = log1p(b) (0 where a == 0 and b <= -1), d/db = a / (1 + b) (torch).
  xlog1py: {
    saveInputs: [0, 1],
    backward: (c) => {
      const a = c.input(0);
      const b = c.input(1);
      return both(c, () => c.dy.xlog1py(b).maskFill(a.equal(0).logicalAnd(b.lowerEqual(-1)), 0), () => c.dy.mul(a).div(b.add(1)));
    },
  },
  // torch: the whole gradient to a where a >= b or b is NaN, else to b (no split on ties).
  fmax: { saveInputs: [0, 1], backward: (c) => pickF(c, (a, b) => a.greaterEqual(b)) },
  fmin: { saveInputs: [0, 1], backward: (c) => pickF(c, (a, b) => a.lowerEqual(b)) },
  // a - trunc(a / b) b: d/db = -trunc(a / b), as torch computes it (inf where b is 0 or a infinite).
  fmod: {
    saveInputs: [0, 1],
    backward: (c) => both(c, () => c.dy, () => c.dy.mul(c.input(0).div(c.input(1), 'trunc')).neg()),
  },
  // Piecewise constant: zero gradients (torch's div with a rounding mode).
  divTrunc: { backward: (c) => both(c, () => zeroGrad(c), () => zeroGrad(c)) },
  divFloor: { backward: (c) => both(c, () => zeroGrad(c), () => zeroGrad(c)) },
};

/** fmax / fmin: a takes dy where `aWins` or b is NaN, b takes it elsewhere. */
function pickF(c: Ctx, aWins: (a: FloatT, b: FloatT) => ReturnType<FloatT['greater']>): Array<FloatT | undefined> {
  const a = c.input(0);
  const b = c.input(1);
  const toA = aWins(a, b).logicalOr(b.isNan());
  return both(
    c,
    () => c.dy.maskFill(toA.logicalNot(), 0),
    () => c.dy.maskFill(toA, 0),
  );
}
