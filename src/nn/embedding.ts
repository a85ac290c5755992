/** A lookup table: int indices of any shape -> their rows ([..., dim]). Initialised N(0, 1) as PyTorch. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, DTypeError } from '../errors.js';
import { checkInteger, show } from '../ir/validate.js';
import { noGrad } from '../autodiff/grad-mode.js';
import { tidy } from '../memory/tidy.js';
import { ones, zeros } from '../tensor/creation.js';
import { asIndexCaller } from '../tensor/index-scope.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkLayer, checkTensors } from './check.js';
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
  /**
   * torch's max_norm: each row a lookup reads whose `normType`-norm exceeds this is first scaled
   * down to it, in the table itself (outside the graph, as torch's embedding_renorm_). Several
   * lookups in one pass all send their gradient to the weight (as a plain lookup's).
   */
  maxNorm?: number;
  /** The p of maxNorm's norm (default 2). */
  normType?: number;
}

export class Embedding<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  /** The padding row (from 0), if any. */
  readonly paddingIdx: number | undefined;
  readonly maxNorm: number | undefined;
  readonly normType: number;

  constructor(backend: B, readonly numEmbeddings: number, readonly dim: number, options: EmbeddingOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('Embedding', backend, options);
    checkInteger('Embedding', 'numEmbeddings', numEmbeddings, 0);
    checkInteger('Embedding', 'dim', dim, 0);
    const pad = options.paddingIdx;
    if (pad !== undefined && !(typeof pad === 'number' && Number.isSafeInteger(pad) && pad >= -numEmbeddings && pad < numEmbeddings)) {
      throw new ArgumentError(`paddingIdx must be an integer in [${-numEmbeddings}, ${numEmbeddings}), got ${show(pad)}`, { op: 'Embedding', hint: 'a row of the table, negative from the end' });
    }
    this.paddingIdx = pad === undefined ? undefined : pad < 0 ? pad + numEmbeddings : pad;
    const { maxNorm, normType = 2 } = options;
    if (maxNorm !== undefined && !(typeof maxNorm === 'number' && maxNorm >= 0 && Number.isFinite(maxNorm))) {
      throw new ArgumentError(`maxNorm must be a finite number >= 0, got ${show(maxNorm)}`, { op: 'Embedding' });
    }
    if (!(typeof normType === 'number' && normType > 0)) throw new ArgumentError(`normType must be a number > 0, got ${show(normType)}`, { op: 'Embedding' });
    this.maxNorm = maxNorm;
    this.normType = normType;
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
    // An index outside the table fails the lookup (and renorm's count) naming Embedding.
    return asIndexCaller({ name: 'Embedding', of: 'embeddings' }, () => {
      if (this.maxNorm !== undefined) this.renorm(indices);
      return tidy(() => {
        const flat = indices.reshape([-1]);
        const table = this.weight.value;
        let rows = table.indexSelect(0, flat);
        const pad = this.paddingIdx;
        // The padding row's uses read a copy outside the graph: no gradient reaches that row.
        if (pad !== undefined && table.requiresGrad) rows = rows.where(flat.notEqual(pad).unsqueeze(1), rows.detach());
        return rows.reshape([...indices.shape, this.dim]);
      });
    });
  }

  /**
   * Scales the rows `indices` reads whose norm exceeds maxNorm to maxNorm / (norm + 1e-7) of it
   * (torch's embedding_renorm_). torch writes the table in place, so a graph recorded before
   * (an earlier lookup in the same pass) still reaches the weight: setInPlace keeps that.
   */
  private renorm(indices: Tensor<B, 'int'>): void {
    const maxNorm = this.maxNorm!;
    const next = noGrad(() =>
      tidy(() => {
        const table = this.weight.value;
        const flat = indices.reshape([-1]);
        // Which rows some index names: counts over [numEmbeddings], not an [n, numEmbeddings]
        // one-hot (an out-of-range index fails this scatterAdd, as it would the lookup).
        const counts = zeros(table.backend, [this.numEmbeddings], { device: table.device, dtype: 'int32' }).scatterAdd(0, flat, ones(table.backend, [flat.shape[0]!], { device: table.device, dtype: 'int32' }));
        const norms = table.norm(this.normType, 1, true);
        const scaled = table.mul(norms.add(1e-7).recip().mul(maxNorm));
        return scaled.where(counts.greater(0).unsqueeze(1).logicalAnd(norms.greater(maxNorm)), table);
      }),
    );
    this.weight.setInPlace(next);
  }
}
