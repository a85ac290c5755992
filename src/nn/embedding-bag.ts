/**
 * torch.nn.EmbeddingBag: a lookup table whose rows are reduced per bag (see
 * functional/embedding-bag.ts). The weight is torch's [num, dim] under the key 'weight',
 * initialised N(0, 1) with the padding row zero, as torch. max_norm is not offered.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError } from '../errors.js';
import { checkInteger, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { zeros } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkLayer } from './check.js';
import { embeddingBag, type EmbeddingBagMode } from './functional/embedding-bag.js';
import { normal } from './init.js';
import { Module } from './module.js';
import { Param } from './param.js';

export interface EmbeddingBagLayerOptions {
  /** Default 'mean'. */
  mode?: EmbeddingBagMode;
  includeLastOffset?: boolean;
  /** This row starts as zeros; its indices are left out of their bags. Negative counts from the end. */
  paddingIdx?: number;
  device?: Device;
}

export class EmbeddingBag<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly paddingIdx: number | undefined;

  constructor(backend: B, readonly numEmbeddings: number, readonly dim: number, readonly options: EmbeddingBagLayerOptions = {}) {
    super();
    const op = 'EmbeddingBag';
    checkLayer(op, backend, options);
    checkInteger(op, 'numEmbeddings', numEmbeddings, 1);
    checkInteger(op, 'dim', dim, 0);
    const pad = options.paddingIdx;
    if (pad !== undefined && !(typeof pad === 'number' && Number.isSafeInteger(pad) && pad >= -numEmbeddings && pad < numEmbeddings)) {
      throw new ArgumentError(`paddingIdx must be an integer in [${-numEmbeddings}, ${numEmbeddings}), got ${show(pad)}`, { op });
    }
    this.paddingIdx = pad === undefined ? undefined : pad < 0 ? pad + numEmbeddings : pad;
    const device = options.device ?? backend.defaultDevice();
    const init = normal(backend, [numEmbeddings, dim], 0, 1, { device });
    const row = this.paddingIdx;
    if (row === undefined) this.weight = new Param(init);
    else {
      this.weight = new Param(tidy(() => init.sliceAssign([[row, row + 1]], zeros(backend, [1, dim], { device }))));
      init.dispose();
    }
  }

  /** indices [n] with offsets, or [bags, L] -> [bags, dim]; perSampleWeights with mode 'sum' only. */
  forward(indices: Tensor<B, 'int'>, offsets?: Tensor<B, 'int'>, perSampleWeights?: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return embeddingBag(indices, this.weight.value, {
      offsets,
      perSampleWeights,
      mode: this.options.mode ?? 'mean',
      includeLastOffset: this.options.includeLastOffset ?? false,
      ...(this.paddingIdx === undefined ? {} : { paddingIdx: this.paddingIdx }),
    });
  }
}
