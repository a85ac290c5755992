/**
 * Transformers as torch.nn builds them, batch-first ([N, L, dModel]): TransformerEncoderLayer and
 * TransformerDecoderLayer (attention and feed-forward blocks, each with dropout, a residual and a
 * LayerNorm, after (default) or before (`normFirst`) the block), the TransformerEncoder and
 * TransformerDecoder stacks (copies of one layer, an optional final norm) and Transformer
 * (encoder + decoder with final norms, torch.nn.Transformer). Parameter names follow torch's
 * state_dict keys, so loadTorchStateDict reads torch's checkpoints.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, ShapeError } from '../errors.js';
import type { FloatDType } from '../ir/dtype.js';
import { checkInteger, checkKeys, checkOptions } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { Gelu, Relu } from './activation.js';
import { MultiheadAttention, type MultiheadAttentionCall } from './attention.js';
import { checkLayer, checkTensors } from './check.js';
import { Dropout } from './dropout.js';
import { xavierUniform } from './init.js';
import { LayerNorm } from './layer-norm.js';
import { Linear } from './linear.js';
import { Module, type Layer, type TorchKey } from './module.js';
import { newParamId } from './param.js';

/** The options of both transformer layers (torch's TransformerEncoderLayer / TransformerDecoderLayer arguments). */
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

type Mask<B extends Backend> = MultiheadAttentionCall<B>['attnMask'];

/** MultiheadAttention's mask fields from a mask and a causal flag: a given mask wins (torch's is_causal is a hint about the mask). */
function attention<B extends Backend>(mask: Mask<B>, isCausal: boolean | undefined, keyPaddingMask: Tensor<B, 'bool'> | undefined): MultiheadAttentionCall<B> {
  return mask ? { attnMask: mask, keyPaddingMask } : { keyPaddingMask, isCausal: isCausal ?? false };
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

  /**
   * [N, L, dModel] -> [N, L, dModel]; `mask` and `srcKeyPaddingMask` as MultiheadAttention's
   * attnMask and keyPaddingMask; `isCausal` alone applies the causal mask, and with `mask` is a hint
   * that the mask is causal (torch's meaning): the mask is applied.
   */
  forward(src: Tensor<B, 'float'>, call: { mask?: MultiheadAttentionCall<B>['attnMask']; srcKeyPaddingMask?: Tensor<B, 'bool'>; isCausal?: boolean } = {}): Tensor<B, 'float'> {
    const attnCall = attention(call.mask, call.isCausal, call.srcKeyPaddingMask);
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

export type TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

/** What a TransformerDecoderLayer / TransformerDecoder forward takes besides tgt and memory (torch's forward arguments). */
export interface TransformerDecoderCall<B extends Backend> {
  /** Self-attention mask [T, T] or [N * nhead, T, T]: bool true where attention is NOT allowed, or float added to the scores. */
  tgtMask?: Mask<B>;
  /** Cross-attention mask [T, S] or [N * nhead, T, S], as tgtMask. */
  memoryMask?: Mask<B>;
  /** [N, T], true where a target position is padding. */
  tgtKeyPaddingMask?: Tensor<B, 'bool'> | undefined;
  /** [N, S], true where a memory position is padding. */
  memoryKeyPaddingMask?: Tensor<B, 'bool'> | undefined;
  /** Target position i attends positions j <= i only. With tgtMask too, the mask is applied (torch's flag is then a hint that it is causal). */
  tgtIsCausal?: boolean;
  /** Target position i attends memory positions j <= i only (as tgtIsCausal, for memoryMask). */
  memoryIsCausal?: boolean;
}

const DECODER_CALL = ['tgtMask', 'memoryMask', 'tgtKeyPaddingMask', 'memoryKeyPaddingMask', 'tgtIsCausal', 'memoryIsCausal'] as const;

/** `a` [N, L, dModel] and `b` [N, S, dModel] (one N), or a ShapeError naming the op. */
function checkSequences(op: string, dModel: number, names: readonly [string, string], a: Tensor<Backend, 'float'>, b: Tensor<Backend, 'float'>): void {
  const fits = (t: Tensor<Backend, 'float'>) => t.rank === 3 && t.shape[2] === dModel && t.shape[0] === a.shape[0];
  if (!fits(a) || !fits(b)) {
    throw new ShapeError(`${names[0]} and ${names[1]} must be [N, L, ${dModel}] and [N, S, ${dModel}] with one batch size N`, { op, shapes: [a.shape, b.shape], hint: 'inputs are batch-first: [batch, sequence, dModel]' });
  }
}

/**
 * torch.nn.TransformerDecoderLayer (batch-first): self-attention over the target, attention over
 * the encoder's output (memory), and a feed-forward block; each with dropout, a residual and a
 * LayerNorm after it, or before it with normFirst.
 */
export class TransformerDecoderLayer<B extends Backend = Backend> extends Module<B> {
  readonly selfAttn: MultiheadAttention<B>;
  readonly multiheadAttn: MultiheadAttention<B>;
  readonly linear1: Linear<B>;
  readonly dropout: Dropout<B>;
  readonly linear2: Linear<B>;
  readonly norm1: LayerNorm<B>;
  readonly norm2: LayerNorm<B>;
  readonly norm3: LayerNorm<B>;
  readonly dropout1: Dropout<B>;
  readonly dropout2: Dropout<B>;
  readonly dropout3: Dropout<B>;
  readonly activation: Relu<B> | Gelu<B>;
  readonly normFirst: boolean;

  constructor(backend: B, readonly dModel: number, readonly nhead: number, options: TransformerDecoderLayerOptions = {}) {
    super();
    const op = 'TransformerDecoderLayer';
    checkLayer(op, backend, options);
    checkInteger(op, 'dModel', dModel, 1);
    checkInteger(op, 'nhead', nhead, 1);
    const device = options.device ?? backend.defaultDevice();
    const p = options.dropout ?? 0.1;
    const ff = options.dimFeedforward ?? 2048;
    const eps = options.layerNormEps ?? 1e-5;
    this.selfAttn = new MultiheadAttention(backend, dModel, nhead, { dropout: p, device });
    this.multiheadAttn = new MultiheadAttention(backend, dModel, nhead, { dropout: p, device });
    this.linear1 = new Linear(backend, dModel, ff, { device });
    this.dropout = new Dropout(p);
    this.linear2 = new Linear(backend, ff, dModel, { device });
    this.norm1 = new LayerNorm(backend, dModel, eps, { device });
    this.norm2 = new LayerNorm(backend, dModel, eps, { device });
    this.norm3 = new LayerNorm(backend, dModel, eps, { device });
    this.dropout1 = new Dropout(p);
    this.dropout2 = new Dropout(p);
    this.dropout3 = new Dropout(p);
    this.activation = options.activation === 'gelu' ? new Gelu() : new Relu();
    this.normFirst = options.normFirst ?? false;
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { selfAttn: { key: 'self_attn' }, multiheadAttn: { key: 'multihead_attn' } };
  }

  /** tgt [N, T, dModel] and memory [N, S, dModel] -> [N, T, dModel]. */
  forward(tgt: Tensor<B, 'float'>, memory: Tensor<B, 'float'>, call: TransformerDecoderCall<B> = {}): Tensor<B, 'float'> {
    const op = 'TransformerDecoderLayer';
    checkTensors(op, { tgt, memory });
    checkKeys(op, checkOptions(op, call), DECODER_CALL);
    checkSequences(op, this.dModel, ['tgt', 'memory'], tgt, memory);
    const self = attention(call.tgtMask, call.tgtIsCausal, call.tgtKeyPaddingMask);
    const cross = attention(call.memoryMask, call.memoryIsCausal, call.memoryKeyPaddingMask);
    const sa = (x: Tensor<B, 'float'>) => this.dropout1.forward(this.selfAttn.forward(x, x, x, self));
    const mha = (x: Tensor<B, 'float'>) => this.dropout2.forward(this.multiheadAttn.forward(x, memory, memory, cross));
    const ffBlock = (x: Tensor<B, 'float'>) => this.dropout3.forward(this.linear2.forward(this.dropout.forward(this.activation.forward(this.linear1.forward(x)))));
    return tidy(() => {
      if (this.normFirst) {
        const x = tgt.add(sa(this.norm1.forward(tgt)));
        const y = x.add(mha(this.norm2.forward(x)));
        return y.add(ffBlock(this.norm3.forward(y)));
      }
      const x = this.norm1.forward(tgt.add(sa(tgt)));
      const y = this.norm2.forward(x.add(mha(x)));
      return this.norm3.forward(y.add(ffBlock(y)));
    });
  }
}

/**
 * `n` deep copies of `layer` with their own storage and fresh ParamIds (torch's _get_clones:
 * copy.deepcopy, so every copy starts from the layer's values). The layer itself is not used.
 */
function copies<M extends Module<Backend>>(op: string, layer: M, n: unknown): M[] {
  const count = checkInteger(op, 'numLayers', n, 0);
  return Array.from({ length: count }, () => {
    const copy = layer.clone();
    // clone() keeps the ids (a copy of the same parameter); these are new parameters.
    copy.visit((p) => {
      p.id = newParamId();
    });
    return copy;
  });
}

/** The optional final norm: a module with forward(x), or undefined. */
function checkNorm(op: string, norm: unknown): void {
  if (norm !== undefined && !(norm instanceof Module && typeof Reflect.get(norm, 'forward') === 'function')) {
    throw new ArgumentError('norm must be a module with forward(x) (a LayerNorm) or undefined', { op, hint: 'new LayerNorm(backend, dModel)' });
  }
}

export interface TransformerStackOptions<B extends Backend> {
  /** Applied to the last layer's output (torch's norm argument; nn.Transformer passes a LayerNorm). */
  norm?: Layer<B> | undefined;
}

/** torch.nn.TransformerEncoder: numLayers copies of `layer` (see copies()) applied in turn, then `norm`. */
export class TransformerEncoder<B extends Backend = Backend> extends Module<B> {
  readonly layers: ReadonlyArray<TransformerEncoderLayer<B>>;
  readonly norm: Layer<B> | undefined;

  constructor(layer: TransformerEncoderLayer<B>, numLayers: number, options: TransformerStackOptions<B> = {}) {
    super();
    const op = 'TransformerEncoder';
    if (!(layer instanceof TransformerEncoderLayer)) throw new ArgumentError('the first argument must be a TransformerEncoderLayer to copy', { op, hint: 'new TransformerEncoder(new TransformerEncoderLayer(backend, dModel, nhead), numLayers)' });
    checkKeys(op, checkOptions(op, options), ['norm']);
    checkNorm(op, options.norm);
    this.layers = copies(op, layer, numLayers);
    this.norm = options.norm;
  }

  /** [N, L, dModel] -> [N, L, dModel]; the call as TransformerEncoderLayer.forward's, for every layer. */
  forward(src: Tensor<B, 'float'>, call: { mask?: Mask<B>; srcKeyPaddingMask?: Tensor<B, 'bool'>; isCausal?: boolean } = {}): Tensor<B, 'float'> {
    const op = 'TransformerEncoder';
    checkTensors(op, { src });
    checkKeys(op, checkOptions(op, call), ['mask', 'srcKeyPaddingMask', 'isCausal']);
    return tidy(() => {
      let x = src;
      for (const layer of this.layers) x = layer.forward(x, call);
      return this.norm ? this.norm.forward(x) : x;
    });
  }
}

/** torch.nn.TransformerDecoder: numLayers copies of `layer` applied in turn over one memory, then `norm`. */
export class TransformerDecoder<B extends Backend = Backend> extends Module<B> {
  readonly layers: ReadonlyArray<TransformerDecoderLayer<B>>;
  readonly norm: Layer<B> | undefined;

  constructor(layer: TransformerDecoderLayer<B>, numLayers: number, options: TransformerStackOptions<B> = {}) {
    super();
    const op = 'TransformerDecoder';
    if (!(layer instanceof TransformerDecoderLayer)) throw new ArgumentError('the first argument must be a TransformerDecoderLayer to copy', { op, hint: 'new TransformerDecoder(new TransformerDecoderLayer(backend, dModel, nhead), numLayers)' });
    checkKeys(op, checkOptions(op, options), ['norm']);
    checkNorm(op, options.norm);
    this.layers = copies(op, layer, numLayers);
    this.norm = options.norm;
  }

  /** tgt [N, T, dModel], memory [N, S, dModel] -> [N, T, dModel]. */
  forward(tgt: Tensor<B, 'float'>, memory: Tensor<B, 'float'>, call: TransformerDecoderCall<B> = {}): Tensor<B, 'float'> {
    const op = 'TransformerDecoder';
    checkTensors(op, { tgt, memory });
    checkKeys(op, checkOptions(op, call), DECODER_CALL);
    return tidy(() => {
      let x = tgt;
      for (const layer of this.layers) x = layer.forward(x, memory, call);
      return this.norm ? this.norm.forward(x) : x;
    });
  }
}

/**
 * [size, size] float mask for causal attention: 0 on and below the diagonal, -Infinity above
 * (torch.nn.Transformer.generate_square_subsequent_mask), to pass as tgtMask.
 */
export function generateSquareSubsequentMask<B extends Backend>(backend: B, size: number, options: { device?: ReturnType<B['defaultDevice']>; dtype?: FloatDType } = {}): Tensor<B, 'float'> {
  const op = 'generateSquareSubsequentMask';
  checkLayer(op, backend, options);
  checkInteger(op, 'size', size, 0);
  const m = new Float32Array(size * size);
  for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) m[i * size + j] = -Infinity;
  return fromData(backend, m, { shape: [size, size], device: options.device ?? backend.defaultDevice(), dtype: options.dtype ?? 'float32' });
}

export interface TransformerOptions extends TransformerEncoderLayerOptions {
  /** Default 512. */
  dModel?: number;
  /** Default 8. */
  nhead?: number;
  /** Default 6. */
  numEncoderLayers?: number;
  /** Default 6. */
  numDecoderLayers?: number;
}

const TRANSFORMER_OPTIONS = ['dModel', 'nhead', 'numEncoderLayers', 'numDecoderLayers', 'dimFeedforward', 'dropout', 'activation', 'layerNormEps', 'normFirst', 'device'] as const;

/** What Transformer.forward takes besides src and tgt (torch's forward arguments). */
export interface TransformerCall<B extends Backend> extends TransformerDecoderCall<B> {
  srcMask?: Mask<B>;
  srcKeyPaddingMask?: Tensor<B, 'bool'> | undefined;
  srcIsCausal?: boolean;
}

/**
 * torch.nn.Transformer (batch-first): a TransformerEncoder and a TransformerDecoder, each with a
 * final LayerNorm, every parameter of rank 2 re-drawn xavier-uniform as torch's _reset_parameters
 * does (so the layers differ, unlike a bare TransformerEncoder's copies).
 */
export class Transformer<B extends Backend = Backend> extends Module<B> {
  readonly encoder: TransformerEncoder<B>;
  readonly decoder: TransformerDecoder<B>;
  readonly dModel: number;
  readonly nhead: number;

  constructor(backend: B, options: TransformerOptions = {}) {
    super();
    const op = 'Transformer';
    checkLayer(op, backend, options);
    checkKeys(op, options, TRANSFORMER_OPTIONS);
    const { dModel = 512, nhead = 8, numEncoderLayers = 6, numDecoderLayers = 6, ...layerOptions } = options;
    this.dModel = checkInteger(op, 'dModel', dModel, 1);
    this.nhead = checkInteger(op, 'nhead', nhead, 1);
    const device = options.device ?? backend.defaultDevice();
    const eps = options.layerNormEps ?? 1e-5;
    // The templates are copied, then freed: only the copies are the model's.
    const encoderLayer = new TransformerEncoderLayer(backend, dModel, nhead, layerOptions);
    const decoderLayer = new TransformerDecoderLayer(backend, dModel, nhead, layerOptions);
    this.encoder = new TransformerEncoder(encoderLayer, numEncoderLayers, { norm: new LayerNorm(backend, dModel, eps, { device }) });
    this.decoder = new TransformerDecoder(decoderLayer, numDecoderLayers, { norm: new LayerNorm(backend, dModel, eps, { device }) });
    encoderLayer.dispose();
    decoderLayer.dispose();
    for (const p of this.params()) {
      if (p.value.rank > 1) p.set(xavierUniform(backend, p.shape, { device, fanIn: p.shape[0]!, fanOut: p.shape[1]! }));
    }
  }

  /** The causal float mask [size, size] (generateSquareSubsequentMask). */
  static generateSquareSubsequentMask<B extends Backend>(backend: B, size: number, options: { device?: ReturnType<B['defaultDevice']>; dtype?: FloatDType } = {}): Tensor<B, 'float'> {
    return generateSquareSubsequentMask(backend, size, options);
  }

  /** src [N, S, dModel] and tgt [N, T, dModel] -> [N, T, dModel]. */
  forward(src: Tensor<B, 'float'>, tgt: Tensor<B, 'float'>, call: TransformerCall<B> = {}): Tensor<B, 'float'> {
    const op = 'Transformer';
    checkTensors(op, { src, tgt });
    checkKeys(op, checkOptions(op, call), ['srcMask', 'srcKeyPaddingMask', 'srcIsCausal', ...DECODER_CALL]);
    checkSequences(op, this.dModel, ['src', 'tgt'], src, tgt);
    const { srcMask, srcKeyPaddingMask, srcIsCausal, ...decoderCall } = call;
    return tidy(() => {
      const memory = this.encoder.forward(src, { mask: srcMask, srcKeyPaddingMask, isCausal: srcIsCausal });
      return this.decoder.forward(tgt, memory, decoderCall);
    });
  }
}
