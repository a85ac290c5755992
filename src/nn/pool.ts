/** Pooling layers (torch.nn.MaxPool1d / MaxPool2d / AvgPool1d / AvgPool2d / AdaptiveAvgPool2d): no parameters. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Pair } from './functional/args.js';
import { adaptiveAvgPool2d, avgPool1d, avgPool2d, maxPool1d, maxPool2d, type AvgPool2dOptions, type MaxPool2dOptions, type Pool1dOptions } from './functional/pool.js';
import { Module } from './module.js';

export class MaxPool2d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: Pair, readonly options: MaxPool2dOptions = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return maxPool2d(x, this.kernelSize, this.options);
  }
}

export class AvgPool2d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: Pair, readonly options: AvgPool2dOptions = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return avgPool2d(x, this.kernelSize, this.options);
  }
}

export class MaxPool1d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: number, readonly options: Pool1dOptions & { dilation?: number } = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return maxPool1d(x, this.kernelSize, this.options);
  }
}

export class AvgPool1d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: number, readonly options: Pool1dOptions & { countIncludePad?: boolean } = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return avgPool1d(x, this.kernelSize, this.options);
  }
}

/** Any spatial size to `outputSize` (null keeps that dim). */
export class AdaptiveAvgPool2d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly outputSize: number | readonly [number | null, number | null]) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return adaptiveAvgPool2d(x, this.outputSize);
  }
}
