/** Distance layers (torch.nn.CosineSimilarity, PairwiseDistance): no parameters. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { cosineSimilarity, pairwiseDistance, type CosineSimilarityOptions, type PairwiseDistanceOptions } from './functional/distance.js';
import { Module } from './module.js';

/** torch.nn.CosineSimilarity (dim 1, eps 1e-8 by default). */
export class CosineSimilarity<B extends Backend = Backend> extends Module<B> {
  constructor(readonly options: CosineSimilarityOptions = {}) {
    super();
  }
  forward(a: Tensor<B, 'float'>, b: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return cosineSimilarity(a, b, this.options);
  }
}

/** torch.nn.PairwiseDistance (p 2, eps 1e-6 by default). */
export class PairwiseDistance<B extends Backend = Backend> extends Module<B> {
  constructor(readonly options: PairwiseDistanceOptions = {}) {
    super();
  }
  forward(a: Tensor<B, 'float'>, b: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return pairwiseDistance(a, b, this.options);
  }
}
