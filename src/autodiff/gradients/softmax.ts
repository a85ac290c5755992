/** Gradients of softmax and logSoftmax along a dim, from the saved output. */
import type { GradEntry } from './rule.js';

export const SOFTMAX_GRADS: { readonly softmax: GradEntry<'softmax'>; readonly logSoftmax: GradEntry<'logSoftmax'> } = {
  // dx = y * (dy - sum(dy * y))
  softmax: {
    saveOutput: true,
    backward: (c) => {
      const y = c.output();
      return [y.mul(c.dy.sub(c.dy.mul(y).sum(c.attrs.dim, true)))];
    },
  },
  // dx = dy - exp(y) * sum(dy)
  logSoftmax: {
    saveOutput: true,
    backward: (c) => [c.dy.sub(c.output().exp().mul(c.dy.sum(c.attrs.dim, true)))],
  },
};
