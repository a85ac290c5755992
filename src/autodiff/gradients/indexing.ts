/** Gradients of the data-movement ops that copy: cat, sliceAssign, gather, scatterAdd, indexSelect. */
import type { SliceRange } from '../../ir/ops.js';
import { zeros } from '../../tensor/creation.js';
import { asIndexCaller } from '../../tensor/index-scope.js';
import { Tensor } from '../../tensor/tensor.js';
import type { FloatT, GradEntry } from './rule.js';

type IndexingOp = 'cat' | 'sliceAssign' | 'gather' | 'scatterAdd' | 'indexSelect';

function sliceOf(dy: FloatT, ranges: readonly SliceRange[]): FloatT {
  return Tensor.run(dy.backend, 'slice', [dy], { ranges })[0] as FloatT;
}

export const INDEXING_GRADS: { readonly [N in IndexingOp]: GradEntry<N> } = {
  // Each input gets its own stretch of the gradient along the joined dim.
  cat: {
    backward: (c) => {
      const dim = c.attrs.dim;
      let at = 0;
      return c.metas.map((m, i) => {
        const size = m.shape[dim]!;
        const start = at;
        at += size;
        if (!c.needs[i]) return undefined;
        return sliceOf(c.dy, m.shape.map((d, j) => (j === dim ? { start, end: start + size, step: 1 } : { start: 0, end: d, step: 1 })));
      });
    },
  },
  // The overwritten region gets nothing from x; the value gets exactly that region.
  sliceAssign: {
    backward: (c) => {
      const v = c.metas[1]!;
      const dx = c.needs[0] ? (Tensor.run(c.backend, 'sliceAssign', [c.dy, zeros(c.backend, v.shape, { device: v.device, dtype: c.dy.dtype })], { ranges: c.attrs.ranges })[0] as FloatT) : undefined;
      const dv = c.needs[1] ? sliceOf(c.dy, c.attrs.ranges) : undefined;
      return [dx, dv];
    },
  },
  // Every read element accumulates the gradients of the places it was read into. The forward's
  // caller names the backward's index op too: it reads the same indices.
  gather: {
    saveInputs: [1],
    backward: (c) => {
      const m = c.metas[0]!;
      return [asIndexCaller(c.attrs.caller, () => zeros(c.backend, m.shape, { device: m.device, dtype: c.dy.dtype }).scatterAdd(c.attrs.dim, c.input<'int'>(1), c.dy)), undefined];
    },
  },
  scatterAdd: {
    saveInputs: [1],
    backward: (c) => [c.needs[0] ? c.dy : undefined, undefined, c.needs[2] ? asIndexCaller(c.attrs.caller, () => c.dy.gather(c.attrs.dim, c.input<'int'>(1))) : undefined],
  },
  // index_select is a gather with the 1-D indices broadcast over the other dims.
  indexSelect: {
    saveInputs: [1],
    backward: (c) => {
      const m = c.metas[0]!;
      const dim = c.attrs.dim;
      const idx = c.input<'int'>(1);
      const shape = c.dy.shape.map((d, i) => (i === dim ? d : 1));
      const index = idx.reshape(shape).expand(c.dy.shape);
      return [asIndexCaller(c.attrs.caller, () => zeros(c.backend, m.shape, { device: m.device, dtype: c.dy.dtype }).scatterAdd(dim, index, c.dy)), undefined];
    },
  },
};
