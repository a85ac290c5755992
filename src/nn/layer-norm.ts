/** Layer normalisation over the last dim, with a learned scale (ones) and shift (zeros), as PyTorch. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { tidy } from '../memory/tidy.js';
import { ones, zeros } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { checkInteger, show } from '../ir/validate.js';
import { checkEps, checkLayer } from './check.js';
import { Module, type TorchKey } from './module.js';
import { Param } from './param.js';

export class LayerNorm<B extends Backend = Backend> extends Module<B> {
  readonly gamma: Param<B>;
  readonly beta: Param<B>;

  constructor(backend: B, readonly dim: number, readonly eps = 1e-5, options: { device?: Device } = {}) {
    super();
    checkLayer('LayerNorm', backend, options);
    checkInteger('LayerNorm', 'dim', dim, 1);
    checkEps('LayerNorm', eps);
    const device = options.device ?? backend.defaultDevice();
    this.gamma = new Param(ones(backend, [dim], { device }));
    this.beta = new Param(zeros(backend, [dim], { device }));
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { gamma: { key: 'weight' }, beta: { key: 'bias' } };
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    // The last dim must be the one normalised (broadcasting would otherwise hide a wrong size).
    if (!(x instanceof Tensor)) throw new ArgumentError(`the input must be a tensor, got ${show(x)}`, { op: 'LayerNorm' });
    if (x.rank === 0 || x.shape[x.rank - 1] !== this.dim) {
      throw new ShapeError(`the input's last dim must be ${this.dim} (the normalized shape)`, { op: 'LayerNorm', shapes: [x.shape, [this.dim]] });
    }
    return tidy(() => {
      const centred = x.sub(x.mean(-1, true));
      // The biased variance, as PyTorch's layer_norm.
      const variance = centred.square().mean(-1, true);
      return centred.mul(variance.add(this.eps).rsqrt()).mul(this.gamma.value).add(this.beta.value);
    });
  }
}
