/**
 * Float64 references for the reductions over several dims, scans, sorting, triangles, padding,
 * flips and rolls, and attention: plain loops over flat row-major arrays (ref.ts's helpers),
 * never the library.
 */
import { at, get, ravel, size, unravel, type Arr } from './ref.js';

/** Reduces over `dims` (all when null) with `f` over the values of each group, in row-major order. */
export function reduceDims(a: Arr, dims: readonly number[] | null, keepDims: boolean, f: (vals: number[]) => number): Arr {
  const r = a.shape.length;
  const ds = dims === null ? a.shape.map((_, i) => i) : dims.map((d) => (d < 0 ? d + r : d));
  const keptShape = a.shape.map((s, i) => (ds.includes(i) ? 1 : s));
  const groups: number[][] = Array.from({ length: size(keptShape) }, () => []);
  for (let i = 0; i < a.data.length; i++) {
    const idx = unravel(i, a.shape).map((v, d) => (ds.includes(d) ? 0 : v));
    at(groups, ravel(idx, keptShape)).push(at(a.data, i));
  }
  const data = groups.map(f);
  return { shape: keepDims ? keptShape : a.shape.filter((_, i) => !ds.includes(i)), data };
}

export function variance(vals: readonly number[], correction: number): number {
  const n = vals.length;
  const mean = vals.reduce((s, x) => s + x, 0) / n;
  const ss = vals.reduce((s, x) => s + (x - mean) * (x - mean), 0);
  return ss / Math.max(0, n - correction);
}

export function logsumexp(vals: readonly number[]): number {
  if (vals.some(Number.isNaN)) return NaN;
  if (vals.includes(Infinity)) return Infinity;
  const m = Math.max(...vals);
  if (m === -Infinity) return -Infinity;
  return m + Math.log(vals.reduce((s, x) => s + Math.exp(x - m), 0));
}

/** The value and first index of the extreme of a row (NaN is the extreme, the first NaN wins). */
export function extreme(vals: readonly number[], which: 'max' | 'min'): [number, number] {
  let best = 0;
  for (let i = 0; i < vals.length; i++) {
    const v = at(vals, i);
    if (Number.isNaN(v)) return [v, i];
    if (which === 'max' ? v > at(vals, best) : v < at(vals, best)) best = i;
  }
  return [at(vals, best), best];
}

/** Applies `f` to every line along `dim` (a list of values in order), writing its same-length result back. */
export function alongDim(a: Arr, dim: number, f: (line: number[]) => number[]): Arr {
  const r = a.shape.length;
  const d = dim < 0 ? dim + r : dim;
  const lineShape = a.shape.map((s, i) => (i === d ? 1 : s));
  const data = new Array<number>(a.data.length).fill(0);
  const n = at(a.shape, d);
  for (let l = 0; l < size(lineShape); l++) {
    const idx = unravel(l, lineShape);
    const flats: number[] = [];
    for (let k = 0; k < n; k++) {
      idx[d] = k;
      flats.push(ravel(idx, a.shape));
    }
    const out = f(flats.map((p) => at(a.data, p)));
    flats.forEach((p, k) => (data[p] = at(out, k)));
  }
  return { shape: [...a.shape], data };
}

export function cumsum(line: readonly number[]): number[] {
  let s = 0;
  return line.map((x) => (s += x));
}

export function cumprod(line: readonly number[]): number[] {
  let p = 1;
  return line.map((x) => (p *= x));
}

/** torch.sort's order: ascending with NaN last (descending: NaN first); ties keep their order. Returns the source positions. */
export function sortOrder(line: readonly number[], descending: boolean): number[] {
  const idx = line.map((_, i) => i);
  const key = (v: number) => (Number.isNaN(v) ? Infinity : v);
  const rank = (v: number) => (Number.isNaN(v) ? 1 : 0);
  idx.sort((i, j) => {
    const a = at(line, i);
    const b = at(line, j);
    // NaN above +inf: compare the NaN flag first, then the value.
    const byNan = rank(a) - rank(b);
    const byValue = byNan !== 0 ? byNan : key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    return (descending ? -byValue : byValue) || i - j;
  });
  return idx;
}

/** Lines along `dim` replaced by `f(line)` of a possibly different length `m`. */
export function mapLines(a: Arr, dim: number, m: number, f: (line: number[]) => number[]): Arr {
  const r = a.shape.length;
  const d = dim < 0 ? dim + r : dim;
  const outShape = a.shape.map((s, i) => (i === d ? m : s));
  const lineShape = a.shape.map((s, i) => (i === d ? 1 : s));
  const data = new Array<number>(size(outShape)).fill(0);
  for (let l = 0; l < size(lineShape); l++) {
    const idx = unravel(l, lineShape);
    const line: number[] = [];
    for (let k = 0; k < at(a.shape, d); k++) {
      idx[d] = k;
      line.push(get(a, idx));
    }
    const out = f(line);
    for (let k = 0; k < m; k++) {
      idx[d] = k;
      data[ravel(idx, outShape)] = at(out, k);
    }
  }
  return { shape: outShape, data };
}
