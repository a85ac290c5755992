/** Matrix reductions: matrix norms (the spectral ones from svdvals) and the trace. */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { checkMatrix, checkSquare, type F } from './checks.js';
import { svdvals } from './svd.js';

/** 'fro', 'nuc', or a number: 2, -2, 1, -1, Infinity, -Infinity. */
export type MatrixOrd = 'fro' | 'nuc' | number;

const ORDS: readonly unknown[] = ['fro', 'nuc', 2, -2, 1, -1, Infinity, -Infinity];

/**
 * torch.linalg.matrix_norm(A, ord, dim=(-2, -1), keepdim): 'fro' (default) the square root of the
 * sum of squares; 'nuc' the sum of the singular values, 2 / -2 the largest / smallest (at svdvals'
 * cost: Jacobi sweeps); 1 / -1 the largest / smallest column sum of |A|, Infinity /
 * -Infinity the same over rows.
 */
export function matrixNorm<B extends Backend>(a: F<B>, ord: MatrixOrd = 'fro', keepDims = false): F<B> {
  const op = 'matrixNorm';
  checkMatrix(op, 'A', a);
  if (!ORDS.includes(ord)) throw new ArgumentError(`ord must be 'fro', 'nuc', 2, -2, 1, -1, Infinity or -Infinity, got ${show(ord)}`, { op });
  if (typeof keepDims !== 'boolean') throw new ArgumentError(`keepDims must be a boolean, got ${show(keepDims)}`, { op });
  if (ord === 'fro') return a.norm(2, [-2, -1], keepDims);
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  // torch's amax / amin of an empty reduction: no identity to give.
  const reduced = ord === 2 || ord === -2 ? Math.min(m, n) : ord === 1 || ord === -1 ? n : ord === 'nuc' ? 1 : m;
  if (reduced === 0) throw new ShapeError(`the ${String(ord)}-norm of an empty matrix [..., ${m}, ${n}] is not defined`, { op, shapes: [a.shape], hint: "'fro' and 'nuc' give 0 there" });
  return tidy(() => {
    let r: F<B>;
    if (ord === 'nuc') r = svdvals(a).sum(-1);
    else if (ord === 2 || ord === -2) {
      const s = svdvals(a);
      // svdvals is sorted: the end entry, whose gradient is u vᵀ (max would split it among ties).
      r = s.narrow(-1, ord === 2 ? 0 : s.shape[s.rank - 1]! - 1, 1).squeeze(-1);
    } else {
      const sums = a.abs().sum(ord === 1 || ord === -1 ? -2 : -1);
      r = ord > 0 ? sums.max(-1) : sums.min(-1);
    }
    return keepDims ? r.unsqueeze(-1).unsqueeze(-1) : r;
  }, a.backend.runtime);
}

/** The sum of the diagonal of each square matrix, [...]: torch.trace for a 2-D A (batched here). */
export function trace<B extends Backend>(a: F<B>): F<B> {
  checkSquare('trace', 'A', a);
  return tidy(() => a.diagonal(0, -2, -1).sum(-1), a.backend.runtime);
}
