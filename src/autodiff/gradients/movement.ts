/** Gradients of the views and copies: each undoes its movement on the gradient. */
import { zeros } from '../../tensor/creation.js';
import { Tensor } from '../../tensor/tensor.js';
import { reduceTo } from './broadcast.js';
import type { FloatT, GradEntry } from './rule.js';

type MovementOp = 'reshape' | 'permute' | 'slice' | 'expand' | 'copy' | 'transfer';

export const MOVEMENT_GRADS: { readonly [N in MovementOp]: GradEntry<N> } = {
  reshape: { backward: (c) => [c.dy.reshape(c.metas[0]!.shape)] },
  permute: {
    backward: (c) => {
      const inverse = new Array<number>(c.attrs.dims.length);
      c.attrs.dims.forEach((d, i) => (inverse[d] = i));
      return [c.dy.permute(inverse)];
    },
  },
  // The slice's gradient lands in its region of a zero tensor of the input's shape.
  slice: {
    backward: (c) => {
      const m = c.metas[0]!;
      const z = zeros(c.backend, m.shape, { device: m.device, dtype: c.dy.dtype });
      return [Tensor.run(c.backend, 'sliceAssign', [z, c.dy], { ranges: c.attrs.ranges })[0] as FloatT];
    },
  },
  // An expanded dim read one element many times: its gradient is the sum.
  expand: { backward: (c) => [reduceTo(c.dy, c.metas[0]!.shape)] },
  copy: { backward: (c) => [c.dy] },
  // Through a router: the gradient travels back to the device the input came from.
  transfer: { backward: (c) => [c.dy.toDevice(c.metas[0]!.device)] },
};
