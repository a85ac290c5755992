/** gather, scatterAdd, indexSelect: index-driven copies; out-of-range indices fail the op. */
import { indexError, type IndexCaller, type IndexOp } from '../../../ir/index-caller.js';
import { contiguousStrides, numel, type OpRecord } from '../../../ir/ops.js';
import { isContiguous, type View } from '../view.js';
import type { CpuKernel } from './kernel.js';
import { forEachOffset, offsetOf } from './strided.js';

function checkIndex(op: IndexOp, caller: IndexCaller | undefined, i: number, size: number, dim: number): void {
  if (i < 0 || i >= size) throw indexError(op, caller, i, dim, size);
}

function runGather(record: OpRecord<'gather'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const [x, idx] = inputs as [View, View];
  const out = outputs[0]!.data;
  const { dim } = record.attrs;
  const shape = idx.shape;
  const size = x.shape[dim]!;
  for (let o = lo; o < hi; o++) {
    // Decompose o over the index shape; the input offset uses the index value on `dim`.
    let rem = o;
    let pi = idx.offset;
    let px = x.offset;
    let atDim = 0;
    for (let d = shape.length - 1; d >= 0; d--) {
      const s = shape[d]!;
      const q = rem % s;
      rem = (rem - q) / s;
      pi += q * idx.stride[d]!;
      if (d === dim) atDim = d;
      else px += q * x.stride[d]!;
    }
    void atDim;
    const i = idx.data[pi]!;
    checkIndex('gather', record.attrs.caller, i, size, dim);
    out[o] = x.data[px + i * x.stride[dim]!]!;
  }
}

function runIndexSelect(record: OpRecord<'indexSelect'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const [x, idx] = inputs as [View, View];
  const out = outputs[0]!;
  const { dim } = record.attrs;
  const size = x.shape[dim]!;
  const shape = out.shape;
  for (let o = lo; o < hi; o++) {
    let rem = o;
    let px = x.offset;
    for (let d = shape.length - 1; d >= 0; d--) {
      const s = shape[d]!;
      const q = rem % s;
      rem = (rem - q) / s;
      if (d === dim) {
        const i = idx.data[idx.offset + q * idx.stride[0]!]!;
        checkIndex('indexSelect', record.attrs.caller, i, size, dim);
        px += i * x.stride[d]!;
      } else px += q * x.stride[d]!;
    }
    out.data[o] = x.data[px]!;
  }
}

function runScatterAdd(record: OpRecord<'scatterAdd'>, inputs: readonly View[], outputs: readonly View[]): void {
  const [x, idx, src] = inputs as [View, View, View];
  const out = outputs[0]!;
  const { dim } = record.attrs;
  const isInt = out.data instanceof Int32Array;
  forEachOffset(x, (p, i) => (out.data[i] = x.data[p]!));
  const os = contiguousStrides(out.shape);
  const size = out.shape[dim]!;
  const ishape = idx.shape;
  const srcStrides = src.stride;
  forEachOffset(idx, (pi, lin) => {
    let rem = lin;
    let po = 0;
    let ps = src.offset;
    for (let d = ishape.length - 1; d >= 0; d--) {
      const s = ishape[d]!;
      const q = rem % s;
      rem = (rem - q) / s;
      ps += q * srcStrides[d]!;
      if (d !== dim) po += q * os[d]!;
    }
    const i = idx.data[pi]!;
    checkIndex('scatterAdd', record.attrs.caller, i, size, dim);
    po += i * os[dim]!;
    const v = out.data[po]! + src.data[ps]!;
    out.data[po] = isInt ? v | 0 : v;
  });
}

function runCat(record: OpRecord<'cat'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const out = outputs[0]!;
  const { dim } = record.attrs;
  const os = contiguousStrides(out.shape);
  let at = 0;
  for (let t = 0; t < inputs.length; t++) {
    const v = inputs[t]!;
    const base = at * os[dim]!;
    at += v.shape[dim]!;
    if (t < lo || t >= hi) continue;
    if (isContiguous(v) && out.data.constructor === v.data.constructor) {
      // Contiguous input: each run of its trailing dims (from `dim` on) is one block copy.
      const block = v.shape[dim]! * os[dim]!;
      const outer = block === 0 ? 0 : numel(v.shape) / block;
      const step = os[dim]! * out.shape[dim]!;
      for (let o = 0; o < outer; o++) out.data.set(v.data.subarray(v.offset + o * block, v.offset + (o + 1) * block), base + o * step);
      continue;
    }
    forEachOffset(v, (p, i) => {
      out.data[base + offsetOf(i, v.shape, os, 0)] = v.data[p]!;
    });
  }
}

function runSliceAssign(record: OpRecord<'sliceAssign'>, inputs: readonly View[], outputs: readonly View[]): void {
  const [x, value] = inputs as [View, View];
  const out = outputs[0]!;
  const { ranges } = record.attrs;
  forEachOffset(x, (p, i) => (out.data[i] = x.data[p]!));
  const os = contiguousStrides(out.shape);
  const strides = ranges.map((r, d) => os[d]! * r.step);
  const base = ranges.reduce((acc, r, d) => acc + r.start * os[d]!, 0);
  forEachOffset(value, (p, i) => {
    out.data[offsetOf(i, value.shape, strides, base)] = value.data[p]!;
  });
}

const perOutput = (r: OpRecord): number => numel(r.outputs[0]!.shape);

export const gatherKernel: CpuKernel<'gather'> = { units: perOutput, cost: (r) => 4 * perOutput(r), run: runGather };
export const indexSelectKernel: CpuKernel<'indexSelect'> = { units: perOutput, cost: (r) => 4 * perOutput(r), run: runIndexSelect };
export const scatterAddKernel: CpuKernel<'scatterAdd'> = { units: () => 1, cost: (r) => perOutput(r) + 4 * numel(r.inputs[1]!.shape), run: runScatterAdd };
export const catKernel: CpuKernel<'cat'> = { units: (r) => r.inputs.length, cost: (r) => 2 * perOutput(r), run: runCat };
export const sliceAssignKernel: CpuKernel<'sliceAssign'> = { units: () => 1, cost: (r) => 2 * perOutput(r), run: runSliceAssign };
