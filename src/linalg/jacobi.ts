/**
 * Parallel Jacobi rotations (the round-robin ordering of Brent and Luk), the core of eigh and svd.
 * The n (padded to even N) indices are paired (0, 1), (2, 3), ...; each step rotates every pair at
 * once with one batched 2 x 2 matmul, then moves the indices one place around a circle (index 0
 * stays) so that every pair meets once in N - 1 steps: a sweep. After a sweep the indices are back
 * in place. A fixed number of sweeps (no convergence test: that would need a read) keeps the ops
 * synchronous; about 45 records a step. The loop runs under noGrad: eigh and svd put torch's
 * gradient on the results themselves (see linearised in eigh.ts and svd.ts).
 */
import type { Backend } from '../backends/backend.js';
import { tidy } from '../memory/tidy.js';
import type { Runtime } from '../runtime/runtime.js';
import { eye, fromData } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import type { F } from './checks.js';

/** Sweeps for an n x n problem: float32 converges in 5-6 up to n = 64 (checked against float64), with margin. */
export function sweepsFor(n: number): number {
  return Math.max(6, Math.ceil(Math.log2(Math.max(n, 1))) + 2);
}

/** The circle move of the round-robin: after a step, position j takes the index at src[j]. */
function circleMove(size: number): Int32Array {
  const k = size >> 1;
  const src = Int32Array.from({ length: size }, (_, j) => j);
  if (k < 2) return src;
  // Top row 2i, bottom row 2i + 1; 0 stays, the others go round: top rightwards, bottom leftwards.
  for (let i = 1; i < k - 1; i++) src[2 * (i + 1)] = 2 * i;
  src[2 * (k - 1) + 1] = 2 * (k - 1);
  for (let i = 0; i < k - 1; i++) src[2 * i + 1] = 2 * (i + 1) + 1;
  src[2] = 1;
  return src;
}

/**
 * The transposed rotations Jᵀ [..., k, 2, 2] that diagonalise each symmetric 2 x 2 [[app, apq],
 * [apq, aqq]] (each [..., k, 1]): Golub and Van Loan's symmetric Schur step, the smaller angle;
 * apq = 0 gives the identity exactly, so padding and finished pairs stay as they are.
 */
function rotations<B extends Backend>(app: F<B>, aqq: F<B>, apq: F<B>): F<B> {
  const zero = apq.equal(0);
  const tau = aqq.sub(app).div(apq.maskFill(zero, 1).mul(2));
  // hypot: 1 + tau² would overflow for a tiny apq.
  const r = tau.abs().add(tau.hypot(1)).recip();
  const t = Tensor.where(tau.lower(0), r.neg(), r).maskFill(zero, 0);
  const c = t.square().add(1).rsqrt();
  const s = t.mul(c);
  return Tensor.cat([c, s.neg(), s, c], -1).reshape([...app.shape.slice(0, -1), 2, 2]);
}

/** Rows (2i, 2i + 1) of x [..., N, w] rotated by r [..., N/2, 2, 2], then moved by the circle (idx). */
function rotateRows<B extends Backend>(x: F<B>, r: F<B>, idx: Tensor<B, 'int'>): F<B> {
  const s = x.shape;
  const w = s[s.length - 1]!;
  const size = s[s.length - 2]!;
  return r.matmul(x.reshape([...s.slice(0, -2), size >> 1, 2, w])).reshape(s).indexSelect(-2, idx);
}

/** The pair entries of a [..., N] vector as [..., N/2, 1] each: (x[2i], x[2i + 1]). */
function pairs<B extends Backend>(v: F<B>): [F<B>, F<B>] {
  const s = v.shape;
  const p = v.reshape([...s.slice(0, -1), s[s.length - 1]! >> 1, 2]);
  return [p.narrow(-1, 0, 1), p.narrow(-1, 1, 1)];
}

/** The identity of size N and the circle's index, for a loop over [..., N, N]. */
function setup<B extends Backend>(like: F<B>, batch: readonly number[], size: number): { w: F<B>; idx: Tensor<B, 'int'> } {
  const w = eye(like.backend, size, size, { device: like.device, dtype: like.dtype }).expand([...batch, size, size]);
  const idx = fromData(like.backend, circleMove(size), { device: like.device });
  return { w, idx };
}

/**
 * The sweeps of a Jacobi method: each of the size - 1 steps of a sweep maps the matrix m and the
 * rotations' product w to their rotated selves (`advance`). One scope a step: the loop would
 * otherwise keep every intermediate until it ends; `given` (the caller's input) is never freed.
 */
function runSweeps<B extends Backend>(n: number, size: number, runtime: Runtime, given: F<B>, m0: F<B>, w0: F<B>, advance: (m: F<B>, w: F<B>) => { m: F<B>; w: F<B> }): { m: F<B>; w: F<B> } {
  let m = m0;
  let w = w0;
  for (let sweep = sweepsFor(n); sweep > 0; sweep--) {
    for (let step = 0; step < size - 1; step++) {
      const next = tidy(() => advance(m, w), runtime);
      if (m !== given) m.dispose();
      w.dispose();
      m = next.m;
      w = next.w;
    }
  }
  return { m, w };
}

/**
 * Two-sided Jacobi on a symmetric s [..., n, n] (n >= 1, untracked): the eigenvalues [..., n] (the
 * diagonal left) and the eigenvectors as the rows of w [..., n, n], in no particular order.
 */
export function jacobiEigen<B extends Backend>(s: F<B>): { values: F<B>; rows: F<B> } {
  const n = s.shape[s.rank - 1]!;
  const batch = s.shape.slice(0, -2);
  const size = n + (n % 2);
  const runtime = s.backend.runtime;
  const init = setup(s, batch, size);
  // An odd n gets a zero row and column: its pairs have apq = 0, so it is never rotated.
  const { m: a, w } = runSweeps(n, size, runtime, s, n % 2 ? s.pad([0, 1, 0, 1]) : s, init.w, (a, w) => {
    const [app, aqq] = pairs(a.diagonal(0, -2, -1));
    const [apq] = pairs(a.diagonal(1, -2, -1).pad([0, 1]));
    const r = rotations(app, aqq, apq);
    // Jᵀ A J as Jᵀ (Jᵀ A)ᵀ: A is symmetric, and row rotations are one matmul each.
    return { m: rotateRows(rotateRows(a, r, init.idx).transpose(), r, init.idx), w: rotateRows(w, r, init.idx) };
  });
  return { values: a.diagonal(0, -2, -1).narrow(-1, 0, n), rows: w.narrow(-2, 0, n).narrow(-1, 0, n) };
}

/**
 * One-sided Jacobi (Hestenes) on the rows of x [..., n, m] (the columns of a tall matrix; n >= 1,
 * untracked): rotates pairs of rows until all are orthogonal. Returns the orthogonal rows [..., n,
 * m] (their norms are the singular values) and the rotations' product as rows w [..., n, n].
 */
export function jacobiRows<B extends Backend>(x0: F<B>): { x: F<B>; rows: F<B> } {
  const n = x0.shape[x0.rank - 2]!;
  const batch = x0.shape.slice(0, -2);
  const size = n + (n % 2);
  const runtime = x0.backend.runtime;
  const init = setup(x0, batch, size);
  const { m: x, w } = runSweeps(n, size, runtime, x0, n % 2 ? x0.pad([0, 0, 0, 1]) : x0, init.w, (x, w) => {
    // The 2 x 2 Gram matrices of the pairs: squared norms and dot products.
    const [app, aqq] = pairs(x.square().sum(-1));
    const m = x.shape[x.rank - 1]!;
    const xr = x.reshape([...batch, size >> 1, 2, m]);
    const apq = xr.narrow(-2, 0, 1).mul(xr.narrow(-2, 1, 1)).sum(-1);
    const r = rotations(app, aqq, apq);
    return { m: rotateRows(x, r, init.idx), w: rotateRows(w, r, init.idx) };
  });
  return { x: x.narrow(-2, 0, n), rows: w.narrow(-2, 0, n).narrow(-1, 0, n) };
}
