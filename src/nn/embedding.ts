/** A lookup table: int indices of any shape -> their rows ([..., dim]). Initialised N(0, 1) as PyTorch. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, DTypeError } from '../errors.js';
import { checkInteger, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { zeros } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkTensors } from './check.js';
import { normal } from './init.js';
import { Module } from './module.js';
import { Param } from './param.js';

export interface EmbeddingOptions {
  device?: Device;
  /**
   * torch's padding_idx: this row starts as zeros and gets no gradient (a padding token's vector
   * stays as it is). Negative counts from the end.
   */
  paddingIdx?: number;
}

export class Embedding<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  /** The padding row (from 0), if any. */
  readonly paddingIdx: number | undefined;

  constructor(backend: B, readonly numEmbeddings: number, readonly dim: number, options: EmbeddingOptions = {}) {
    super();
    checkInteger('Embedding', 'numEmbeddings', numEmbeddings, 0);
    checkInteger('Embedding', 'dim', dim, 0);
    const pad = options.paddingIdx;
    if (pad !== undefined && !(typeof pad === 'number' && Number.isSafeInteger(pad) && pad >= -numEmbeddings && pad < numEmbeddings)) {
      throw new ArgumentError(`paddingIdx must be an integer in [${-numEmbeddings}, ${numEmbeddings}), got ${show(pad)}`, { op: 'Embedding', hint: 'a row of the table, negative from the end' });
    }
    this.paddingIdx = pad === undefined ? undefined : pad < 0 ? pad + numEmbeddings : pad;
    const device = options.device ?? backend.defaultDevice();
    const init = normal(backend, [numEmbeddings, dim], 0, 1, { device });
    if (this.paddingIdx === undefined) this.weight = new Param(init);
    else {
      const row = this.paddingIdx;
      const zeroed = tidy(() => init.sliceAssign([[row, row + 1]], zeros(backend, [1, dim], { device })));
      init.dispose();
      this.weight = new Param(zeroed);
    }
  }

  forward(indices: Tensor<B, 'int'>): Tensor<B, 'float'> {
    checkTensors('Embedding', { indices });
    if (indices.dtype !== 'int32') throw new DTypeError(`the indices must be int32, got ${indices.dtype}`, { op: 'Embedding', dtypes: [indices.dtype], hint: "cast them: indices.cast('int32')" });
    return tidy(() => {
      const flat = indices.reshape([-1]);
      const table = this.weight.value;
      let rows = table.indexSelect(0, flat);
      const pad = this.paddingIdx;
      // The padding row's uses read a copy outside the graph: no gradient reaches that row.
      if (pad !== undefined && table.requiresGrad) rows = rows.where(flat.notEqual(pad).unsqueeze(1), rows.detach());
      return rows.reshape([...indices.shape, this.dim]);
    });
  }
}
