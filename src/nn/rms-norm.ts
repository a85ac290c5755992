/** Root-mean-square normalisation (torch.nn.RMSNorm): x / sqrt(mean(x^2) + eps) over the last dims, times a learned scale (ones). */
import { checkInteger } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ones } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { rmsNorm } from './functional/normalization.js';
import { checkEps, checkLayer } from './check.js';
import { Module } from './module.js';
import { Param } from './param.js';

export class RMSNorm<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B> | undefined;
  readonly normalizedShape: readonly number[];

  /** `eps` defaults to the input dtype's machine epsilon (PyTorch's eps=None): 2^-23 for float32, 2^-10 for float16. */
  constructor(backend: B, normalizedShape: number | readonly number[], readonly options: { eps?: number; elementwiseAffine?: boolean; device?: Device } = {}) {
    super();
    checkLayer('RMSNorm', backend, options);
    const shape: unknown = normalizedShape;
    const dims: readonly unknown[] = typeof shape === 'number' ? [shape] : Array.isArray(shape) ? shape : [undefined];
    this.normalizedShape = dims.map((d) => checkInteger('RMSNorm', 'normalizedShape', d, 1));
    if (options.eps !== undefined) checkEps('RMSNorm', options.eps);
    if (options.elementwiseAffine !== false) this.weight = new Param(ones(backend, this.normalizedShape, { device: options.device ?? backend.defaultDevice() }));
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return rmsNorm(x, this.normalizedShape, { weight: this.weight?.value, ...(this.options.eps === undefined ? {} : { eps: this.options.eps }) });
  }
}
