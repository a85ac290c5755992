/**
 * float16 on the CPU: tensors are stored as 16-bit patterns, kernels compute in float32. A
 * kernel of a record that reads or writes float16 runs on float32 copies of the views it
 * touches; afterwards the outputs' changed elements are rounded (to nearest even) and stored
 * back. Only changed elements are stored, so pool workers writing disjoint ranges of one output
 * never overwrite each other. Reductions and matmul thus accumulate in float32 or wider.
 */
import { decodeHalves, float32ToHalfBits } from '../../../ir/half.js';
import type { OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';

export function touchesFloat16(record: OpRecord): boolean {
  return record.inputs.some((m) => m.dtype === 'float16') || record.outputs.some((m) => m.dtype === 'float16');
}

/** The smallest and one past the largest offset a view reaches (an empty view reaches none). */
function span(v: View): [number, number] {
  let lo = v.offset;
  let hi = v.offset;
  for (let d = 0; d < v.shape.length; d++) {
    const n = v.shape[d]!;
    if (n === 0) return [0, 0];
    const s = v.stride[d]! * (n - 1);
    if (s < 0) lo += s;
    else hi += s;
  }
  return [lo, hi + 1];
}

/** A float32 copy of the part of a float16 view it reaches, with the same layout. */
function widen(v: View): { view: View; data: Float32Array; from: number } {
  if (!(v.data instanceof Uint16Array)) throw new Error('a float16 view must hold a Uint16Array');
  const [lo, hi] = span(v);
  const data = new Float32Array(hi - lo);
  decodeHalves(v.data, lo, hi - lo, data);
  return { view: { data, shape: v.shape, stride: v.stride, offset: hi > lo ? v.offset - lo : 0 }, data, from: lo };
}

/** Stores the elements the kernel changed back into the float16 view. */
function narrowInto(target: View, wide: Float32Array, before: Float32Array, from: number): void {
  if (!(target.data instanceof Uint16Array)) throw new Error('a float16 view must hold a Uint16Array');
  const out = target.data;
  for (let i = 0; i < wide.length; i++) {
    const w = wide[i]!;
    if (!Object.is(w, before[i]!)) out[from + i] = float32ToHalfBits(w);
  }
}

/** `kernel` for records without float16; for records with float16, `jsKernel` on float32 copies. */
export function withFloat16(kernel: CpuKernel, jsKernel: CpuKernel): CpuKernel {
  return {
    units: (r) => (touchesFloat16(r) ? jsKernel : kernel).units(r),
    cost: (r) => (touchesFloat16(r) ? jsKernel : kernel).cost(r),
    run(record, inputs, outputs, lo, hi) {
      if (!touchesFloat16(record)) return kernel.run(record, inputs, outputs, lo, hi);
      const ins = inputs.map((v, i) => (record.inputs[i]?.dtype === 'float16' ? widen(v).view : v));
      const outs = outputs.map((v, i) => {
        if (record.outputs[i]?.dtype !== 'float16') return { view: v };
        const w = widen(v);
        return { ...w, before: w.data.slice() };
      });
      jsKernel.run(record, ins, outs.map((o) => o.view), lo, hi);
      outs.forEach((o, i) => {
        if ('before' in o) narrowInto(outputs[i]!, o.data, o.before, o.from);
      });
    },
  };
}
