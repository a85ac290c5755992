/**
 * Dropout layers: while training, Dropout zeroes elements, Dropout1d / 2d / 3d whole channels (with
 * the rest scaled by 1 / (1 - p)); AlphaDropout / FeatureAlphaDropout do the same SELU-preserving
 * (see functional/dropout.ts). In eval mode each is the identity.
 */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { alphaDropout, checkDropout, dropout, dropout1d, dropout2d, dropout3d, featureAlphaDropout } from './functional/dropout.js';
import { Module } from './module.js';

/** The functional form of a dropout layer. */
type DropFn = <B extends Backend>(x: Tensor<B, 'float'>, p: number, training: boolean) => Tensor<B, 'float'>;

/** A dropout layer of probability p; `drop` is its function. */
export abstract class DropoutLayer<B extends Backend> extends Module<B> {
  /** `p` in [0, 1]; 1 zeroes everything while training (torch allows it). */
  constructor(
    readonly p: number,
    op: string,
    private readonly drop: DropFn,
  ) {
    super();
    checkDropout(op, p);
  }

  /** In eval mode (or with p = 0) the input itself. */
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.drop(x, this.p, this.training);
  }
}

export class Dropout<B extends Backend = Backend> extends DropoutLayer<B> {
  constructor(p = 0.5) {
    super(p, 'Dropout', dropout);
  }
}

/** torch.nn.Dropout1d: [N, C, L] or [C, L]. */
export class Dropout1d<B extends Backend = Backend> extends DropoutLayer<B> {
  constructor(p = 0.5) {
    super(p, 'Dropout1d', dropout1d);
  }
}

/** torch.nn.Dropout2d: [N, C, H, W] or [C, H, W] (read as unbatched; torch reads rank 3 as [N, C, L]). */
export class Dropout2d<B extends Backend = Backend> extends DropoutLayer<B> {
  constructor(p = 0.5) {
    super(p, 'Dropout2d', dropout2d);
  }
}

/** torch.nn.Dropout3d: [N, C, D, H, W] or [C, D, H, W]. */
export class Dropout3d<B extends Backend = Backend> extends DropoutLayer<B> {
  constructor(p = 0.5) {
    super(p, 'Dropout3d', dropout3d);
  }
}

/** torch.nn.AlphaDropout: element-wise, for SELU networks. */
export class AlphaDropout<B extends Backend = Backend> extends DropoutLayer<B> {
  constructor(p = 0.5) {
    super(p, 'AlphaDropout', alphaDropout);
  }
}

/** torch.nn.FeatureAlphaDropout: one draw per entry of dims 0 and 1 ([N, C, *]). */
export class FeatureAlphaDropout<B extends Backend = Backend> extends DropoutLayer<B> {
  constructor(p = 0.5) {
    super(p, 'FeatureAlphaDropout', featureAlphaDropout);
  }
}
