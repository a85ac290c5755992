/**
 * The float64 reference: plain JS loops over flat row-major arrays with our own shape and
 * index math. Nothing here calls the library (only its types are shared), so a bug in the
 * code under test cannot leak into the expected values.
 */

/** A dense row-major array of float64 numbers. */
export interface Arr {
  readonly shape: readonly number[];
  readonly data: readonly number[];
}

export function arr(shape: readonly number[], data: readonly number[]): Arr {
  if (size(shape) !== data.length) throw new Error(`reference: ${data.length} values for shape [${shape.join(', ')}]`);
  return { shape: [...shape], data: [...data] };
}

export function size(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function stridesOf(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length).fill(0);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    out[i] = s;
    s *= at(shape, i);
  }
  return out;
}

/** `xs[i]`, throwing on a hole (keeps the reference honest under noUncheckedIndexedAccess). */
export function at<T>(xs: ArrayLike<T>, i: number): T {
  const v = xs[i];
  if (v === undefined) throw new Error(`reference: index ${i} out of range (length ${xs.length})`);
  return v;
}

export function unravel(flat: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length).fill(0);
  let r = flat;
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = at(shape, i);
    idx[i] = r % d;
    r = Math.floor(r / d);
  }
  return idx;
}

export function ravel(idx: readonly number[], shape: readonly number[]): number {
  let f = 0;
  for (let i = 0; i < shape.length; i++) f = f * at(shape, i) + at(idx, i);
  return f;
}

export function get(a: Arr, idx: readonly number[]): number {
  return at(a.data, ravel(idx, a.shape));
}

/** numpy broadcasting of several shapes (aligned right; 1 stretches). */
export function broadcastShape(...shapes: ReadonlyArray<readonly number[]>): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const k = s.length - rank + i;
      const v = k < 0 ? 1 : at(s, k);
      if (v === 1) continue;
      if (d !== 1 && d !== v) throw new Error(`reference: shapes not broadcastable: ${shapes.map((x) => `[${x.join(',')}]`).join(' ')}`);
      d = v;
    }
    out.push(d);
  }
  return out;
}

/** The element of `a` that output index `outIdx` (of a broadcast result) reads. */
function bcGet(a: Arr, outIdx: readonly number[]): number {
  const off = outIdx.length - a.shape.length;
  let f = 0;
  for (let i = 0; i < a.shape.length; i++) {
    const d = at(a.shape, i);
    f = f * d + (d === 1 ? 0 : at(outIdx, i + off));
  }
  return at(a.data, f);
}

/** Elementwise over broadcast inputs. */
export function map(inputs: readonly Arr[], f: (...xs: number[]) => number): Arr {
  const shape = broadcastShape(...inputs.map((a) => a.shape));
  const n = size(shape);
  const data: number[] = [];
  for (let i = 0; i < n; i++) {
    const idx = unravel(i, shape);
    data.push(f(...inputs.map((a) => bcGet(a, idx))));
  }
  return { shape, data };
}

export function broadcastTo(a: Arr, shape: readonly number[]): Arr {
  const target: Arr = { shape, data: new Array<number>(size(shape)).fill(0) };
  const out = map([a, target], (x) => x);
  if (out.shape.join(',') !== shape.join(',')) throw new Error('reference: broadcastTo changed the target shape');
  return out;
}

/** Reduces along `dim` (or over everything when null) with `f` over the list of values. */
export function reduce(a: Arr, dim: number | null, keepDims: boolean, f: (vals: number[]) => number): Arr {
  if (dim === null) {
    const v = f([...a.data]);
    return { shape: keepDims ? a.shape.map(() => 1) : [], data: [v] };
  }
  if (a.shape.length === 0) return { shape: [], data: [f([...a.data])] };
  const d = dim < 0 ? dim + a.shape.length : dim;
  const outShape = a.shape.map((s, i) => (i === d ? 1 : s));
  const n = size(outShape);
  const data: number[] = [];
  for (let i = 0; i < n; i++) {
    const idx = unravel(i, outShape);
    const vals: number[] = [];
    for (let k = 0; k < at(a.shape, d); k++) {
      idx[d] = k;
      vals.push(get(a, idx));
    }
    data.push(f(vals));
  }
  return { shape: keepDims ? outShape : a.shape.filter((_, i) => i !== d), data };
}

export const reducers = {
  sum: (v: number[]) => v.reduce((s, x) => s + x, 0),
  mean: (v: number[]) => (v.length === 0 ? NaN : v.reduce((s, x) => s + x, 0) / v.length),
  prod: (v: number[]) => v.reduce((s, x) => s * x, 1),
  max: (v: number[]) => v.reduce((m, x) => (Number.isNaN(m) || Number.isNaN(x) ? NaN : x > m ? x : m), -Infinity),
  min: (v: number[]) => v.reduce((m, x) => (Number.isNaN(m) || Number.isNaN(x) ? NaN : x < m ? x : m), Infinity),
  /** First index of the maximum; NaN counts as larger than everything (first NaN wins). */
  argmax: (v: number[]) => {
    let best = 0;
    for (let i = 1; i < v.length; i++) {
      const b = at(v, best);
      const x = at(v, i);
      if (Number.isNaN(b)) break;
      if (Number.isNaN(x) || x > b) best = i;
    }
    return best;
  },
  /** First index of the minimum; NaN counts as smaller than everything (torch.argmin). */
  argmin: (v: number[]) => {
    let best = 0;
    for (let i = 1; i < v.length; i++) {
      const b = at(v, best);
      const x = at(v, i);
      if (Number.isNaN(b)) break;
      if (Number.isNaN(x) || x < b) best = i;
    }
    return best;
  },
} as const;

export function permute(a: Arr, dims: readonly number[]): Arr {
  const shape = dims.map((d) => at(a.shape, d));
  const n = size(shape);
  const data: number[] = [];
  for (let i = 0; i < n; i++) {
    const oi = unravel(i, shape);
    const ii = new Array<number>(a.shape.length).fill(0);
    dims.forEach((d, k) => (ii[d] = at(oi, k)));
    data.push(get(a, ii));
  }
  return { shape, data };
}

export function reshape(a: Arr, shape: readonly number[]): Arr {
  const known = shape.reduce((p, d) => (d === -1 ? p : p * d), 1);
  const out = shape.map((d) => (d === -1 ? a.data.length / known : d));
  if (size(out) !== a.data.length) throw new Error('reference: bad reshape');
  return { shape: out, data: [...a.data] };
}

/** A Python slice of one dim (step > 0), or an integer index that keeps the dim (size 1). */
export type PySlice = { start?: number | null; stop?: number | null; step?: number } | number;

/** Python's slice.indices for positive steps: negative bounds count from the end, then clamp. */
function pyIndices(s: PySlice | undefined, n: number): number[] {
  if (s === undefined) return Array.from({ length: n }, (_, i) => i);
  if (typeof s === 'number') return [s < 0 ? s + n : s];
  const step = s.step ?? 1;
  const norm = (v: number | null | undefined, dflt: number) => {
    if (v === null || v === undefined) return dflt;
    const w = v < 0 ? v + n : v;
    return Math.min(Math.max(w, 0), n);
  };
  const start = norm(s.start, 0);
  const stop = norm(s.stop, n);
  const out: number[] = [];
  for (let i = start; i < stop; i += step) out.push(i);
  return out;
}

/** Indexes per dim for a slice; dims beyond `specs` are taken whole. */
export function sliceIndices(shape: readonly number[], specs: readonly PySlice[]): number[][] {
  return shape.map((n, d) => pyIndices(specs[d], n));
}

export function slice(a: Arr, specs: readonly PySlice[]): Arr {
  const picks = sliceIndices(a.shape, specs);
  const shape = picks.map((p) => p.length);
  const n = size(shape);
  const data: number[] = [];
  for (let i = 0; i < n; i++) {
    const oi = unravel(i, shape);
    data.push(get(a, oi.map((k, d) => at(at(picks, d), k))));
  }
  return { shape, data };
}

export function sliceAssign(a: Arr, specs: readonly PySlice[], v: Arr): Arr {
  const picks = sliceIndices(a.shape, specs);
  const shape = picks.map((p) => p.length);
  const data = [...a.data];
  const n = size(shape);
  for (let i = 0; i < n; i++) {
    const oi = unravel(i, shape);
    data[ravel(oi.map((k, d) => at(at(picks, d), k)), a.shape)] = at(v.data, i);
  }
  return { shape: [...a.shape], data };
}

export function cat(parts: readonly Arr[], dim: number): Arr {
  const first = at(parts, 0);
  const d = dim < 0 ? dim + first.shape.length : dim;
  const shape = first.shape.map((s, i) => (i === d ? parts.reduce((t, p) => t + at(p.shape, d), 0) : s));
  const n = size(shape);
  const data: number[] = [];
  for (let i = 0; i < n; i++) {
    const idx = unravel(i, shape);
    let k = at(idx, d);
    let p = 0;
    while (k >= at(at(parts, p).shape, d)) {
      k -= at(at(parts, p).shape, d);
      p++;
    }
    idx[d] = k;
    data.push(get(at(parts, p), idx));
  }
  return { shape, data };
}

export function stack(parts: readonly Arr[], dim: number): Arr {
  const r = at(parts, 0).shape.length + 1;
  const d = dim < 0 ? dim + r : dim;
  return cat(
    parts.map((p) => {
      const s = [...p.shape];
      s.splice(d, 0, 1);
      return { shape: s, data: p.data };
    }),
    d,
  );
}

/** torch.Tensor.repeat. */
export function repeat(a: Arr, reps: readonly number[]): Arr {
  const src = [...new Array<number>(reps.length - a.shape.length).fill(1), ...a.shape];
  const shape = src.map((s, i) => s * at(reps, i));
  const n = size(shape);
  const data: number[] = [];
  const base: Arr = { shape: src, data: a.data };
  for (let i = 0; i < n; i++) data.push(get(base, unravel(i, shape).map((k, d) => k % at(src, d))));
  return { shape, data };
}

export function gather(a: Arr, dim: number, index: Arr): Arr {
  const data: number[] = [];
  for (let i = 0; i < index.data.length; i++) {
    const idx = unravel(i, index.shape);
    idx[dim] = at(index.data, i);
    data.push(get(a, idx));
  }
  return { shape: [...index.shape], data };
}

export function scatterAdd(a: Arr, dim: number, index: Arr, src: Arr, combine: (x: number, y: number) => number = (x, y) => x + y): Arr {
  const data = [...a.data];
  for (let i = 0; i < index.data.length; i++) {
    const idx = unravel(i, index.shape);
    idx[dim] = at(index.data, i);
    const f = ravel(idx, a.shape);
    data[f] = combine(at(data, f), at(src.data, i));
  }
  return { shape: [...a.shape], data };
}

export function indexSelect(a: Arr, dim: number, indices: readonly number[]): Arr {
  const shape = a.shape.map((s, i) => (i === dim ? indices.length : s));
  const n = size(shape);
  const data: number[] = [];
  for (let i = 0; i < n; i++) {
    const idx = unravel(i, shape);
    idx[dim] = at(indices, at(idx, dim));
    data.push(get(a, idx));
  }
  return { shape, data };
}

/** torch.matmul: 1-D operands are promoted (and the added dim removed); batch dims broadcast. */
export function matmul(a: Arr, b: Arr): Arr {
  const a2: Arr = a.shape.length === 1 ? { shape: [1, at(a.shape, 0)], data: a.data } : a;
  const b2: Arr = b.shape.length === 1 ? { shape: [at(b.shape, 0), 1], data: b.data } : b;
  const m = at(a2.shape, a2.shape.length - 2);
  const k = at(a2.shape, a2.shape.length - 1);
  const n = at(b2.shape, b2.shape.length - 1);
  if (at(b2.shape, b2.shape.length - 2) !== k) throw new Error('reference: matmul inner dims differ');
  const batch = broadcastShape(a2.shape.slice(0, -2), b2.shape.slice(0, -2));
  const shape = [...batch, m, n];
  const data: number[] = [];
  const total = size(shape);
  const aBatch = a2.shape.slice(0, -2);
  const bBatch = b2.shape.slice(0, -2);
  const pick = (bs: readonly number[], bi: readonly number[]) => bs.map((d, i) => (d === 1 ? 0 : at(bi, i + bi.length - bs.length)));
  for (let f = 0; f < total; f++) {
    const idx = unravel(f, shape);
    const bi = idx.slice(0, -2);
    const i = at(idx, idx.length - 2);
    const j = at(idx, idx.length - 1);
    const ai = pick(aBatch, bi);
    const bj = pick(bBatch, bi);
    let s = 0;
    for (let p = 0; p < k; p++) s += get(a2, [...ai, i, p]) * get(b2, [...bj, p, j]);
    data.push(s);
  }
  let outShape = shape;
  if (a.shape.length === 1) outShape = outShape.filter((_, i) => i !== outShape.length - 2);
  if (b.shape.length === 1) outShape = outShape.slice(0, -1);
  return { shape: outShape, data };
}

export function softmax(a: Arr, dim: number, log: boolean): Arr {
  const r = a.shape.length;
  if (r === 0) return { shape: [], data: [log ? 0 : 1] };
  const d = dim < 0 ? dim + r : dim;
  const data = new Array<number>(a.data.length).fill(0);
  const lineShape = a.shape.map((s, i) => (i === d ? 1 : s));
  const lines = size(lineShape);
  for (let l = 0; l < lines; l++) {
    const idx = unravel(l, lineShape);
    const flats: number[] = [];
    for (let k = 0; k < at(a.shape, d); k++) {
      idx[d] = k;
      flats.push(ravel(idx, a.shape));
    }
    const xs = flats.map((f) => at(a.data, f));
    const m = xs.reduce((p, x) => Math.max(p, x), -Infinity);
    const sum = xs.reduce((p, x) => p + Math.exp(x - m), 0);
    flats.forEach((f, k) => {
      const x = at(xs, k);
      data[f] = log ? x - m - Math.log(sum) : Math.exp(x - m) / sum;
    });
  }
  return { shape: [...a.shape], data };
}

// ---- scalar math ---------------------------------------------------------------------------

/** erf in float64: Maclaurin series below 2.5, a continued fraction for erfc above. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return -1;
  const ax = Math.abs(x);
  let r: number;
  if (ax < 2.5) {
    // erf x = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    let term = ax;
    let s = ax;
    for (let n = 1; n < 200; n++) {
      term *= (-ax * ax) / n;
      const add = term / (2 * n + 1);
      s += add;
      if (Math.abs(add) < 1e-17 * Math.abs(s)) break;
    }
    r = (2 / Math.sqrt(Math.PI)) * s;
  } else {
    // erfc x = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
    let t = ax;
    for (let n = 120; n >= 1; n--) t = ax + n / 2 / t;
    r = 1 - Math.exp(-ax * ax) / (Math.sqrt(Math.PI) * t);
  }
  return x < 0 ? -r : r;
}

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

export function gelu(x: number): number {
  return 0.5 * x * (1 + erf(x / Math.SQRT2));
}

/** Python / torch.remainder for floats: the result takes the sign of the divisor. */
export function remainderF(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

/** C99 pow (what torch.pow follows): x^0 = 1 and 1^y = 1 even for NaN, (-1)^(+-inf) = 1. */
export function powF(a: number, b: number): number {
  if (b === 0 || a === 1) return 1;
  if (a === -1 && (b === Infinity || b === -Infinity)) return 1;
  return Math.pow(a, b);
}

export function maximumF(a: number, b: number): number {
  return Number.isNaN(a) || Number.isNaN(b) ? NaN : a > b ? a : b;
}

export function minimumF(a: number, b: number): number {
  return Number.isNaN(a) || Number.isNaN(b) ? NaN : a < b ? a : b;
}

export function signF(x: number): number {
  return Number.isNaN(x) ? NaN : x > 0 ? 1 : x < 0 ? -1 : 0;
}

// ---- int32 math (BigInt, then wrapped to 32 bits) ------------------------------------------------

export function wrap(x: bigint): number {
  return Number(BigInt.asIntN(32, x));
}

export const intOps = {
  add: (a: number, b: number) => wrap(BigInt(a) + BigInt(b)),
  sub: (a: number, b: number) => wrap(BigInt(a) - BigInt(b)),
  mul: (a: number, b: number) => wrap(BigInt(a) * BigInt(b)),
  /** Floor division (Python //); x / 0 is 0. */
  div: (a: number, b: number) => {
    if (b === 0) return 0;
    const A = BigInt(a);
    const B = BigInt(b);
    let q = A / B; // truncates
    if (A % B !== 0n && A < 0n !== B < 0n) q -= 1n;
    return wrap(q);
  },
  /** Sign of the divisor (Python %). */
  remainder: (a: number, b: number) => {
    if (b === 0) return 0;
    const A = BigInt(a);
    const B = BigInt(b);
    let r = A % B;
    if (r !== 0n && r < 0n !== B < 0n) r += B;
    return wrap(r);
  },
  pow: (a: number, b: number) => wrap(BigInt(a) ** BigInt(b)),
  maximum: (a: number, b: number) => (a > b ? a : b),
  minimum: (a: number, b: number) => (a < b ? a : b),
} as const;

/** float -> int32: truncates toward zero, NaN -> 0. */
export function truncToInt(x: number): number {
  if (Number.isNaN(x)) return 0;
  return wrap(BigInt(Math.trunc(x)));
}
