/**
 * The join: sum over replicas of weight_r * grad_r on a range of the flat buffers, accumulated in
 * float64 in blocks (one pass over each replica's memory per block), in replica order, so the
 * result does not depend on which thread reduces which range, nor when.
 */

import type { FlatKernels } from './flat-kernels.js';

const BLOCK = 4096;

export interface ReduceInput {
  readonly data: Float32Array;
  readonly weight: number;
}

/**
 * out[i] = sum_r inputs[r].weight * inputs[r].data[i] for i in [from, to). With `kernels`, up to
 * four inputs in their memory are summed in wasm SIMD (the same bits as the JS loop).
 */
export function weightedSum(out: Float32Array, inputs: readonly ReduceInput[], from: number, to: number, scratch = new Float64Array(BLOCK), kernels?: FlatKernels): void {
  if (inputs.length <= 4) {
    if (kernels?.sum(out, inputs, from, to)) return;
    // One pass, no scratch: the same float64 sum in the same order as the blocked loop below.
    sumUpTo4(out, inputs, from, to);
    return;
  }
  for (let start = from; start < to; start += BLOCK) {
    const end = Math.min(to, start + BLOCK);
    const n = end - start;
    scratch.fill(0, 0, n);
    for (const { data, weight } of inputs) {
      for (let j = 0; j < n; j++) scratch[j]! += weight * data[start + j]!;
    }
    for (let j = 0; j < n; j++) out[start + j] = scratch[j]!;
  }
}

/** One loop per count of inputs (each array a local: a loop over the inputs' list runs 3x slower). */
function sumUpTo4(out: Float32Array, inputs: readonly ReduceInput[], from: number, to: number): void {
  const [a, b, c, d] = inputs;
  if (!a) {
    out.fill(0, from, to);
    return;
  }
  const da = a.data;
  const wa = a.weight;
  if (!b) {
    for (let i = from; i < to; i++) out[i] = 0 + wa * da[i]!;
    return;
  }
  const db = b.data;
  const wb = b.weight;
  if (!c) {
    for (let i = from; i < to; i++) out[i] = 0 + wa * da[i]! + wb * db[i]!;
    return;
  }
  const dc = c.data;
  const wc = c.weight;
  if (!d) {
    for (let i = from; i < to; i++) out[i] = 0 + wa * da[i]! + wb * db[i]! + wc * dc[i]!;
    return;
  }
  const dd = d.data;
  const wd = d.weight;
  for (let i = from; i < to; i++) out[i] = 0 + wa * da[i]! + wb * db[i]! + wc * dc[i]! + wd * dd[i]!;
}

/** The k-th of `parts` near-equal pieces of [from, to). */
export function chunkOf(from: number, to: number, k: number, parts: number): [number, number] {
  const n = to - from;
  return [from + Math.floor((k * n) / parts), from + Math.floor(((k + 1) * n) / parts)];
}

/** Sum of squares of `data` (float64), for a global gradient norm. */
export function sumOfSquares(data: Float32Array, from = 0, to = data.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += data[i]! * data[i]!;
  return s;
}
