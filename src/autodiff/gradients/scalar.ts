/** Gradients of the tensor-scalar ops (`x.mul(2)` and friends): only the tensor gets one. */
import type { ScalarOp } from '../../ir/elementwise.js';
import { NONE, zeroGrad, type GradEntry } from './rule.js';

export const SCALAR_GRADS: { readonly [N in ScalarOp]: GradEntry<N> } = {
  addScalar: { backward: (c) => [c.dy] },
  subScalar: { backward: (c) => [c.dy] },
  mulScalar: { backward: (c) => [c.dy.mul(c.attrs.scalar)] },
  divScalar: { backward: (c) => [c.dy.div(c.attrs.scalar)] },
  powScalar: {
    saveInputs: [0],
    backward: (c) => {
      const s = c.attrs.scalar;
      return [s === 0 ? zeroGrad(c) : c.dy.mul(c.input(0).pow(s - 1).mul(s))];
    },
  },
  remainderScalar: { backward: (c) => [c.dy] },
  maximumScalar: {
    saveInputs: [0],
    backward: (c) => {
      const x = c.input(0);
      const s = c.attrs.scalar;
      // torch: the losing side gets 0, a tie half; NaN compares false and keeps the whole gradient.
      return [c.dy.mul(0.5).where(x.equal(s), c.dy).maskFill(x.lower(s), 0)];
    },
  },
  minimumScalar: {
    saveInputs: [0],
    backward: (c) => {
      const x = c.input(0);
      const s = c.attrs.scalar;
      return [c.dy.mul(0.5).where(x.equal(s), c.dy).maskFill(x.greater(s), 0)];
    },
  },
  equalScalar: NONE,
  notEqualScalar: NONE,
  greaterScalar: NONE,
  greaterEqualScalar: NONE,
  lowerScalar: NONE,
  lowerEqualScalar: NONE,
  logicalAndScalar: NONE,
  logicalOrScalar: NONE,
  atan2Scalar: {
    saveInputs: [0],
    backward: (c) => {
      const s = c.attrs.scalar;
      return [c.dy.mul(s).div(c.input(0).square().add(s * s))];
    },
  },
  hypotScalar: { saveInputs: [0], saveOutput: true, backward: (c) => [c.dy.mul(c.input(0)).div(c.output())] },
  copysignScalar: {
    saveInputs: [0],
    saveOutput: true,
    backward: (c) => {
      const x = c.input(0);
      const isZero = x.equal(0);
      return [c.dy.mul(c.output().div(x.maskFill(isZero, 1)).maskFill(isZero, 0))];
    },
  },
  logaddexpScalar: { saveInputs: [0], backward: (c) => [c.dy.mul(c.input(0).sub(c.attrs.scalar).sigmoid())] },
  // log(s), as xlogy(dy, s); 0 where x == 0 if s <= 0 (the tensor form's rule, binary.ts).
  xlogyScalar: {
    saveInputs: [0],
    backward: (c) => {
      const s = c.attrs.scalar;
      const g = c.dy.xlogy(s);
      return [s <= 0 ? g.maskFill(c.input(0).equal(0), 0) : g];
    },
  },
  // The tensor forms' rules (binary.ts) with b = s.
  xlog1pyScalar: {
    saveInputs: [0],
    backward: (c) => {
      const s = c.attrs.scalar;
      const g = c.dy.xlog1py(s);
      return [s <= -1 ? g.maskFill(c.input(0).equal(0), 0) : g];
    },
  },
  fmaxScalar: { saveInputs: [0], backward: (c) => [Number.isNaN(c.attrs.scalar) ? c.dy : c.dy.maskFill(c.input(0).greaterEqual(c.attrs.scalar).logicalNot(), 0)] },
  fminScalar: { saveInputs: [0], backward: (c) => [Number.isNaN(c.attrs.scalar) ? c.dy : c.dy.maskFill(c.input(0).lowerEqual(c.attrs.scalar).logicalNot(), 0)] },
  fmodScalar: { backward: (c) => [c.dy] },
  divTruncScalar: { backward: (c) => [zeroGrad(c)] },
  divFloorScalar: { backward: (c) => [zeroGrad(c)] },
};
