/** Matrix reductions: the Frobenius norm and the trace, from the vector norm and diagonal. */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { checkMatrix, checkSquare, type F } from './checks.js';

/** torch.linalg.matrix_norm(A, 'fro', dim=(-2, -1), keepdim): sqrt of the sum of squares of each matrix; only 'fro' (the nuclear and spectral norms need an SVD). */
export function matrixNorm<B extends Backend>(a: F<B>, ord: 'fro' = 'fro', keepDims = false): F<B> {
  const op = 'matrixNorm';
  checkMatrix(op, 'A', a);
  if (ord !== 'fro') throw new ArgumentError(`ord must be 'fro', got ${show(ord)}`, { op, hint: "the 'nuc', 2 and -2 norms need an SVD, which Switchyard lacks; 1 / inf: a.abs().sum(-2).max(-1)" });
  if (typeof keepDims !== 'boolean') throw new ArgumentError(`keepDims must be a boolean, got ${show(keepDims)}`, { op });
  return a.norm(2, [-2, -1], keepDims);
}

/** The sum of the diagonal of each square matrix, [...]: torch.trace for a 2-D A (batched here). */
export function trace<B extends Backend>(a: F<B>): F<B> {
  checkSquare('trace', 'A', a);
  return tidy(() => a.diagonal(0, -2, -1).sum(-1), a.backend.runtime);
}
