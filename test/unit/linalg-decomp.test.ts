/**
 * linalg's decompositions against laws and a float64 reference written here (cyclic Jacobi in
 * plain numbers): eigh / eigvalsh (A = V diag(L) Vᵀ, VᵀV = I, ascending values equal to the
 * reference's, the gradient of a weighted sum of eigenvalues is V diag(c) Vᵀ), on random batches,
 * sizes 1-9 and scales; svd / svdvals (A = U diag(S) Vh, orthonormal U and V (complete ones too),
 * S descending and equal to the square roots of the reference eigenvalues of AᵀA), tall, wide and
 * rank-deficient; pinv (the four Moore-Penrose conditions), lstsq (the normal equations; the
 * minimum-norm solution of a wide system), matrixRank (of matrices built with a known rank) and
 * the spectral matrix norms and cond against the reference; lu / luFactor / luSolve (A = P L U
 * with |L| <= 1, pivots in range, the four luSolve variants' residuals); plus the edges (empty, 1 x 1,
 * repeated values) and argument checks.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError } from '../../src/errors.js';
import { linalg } from '../../src/index.js';
import { fromData, zeros } from '../../src/tensor/creation.js';
import { untyped } from '../untyped.js';

const cpu = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => cpu.close());

type Mat = number[][];

/** Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix, float64 cyclic Jacobi to convergence. */
function eig64(a0: Mat): { values: number[]; vectors: Mat } {
  const n = a0.length;
  const a = a0.map((r) => [...r]);
  const v: Mat = a0.map((_, i) => a0.map((__, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!;
        if (apq === 0) continue;
        const tau = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(tau || 1) / (Math.abs(tau) + Math.hypot(1, tau));
        const c = 1 / Math.hypot(1, t);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = a.map((_, i) => i).sort((i, j) => a[i]![i]! - a[j]![j]!);
  return { values: order.map((i) => a[i]![i]!), vectors: v.map((row) => order.map((i) => row[i]!)) };
}

const matmul = (x: Mat, y: Mat): Mat => x.map((r) => y[0]!.map((_, j) => r.reduce((s, xv, k) => s + xv * y[k]![j]!, 0)));
const transpose = (x: Mat): Mat => x[0]!.map((_, j) => x.map((r) => r[j]!));
const maxAbs = (x: Mat): number => Math.max(0, ...x.flat().map(Math.abs));
const sub = (x: Mat, y: Mat): Mat => x.map((r, i) => r.map((v, j) => v - y[i]![j]!));
const eye64 = (n: number): Mat => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (__, j) => (i === j ? 1 : 0)));
/** The [n, n] matrices of a flat float32 array of batch b. */
const split = (v: ArrayLike<number>, b: number, r: number, c: number): Mat[] => Array.from({ length: b }, (_, k) => Array.from({ length: r }, (__, i) => Array.from({ length: c }, (___, j) => v[k * r * c + i * c + j]!)));

/** A batch of random symmetric matrices (float32-exact entries), scaled. */
const symmetric = fc
  .record({ n: fc.integer({ min: 1, max: 9 }), batch: fc.integer({ min: 1, max: 2 }), scale: fc.constantFrom(1e-3, 1, 100), seed: fc.integer() })
  .map(({ n, batch, scale, seed }) => {
    let s = seed >>> 0;
    const rnd = (): number => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32 - 0.5;
    };
    const mats = Array.from({ length: batch }, () => {
      const m = eye64(n).map((r) => r.map(() => rnd()));
      return m.map((r, i) => r.map((_, j) => Math.fround(scale * (m[i]![j]! + m[j]![i]!))));
    });
    return { n, batch, mats };
  });

describe('eigh', () => {
  it('A = V diag(L) Vᵀ, VᵀV = I and L ascending, equal to a float64 reference', async () => {
    await fc.assert(
      fc.asyncProperty(symmetric, async ({ n, batch, mats }) => {
        const a = fromData(cpu, Float32Array.from(mats.flat(2)), { shape: [batch, n, n] });
        const { eigenvalues, eigenvectors } = linalg.eigh(a);
        const l = (await eigenvalues.toData()).values;
        const vs = split((await eigenvectors.toData()).values, batch, n, n);
        for (let k = 0; k < batch; k++) {
          const scale = Math.max(maxAbs(mats[k]!), 1e-30);
          const ref = eig64(mats[k]!);
          const lk = Array.from(l.subarray(k * n, (k + 1) * n));
          for (let i = 0; i < n; i++) expect(Math.abs(lk[i]! - ref.values[i]!) / scale).toBeLessThan(2e-5 * n);
          for (let i = 1; i < n; i++) expect(lk[i]!).toBeGreaterThanOrEqual(lk[i - 1]!);
          const v = vs[k]!;
          const rebuilt = matmul(v, matmul(lk.map((x, i) => lk.map((_, j) => (i === j ? x : 0))), transpose(v)));
          expect(maxAbs(sub(rebuilt, mats[k]!)) / scale).toBeLessThan(2e-5 * n);
          expect(maxAbs(sub(matmul(transpose(v), v), eye64(n)))).toBeLessThan(2e-5 * n);
        }
        a.dispose();
        eigenvalues.dispose();
        eigenvectors.dispose();
      }),
      { numRuns: 25 },
    );
  });

  it('the gradient of sum(c ∘ eigvalsh(A)) is V diag(c) Vᵀ of the float64 eigenvectors', async () => {
    await fc.assert(
      fc.asyncProperty(symmetric, async ({ n, mats }) => {
        const a0 = mats[0]!;
        const a = fromData(cpu, Float32Array.from(a0.flat()), { shape: [n, n] }).requireGrad();
        const c = Array.from({ length: n }, (_, i) => (i % 3) - 1 + i / n);
        const loss = linalg.eigvalsh(a).mul(fromData(cpu, c)).sum();
        const grads = loss.backward();
        const g = split((await a.grad(grads)!.toData()).values, 1, n, n)[0]!;
        const { values, vectors: v } = eig64(a0);
        // Distinct eigenvalues only: with a tie the gradient depends on the basis chosen.
        const gap = Math.min(Infinity, ...values.slice(1).map((x, i) => x - values[i]!)) / Math.max(maxAbs(a0), 1e-30);
        fc.pre(gap > 1e-3);
        const want = matmul(v, matmul(c.map((x, i) => c.map((_, j) => (i === j ? x : 0))), transpose(v)));
        expect(maxAbs(sub(g, want))).toBeLessThan(1e-4 * n);
        grads.dispose();
        loss.dispose();
        a.dispose();
      }),
      { numRuns: 20 },
    );
  });

  it('second derivatives: sum(L²) = ‖A‖² has gradient 2A and the gradient of sum(2A) is 2 everywhere', async () => {
    const a = fromData(cpu, [
      [3, 1, 0.5],
      [1, 4, 1],
      [0.5, 1, 5],
    ]).requireGrad();
    const g = linalg.eigvalsh(a).square().sum().backward({ createGraph: true });
    const ga = a.grad(g)!;
    const want = [6, 2, 1, 2, 8, 2, 1, 2, 10];
    Array.from((await ga.toData()).values).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 4));
    const g2 = ga.sum().backward();
    Array.from((await a.grad(g2)!.toData()).values).forEach((v) => expect(v).toBeCloseTo(2, 4));
    // The same law through svdvals: sum(S²) = ‖A‖².
    const b = fromData(cpu, [
      [3, 1],
      [1, 4],
      [2, 0],
    ]).requireGrad();
    const h = linalg.svdvals(b).square().sum().backward({ createGraph: true });
    const h2 = b.grad(h)!.sum().backward();
    Array.from((await b.grad(h2)!.toData()).values).forEach((v) => expect(v).toBeCloseTo(2, 4));
  });

  it('reads only the chosen triangle', async () => {
    const lower = fromData(cpu, [
      [2, 9, 9],
      [1, 3, 9],
      [0, 4, 5],
    ]);
    const full = fromData(cpu, [
      [2, 1, 0],
      [1, 3, 4],
      [0, 4, 5],
    ]);
    expect(Array.from((await linalg.eigvalsh(lower).toData()).values)).toEqual(Array.from((await linalg.eigvalsh(full).toData()).values));
    expect(Array.from((await linalg.eigvalsh(lower.transpose(), 'U').toData()).values)).toEqual(Array.from((await linalg.eigvalsh(full).toData()).values));
  });

  it('edges: 1 x 1, empty matrices and batches, a diagonal matrix with repeated values', async () => {
    const one = linalg.eigh(fromData(cpu, [[-3]]));
    expect(Array.from((await one.eigenvalues.toData()).values)).toEqual([-3]);
    expect(Array.from((await one.eigenvectors.toData()).values)).toEqual([1]);
    const empty = linalg.eigh(zeros(cpu, [2, 0, 0]));
    expect(empty.eigenvalues.shape).toEqual([2, 0]);
    expect(empty.eigenvectors.shape).toEqual([2, 0, 0]);
    const noBatch = linalg.eigh(zeros(cpu, [0, 3, 3]));
    expect(noBatch.eigenvalues.shape).toEqual([0, 3]);
    expect(noBatch.eigenvectors.shape).toEqual([0, 3, 3]);
    const d = linalg.eigh(fromData(cpu, [
      [2, 0, 0],
      [0, 1, 0],
      [0, 0, 2],
    ]));
    expect(Array.from((await d.eigenvalues.toData()).values)).toEqual([1, 2, 2]);
    const v = split((await d.eigenvectors.toData()).values, 1, 3, 3)[0]!;
    expect(maxAbs(sub(matmul(transpose(v), v), eye64(3)))).toBeLessThan(1e-6);
  });

  it('a gradient through tied eigenvalues: finite through the values, NaN through the vectors (as torch)', async () => {
    const a = fromData(cpu, [
      [1, 0],
      [0, 1],
    ]).requireGrad();
    const { eigenvalues, eigenvectors } = linalg.eigh(a);
    expect(Array.from((await eigenvectors.abs().toData()).values)).toEqual([1, 0, 0, 1]);
    const g1 = eigenvalues.sum().backward();
    expect(Array.from((await a.grad(g1)!.toData()).values)).toEqual([1, 0, 0, 1]);
    const g2 = linalg.eigh(a).eigenvectors.sum().backward();
    expect((await a.grad(g2)!.isNan().any().toData()).values[0]).toBe(1);
  });

  it('refuses what torch refuses, with typed errors', () => {
    expect(() => linalg.eigh(zeros(cpu, [2, 3]))).toThrow(ShapeError);
    expect(() => linalg.eigh(zeros(cpu, [2, 3]))).toThrow(/^eigh: A must be square/);
    expect(() => linalg.eigvalsh(zeros(cpu, [3]))).toThrow(/^eigvalsh: A must be a matrix/);
    expect(() => linalg.eigh(zeros(cpu, [2, 2]), untyped('X'))).toThrow(ArgumentError);
    expect(() => linalg.eigh(zeros(cpu, [2, 2]), untyped('X'))).toThrow(/^eigh: uplo must be 'L' or 'U'/);
  });
});

/** A batch of random [m, n] matrices (float32-exact), some of rank r < min(m, n) (a product of [m, r] and [r, n]). */
const rectangular = fc
  .record({ m: fc.integer({ min: 1, max: 7 }), n: fc.integer({ min: 1, max: 7 }), batch: fc.integer({ min: 1, max: 2 }), rank: fc.integer({ min: 0, max: 7 }), scale: fc.constantFrom(1e-3, 1, 100), seed: fc.integer() })
  .map(({ m, n, batch, rank, scale, seed }) => {
    let s = seed >>> 0;
    const rnd = (): number => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32 - 0.5;
    };
    const r = Math.min(rank, m, n);
    const gen = (rows: number, cols: number): Mat => Array.from({ length: rows }, () => Array.from({ length: cols }, () => rnd()));
    const mats = Array.from({ length: batch }, () => {
      const x = r < Math.min(m, n) ? (r === 0 ? gen(m, n).map((row) => row.map(() => 0)) : matmul(gen(m, r), gen(r, n))) : gen(m, n);
      return x.map((row) => row.map((v) => Math.fround(scale * v)));
    });
    return { m, n, batch, mats };
  });

describe('svd', () => {
  it('A = U diag(S) Vh with orthonormal U and V (reduced and complete), S descending as the float64 reference', async () => {
    await fc.assert(
      fc.asyncProperty(rectangular, fc.boolean(), async ({ m, n, batch, mats }, full) => {
        const k = Math.min(m, n);
        const a = fromData(cpu, Float32Array.from(mats.flat(2)), { shape: [batch, m, n] });
        const { U, S, Vh } = linalg.svd(a, full);
        const ku = full ? m : k;
        const kv = full ? n : k;
        expect([U.shape, S.shape, Vh.shape]).toEqual([[batch, m, ku], [batch, k], [batch, kv, n]]);
        const us = split((await U.toData()).values, batch, m, ku);
        const ss = (await S.toData()).values;
        const vs = split((await Vh.toData()).values, batch, kv, n);
        for (let b = 0; b < batch; b++) {
          const x = mats[b]!;
          const scale = Math.max(maxAbs(x), 1e-30);
          const sk = Array.from(ss.subarray(b * k, (b + 1) * k));
          const ref = eig64(matmul(transpose(x), x)).values.reverse().slice(0, k).map((l) => Math.sqrt(Math.max(l, 0)));
          for (let i = 0; i < k; i++) expect(Math.abs(sk[i]! - ref[i]!) / scale).toBeLessThan(2e-5 * Math.max(m, n));
          for (let i = 1; i < k; i++) expect(sk[i]!).toBeLessThanOrEqual(sk[i - 1]!);
          const u = us[b]!;
          const vh = vs[b]!;
          const uk = u.map((row) => row.slice(0, k));
          const rebuilt = matmul(uk.map((row) => row.map((v, j) => v * sk[j]!)), vh.slice(0, k));
          expect(maxAbs(sub(rebuilt, x)) / scale).toBeLessThan(2e-5 * Math.max(m, n));
          expect(maxAbs(sub(matmul(transpose(u), u), eye64(ku)))).toBeLessThan(2e-5 * Math.max(m, n));
          expect(maxAbs(sub(matmul(vh, transpose(vh)), eye64(kv)))).toBeLessThan(2e-5 * Math.max(m, n));
        }
        const vals = linalg.svdvals(a);
        expect(Array.from((await vals.toData()).values)).toEqual(Array.from(ss));
        for (const t of [a, U, S, Vh, vals]) t.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('the gradient of sum(c ∘ svdvals(A)) is U diag(c) Vᵀ', async () => {
    // U diag(c) Vᵀ from the float64 eigenvectors of AᵀA: v_j, and u_j = A v_j / s_j.
    await fc.assert(
      fc.asyncProperty(rectangular, async ({ m, n, mats }) => {
        const x = mats[0]!;
        const k = Math.min(m, n);
        const { values, vectors } = eig64(matmul(transpose(x), x));
        const s = values.map((l) => Math.sqrt(Math.max(l, 0))).reverse();
        const v = vectors.map((row) => [...row].reverse());
        const scale = Math.max(maxAbs(x), 1e-30);
        // Distinct, non-zero singular values only: elsewhere the gradient depends on the basis chosen.
        fc.pre(s.slice(0, k).every((sv, i) => sv > 1e-2 * scale && (i === 0 || s[i - 1]! - sv > 1e-2 * scale)));
        const c = Array.from({ length: k }, (_, i) => 1 - i / 2);
        let want: Mat = Array.from({ length: m }, () => Array.from({ length: n }, () => 0));
        for (let j = 0; j < k; j++) {
          const vj = v.map((row) => row[j]!);
          const uj = matmul(x, vj.map((e) => [e])).map((r) => r[0]! / s[j]!);
          want = want.map((row, r) => row.map((w, q) => w + c[j]! * uj[r]! * vj[q]!));
        }
        const a = fromData(cpu, Float32Array.from(x.flat()), { shape: [m, n] }).requireGrad();
        const loss = linalg.svdvals(a).mul(fromData(cpu, c)).sum();
        const grads = loss.backward();
        const g = split((await a.grad(grads)!.toData()).values, 1, m, n)[0]!;
        expect(maxAbs(sub(g, want))).toBeLessThan(1e-3);
        grads.dispose();
        loss.dispose();
        a.dispose();
      }),
      { numRuns: 20 },
    );
  });

  it('edges: empty matrices as torch, 1 x 1, a zero matrix', async () => {
    const wide = linalg.svd(zeros(cpu, [0, 3]));
    expect([wide.U.shape, wide.S.shape, wide.Vh.shape]).toEqual([[0, 0], [0], [3, 3]]);
    expect(Array.from((await wide.Vh.toData()).values)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    const reduced = linalg.svd(zeros(cpu, [3, 0]), false);
    expect([reduced.U.shape, reduced.S.shape, reduced.Vh.shape]).toEqual([[3, 0], [0], [0, 0]]);
    expect(linalg.svdvals(zeros(cpu, [0, 2, 2])).shape).toEqual([0, 2]);
    const one = linalg.svd(fromData(cpu, [[-2]]));
    expect(Array.from((await one.S.toData()).values)).toEqual([2]);
    expect((await one.U.mul(one.Vh).toData()).values[0]).toBe(-1);
    const z = linalg.svd(zeros(cpu, [3, 2]));
    expect(Array.from((await z.S.toData()).values)).toEqual([0, 0]);
    const u = split((await z.U.toData()).values, 1, 3, 3)[0]!;
    expect(maxAbs(sub(matmul(transpose(u), u), eye64(3)))).toBeLessThan(1e-6);
    // Entries whose squares overflow or underflow float32: scaled before the rotations.
    for (const scale of [1e30, 1e-30]) {
      const got = (await linalg.svdvals(fromData(cpu, [
        [3 * scale, 0],
        [4 * scale, 5 * scale],
      ])).toData()).values;
      // The singular values of [[3, 0], [4, 5]] are 3 sqrt(5) and sqrt(5).
      expect(Math.abs(got[0]! / scale - 3 * Math.sqrt(5))).toBeLessThan(1e-5);
      expect(Math.abs(got[1]! / scale - Math.sqrt(5))).toBeLessThan(1e-5);
    }
  });

  it('refuses what torch refuses, with typed errors', () => {
    expect(() => linalg.svd(zeros(cpu, [3]))).toThrow(ShapeError);
    expect(() => linalg.svdvals(zeros(cpu, [3]))).toThrow(/^svdvals: A must be a matrix/);
    expect(() => linalg.svd(zeros(cpu, [2, 2]), untyped('yes'))).toThrow(/^svd: fullMatrices must be a boolean/);
  });
});

/** X with A X = B in float64 (Gaussian elimination with partial pivoting; A square, invertible). */
function solve64(a0: Mat, b0: Mat): Mat {
  const n = a0.length;
  const a = a0.map((r, i) => [...r, ...b0[i]!]);
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(a[i]![k]!) > Math.abs(a[p]![k]!)) p = i;
    [a[k], a[p]] = [a[p]!, a[k]!];
    for (let i = 0; i < n; i++) {
      if (i === k) continue;
      const f = a[i]![k]! / a[k]![k]!;
      a[i] = a[i]!.map((v, j) => v - f * a[k]![j]!);
    }
  }
  return a.map((r, i) => r.slice(n).map((v) => v / a[i]![i]!));
}

/** s [k] of a float64 matrix: square roots of the reference eigenvalues of AᵀA, descending. */
const singular64 = (x: Mat): number[] =>
  eig64(matmul(transpose(x), x))
    .values.reverse()
    .slice(0, Math.min(x.length, x[0]!.length))
    .map((l) => Math.sqrt(Math.max(l, 0)));

describe('pinv, lstsq, matrixRank, matrixNorm, cond', () => {
  it('pinv satisfies the Moore-Penrose conditions (A P A = A, P A P = P, A P and P A symmetric)', async () => {
    await fc.assert(
      fc.asyncProperty(rectangular, async ({ m, n, mats }) => {
        const x = mats[0]!;
        const scale = Math.max(maxAbs(x), 1e-30);
        const s = singular64(x);
        // A rank the tolerance sees plainly: every singular value is clearly kept or clearly 0.
        fc.pre(s.every((v) => v < 1e-5 * scale || v > 1e-2 * scale));
        const a = fromData(cpu, Float32Array.from(x.flat()), { shape: [m, n] });
        const pm = linalg.pinv(a);
        expect(pm.shape).toEqual([n, m]);
        const p = split((await pm.toData()).values, 1, n, m)[0]!;
        const ps = Math.max(maxAbs(p), 1e-30);
        const ap = matmul(x, p);
        const pa = matmul(p, x);
        expect(maxAbs(sub(matmul(ap, x), x)) / scale).toBeLessThan(1e-4);
        expect(maxAbs(sub(matmul(pa, p), p)) / ps).toBeLessThan(1e-4);
        expect(maxAbs(sub(ap, transpose(ap)))).toBeLessThan(1e-4);
        expect(maxAbs(sub(pa, transpose(pa)))).toBeLessThan(1e-4);
        a.dispose();
        pm.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('lstsq: Aᵀ (A X - B) = 0 for a full-rank tall A; A X = B with X in the row space for a wide one', async () => {
    await fc.assert(
      fc.asyncProperty(rectangular, fc.integer({ min: 1, max: 3 }), async ({ m, n, mats }, k) => {
        const x = mats[0]!;
        const s = singular64(x);
        const scale = Math.max(maxAbs(x), 1e-30);
        fc.pre(s[s.length - 1]! > 5e-2 * scale);
        const bv = Array.from({ length: m }, (_, i) => Array.from({ length: k }, (__, j) => Math.fround(Math.sin(i + 3 * j + 1) * scale)));
        const a = fromData(cpu, Float32Array.from(x.flat()), { shape: [m, n] });
        const b = fromData(cpu, Float32Array.from(bv.flat()), { shape: [m, k] });
        const sol = linalg.lstsq(a, b).solution;
        expect(sol.shape).toEqual([n, k]);
        const xs = split((await sol.toData()).values, 1, n, k)[0]!;
        const r = sub(matmul(x, xs), bv);
        const bs = Math.max(maxAbs(bv), 1e-30);
        if (m >= n) expect(maxAbs(matmul(transpose(x), r)) / (scale * bs)).toBeLessThan(1e-3);
        else {
          expect(maxAbs(r) / bs).toBeLessThan(1e-3);
          // The minimum-norm solution Aᵀ (A Aᵀ)⁻¹ B, in float64.
          const want = matmul(transpose(x), solve64(matmul(x, transpose(x)), bv));
          expect(maxAbs(sub(xs, want)) / Math.max(maxAbs(want), 1e-30)).toBeLessThan(1e-3);
        }
        for (const t of [a, b, sol]) t.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('matrixRank of matrices built with rank r is r (batched), int32', async () => {
    await fc.assert(
      fc.asyncProperty(rectangular, async ({ m, n, batch, mats }) => {
        const refs = mats.map((x) => {
          const s = singular64(x);
          const top = s[0] ?? 0;
          fc.pre(s.every((v) => v <= 1e-5 * top || v > 1e-2 * top));
          return s.filter((v) => v > 1e-2 * top).length;
        });
        const a = fromData(cpu, Float32Array.from(mats.flat(2)), { shape: [batch, m, n] });
        const r = linalg.matrixRank(a);
        expect(r.dtype).toBe('int32');
        expect(Array.from((await r.toData()).values)).toEqual(refs);
        a.dispose();
        r.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it("matrixNorm 'nuc', 2, -2, 1, -1, ±Infinity and cond(2) against the reference", async () => {
    await fc.assert(
      fc.asyncProperty(rectangular, async ({ m, n, mats }) => {
        const x = mats[0]!;
        const s = singular64(x);
        const a = fromData(cpu, Float32Array.from(x.flat()), { shape: [m, n] });
        const colSums = x[0]!.map((_, j) => x.reduce((t, row) => t + Math.abs(row[j]!), 0));
        const rowSums = x.map((row) => row.reduce((t, v) => t + Math.abs(v), 0));
        const want: Array<[linalg.MatrixOrd, number]> = [
          ['nuc', s.reduce((t, v) => t + v, 0)],
          [2, s[0]!],
          [-2, s[s.length - 1]!],
          [1, Math.max(...colSums)],
          [-1, Math.min(...colSums)],
          [Infinity, Math.max(...rowSums)],
          [-Infinity, Math.min(...rowSums)],
        ];
        const scale = Math.max(maxAbs(x), 1e-30);
        for (const [ord, w] of want) {
          const got = (await linalg.matrixNorm(a, ord).toData()).values[0]!;
          expect(Math.abs(got - w) / scale, String(ord)).toBeLessThan(2e-5 * (m + n));
        }
        if (s[s.length - 1]! > 1e-2 * scale) {
          const c = (await linalg.cond(a).toData()).values[0]!;
          const cw = s[0]! / s[s.length - 1]!;
          expect(Math.abs(c - cw) / cw).toBeLessThan(1e-3);
        }
        a.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('edges: empty matrices as torch (pinv [n, 0], rank 0, nuc 0, cond 0), keepDims', async () => {
    expect(linalg.pinv(zeros(cpu, [0, 3])).shape).toEqual([3, 0]);
    expect(Array.from((await linalg.matrixRank(zeros(cpu, [2, 0, 3])).toData()).values)).toEqual([0, 0]);
    expect((await linalg.matrixNorm(zeros(cpu, [0, 3]), 'nuc').toData()).values[0]).toBe(0);
    expect((await linalg.cond(zeros(cpu, [0, 0])).toData()).values[0]).toBe(0);
    expect(linalg.matrixNorm(zeros(cpu, [2, 3, 4]), 2, true).shape).toEqual([2, 1, 1]);
    expect(linalg.lstsq(zeros(cpu, [0, 2]), zeros(cpu, [0, 3])).solution.shape).toEqual([2, 3]);
    expect(Array.from((await linalg.pinv(fromData(cpu, [[4]])).toData()).values)).toEqual([0.25]);
  });
});

describe('lu, luFactor, luSolve', () => {
  it('A = P L U with P a permutation, L unit lower with |L| <= 1, U upper; LU packs L and U, pivots 1-based', async () => {
    await fc.assert(
      fc.asyncProperty(rectangular, async ({ m, n, batch, mats }) => {
        const k = Math.min(m, n);
        const a = fromData(cpu, Float32Array.from(mats.flat(2)), { shape: [batch, m, n] });
        const { P, L, U } = linalg.lu(a);
        const { LU, pivots } = linalg.luFactor(a);
        expect([P.shape, L.shape, U.shape, LU.shape, pivots.shape]).toEqual([[batch, m, m], [batch, m, k], [batch, k, n], [batch, m, n], [batch, k]]);
        const ps = split((await P.toData()).values, batch, m, m);
        const ls = split((await L.toData()).values, batch, m, k);
        const us = split((await U.toData()).values, batch, k, n);
        const lus = split((await LU.toData()).values, batch, m, n);
        const piv = (await pivots.toData()).values;
        for (let b = 0; b < batch; b++) {
          const x = mats[b]!;
          const scale = Math.max(maxAbs(x), 1e-30);
          const [p, l, u, packed] = [ps[b]!, ls[b]!, us[b]!, lus[b]!];
          expect(maxAbs(sub(matmul(p, transpose(p)), eye64(m)))).toBe(0);
          expect(p.flat().every((v) => v === 0 || v === 1)).toBe(true);
          for (let i = 0; i < m; i++) {
            for (let j = 0; j < k; j++) {
              // (+ 0: -0 and 0 are the same entry here.)
              if (j > i) expect(l[i]![j]! + 0).toBe(0);
              else if (j === i) expect(l[i]![j]).toBe(1);
              else {
                expect(Math.abs(l[i]![j]!)).toBeLessThanOrEqual(1);
                expect(packed[i]![j]! + 0).toBe(l[i]![j]! + 0);
              }
            }
          }
          for (let i = 0; i < k; i++) for (let j = 0; j < n; j++) expect(u[i]![j]! + 0).toBe(j < i ? 0 : packed[i]![j]! + 0);
          expect(maxAbs(sub(matmul(p, matmul(l, u)), x)) / scale).toBeLessThan(1e-5 * Math.max(m, n));
          for (let j = 0; j < k; j++) {
            expect(piv[b * k + j]!).toBeGreaterThanOrEqual(j + 1);
            expect(piv[b * k + j]!).toBeLessThanOrEqual(m);
          }
        }
        for (const t of [a, P, L, U, LU, pivots]) t.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('luSolve solves A X = B, Aᵀ X = B, X A = B and X Aᵀ = B', async () => {
    await fc.assert(
      fc.asyncProperty(symmetric, fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.boolean(), async ({ n, mats }, k, left, adjoint) => {
        // A random matrix from the symmetric one plus a skew part, kept well conditioned.
        const x = mats[0]!.map((row, i) => row.map((v, j) => Math.fround(v + (i < j ? 0.3 : -0.3) * v + (i === j ? 3 * maxAbs(mats[0]!) + 1 : 0))));
        const bv = Array.from({ length: left ? n : k }, (_, i) => Array.from({ length: left ? k : n }, (__, j) => Math.fround(Math.cos(i * 2 + j))));
        const a = fromData(cpu, Float32Array.from(x.flat()), { shape: [n, n] });
        const b = fromData(cpu, Float32Array.from(bv.flat()), { shape: [bv.length, bv[0]!.length] });
        const { LU, pivots } = linalg.luFactor(a);
        const sol = linalg.luSolve(LU, pivots, b, { left, adjoint });
        const xs = split((await sol.toData()).values, 1, bv.length, bv[0]!.length)[0]!;
        const op = adjoint ? transpose(x) : x;
        const r = left ? sub(matmul(op, xs), bv) : sub(matmul(xs, op), bv);
        expect(maxAbs(r)).toBeLessThan(1e-4);
        for (const t of [a, b, LU, pivots, sol]) t.dispose();
      }),
      { numRuns: 30 },
    );
  });

  it('edges and refusals', async () => {
    const { LU, pivots } = linalg.luFactor(zeros(cpu, [2, 0, 3]));
    expect([LU.shape, pivots.shape]).toEqual([[2, 0, 3], [2, 0]]);
    expect(linalg.lu(zeros(cpu, [3, 0])).P.shape).toEqual([3, 3]);
    const sing = linalg.luFactor(fromData(cpu, [
      [0, 0],
      [0, 0],
    ]));
    expect(Array.from((await sing.pivots.toData()).values)).toEqual([1, 2]);
    const sq = fromData(cpu, [
      [2, 1],
      [1, 3],
    ]);
    const f = linalg.luFactor(sq);
    expect(() => linalg.luSolve(f.LU, f.pivots, zeros(cpu, [3, 1]))).toThrow(/^luSolve: B must be \[\.\.\., 2, k\]/);
    expect(() => linalg.luSolve(f.LU, f.pivots, zeros(cpu, [2, 3]), { left: false })).toThrow(/^luSolve: B must be \[\.\.\., k, 2\] .*left: false/);
    expect(() => linalg.luSolve(f.LU, untyped(f.pivots.cast('float32')), zeros(cpu, [2, 1]))).toThrow(/^luSolve: pivots must be int32/);
    expect(() => linalg.luSolve(f.LU, fromData(cpu, [1], { dtype: 'int32' }), zeros(cpu, [2, 1]))).toThrow(ShapeError);
    expect(() => linalg.luSolve(zeros(cpu, [2, 3]), f.pivots, zeros(cpu, [2, 1]))).toThrow(/^luSolve: LU must be square/);
    expect(() => linalg.luSolve(f.LU, f.pivots, zeros(cpu, [2, 1]), untyped({ left: 1 }))).toThrow(/^luSolve: option left must be a boolean/);
    expect(() => linalg.lu(zeros(cpu, [3]))).toThrow(/^lu: A must be a matrix/);
  });
});
