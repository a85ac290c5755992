/**
 * solve, inv, det and slogdet by Gaussian elimination with partial pivoting, one column per step
 * on the host (about 15 records a column, each over the whole [..., n, n + k] matrix): the pivot
 * row is found by argmax of |column| below the diagonal, swapped into place by a gather, and the
 * column eliminated by one broadcast multiply-subtract. Every backend runs it; Autodiff
 * differentiates through the steps (the pivot choice is a constant of the step, as torch's P).
 */
import type { Backend } from '../backends/backend.js';
import { ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import { arange, eye, full } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { batchOf, checkMatrix, checkSquare, sameDType, type F } from './checks.js';

interface Eliminated<B extends Backend> {
  /** The matrix after the steps: [I | A⁻¹ B] (Gauss-Jordan) or [U | L⁻¹ P B] (LU). */
  readonly m: F<B>;
  /** The pivots, [..., n]: their product is ±det. */
  readonly pivots: F<B>;
  /** +1 or -1 per matrix, [...]: the parity of the row swaps. */
  readonly parity: F<B>;
}

/**
 * Partial pivoting on m = [A | rhs] ([..., n, w], batch dims full). `jordan` eliminates above the
 * pivot too and scales its row to 1 (to solve); otherwise only below (LU, for det: a zero pivot
 * then leaves its column as it is and the determinant 0, as LAPACK's getrf goes on past it).
 */
function eliminate<B extends Backend>(m0: F<B>, n: number, jordan: boolean): Eliminated<B> {
  const batch = m0.shape.slice(0, -2);
  const w = m0.shape[m0.rank - 1]!;
  const rows = arange(m0.backend, n, undefined, 1, { device: m0.device }).reshape([n, 1]);
  const rowsB = rows.expand([...batch, n, 1]);
  let m = m0;
  const pivots: Array<F<B>> = [];
  let swaps = full(m0.backend, [...batch, 1, 1], 0, { device: m0.device, dtype: m0.dtype });
  for (let k = 0; k < n; k++) {
    // Rows above k are done: -1 keeps them from being chosen (|x| >= 0 below; NaN wins, as in LAPACK's isamax it spreads).
    const col = m.narrow(-1, k, 1).abs();
    const p = (k === 0 ? col : col.maskFill(rows.lower(k), -1)).argmax(-2, true);
    const isK = rows.equal(k);
    // Row index k <- p, p <- k, the rest in place.
    const idx = Tensor.where(isK, p, rowsB.maskFill(rowsB.equal(p), k));
    m = m.gather(-2, idx.expand([...batch, n, w]));
    swaps = swaps.add(p.notEqual(k).cast(m0.dtype));
    const pivRow = m.narrow(-2, k, 1);
    const piv = pivRow.narrow(-1, k, 1);
    pivots.push(piv);
    if (jordan) {
      const row = pivRow.div(piv);
      const f = m.narrow(-1, k, 1).maskFill(isK, 0);
      m = Tensor.where(isK, row, m.sub(f.mul(row)));
    } else if (k < n - 1) {
      const f = m.narrow(-1, k, 1).div(piv.maskFill(piv.equal(0), 1)).maskFill(rows.lowerEqual(k), 0);
      m = m.sub(f.mul(pivRow));
    }
  }
  const parity = swaps.remainder(2).mul(-2).add(1).reshape(batch);
  return { m, pivots: Tensor.cat(pivots, -1).reshape([...batch, n]), parity };
}

/** a's batch dims, a [..., n, n] float32 checked: the matrix itself or the result for n = 0. */
function squareSize<B extends Backend>(op: string, a: F<B>): number {
  checkSquare(op, 'A', a);
  return a.shape[a.rank - 1]!;
}

/**
 * torch.linalg.solve(A, B): X with A X = B. B is [..., n, k], or [..., n] (a vector, or a batch of
 * them: B's shape is A's without the last dim, or B is 1-D), batch dims broadcast. A singular A
 * gives inf / NaN (torch raises).
 */
export function solve<B extends Backend>(a: F<B>, b: F<B>): F<B> {
  const op = 'solve';
  const n = squareSize(op, a);
  if (!(b instanceof Tensor) || b.rank !== 1) checkMatrix(op, 'B', b);
  b.live(op);
  sameDType(op, a, b);
  // torch's rule for a vector right-hand side.
  const vector = b.rank === 1 || (b.rank === a.rank - 1 && b.shape.every((d, i) => d === a.shape[i]));
  const rowsOfB = vector ? b.shape[b.rank - 1]! : b.shape[b.rank - 2]!;
  if (rowsOfB !== n) {
    throw new ShapeError(`B must have ${n} rows (A is [..., ${n}, ${n}]), got ${vector ? `a vector of ${rowsOfB}` : `[..., ${b.shape.slice(-2).join(', ')}]`}`, { op, shapes: [a.shape, b.shape], hint: 'B is [..., n, k], or [..., n] for one right-hand side' });
  }
  return tidy(() => {
    const bm = vector ? b.unsqueeze(-1) : b;
    const batch = batchOf(op, a.shape, bm.shape);
    const k = bm.shape[bm.rank - 1]!;
    const rhs = bm.expand([...batch, n, k]);
    const x = n === 0 ? rhs.mul(1) : eliminate(Tensor.cat([a.expand([...batch, n, n]), rhs], -1), n, true).m.narrow(-1, n, k);
    return vector ? x.squeeze(-1) : x;
  }, a.backend.runtime);
}

/** torch.linalg.inv(A): solve(A, I). A singular A gives inf / NaN (torch raises). */
export function inv<B extends Backend>(a: F<B>): F<B> {
  const op = 'inv';
  const n = squareSize(op, a);
  return tidy(() => {
    const id = eye(a.backend, n, n, { device: a.device, dtype: a.dtype }).expand(a.shape);
    if (n === 0) return id.mul(1);
    return eliminate(Tensor.cat([a, id], -1), n, true).m.narrow(-1, n, n);
  }, a.backend.runtime);
}

/** torch.linalg.det(A), [...]: the product of the LU pivots with the sign of the row swaps; 0 for a singular A. */
export function det<B extends Backend>(a: F<B>): F<B> {
  const n = squareSize('det', a);
  return tidy(() => {
    if (n === 0) return full(a.backend, a.shape.slice(0, -2), 1, { device: a.device, dtype: a.dtype });
    const { pivots, parity } = eliminate(a, n, false);
    return pivots.prod(-1).mul(parity);
  }, a.backend.runtime);
}

/** torch.linalg.slogdet(A) → { sign, logabsdet }, each [...]: a singular A gives sign 0 and logabsdet -inf, as torch. */
export function slogdet<B extends Backend>(a: F<B>): { sign: F<B>; logabsdet: F<B> } {
  const n = squareSize('slogdet', a);
  return tidy(() => {
    if (n === 0) {
      const batch = a.shape.slice(0, -2);
      return { sign: full(a.backend, batch, 1, { device: a.device, dtype: a.dtype }), logabsdet: full(a.backend, batch, 0, { device: a.device, dtype: a.dtype }) };
    }
    const { pivots, parity } = eliminate(a, n, false);
    return { sign: pivots.sign().prod(-1).mul(parity), logabsdet: pivots.abs().log().sum(-1) };
  }, a.backend.runtime);
}
