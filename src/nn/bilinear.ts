/**
 * torch.nn.Bilinear: y = x1^T W x2 + b per output feature. The weight is kept in torch's layout
 * [out, in1, in2] (no transpose on load or save); initialised as torch: U(-1/sqrt(in1), 1/sqrt(in1))
 * for the weight and the bias.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { checkInteger } from '../ir/validate.js';
import type { Tensor } from '../tensor/tensor.js';
import { zeros } from '../tensor/creation.js';
import { checkLayer } from './check.js';
import { bilinear } from './functional/bilinear.js';
import { uniform } from './init.js';
import { Module } from './module.js';
import { Param } from './param.js';

export interface BilinearOptions {
  /** Default true. */
  bias?: boolean;
  device?: Device;
}

export class Bilinear<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;

  constructor(backend: B, readonly in1Features: number, readonly in2Features: number, readonly outFeatures: number, options: BilinearOptions = {}) {
    super();
    const op = 'Bilinear';
    checkLayer(op, backend, options);
    checkInteger(op, 'in1Features', in1Features, 1);
    checkInteger(op, 'in2Features', in2Features, 1);
    checkInteger(op, 'outFeatures', outFeatures, 0);
    const device = options.device ?? backend.defaultDevice();
    const bound = 1 / Math.sqrt(in1Features);
    const draw = (shape: number[]): Tensor<B, 'float'> => (shape.includes(0) ? zeros(backend, shape, { device }) : uniform(backend, shape, -bound, bound, { device }));
    this.weight = new Param(draw([outFeatures, in1Features, in2Features]));
    this.bias = options.bias === false ? undefined : new Param(draw([outFeatures]));
  }

  /** [..., in1], [..., in2] -> [..., out]. */
  forward(x1: Tensor<B, 'float'>, x2: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return bilinear(x1, x2, this.weight.value, this.bias?.value);
  }
}
