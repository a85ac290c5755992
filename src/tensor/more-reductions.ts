/**
 * Reductions and scans built from the primitive ops: nansum, nanmean, countNonzero, aminmax;
 * median, nanmedian, kthvalue and mode (a stable argsort, then a gather at the chosen position,
 * so the gradient goes to that element alone, as torch's); cummax / cummin (the indices by a
 * log-step scan, then a gather) and logcumsumexp (a log-step scan of logaddexp).
 */
import type { Backend } from '../backends/backend.js';
import { DTypeError, ShapeError } from '../errors.js';
import { isFloat, type Kind } from '../ir/dtype.js';
import type { KindsOf } from '../ir/kinds.js';
import { normDim, normDims } from '../ir/shape.js';
import { checkBoolean, checkInteger } from '../ir/validate.js';
import { noGrad } from '../autodiff/grad-mode.js';
import { tidy } from '../memory/tidy.js';
import { arange, fullLike } from './creation.js';
import type { Dims } from './reductions.js';
import type { Tensor } from './tensor.js';

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

type Num = KindsOf<'max'>;
export interface WithIndices<B extends Backend, K extends Kind> {
  values: Tensor<B, K>;
  indices: Tensor<B, 'int'>;
}

function refuseBool(op: string, x: Tensor<Backend, Kind>): void {
  if (x.dtype === 'bool') throw new DTypeError(`dtype bool is not supported (accepts float, int32)`, { op, dtypes: ['bool'], hint: 'cast the input with .cast("int32")' });
}

function floatOnly(op: string, x: Tensor<Backend, Kind>): void {
  if (!isFloat(x.dtype)) throw new DTypeError(`dtype ${x.dtype} is not supported (accepts float)`, { op, dtypes: [x.dtype], hint: 'cast the input with .cast("float32")' });
}

/** Resolves the dims at the call, so a bad one is reported under the public op, not the sum it is built from. */
function checkDims(op: string, x: Tensor<Backend, Kind>, dim: Dims): void {
  if (dim !== null && dim !== undefined) normDims(op, typeof dim === 'number' ? [dim] : dim, x.rank, x.shape);
}

/** torch.nansum: NaN counts as 0 (its gradient there is 0). */
export function nansum<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: Dims, keepDims: boolean): Tensor<B, K> {
  refuseBool('nansum', x);
  checkBoolean('nansum', 'keepDims', keepDims);
  checkDims('nansum', x, dim);
  if (!isFloat(x.dtype)) return x.sum(dim, keepDims);
  // NaN is the only value unequal to itself.
  return tidy(() => x.maskFill(x.notEqual(x), 0).sum(dim, keepDims), x.backend.runtime);
}

/** torch.nanmean: the mean of the non-NaN elements (NaN where there are none). */
export function nanmean<B extends Backend>(x: Tensor<B, 'float'>, dim: Dims, keepDims: boolean): Tensor<B, 'float'> {
  floatOnly('nanmean', x);
  checkBoolean('nanmean', 'keepDims', keepDims);
  checkDims('nanmean', x, dim);
  return tidy(() => {
    const nan = x.isNan();
    const count = nan.logicalNot().cast(x.dtype).sum(dim, keepDims);
    return x.maskFill(nan, 0).sum(dim, keepDims).div(count);
  }, x.backend.runtime);
}

/** torch.count_nonzero: int32 counts of the non-zero elements (NaN counts). */
export function countNonzero<B extends Backend>(x: Tensor<B, Kind>, dim: Dims): Tensor<B, 'int'> {
  checkDims('countNonzero', x, dim);
  return tidy(() => {
    const truth = x.dtype === 'bool' ? x : x.notEqual(0);
    return truth.cast('int32').sum(dim);
  }, x.backend.runtime);
}

/** A one-dim op on a rank-0 tensor runs on its [1] view (dim 0 or -1, as torch), the result viewed back. */
function lineOf(op: string, x: Tensor<Backend, Kind>, dim: number): number {
  const d = normDim(op, checkInteger(op, 'dim', dim), x.rank, x.shape);
  if (x.rank > 0 && x.shape[d] === 0) throw new ShapeError(`cannot take the ${op} over dim ${d} of size 0`, { op, shapes: [x.shape], hint: 'check for empty inputs first' });
  return d;
}

/**
 * The element at a sorted position of each line along `d`: `position` gets the stable ascending
 * argsort (NaN last) and returns the int position to take (keepDims shape). The value is gathered
 * from x at the original index, so the gradient goes to that element.
 */
function atSortedPosition<B extends Backend, K extends Num>(op: string, x: Tensor<B, K>, dim: number, keepDims: boolean, position: (order: Tensor<B, 'int'>, d: number, n: number) => Tensor<B, 'int'>): WithIndices<B, K> {
  checkBoolean(op, 'keepDims', keepDims);
  refuseBool(op, x);
  const d = lineOf(op, x, dim);
  return tidy(() => {
    const line = x.rank === 0 ? x.reshape([1]) : x;
    const dd = x.rank === 0 ? 0 : d;
    const order = line.argsort(dd);
    const pos = position(order, dd, line.shape[dd]!);
    const indices = order.gather(dd, pos);
    const values = line.gather(dd, indices);
    if (x.rank === 0) return { values: values.reshape([]), indices: indices.reshape([]) };
    return keepDims ? { values, indices } : { values: values.squeeze(dd), indices: indices.squeeze(dd) };
  }, x.backend.runtime);
}

/** The count of NaN per line along d (keepDims), or null for ints. */
function nanCount<B extends Backend>(x: Tensor<B, Kind>, d: number): Tensor<B, 'int'> | null {
  if (!isFloat(x.dtype)) return null;
  const f: Tensor<B, 'float'> = x.cast(x.dtype === 'float16' ? 'float16' : 'float32');
  return f.isNan().cast('int32').sum(d, true);
}

/** torch.median(dim): the lower median ((n - 1) / 2 of the sorted line); a line holding NaN gives its first NaN. */
export function median<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: number, keepDims: boolean): WithIndices<B, K> {
  return atSortedPosition('median', x, dim, keepDims, (order, d, n) => {
    const lower = (n - 1) >> 1;
    const nans = nanCount(x.rank === 0 ? x.reshape([1]) : x, d);
    const at = order.narrow(d, 0, 1).mul(0).add(lower);
    // NaN sorts last: the first NaN of the line is at n - (its NaN count).
    return nans === null ? at : nans.neg().add(n).where(nans.greater(0), at);
  });
}

/**
 * torch.median() of all elements: the lower median (NaN if any is NaN). As torch's, its gradient
 * is shared evenly among the elements equal to it (all NaNs for NaN): the max of the ties, whose
 * gradient is shared so, with the other elements masked to the lowest value (the min masked to
 * +inf for a -inf median; a NaN median: the mean of the NaNs, below).
 */
export function medianAll<B extends Backend, K extends Num>(x: Tensor<B, K>, op: 'median' | 'nanmedian' = 'median'): Tensor<B, K> {
  refuseBool(op, x);
  if (x.size === 0) throw new ShapeError(`${op} of an empty tensor`, { op, shapes: [x.shape], hint: 'check for empty inputs first' });
  return tidy(() => {
    const flat = x.reshape([x.size]);
    // nanmedian: NaN only when every element is NaN (then shared among them, as median's).
    const m = noGrad(() => (op === 'median' ? median : nanmedian)(flat.detach(), 0, true).values, x.backend.runtime);
    if (!isFloat(x.dtype)) return flat.where(flat.equal(m), INT_MIN).max();
    // NaN is the only value unequal to itself.
    const nanMedian = m.notEqual(m);
    const ties = flat.equal(m).logicalOr(flat.notEqual(flat).logicalAnd(nanMedian));
    // Over the non-NaN ties only: with a NaN median nothing is left, and no NaN gradient comes back.
    // The non-ties are filled with -inf for max; a -inf median would then tie with the fill, so
    // there the fill is +inf and min shares the gradient (where passes none to the other branch).
    const eq = flat.equal(m);
    const shared = flat.where(eq, Infinity).min().where(m.equal(-Infinity).reshape([]), flat.where(eq, -Infinity).max());
    // A NaN median: max's backward finds no element equal to NaN, so the NaNs' share comes from
    // their mean instead, added as (mean - itself) = NaN to the NaN median (value unchanged).
    const mean = flat.where(ties, 0).sum().div(fullLike(flat, 1).where(ties, 0).sum());
    const viaMean = mean.sub(mean.detach()).add(m.reshape([]));
    return viaMean.where(nanMedian.reshape([]), shared);
  }, x.backend.runtime);
}

/** torch.nanmedian(dim): the lower median of the non-NaN elements (NaN, at the line's first NaN, when all are NaN). */
export function nanmedian<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: number, keepDims: boolean): WithIndices<B, K> {
  return atSortedPosition('nanmedian', x, dim, keepDims, (order, d, n) => {
    const nans = nanCount(x.rank === 0 ? x.reshape([1]) : x, d);
    if (nans === null) return order.narrow(d, 0, 1).mul(0).add((n - 1) >> 1);
    // (count - 1) floor-div 2 of the non-NaN count; an all-NaN line takes position 0.
    return nans.neg().add(n - 1).div(2).maximum(0);
  });
}

/** torch.kthvalue: the k-th smallest (1-based) along `dim`, NaN counting as the largest. */
export function kthvalue<B extends Backend, K extends Num>(x: Tensor<B, K>, k: number, dim: number, keepDims: boolean): WithIndices<B, K> {
  checkInteger('kthvalue', 'k', k);
  const d = lineOf('kthvalue', x, dim);
  const n = x.rank === 0 ? 1 : x.shape[d]!;
  if (k < 1 || k > n) throw new ShapeError(`k = ${k} is out of range for dim ${d} of size ${n}`, { op: 'kthvalue', shapes: [x.shape], hint: `pick 1 <= k <= ${n}` });
  return atSortedPosition('kthvalue', x, dim, keepDims, (order, dd) => order.narrow(dd, 0, 1).mul(0).add(k - 1));
}

/**
 * torch.mode(dim): the most frequent value of each line (the smallest among equally frequent ones;
 * NaNs count as equal), at the last index holding it. O(n log n) per line: after a sort, equal
 * values form runs; each position's run length so far is (position - run start + 1), the run
 * start a running max of the positions where a run begins, and the first position of the largest
 * length ends the longest run of the smallest value.
 */
export function mode<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: number, keepDims: boolean): WithIndices<B, K> {
  checkBoolean('mode', 'keepDims', keepDims);
  refuseBool('mode', x);
  const d = lineOf('mode', x, dim);
  return tidy(() => {
    const line = x.rank === 0 ? x.reshape([1]) : x;
    const dd = x.rank === 0 ? 0 : d;
    const n = line.shape[dd]!;
    const indices = noGrad(() => {
      const sorted = line.detach().sort(dd).values;
      const same = (a: Tensor<B, K>, b: Tensor<B, K>): Tensor<B, 'bool'> => {
        const eq = a.equal(b);
        return isFloat(x.dtype) ? eq.logicalOr(a.cast('float32').isNan().logicalAnd(b.cast('float32').isNan())) : eq;
      };
      const shape = line.shape.map((_, i) => (i === dd ? n : 1));
      const at = arange(x.backend, n, undefined, 1, { device: x.device }).reshape(shape);
      // A run starts at position 0 and wherever a value differs from the one before it.
      const starts = same(sorted, shifted(sorted, dd, 1, 0)).logicalNot().logicalOr(at.equal(0));
      const runStart = cumExtreme(at.where(starts, 0), 'max', dd).values;
      const runLength = at.sub(runStart);
      // The first largest length in ascending order: the smallest of the most frequent values.
      const value = sorted.gather(dd, runLength.argmax(dd, true));
      return at.where(same(line.detach(), value), -1).max(dd, true);
    }, x.backend.runtime);
    const values = line.gather(dd, indices);
    if (x.rank === 0) return { values: values.reshape([]), indices: indices.reshape([]) };
    return keepDims ? { values, indices } : { values: values.squeeze(dd), indices: indices.squeeze(dd) };
  }, x.backend.runtime);
}

/** t shifted by s along d: the first s entries are `fill`, the last s dropped (a constant pad that crops). */
function shifted<B extends Backend, K extends Kind>(t: Tensor<B, K>, d: number, s: number, fill: number): Tensor<B, K> {
  const pads = new Array<number>(2 * (t.rank - d)).fill(0);
  pads[2 * (t.rank - 1 - d)] = s;
  pads[2 * (t.rank - 1 - d) + 1] = -s;
  return t.pad(pads, 'constant', fill);
}

/**
 * torch.cummax / cummin: the running max (min) and the index of the element holding it; among
 * equal values the last index, and a NaN wins and stays (its index moving to each later NaN), as
 * torch's CPU kernel. The indices come from a log-step scan (log2 n steps of elementwise ops).
 */
export function cumExtreme<B extends Backend, K extends Num>(x: Tensor<B, K>, which: 'max' | 'min', dim: number): WithIndices<B, K> {
  const op = which === 'max' ? 'cummax' : 'cummin';
  refuseBool(op, x);
  const d = normDim(op, checkInteger(op, 'dim', dim), x.rank, x.shape);
  return tidy(() => {
    const line = x.rank === 0 ? x.reshape([1]) : x;
    const dd = x.rank === 0 ? 0 : d;
    const n = line.shape[dd]!;
    const float = isFloat(x.dtype);
    const fill = which === 'max' ? (float ? -Infinity : INT_MIN) : float ? Infinity : INT_MAX;
    const indices = noGrad(() => {
      let v = line.detach();
      const shape = line.shape.map((_, i) => (i === dd ? n : 1));
      let idx = arange(x.backend, n, undefined, 1, { device: x.device }).reshape(shape).expand(line.shape);
      for (let s = 1; s < n; s *= 2) {
        // Combine the run ending s earlier (a) with the run ending here (b): b wins when it is NaN,
        // or when a is not NaN and b >= a (<= for min): ties go to the later index.
        const a = shifted(v, dd, s, fill);
        const ai = shifted(idx, dd, s, 0);
        let later = which === 'max' ? v.greaterEqual(a) : v.lowerEqual(a);
        if (float) {
          const vf: Tensor<B, 'float'> = v.cast(x.dtype === 'float16' ? 'float16' : 'float32');
          const af: Tensor<B, 'float'> = a.cast(x.dtype === 'float16' ? 'float16' : 'float32');
          later = vf.isNan().logicalOr(af.isNan().logicalNot().logicalAnd(later));
        }
        // The last step's values would go unread: only the indices are kept.
        if (2 * s < n) v = v.where(later, a);
        idx = idx.where(later, ai);
      }
      return idx;
    }, x.backend.runtime);
    const values = line.gather(dd, indices);
    if (x.rank === 0) return { values: values.reshape([]), indices: indices.reshape([]) };
    return { values, indices: indices.clone() };
  }, x.backend.runtime);
}

/** torch.logcumsumexp: log of the running sum of exp, by a log-step scan of logaddexp (no overflow, no underflow to -inf). */
export function logcumsumexp<B extends Backend>(x: Tensor<B, 'float'>, dim: number): Tensor<B, 'float'> {
  floatOnly('logcumsumexp', x);
  const d = normDim('logcumsumexp', checkInteger('logcumsumexp', 'dim', dim), x.rank, x.shape);
  return tidy(() => {
    if (x.rank === 0) return x.clone();
    const n = x.shape[d]!;
    let v = x;
    for (let s = 1; s < n; s *= 2) v = v.logaddexp(shifted(v, d, s, -Infinity));
    return v === x ? x.clone() : v;
  }, x.backend.runtime);
}

/** torch.aminmax: min and max over `dim` (all elements when omitted). */
export function aminmax<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: number | null | undefined, keepDims: boolean): { min: Tensor<B, K>; max: Tensor<B, K> } {
  checkBoolean('aminmax', 'keepDims', keepDims);
  refuseBool('aminmax', x);
  const d = dim === undefined || dim === null ? null : normDim('aminmax', checkInteger('aminmax', 'dim', dim), x.rank, x.shape);
  // As torch: only a reduction over no elements is refused (a [0, 3] tensor over dim 1 gives empty results).
  const empty = d === null || x.rank === 0 ? x.size === 0 : x.shape[d] === 0;
  if (empty) throw new ShapeError(`aminmax of an empty ${d === null ? 'tensor' : `dim ${d}`}`, { op: 'aminmax', shapes: [x.shape], hint: 'check for empty inputs first' });
  return tidy(() => ({ min: x.min(dim, keepDims), max: x.max(dim, keepDims) }), x.backend.runtime);
}
