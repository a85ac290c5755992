/**
 * The transformer's position-wise feed-forward block (linear -> gelu -> dropout -> linear),
 * written as a user module would be: declare the layers as fields (they become the parameters
 * 'linearInner.weight', ...), and write forward() with tensor ops.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { Tensor } from '../tensor/tensor.js';
import { Gelu } from './activation.js';
import { Dropout } from './dropout.js';
import { Linear } from './linear.js';
import { ArgumentError } from '../errors.js';
import { checkLayer } from './check.js';
import { Module } from './module.js';

export interface PositionWiseFeedForwardConfig {
  dModel: number;
  dFF: number;
  dropout?: number;
  device?: Device;
}

export class PositionWiseFeedForward<B extends Backend = Backend> extends Module<B> {
  readonly linearInner: Linear<B>;
  readonly linearOuter: Linear<B>;
  readonly dropout: Dropout<B>;
  readonly gelu = new Gelu<B>();

  constructor(backend: B, config: PositionWiseFeedForwardConfig) {
    super();
    checkLayer('PositionWiseFeedForward', backend, config);
    if (config === undefined) throw new ArgumentError('a config { dModel, dFF, dropout? } is needed', { op: 'PositionWiseFeedForward' });
    const device = config.device ?? backend.defaultDevice();
    this.linearInner = new Linear(backend, config.dModel, config.dFF, { device });
    this.linearOuter = new Linear(backend, config.dFF, config.dModel, { device });
    this.dropout = new Dropout(config.dropout ?? 0.1);
  }

  /** [batch, seq, dModel] -> [batch, seq, dModel]. */
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    const h = this.linearInner.forward(x);
    const a = this.gelu.forward(h);
    const d = this.dropout.forward(a);
    const y = this.linearOuter.forward(d);
    for (const t of new Set([h, a, d])) t.dispose();
    return y;
  }
}
