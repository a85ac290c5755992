/**
 * torch.nn.functional.local_response_norm: x / (k + alpha / size * sum of x^2 over a window of
 * `size` channels)^beta. As torch, the window is padded with zeros (size / 2 channels before,
 * (size - 1) / 2 after, rounded down) and averaged with the padding counted, so the edge channels
 * divide by `size` too. Composed of a pad and an average pool over the channels.
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { checkInteger, checkOptions, show } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';
import { checkFloat } from './args.js';
import { avgPool2d } from './pool.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface LocalResponseNormOptions {
  /** Default 1e-4. */
  alpha?: number;
  /** Default 0.75. */
  beta?: number;
  /** Default 1. */
  k?: number;
}

/** x [N, C, ...] (rank 3 or more), normalised across channels in windows of `size`. */
export function localResponseNorm<B extends Backend>(x: F<B>, size: number, options: LocalResponseNormOptions = {}): F<B> {
  const op = 'localResponseNorm';
  checkTensors(op, { input: x });
  checkOptions(op, options);
  checkFloat(op, x);
  checkInteger(op, 'size', size, 1);
  const [alpha, beta, k] = (['alpha', 'beta', 'k'] as const).map((name, i) => {
    const v = options[name] ?? [1e-4, 0.75, 1][i]!;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ArgumentError(`${name} must be a finite number, got ${show(v)}`, { op });
    return v;
  }) as [number, number, number];
  if (x.rank < 3) throw new ShapeError(`the input must be [N, C, ...] (rank 3 or more), got rank ${x.rank}`, { op, shapes: [x.shape] });
  const [n, c] = x.shape as [number, number];
  const rest = x.shape.slice(2).reduce((a, v) => a * v, 1);
  return tidy(() => {
    // [N, 1, C + size - 1, rest]: the channel windows as the rows of a 2-D pool of kernel [size, 1].
    const sq = x.square().reshape([n, 1, c, rest]).pad([0, 0, Math.floor(size / 2), Math.floor((size - 1) / 2)]);
    const mean = avgPool2d(sq, [size, 1], { stride: 1 }).reshape(x.shape);
    return x.div(mean.mul(alpha).add(k).pow(beta));
  });
}
