/** Flattens dims startDim..endDim into one (torch.nn.Flatten: by default all but the batch dim). */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { Module } from './module.js';

export class Flatten<B extends Backend = Backend> extends Module<B> {
  constructor(readonly startDim = 1, readonly endDim = -1) {
    super();
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return x.flatten(this.startDim, this.endDim);
  }
}
