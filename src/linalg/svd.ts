/**
 * svd and svdvals by one-sided Jacobi (Hestenes, jacobi.ts) on the columns of A (of Aᵀ when A is
 * wide): the columns are rotated until orthogonal, their norms are the singular values, and U is
 * their normalised directions, passed through Householder QR (qr.ts) so that it is orthonormal to
 * working precision and completed where a singular value is 0 or fullMatrices asks for more
 * columns. Sorted descending as torch. The rotations run untracked; the results carry torch's svd
 * gradient through a linearisation (see `linearised`).
 */
import type { Backend } from '../backends/backend.js';
import { noGrad } from '../autodiff/grad-mode.js';
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { eye, full, zeros } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { checkMatrix, type F } from './checks.js';
import { jacobiRows } from './jacobi.js';
import { delta, divideColumns, mean2, offDiagonalQuotient } from './linearise.js';
import { qr } from './qr.js';

interface Factors<B extends Backend> {
  /** [..., m, k] (or [..., m, m] when complete). */
  readonly u: F<B>;
  /** [..., k], descending. */
  readonly s: F<B>;
  /** [..., n, k]: V, not Vh. */
  readonly v: F<B>;
}

/** The SVD of a tall (m >= n >= 1) untracked a: U [..., m, n] (or [..., m, m] when complete), S, V. */
function tallSvd<B extends Backend>(a: F<B>, complete: boolean): Factors<B> {
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  const batch = a.shape.slice(0, -2);
  // Scaled to max |A| = 1: the rotations square the entries, which would overflow past ~1e19 and underflow below ~1e-19.
  const big = a.abs().max([-2, -1], true);
  const scale = big.maskFill(big.equal(0), 1);
  const { x, rows } = jacobiRows(a.div(scale).transpose());
  const norms = x.norm(2, -1);
  const order = norms.argsort(-1, true);
  const s = norms.gather(-1, order);
  const col = order.unsqueeze(-1);
  const xs = x.gather(-2, col.expand([...batch, n, m]));
  const v = rows.gather(-2, col.expand([...batch, n, n])).transpose();
  // The directions, 0 where a column vanished; QR keeps them (up to R's signs) and fills the gaps.
  const dir = xs.div(s.maskFill(s.equal(0), 1).unsqueeze(-1)).transpose();
  const { Q, R } = qr(dir, complete ? 'complete' : 'reduced');
  const d = R.diagonal(0, -2, -1);
  const signs = d.sign().maskFill(d.equal(0), 1);
  const cols = complete ? Tensor.cat([signs, full(a.backend, [...batch, m - n], 1, { device: a.device, dtype: a.dtype })], -1) : signs;
  return { u: Q.mul(cols.unsqueeze(-2)), s: s.mul(scale.squeeze(-1)), v };
}

/**
 * The SVD perturbation of a tall A (k = n) for dA, with P = Uᵀ dA V:
 *   dS = diag(P), dU = U Ω_U + (I - U Uᵀ) dA V S⁻¹, dV = V Ω_V,
 *   Ω_U = (P S + S Pᵀ) / E, Ω_V = (S P + Pᵀ S) / E, E_jk = S_k² - S_j² (off the diagonal);
 * its adjoint is torch's svd_backward.
 */
function perturbation<B extends Backend>(da: F<B>, u: F<B>, s: F<B>, v: F<B>, nanAtTies: boolean): { ds: F<B>; du: F<B>; dv: F<B> } {
  const m = da.shape[da.rank - 2]!;
  const k = s.shape[s.rank - 1]!;
  const dav = da.matmul(v);
  const p = u.transpose().matmul(dav);
  const row = s.unsqueeze(-2);
  const col = s.unsqueeze(-1);
  const pt = p.transpose();
  const sq = s.square();
  const e = sq.unsqueeze(-2).sub(sq.unsqueeze(-1));
  let du = u.matmul(offDiagonalQuotient(p.mul(row).add(pt.mul(col)), e, nanAtTies));
  if (m > k) du = du.add(divideColumns(dav.sub(u.matmul(p)), s, nanAtTies));
  const dv = v.matmul(offDiagonalQuotient(p.mul(col).add(pt.mul(row)), e, nanAtTies));
  return { ds: p.diagonal(0, -2, -1), du, dv };
}

/**
 * U, S, V (untracked, tall: k = n) made to carry torch's svd gradient with respect to a (tracked,
 * [..., m, n]; linearise.ts). Extra columns of a complete U carry no gradient (torch raises
 * there). A zero singular value gives NaN through U's second term, as torch's division by S.
 */
function linearised<B extends Backend>(a: F<B>, f: Factors<B>, vectors: boolean): Factors<B> {
  const m = a.shape[a.rank - 2]!;
  const k = f.s.shape[f.s.rank - 1]!;
  const uk = f.u.narrow(-1, 0, k);
  const d = delta(a);
  // D1's terms (a tie gives 0 there, not NaN), then D + (J(Δ; D) + J(Δ; D1)) / 2 (linearise.ts).
  const safe = perturbation(d, uk, f.s, f.v, false);
  const p0 = perturbation(d, uk, f.s, f.v, true);
  const p1 = perturbation(d, uk.add(safe.du), f.s.add(safe.ds), f.v.add(safe.dv), true);
  const s = f.s.add(mean2(p0.ds, p1.ds));
  if (!vectors) return { u: f.u, s, v: f.v };
  const u = uk.add(mean2(p0.du, p1.du));
  return { u: f.u.shape[f.u.rank - 1] === k ? u : Tensor.cat([u, f.u.narrow(-1, k, m - k)], -1), s, v: f.v.add(mean2(p0.dv, p1.dv)) };
}

function decompose<B extends Backend>(op: string, a: F<B>, fullMatrices: unknown, vectors: boolean): Factors<B> {
  checkMatrix(op, 'A', a);
  if (typeof fullMatrices !== 'boolean') throw new ArgumentError(`fullMatrices must be a boolean, got ${show(fullMatrices)}`, { op });
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  const batch = a.shape.slice(0, -2);
  const wide = m < n;
  const k = Math.min(m, n);
  const complete = fullMatrices && vectors;
  return tidy(() => {
    const opts = { device: a.device, dtype: a.dtype };
    if (k === 0) {
      // torch: U and V are identities (complete) or empty.
      const side = (r: number): F<B> => (complete ? eye(a.backend, r, r, opts).expand([...batch, r, r]).mul(1) : zeros(a.backend, [...batch, r, 0], opts));
      return { u: side(m), s: zeros(a.backend, [...batch, 0], opts), v: side(n) };
    }
    // A wide A is done as Aᵀ = V S Uᵀ.
    const tall = wide ? a.transpose() : a;
    const f = noGrad(() => tallSvd(tall.detach(), complete), a.backend.runtime);
    const g = a.requiresGrad ? linearised(tall, f, vectors) : f;
    return wide ? { u: g.v, s: g.s, v: g.u } : g;
  }, a.backend.runtime);
}

/**
 * torch.linalg.svd(A, full_matrices): A [..., m, n] = U diag(S) Vh, S [..., k] descending (k =
 * min(m, n)); fullMatrices (default true, as torch): U [..., m, m], Vh [..., n, n], else U [..., m,
 * k], Vh [..., k, n]. Each singular pair's sign is arbitrary (torch's too). One-sided Jacobi with a
 * fixed number of sweeps (jacobi.ts). The gradient is torch's (second derivatives too); the extra
 * columns of full matrices carry none.
 */
export function svd<B extends Backend>(a: F<B>, fullMatrices = true): { U: F<B>; S: F<B>; Vh: F<B> } {
  const { u, s, v } = decompose('svd', a, fullMatrices, true);
  const vh = v.transpose();
  v.dispose();
  return { U: u, S: s, Vh: vh };
}

/** torch.linalg.svdvals(A): the singular values [..., k], descending; the gradient is U diag(gS) Vᵀ. */
export function svdvals<B extends Backend>(a: F<B>): F<B> {
  const { u, s, v } = decompose('svdvals', a, false, false);
  u.dispose();
  v.dispose();
  return s;
}
