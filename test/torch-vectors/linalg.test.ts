/**
 * Switchyard's linalg (src/linalg) against PyTorch's reference vectors (group `linalg`,
 * tools/torch-vectors/groups/linalg.py): solve_triangular, cholesky, solve, inv, det, slogdet, qr,
 * eigh, eigvalsh, svd, svdvals, matrix_norm and trace on well-conditioned float32 matrices, batched, with gradients.
 */
import * as linalg from '../../src/linalg/index.js';
import { a, torchVectorSuite, type Adapter, type Ctx, type F } from './harness.js';

const A = (x: Ctx): F => x.t['a']!;
const B = (x: Ctx): F => x.t['b']!;
const flag = (x: Ctx, k: string): boolean | undefined => a.bool(x, k);
const uplo = (x: Ctx): 'L' | 'U' => (x.args['uplo'] === 'U' ? 'U' : 'L');
/** Columns turned so that each one's largest entry is positive (the fixture does the same): signs are arbitrary. */
const signFix = (v: F): F => v.mul(v.gather(-2, v.abs().argmax(-2, true)).sign());

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
  matrix_norm: (x) => linalg.matrixNorm(A(x)),
  trace: (x) => linalg.trace(A(x)),
};

await torchVectorSuite({ groups: ['linalg'], adapters: ADAPTERS });
