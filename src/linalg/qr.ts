/**
 * QR by Householder reflections, one column per step on the host (about 20 records a column): each
 * reflector is a full-height vector (zeros above the column's diagonal), applied to R and
 * accumulated into Q by batched matmuls, so every backend runs it and Autodiff differentiates
 * through it. LAPACK's conventions (geqrf / dlarfg), so Q and R match torch's signs: R's
 * diagonal is -sign(x0) |x| (x0 >= 0 counting as positive), and a column already zero below its
 * diagonal gets no reflection.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { arange, eye } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { checkMatrix, type F } from './checks.js';

export type QrMode = 'reduced' | 'complete';

/**
 * torch.linalg.qr(A, mode): A [..., m, n] = Q R with Q's columns orthonormal and R upper
 * triangular; 'reduced' (default): Q [..., m, k], R [..., k, n] with k = min(m, n); 'complete': Q
 * [..., m, m], R [..., m, n]. ('r', R alone, is the reduced R.)
 */
export function qr<B extends Backend>(a: F<B>, mode: QrMode = 'reduced'): { Q: F<B>; R: F<B> } {
  const op = 'qr';
  checkMatrix(op, 'A', a);
  if (mode !== 'reduced' && mode !== 'complete') throw new ArgumentError(`mode must be 'reduced' or 'complete', got ${show(mode)}`, { op, hint: "mode 'r' is qr(a).R" });
  const m = a.shape[a.rank - 2]!;
  const n = a.shape[a.rank - 1]!;
  const k = Math.min(m, n);
  const batch = a.shape.slice(0, -2);
  return tidy(() => {
    let q = eye(a.backend, m, m, { device: a.device, dtype: a.dtype }).expand([...batch, m, m]);
    let r = a;
    const rows = arange(a.backend, m, undefined, 1, { device: a.device }).reshape([m, 1]);
    for (let j = 0; j < k; j++) {
      const col = r.narrow(-1, j, 1);
      const x = j === 0 ? col : col.maskFill(rows.lower(j), 0);
      const x0 = col.narrow(-2, j, 1);
      const below = x.maskFill(rows.lowerEqual(j), 0);
      // Nothing below the diagonal: H = I (dlarfg's tau = 0), which also keeps zero columns finite.
      const skip = below.norm(2, -2, true).equal(0);
      const xn = x.norm(2, -2, true);
      const alpha = Tensor.where(x0.lower(0), xn, xn.neg());
      const u = Tensor.where(rows.equal(j), x0.sub(alpha), x);
      const v = u.div(u.norm(2, -2, true).maskFill(skip, 1)).maskFill(skip, 0);
      const vt = v.transpose();
      r = r.sub(v.mul(2).matmul(vt.matmul(r)));
      q = q.sub(q.matmul(v).matmul(vt.mul(2)));
    }
    if (mode === 'complete') return { Q: q.mul(1), R: r.triu() };
    return { Q: q.narrow(-1, 0, k), R: r.narrow(-2, 0, k).triu() };
  }, a.backend.runtime);
}
