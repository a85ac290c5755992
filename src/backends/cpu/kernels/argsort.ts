/**
 * argsort along a dim, one line per work unit. Each value becomes an order-preserving unsigned
 * 32-bit key (NaN above +inf, -0 equal to 0; inverted for descending), then positions are
 * sorted by key with a stable sort: insertion for short lines, an LSD radix sort (four 8-bit
 * passes) for the rest. Stability gives ties in position order, as torch.sort(stable=True).
 * argtopk keeps the first k of that order; for k much smaller than the line, a bounded heap.
 */
import { numel, type OpRecord } from '../../../ir/ops.js';
import { sortAttrs } from '../../../ir/reorder.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';
import { rowBase } from './reduce.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** An unsigned key that orders like the float value. */
function floatKey(v: number): number {
  if (v !== v) return 0xffffffff;
  f32[0] = v === 0 ? 0 : v;
  const b = u32[0]!;
  return b & 0x80000000 ? ~b >>> 0 : (b | 0x80000000) >>> 0;
}

const SHORT = 48;

/** Sorts `order[0..n)` by `keys` (stable), using `k2` / `o2` as scratch. */
function sortByKey(keys: Uint32Array, order: Uint32Array, k2: Uint32Array, o2: Uint32Array, n: number, counts: Uint32Array): void {
  if (n < SHORT) {
    for (let i = 1; i < n; i++) {
      const k = keys[i]!;
      const o = order[i]!;
      let j = i - 1;
      while (j >= 0 && keys[j]! > k) {
        keys[j + 1] = keys[j]!;
        order[j + 1] = order[j]!;
        j--;
      }
      keys[j + 1] = k;
      order[j + 1] = o;
    }
    return;
  }
  let ka = keys;
  let oa = order;
  let kb = k2;
  let ob = o2;
  for (let shift = 0; shift < 32; shift += 8) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(ka[i]! >>> shift) & 255]!++;
    // A pass where every key has the same digit changes nothing.
    if (counts[(ka[0]! >>> shift) & 255] === n) continue;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = ka[i]!;
      const at = counts[(k >>> shift) & 255]!++;
      kb[at] = k;
      ob[at] = oa[i]!;
    }
    [ka, kb] = [kb, ka];
    [oa, ob] = [ob, oa];
  }
  if (oa !== order) order.set(oa.subarray(0, n));
}

/** Keeps the k smallest of `composite(j)` for j < n in a max-heap, then returns them ascending. */
function selectSmallest(n: number, k: number, composite: (j: number) => number, heap: Float64Array): Float64Array {
  let size = 0;
  for (let j = 0; j < n; j++) {
    const c = composite(j);
    if (size < k) {
      // Sift up.
      let i = size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent]! >= c) break;
        heap[i] = heap[parent]!;
        i = parent;
      }
      heap[i] = c;
    } else if (c < heap[0]!) {
      // Replace the largest kept, sift down.
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= k) break;
        const r = l + 1;
        const m = r < k && heap[r]! > heap[l]! ? r : l;
        if (heap[m]! <= c) break;
        heap[i] = heap[m]!;
        i = m;
      }
      heap[i] = c;
    }
  }
  return heap.subarray(0, size).sort();
}

const POSITIONS = 2 ** 21;

function runArgsort(record: OpRecord<'argsort' | 'argtopk'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!.data;
  const { dim, descending, outN } = sortAttrs(record, x.shape);
  const n = x.shape[dim]!;
  const s = x.stride[dim]!;
  const inner = x.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
  const isInt = x.data instanceof Int32Array;
  const keyOf = (v: number) => {
    const k = isInt ? (v ^ 0x80000000) >>> 0 : floatKey(v);
    return descending ? ~k >>> 0 : k;
  };
  // A few of many: a bounded heap of (key, position) packed in one float64 (exact below 2^53).
  const select = outN * 16 <= n && n <= POSITIONS;
  const keys = new Uint32Array(select ? 0 : n);
  const order = new Uint32Array(select ? 0 : n);
  const k2 = new Uint32Array(select ? 0 : n);
  const o2 = new Uint32Array(select ? 0 : n);
  const heap = new Float64Array(select ? outN : 0);
  const counts = new Uint32Array(256);
  for (let row = lo; row < hi; row++) {
    const p = rowBase(x, dim, row);
    const ob = Math.floor(row / inner) * outN * inner + (row % inner);
    if (select) {
      const best = selectSmallest(n, outN, (j) => keyOf(x.data[p + j * s]!) * POSITIONS + j, heap);
      for (let j = 0; j < outN; j++) out[ob + j * inner] = best[j]! % POSITIONS;
      continue;
    }
    for (let j = 0; j < n; j++) {
      keys[j] = keyOf(x.data[p + j * s]!);
      order[j] = j;
    }
    sortByKey(keys, order, k2, o2, n, counts);
    for (let j = 0; j < outN; j++) out[ob + j * inner] = order[j]!;
  }
}

export const argsortKernel: CpuKernel<'argsort' | 'argtopk'> = {
  units: (r) => {
    const shape = r.inputs[0]!.shape;
    const n = shape[sortAttrs(r, shape).dim]!;
    return n === 0 ? 0 : numel(shape) / n;
  },
  cost: (r) => 8 * numel(r.inputs[0]!.shape),
  run: runArgsort,
};
