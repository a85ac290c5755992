/** Gradients of clamp, where, maskFill and cast. */
import { isFloat } from '../../ir/dtype.js';
import { reduceTo } from './broadcast.js';
import type { GradEntry } from './rule.js';

export const SELECT_GRADS: { readonly clamp: GradEntry<'clamp'>; readonly where: GradEntry<'where'>; readonly maskFill: GradEntry<'maskFill'>; readonly cast: GradEntry<'cast'> } = {
  // Passes where min <= x <= max (PyTorch's convention at the bounds).
  clamp: {
    saveInputs: [0],
    backward: (c) => {
      const x = c.input(0);
      return [c.dy.where(x.greaterEqual(c.attrs.min).logicalAnd(x.lowerEqual(c.attrs.max)), 0)];
    },
  },
  // Masked fills of dy, no 0 constants: x's gradient is zero where cond is false, y's where it is true.
  where: {
    saveInputs: [0],
    backward: (c) => {
      const cond = c.input<'bool'>(0);
      return [
        undefined,
        c.needs[1] ? reduceTo(c.dy.maskFill(cond.logicalNot(), 0), c.metas[1]!.shape) : undefined,
        c.needs[2] ? reduceTo(c.dy.maskFill(cond, 0), c.metas[2]!.shape) : undefined,
      ];
    },
  },
  // x's gradient passes where the mask is false (dy has x's shape: no reduction); the mask takes none.
  maskFill: {
    saveInputs: [0],
    backward: (c) => [undefined, c.needs[1] ? c.dy.maskFill(c.input<'bool'>(0), 0) : undefined],
  },
  // Only float -> float reaches here (the tape cuts at non-float outputs): the identity.
  // Back to the input's float dtype (float16 <-> float32); int and bool inputs take no gradient.
  cast: {
    backward: (c) => {
      const d = c.metas[0]!.dtype;
      if (!isFloat(d)) return [undefined];
      return [d === c.dy.dtype ? c.dy : c.dy.cast(d)];
    },
  },
};
