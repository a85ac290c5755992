/** Scaled dot-product attention (torch.nn.functional.scaled_dot_product_attention), written with matmul and softmax. */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { tidy } from '../../memory/tidy.js';
import { fromData } from '../../tensor/creation.js';
import type { Tensor } from '../../tensor/tensor.js';
import { dropout } from './dropout.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface AttentionOptions<B extends Backend> {
  /**
   * A bool mask where true means "may attend" (PyTorch's convention for this function), or a
   * float mask added to the scores; broadcast to [..., L, S].
   */
  attnMask?: Tensor<B, 'bool'> | F<B> | undefined;
  /** Dropout on the attention weights (default 0). */
  dropoutP?: number;
  /** Each query i attends to keys j <= i only (the mask aligned top-left, as PyTorch). */
  isCausal?: boolean;
  /** Default 1 / sqrt(D). */
  scale?: number;
}

/** [L, S]: true where query i may attend key j (j <= i). */
export function causalMask<B extends Backend>(backend: B, l: number, s: number, device: ReturnType<B['defaultDevice']>): Tensor<B, 'bool'> {
  const m = new Uint8Array(l * s);
  for (let i = 0; i < l; i++) for (let j = 0; j <= Math.min(i, s - 1); j++) m[i * s + j] = 1;
  return fromData(backend, m, { shape: [l, s], device });
}

/** The attention weights softmax(q kᵀ scale + mask) for q [..., L, D], k [..., S, D]. */
export function attentionWeights<B extends Backend>(q: F<B>, k: F<B>, options: AttentionOptions<B> = {}): F<B> {
  const op = 'scaledDotProductAttention';
  if (q.rank < 2 || k.rank < 2 || q.shape[q.rank - 1] !== k.shape[k.rank - 1]) {
    throw new ShapeError('query and key must be [..., L, D] and [..., S, D] with one D', { op, shapes: [q.shape, k.shape] });
  }
  const l = q.shape[q.rank - 2]!;
  const s = k.shape[k.rank - 2]!;
  const mask = options.attnMask;
  if (mask && options.isCausal) throw new ArgumentError('give either attnMask or isCausal, not both', { op });
  const scale = options.scale ?? 1 / Math.sqrt(q.shape[q.rank - 1]!);
  return tidy(() => {
    let scores = q.matmul(k.transpose()).mul(scale);
    const allowed = options.isCausal ? causalMask(q.backend, l, s, q.device as ReturnType<B['defaultDevice']>) : mask?.dtype === 'bool' ? (mask as Tensor<B, 'bool'>) : undefined;
    if (allowed) scores = scores.where(allowed, -Infinity);
    else if (mask) scores = scores.add(mask as F<B>);
    return dropout(scores.softmax(-1), options.dropoutP ?? 0);
  });
}

/** softmax(q kᵀ / sqrt(D) + mask) v for q [..., L, D], k [..., S, D], v [..., S, Dv] -> [..., L, Dv]. */
export function scaledDotProductAttention<B extends Backend>(q: F<B>, k: F<B>, v: F<B>, options: AttentionOptions<B> = {}): F<B> {
  if (v.rank < 2 || v.shape[v.rank - 2] !== k.shape[k.rank - 2]) {
    throw new ShapeError('value must be [..., S, Dv] with the key\'s S', { op: 'scaledDotProductAttention', shapes: [q.shape, k.shape, v.shape] });
  }
  return tidy(() => attentionWeights(q, k, options).matmul(v));
}
