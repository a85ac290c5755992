/** Activations as modules, for Sequential. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { Module } from './module.js';

export class Relu<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return x.relu();
  }
}

/** The exact (erf) GELU, as PyTorch's default. */
export class Gelu<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return x.gelu();
  }
}
