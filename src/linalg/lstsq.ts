/** Least squares through QR: a tall A by its own factors, a wide one by those of Aᵀ (the minimum-norm solution). */
import type { Backend } from '../backends/backend.js';
import { ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import { Tensor } from '../tensor/tensor.js';
import { batchOf, checkMatrix, sameDType, type F } from './checks.js';
import { qr } from './qr.js';
import { solveTriangular } from './triangular.js';

/**
 * torch.linalg.lstsq(A, B) → { solution }: X minimising ‖A X - B‖ for a full-rank A [..., m, n]; B
 * [..., m, k], or [..., m] (a vector per matrix: B's rank one less than A's); batch dims broadcast.
 * m >= n: R X = Qᵀ B from A's QR; m < n: the minimum-norm X = Q R⁻ᵀ B from Aᵀ's. A rank-deficient A
 * makes R singular: inf / NaN or a huge X (torch's gelsy finds the rank and gives a basic
 * solution); pinv(a).matmul(b) gives the minimum-norm one there. torch's residuals, rank and
 * singular_values are not returned. Gradients through qr and solveTriangular.
 */
export function lstsq<B extends Backend>(a: F<B>, b: F<B>): { solution: F<B> } {
  const op = 'lstsq';
  checkMatrix(op, 'A', a);
  if (!(b instanceof Tensor) || b.rank !== a.rank - 1) checkMatrix(op, 'B', b);
  b.live(op);
  sameDType(op, a, b);
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  const vector = b.rank === a.rank - 1;
  if (b.rank > a.rank) throw new ShapeError(`B has more dims (${b.rank}) than A (${a.rank})`, { op, shapes: [a.shape, b.shape], hint: "B is [..., m, k], or [..., m] with A's batch dims" });
  const rows = vector ? b.shape[b.rank - 1]! : b.shape[b.rank - 2]!;
  if (rows !== m) {
    throw new ShapeError(`B must have ${m} rows (A is [..., ${m}, ${n}]), got ${vector ? `a vector of ${rows}` : `[..., ${b.shape.slice(-2).join(', ')}]`}`, { op, shapes: [a.shape, b.shape], hint: 'B is [..., m, k], or [..., m] for one right-hand side' });
  }
  return tidy(() => {
    const bm = vector ? b.unsqueeze(-1) : b;
    const batch = batchOf(op, a.shape, bm.shape);
    const k = bm.shape[bm.rank - 1]!;
    const aa = a.expand([...batch, m, n]);
    const rhs = bm.expand([...batch, m, k]);
    let x: F<B>;
    if (m >= n) {
      const { Q, R } = qr(aa);
      x = solveTriangular(R, Q.transpose().matmul(rhs), { upper: true });
    } else {
      // A = Rᵀ Qᵀ: Rᵀ Y = B, X = Q Y, which lies in A's row space.
      const { Q, R } = qr(aa.transpose());
      x = Q.matmul(solveTriangular(R.transpose(), rhs, { upper: false }));
    }
    return { solution: vector ? x.squeeze(-1) : x };
  }, a.backend.runtime);
}
