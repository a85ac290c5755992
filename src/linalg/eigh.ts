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
import { zeros } from '../tensor/creation.js';
import { checkSquare, type F } from './checks.js';
import { jacobiEigen } from './jacobi.js';
import { delta, mean2, offDiagonalQuotient } from './linearise.js';

export type Uplo = 'L' | 'U';

/** The eigh perturbation: dL = diag(Vᵀ dS V), dV = V (F ∘ Vᵀ dS V), F_ij = 1 / (L_j - L_i) off the diagonal. */
function perturbation<B extends Backend>(ds: F<B>, l: F<B>, v: F<B>, nanAtTies: boolean): { dl: F<B>; dv: F<B> } {
  const m = v.transpose().matmul(ds).matmul(v);
  return { dl: m.diagonal(0, -2, -1), dv: v.matmul(offDiagonalQuotient(m, l.unsqueeze(-2).sub(l.unsqueeze(-1)), nanAtTies)) };
}

/**
 * Eigenvalues L and vectors V (untracked) made to carry torch's gradient with respect to a
 * (linearise.ts), dS = sym(dA): gA = V (diag(gL) + F ∘ skew(Vᵀ gV)) Vᵀ, torch's eigh backward,
 * symmetric though the forward reads one triangle, as torch's.
 */
function linearised<B extends Backend>(a: F<B>, l: F<B>, v: F<B>, vectors: boolean): { l: F<B>; v: F<B> } {
  const d = delta(a.add(a.transpose()).mul(0.5));
  // D1's terms (a tie gives 0 there, not NaN), then D + (J(Δ; D) + J(Δ; D1)) / 2 (linearise.ts).
  const safe = perturbation(d, l, v, false);
  const p0 = perturbation(d, l, v, true);
  const p1 = perturbation(d, l.add(safe.dl), v.add(safe.dv), true);
  return { l: l.add(mean2(p0.dl, p1.dl)), v: vectors ? v.add(mean2(p0.dv, p1.dv)) : v };
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
 * gradient is torch's (second derivatives too); through the eigenvectors it is NaN where two
 * eigenvalues are equal, as torch's.
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
