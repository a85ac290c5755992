/** Scaled dot-product attention (torch.nn.functional.scaled_dot_product_attention), written with matmul and softmax. */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../errors.js';
import { tidy } from '../../memory/tidy.js';
import { fromData } from '../../tensor/creation.js';
import { Tensor } from '../../tensor/tensor.js';
import { isFloat } from '../../ir/dtype.js';
import { broadcastShapes } from '../../ir/shape.js';
import { checkOptions, field, show } from '../../ir/validate.js';
import { checkOptionalTensors, checkTensors } from '../check.js';
import { checkFloat } from './args.js';
import { checkDropout, dropout } from './dropout.js';

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

/** The tensors and options, for untyped callers: tensors, a bool or float mask, a finite scale > 0, dropoutP in [0, 1]. */
function checkArgs(op: string, tensors: Readonly<Record<string, unknown>>, options: unknown): void {
  checkTensors(op, tensors);
  checkOptions(op, options);
  const mask = field(options, 'attnMask');
  checkOptionalTensors(op, { attnMask: mask });
  if (mask instanceof Tensor && mask.dtype !== 'bool' && !isFloat(mask.dtype)) {
    throw new DTypeError(`attnMask must be bool (true: may attend) or float (added to the scores), got ${mask.dtype}`, { op, dtypes: [mask.dtype] });
  }
  const scale = field(options, 'scale');
  if (scale !== undefined && !(typeof scale === 'number' && Number.isFinite(scale) && scale > 0)) {
    throw new ArgumentError(`scale must be a finite number > 0 or undefined (1 / sqrt(D)), got ${show(scale)}`, { op });
  }
  const p = field(options, 'dropoutP');
  if (p !== undefined) checkDropout(op, p, 'dropoutP');
}

/** The attention weights softmax(q kᵀ scale + mask) for q [..., L, D], k [..., S, D]. */
export function attentionWeights<B extends Backend>(q: F<B>, k: F<B>, options: AttentionOptions<B> = {}): F<B> {
  const op = 'scaledDotProductAttention';
  checkArgs(op, { query: q, key: k }, options);
  checkFloat(op, q, k);
  if (q.rank < 2 || k.rank < 2 || q.shape[q.rank - 1] !== k.shape[k.rank - 1]) {
    throw new ShapeError('query and key must be [..., L, D] and [..., S, D] with one D', { op, shapes: [q.shape, k.shape] });
  }
  const l = q.shape[q.rank - 2]!;
  const s = k.shape[k.rank - 2]!;
  const mask = options.attnMask;
  if (mask && options.isCausal) throw new ArgumentError('give either attnMask or isCausal, not both', { op });
  const scale = options.scale ?? 1 / Math.sqrt(q.shape[q.rank - 1]!);
  if (mask) {
    const scores = [...broadcastShapes(op, q.shape.slice(0, -2), k.shape.slice(0, -2)), l, s];
    const off = scores.length - mask.rank;
    if (off < 0 || mask.shape.some((d, i) => d !== 1 && d !== scores[off + i])) {
      throw new ShapeError(`attnMask must broadcast to the scores' shape [${scores.join(', ')}]`, { op, shapes: [q.shape, k.shape, mask.shape] });
    }
  }
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
  checkArgs('scaledDotProductAttention', { query: q, key: k, value: v }, options);
  checkFloat('scaledDotProductAttention', v);
  if (v.rank < 2 || v.shape[v.rank - 2] !== k.shape[k.rank - 2]) {
    throw new ShapeError('value must be [..., S, Dv] with the key\'s S', { op: 'scaledDotProductAttention', shapes: [q.shape, k.shape, v.shape] });
  }
  return tidy(() => attentionWeights(q, k, options).matmul(v));
}
