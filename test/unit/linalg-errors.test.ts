/**
 * linalg's refusals (typed errors naming the op, the shapes and a way out, for typed and untyped
 * callers), and what it gives where torch raises on the values: a matrix that is not positive
 * definite (cholesky: all NaN), a singular one (solve / inv: not finite; det 0, slogdet (0, -inf)),
 * empty matrices, and no tensor left behind.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { ArgumentError, DTypeError, DeviceError, ShapeError } from '../../src/errors.js';
import { tidy } from '../../src/memory/tidy.js';
import { Router } from '../../src/router/router.js';
import { linalg } from '../../src/index.js';
import { fromData, zeros } from '../../src/tensor/creation.js';
import { untyped } from '../untyped.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());
const m = (data: number[][]) => fromData(cpu, data);
const sq = m([
  [2, 1],
  [1, 3],
]);

describe('linalg errors', () => {
  it('non-square matrices are a ShapeError naming the op and the shape', () => {
    const r = zeros(cpu, [2, 3]);
    for (const [op, f] of [
      ['cholesky', () => linalg.cholesky(r)],
      ['inv', () => linalg.inv(r)],
      ['det', () => linalg.det(r)],
      ['slogdet', () => linalg.slogdet(r)],
      ['solve', () => linalg.solve(r, zeros(cpu, [2, 1]))],
      ['solveTriangular', () => linalg.solveTriangular(r, zeros(cpu, [2, 1]), { upper: false })],
      ['trace', () => linalg.trace(r)],
    ] as const) {
      expect(f, op).toThrow(ShapeError);
      expect(f, op).toThrow(new RegExp(`^${op}: A must be square \\[\\.\\.\\., n, n\\], got \\[\\.\\.\\., 2, 3\\].*shapes: \\[2, 3\\]`));
    }
  });

  it('rank < 2 is a ShapeError', () => {
    expect(() => linalg.det(fromData(cpu, [1, 2]))).toThrow(/^det: A must be a matrix .* got rank 1/);
    expect(() => linalg.solveTriangular(sq, fromData(cpu, [1, 2]), { upper: true })).toThrow(/^solveTriangular: B must be a matrix/);
  });

  it("b's rows must match A, batch dims must broadcast", () => {
    expect(() => linalg.solve(sq, zeros(cpu, [3, 1]))).toThrow(/^solve: B must have 2 rows .*\[\.\.\., 3, 1\]/);
    expect(() => linalg.solve(sq, zeros(cpu, [3]))).toThrow(/^solve: B must have 2 rows .*a vector of 3/);
    expect(() => linalg.solveTriangular(sq, zeros(cpu, [3, 2]), { upper: false })).toThrow(/^solveTriangular: B must be \[\.\.\., 2, k\]/);
    expect(() => linalg.solveTriangular(sq, zeros(cpu, [2, 3]), { upper: false, left: false })).toThrow(/^solveTriangular: B must be \[\.\.\., k, 2\] .* with left: false/);
    expect(() => linalg.solve(zeros(cpu, [3, 2, 2]), zeros(cpu, [4, 2, 1]))).toThrow(ShapeError);
    expect(() => linalg.solve(zeros(cpu, [3, 2, 2]), zeros(cpu, [4, 2, 1]))).toThrow(/^solve: the batch dims \[3\] and \[4\] do not broadcast/);
  });

  it('non-float32 dtypes are a DTypeError with a hint to cast', () => {
    // Int and bool tensors do not type-check; untyped callers pass them anyway.
    const int = untyped<typeof sq>(fromData(cpu, [[1, 0], [0, 1]], { dtype: 'int32' }));
    expect(() => linalg.inv(int)).toThrow(DTypeError);
    expect(() => linalg.inv(int)).toThrow(/^inv: A must be float32, got int32.*cast/);
    expect(() => linalg.cholesky(sq.cast('float16'))).toThrow(/^cholesky: A must be float32, got float16/);
    expect(() => linalg.det(untyped(sq.greater(0)))).toThrow(DTypeError);
    expect(() => linalg.solve(sq, untyped(fromData(cpu, [1, 2], { dtype: 'int32' })))).toThrow(/^solve: dtypes differ: float32 and int32/);
  });

  it('untyped callers: non-tensors and bad options are ArgumentErrors', () => {
    expect(() => linalg.det(untyped(null))).toThrow(/^det: A must be a tensor, got null/);
    expect(() => linalg.solve(sq, untyped([[1], [2]]))).toThrow(ArgumentError);
    expect(() => linalg.solveTriangular(sq, sq, untyped(undefined))).toThrow(/^solveTriangular: option upper is required/);
    expect(() => linalg.solveTriangular(sq, sq, untyped({ upper: 'yes' }))).toThrow(/^solveTriangular: option upper must be a boolean/);
    expect(() => linalg.cholesky(sq, untyped('upper'))).toThrow(/^cholesky: options must be an object/);
    expect(() => linalg.matrixNorm(sq, untyped('spectral'))).toThrow(/^matrixNorm: ord must be 'fro', 'nuc', 2, -2, 1, -1, Infinity or -Infinity, got .spectral/);
    expect(() => linalg.matrixNorm(sq, 3)).toThrow(ArgumentError);
    expect(() => linalg.matrixNorm(zeros(cpu, [0, 3]), 2)).toThrow(/^matrixNorm: the 2-norm of an empty matrix/);
    expect(() => linalg.cond(sq, untyped('2'))).toThrow(/^cond: p must be 2, -2/);
    expect(() => linalg.cond(zeros(cpu, [2, 3]), 'fro')).toThrow(/^cond: A must be square/);
    expect(() => linalg.pinv(sq, untyped({ atol: -1 }))).toThrow(/^pinv: atol must be >= 0/);
    expect(() => linalg.pinv(sq, untyped({ rtol: 'x' }))).toThrow(/^pinv: rtol must be a number/);
    expect(() => linalg.matrixRank(sq, untyped({ tol: 1 }))).toThrow(/^matrixRank: unknown option 'tol'/);
    expect(() => linalg.matrixRank(zeros(cpu, [2, 3]), { hermitian: true })).toThrow(/^matrixRank: A must be square/);
    expect(() => linalg.lstsq(zeros(cpu, [3, 2]), zeros(cpu, [4, 1]))).toThrow(/^lstsq: B must have 3 rows .*\[\.\.\., 4, 1\]/);
    expect(() => linalg.lstsq(zeros(cpu, [3, 2]), zeros(cpu, [4]))).toThrow(/^lstsq: B must have 3 rows .*a vector of 4/);
    expect(() => linalg.lstsq(zeros(cpu, [3, 2]), zeros(cpu, [2, 3, 1]))).toThrow(/^lstsq: B has more dims/);
  });

  it('operands on two devices are a DeviceError naming the op', async () => {
    const router = new Router([new Cpu({ threads: 0, device: CpuDevice.named('cpu:la') }), new Cpu({ threads: 0, device: CpuDevice.named('cpu:lb') })]);
    const a = fromData(router, [[1, 0], [0, 1]], { device: router.device(0, CpuDevice.named('cpu:la')) });
    const b = fromData(router, [[1], [2]], { device: router.device(1, CpuDevice.named('cpu:lb')) });
    expect(() => linalg.solve(a, b)).toThrow(DeviceError);
    expect(() => linalg.solveTriangular(a, b, { upper: true })).toThrow(/^solveTriangular: A and B are on different devices/);
    await router.close();
  });

  it('a disposed input is refused by name', () => {
    const t = m([[1]]);
    t.dispose();
    expect(() => linalg.inv(t)).toThrow(/^inv: /);
  });
});

describe('linalg where torch raises on the values', () => {
  it('cholesky of a matrix that is not positive definite is all NaN (batched: only that matrix)', async () => {
    const batch = fromData(cpu, [[[4, 2], [2, 3]], [[1, 2], [2, 1]]]);
    const l = await linalg.cholesky(batch).toData();
    expect(Array.from(l.values.slice(0, 4))).toEqual([2, 0, 1, Math.fround(Math.sqrt(2))]);
    expect(Array.from(l.values.slice(4)).every(Number.isNaN)).toBe(true);
  });

  it('singular: solve and inv are not finite, det 0, slogdet (0, -inf)', async () => {
    const s = m([[1, 2], [2, 4]]);
    expect(Array.from((await linalg.inv(s).toData()).values).some((v) => !Number.isFinite(v))).toBe(true);
    // -0 here, as torch's (one row swap times a zero pivot).
    expect(Math.abs((await linalg.det(s).toData()).values[0]!)).toBe(0);
    const { sign, logabsdet } = linalg.slogdet(s);
    expect(Math.abs((await sign.toData()).values[0]!)).toBe(0);
    expect((await logabsdet.toData()).values[0]).toBe(-Infinity);
  });

  it('empty matrices: det 1, inv and solve empty', async () => {
    const e = zeros(cpu, [3, 0, 0]);
    expect(Array.from((await linalg.det(e).toData()).values)).toEqual([1, 1, 1]);
    expect(linalg.inv(e).shape).toEqual([3, 0, 0]);
    expect(linalg.solve(e, zeros(cpu, [3, 0, 2])).shape).toEqual([3, 0, 2]);
    expect(linalg.cholesky(e).shape).toEqual([3, 0, 0]);
  });

  it('leaves no tensor behind', async () => {
    const a = m([[3, 1, 0], [1, 4, 1], [0, 1, 5]]);
    const b = m([[1], [2], [3]]);
    const before = cpu.memory().tensors;
    const outs = [linalg.solve(a, b), linalg.inv(a), linalg.det(a), linalg.cholesky(a), linalg.solveTriangular(a, b, { upper: true }), linalg.trace(a), linalg.matrixNorm(a)];
    const sd = linalg.slogdet(a);
    for (const o of [...outs, sd.sign, sd.logabsdet]) {
      await o.toData();
      o.dispose();
    }
    expect(cpu.memory().tensors).toBe(before);
  });

  it('the decompositions leave no tensor behind, with or without gradients', async () => {
    const a = m([[3, 1, 0], [1, 4, 1], [0, 1, 5]]);
    const w = m([[3, 1], [1, 4], [0, 1]]);
    const wt = w.transpose();
    const v = m([[1], [2]]);
    const before = cpu.memory().tensors;
    const e = linalg.eigh(a);
    const s = linalg.svd(w);
    const r = linalg.svd(w, false);
    const outs = [e.eigenvalues, e.eigenvectors, linalg.eigvalsh(a), s.U, s.S, s.Vh, r.U, r.S, r.Vh, linalg.svdvals(w), linalg.pinv(w), linalg.pinv(a, { hermitian: true }), linalg.cond(a), linalg.cond(a, 1), linalg.matrixNorm(w, 'nuc'), linalg.matrixNorm(w, -2), linalg.lstsq(w, a).solution, linalg.lstsq(wt, v).solution];
    const rank = linalg.matrixRank(w);
    await rank.toData();
    rank.dispose();
    for (const o of outs) {
      await o.toData();
      o.dispose();
    }
    expect(cpu.memory().tensors).toBe(before);
    const ad = new Autodiff(cpu);
    const x = fromData(ad, [[3, 1], [1, 4], [0, 1]]).requireGrad();
    const sq2 = fromData(ad, [[3, 1], [1, 4]]).requireGrad();
    const start = cpu.memory().tensors;
    const parts = [linalg.svd(x, false), linalg.eigh(sq2), linalg.pinv(x)] as const;
    const loss = tidy(() => parts[0].U.sum().add(parts[0].S.sum()).add(parts[0].Vh.sum()).add(parts[1].eigenvectors.sum()).add(parts[1].eigenvalues.sum()).add(parts[2].sum()));
    const grads = loss.backward();
    grads.dispose();
    loss.dispose();
    for (const t of [parts[0].U, parts[0].S, parts[0].Vh, parts[1].eigenvalues, parts[1].eigenvectors, parts[2]]) t.dispose();
    expect(cpu.memory().tensors).toBe(start);
    x.dispose();
    sq2.dispose();
  });
});
