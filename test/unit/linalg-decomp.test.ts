/**
 * linalg's decompositions against laws and a float64 reference written here (cyclic Jacobi in
 * plain numbers): eigh / eigvalsh (A = V diag(L) Vᵀ, VᵀV = I, ascending values equal to the
 * reference's, the gradient of a weighted sum of eigenvalues is V diag(c) Vᵀ), on random batches,
 * sizes 1-9 and scales; plus the edges (empty, 1 x 1, repeated eigenvalues) and argument checks.
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
