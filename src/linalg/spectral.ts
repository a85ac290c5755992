/**
 * What the singular values give: pinv, matrixRank and cond (2-norm), each a few ops over svd /
 * svdvals (or eigh / eigvalsh with `hermitian`), so their cost is that of the decomposition.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { checkBoolean, checkKeys, checkNumber, checkOptions, field, show } from '../ir/validate.js';
import { noGrad } from '../autodiff/grad-mode.js';
import { tidy } from '../memory/tidy.js';
import { eye } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { checkMatrix, checkSquare, type F } from './checks.js';
import { eigh, eigvalsh } from './eigh.js';
import { delta, mean2 } from './linearise.js';
import { inv } from './lu.js';
import { matrixNorm, type MatrixOrd } from './norms.js';
import { svd, svdvals } from './svd.js';

/** float32's machine epsilon (torch.finfo(torch.float32).eps). */
const EPS = 2 ** -23;

export interface TolOptions {
  /** Singular values (|eigenvalues| with hermitian) at or below this are taken as 0. Default 0. */
  atol?: number;
  /** ... or at or below rtol times the largest one. Default max(m, n) eps, or 0 when atol > 0 is given (as torch). */
  rtol?: number;
  /** A is symmetric: eigh of its lower triangle instead of svd (as torch). */
  hermitian?: boolean;
}

interface Tol {
  readonly atol: number;
  readonly rtol: number;
  readonly hermitian: boolean;
}

function tolOptions(op: string, a: F<Backend>, options: unknown): Tol {
  const o = checkOptions(op, options);
  checkKeys(op, o, ['atol', 'rtol', 'hermitian']);
  const at = field(o, 'atol');
  const rt = field(o, 'rtol');
  const he = field(o, 'hermitian');
  const atol = at === undefined ? 0 : checkNumber(op, 'atol', at);
  if (Number.isNaN(atol) || atol < 0) throw new ArgumentError(`atol must be >= 0, got ${show(at)}`, { op });
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  const rtol = rt === undefined ? (at !== undefined && atol > 0 ? 0 : Math.max(m, n) * EPS) : checkNumber(op, 'rtol', rt);
  if (Number.isNaN(rtol) || rtol < 0) throw new ArgumentError(`rtol must be >= 0, got ${show(rt)}`, { op });
  const hermitian = he === undefined ? false : checkBoolean(op, 'hermitian', he);
  if (hermitian) checkSquare(op, 'A', a);
  return { atol, rtol, hermitian };
}

/** Which of the non-negative values s [..., k] count: s > max(atol, rtol max(s)) (none for k = 0). */
function kept<B extends Backend>(s: F<B>, t: Tol): Tensor<B, 'bool'> {
  const k = s.shape[s.rank - 1]!;
  if (k === 0) return s.greater(0);
  return s.greater(s.max(-1, true).mul(t.rtol).clampMin(t.atol));
}

/**
 * torch.linalg.pinv(A, atol=, rtol=, hermitian=): the Moore-Penrose pseudo-inverse [..., n, m], V
 * diag(1 / S) Uᵀ over the singular values above the tolerance (others give 0). The gradient is
 * torch's pinv_backward, the derivative of the pseudo-inverse at constant rank, put on the result
 * (linearise.ts; second derivatives too): with `hermitian` it is not symmetric, as torch's.
 */
export function pinv<B extends Backend>(a: F<B>, options?: TolOptions): F<B> {
  const op = 'pinv';
  checkMatrix(op, 'A', a);
  const t = tolOptions(op, a, options);
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  return tidy(() => {
    const x = a.detach();
    const p = noGrad(() => {
      if (t.hermitian) {
        const { eigenvalues: l, eigenvectors: v } = eigh(x);
        const keep = kept(l.abs(), t);
        return v.mul(l.where(keep, 1).recip().where(keep, 0).unsqueeze(-2)).matmul(v.transpose());
      }
      const { U, S, Vh } = svd(x, false);
      const keep = kept(S, t);
      return Vh.transpose().mul(S.where(keep, 1).recip().where(keep, 0).unsqueeze(-2)).matmul(U.transpose());
    }, a.backend.runtime);
    if (!a.requiresGrad) return p;
    // dP = -P dA P + P Pᵀ dAᵀ (I - A P) + (I - P A) dAᵀ Pᵀ P, in two stages (linearise.ts).
    const opts = { device: a.device, dtype: a.dtype };
    const im = eye(a.backend, m, m, opts);
    const iN = eye(a.backend, n, n, opts);
    const dp = (da: F<B>, pp: F<B>, aa: F<B>): F<B> => {
      const dat = da.transpose();
      const ppt = pp.transpose();
      return pp.matmul(da).matmul(pp).neg().add(pp.matmul(ppt).matmul(dat).matmul(im.sub(aa.matmul(pp)))).add(iN.sub(pp.matmul(aa)).matmul(dat).matmul(ppt).matmul(pp));
    };
    const d = delta(a);
    const p0 = dp(d, p, x);
    return p.add(mean2(p0, dp(d, p.add(p0), a)));
  }, a.backend.runtime);
}

/** torch.linalg.matrix_rank(A, atol=, rtol=, hermitian=): the count of singular values above the tolerance, [...] int32 (torch: int64). */
export function matrixRank<B extends Backend>(a: F<B>, options?: TolOptions): Tensor<B, 'int'> {
  const op = 'matrixRank';
  checkMatrix(op, 'A', a);
  const t = tolOptions(op, a, options);
  return tidy(() => {
    // An int32 count has no gradient: detached, so no gradient rule is built.
    const x = a.detach();
    const s = t.hermitian ? eigvalsh(x).abs() : svdvals(x);
    return kept(s, t).cast('int32').sum(-1);
  }, a.backend.runtime);
}

export type CondOrd = MatrixOrd;

/**
 * torch.linalg.cond(A, p): ‖A‖_p ‖A⁻¹‖_p; p = 2 (default) / -2: the ratio of the largest and
 * smallest singular values (any [..., m, n]: inf for a rank-deficient A); 'fro', 'nuc', 1, -1, ±inf:
 * square A, through inv (a singular A: inf or NaN, torch gives inf).
 */
export function cond<B extends Backend>(a: F<B>, p: CondOrd = 2): F<B> {
  const op = 'cond';
  checkMatrix(op, 'A', a);
  if (p !== 2 && p !== -2 && p !== 'fro' && p !== 'nuc' && p !== 1 && p !== -1 && p !== Infinity && p !== -Infinity) {
    throw new ArgumentError(`p must be 2, -2, 'fro', 'nuc', 1, -1, Infinity or -Infinity, got ${show(p)}`, { op });
  }
  return tidy(() => {
    if (p === 2 || p === -2) {
      const s = svdvals(a);
      const k = s.shape[s.rank - 1]!;
      // torch: 0 for an empty matrix.
      if (k === 0) return s.sum(-1);
      const hi = s.narrow(-1, 0, 1).squeeze(-1);
      const lo = s.narrow(-1, k - 1, 1).squeeze(-1);
      return p === 2 ? hi.div(lo) : lo.div(hi);
    }
    checkSquare(op, 'A', a);
    if (a.shape[a.rank - 1] === 0) return a.sum([-2, -1]);
    return matrixNorm(a, p).mul(matrixNorm(inv(a), p));
  }, a.backend.runtime);
}
