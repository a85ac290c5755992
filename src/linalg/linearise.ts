/**
 * How eigh, svd and pinv carry torch's gradients without differentiating their loops. The
 * decomposition D(A) runs untracked; its derivative is a linear map dD = J(dA; D, A) (the
 * perturbation formulas), written with tensor ops. With Δ = A - A.detach() (0, with A's derivative):
 *   D1 = D + J(Δ; D)                          (coefficients constant: right to first order)
 *   D2 = D + (J(Δ; D) + J(Δ; D1)) / 2
 * D2's value is D exactly and its derivative J(dA; D). Differentiating J(Δ; D1) twice gives the
 * Hessian twice (once per direction that reaches D1, the other reaching Δ), hence the halves: so
 * Hessian-vector products (createGraph) hold too. Third derivatives do not.
 */
import type { Backend } from '../backends/backend.js';
import { eye } from '../tensor/creation.js';
import type { F } from './checks.js';

/** x - x.detach(): 0 (x finite), with x's derivative. */
export function delta<B extends Backend>(x: F<B>): F<B> {
  return x.sub(x.detach());
}

/**
 * m ∘ (1 / e) off the diagonal, 0 on it (e [..., k, k] holds differences of eigen- or singular
 * values). Where e is 0 off the diagonal (tied values) the forward gives 0, so results stay finite;
 * the backward there is NaN with `nanAtTies` (dy 0 times 1 / 0 in mul's rule), as torch's gradient,
 * else 0 (for D1, so that a tie spoils only what torch's gradient would).
 */
export function offDiagonalQuotient<B extends Backend>(m: F<B>, e: F<B>, nanAtTies: boolean): F<B> {
  const k = e.shape[e.rank - 1]!;
  const diag = eye(e.backend, k, k, { device: e.device, dtype: e.dtype }).equal(1);
  const f = e.maskFill(nanAtTies ? diag : diag.logicalOr(e.equal(0)), Infinity).recip();
  return nanAtTies ? f.mul(m).maskFill(f.isInf(), 0) : f.mul(m);
}

/** 1 / s [..., k] as a row [..., 1, k] times x [..., m, k]: 0 where s is 0, and then a NaN backward with nanAtTies (torch divides by S). */
export function divideColumns<B extends Backend>(x: F<B>, s: F<B>, nanAtTies: boolean): F<B> {
  if (nanAtTies) {
    const inv = s.recip().unsqueeze(-2);
    return x.mul(inv).maskFill(inv.isInf(), 0);
  }
  return x.mul(s.maskFill(s.equal(0), Infinity).recip().unsqueeze(-2));
}

/** (x + y) / 2. */
export function mean2<B extends Backend>(x: F<B>, y: F<B>): F<B> {
  return x.add(y).mul(0.5);
}
