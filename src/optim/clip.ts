/** Gradient clipping by global norm (torch.nn.utils.clip_grad_norm_), without a sync with the device. */
import { field } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import { noGrad } from '../autodiff/grad-mode.js';
import type { Backend } from '../backends/backend.js';
import { tidy } from '../memory/tidy.js';
import { zeros } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import type { ParamGrads } from './param-grads.js';

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

/**
 * Scales every gradient by min(1, maxNorm / (norm + 1e-6)), where norm is the L2 norm of all of
 * them together; returns that norm as a rank-0 tensor (on the first gradient's device).
 */
export function clipGradNorm<B extends Backend>(grads: ParamGrads<B>, maxNorm: number): Tensor<B, 'float'> | undefined {
  const given: unknown = grads;
  if (typeof field(given, 'entries') !== 'function') {
    throw new ArgumentError('clipGradNorm takes ParamGrads (ParamGrads.from(loss.backward(), model))', { op: 'clipGradNorm' });
  }
  const entries = grads.entries();
  const first = entries[0]?.[1];
  if (!first) return undefined;
  return noGrad(() => {
    const norm = tidy(() => {
      let total: Tensor<B, 'float'> = zeros(first.backend, [], { device: first.device });
      for (const [, g] of entries) total = total.add(g.square().sum().toDevice(first.device as DeviceOf<B>));
      return total.sqrt();
    });
    const scale = tidy(() => norm.add(1e-6).recip().mul(maxNorm).clampMax(1));
    for (const [id, g] of entries) {
      grads.set(id, tidy(() => g.mul(scale.toDevice(g.device as DeviceOf<B>))));
    }
    scale.dispose();
    return norm;
  });
}
