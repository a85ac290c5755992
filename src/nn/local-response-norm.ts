/** torch.nn.LocalResponseNorm: no parameters; see functional/local-response-norm.ts for the formula. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { localResponseNorm, type LocalResponseNormOptions } from './functional/local-response-norm.js';
import { Module } from './module.js';

export class LocalResponseNorm<B extends Backend = Backend> extends Module<B> {
  constructor(readonly size: number, readonly options: LocalResponseNormOptions = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return localResponseNorm(x, this.size, this.options);
  }
}
