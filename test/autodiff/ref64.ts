/**
 * A float64 reference interpreter for the gradient checks: each op's forward written again,
 * independently of the library, so finite differences see exact-enough values.
 */
export interface Arr {
  readonly shape: readonly number[];
  readonly data: Float64Array;
}

export function arr(shape: readonly number[], data: ArrayLike<number>): Arr {
  return { shape: [...shape], data: Float64Array.from(data) };
}

export function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function strides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

function unravel(i: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    idx[d] = i % shape[d]!;
    i = Math.floor(i / shape[d]!);
  }
  return idx;
}

function ravel(idx: readonly number[], shape: readonly number[]): number {
  let p = 0;
  for (let d = 0; d < shape.length; d++) p = p * shape[d]! + idx[d]!;
  return p;
}

/** Builds an array of `shape` from a function of the multi-index. */
export function build(shape: readonly number[], f: (idx: number[]) => number): Arr {
  const n = size(shape);
  const data = new Float64Array(n);
  for (let i = 0; i < n; i++) data[i] = f(unravel(i, shape));
  return { shape: [...shape], data };
}

/** Reads `a` at a multi-index of a broadcast shape (aligned from the right, size-1 dims stretch). */
function at(a: Arr, idx: readonly number[]): number {
  const off = idx.length - a.shape.length;
  let p = 0;
  for (let d = 0; d < a.shape.length; d++) p = p * a.shape[d]! + (a.shape[d] === 1 ? 0 : idx[d + off]!);
  return a.data[p]!;
}

function broadcastShape(...shapes: ReadonlyArray<readonly number[]>): number[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  return Array.from({ length: rank }, (_, i) => Math.max(...shapes.map((s) => s[s.length - rank + i] ?? 1)));
}

export function map(a: Arr, f: (x: number) => number): Arr {
  return { shape: a.shape, data: a.data.map(f) };
}

export function zip(a: Arr, b: Arr, f: (x: number, y: number) => number): Arr {
  const shape = broadcastShape(a.shape, b.shape);
  return build(shape, (idx) => f(at(a, idx), at(b, idx)));
}

export function where(c: Arr, x: Arr, y: Arr): Arr {
  const shape = broadcastShape(c.shape, x.shape, y.shape);
  return build(shape, (idx) => (at(c, idx) !== 0 ? at(x, idx) : at(y, idx)));
}

export type Reducer = 'sum' | 'mean' | 'max' | 'min' | 'prod';

export function reduce(a: Arr, kind: Reducer, dim: number | null, keepDims = false): Arr {
  const dims = dim === null ? a.shape.map((_, i) => i) : [dim];
  const outKeep = a.shape.map((d, i) => (dims.includes(i) ? 1 : d));
  const acc = new Map<number, number[]>();
  for (let i = 0; i < a.data.length; i++) {
    const idx = unravel(i, a.shape).map((v, d) => (dims.includes(d) ? 0 : v));
    const k = ravel(idx, outKeep);
    let list = acc.get(k);
    if (!list) acc.set(k, (list = []));
    list.push(a.data[i]!);
  }
  const out = build(outKeep, (idx) => {
    const xs = acc.get(ravel(idx, outKeep)) ?? [];
    switch (kind) {
      case 'sum':
        return xs.reduce((s, x) => s + x, 0);
      case 'mean':
        return xs.reduce((s, x) => s + x, 0) / xs.length;
      case 'max':
        return Math.max(...xs);
      case 'min':
        return Math.min(...xs);
      case 'prod':
        return xs.reduce((s, x) => s * x, 1);
    }
  });
  return keepDims ? out : { shape: dim === null ? [] : a.shape.filter((_, i) => i !== dim), data: out.data };
}

export function reshape(a: Arr, shape: readonly number[]): Arr {
  return { shape: [...shape], data: a.data };
}

export function permute(a: Arr, dims: readonly number[]): Arr {
  const shape = dims.map((d) => a.shape[d]!);
  const st = strides(a.shape);
  return build(shape, (idx) => a.data[idx.reduce((p, v, i) => p + v * st[dims[i]!]!, 0)]!);
}

export interface Range {
  start: number;
  end: number;
  step: number;
}

export function slice(a: Arr, ranges: readonly Range[]): Arr {
  const shape = ranges.map((r) => Math.max(0, Math.ceil((r.end - r.start) / r.step)));
  return build(shape, (idx) => a.data[ravel(idx.map((v, d) => ranges[d]!.start + v * ranges[d]!.step), a.shape)]!);
}

export function expand(a: Arr, shape: readonly number[]): Arr {
  return build(shape, (idx) => at(a, idx));
}

export function cat(parts: readonly Arr[], dim: number): Arr {
  const shape = [...parts[0]!.shape];
  shape[dim] = parts.reduce((s, p) => s + p.shape[dim]!, 0);
  return build(shape, (idx) => {
    let i = idx[dim]!;
    for (const p of parts) {
      if (i < p.shape[dim]!) return p.data[ravel(idx.map((v, d) => (d === dim ? i : v)), p.shape)]!;
      i -= p.shape[dim]!;
    }
    throw new Error('unreachable');
  });
}

export function sliceAssign(a: Arr, ranges: readonly Range[], v: Arr): Arr {
  const data = Float64Array.from(a.data);
  for (let i = 0; i < v.data.length; i++) {
    const idx = unravel(i, v.shape).map((x, d) => ranges[d]!.start + x * ranges[d]!.step);
    data[ravel(idx, a.shape)] = v.data[i]!;
  }
  return { shape: a.shape, data };
}

export function gather(a: Arr, dim: number, index: Arr): Arr {
  return build(index.shape, (idx) => a.data[ravel(idx.map((v, d) => (d === dim ? index.data[ravel(idx, index.shape)]! : v)), a.shape)]!);
}

export function scatterAdd(a: Arr, dim: number, index: Arr, src: Arr): Arr {
  const data = Float64Array.from(a.data);
  for (let i = 0; i < src.data.length; i++) {
    const idx = unravel(i, src.shape);
    idx[dim] = index.data[i]!;
    const p = ravel(idx, a.shape);
    data[p] = data[p]! + src.data[i]!;
  }
  return { shape: a.shape, data };
}

export function indexSelect(a: Arr, dim: number, index: Arr): Arr {
  const shape = a.shape.map((d, i) => (i === dim ? index.data.length : d));
  return build(shape, (idx) => a.data[ravel(idx.map((v, d) => (d === dim ? index.data[v]! : v)), a.shape)]!);
}

export function softmax(a: Arr, dim: number, log = false): Arr {
  const mx = reduce(a, 'max', dim, true);
  const e = zip(a, mx, (x, m) => Math.exp(x - m));
  const s = reduce(e, 'sum', dim, true);
  if (!log) return zip(e, s, (x, t) => x / t);
  return zip(zip(a, mx, (x, m) => x - m), s, (x, t) => x - Math.log(t));
}

/** Batched matmul with broadcast batch dims (rank >= 2 operands). */
export function matmul(a: Arr, b: Arr): Arr {
  const m = a.shape[a.shape.length - 2]!;
  const k = a.shape[a.shape.length - 1]!;
  const n = b.shape[b.shape.length - 1]!;
  const batch = broadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2));
  const shape = [...batch, m, n];
  return build(shape, (idx) => {
    const bi = idx.slice(0, -2);
    const i = idx[idx.length - 2]!;
    const j = idx[idx.length - 1]!;
    let s = 0;
    for (let p = 0; p < k; p++) s += at(a, [...bi, i, p]) * at(b, [...bi, p, j]);
    return s;
  });
}

/** erf by its Taylor series: accurate to ~1e-13 for |x| <= 3. */
export function erf(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 1; n < 100; n++) {
    term *= (-x * x) / n;
    const t = term / (2 * n + 1);
    sum += t;
    if (Math.abs(t) < 1e-17) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}
