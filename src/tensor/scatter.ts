/**
 * Indexing ops built from gather, scatterAdd, indexSelect, argsort and the reductions, so their
 * gradients come from those: indexAdd, scatter, scatterReduce, take, takeAlongDim.
 */
import type { Backend } from '../backends/backend.js';
import { DTypeError, ShapeError } from '../errors.js';
import { isFloat, type Kind } from '../ir/dtype.js';
import type { KindsOf } from '../ir/kinds.js';
import { broadcastShapes, normDim, type SliceSpec } from '../ir/shape.js';
import { arithScalar, checkBoolean, checkChoice, checkInteger, checkNumber } from '../ir/validate.js';
import { noGrad } from '../autodiff/grad-mode.js';
import { tidy } from '../memory/tidy.js';
import { arange, full, fullLike, zeros } from './creation.js';
import { asIndexCaller } from './index-scope.js';
import { checkTensor, Tensor } from './tensor.js';

type Num = KindsOf<'scatterAdd'>;
export type ScatterReduce = 'sum' | 'prod' | 'mean' | 'amax' | 'amin';
const REDUCES: readonly ScatterReduce[] = ['sum', 'prod', 'mean', 'amax', 'amin'];
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
/** The most elements amax / amin / prod's comparison grid may hold (512 MiB of float32). */
const GRID_BUDGET = 2 ** 27;

function checkIndex(op: string, index: Tensor<Backend, Kind>): void {
  if (index.dtype !== 'int32') throw new DTypeError(`the index must be int32, got ${index.dtype}`, { op, dtypes: [index.dtype], hint: 'cast it with .cast("int32")' });
}

function checkNumeric(op: string, x: Tensor<Backend, Kind>, src?: Tensor<Backend, Kind>): void {
  if (x.dtype === 'bool') throw new DTypeError('dtype bool is not supported (accepts float, int32)', { op, dtypes: ['bool'], hint: 'cast the input with .cast("int32")' });
  if (src && src.dtype !== x.dtype) throw new DTypeError(`the source is ${src.dtype}, the tensor ${x.dtype}`, { op, dtypes: [x.dtype, src.dtype], hint: 'cast one to the other' });
}

/**
 * The checks torch makes for scatter-like ops: one rank for the tensor, index and src, and the
 * index no larger than the src in every dim and than the tensor in every dim but `d`.
 */
function scatterShapes(op: string, x: Tensor<Backend, Kind>, d: number, index: Tensor<Backend, Kind>, src: Tensor<Backend, Kind> | null): void {
  const shapes = src ? [x.shape, index.shape, src.shape] : [x.shape, index.shape];
  if (index.rank !== x.rank || (src && src.rank !== x.rank)) throw new ShapeError('the tensor, the index and the source must have one rank', { op, shapes });
  const bad = index.shape.some((n, k) => (k !== d && n > x.shape[k]!) || (src !== null && n > src.shape[k]!));
  if (bad) throw new ShapeError(`the index [${index.shape.join(', ')}] is larger than the source or, outside dim ${d}, the tensor`, { op, shapes });
}

/** The index-shaped leading block of src (torch reads only that much of a larger src). */
function block<B extends Backend, K extends Kind>(src: Tensor<B, K>, index: Tensor<B, 'int'>): Tensor<B, K> {
  return src.shape.every((n, k) => n === index.shape[k]) ? src : src.slice(index.shape.map((n): SliceSpec => [0, n]));
}

/** Which positions of x some index entry writes (bool, x's shape). */
function written<B extends Backend>(x: Tensor<B, Kind>, d: number, index: Tensor<B, 'int'>): Tensor<B, 'bool'> {
  const hits = zeros(x.backend, x.shape, { dtype: 'int32', device: x.device }).scatterAdd(d, index, full(x.backend, index.shape, 1, { dtype: 'int32', device: x.device }));
  return hits.greater(0);
}

/** torch.index_add: out = x; out[.., index[i], ..] += alpha * source[.., i, ..] along dim. */
export function indexAdd<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: number, index: Tensor<B, 'int'>, source: Tensor<B, K>, alpha: number): Tensor<B, K> {
  checkTensor('indexAdd', 'the index', index);
  checkTensor('indexAdd', 'the source', source);
  checkNumber('indexAdd', 'alpha', alpha);
  checkIndex('indexAdd', index);
  checkNumeric('indexAdd', x, source);
  // An int32 tensor takes an integer alpha: refused here, not by the mul it scales the source with.
  arithScalar('indexAdd', x.dtype, alpha);
  const d = normDim('indexAdd', checkInteger('indexAdd', 'dim', dim), x.rank, x.shape);
  const xs = x.rank === 0 ? [1] : x.shape;
  const ss = source.rank === 0 ? [1] : source.shape;
  const dd = x.rank === 0 ? 0 : d;
  if (index.rank > 1 || ss.length !== xs.length || ss[dd] !== index.size || ss.some((n, k) => k !== dd && n !== xs[k])) {
    throw new ShapeError(`the source must be the tensor's shape with dim ${dd} the index's length (a 1-D index)`, { op: 'indexAdd', shapes: [x.shape, index.shape, source.shape] });
  }
  return asIndexCaller({ name: 'indexAdd' }, () =>
    tidy(() => {
      const line = x.rank === 0 ? x.reshape([1]) : x;
      const srcLine = source.rank === 0 ? source.reshape([1]) : source;
      const idx = index.reshape(ss.map((n, k) => (k === dd ? n : 1))).expand(ss);
      const scaled = alpha === 1 ? srcLine : srcLine.mul(alpha);
      const out = line.scatterAdd(dd, idx, scaled);
      return x.rank === 0 ? out.reshape([]) : out;
    }, x.backend.runtime),
  );
}

/**
 * torch.scatter (out of place): out = x; out[index[i][j]][j] = src[i][j] for dim 0. Where indices
 * repeat within a line (torch: undefined which write wins), the last along `dim` wins here; the
 * src gradient is torch's, dy gathered at the index, for every duplicate (but a non-finite one).
 */
export function scatter<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: number, index: Tensor<B, 'int'>, src: Tensor<B, K> | number): Tensor<B, K> {
  checkTensor('scatter', 'the index', index);
  checkIndex('scatter', index);
  if (typeof src !== 'number') checkTensor('scatter', 'the source (a tensor or a number)', src);
  checkNumeric('scatter', x, typeof src === 'number' ? undefined : src);
  const d = normDim('scatter', checkInteger('scatter', 'dim', dim), x.rank, x.shape);
  return asIndexCaller({ name: 'scatter' }, () =>
    tidy(() => {
      if (x.rank === 0) {
        const r = scatter(x.reshape([1]), 0, index.reshape([index.size]), typeof src === 'number' ? src : src.reshape([src.size]));
        return r.reshape([]);
      }
      scatterShapes('scatter', x, d, index, typeof src === 'number' ? null : src);
      // A number: x's shape filled with it, then gathered to the index's shape (that keeps x's dtype and kind).
      const values = typeof src === 'number' ? fullLike(x, checkNumber('scatter', 'the value', src)).gather(d, index) : src;
      const vals = block(values, index);
      const last = noGrad(() => lastOfDuplicates(index, d), x.backend.runtime);
      let contrib = vals.where(last, 0);
      if (isFloat(x.dtype)) {
        // torch's src gradient is dy gathered at the index, for overwritten duplicates too: they add
        // (v - v) = 0 with that gradient (finite ones: inf - inf would be NaN).
        const finite = vals.sub(vals).equal(0);
        contrib = contrib.add(vals.sub(vals.detach()).where(last.logicalNot().logicalAnd(finite), 0));
      }
      return x.maskFill(written(x, d, index), 0).scatterAdd(d, index, contrib);
    }, x.backend.runtime),
  );
}

/** Per index entry: whether no later entry of its line along d holds the same index (a stable argsort groups them). */
function lastOfDuplicates<B extends Backend>(index: Tensor<B, 'int'>, d: number): Tensor<B, 'bool'> {
  const order = index.argsort(d);
  const sorted = index.gather(d, order);
  const n = index.shape[d]!;
  const pads = new Array<number>(2 * (index.rank - d)).fill(0);
  // The next entry of each (-1 after the last: no index is negative once checked).
  pads[2 * (index.rank - 1 - d)] = -1;
  pads[2 * (index.rank - 1 - d) + 1] = 1;
  const next = n === 0 ? sorted : sorted.pad(pads, 'constant', -1);
  const lastSorted = sorted.notEqual(next).cast('int32');
  // Back to the entries' own positions: the order is a permutation of each line.
  return zeros(index.backend, index.shape, { dtype: 'int32', device: index.device }).scatterAdd(d, order, lastSorted).greater(0);
}

/**
 * torch.scatter_reduce (out of place). 'sum' and 'mean' are scatterAdds; 'amax', 'amin' and
 * 'prod' compare every index entry of a line with every target position (an n x m mask per line)
 * and reduce with max / min / prod, whose gradients are torch's (ties share evenly; prod: the
 * product of the others). includeSelf false leaves x out of the reduction where something is written.
 */
export function scatterReduce<B extends Backend, K extends Num>(x: Tensor<B, K>, dim: number, index: Tensor<B, 'int'>, src: Tensor<B, K>, reduce: ScatterReduce, includeSelf: boolean): Tensor<B, K> {
  checkTensor('scatterReduce', 'the index', index);
  checkTensor('scatterReduce', 'the source', src);
  checkChoice('scatterReduce', 'reduce', reduce, REDUCES);
  checkBoolean('scatterReduce', 'includeSelf', includeSelf);
  checkIndex('scatterReduce', index);
  checkNumeric('scatterReduce', x, src);
  const d = normDim('scatterReduce', checkInteger('scatterReduce', 'dim', dim), x.rank, x.shape);
  return asIndexCaller({ name: 'scatterReduce' }, () =>
    tidy(() => {
      if (x.rank === 0) return scatterReduce(x.reshape([1]), 0, index.reshape([index.size]), src.reshape([src.size]), reduce, includeSelf).reshape([]);
      scatterShapes('scatterReduce', x, d, index, src);
      // Nothing is written (torch returns x): the amax / amin grid would reduce over an empty dim.
      if (index.size === 0) return x.clone();
      const vals = block(src, index);
      // Only what the result reads is computed: an unread temporary's storage would be freed late.
      if (reduce === 'sum' || reduce === 'mean') {
        const base = includeSelf ? x : x.maskFill(written(x, d, index), 0);
        const total = base.scatterAdd(d, index, vals);
        if (reduce === 'sum') return total;
        const count = fullLike(x, includeSelf ? 1 : 0).scatterAdd(d, index, fullLike(vals, 1));
        // Unwritten positions without self divide by 1 (torch); int32 divides with floor, as torch's.
        return total.div(count.maximum(1));
      }
      return denseReduce(x, d, index, vals, written(x, d, index), reduce, includeSelf);
    }, x.backend.runtime),
  );
}

/** amax / amin / prod by an [A, n, m, B] mask of index entry vs target position (see scatterReduce). */
function denseReduce<B extends Backend, K extends Num>(x: Tensor<B, K>, d: number, index: Tensor<B, 'int'>, vals: Tensor<B, K>, hit: Tensor<B, 'bool'>, reduce: 'amax' | 'amin' | 'prod', includeSelf: boolean): Tensor<B, K> {
  // Targets beyond the index's extent outside dim d take no part: work on that block of x.
  const extent = x.shape.map((n, k) => (k === d ? n : index.shape[k]!));
  const whole = extent.every((n, k) => n === x.shape[k]);
  const ranges = extent.map((n): SliceSpec => [0, n]);
  const xb = whole ? x : x.slice(ranges);
  const hb = whole ? hit : hit.slice(ranges);
  const A = extent.slice(0, d).reduce((p, n) => p * n, 1);
  const Bn = extent.slice(d + 1).reduce((p, n) => p * n, 1);
  const n = extent[d]!;
  const m = index.shape[d]!;
  const float = isFloat(x.dtype);
  const fill = reduce === 'prod' ? 1 : reduce === 'amax' ? (float ? -Infinity : INT_MIN) : float ? Infinity : INT_MAX;
  // The grid is the cost of this form: refused up front (a ShapeError naming scatterReduce) past
  // its own budget, far below the single-tensor limit (1e9 elements would be GBs of temporaries).
  const cells = A * n * (m + 1) * Bn;
  if (cells > GRID_BUDGET) {
    throw new ShapeError(`${reduce} compares every index entry with every target position: a grid [${[A, n, m + 1, Bn].join(', ')}] of ${cells} elements, past the budget of ${GRID_BUDGET}`, {
      op: 'scatterReduce',
      shapes: [x.shape, index.shape],
      hint: `chunk along a dim other than ${d} (narrow / split) and concatenate the results`,
    });
  }
  const targets = arange(x.backend, n, undefined, 1, { device: x.device }).reshape([1, n, 1, 1]);
  const match = index.reshape([A, 1, m, Bn]).equal(targets);
  let grid = vals.reshape([A, 1, m, Bn]).where(match, fill);
  if (includeSelf) grid = Tensor.cat([xb.reshape([A, n, 1, Bn]), grid], 2);
  const r = reduce === 'prod' ? grid.prod(2) : reduce === 'amax' ? grid.max(2) : grid.min(2);
  const out = r.reshape(extent).where(hb, xb);
  return whole ? out : x.sliceAssign(ranges, out);
}

/** torch.take: x read as 1-D at `index` (negative entries count from the end); the result has the index's shape. */
export function take<B extends Backend, K extends Kind>(x: Tensor<B, K>, index: Tensor<B, 'int'>): Tensor<B, K> {
  checkTensor('take', 'the index', index);
  checkIndex('take', index);
  const n = x.size;
  const caller = { name: 'take', of: 'elements', accepts: `in [${-n}, ${n - 1}] (negative ones count from the end)` };
  return asIndexCaller(caller, () =>
    tidy(() => {
      const flat = index.reshape([index.size]);
      // Only [-n, 0) wraps: an index below -n reaches the gather as given, so its error shows it.
      const wrapped = flat.add(n).where(flat.lower(0).logicalAnd(flat.greaterEqual(-n)), flat);
      return x.reshape([n]).gather(0, wrapped).reshape(index.shape);
    }, x.backend.runtime),
  );
}

/** torch.take_along_dim: gather with the tensor and the index broadcast outside `dim`; without dim, of both flattened. */
export function takeAlongDim<B extends Backend, K extends Kind>(x: Tensor<B, K>, index: Tensor<B, 'int'>, dim?: number | null): Tensor<B, K> {
  checkTensor('takeAlongDim', 'the index', index);
  checkIndex('takeAlongDim', index);
  if (dim === undefined || dim === null) return asIndexCaller({ name: 'takeAlongDim', of: 'elements' }, () => tidy(() => x.reshape([x.size]).gather(0, index.reshape([index.size])), x.backend.runtime));
  const d = normDim('takeAlongDim', checkInteger('takeAlongDim', 'dim', dim), x.rank, x.shape);
  if (index.rank !== x.rank) throw new ShapeError(`the index must have the tensor's rank ${x.rank}, got ${index.rank}`, { op: 'takeAlongDim', shapes: [x.shape, index.shape] });
  if (x.rank === 0) return asIndexCaller({ name: 'takeAlongDim' }, () => x.gather(0, index));
  const outside = broadcastShapes('takeAlongDim', x.shape.map((n, k) => (k === d ? 1 : n)), index.shape.map((n, k) => (k === d ? 1 : n)));
  return asIndexCaller({ name: 'takeAlongDim' }, () =>
    tidy(() => {
        const xe = x.expand(outside.map((n, k) => (k === d ? x.shape[d]! : n)));
        const ie = index.expand(outside.map((n, k) => (k === d ? index.shape[d]! : n)));
        return xe.gather(d, ie);
      }, x.backend.runtime),
    );
  }
