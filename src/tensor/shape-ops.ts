/**
 * Shape ops built from movement ops (reshape, expand, permute, strided slices, constant pads), so
 * their gradients come from those: tile, repeatInterleave, unbind, diagonal, diagEmbed, diag, outer.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, ShapeError } from '../errors.js';
import type { Kind } from '../ir/dtype.js';
import type { KindsOf } from '../ir/kinds.js';
import { checkSize, normDim } from '../ir/shape.js';
import { checkArray, checkInteger, MAX_RANK, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import type { Tensor } from './tensor.js';

/** torch.tile: `reps` shorter than the rank is padded with leading ones; longer adds leading dims (then as repeat). */
export function tile<B extends Backend, K extends Kind>(x: Tensor<B, K>, reps: readonly number[]): Tensor<B, K> {
  const r = checkArray('tile', 'reps', reps);
  if (r.some((s) => typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0)) throw new ArgumentError(`tile reps must be non-negative integers: [${r.map(show).join(', ')}]`, { op: 'tile' });
  const sizes = [...new Array<number>(Math.max(0, x.rank - r.length)).fill(1), ...(r as number[])];
  if (sizes.length > MAX_RANK) throw new ShapeError(`tile to rank ${sizes.length}: tensors have at most ${MAX_RANK} dims`, { op: 'tile', shapes: [x.shape, sizes] });
  return x.repeat(sizes);
}

/** torch.repeat_interleave(x, repeats: int, dim): each element `repeats` times in a row; without dim, of the flattened tensor. */
export function repeatInterleave<B extends Backend, K extends Kind>(x: Tensor<B, K>, repeats: number, dim?: number | null): Tensor<B, K> {
  checkInteger('repeatInterleave', 'repeats', repeats, 0);
  return tidy(() => {
    let t: Tensor<B, K>;
    let d: number;
    if (dim === undefined || dim === null) {
      t = x.reshape([x.size]);
      d = 0;
    } else {
      d = normDim('repeatInterleave', checkInteger('repeatInterleave', 'dim', dim), x.rank, x.shape);
      t = x.rank === 0 ? x.reshape([1]) : x;
    }
    const s = t.shape;
    const out = [...s.slice(0, d), s[d]! * repeats, ...s.slice(d + 1)];
    checkSize('repeatInterleave', out, x.dtype);
    // [.., n, ..] -> [.., n, 1, ..] -> expand [.., n, r, ..] -> merge: element i then its copies.
    const e = t.unsqueeze(d + 1).expand([...s.slice(0, d + 1), repeats, ...s.slice(d + 1)]);
    return e.reshape(out);
  }, x.backend.runtime);
}

/** torch.unbind: the slices along `dim`, each without that dim (views). */
export function unbind<B extends Backend, K extends Kind>(x: Tensor<B, K>, dim: number): Array<Tensor<B, K>> {
  if (x.rank === 0) throw new ShapeError('unbind needs a tensor of rank 1 or more', { op: 'unbind', shapes: [x.shape] });
  const d = normDim('unbind', checkInteger('unbind', 'dim', dim), x.rank, x.shape);
  const rest = x.shape.filter((_, i) => i !== d);
  return tidy(() => Array.from({ length: x.shape[d]! }, (_, i) => x.narrow(d, i, 1).reshape(rest)), x.backend.runtime);
}

/** The length of the diagonal `offset` of an n x m matrix. */
function diagLength(n: number, m: number, offset: number): number {
  return Math.max(0, offset >= 0 ? Math.min(n, m - offset) : Math.min(n + offset, m));
}

/**
 * torch.diagonal: the entries (i, i + offset) of dims dim1 and dim2, as a new last dim. The two
 * dims are moved last and merged, and the diagonal is a strided slice of that (step m + 1).
 */
export function diagonal<B extends Backend, K extends Kind>(x: Tensor<B, K>, offset: number, dim1: number, dim2: number): Tensor<B, K> {
  checkInteger('diagonal', 'offset', offset);
  if (x.rank < 2) throw new ShapeError(`diagonal needs a tensor of rank 2 or more, got rank ${x.rank}`, { op: 'diagonal', shapes: [x.shape] });
  const d1 = normDim('diagonal', checkInteger('diagonal', 'dim1', dim1), x.rank, x.shape);
  const d2 = normDim('diagonal', checkInteger('diagonal', 'dim2', dim2), x.rank, x.shape);
  if (d1 === d2) throw new ShapeError(`dim1 and dim2 are both dim ${d1}`, { op: 'diagonal', shapes: [x.shape], hint: 'pick two different dims' });
  const n = x.shape[d1]!;
  const m = x.shape[d2]!;
  const kept = x.shape.map((_, i) => i).filter((i) => i !== d1 && i !== d2);
  const lead = kept.map((i) => x.shape[i]!);
  const len = diagLength(n, m, offset);
  return tidy(() => {
    const flat = x.permute([...kept, d1, d2]).reshape([...lead, n * m]);
    if (len === 0) return flat.narrow(lead.length, 0, 0);
    const start = offset >= 0 ? offset : -offset * m;
    const ranges = [...lead.map(() => null), { start, end: start + (len - 1) * (m + 1) + 1, step: m + 1 }];
    return flat.slice(ranges);
  }, x.backend.runtime);
}

/**
 * torch.diag_embed: the last dim of x becomes the diagonal `offset` of a new square matrix (zeros
 * elsewhere) in dims dim1, dim2 of the result. Each row gets n zeros appended (a constant pad), the
 * rows are merged, shifted to the first diagonal entry and cut to n * n: the entries land n + 1 apart.
 */
export function diagEmbed<B extends Backend, K extends Kind>(x: Tensor<B, K>, offset: number, dim1: number, dim2: number): Tensor<B, K> {
  checkInteger('diagEmbed', 'offset', offset);
  if (x.rank === 0) throw new ShapeError('diagEmbed needs a tensor of rank 1 or more', { op: 'diagEmbed', shapes: [x.shape] });
  const r = x.rank + 1;
  const d1 = normDim('diagEmbed', checkInteger('diagEmbed', 'dim1', dim1), r, x.shape);
  const d2 = normDim('diagEmbed', checkInteger('diagEmbed', 'dim2', dim2), r, x.shape);
  if (d1 === d2) throw new ShapeError(`dim1 and dim2 are both dim ${d1}`, { op: 'diagEmbed', shapes: [x.shape], hint: 'pick two different dims' });
  const len = x.shape[x.rank - 1]!;
  const lead = x.shape.slice(0, -1);
  const n = len + Math.abs(offset);
  checkSize('diagEmbed', [...lead, n, n], x.dtype);
  const shift = offset >= 0 ? offset : -offset * n;
  return tidy(() => {
    // No entries: zeros (not in x's graph: an empty x has no gradient to take).
    const square = len === 0 ? x.reshape([...lead, 0]).pad([0, n * n], 'constant', 0).reshape([...lead, n, n]) : embedLast(x, lead, len, n, shift);
    // The matrix dims are last: move them to dim1 and dim2, the others keep their order.
    const perm = new Array<number>(r);
    perm[d1] = r - 2;
    perm[d2] = r - 1;
    let k = 0;
    for (let i = 0; i < r; i++) if (i !== d1 && i !== d2) perm[i] = k++;
    return perm.every((p, i) => p === i) ? square : square.permute(perm);
  }, x.backend.runtime);
}

/** The rows of x (last dim len) on the diagonal `shift` entries into n x n matrices (see diagEmbed). */
function embedLast<B extends Backend, K extends Kind>(x: Tensor<B, K>, lead: readonly number[], len: number, n: number, shift: number): Tensor<B, K> {
  const rows = x.unsqueeze(-1).pad([0, n], 'constant', 0).reshape([...lead, len * (n + 1)]);
  return rows.pad([shift, n * n - len * (n + 1) - shift], 'constant', 0).reshape([...lead, n, n]);
}

/** torch.diag: a 1-D tensor becomes the diagonal `offset` of a square matrix; a 2-D one gives its diagonal `offset`. */
export function diag<B extends Backend, K extends Kind>(x: Tensor<B, K>, offset: number): Tensor<B, K> {
  checkInteger('diag', 'offset', offset);
  if (x.rank === 1) return diagEmbed(x, offset, 0, 1);
  if (x.rank === 2) return diagonal(x, offset, 0, 1);
  throw new ShapeError(`diag takes a 1-D or 2-D tensor, got rank ${x.rank}`, { op: 'diag', shapes: [x.shape], hint: 'use diagonal or diagEmbed for batches' });
}

/** torch.outer: a[i] * b[j] of two 1-D tensors. */
export function outer<B extends Backend, K extends KindsOf<'mul'>>(a: Tensor<B, K>, b: Tensor<B, K>): Tensor<B, K> {
  if (a.rank !== 1 || b.rank !== 1) throw new ShapeError(`outer takes two 1-D tensors, got shapes [${a.shape.join(', ')}] and [${b.shape.join(', ')}]`, { op: 'outer', shapes: [a.shape, b.shape] });
  return tidy(() => a.unsqueeze(1).mul(b.unsqueeze(0)), a.backend.runtime);
}
