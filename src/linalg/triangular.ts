/**
 * Triangular solves and the Cholesky factor, composed from narrow / matmul / sub / div / cat by a
 * recursive 2 x 2 block split: each level solves the first half, updates the second with one batched
 * matmul and recurses, so about 10 records per column run on any backend and Autodiff
 * differentiates through them (no rule of their own).
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import { Tensor } from '../tensor/tensor.js';
import { batchOf, boolOptions, checkMatrix, checkSquare, sameDType, type F } from './checks.js';

const block = <B extends Backend>(x: F<B>, r: number, rn: number, c: number, cn: number): F<B> => x.narrow(-2, r, rn).narrow(-1, c, cn);

/** X with A X = B for a lower (or upper) triangular A [..., n, n], B [..., n, k] of the same batch dims. */
function substitute<B extends Backend>(a: F<B>, b: F<B>, upper: boolean, unit: boolean): F<B> {
  const n = a.shape[a.rank - 1]!;
  if (n === 1) return unit ? b.mul(1) : b.div(a);
  const h = n >> 1;
  const r = n - h;
  const b1 = b.narrow(-2, 0, h);
  const b2 = b.narrow(-2, h, r);
  if (upper) {
    const x2 = substitute(block(a, h, r, h, r), b2, upper, unit);
    const x1 = substitute(block(a, 0, h, 0, h), b1.sub(block(a, 0, h, h, r).matmul(x2)), upper, unit);
    return Tensor.cat([x1, x2], -2);
  }
  const x1 = substitute(block(a, 0, h, 0, h), b1, upper, unit);
  const x2 = substitute(block(a, h, r, h, r), b2.sub(block(a, h, r, 0, h).matmul(x1)), upper, unit);
  return Tensor.cat([x1, x2], -2);
}

export interface SolveTriangularOptions {
  /** A is upper triangular (its strict lower part is not read); required, as in torch. */
  upper: boolean;
  /** true (default): solve A X = B; false: X A = B. */
  left?: boolean;
  /** The diagonal of A is taken as ones (not read). */
  unitriangular?: boolean;
}

/**
 * torch.linalg.solve_triangular(A, B, upper=, left=, unitriangular=): A [..., n, n] triangular, B
 * [..., n, k] (left) or [..., k, n] (right), batch dims broadcast; only A's triangle is read. A zero
 * on the diagonal gives inf / NaN (torch too: no check).
 */
export function solveTriangular<B extends Backend>(a: F<B>, b: F<B>, options: SolveTriangularOptions): F<B> {
  const op = 'solveTriangular';
  checkSquare(op, 'A', a);
  checkMatrix(op, 'B', b);
  sameDType(op, a, b);
  const o = boolOptions(op, options, ['upper', 'left', 'unitriangular']);
  if (o['upper'] === undefined) throw new ArgumentError('option upper is required (torch has no default)', { op, hint: 'solveTriangular(a, b, { upper: false }) for a lower triangular A' });
  const upper = o['upper'];
  const left = o['left'] ?? true;
  const unit = o['unitriangular'] ?? false;
  const n = a.shape[a.rank - 1]!;
  const along = left ? b.shape[b.rank - 2]! : b.shape[b.rank - 1]!;
  if (along !== n) {
    throw new ShapeError(`B must be [..., ${left ? `${n}, k` : `k, ${n}`}] for a ${n} x ${n} A${left ? '' : ' with left: false'}, got [..., ${b.shape.slice(-2).join(', ')}]`, { op, shapes: [a.shape, b.shape], hint: left ? 'A X = B: B has n rows' : 'X A = B: B has n columns' });
  }
  const batch = batchOf(op, a.shape, b.shape);
  return tidy(() => {
    const bb = b.expand([...batch, ...b.shape.slice(-2)]);
    if (n === 0) return bb.mul(1);
    // X A = B is Aᵀ Xᵀ = Bᵀ, with the triangle flipped.
    if (!left) return substitute(a.transpose(), bb.transpose(), !upper, unit).transpose();
    return substitute(a, bb, upper, unit);
  }, a.backend.runtime);
}

/** The lower factor of the lower triangle of a [..., n, n] (recursively; a pivot <= 0 or NaN becomes NaN). */
function factor<B extends Backend>(a: F<B>): F<B> {
  const n = a.shape[a.rank - 1]!;
  if (n === 1) return a.maskFill(a.lowerEqual(0), NaN).sqrt();
  const h = n >> 1;
  const r = n - h;
  const l11 = factor(block(a, 0, h, 0, h));
  // L21 L11ᵀ = A21, so L11 L21ᵀ = A21ᵀ.
  const l21 = substitute(l11, block(a, h, r, 0, h).transpose(), false, false).transpose();
  const l22 = factor(block(a, h, r, h, r).sub(l21.matmul(l21.transpose())));
  return Tensor.cat([l11.pad([0, r]), Tensor.cat([l21, l22], -1)], -2);
}

/**
 * torch.linalg.cholesky(A, upper=): L with A = L Lᵀ (or U = Lᵀ), reading A's lower triangle. torch
 * raises for a matrix that is not positive definite; here the check would need a read from the
 * device, so such a matrix gives a factor of NaN (all of it: test with `isNan().any()`). The
 * gradient is torch's, spread evenly over both triangles (the input is taken as symmetric).
 */
export function cholesky<B extends Backend>(a: F<B>, options?: { upper?: boolean }): F<B> {
  const op = 'cholesky';
  checkSquare(op, 'A', a);
  const upper = boolOptions(op, options, ['upper'])['upper'] ?? false;
  const n = a.shape[a.rank - 1]!;
  return tidy(() => {
    if (n === 0) return a.mul(1);
    // Forward: the lower triangle mirrored (torch reads only that); backward: as through (A + Aᵀ) / 2,
    // which gives torch's symmetric gradient.
    const sym = a.add(a.transpose()).mul(0.5);
    const lower = a.tril().add(a.tril(-1).transpose());
    const s = a.requiresGrad ? sym.add(lower.sub(sym).detach()) : lower;
    const l = factor(s);
    // One failed pivot poisons the rest of its factor; NaN everywhere makes the failure plain.
    const failed = l.diagonal(0, -2, -1).isNan().any(-1, true).unsqueeze(-1);
    const out = l.maskFill(failed, NaN);
    return upper ? out.transpose() : out;
  }, a.backend.runtime);
}
