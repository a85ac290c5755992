/** Inverted dropout: while training, zeroes each element with probability p and scales the rest by 1 / (1 - p). */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkDropout, dropout } from './functional/dropout.js';
import { Module } from './module.js';

export class Dropout<B extends Backend = Backend> extends Module<B> {
  /** `p` in [0, 1]; 1 zeroes everything while training (torch allows it). */
  constructor(readonly p: number) {
    super();
    checkDropout('Dropout', p);
  }

  /** In eval mode (or with p = 0) the input itself. */
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return dropout(x, this.p, this.training);
  }
}
