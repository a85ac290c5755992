/** Pooling layers (torch.nn.MaxPool1d / MaxPool2d / AvgPool1d / AvgPool2d and the adaptive ones): no parameters. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Pair } from './functional/args.js';
import { adaptiveAvgPool1d, adaptiveMaxPool1d, adaptiveMaxPool2d, type AdaptiveSize2d } from './functional/adaptive-pool.js';
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

/** Any length to `outputSize` (torch.nn.AdaptiveAvgPool1d). */
export class AdaptiveAvgPool1d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly outputSize: number) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return adaptiveAvgPool1d(x, this.outputSize);
  }
}

/** Any spatial size to `outputSize` (null keeps that dim), the maximum of each window (torch.nn.AdaptiveMaxPool2d). */
export class AdaptiveMaxPool2d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly outputSize: AdaptiveSize2d) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return adaptiveMaxPool2d(x, this.outputSize);
  }
}

/** Any length to `outputSize`, the maximum of each window (torch.nn.AdaptiveMaxPool1d). */
export class AdaptiveMaxPool1d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly outputSize: number) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return adaptiveMaxPool1d(x, this.outputSize);
  }
}
