/** 3-D pooling layers (torch.nn.MaxPool3d / AvgPool3d / AdaptiveAvgPool3d / AdaptiveMaxPool3d): no parameters. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Triple } from './functional/args3d.js';
import { adaptiveAvgPool3d, adaptiveMaxPool3d, avgPool3d, maxPool3d, type AdaptiveSize3d, type AvgPool3dOptions, type MaxPool3dOptions } from './functional/pool3d.js';
import { Module } from './module.js';

export class MaxPool3d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: Triple, readonly options: MaxPool3dOptions = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return maxPool3d(x, this.kernelSize, this.options);
  }
}

export class AvgPool3d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: Triple, readonly options: AvgPool3dOptions = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return avgPool3d(x, this.kernelSize, this.options);
  }
}

/** Any volume to `outputSize` (null keeps that dim), the mean of each window (torch.nn.AdaptiveAvgPool3d). */
export class AdaptiveAvgPool3d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly outputSize: AdaptiveSize3d) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return adaptiveAvgPool3d(x, this.outputSize);
  }
}

/** Any volume to `outputSize` (null keeps that dim), the maximum of each window (torch.nn.AdaptiveMaxPool3d). */
export class AdaptiveMaxPool3d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly outputSize: AdaptiveSize3d) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return adaptiveMaxPool3d(x, this.outputSize);
  }
}
