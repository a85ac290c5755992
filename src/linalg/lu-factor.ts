/**
 * luFactor, lu and luSolve: LU with partial pivoting in LAPACK's getrf layout (L's multipliers
 * below the diagonal of one matrix, U on and above it, 1-based int32 pivots), one column per step
 * on the host as solve's elimination (lu.ts: the same pivot rule), about 28 records a column.
 * Gradients through the steps (the pivot choice is a constant of the step).
 */
import type { Backend } from '../backends/backend.js';
import { DTypeError, DeviceError, ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import { arange, eye, zeros } from '../tensor/creation.js';
import { asIndexCaller } from '../tensor/index-scope.js';
import { checkTensor, Tensor } from '../tensor/tensor.js';
import { batchOf, boolOptions, checkMatrix, checkSquare, sameDType, type F } from './checks.js';
import { solveTriangular } from './triangular.js';

type I<B extends Backend> = Tensor<B, 'int'>;

/** getrf on a [..., m, n]: the packed factors, the 1-based pivots [..., k] and the row order [..., m, 1] (row i of P A is row perm[i] of A). */
function getrf<B extends Backend>(a: F<B>): { lu: F<B>; pivots: I<B>; perm: I<B> } {
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  const k = Math.min(m, n);
  const batch = a.shape.slice(0, -2);
  const rows = arange(a.backend, m, undefined, 1, { device: a.device }).reshape([m, 1]);
  const cols = arange(a.backend, n, undefined, 1, { device: a.device }).reshape([1, n]);
  const rowsB = rows.expand([...batch, m, 1]);
  let x = a;
  let perm: I<B> = rowsB;
  const pivots: Array<I<B>> = [];
  for (let j = 0; j < k; j++) {
    // Rows above j are done: -1 keeps them from being chosen (NaN wins, as in LAPACK's isamax).
    const col = x.narrow(-1, j, 1).abs();
    const p = (j === 0 ? col : col.maskFill(rows.lower(j), -1)).argmax(-2, true);
    const isJ = rows.equal(j);
    const idx = Tensor.where(isJ, p, rowsB.maskFill(rowsB.equal(p), j));
    x = x.gather(-2, idx.expand([...batch, m, n]));
    perm = perm.gather(-2, idx);
    pivots.push(p.add(1));
    if (j === m - 1) continue;
    const pivRow = x.narrow(-2, j, 1);
    const piv = pivRow.narrow(-1, j, 1);
    // A zero pivot (a zero column below the diagonal) leaves the multipliers 0, as getrf does.
    const f = x.narrow(-1, j, 1).div(piv.maskFill(piv.equal(0), 1)).maskFill(rows.lowerEqual(j), 0);
    // Only the columns right of j are updated; column j below the diagonal keeps the multipliers.
    const update = x.sub(f.mul(pivRow.maskFill(cols.lowerEqual(j), 0)));
    x = Tensor.where(cols.equal(j).logicalAnd(rows.greater(j)), f, update);
  }
  const pv = k === 0 ? zeros(a.backend, [...batch, 0], { device: a.device, dtype: 'int32' }) : Tensor.cat(pivots, -1).reshape([...batch, k]);
  return { lu: x.mul(1), pivots: pv, perm };
}

/**
 * torch.linalg.lu_factor(A) → { LU, pivots }: A [..., m, n] = P L U packed as LAPACK's getrf, LU
 * [..., m, n] (L's strict lower part, unit diagonal implied; U on and above the diagonal) and
 * pivots [..., min(m, n)] int32, 1-based: row j was swapped with row pivots[j] - 1 at step j. A
 * singular A is factored all the same (torch raises; its lu_factor_ex does this): U has a 0 on the
 * diagonal, and luSolve then gives inf / NaN.
 */
export function luFactor<B extends Backend>(a: F<B>): { LU: F<B>; pivots: I<B> } {
  checkMatrix('luFactor', 'A', a);
  return tidy(() => {
    const { lu, pivots } = getrf(a);
    return { LU: lu, pivots };
  }, a.backend.runtime);
}

/** torch.linalg.lu(A) → { P, L, U }: A = P L U, P [..., m, m], L [..., m, k] unit lower, U [..., k, n] upper (k = min(m, n)). */
export function lu<B extends Backend>(a: F<B>): { P: F<B>; L: F<B>; U: F<B> } {
  checkMatrix('lu', 'A', a);
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  const k = Math.min(m, n);
  const batch = a.shape.slice(0, -2);
  return tidy(() => {
    const { lu: x, perm } = getrf(a);
    const opts = { device: a.device, dtype: a.dtype };
    // A = P (P A): P's column i is e_perm[i].
    const p = arange(a.backend, m, undefined, 1, { device: a.device }).reshape([m, 1]).equal(perm.reshape([...batch, 1, m])).cast(a.dtype);
    const l = x.narrow(-1, 0, k).tril(-1).add(eye(a.backend, m, k, opts));
    const u = x.narrow(-2, 0, k).triu();
    return { P: p, L: l, U: u };
  }, a.backend.runtime);
}

/** The row order [..., n, 1] that 1-based pivots [..., n] make (row i of P A is row perm[i] of A). */
function orderOf<B extends Backend>(pivots: I<B>, n: number): I<B> {
  const batch = pivots.shape.slice(0, -1);
  const rows = arange(pivots.backend, n, undefined, 1, { device: pivots.device }).reshape([n, 1]);
  const rowsB = rows.expand([...batch, n, 1]);
  let perm: I<B> = rowsB;
  for (let j = 0; j < n; j++) {
    const p = pivots.narrow(-1, j, 1).sub(1).unsqueeze(-1);
    const idx = Tensor.where(rows.equal(j), p, rowsB.maskFill(rowsB.equal(p), j));
    perm = perm.gather(-2, idx);
  }
  return perm;
}

export interface LuSolveOptions {
  /** true (default): A X = B; false: X A = B. */
  left?: boolean;
  /** Solve with Aᵀ instead of A. */
  adjoint?: boolean;
}

/**
 * torch.linalg.lu_solve(LU, pivots, B, left=, adjoint=): X with A X = B (X A = B when left is
 * false; Aᵀ for A with adjoint) from luFactor's LU [..., n, n] and pivots [..., n]; B [..., n, k]
 * (left) or [..., k, n], batch dims broadcast. A pivot out of [1, n] is not checked at the call (a
 * read) but fails the result when it runs, naming luSolve. Gradients through the triangular solves, for LU and B.
 */
export function luSolve<B extends Backend>(luM: F<B>, pivots: I<B>, b: F<B>, options?: LuSolveOptions): F<B> {
  const op = 'luSolve';
  checkSquare(op, 'LU', luM);
  checkMatrix(op, 'B', b);
  sameDType(op, luM, b);
  checkTensor(op, 'pivots', pivots);
  pivots.live(op);
  const o = boolOptions(op, options, ['left', 'adjoint']);
  const left = o['left'] ?? true;
  const adjoint = o['adjoint'] ?? false;
  const n = luM.shape[luM.rank - 1]!;
  if (pivots.dtype !== 'int32') throw new DTypeError(`pivots must be int32, got ${pivots.dtype}`, { op, dtypes: [pivots.dtype], hint: "luFactor's pivots" });
  if (pivots.device.key !== luM.device.key) throw new DeviceError('LU and pivots are on different devices', { op, devices: [luM.device.key, pivots.device.key] });
  if (pivots.rank !== luM.rank - 1 || pivots.shape[pivots.rank - 1] !== n || pivots.shape.some((d, i) => d !== luM.shape[i])) {
    throw new ShapeError(`pivots must be [..., ${n}] with LU's batch dims, got [${pivots.shape.join(', ')}]`, { op, shapes: [luM.shape, pivots.shape], hint: 'pass the pivots luFactor returned with LU' });
  }
  const along = left ? b.shape[b.rank - 2]! : b.shape[b.rank - 1]!;
  if (along !== n) {
    throw new ShapeError(`B must be [..., ${left ? `${n}, k` : `k, ${n}`}] for a ${n} x ${n} LU${left ? '' : ' with left: false'}, got [..., ${b.shape.slice(-2).join(', ')}]`, { op, shapes: [luM.shape, b.shape] });
  }
  const batch = batchOf(op, luM.shape, b.shape);
  return tidy(() => {
    // X A = B is Aᵀ Xᵀ = Bᵀ: the other case of adjoint on the transposes.
    const rhs0 = left ? b : b.transpose();
    const rhs = rhs0.expand([...batch, n, rhs0.shape[rhs0.rank - 1]!]);
    if (n === 0) return left ? rhs.mul(1) : rhs.transpose().mul(1);
    const t = left ? adjoint : !adjoint;
    const f = luM.expand([...batch, n, n]);
    // A pivot outside [1, n] fails orderOf's gather (pivot - 1 is its index) naming luSolve.
    const perm = asIndexCaller({ name: op, what: 'pivot', of: 'rows', base: 1 }, () => orderOf(pivots.expand([...batch, n]), n));
    const k = rhs.shape[rhs.rank - 1]!;
    let x: F<B>;
    if (!t) {
      // A = P L U: X = U⁻¹ L⁻¹ Pᵀ B, Pᵀ B being B's rows in perm's order.
      const pb = rhs.gather(-2, perm.expand([...batch, n, k]));
      x = solveTriangular(f, solveTriangular(f, pb, { upper: false, unitriangular: true }), { upper: true });
    } else {
      // Aᵀ = Uᵀ Lᵀ Pᵀ: Y = L⁻ᵀ U⁻ᵀ B, then X = P Y, row perm[i] of X being row i of Y.
      const ft = f.transpose();
      const y = solveTriangular(ft, solveTriangular(ft, rhs, { upper: false }), { upper: true, unitriangular: true });
      x = y.gather(-2, perm.argsort(-2).expand([...batch, n, k]));
    }
    return left ? x : x.transpose();
  }, luM.backend.runtime);
}
