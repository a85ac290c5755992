/**
 * Common torch ops composed from existing ones (matmul, mul, add, comparisons, where, movement
 * ops, scatterAdd), so every backend runs them and autodiff differentiates them: the addmm
 * family, cross, cdist, trace, kron, rot90, movedim, searchsorted / bucketize, histc, meshgrid,
 * cartesianProd, and elementwise helpers (sinc, heaviside, nanToNum, signbit, isin, isclose).
 */
import { sameBackend, type Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, DeviceError, ShapeError } from '../errors.js';
import type { Kind } from '../ir/dtype.js';
import type { KindsOf } from '../ir/kinds.js';
import { broadcastShapes, normDim, sameShape } from '../ir/shape.js';
import { checkArray, checkBoolean, checkChoice, checkInteger, checkNumber, checkOptions, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { full, fullLike } from './creation.js';
import { checkTensor, Tensor } from './tensor.js';

type Float<B extends Backend> = Tensor<B, 'float'>;

/**
 * Every operand from x's backend, checked before any temporary is made: the temporaries of an
 * op that then fails are freed by x's runtime, which does not see another backend's.
 */
function checkSameBackend(op: string, x: Tensor<Backend, Kind>, others: ReadonlyArray<Tensor<Backend, Kind> | number>): void {
  for (const t of others) {
    if (typeof t === 'number' || t.backend === x.backend || sameBackend(t.backend, x.backend)) continue;
    throw new DeviceError(`inputs come from different backends (${x.backend.name} and ${t.backend.name})`, { op, devices: [x.device.key, t.device.key], hint: 'build every input through one backend' });
  }
}

/** Untyped callers may pass int or bool tensors where the op multiplies matrices (float only, as matmul). */
function checkFloat(op: string, ts: ReadonlyArray<Tensor<Backend, Kind>>): void {
  if (ts.some((t) => t.kind !== 'float')) throw new DTypeError(`${op} takes float tensors`, { op, dtypes: ts.map((t) => t.dtype) });
}

/** Tensors with `this` (as Operand of add/mul) of kind float or int; bool has no arithmetic here. */
function checkNumeric(op: string, ts: ReadonlyArray<Tensor<Backend, Kind>>): void {
  if (ts.some((t) => t.kind === 'bool')) throw new DTypeError(`${op} takes float or int tensors`, { op, dtypes: ts.map((t) => t.dtype) });
}

function checkRank(op: string, t: Tensor<Backend, Kind>, rank: number, what: string): void {
  if (t.rank !== rank) throw new ShapeError(`${what} must be ${rank}-D, got shape [${t.shape.join(', ')}]`, { op, shapes: [t.shape] });
}

/** The contracted sizes must agree (checked here so that the error names the public op, not matmul). */
function inner(op: string, a: Tensor<Backend, Kind>, b: Tensor<Backend, Kind>, m: number, m2: number): void {
  if (m !== m2) throw new ShapeError(`the inner sizes ${m} and ${m2} differ`, { op, shapes: [a.shape, b.shape] });
}

export interface AddmmOptions {
  /** Multiplies the input (torch's beta; 0 ignores the input, NaN and inf included). Default 1. */
  readonly beta?: number;
  /** Multiplies the product. Default 1. */
  readonly alpha?: number;
}

function scales(op: string, options: unknown): { beta: number; alpha: number } {
  const o = checkOptions(op, options);
  return { beta: o['beta'] === undefined ? 1 : checkNumber(op, 'beta', o['beta']), alpha: o['alpha'] === undefined ? 1 : checkNumber(op, 'alpha', o['alpha']) };
}

/** The addmm family's operands: tensors of float dtype on the input's backend, each of its rank. */
function checkOperands<B extends Backend>(op: string, input: Float<B>, operands: ReadonlyArray<readonly [string, Float<B>, number]>): void {
  for (const [name, t] of operands) checkTensor(op, name, t);
  const ts = operands.map(([, t]) => t);
  checkFloat(op, [input, ...ts]);
  checkSameBackend(op, input, ts);
  for (const [name, t, rank] of operands) checkRank(op, t, rank, name);
}

/**
 * beta * input + alpha * product, torch's way: beta = 0 drops the input (so NaN in it does not
 * spread); the input must broadcast to the product's shape, which is the result's.
 */
function addScaled<B extends Backend>(op: string, input: Float<B>, product: Float<B>, beta: number, alpha: number): Float<B> {
  const out = product.shape;
  const b = broadcastShapes(op, input.shape, out);
  if (!sameShape(b, out)) throw new ShapeError(`the input of shape [${input.shape.join(', ')}] does not broadcast to the product's shape [${out.join(', ')}]`, { op, shapes: [input.shape, out] });
  return tidy(() => {
    const p = alpha === 1 ? product : product.mul(alpha);
    if (beta === 0) return p;
    return (beta === 1 ? input : input.mul(beta)).add(p);
  }, input.backend.runtime);
}

/** torch.addmm(input, mat1, mat2, beta, alpha): beta * input + alpha * (mat1 @ mat2), mat1 [n, m], mat2 [m, p]. */
export function addmm<B extends Backend>(input: Float<B>, mat1: Float<B>, mat2: Float<B>, options: AddmmOptions = {}): Float<B> {
  checkOperands('addmm', input, [['mat1', mat1, 2], ['mat2', mat2, 2]]);
  inner('addmm', mat1, mat2, mat1.shape[1]!, mat2.shape[0]!);
  const { beta, alpha } = scales('addmm', options);
  return tidy(() => addScaled('addmm', input, mat1.matmul(mat2), beta, alpha), input.backend.runtime);
}

/** torch.baddbmm: beta * input + alpha * bmm(batch1, batch2), batch1 [b, n, m], batch2 [b, m, p]. */
export function baddbmm<B extends Backend>(input: Float<B>, batch1: Float<B>, batch2: Float<B>, options: AddmmOptions = {}): Float<B> {
  checkOperands('baddbmm', input, [['batch1', batch1, 3], ['batch2', batch2, 3]]);
  if (batch1.shape[0] !== batch2.shape[0]) throw new ShapeError('batch1 and batch2 need the same batch size', { op: 'baddbmm', shapes: [batch1.shape, batch2.shape] });
  inner('baddbmm', batch1, batch2, batch1.shape[2]!, batch2.shape[1]!);
  const { beta, alpha } = scales('baddbmm', options);
  return tidy(() => addScaled('baddbmm', input, batch1.matmul(batch2), beta, alpha), input.backend.runtime);
}

/** torch.addbmm: beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]. */
export function addbmm<B extends Backend>(input: Float<B>, batch1: Float<B>, batch2: Float<B>, options: AddmmOptions = {}): Float<B> {
  checkOperands('addbmm', input, [['batch1', batch1, 3], ['batch2', batch2, 3]]);
  const [b, n, m] = batch1.shape as [number, number, number];
  const [b2, m2, p] = batch2.shape as [number, number, number];
  if (b !== b2 || m !== m2) throw new ShapeError('batch1 [b, n, m] and batch2 [b, m, p] do not fit', { op: 'addbmm', shapes: [batch1.shape, batch2.shape] });
  const { beta, alpha } = scales('addbmm', options);
  // One matmul: [n, b*m] @ [b*m, p] sums the batch products in the contraction.
  return tidy(() => {
    const l = batch1.permute([1, 0, 2]).reshape([n, b * m]);
    const r = batch2.reshape([b * m, p]);
    return addScaled('addbmm', input, l.matmul(r), beta, alpha);
  }, input.backend.runtime);
}

/** torch.addmv: beta * input + alpha * (mat @ vec), mat [n, m], vec [m]. */
export function addmv<B extends Backend>(input: Float<B>, mat: Float<B>, vec: Float<B>, options: AddmmOptions = {}): Float<B> {
  checkOperands('addmv', input, [['mat', mat, 2], ['vec', vec, 1]]);
  inner('addmv', mat, vec, mat.shape[1]!, vec.shape[0]!);
  const { beta, alpha } = scales('addmv', options);
  return tidy(() => addScaled('addmv', input, mat.matmul(vec), beta, alpha), input.backend.runtime);
}

/** torch.addr: beta * input + alpha * outer(vec1, vec2). */
export function addr<B extends Backend>(input: Float<B>, vec1: Float<B>, vec2: Float<B>, options: AddmmOptions = {}): Float<B> {
  checkOperands('addr', input, [['vec1', vec1, 1], ['vec2', vec2, 1]]);
  const { beta, alpha } = scales('addr', options);
  return tidy(() => addScaled('addr', input, vec1.unsqueeze(1).mul(vec2.unsqueeze(0)), beta, alpha), input.backend.runtime);
}

/** torch.linalg.cross: the cross product along `dim` (size 3), the operands broadcasting. */
export function cross<B extends Backend, K extends KindsOf<'mul'>>(a: Tensor<B, K>, b: Tensor<B, K>, dim = -1): Tensor<B, K> {
  checkTensor('cross', 'the other operand', b);
  checkNumeric('cross', [a, b]);
  checkSameBackend('cross', a, [b]);
  if (a.dtype !== b.dtype) throw new DTypeError('cross takes operands of one dtype', { op: 'cross', dtypes: [a.dtype, b.dtype] });
  const shape = broadcastShapes('cross', a.shape, b.shape);
  const d = normDim('cross', checkInteger('cross', 'dim', dim), shape.length, shape);
  if (shape[d] !== 3) throw new ShapeError(`dim ${dim} must have size 3, got ${shape[d] ?? 'none'}`, { op: 'cross', shapes: [a.shape, b.shape] });
  return tidy(() => {
    const x = a.expand(shape);
    const y = b.expand(shape);
    const c = (t: Tensor<B, K>, i: number): Tensor<B, K> => t.narrow(d, i, 1);
    const part = (i: number, j: number): Tensor<B, K> => c(x, i).mul(c(y, j)).sub(c(x, j).mul(c(y, i)));
    return Tensor.cat([part(1, 2), part(2, 0), part(0, 1)], d);
  }, a.backend.runtime);
}

/**
 * torch.cdist: p-norm distances between the rows of x1 [..., P, M] and x2 [..., R, M] (batch dims
 * broadcasting), [..., P, R]. Built on the [..., P, R, M] differences. Gradients as torch's: 0 at
 * a zero distance, and 0 from a zero difference for every p (torch's backward masks both).
 */
export function cdist<B extends Backend>(x1: Float<B>, x2: Float<B>, p = 2): Float<B> {
  checkTensor('cdist', 'x2', x2);
  checkFloat('cdist', [x1, x2]);
  checkSameBackend('cdist', x1, [x2]);
  checkNumber('cdist', 'p', p);
  if (!(p >= 0)) throw new ArgumentError(`p must be a non-negative number, got ${p}`, { op: 'cdist' });
  if (x1.rank < 2 || x2.rank < 2 || x1.shape[x1.rank - 1] !== x2.shape[x2.rank - 1]) {
    throw new ShapeError('cdist takes x1 [..., P, M] and x2 [..., R, M]', { op: 'cdist', shapes: [x1.shape, x2.shape] });
  }
  broadcastShapes('cdist', x1.shape.slice(0, -2), x2.shape.slice(0, -2));
  return tidy(() => {
    const diff = x1.unsqueeze(-2).sub(x2.unsqueeze(-3));
    const a = diff.abs();
    if (p === 0) {
      // A count: its gradient is 0, but torch's result is in the graph all the same; the unchosen
      // branch of a where (the count is never NaN, so always chosen) ties it in with zero gradients.
      const count = a.notEqual(0).cast(x1.dtype).sum(-1);
      return count.where(count.equal(count), a.sum(-1));
    }
    if (p === Infinity) return a.shape[a.rank - 1] === 0 ? a.sum(-1) : a.max(-1);
    if (p === 1) return a.sum(-1);
    // Zero distances: the root's derivative is infinite there; torch's backward gives 0.
    const root = (s: Float<B>, f: (safe: Float<B>) => Float<B>): Float<B> => {
      const some = s.notEqual(0);
      return f(s.where(some, 1)).where(some, 0);
    };
    if (p === 2) return root(diff.mul(diff).sum(-1), (s) => s.sqrt());
    // |d|^p with p < 1 has an infinite derivative at d = 0: torch's backward gives 0 there too.
    const some = a.notEqual(0);
    const ap = a.where(some, 1).pow(p).where(some, 0);
    return root(ap.sum(-1), (s) => s.pow(1 / p));
  }, x1.backend.runtime);
}

/** torch.trace: the sum of the main diagonal of a 2-D tensor. */
export function trace<B extends Backend, K extends KindsOf<'sum'>>(x: Tensor<B, K>): Tensor<B, K> {
  checkNumeric('trace', [x]);
  checkRank('trace', x, 2, 'the input');
  return tidy(() => x.diagonal(0, 0, 1).sum(), x.backend.runtime);
}

/** torch.kron: the Kronecker product (the lower-rank operand gains leading ones). */
export function kron<B extends Backend, K extends KindsOf<'mul'>>(a: Tensor<B, K>, b: Tensor<B, K>): Tensor<B, K> {
  checkTensor('kron', 'the other operand', b);
  checkNumeric('kron', [a, b]);
  checkSameBackend('kron', a, [b]);
  if (a.dtype !== b.dtype) throw new DTypeError('kron takes operands of one dtype', { op: 'kron', dtypes: [a.dtype, b.dtype] });
  const r = Math.max(a.rank, b.rank);
  const pa = [...new Array<number>(r - a.rank).fill(1), ...a.shape];
  const pb = [...new Array<number>(r - b.rank).fill(1), ...b.shape];
  return tidy(() => {
    // [a0, 1, a1, 1, ...] * [1, b0, 1, b1, ...] -> [a0, b0, a1, b1, ...] -> merge each pair.
    const x = a.reshape(pa.flatMap((s) => [s, 1]));
    const y = b.reshape(pb.flatMap((s) => [1, s]));
    return x.mul(y).reshape(pa.map((s, i) => s * pb[i]!));
  }, a.backend.runtime);
}

/** Two distinct dims of `x` (rot90's plane). */
function planeDims(op: string, x: Tensor<Backend, Kind>, dims: unknown): [number, number] {
  const ds = checkArray(op, 'dims', dims);
  if (ds.length !== 2) throw new ArgumentError(`dims must name two dims, got ${show(dims)}`, { op });
  if (x.rank < 2) throw new ShapeError(`${op} needs a tensor of rank 2 or more`, { op, shapes: [x.shape] });
  const a = normDim(op, checkInteger(op, 'dims[0]', ds[0]), x.rank, x.shape);
  const b = normDim(op, checkInteger(op, 'dims[1]', ds[1]), x.rank, x.shape);
  if (a === b) throw new ArgumentError(`dims must be two different dims, got ${show(dims)}`, { op });
  return [a, b];
}

/** torch.rot90: rotates by 90 degrees k times in the plane dims, from dims[0] towards dims[1]. */
export function rot90<B extends Backend, K extends Kind>(x: Tensor<B, K>, k = 1, dims: readonly number[] = [0, 1]): Tensor<B, K> {
  const n = checkInteger('rot90', 'k', k);
  const [a, b] = planeDims('rot90', x, dims);
  const turns = ((n % 4) + 4) % 4;
  return tidy(() => {
    if (turns === 1) return x.flip(b).swapDims(a, b);
    if (turns === 2) return x.flip([a, b]);
    if (turns === 3) return x.flip(a).swapDims(a, b);
    return x.reshape(x.shape);
  }, x.backend.runtime);
}

/** torch.movedim: moves dims `source` to positions `destination`, the others keeping their order. */
export function movedim<B extends Backend, K extends Kind>(x: Tensor<B, K>, source: number | readonly number[], destination: number | readonly number[]): Tensor<B, K> {
  const list = (v: unknown, name: string): number[] => (typeof v === 'number' ? [v] : checkArray('movedim', name, v).map((d, i) => checkInteger('movedim', `${name}[${i}]`, d)));
  const src = list(source, 'source').map((d) => normDim('movedim', d, x.rank, x.shape));
  const dst = list(destination, 'destination').map((d) => normDim('movedim', d, x.rank, x.shape));
  if (src.length !== dst.length) throw new ArgumentError(`source and destination need as many dims, got ${show(source)} and ${show(destination)}`, { op: 'movedim' });
  if (new Set(src).size !== src.length || new Set(dst).size !== dst.length) throw new ArgumentError(`repeated dims in ${show(source)} or ${show(destination)}`, { op: 'movedim' });
  const perm = new Array<number>(x.rank).fill(-1);
  src.forEach((s, i) => (perm[dst[i]!] = s));
  const rest = x.shape.map((_, i) => i).filter((i) => !src.includes(i));
  for (let i = 0, j = 0; i < perm.length; i++) if (perm[i] === -1) perm[i] = rest[j++]!;
  return x.permute(perm);
}

export interface SearchOptions {
  /** The last index where each value fits (torch's right=True). */
  readonly right?: boolean;
  /** 'left' or 'right': torch's side; must agree with `right` when both are given. */
  readonly side?: 'left' | 'right';
}

/**
 * torch.searchsorted: for each value, the index in the sorted innermost dim where it would go
 * (int32). Counts the sorted elements that a binary search would pass: !(s >= v) for the left
 * side, !(s > v) for the right, so a NaN value lands at the end as in torch. O(values x sorted)
 * comparisons: a [..., M, N] grid.
 */
export function searchsorted<B extends Backend, K extends KindsOf<'sum'>>(sorted: Tensor<B, K>, values: Tensor<B, K> | number, options: SearchOptions = {}): Tensor<B, 'int'> {
  const op = 'searchsorted';
  const o = checkOptions(op, options);
  const right = o['right'] === undefined ? false : checkBoolean(op, 'right', o['right']);
  const side = o['side'] === undefined ? undefined : checkChoice(op, 'side', o['side'], ['left', 'right'] as const);
  if (side === 'left' && right) throw new ArgumentError("side 'left' with right: true", { op });
  const isRight = right || side === 'right';
  checkNumeric(op, [sorted]);
  if (sorted.rank === 0) throw new ShapeError('the sorted sequence must have rank 1 or more', { op, shapes: [sorted.shape] });
  if (typeof values === 'number') {
    // torch takes a scalar value with a 1-D sorted sequence only.
    checkNumber(op, 'the value', values);
    if (sorted.rank !== 1) throw new ShapeError('a scalar value needs a 1-D sorted sequence', { op, shapes: [sorted.shape] });
  } else {
    checkTensor(op, 'the values', values);
    checkNumeric(op, [values]);
    checkSameBackend(op, sorted, [values]);
    if (values.dtype !== sorted.dtype) throw new DTypeError('the sorted sequence and the values need one dtype', { op, dtypes: [sorted.dtype, values.dtype] });
    if (sorted.rank > 1 && (values.rank !== sorted.rank || !sameShape(values.shape.slice(0, -1), sorted.shape.slice(0, -1)))) {
      throw new ShapeError('the sorted sequence and the values need the same leading dims (or a 1-D sorted sequence)', { op, shapes: [sorted.shape, values.shape] });
    }
  }
  return tidy(() => {
    const s = sorted.rank === 1 ? sorted : sorted.unsqueeze(-2);
    const v = typeof values === 'number' ? values : values.unsqueeze(-1);
    const grid = isRight ? s.greater(v) : s.greaterEqual(v);
    return grid.logicalNot().cast('int32').sum(-1);
  }, sorted.backend.runtime);
}

/** torch.bucketize(input, boundaries, right): the bucket of each element for 1-D sorted boundaries (int32). */
export function bucketize<B extends Backend, K extends KindsOf<'sum'>>(input: Tensor<B, K>, boundaries: Tensor<B, K>, options: { readonly right?: boolean } = {}): Tensor<B, 'int'> {
  checkTensor('bucketize', 'the boundaries', boundaries);
  if (boundaries.rank !== 1) throw new ShapeError('the boundaries must be 1-D', { op: 'bucketize', shapes: [boundaries.shape] });
  const o = checkOptions('bucketize', options);
  return searchsorted(boundaries, input, { right: o['right'] === undefined ? false : checkBoolean('bucketize', 'right', o['right']) });
}

/**
 * torch.histc: counts in `bins` equal bins over [min, max] (float). Equal min and max take the
 * data's range (widened by 1 each way when that is one value). The bin is
 * floor((x - lo) * bins / (hi - lo)) in float32 as torch's kernel, x = hi in the last bin;
 * elements outside [lo, hi] are not counted, NaN is, in the first bin (as torch 1.13's kernel). No gradient (torch has none).
 */
export function histc<B extends Backend>(x: Float<B>, bins = 100, min = 0, max = 0): Float<B> {
  const op = 'histc';
  checkFloat(op, [x]);
  const n = checkInteger(op, 'bins', bins, 1, 2 ** 31 - 1);
  checkNumber(op, 'min', min, true);
  checkNumber(op, 'max', max, true);
  if (min > max) throw new ArgumentError(`max must be >= min, got min ${min} and max ${max}`, { op });
  return tidy(() => {
    const flat = x.detach().reshape([x.size]).cast('float32');
    let lo: Float<B> = full(x.backend, [], min, { device: x.device });
    let hi: Float<B> = full(x.backend, [], max, { device: x.device });
    if (min === max && x.size > 0) {
      lo = flat.min();
      hi = flat.max();
      const same = lo.equal(hi);
      lo = lo.sub(1).where(same, lo);
      hi = hi.add(1).where(same, hi);
    } else if (min === max) {
      lo = lo.sub(1);
      hi = hi.add(1);
    }
    // torch's kernel skips x < lo and x > hi only, so NaN is counted, in the first bin.
    const inside = flat.lower(lo).logicalOr(flat.greater(hi)).logicalNot();
    const pos = flat.sub(lo).mul(n).div(hi.sub(lo)).floor().clamp(0, n - 1).where(flat.equal(flat), 0);
    const index = pos.where(inside, 0).cast('int32');
    return full(x.backend, [n], 0, { device: x.device }).scatterAdd(0, index, inside.cast('float32'));
  }, x.backend.runtime);
}

/** torch.sinc: sin(pi x) / (pi x), 1 at 0 (gradient 0 there, as torch's). */
export function sinc<B extends Backend>(x: Float<B>): Float<B> {
  checkFloat('sinc', [x]);
  return tidy(() => {
    const some = x.notEqual(0);
    const px = x.where(some, 1).mul(Math.PI);
    return px.sin().div(px).where(some, 1);
  }, x.backend.runtime);
}

/** torch.heaviside(input, values): 0 below 0, 1 above, `values` at 0 (NaN gives 0, as torch). */
export function heaviside<B extends Backend, K extends KindsOf<'sum'>>(x: Tensor<B, K>, values: Tensor<B, K> | number): Tensor<B, K> {
  checkNumeric('heaviside', [x]);
  if (typeof values !== 'number') {
    checkTensor('heaviside', 'the values', values);
    checkSameBackend('heaviside', x, [values]);
    if (values.dtype !== x.dtype) throw new DTypeError('heaviside takes input and values of one dtype', { op: 'heaviside', dtypes: [x.dtype, values.dtype] });
  } else checkNumber('heaviside', 'the value', values);
  const out = broadcastShapes('heaviside', x.shape, typeof values === 'number' ? [] : values.shape);
  return tidy(() => {
    const step = fullLike(x, 1).where(x.greater(0), 0);
    const v = typeof values === 'number' ? fullLike(x, values) : values;
    return v.where(x.equal(0), step).expand(out);
  }, x.backend.runtime);
}

/** The largest finite value of a float dtype (torch's nan_to_num defaults). */
const FINITE_MAX = { float32: 3.4028234663852886e38, float16: 65504 } as const;

/** torch.nan_to_num: NaN, +inf, -inf replaced (the infinities by the dtype's extremes by default). */
export function nanToNum<B extends Backend, K extends Kind>(x: Tensor<B, K>, nan = 0, posinf?: number | null, neginf?: number | null): Tensor<B, K> {
  const op = 'nanToNum';
  checkNumber(op, 'nan', nan);
  const big = x.dtype === 'float16' ? FINITE_MAX.float16 : FINITE_MAX.float32;
  const pos = posinf === undefined || posinf === null ? big : checkNumber(op, 'posinf', posinf);
  const neg = neginf === undefined || neginf === null ? -big : checkNumber(op, 'neginf', neginf);
  if (x.kind !== 'float') return x.clone();
  return tidy(() => x.where(x.equal(x), nan).where(x.notEqual(Infinity), pos).where(x.notEqual(-Infinity), neg), x.backend.runtime);
}

/** torch.signbit: whether the sign bit is set (true for -0; for float, read through copysign). */
export function signbit<B extends Backend, K extends Kind>(x: Tensor<B, K>): Tensor<B, 'bool'> {
  return tidy(() => {
    if (x.kind === 'bool') return x.notEqual(x);
    if (x.kind === 'int') return x.cast('int32').lower(0);
    const f = x.cast('float32');
    return fullLike(f, 1).copysign(f).lower(0);
  }, x.backend.runtime);
}

/** torch.isin: whether each element equals one of `test` (any shape; NaN matches nothing). */
export function isin<B extends Backend, K extends Kind>(x: Tensor<B, K>, test: Tensor<B, K> | number, invert = false): Tensor<B, 'bool'> {
  checkBoolean('isin', 'invert', invert);
  return tidy(() => {
    if (typeof test === 'number') {
      const hit = x.equal(checkNumber('isin', 'the test value', test));
      return invert ? hit.logicalNot() : hit;
    }
    const t = checkTensor('isin', 'the test elements', test);
    checkSameBackend('isin', x, [t]);
    if (t.dtype !== x.dtype) throw new DTypeError('isin takes elements and test elements of one dtype', { op: 'isin', dtypes: [x.dtype, t.dtype] });
    const hit = x.unsqueeze(-1).equal(t.reshape([t.size])).any(-1);
    return invert ? hit.logicalNot() : hit;
  }, x.backend.runtime);
}

export interface CloseOptions {
  readonly rtol?: number;
  readonly atol?: number;
  /** NaN close to NaN. Default false. */
  readonly equalNan?: boolean;
}

/** torch.isclose: equal, or a finite |a - b| <= atol + rtol |b| (the operands broadcasting). */
export function isclose<B extends Backend, K extends Kind>(a: Tensor<B, K>, b: Tensor<B, K> | number, options: CloseOptions = {}): Tensor<B, 'bool'> {
  const op = 'isclose';
  const o = checkOptions(op, options);
  const rtol = o['rtol'] === undefined ? 1e-5 : checkNumber(op, 'rtol', o['rtol'], true);
  const atol = o['atol'] === undefined ? 1e-8 : checkNumber(op, 'atol', o['atol'], true);
  if (rtol < 0 || atol < 0) throw new ArgumentError(`rtol and atol must be non-negative, got ${rtol} and ${atol}`, { op });
  const equalNan = o['equalNan'] === undefined ? false : checkBoolean(op, 'equalNan', o['equalNan']);
  return tidy(() => {
    const other = typeof b === 'number' ? fullLike(a, checkNumber(op, 'the other value', b)) : checkTensor(op, 'the other operand', b);
    if (other.dtype !== a.dtype) throw new DTypeError('isclose takes operands of one dtype', { op, dtypes: [a.dtype, other.dtype] });
    checkSameBackend(op, a, [other]);
    broadcastShapes(op, a.shape, other.shape);
    let close = a.equal(other);
    if (a.kind === 'bool') return close;
    const x = a.cast('float32');
    const y = other.cast('float32');
    const diff = x.sub(y).abs();
    const finite = diff.isNan().logicalOr(diff.isInf()).logicalNot();
    close = close.logicalOr(finite.logicalAnd(diff.lowerEqual(y.abs().mul(rtol).add(atol))));
    if (equalNan) close = close.logicalOr(x.isNan().logicalAnd(y.isNan()));
    return close;
  }, a.backend.runtime);
}

/** torch.allclose: whether every element pair is close (isclose), read back. */
export async function allclose<B extends Backend, K extends Kind>(a: Tensor<B, K>, b: Tensor<B, K> | number, options: CloseOptions = {}): Promise<boolean> {
  const all = tidy(() => isclose(a, b, options).all(), a.backend.runtime);
  try {
    return (await all.item()) !== 0;
  } finally {
    all.dispose();
  }
}

export interface MeshgridOptions {
  /** 'ij' (matrix, torch's default): output dim i follows input i. 'xy' (Cartesian): the first two dims swap. */
  readonly indexing?: 'ij' | 'xy';
}

/** torch.meshgrid: 0-D or 1-D tensors of one dtype to grids of their sizes (expanded views). */
export function meshgrid<B extends Backend, K extends Kind>(tensors: ReadonlyArray<Tensor<B, K>>, options: MeshgridOptions = {}): Array<Tensor<B, K>> {
  const op = 'meshgrid';
  for (const t of checkArray(op, 'the tensors', tensors)) checkTensor(op, 'each entry', t);
  const ts = tensors;
  const o = checkOptions(op, options);
  const indexing = o['indexing'] === undefined ? 'ij' : checkChoice(op, 'indexing', o['indexing'], ['ij', 'xy'] as const);
  const first = tensors[0];
  if (!first) throw new ArgumentError('meshgrid needs at least one tensor', { op });
  if (ts.some((t) => t.rank > 1)) throw new ShapeError('meshgrid takes 0-D or 1-D tensors', { op, shapes: ts.map((t) => t.shape) });
  if (ts.some((t) => t.dtype !== first.dtype)) throw new DTypeError('meshgrid takes tensors of one dtype', { op, dtypes: ts.map((t) => t.dtype) });
  checkSameBackend(op, first, ts);
  const sizes = tensors.map((t) => t.size);
  // 'xy' swaps the roles of the first two inputs in the output's dims.
  const swap = indexing === 'xy' && tensors.length >= 2;
  const shape = swap ? [sizes[1]!, sizes[0]!, ...sizes.slice(2)] : sizes;
  return tidy(() => tensors.map((t, i) => {
    const at = swap && i < 2 ? 1 - i : i;
    const view = shape.map((s, j) => (j === at ? s : 1));
    return t.reshape(view).expand(shape);
  }), first.backend.runtime);
}

/** torch.cartesian_prod: the rows of every combination of the 1-D inputs' elements, [N, k] (one input: itself). */
export function cartesianProd<B extends Backend, K extends Kind>(tensors: ReadonlyArray<Tensor<B, K>>): Tensor<B, K> {
  for (const t of checkArray('cartesianProd', 'the tensors', tensors)) checkTensor('cartesianProd', 'each entry', t);
  const ts = tensors;
  if (ts.some((t) => t.rank !== 1)) throw new ShapeError('cartesianProd takes 1-D tensors', { op: 'cartesianProd', shapes: ts.map((t) => t.shape) });
  const first = tensors[0];
  if (!first) throw new ArgumentError('cartesianProd needs at least one tensor', { op: 'cartesianProd' });
  if (tensors.length === 1) return first.reshape(first.shape);
  return tidy(() => {
    const grids = meshgrid(tensors, { indexing: 'ij' });
    return Tensor.stack(grids.map((g) => g.reshape([g.size])), 1);
  }, first.backend.runtime);
}

/** torch.logaddexp2: log2(2^a + 2^b), as logaddexp of the inputs scaled by ln 2. */
export function logaddexp2<B extends Backend>(a: Float<B>, b: Float<B> | number): Float<B> {
  checkFloat('logaddexp2', [a]);
  if (typeof b === 'number') checkNumber('logaddexp2', 'the other value', b);
  else {
    checkTensor('logaddexp2', 'the other operand', b);
    checkSameBackend('logaddexp2', a, [b]);
    if (b.dtype !== a.dtype) throw new DTypeError('logaddexp2 takes operands of one dtype', { op: 'logaddexp2', dtypes: [a.dtype, b.dtype] });
    broadcastShapes('logaddexp2', a.shape, b.shape);
  }
  return tidy(() => a.mul(Math.LN2).logaddexp(typeof b === 'number' ? b * Math.LN2 : b.mul(Math.LN2)).div(Math.LN2), a.backend.runtime);
}

/** x times a constant factor (deg2rad, rad2deg): float only (torch promotes ints to float; we do not promote). */
export function scaleFloat<B extends Backend>(op: string, x: Float<B>, factor: number): Float<B> {
  checkFloat(op, [x]);
  return x.mul(factor);
}

/**
 * torch.vander(x, N, increasing): columns x^(N-1) ... x^0 of a 1-D x (increasing: x^0 first), N
 * default the length. A cumprod of [1, x, x, ...], as torch's, so the gradient at x = 0 is finite.
 */
export function vander<B extends Backend, K extends KindsOf<'mul'>>(x: Tensor<B, K>, n?: number | null, increasing = false): Tensor<B, K> {
  checkNumeric('vander', [x]);
  checkRank('vander', x, 1, 'the input');
  const cols = n === undefined || n === null ? x.size : checkInteger('vander', 'N', n, 0, 2 ** 31 - 1);
  checkBoolean('vander', 'increasing', increasing);
  return tidy(() => {
    // At least [1, x] before narrowing: N = 0 or 1 stay in the graph (zero gradients, as torch's).
    const ones = fullLike(x, 1).unsqueeze(1);
    const powers = Tensor.cat([ones, x.unsqueeze(1).expand([x.size, Math.max(1, cols - 1)])], 1).cumprod(1).narrow(1, 0, cols);
    return increasing ? powers : powers.flip(1);
  }, x.backend.runtime);
}
