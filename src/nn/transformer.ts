/**
 * One transformer encoder layer (torch.nn.TransformerEncoderLayer with batch_first=True):
 * self-attention and a feed-forward block, each with dropout, a residual and a LayerNorm, after
 * (default) or before (`normFirst`) the block.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { tidy } from '../memory/tidy.js';
import type { Tensor } from '../tensor/tensor.js';
import { Gelu, Relu } from './activation.js';
import { MultiheadAttention, type MultiheadAttentionCall } from './attention.js';
import { Dropout } from './dropout.js';
import { LayerNorm } from './layer-norm.js';
import { Linear } from './linear.js';
import { checkLayer } from './check.js';
import { checkInteger } from '../ir/validate.js';
import { Module, type TorchKey } from './module.js';

export interface TransformerEncoderLayerOptions {
  /** Default 2048. */
  dimFeedforward?: number;
  /** Default 0.1. */
  dropout?: number;
  /** Default 'relu'. */
  activation?: 'relu' | 'gelu';
  /** Default 1e-5. */
  layerNormEps?: number;
  /** LayerNorm before each block (pre-norm) instead of after (default false). */
  normFirst?: boolean;
  device?: Device;
}

export class TransformerEncoderLayer<B extends Backend = Backend> extends Module<B> {
  readonly selfAttn: MultiheadAttention<B>;
  readonly linear1: Linear<B>;
  readonly dropout: Dropout<B>;
  readonly linear2: Linear<B>;
  readonly norm1: LayerNorm<B>;
  readonly norm2: LayerNorm<B>;
  readonly dropout1: Dropout<B>;
  readonly dropout2: Dropout<B>;
  readonly activation: Relu<B> | Gelu<B>;
  readonly normFirst: boolean;

  constructor(backend: B, readonly dModel: number, readonly nhead: number, options: TransformerEncoderLayerOptions = {}) {
    super();
    checkLayer('TransformerEncoderLayer', backend, options);
    checkInteger('TransformerEncoderLayer', 'dModel', dModel, 1);
    checkInteger('TransformerEncoderLayer', 'nhead', nhead, 1);
    const device = options.device ?? backend.defaultDevice();
    const p = options.dropout ?? 0.1;
    const ff = options.dimFeedforward ?? 2048;
    const eps = options.layerNormEps ?? 1e-5;
    this.selfAttn = new MultiheadAttention(backend, dModel, nhead, { dropout: p, device });
    this.linear1 = new Linear(backend, dModel, ff, { device });
    this.dropout = new Dropout(p);
    this.linear2 = new Linear(backend, ff, dModel, { device });
    this.norm1 = new LayerNorm(backend, dModel, eps, { device });
    this.norm2 = new LayerNorm(backend, dModel, eps, { device });
    this.dropout1 = new Dropout(p);
    this.dropout2 = new Dropout(p);
    this.activation = options.activation === 'gelu' ? new Gelu() : new Relu();
    this.normFirst = options.normFirst ?? false;
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { selfAttn: { key: 'self_attn' } };
  }

  /** [N, L, dModel] -> [N, L, dModel]; `mask` and `srcKeyPaddingMask` as MultiheadAttention's attnMask and keyPaddingMask. */
  forward(src: Tensor<B, 'float'>, call: { mask?: MultiheadAttentionCall<B>['attnMask']; srcKeyPaddingMask?: Tensor<B, 'bool'>; isCausal?: boolean } = {}): Tensor<B, 'float'> {
    const attnCall: MultiheadAttentionCall<B> = { attnMask: call.mask, keyPaddingMask: call.srcKeyPaddingMask, isCausal: call.isCausal ?? false };
    const sa = (x: Tensor<B, 'float'>) => this.dropout1.forward(this.selfAttn.forward(x, x, x, attnCall));
    const ffBlock = (x: Tensor<B, 'float'>) => this.dropout2.forward(this.linear2.forward(this.dropout.forward(this.activation.forward(this.linear1.forward(x)))));
    return tidy(() => {
      if (this.normFirst) {
        const x = src.add(sa(this.norm1.forward(src)));
        return x.add(ffBlock(this.norm2.forward(x)));
      }
      const x = this.norm1.forward(src.add(sa(src)));
      return this.norm2.forward(x.add(ffBlock(x)));
    });
  }
}
