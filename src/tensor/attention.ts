/**
 * scaledDotProductAttention as torch.nn.functional.scaled_dot_product_attention computes it
 * (its math path): softmax(q k^T * scale + mask) v, with dropout on the attention weights from
 * the device's seedable random stream. Built from matmul, softmax and elementwise ops, so its
 * gradient is theirs.
 */
import { field } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { broadcastShapes } from '../ir/shape.js';
import { Distribution, full, random } from './creation.js';
import type { Tensor } from './tensor.js';
import { isFloat } from '../ir/dtype.js';

export interface AttentionOptions<B extends Backend = Backend> {
  /**
   * Broadcasts to [..., L, S]. A bool mask marks with true the keys a query may attend to
   * (torch's convention); a float mask is added to the scores (use -Infinity to block).
   */
  readonly attnMask?: Tensor<B, 'bool'> | Tensor<B, 'float'>;
  /** Query i attends to keys 0..i only (the top-left aligned lower triangle, as torch). */
  readonly isCausal?: boolean;
  /** Probability of zeroing an attention weight (the rest are scaled by 1 / (1 - p)); 0 by default. */
  readonly dropoutP?: number;
  /** Multiplies q k^T; 1 / sqrt(E) by default. */
  readonly scale?: number;
}

const OP = 'scaledDotProductAttention';

/**
 * q [..., L, E], k [..., S, E], v [..., S, Ev] -> [..., L, Ev] (batch dims broadcast). A query
 * row whose keys are all masked gives NaN, as in torch.
 */
export function scaledDotProductAttention<B extends Backend>(q: Tensor<B, 'float'>, k: Tensor<B, 'float'>, v: Tensor<B, 'float'>, options: AttentionOptions<B> = {}): Tensor<B, 'float'> {
  for (const [name, t] of [['query', q], ['key', k], ['value', v]] as const) {
    const given: unknown = t;
    if (!Array.isArray(field(given, 'shape'))) throw new ArgumentError(`${name} must be a tensor`, { op: OP });
  }
  for (const t of [q, k, v]) {
    if (!isFloat(t.dtype) || t.dtype !== q.dtype) throw new DTypeError('query, key and value must be float tensors of one dtype', { op: OP, dtypes: [q.dtype, k.dtype, v.dtype] });
  }
  if (q.rank < 2 || k.rank < 2 || v.rank < 2) throw new ShapeError('query, key and value need rank >= 2 ([..., L, E], [..., S, E], [..., S, Ev])', { op: OP, shapes: [q.shape, k.shape, v.shape] });
  const [L, E] = q.shape.slice(-2) as [number, number];
  const [S, Ek] = k.shape.slice(-2) as [number, number];
  const Sv = v.shape[v.rank - 2]!;
  if (E !== Ek) throw new ShapeError(`query and key embeddings differ (${E} vs ${Ek})`, { op: OP, shapes: [q.shape, k.shape], hint: 'q [..., L, E] needs k [..., S, E]' });
  if (S !== Sv) throw new ShapeError(`key and value lengths differ (${S} vs ${Sv})`, { op: OP, shapes: [k.shape, v.shape], hint: 'k [..., S, E] needs v [..., S, Ev]' });
  const { attnMask, isCausal = false, dropoutP = 0 } = options;
  if (!(dropoutP >= 0 && dropoutP < 1)) throw new ArgumentError(`dropoutP must be in [0, 1), got ${dropoutP}`, { op: OP });
  if (attnMask && isCausal) throw new ArgumentError('give either attnMask or isCausal, not both', { op: OP, hint: 'fold the causal triangle into the mask with .tril()' });
  const scale = options.scale ?? 1 / Math.sqrt(E);
  if (!Number.isFinite(scale)) throw new ArgumentError(`scale must be finite, got ${scale}`, { op: OP });
  if (attnMask) {
    const batch = broadcastShapes(OP, q.shape.slice(0, -2), k.shape.slice(0, -2));
    const scoreShape = [...batch, L, S];
    const m = attnMask.shape;
    const off = scoreShape.length - m.length;
    if (off < 0 || m.some((d, i) => d !== 1 && d !== scoreShape[off + i])) {
      throw new ShapeError(`the mask must broadcast to the scores' shape [${scoreShape.join(', ')}]`, { op: OP, shapes: [attnMask.shape, scoreShape] });
    }
  }

  const temps: Array<Tensor<B>> = [];
  const keep = <T extends Tensor<B>>(t: T): T => {
    temps.push(t);
    return t;
  };
  const kt = keep(k.transpose());
  let scores = keep(q.matmul(kt)).mul(scale);
  if (isCausal) {
    const above = keep(keep(full(q.backend, [L, S], 1, { device: q.device, dtype: 'bool' })).triu(1));
    scores = keep(scores).maskFill(above, -Infinity);
  } else if (attnMask) {
    const mask: Tensor<B, 'bool'> | Tensor<B, 'float'> = attnMask;
    if (mask.kind === 'bool') {
      const blocked = keep(mask.logicalNot());
      scores = keep(scores).maskFill(blocked, -Infinity);
    } else {
      scores = keep(scores).add(mask);
    }
  }
  let weights = keep(scores).softmax(-1);
  if (dropoutP > 0) {
    const kept = keep(random(q.backend, weights.shape, Distribution.Bernoulli(1 - dropoutP), { device: q.device }));
    weights = keep(keep(weights).mul(kept)).div(1 - dropoutP);
  }
  const out = keep(weights).matmul(v);
  for (const t of temps) t.dispose();
  return out;
}
