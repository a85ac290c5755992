/**
 * eigh and eigvalsh: the symmetric eigendecomposition by parallel Jacobi rotations (jacobi.ts),
 * sorted ascending as torch. The rotations run untracked; the results carry torch's eigh gradient
 * through a linearisation (see `linearised`), not through the loop.
 */
import type { Backend } from '../backends/backend.js';
import { noGrad } from '../autodiff/grad-mode.js';
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { eye, zeros } from '../tensor/creation.js';
import { checkSquare, type F } from './checks.js';
import { jacobiEigen } from './jacobi.js';

export type Uplo = 'L' | 'U';

/** value + (lin - lin.detach()): value forward, lin's gradient backward (lin finite, so the difference is exactly 0). */
export function withGradOf<B extends Backend>(value: F<B>, lin: F<B>): F<B> {
  return value.add(lin.sub(lin.detach()));
}

/**
 * m ∘ (1 / e) off the diagonal, 0 on it (e [..., k, k] holds differences of eigen- or singular
 * values). Where e is 0 off the diagonal (tied values) the forward gives 0, so the results stay
 * finite, and the backward NaN (dy 0 times 1 / 0 in mul's rule), as torch's gradient there.
 */
export function offDiagonalQuotient<B extends Backend>(m: F<B>, e: F<B>): F<B> {
  const k = e.shape[e.rank - 1]!;
  const diag = eye(e.backend, k, k, { device: e.device, dtype: e.dtype }).equal(1);
  const f = e.maskFill(diag, Infinity).recip();
  return f.mul(m).maskFill(f.isInf(), 0);
}

/**
 * Eigenvalues L and vectors V (untracked) made to carry torch's gradient with respect to a: with
 * M = Vᵀ sym(A) V (V constant), L + d(diag M) and V + d(V (F ∘ M)), F_ij = 1 / (L_j - L_i) off the
 * diagonal, differentiate to gA = V (diag(gL) + F ∘ skew(Vᵀ gV)) Vᵀ, torch's eigh backward. As torch,
 * gA is symmetric though the forward reads one triangle.
 */
function linearised<B extends Backend>(a: F<B>, l: F<B>, v: F<B>, vectors: boolean): { l: F<B>; v: F<B> } {
  const sym = a.add(a.transpose()).mul(0.5);
  const m = v.transpose().matmul(sym).matmul(v);
  const eigenvalues = withGradOf(l, m.diagonal(0, -2, -1));
  if (!vectors) return { l: eigenvalues, v };
  return { l: eigenvalues, v: withGradOf(v, v.matmul(offDiagonalQuotient(m, l.unsqueeze(-2).sub(l.unsqueeze(-1))))) };
}

function decompose<B extends Backend>(op: string, a: F<B>, uplo: unknown, vectors: boolean): { l: F<B>; v: F<B> } {
  checkSquare(op, 'A', a);
  if (uplo !== 'L' && uplo !== 'U') throw new ArgumentError(`uplo must be 'L' or 'U', got ${show(uplo)}`, { op, hint: "'L' (default) reads the lower triangle, 'U' the upper" });
  const n = a.shape[a.rank - 1]!;
  const batch = a.shape.slice(0, -2);
  return tidy(() => {
    if (n === 0) return { l: zeros(a.backend, [...batch, 0], { device: a.device, dtype: a.dtype }), v: a.mul(1) };
    const { l, v } = noGrad(() => {
      const x = a.detach();
      // The chosen triangle mirrored: torch reads only that one.
      const s = uplo === 'L' ? x.tril().add(x.tril(-1).transpose()) : x.triu().add(x.triu(1).transpose());
      const { values, rows } = jacobiEigen(s);
      const order = values.argsort(-1);
      return { l: values.gather(-1, order), v: rows.transpose().gather(-1, order.unsqueeze(-2).expand([...batch, n, n])) };
    }, a.backend.runtime);
    return a.requiresGrad ? linearised(a, l, v, vectors) : { l, v };
  }, a.backend.runtime);
}

/**
 * torch.linalg.eigh(A, UPLO): A [..., n, n] symmetric (only the `uplo` triangle is read) = V
 * diag(L) Vᵀ, eigenvalues ascending [..., n], eigenvectors the columns of V [..., n, n] (each one's
 * sign is arbitrary, as in torch). Parallel Jacobi, a fixed number of sweeps (jacobi.ts). The
 * gradient is torch's, first order only (createGraph differentiates it with V and L held fixed);
 * through the eigenvectors it is NaN where two eigenvalues are equal, as torch's.
 */
export function eigh<B extends Backend>(a: F<B>, uplo: Uplo = 'L'): { eigenvalues: F<B>; eigenvectors: F<B> } {
  const { l, v } = decompose('eigh', a, uplo, true);
  return { eigenvalues: l, eigenvectors: v };
}

/** torch.linalg.eigvalsh(A, UPLO): eigh's eigenvalues, ascending [..., n]; the gradient is V diag(gL) Vᵀ. */
export function eigvalsh<B extends Backend>(a: F<B>, uplo: Uplo = 'L'): F<B> {
  const { l, v } = decompose('eigvalsh', a, uplo, false);
  v.dispose();
  return l;
}
