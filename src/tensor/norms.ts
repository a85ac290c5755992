/**
 * Vector norms (torch.linalg.vector_norm), built from abs / pow / sum / max so every backend,
 * Fusion and Autodiff get them; the where-guards below give torch's gradients at zeros.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { isFloat, type Kind } from '../ir/dtype.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { full } from './creation.js';
import { inFloat32 } from './precision.js';
import { coveredDims, type Dims } from './reductions.js';
import type { Tensor } from './tensor.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** The order p: any number but NaN; 0 counts non-zeros, ±Infinity take the largest / smallest |x|. */
export function checkOrder(op: string, p: unknown): number {
  if (typeof p !== 'number' || Number.isNaN(p)) {
    throw new ArgumentError(`p must be a number (Infinity and negative orders included), got ${show(p)}`, { op, hint: 'p = 2 is the Euclidean norm, 1 the sum of |x|, Infinity the largest |x|' });
  }
  return p;
}

/** sqrt / pow(1 / p) where s != 0, else 0: the norm of zeros then has gradient 0, not NaN (torch's norm_backward masks norm == 0). */
function root<B extends Backend>(s: F<B>, p: number): F<B> {
  const zero = s.equal(0);
  const safe = s.maskFill(zero, 1);
  const r = p === 2 ? safe.sqrt() : safe.pow(1 / p);
  return r.maskFill(zero, 0);
}

/**
 * torch.linalg.vector_norm(x, ord=p, dim, keepdim) for float tensors. No rescaling: the 2-norm is
 * sqrt(sum(x^2)) in the dtype, so it overflows to inf once x^2 does (|x| > ~1.8e19 in float32),
 * as torch's CPU and CUDA kernels do.
 */
export function vectorNorm<B extends Backend>(x: Tensor<B, Kind>, p: number, dim: Dims, keepDims: boolean): F<B> {
  const op = 'norm';
  if (!isFloat(x.dtype)) throw new DTypeError(`takes float tensors, got ${x.dtype}`, { op, dtypes: [x.dtype], hint: 'cast with .cast("float32") first (torch refuses integer inputs too)' });
  const f = x as F<B>;
  // float16 accumulates in float32 and rounds once (torch's opmath): x^2 passes 65504 from |x| = 256.
  if (f.dtype === 'float16') return inFloat32(f, (xf) => vectorNorm(xf, p, dim, keepDims));
  const dims = coveredDims(op, dim, f.shape);
  const count = dims.reduce((n, d) => n * f.shape[d]!, 1);
  if ((!Number.isFinite(p) || p < 0) && count === 0) {
    // max / min and the sum of |x|^p for p < 0 (inf at 0) have no identity: torch refuses these on an empty reduction too.
    throw new ShapeError(`the ${p === Infinity ? 'inf' : p === -Infinity ? '-inf' : p} norm of an empty reduction is undefined (dims [${dims.join(', ')}])`, { op, shapes: [f.shape], hint: 'check for empty inputs first' });
  }
  return tidy(() => {
    if (p === Infinity || p === -Infinity) {
      // The reduction shares a tie's gradient evenly among the maxima (torch: grad / count on the mask), times sign(x).
      // A NaN makes the norm NaN; max's own rule would then spread NaN to every gradient of the line
      // (no element equals NaN: dy / 0). torch's rule counts the NaN as the maximum and gives it
      // sgn(NaN) dy = 0, so the whole line's gradient is 0: the NaN is set aside for the reduction
      // (as 0 for max, +inf for min: it never wins; before abs, whose gradient sign(NaN) 0 would be
      // NaN) and the result pinned to NaN by a masked fill, whose gradient is 0 there.
      const nan = f.isNan();
      const a = f.maskFill(nan, p > 0 ? 0 : Infinity).abs();
      const r = p > 0 ? a.max(dims, keepDims) : a.min(dims, keepDims);
      return r.maskFill(nan.any(dims, keepDims), NaN);
    }
    if (p === 0) {
      // The count of non-zeros: piecewise constant, so x's gradient is 0 (torch), kept connected through a where.
      const n = f.notEqual(0).cast(f.dtype).sum(dims, keepDims);
      if (!f.requiresGrad) return n;
      const all = full(f.backend, [], 1, { device: f.device, dtype: 'bool' });
      return n.add(f.maskFill(all, 0).sum(dims, keepDims));
    }
    if (p < 0) {
      // (sum |x|^p)^(1/p): a zero makes the sum inf and the norm 0, and torch's gradient is 0 on
      // the whole reduction then (its norm_backward masks norm == 0); computed with zeros as 1
      // and masked after, so no inf * 0 reaches the gradient.
      const a = f.abs();
      const zero = a.equal(0);
      const hit = zero.any(dims, keepDims);
      const s = a.maskFill(zero, 1).pow(p).sum(dims, keepDims);
      return s.pow(1 / p).maskFill(hit, 0);
    }
    if (p === 1) return f.abs().sum(dims, keepDims);
    if (p === 2) return root(f.square().sum(dims, keepDims), 2);
    // |x|^p with 0 where x == 0: pow's gradient p |x|^(p-1) is inf at 0 for p < 1, and torch's is 0 there.
    const a = f.abs();
    const zero = a.equal(0);
    const powered = a.maskFill(zero, 1).pow(p).maskFill(zero, 0);
    return root(powered.sum(dims, keepDims), p);
  }, f.backend.runtime);
}
