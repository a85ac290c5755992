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

/** torch.nn.functional.pad: (before, after) pairs from the last dim backwards. */
export function pad(a: Arr, pads: readonly number[], mode: 'constant' | 'reflect' | 'replicate' | 'circular', value: number): Arr {
  const r = a.shape.length;
  const before = a.shape.map(() => 0);
  const after = a.shape.map(() => 0);
  for (let k = 0; k < pads.length / 2; k++) {
    before[r - 1 - k] = at(pads, 2 * k);
    after[r - 1 - k] = at(pads, 2 * k + 1);
  }
  const shape = a.shape.map((n, d) => n + at(before, d) + at(after, d));
  const data: number[] = [];
  for (let i = 0; i < size(shape); i++) {
    const idx = unravel(i, shape);
    let inside = true;
    const src = idx.map((o, d) => {
      const n = at(a.shape, d);
      const j = o - at(before, d);
      if (j >= 0 && j < n) return j;
      inside = inside && mode !== 'constant';
      if (mode === 'replicate') return j < 0 ? 0 : n - 1;
      if (mode === 'circular') return ((j % n) + n) % n;
      if (mode === 'reflect') return j < 0 ? -j : 2 * (n - 1) - j;
      return 0;
    });
    data.push(inside ? get(a, src) : value);
  }
  return { shape, data };
}

/** softmax(q k^T * scale + bias) v for rank-3 [B, L, E] inputs, `bias` a [L, S] grid (or none), `keep` a dropout factor grid [B, L, S]. */
export function attention(q: Arr, k: Arr, v: Arr, scale: number, bias?: (l: number, s: number) => number, keep?: (b: number, l: number, s: number) => number): Arr {
  const [B, L, E] = [at(q.shape, 0), at(q.shape, 1), at(q.shape, 2)];
  const S = at(k.shape, 1);
  const Ev = at(v.shape, 2);
  const data: number[] = [];
  for (let b = 0; b < B; b++) {
    for (let l = 0; l < L; l++) {
      const scores: number[] = [];
      for (let s = 0; s < S; s++) {
        let dot = 0;
        for (let e = 0; e < E; e++) dot += get(q, [b, l, e]) * get(k, [b, s, e]);
        scores.push(dot * scale + (bias ? bias(l, s) : 0));
      }
      const m = Math.max(...scores);
      const ex = scores.map((x) => Math.exp(x - m));
      const z = ex.reduce((p, x) => p + x, 0);
      const w = ex.map((x, s) => (x / z) * (keep ? keep(b, l, s) : 1));
      for (let e = 0; e < Ev; e++) data.push(w.reduce((p, x, s) => p + x * get(v, [b, s, e]), 0));
    }
  }
  return { shape: [B, L, Ev], data };
}
