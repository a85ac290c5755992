/**
 * Reductions built from the primitive ones (gradients come from theirs): logsumexp, any / all,
 * and max / min with indices; and var's argument checks. Each frees its temporaries.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { isFloat, type Kind } from '../ir/dtype.js';
import { normDim, normDims } from '../ir/shape.js';
import type { Tensor } from './tensor.js';

/** A reduction's dims: one dim, a list (empty: all), or null / omitted for all. */
export type Dims = number | readonly number[] | null | undefined;

export interface VarOptions {
  /** Subtracted from the count in the divisor: 1 (default) is the unbiased estimate, 0 the population variance. */
  readonly correction?: number;
  readonly keepDims?: boolean;
}

/** The dims a reduction covers, sorted, or every dim. */
export function coveredDims(op: string, dims: Dims, shape: readonly number[]): number[] {
  const all = shape.map((_, i) => i);
  if (dims === null || dims === undefined || shape.length === 0) {
    if (typeof dims === 'number') normDim(op, dims, 0, shape);
    return all;
  }
  if (typeof dims === 'number') return [normDim(op, dims, shape.length, shape)];
  const ds = normDims(op, dims, shape.length, shape);
  return ds.length === 0 ? all : ds;
}

function count(shape: readonly number[], dims: readonly number[]): number {
  return dims.reduce((n, d) => n * shape[d]!, 1);
}

/** Drops the reduced dims of a keepDims result (a view) and frees the kept one. */
function squeezeOwned<B extends Backend, K extends Kind>(t: Tensor<B, K>, dims: readonly number[], keepDims: boolean): Tensor<B, K> {
  if (keepDims) return t;
  const out = t.reshape(t.shape.filter((_, i) => !dims.includes(i)));
  t.dispose();
  return out;
}

/** The covered dims and checked options of var / std. */
export function varianceArgs(shape: readonly number[], dim: Dims, options: VarOptions, op: 'var' | 'std' = 'var'): { dims: number[]; correction: number; keepDims: boolean } {
  const correction = options.correction ?? 1;
  if (!Number.isFinite(correction)) throw new ArgumentError(`correction must be a finite number, got ${correction}`, { op });
  return { dims: coveredDims(op, dim, shape), correction, keepDims: options.keepDims ?? false };
}

export function logsumexp<B extends Backend>(x: Tensor<B, 'float'>, dim: Dims, keepDims: boolean): Tensor<B, 'float'> {
  // Checked first: the composite would make temporaries before its float-only step refused them.
  if (!isFloat(x.dtype)) throw new DTypeError(`dtype ${x.dtype} is not supported (accepts float)`, { op: 'logsumexp', dtypes: [x.dtype], hint: 'cast the input with .cast("float32")' });
  const dims = coveredDims('logsumexp', dim, x.shape);
  if (count(x.shape, dims) === 0) {
    // An empty sum of exps is 0: log gives -inf (torch).
    const s = x.sum(dims, true);
    const out = s.log();
    s.dispose();
    return squeezeOwned(out, dims, keepDims);
  }
  // The max is a constant of the graph (detached): the gradient is exactly softmax. Infinite maxima
  // shift by 0 instead, so rows of -inf give -inf and rows holding +inf give +inf (torch).
  const raw = x.max(dims, true);
  const m = raw.detach();
  const inf = m.isInf();
  const shift = m.maskFill(inf, 0);
  const centered = x.sub(shift);
  const e = centered.exp();
  const s = e.sum(dims, true);
  const l = s.log();
  const out = l.add(shift);
  for (const t of [raw, m, inf, shift, centered, e, s, l]) t.dispose();
  return squeezeOwned(out, dims, keepDims);
}

export function anyAll<B extends Backend>(x: Tensor<B, Kind>, which: 'any' | 'all', dim: Dims, keepDims: boolean): Tensor<B, 'bool'> {
  const dims = coveredDims(which, dim, x.shape);
  // Non-zero (NaN included) is true, as torch; then a count of the true elements.
  const truth: Tensor<B, Kind> = x.dtype === 'bool' ? x : x.notEqual(0);
  const ints = truth.cast('int32');
  const hits = ints.sum(dims, true);
  const out = which === 'any' ? hits.greater(0) : hits.equal(count(x.shape, dims));
  if (truth !== x) truth.dispose();
  ints.dispose();
  hits.dispose();
  return squeezeOwned(out, dims, keepDims);
}

export function withIndices<B extends Backend, K extends 'float' | 'int'>(x: Tensor<B, K>, which: 'max' | 'min', dim: number, keepDims: boolean): { values: Tensor<B, K>; indices: Tensor<B, 'int'> } {
  const op = which === 'max' ? 'maxWithIndices' : 'minWithIndices';
  if (x.rank === 0) {
    normDim(op, dim, 0, x.shape);
    // argmax first: it refuses bool inputs before the reshape makes a tensor that would leak.
    const indices = x.argmax();
    return { values: x.reshape([]), indices };
  }
  const d = normDim(op, dim, x.rank, x.shape);
  if (x.shape[d] === 0) throw new ShapeError(`cannot take the ${which} over dim ${d} of size 0`, { op, shapes: [x.shape], hint: 'check for empty inputs first' });
  const indices = which === 'max' ? x.argmax(d, true) : x.argmin(d, true);
  // The values are read at the indices, so their gradient goes to that element alone (torch.max(dim)).
  const values = x.gather(d, indices);
  return { values: squeezeOwned(values, [d], keepDims), indices: squeezeOwned(indices, [d], keepDims) };
}
