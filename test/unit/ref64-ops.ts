/**
 * Float64 references for the composite ops' tests (norm, einsum, normalize, interpolate): plain
 * nested loops over row-major arrays, nothing from the library, plus central finite differences
 * and a comparison that treats NaN and the infinities as values.
 */
import type { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

export interface Arr {
  readonly shape: readonly number[];
  readonly data: readonly number[];
}

export type AD = Autodiff<Backend>;
export type F = Tensor<AD, 'float'>;

export const numel = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

export function strides(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) out[i] = out[i + 1]! * shape[i + 1]!;
  return out;
}

/** The multi-index of flat position `i`. */
export function unravel(i: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length).fill(0);
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = shape[d]!;
    idx[d] = n === 0 ? 0 : i % n;
    i = n === 0 ? 0 : Math.floor(i / n);
  }
  return idx;
}

export function ravel(idx: readonly number[], shape: readonly number[]): number {
  const st = strides(shape);
  return idx.reduce((a, v, d) => a + v * st[d]!, 0);
}

/** Groups the elements by their position outside `dims` and reduces each group with `fn`. */
export function reduceDims(x: Arr, dims: readonly number[], keepDims: boolean, fn: (values: number[]) => number): Arr {
  const outShape = x.shape.map((n, d) => (dims.includes(d) ? 1 : n));
  const groups: number[][] = Array.from({ length: numel(outShape) }, () => []);
  for (let i = 0; i < x.data.length; i++) {
    const idx = unravel(i, x.shape).map((v, d) => (dims.includes(d) ? 0 : v));
    groups[ravel(idx, outShape)]!.push(x.data[i]!);
  }
  return { shape: keepDims ? outShape : x.shape.filter((_, d) => !dims.includes(d)), data: groups.map(fn) };
}

/** The dims a reduction covers (torch: omitted, null or [] means all), normalised and sorted. */
export function dimsOf(dim: number | readonly number[] | null | undefined, rank: number): number[] {
  if (dim === null || dim === undefined || (Array.isArray(dim) && dim.length === 0) || rank === 0) return Array.from({ length: rank }, (_, i) => i);
  const list: readonly number[] = typeof dim === 'number' ? [dim] : dim;
  return list.map((d) => (d < 0 ? d + rank : d)).sort((a, b) => a - b);
}

/** sum(f(xs) * w) differentiated by central differences, one input element at a time. */
export function finiteDiff(f: (xs: number[][]) => readonly number[], xs: readonly number[][], w: readonly number[], h = 1e-6): number[][] {
  const loss = (ys: number[][]): number => f(ys).reduce((a, v, i) => a + v * w[i]!, 0);
  return xs.map((x, k) =>
    x.map((_, j) => {
      const plus = xs.map((v) => [...v]);
      const minus = xs.map((v) => [...v]);
      plus[k]![j]! += h;
      minus[k]![j]! -= h;
      return (loss(plus) - loss(minus)) / (2 * h);
    }),
  );
}

/** The first element that differs (NaN matches NaN, an infinity only itself), described; or undefined. */
export function mismatch(actual: ArrayLike<number>, expected: readonly number[], atol = 1e-5, rtol = 1e-5): string | undefined {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Number.isNaN(e) ? Number.isNaN(a) : !Number.isFinite(e) ? a === e : Math.abs(a - e) <= atol + rtol * Math.abs(e)) continue;
    return `element ${i}: got ${a}, expected ${e}`;
  }
  return undefined;
}

/** Seeded uniform numbers in [lo, hi), rounded to float32. */
export function randoms(n: number, seed: number, lo = -2, hi = 2): number[] {
  let s = seed >>> 0 || 1;
  return Array.from({ length: n }, () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return Math.fround(lo + ((s >>> 0) / 2 ** 32) * (hi - lo));
  });
}

/** A float32 tensor of `values` on the backend, tracked for gradients. */
export function leaf(b: AD, values: readonly number[], shape: readonly number[]): F {
  return fromData(b, Float32Array.from(values), { shape }).requireGrad();
}

/** `out`'s values, and the gradients of sum(out * w) for `xs` (undefined where backward did not reach). */
export async function valuesAndGrads(b: AD, out: F, xs: readonly F[], w: readonly number[]): Promise<{ values: Float32Array; grads: Array<Float32Array | undefined> }> {
  const values = (await out.toData()).values;
  const wt = fromData(b, Float32Array.from(w), { shape: out.shape });
  const l = out.mul(wt).sum();
  const g = l.backward();
  const grads: Array<Float32Array | undefined> = [];
  for (const x of xs) {
    const gx = x.grad(g);
    grads.push(gx === undefined ? undefined : (await gx.toData()).values);
  }
  g.dispose();
  for (const t of [wt, l]) t.dispose();
  return { values, grads };
}

/** numpy broadcasting of two shapes (the test inputs always broadcast). */
export function broadcastShape(a: readonly number[], b: readonly number[]): number[] {
  const r = Math.max(a.length, b.length);
  return Array.from({ length: r }, (_, i) => {
    const x = a[a.length - r + i] ?? 1;
    const y = b[b.length - r + i] ?? 1;
    return x === 1 ? y : x;
  });
}

/** `x` repeated along its size-1 (and missing leading) dims to `shape`. */
export function broadcastTo(x: Arr, shape: readonly number[]): Arr {
  const off = shape.length - x.shape.length;
  const data = Array.from({ length: numel(shape) }, (_, i) => {
    const idx = unravel(i, shape).slice(off).map((v, d) => (x.shape[d] === 1 ? 0 : v));
    return x.data[ravel(idx, x.shape)]!;
  });
  return { shape, data };
}

/** Applies `fn` to each line along `dims` (the values in row-major order), writing its results back in place. */
export function mapGroups(x: Arr, dims: readonly number[], fn: (values: number[]) => number[]): Arr {
  const outShape = x.shape.map((n, d) => (dims.includes(d) ? 1 : n));
  const members: number[][] = Array.from({ length: numel(outShape) }, () => []);
  for (let i = 0; i < x.data.length; i++) {
    const idx = unravel(i, x.shape).map((v, d) => (dims.includes(d) ? 0 : v));
    members[ravel(idx, outShape)]!.push(i);
  }
  const data = [...x.data];
  for (const m of members) {
    const r = fn(m.map((i) => x.data[i]!));
    m.forEach((i, k) => (data[i] = r[k]!));
  }
  return { shape: x.shape, data };
}

/** The p-norm of a list in float64 (NaN propagates; p = 0 counts non-zeros, NaN included). */
export function norm64(v: readonly number[], p: number): number {
  const a = v.map(Math.abs);
  if (a.some(Number.isNaN)) return NaN;
  if (p === Infinity) return Math.max(...a);
  if (p === -Infinity) return Math.min(...a);
  if (p === 0) return v.filter((x) => x !== 0).length;
  return a.reduce((s, x) => s + x ** p, 0) ** (1 / p);
}
