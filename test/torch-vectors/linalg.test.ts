/**
 * Switchyard's linalg (src/linalg) against PyTorch's reference vectors (group `linalg`,
 * tools/torch-vectors/groups/linalg.py): solve_triangular, cholesky, solve, inv, det, slogdet, qr,
 * eigh, eigvalsh, svd, svdvals, lstsq, pinv, matrix_rank, matrix_norm (every ord), cond, lu_factor, lu, lu_solve and trace on well-conditioned float32 matrices, batched, with gradients.
 */
import * as linalg from '../../src/linalg/index.js';
import { fromData } from '../../src/tensor/creation.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { a, all, torchVectorSuite, weight, type Adapter, type Ctx, type F, type Known } from './harness.js';

const A = (x: Ctx): F => x.t['a']!;
const B = (x: Ctx): F => x.t['b']!;
const flag = (x: Ctx, k: string): boolean | undefined => a.bool(x, k);
/** A norm order from the fixture: a string ('fro', 'nuc', 'inf', '-inf') or a number. */
const ord = (x: Ctx, k: string, d: linalg.MatrixOrd): linalg.MatrixOrd => {
  const v = x.args[k];
  return v === undefined ? d : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : typeof v === 'number' || v === 'fro' || v === 'nuc' ? v : d;
};
const tolerances = (x: Ctx): linalg.TolOptions => ({ atol: a.num(x, 'atol'), rtol: a.num(x, 'rtol'), hermitian: flag(x, 'hermitian') });
const uplo = (x: Ctx): 'L' | 'U' => (x.args['uplo'] === 'U' ? 'U' : 'L');
/** Columns turned so that each one's largest entry is positive (the fixture does the same): signs are arbitrary. */
const signFix = (v: F): F => v.mul(v.gather(-2, v.abs().argmax(-2, true)).sign());

/** svd's factors, sign-fixed as the fixture's, flattened into one vector. */
function svdFlat(t: F): F {
  const { U, S, Vh } = linalg.svd(t, false);
  const sg = U.gather(-2, U.abs().argmax(-2, true)).sign();
  return Tensor.cat([U.mul(sg).reshape([-1]), S.reshape([-1]), Vh.mul(sg.transpose()).reshape([-1])]);
}

/** The functions of the fixture's second-order cases (gradients of sum(f(A) * w), differentiated again). */
const SECOND: Readonly<Record<string, (t: F) => F>> = {
  eigvalsh: (t) => linalg.eigvalsh(t),
  eigh: (t) => {
    const { eigenvalues, eigenvectors } = linalg.eigh(t);
    return signFix(eigenvectors).mul(eigenvalues.unsqueeze(-2));
  },
  svdvals: (t) => linalg.svdvals(t),
  'svd tall': svdFlat,
  'svd wide': svdFlat,
  pinv: (t) => linalg.pinv(t),
  'pinv hermitian': (t) => linalg.pinv(t, { hermitian: true }),
};

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  solve_triangular: (x) => linalg.solveTriangular(A(x), B(x), { upper: flag(x, 'upper') ?? false, left: flag(x, 'left'), unitriangular: flag(x, 'unitriangular') }),
  cholesky: (x) => linalg.cholesky(A(x), { upper: flag(x, 'upper') }),
  solve: (x) => linalg.solve(A(x), B(x)),
  inv: (x) => linalg.inv(A(x)),
  det: (x) => linalg.det(A(x)),
  slogdet: (x) => {
    const { sign, logabsdet } = linalg.slogdet(A(x));
    return [sign, logabsdet];
  },
  qr: (x) => {
    const { Q, R } = linalg.qr(A(x), x.args['mode'] === 'complete' ? 'complete' : 'reduced');
    return [Q, R];
  },
  eigh: (x) => {
    const { eigenvalues, eigenvectors } = linalg.eigh(A(x), uplo(x));
    return [eigenvalues, signFix(eigenvectors)];
  },
  eigvalsh: (x) => linalg.eigvalsh(A(x), uplo(x)),
  svd: (x) => {
    const full = x.args['full_matrices'] === true;
    const { U, S, Vh } = linalg.svd(A(x), full);
    const k = S.shape[S.rank - 1]!;
    const uk = U.narrow(-1, 0, k);
    const sg = uk.gather(-2, uk.abs().argmax(-2, true)).sign();
    const out = [uk.mul(sg), S, Vh.narrow(-2, 0, k).mul(sg.transpose())];
    if (!full) return out;
    const u2 = U.narrow(-1, k, U.shape[U.rank - 1]! - k);
    const v2 = Vh.narrow(-2, k, Vh.shape[Vh.rank - 2]! - k).transpose();
    return [...out, u2.matmul(u2.transpose()), v2.matmul(v2.transpose())];
  },
  svdvals: (x) => linalg.svdvals(A(x)),
  lstsq: (x) => linalg.lstsq(A(x), B(x)).solution,
  pinv: (x) => linalg.pinv(A(x), tolerances(x)),
  // int32 (torch: int64); compared as numbers.
  matrix_rank: (x) => linalg.matrixRank(A(x), tolerances(x)).cast('float32'),
  lu_factor: (x) => {
    const { LU, pivots } = linalg.luFactor(A(x));
    return [LU, pivots.cast('float32')];
  },
  lu: (x) => {
    const { P, L, U } = linalg.lu(A(x));
    return [P, L, U];
  },
  lu_solve: (x) => {
    const { LU, pivots } = linalg.luFactor(A(x));
    return linalg.luSolve(LU, pivots, B(x), { left: flag(x, 'left'), adjoint: flag(x, 'adjoint') });
  },
  grad_of: (x) => {
    const f = SECOND[String(x.args['fn'])];
    if (!f) throw new Error(`no second-order function '${String(x.args['fn'])}'`);
    const y = f(A(x));
    const w = fromData(x.b, weight(y.size, 7), { shape: y.shape });
    const grads = y.mul(w).sum().backward({ createGraph: true, inputs: [A(x)] });
    return A(x).grad(grads) ?? A(x).mul(0);
  },
  matrix_norm: (x) => linalg.matrixNorm(A(x), ord(x, 'ord', 'fro'), flag(x, 'keepdim') ?? false),
  cond: (x) => linalg.cond(A(x), ord(x, 'p', 2)),
  trace: (x) => linalg.trace(A(x)),
};

const KNOWN: readonly Known[] = [
  {
    group: 'linalg',
    cases: /^cond singular \(2\)$/,
    torch: all,
    versions: 'all',
    kind: 'ours',
    why: "ours finds the exact 0 singular value of [[1, 2], [2, 4]] (cond inf, as in exact arithmetic); torch's float32 LAPACK leaves 3e-8 of rounding (cond 4.7e7)",
  },
];

await torchVectorSuite({ groups: ['linalg'], adapters: ADAPTERS, known: KNOWN });
