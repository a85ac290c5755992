/** A lookup table: int indices of any shape -> their rows ([..., dim]). Initialised N(0, 1) as PyTorch. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { Tensor } from '../tensor/tensor.js';
import { normal } from './init.js';
import { Module } from './module.js';
import { Param } from './param.js';

export class Embedding<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;

  constructor(backend: B, readonly numEmbeddings: number, readonly dim: number, options: { device?: Device } = {}) {
    super();
    this.weight = new Param(normal(backend, [numEmbeddings, dim], 0, 1, { device: options.device ?? backend.defaultDevice() }));
  }

  forward(indices: Tensor<B, 'int'>): Tensor<B, 'float'> {
    const flat = indices.reshape([-1]);
    const rows = this.weight.value.indexSelect(0, flat);
    const out = rows.reshape([...indices.shape, this.dim]);
    flat.dispose();
    rows.dispose();
    return out;
  }
}
