/** Group normalisation (torch.nn.GroupNorm): [N, C, ...] normalised per group of C / groups channels, with a per-channel scale and shift. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { checkInteger } from '../ir/validate.js';
import { checkEps, checkLayer, checkTensors } from './check.js';
import { ones, zeros } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { groupNorm } from './functional/normalization.js';
import { Module } from './module.js';
import { Param } from './param.js';

export class GroupNorm<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B> | undefined;
  readonly bias: Param<B> | undefined;

  constructor(backend: B, readonly numGroups: number, readonly numChannels: number, readonly options: { eps?: number; affine?: boolean; device?: Device } = {}) {
    super();
    checkLayer('GroupNorm', backend, options);
    checkInteger('GroupNorm', 'numGroups', numGroups, 1);
    checkInteger('GroupNorm', 'numChannels', numChannels, 1);
    if (numChannels % numGroups !== 0) throw new ArgumentError(`numGroups ${numGroups} must divide numChannels ${numChannels}`, { op: 'GroupNorm' });
    if (options.eps !== undefined) checkEps('GroupNorm', options.eps);
    const device = options.device ?? backend.defaultDevice();
    if (options.affine !== false) {
      this.weight = new Param(ones(backend, [numChannels], { device }));
      this.bias = new Param(zeros(backend, [numChannels], { device }));
    }
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors('GroupNorm', { input: x });
    if (x.rank < 2 || x.shape[1] !== this.numChannels) {
      throw new ShapeError(`expects [N, ${this.numChannels}, ...] (numChannels on dim 1)`, { op: 'GroupNorm', shapes: [x.shape] });
    }
    return groupNorm(x, this.numGroups, { weight: this.weight?.value, bias: this.bias?.value, eps: this.options.eps ?? 1e-5 });
  }
}
