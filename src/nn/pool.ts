/** Pooling layers (torch.nn.MaxPool1d / MaxPool2d / AvgPool1d / AvgPool2d and the adaptive ones): no parameters. */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { checkOptions, field, show } from '../ir/validate.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Pair } from './functional/args.js';
import { adaptiveAvgPool1d, adaptiveMaxPool1d, adaptiveMaxPool2d, type AdaptiveSize2d } from './functional/adaptive-pool.js';
import { adaptiveAvgPool2d, avgPool1d, avgPool2d, lpPool1d, lpPool2d, maxPool1d, maxPool2d, type AvgPool2dOptions, type LpPool2dOptions, type MaxPool2dOptions, type Pool1dOptions, type PoolWithIndices } from './functional/pool.js';
import { maxUnpool1d, maxUnpool2d, type MaxUnpool1dOptions, type MaxUnpool2dOptions } from './functional/unpool.js';
import { Module } from './module.js';

/**
 * torch's return_indices is no option of a module: forward is typed to give a tensor (an untyped
 * `{ returnIndices: true }` would make it give an object); forwardWithIndices gives both.
 */
function checkNoReturnIndices(op: string, options: unknown): void {
  checkOptions(op, options);
  const v = field(options, 'returnIndices');
  if (v !== undefined && v !== false) {
    throw new ArgumentError(`returnIndices is not an option of the module (forward returns the values), got ${show(v)}`, { op, hint: 'call forwardWithIndices(x) for { values, indices }, what MaxUnpool takes (torch\'s return_indices=True)' });
  }
}

export class MaxPool2d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: Pair, readonly options: MaxPool2dOptions = {}) {
    super();
    checkNoReturnIndices('MaxPool2d', options);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return maxPool2d(x, this.kernelSize, { ...this.options, returnIndices: false });
  }
  /** torch's MaxPool2d(return_indices=True): the values and each maximum's flat index in its input plane (int32), for MaxUnpool2d. */
  forwardWithIndices(x: Tensor<B, 'float'>): PoolWithIndices<B> {
    return maxPool2d(x, this.kernelSize, { ...this.options, returnIndices: true });
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
    checkNoReturnIndices('MaxPool1d', options);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return maxPool1d(x, this.kernelSize, { ...this.options, returnIndices: false });
  }
  /** torch's MaxPool1d(return_indices=True): the values and each maximum's position in its row (int32), for MaxUnpool1d. */
  forwardWithIndices(x: Tensor<B, 'float'>): PoolWithIndices<B> {
    return maxPool1d(x, this.kernelSize, { ...this.options, returnIndices: true });
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

/** Power-average pooling (torch.nn.LPPool2d): (sum of x^p over each window)^(1/p). */
export class LPPool2d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly normType: number, readonly kernelSize: Pair, readonly options: LpPool2dOptions = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return lpPool2d(x, this.normType, this.kernelSize, this.options);
  }
}

/** Power-average pooling over a length (torch.nn.LPPool1d). */
export class LPPool1d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly normType: number, readonly kernelSize: number, readonly options: Omit<Pool1dOptions, 'padding'> = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return lpPool1d(x, this.normType, this.kernelSize, this.options);
  }
}

/** The inverse of MaxPool2d with returnIndices (torch.nn.MaxUnpool2d): zeros but at the maxima. */
export class MaxUnpool2d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: Pair, readonly options: Omit<MaxUnpool2dOptions, 'outputSize'> = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>, indices: Tensor<B, 'int'>, outputSize?: readonly number[]): Tensor<B, 'float'> {
    return maxUnpool2d(x, indices, this.kernelSize, { ...this.options, ...(outputSize === undefined ? {} : { outputSize }) });
  }
}

/** The inverse of MaxPool1d with returnIndices (torch.nn.MaxUnpool1d). */
export class MaxUnpool1d<B extends Backend = Backend> extends Module<B> {
  constructor(readonly kernelSize: number, readonly options: Omit<MaxUnpool1dOptions, 'outputSize'> = {}) {
    super();
  }
  forward(x: Tensor<B, 'float'>, indices: Tensor<B, 'int'>, outputSize?: number | readonly number[]): Tensor<B, 'float'> {
    return maxUnpool1d(x, indices, this.kernelSize, { ...this.options, ...(outputSize === undefined ? {} : { outputSize }) });
  }
}
