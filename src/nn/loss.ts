/** Losses, written with tensor ops (so autodiff differentiates them like any other graph). */
import type { Backend } from '../backends/backend.js';
import { ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import type { Tensor } from '../tensor/tensor.js';

/** Mean cross-entropy of logits [N, C] against class indices [N] (PyTorch's cross_entropy). */
export function crossEntropy<B extends Backend>(logits: Tensor<B, 'float'>, targets: Tensor<B, 'int'>): Tensor<B, 'float'> {
  if (logits.rank !== 2 || targets.rank !== 1 || targets.shape[0] !== logits.shape[0]) {
    throw new ShapeError('crossEntropy takes logits [N, C] and targets [N]', { op: 'crossEntropy', shapes: [logits.shape, targets.shape] });
  }
  return tidy(() => logits.logSoftmax(1).gather(1, targets.unsqueeze(1)).mean().neg());
}

/** Mean squared error. */
export function mseLoss<B extends Backend>(prediction: Tensor<B, 'float'>, target: Tensor<B, 'float'>): Tensor<B, 'float'> {
  return tidy(() => prediction.sub(target).square().mean());
}
