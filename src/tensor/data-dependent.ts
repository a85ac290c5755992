/**
 * Ops whose output shape depends on the values (TF.js's whereAsync / booleanMaskAsync): they read
 * a mask or the values back, so they are async. nonzero and unique's results are new int / value
 * tensors (no gradient, as torch); maskedSelect gathers from x at the positions read, so its
 * gradient flows back to the selected elements.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import type { Kind } from '../ir/dtype.js';
import { broadcastShapes, checkSize, normDim } from '../ir/shape.js';
import { checkBoolean, checkInteger, checkOptions } from '../ir/validate.js';
import { fromData } from './creation.js';
import { checkTensor, type Tensor } from './tensor.js';

/** The truth of each element (non-zero; NaN counts), read back as 0 / 1 bytes. */
async function truthOf(x: Tensor<Backend, Kind>): Promise<ArrayLike<number>> {
  if (x.dtype === 'bool') return (await x.toData()).values;
  const t = x.notEqual(0);
  try {
    return (await t.toData()).values;
  } finally {
    t.dispose();
  }
}

/** torch.nonzero: the int32 coordinates [count, rank] of the non-zero elements, row-major order; asTuple: one [count] tensor per dim. */
export async function nonzero<B extends Backend>(x: Tensor<B, Kind>, asTuple: boolean): Promise<Tensor<B, 'int'> | Array<Tensor<B, 'int'>>> {
  checkBoolean('nonzero', 'asTuple', asTuple);
  x.live('nonzero');
  const truth = await truthOf(x);
  const shape = x.shape;
  const rank = shape.length;
  const hits: number[] = [];
  for (let i = 0; i < truth.length; i++) if (truth[i]) hits.push(i);
  const coords = new Int32Array(hits.length * rank);
  hits.forEach((flat, row) => {
    let rest = flat;
    for (let k = rank - 1; k >= 0; k--) {
      coords[row * rank + k] = rest % shape[k]!;
      rest = Math.floor(rest / shape[k]!);
    }
  });
  if (!asTuple) return fromData(x.backend, coords, { shape: [hits.length, rank], device: x.device });
  // torch treats a rank-0 input as rank 1 here.
  if (rank === 0) return [fromData(x.backend, Int32Array.from(hits), { device: x.device })];
  return shape.map((_, k) => fromData(x.backend, Int32Array.from(hits, (_h, row) => coords[row * rank + k]!), { device: x.device }));
}

/** torch.masked_select: the elements of x (broadcast with the bool mask) where the mask is true, as 1-D. */
export async function maskedSelect<B extends Backend, K extends Kind>(x: Tensor<B, K>, mask: Tensor<B, 'bool'>): Promise<Tensor<B, K>> {
  checkTensor('maskedSelect', 'the mask', mask);
  if (mask.dtype !== 'bool') throw new DTypeError(`the mask must be bool, got ${mask.dtype}`, { op: 'maskedSelect', dtypes: [mask.dtype], hint: 'compare to make a mask, or .cast("bool")' });
  x.live('maskedSelect');
  mask.live('maskedSelect');
  const shape = broadcastShapes('maskedSelect', x.shape, mask.shape);
  const me = mask.expand(shape);
  let truth: ArrayLike<number>;
  try {
    truth = (await me.toData()).values;
  } finally {
    me.dispose();
  }
  const picks: number[] = [];
  for (let i = 0; i < truth.length; i++) if (truth[i]) picks.push(i);
  // Made inside the try: x may have been disposed while the mask was read, and what was made
  // before the throw must not leak.
  const temps: Array<Tensor<B, Kind>> = [];
  try {
    const xe = x.expand(shape);
    temps.push(xe);
    const flat = xe.reshape([truth.length]);
    temps.push(flat);
    const idx = fromData(x.backend, Int32Array.from(picks), { device: x.device });
    temps.push(idx);
    return flat.gather(0, idx);
  } finally {
    for (const t of temps) t.dispose();
  }
}

export interface UniqueOptions {
  /** Ignored: the values always come sorted (torch's CPU order for sorted=false is a hash order). */
  readonly sorted?: boolean;
  readonly returnInverse?: boolean;
  readonly returnCounts?: boolean;
  /** Unique slices along this dim (compared lexicographically); omitted: unique elements of the flattened tensor. */
  readonly dim?: number;
}

export interface UniqueResult<B extends Backend, K extends Kind> {
  readonly values: Tensor<B, K>;
  /** int32, where each element (or slice along dim) of x went: x's shape, or [x.shape[dim]]. */
  readonly inverse?: Tensor<B, 'int'>;
  /** int32, how often each unique value (or slice) occurs. */
  readonly counts?: Tensor<B, 'int'>;
}

/** Ascending with NaN last; NaNs are each their own value (NaN != NaN), -0 equals 0. */
function compareNum(a: number, b: number): number {
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an && bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** torch.unique: the distinct values (or slices along dim) in ascending order, with the inverse and the counts when asked. */
export async function unique<B extends Backend, K extends Kind>(x: Tensor<B, K>, options: UniqueOptions): Promise<UniqueResult<B, K>> {
  const o = checkOptions('unique', options);
  for (const k of ['sorted', 'returnInverse', 'returnCounts'] as const) if (o[k] !== undefined) checkBoolean('unique', k, o[k]);
  const returnInverse = options.returnInverse ?? false;
  const returnCounts = options.returnCounts ?? false;
  x.live('unique');
  const dimGiven = o['dim'] !== undefined && o['dim'] !== null;
  if (dimGiven && x.rank === 0) throw new ArgumentError('unique over a dim needs a tensor of rank 1 or more', { op: 'unique' });
  const d = dimGiven ? normDim('unique', checkInteger('unique', 'dim', o['dim']), x.rank, x.shape) : -1;
  const { values } = await x.toData();
  const shape = x.shape;
  // Items: single elements, or the slices along d (each a list of numbers, in row-major order).
  const count = d < 0 ? values.length : shape[d]!;
  const inner = d < 0 ? 1 : shape.slice(d + 1).reduce((p, n) => p * n, 1);
  const outer = d < 0 ? 1 : shape.slice(0, d).reduce((p, n) => p * n, 1);
  // Flat: the elements compare directly (no per-element arrays: 1e6 elements would make 1e6 of
  // them); along d, each slice is gathered once as a list, compared lexicographically.
  const items = d < 0 ? [] : Array.from({ length: count }, (_, i) => {
    const out: number[] = [];
    for (let a = 0; a < outer; a++) for (let b = 0; b < inner; b++) out.push(values[(a * count + i) * inner + b]!);
    return out;
  });
  const cmp = (i: number, j: number): number => {
    if (d < 0) return compareNum(values[i]!, values[j]!);
    const p = items[i]!;
    const q = items[j]!;
    for (let k = 0; k < p.length; k++) {
      const c = compareNum(p[k]!, q[k]!);
      if (c !== 0) return c;
    }
    return 0;
  };
  const same = (i: number, j: number): boolean => (d < 0 ? values[i] === values[j] : items[i]!.every((v, k) => v === items[j]![k]));
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((i, j) => cmp(i, j) || i - j);
  const firsts: number[] = [];
  const counts: number[] = [];
  const inverse = new Int32Array(count);
  for (const i of order) {
    if (firsts.length === 0 || !same(firsts[firsts.length - 1]!, i)) {
      firsts.push(i);
      counts.push(0);
    }
    inverse[i] = firsts.length - 1;
    counts[counts.length - 1]!++;
  }
  // Made inside the try: x may have been disposed while its values were read, and what was made
  // before the throw must not leak.
  const temps: Array<Tensor<B, Kind>> = [];
  let out: Tensor<B, K>;
  try {
    const flat = d < 0 ? x.reshape([x.size]) : x;
    if (flat !== x) temps.push(flat);
    const picks = fromData(x.backend, Int32Array.from(firsts), { device: x.device });
    temps.push(picks);
    out = flat.indexSelect(d < 0 ? 0 : d, picks);
  } finally {
    for (const t of temps) t.dispose();
  }
  // The values come from an indexSelect of x: unique has no gradient in torch, so it is detached.
  const valuesOut = out.detach();
  out.dispose();
  return {
    values: valuesOut,
    ...(returnInverse ? { inverse: fromData(x.backend, inverse, { shape: d < 0 ? shape : [count], device: x.device }) } : {}),
    ...(returnCounts ? { counts: fromData(x.backend, Int32Array.from(counts), { device: x.device }) } : {}),
  };
}

/**
 * torch.repeat_interleave(x, repeats: Tensor, dim): entry i along `dim` repeated repeats[i] times
 * (without dim, of the flattened tensor). Async: the length depends on the repeats, read back; the
 * result is an indexSelect of x, so the gradient sums back over the copies.
 */
export async function repeatInterleaveBy<B extends Backend, K extends Kind>(x: Tensor<B, K>, repeats: Tensor<B, 'int'>, dim?: number | null): Promise<Tensor<B, K>> {
  checkTensor('repeatInterleave', 'the repeats', repeats);
  if (repeats.dtype !== 'int32') throw new DTypeError(`the repeats must be int32, got ${repeats.dtype}`, { op: 'repeatInterleave', dtypes: [repeats.dtype], hint: 'cast them with .cast("int32")' });
  x.live('repeatInterleave');
  const flatten = dim === undefined || dim === null;
  const d = flatten ? 0 : normDim('repeatInterleave', checkInteger('repeatInterleave', 'dim', dim), x.rank, x.shape);
  const n = flatten || x.rank === 0 ? x.size : x.shape[d]!;
  // torch: one repeat count for all, or one per entry.
  if (repeats.rank > 1 || (repeats.size !== n && repeats.size !== 1)) {
    const along = flatten ? 'the flattened tensor' : `dim ${d}`;
    throw new ShapeError(`the repeats [${repeats.shape.join(', ')}] must hold 1 or ${n} counts (one per entry of ${along})`, { op: 'repeatInterleave', shapes: [x.shape, repeats.shape] });
  }
  const counts = (await repeats.toData()).values;
  const countOf = (i: number): number => counts[counts.length === 1 ? 0 : i]!;
  // The output size is checked before any index is made: a huge count would otherwise grow a JS
  // array until V8 aborts (not a catchable error). The sum is exact in float64 (int32 counts).
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = countOf(i);
    if (r < 0) throw new ArgumentError(`repeats must be non-negative, got ${r} at ${i}`, { op: 'repeatInterleave' });
    total += r;
  }
  const outShape = flatten || x.rank === 0 ? [total] : x.shape.map((s, k) => (k === d ? total : s));
  checkSize('repeatInterleave', outShape, x.dtype);
  const picks = new Int32Array(total);
  for (let i = 0, at = 0; i < n; i++) {
    const r = countOf(i);
    picks.fill(i, at, at + r);
    at += r;
  }
  // Made inside the try, as unique's: x may have been disposed while the repeats were read.
  const temps: Array<Tensor<B, Kind>> = [];
  try {
    const line = flatten || x.rank === 0 ? x.reshape([x.size]) : x;
    if (line !== x) temps.push(line);
    const idx = fromData(x.backend, picks, { device: x.device });
    temps.push(idx);
    return line.indexSelect(flatten || x.rank === 0 ? 0 : d, idx);
  } finally {
    for (const t of temps) t.dispose();
  }
}
