/** Inverted dropout: while training, zeroes each element with probability p and scales the rest by 1 / (1 - p). */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import type { Tensor } from '../tensor/tensor.js';
import { dropout } from './functional/dropout.js';
import { Module } from './module.js';

export class Dropout<B extends Backend = Backend> extends Module<B> {
  constructor(readonly p: number) {
    super();
    if (!(p >= 0 && p < 1)) throw new ArgumentError(`dropout probability must be in [0, 1), got ${p}`, { op: 'Dropout' });
  }

  /** In eval mode (or with p = 0) the input itself. */
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return dropout(x, this.p, this.training);
  }
}
