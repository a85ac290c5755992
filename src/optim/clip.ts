/**
 * Gradient clipping (torch.nn.utils.clip_grad_norm_ and clip_grad_value_), without a sync with
 * the device: the factor is a tensor, so a step that clips never waits for a read.
 */
import { checkNumber, field, show } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import { noGrad } from '../autodiff/grad-mode.js';
import type { Backend } from '../backends/backend.js';
import { tidy } from '../memory/tidy.js';
import { zeros } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import type { ParamGrads } from './param-grads.js';

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

export interface ClipGradNormOptions {
  /** The p of the p-norm (default 2); `Infinity` for the largest absolute value. */
  normType?: number;
}

function checkGrads(op: string, grads: unknown): void {
  if (typeof field(grads, 'entries') !== 'function') {
    throw new ArgumentError(`${op} takes ParamGrads (ParamGrads.from(loss.backward(), model)), got ${show(grads)}`, { op });
  }
}

/**
 * Scales every gradient by min(1, maxNorm / (norm + 1e-6)), where norm is the p-norm of all of
 * them together (each gradient's norm, then the norm of those, as torch); returns that norm as a
 * rank-0 tensor on the first gradient's device. A non-finite norm makes the gradients NaN, as
 * in torch; read the returned norm to detect it (torch's error_if_nonfinite reads it too).
 */
export function clipGradNorm<B extends Backend>(grads: ParamGrads<B>, maxNorm: number, options: ClipGradNormOptions = {}): Tensor<B, 'float'> | undefined {
  checkGrads('clipGradNorm', grads);
  if (checkNumber('clipGradNorm', 'maxNorm', maxNorm, true) < 0) throw new ArgumentError(`maxNorm must be >= 0, got ${maxNorm}`, { op: 'clipGradNorm' });
  const p = field(options, 'normType') ?? 2;
  if (typeof p !== 'number' || !(p > 0)) throw new ArgumentError(`normType must be a number > 0 or Infinity, got ${show(p)}`, { op: 'clipGradNorm' });
  const entries = grads.entries();
  const first = entries[0]?.[1];
  if (!first) return undefined;
  return noGrad(() => {
    const norm = tidy(() => {
      const on = (t: Tensor<B, 'float'>): Tensor<B, 'float'> => t.toDevice(first.device as DeviceOf<B>);
      let total: Tensor<B, 'float'> = zeros(first.backend, [], { device: first.device });
      if (p === Infinity) {
        for (const [, g] of entries) if (g.size > 0) total = total.maximum(on(g.abs().max()));
        return total;
      }
      // Sums of |g|^p, then the p-th root once: the norm of the per-gradient norms.
      for (const [, g] of entries) total = total.add(on(p === 2 ? g.square().sum() : p === 1 ? g.abs().sum() : g.abs().pow(p).sum()));
      return p === 2 ? total.sqrt() : p === 1 ? total : total.pow(1 / p);
    });
    const scale = tidy(() => norm.add(1e-6).recip().mul(maxNorm).clampMax(1));
    for (const [id, g] of entries) {
      grads.set(id, tidy(() => g.mul(scale.toDevice(g.device as DeviceOf<B>))));
    }
    scale.dispose();
    return norm;
  });
}

/** Clamps every gradient to [-clipValue, clipValue], in place in `grads` (torch's clip_grad_value_). */
export function clipGradValue<B extends Backend>(grads: ParamGrads<B>, clipValue: number): void {
  checkGrads('clipGradValue', grads);
  if (checkNumber('clipGradValue', 'clipValue', clipValue, true) < 0) throw new ArgumentError(`clipValue must be >= 0, got ${clipValue}`, { op: 'clipGradValue' });
  noGrad(() => {
    for (const [id, g] of grads.entries()) grads.set(id, tidy(() => g.clamp(-clipValue, clipValue)));
  });
}
