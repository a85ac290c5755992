/**
 * Multi-head attention (torch.nn.MultiheadAttention; batch-first by default: inputs are
 * [batch, seq, embed], or [seq, batch, embed] with `batchFirst: false`). The q, k, v projections are one [E, 3E] weight (PyTorch's in_proj_weight,
 * stored [in, out] here), initialised as PyTorch: xavier-uniform weights, zero biases. With a `kdim`
 * or `vdim` other than E they are three weights, as torch's q_proj_weight / k_proj_weight /
 * v_proj_weight. `addBiasKv` appends a learned key and value (torch's bias_k / bias_v) to every
 * sequence after the projection, `addZeroAttn` a zero key and value per head after that; masks get
 * a column of "allowed" for each, as torch pads them.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { isFloat } from '../ir/dtype.js';
import { checkBoolean, checkInteger, checkOptions } from '../ir/validate.js';
import { checkLayer, checkOptionalTensors, checkTensors } from './check.js';
import { checkDropout } from './functional/dropout.js';
import { tidy } from '../memory/tidy.js';
import { zeros } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { attentionWeights, causalMask } from './functional/attention.js';
import { xavierNormal, xavierUniform } from './init.js';
import { Linear } from './linear.js';
import { Module, type TorchKey } from './module.js';
import { Param } from './param.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface MultiheadAttentionOptions {
  /** Dropout on the attention weights while training (default 0). */
  dropout?: number;
  /** Biases on the projections (default true). */
  bias?: boolean;
  /** Inputs and output [N, L, E] (default true) or [L, N, E] (torch's default); the weights are [N, L, S] either way. */
  batchFirst?: boolean;
  /** The key's feature size (default embedDim). */
  kdim?: number;
  /** The value's feature size (default embedDim). */
  vdim?: number;
  /** Append a learned key and value (torch's bias_k, bias_v, [1, 1, E]) to the keys and values (default false). */
  addBiasKv?: boolean;
  /** Append a zero key and value per head (default false). */
  addZeroAttn?: boolean;
  device?: Device;
}

export interface MultiheadAttentionCall<B extends Backend> {
  /** [N, S] ([S] for an unbatched input): bool true where a key is padding (ignored), or float added to the key's scores, as PyTorch's key_padding_mask. */
  keyPaddingMask?: Tensor<B, 'bool'> | F<B> | undefined;
  /** [L, S] or [N * heads, L, S]: bool true where attention is NOT allowed (PyTorch's convention here), or float added to the scores. */
  attnMask?: Tensor<B, 'bool'> | F<B> | undefined;
  /** Query i attends keys j <= i only. */
  isCausal?: boolean;
  /** forwardWithWeights: the weights averaged over heads [N, L, S] (default true), or per head [N, heads, L, S]. */
  averageAttnWeights?: boolean;
}

export class MultiheadAttention<B extends Backend = Backend> extends Module<B> {
  /** [E, 3E] when key and value have E features; else undefined and the three below. */
  readonly inProjWeight: Param<B> | undefined;
  /** [E, E], [kdim, E], [vdim, E] (stored [in, out]) when kdim or vdim differs from E. */
  readonly qProjWeight: Param<B> | undefined;
  readonly kProjWeight: Param<B> | undefined;
  readonly vProjWeight: Param<B> | undefined;
  readonly inProjBias: Param<B> | undefined;
  /** [1, 1, E] each, with addBiasKv. */
  readonly biasK: Param<B> | undefined;
  readonly biasV: Param<B> | undefined;
  readonly kdim: number;
  readonly vdim: number;
  readonly outProj: Linear<B>;
  readonly headDim: number;

  constructor(backend: B, readonly embedDim: number, readonly numHeads: number, readonly options: MultiheadAttentionOptions = {}) {
    super();
    checkLayer('MultiheadAttention', backend, options);
    checkInteger('MultiheadAttention', 'embedDim', embedDim, 1);
    checkInteger('MultiheadAttention', 'numHeads', numHeads, 1);
    if (embedDim % numHeads !== 0) throw new ArgumentError(`numHeads ${numHeads} must divide embedDim ${embedDim}`, { op: 'MultiheadAttention' });
    if (options.dropout !== undefined) checkDropout('MultiheadAttention', options.dropout, 'dropout');
    if (options.batchFirst !== undefined) checkBoolean('MultiheadAttention', 'batchFirst', options.batchFirst);
    for (const k of ['addBiasKv', 'addZeroAttn'] as const) if (options[k] !== undefined) checkBoolean('MultiheadAttention', k, options[k]);
    this.kdim = options.kdim === undefined ? embedDim : checkInteger('MultiheadAttention', 'kdim', options.kdim, 1);
    this.vdim = options.vdim === undefined ? embedDim : checkInteger('MultiheadAttention', 'vdim', options.vdim, 1);
    this.headDim = embedDim / numHeads;
    const device = options.device ?? backend.defaultDevice();
    const separate = this.kdim !== embedDim || this.vdim !== embedDim;
    // torch draws each separate weight with its own fans ([E, in] there; [in, E] here).
    const proj = (fanIn: number): Param<B> => new Param(xavierUniform(backend, [fanIn, embedDim], { device, fanIn, fanOut: embedDim }));
    this.inProjWeight = separate ? undefined : new Param(xavierUniform(backend, [embedDim, 3 * embedDim], { device, fanIn: embedDim, fanOut: 3 * embedDim }));
    this.qProjWeight = separate ? proj(embedDim) : undefined;
    this.kProjWeight = separate ? proj(this.kdim) : undefined;
    this.vProjWeight = separate ? proj(this.vdim) : undefined;
    const bias = options.bias !== false;
    this.inProjBias = bias ? new Param(zeros(backend, [3 * embedDim], { device })) : undefined;
    this.outProj = new Linear(backend, embedDim, embedDim, { device, bias });
    if (this.outProj.bias) this.outProj.bias.set(zeros(backend, [embedDim], { device }));
    // torch: xavier_normal_ of a [1, 1, E] tensor (fan in and out both E).
    const biasKv = (): Param<B> => new Param(xavierNormal(backend, [1, 1, embedDim], { device, fanIn: embedDim, fanOut: embedDim }));
    this.biasK = options.addBiasKv === true ? biasKv() : undefined;
    this.biasV = options.addBiasKv === true ? biasKv() : undefined;
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return {
      inProjWeight: { key: 'in_proj_weight', layout: 'transpose' },
      qProjWeight: { key: 'q_proj_weight', layout: 'transpose' },
      kProjWeight: { key: 'k_proj_weight', layout: 'transpose' },
      vProjWeight: { key: 'v_proj_weight', layout: 'transpose' },
      inProjBias: { key: 'in_proj_bias' },
      biasK: { key: 'bias_k' },
      biasV: { key: 'bias_v' },
      outProj: { key: 'out_proj' },
    };
  }

  /** Self-attention with one argument; [N, L, E] -> [N, L, E]. */
  forward(query: F<B>, key: F<B> = query, value: F<B> = key, call: MultiheadAttentionCall<B> = {}): F<B> {
    const { output, weights } = this.attend(query, key, value, call, false);
    weights?.dispose();
    return output;
  }

  /** The output and the attention weights: [N, L, S] averaged over heads, or [N, heads, L, S] with averageAttnWeights: false (S counts the bias and zero keys too). */
  forwardWithWeights(query: F<B>, key: F<B> = query, value: F<B> = key, call: MultiheadAttentionCall<B> = {}): { output: F<B>; weights: F<B> } {
    const { output, weights } = this.attend(query, key, value, call, true);
    return { output, weights: weights! };
  }

  private attend(query: F<B>, key: F<B>, value: F<B>, call: MultiheadAttentionCall<B>, needWeights: boolean): { output: F<B>; weights: F<B> | undefined } {
    const op = 'MultiheadAttention';
    checkTensors(op, { query, key, value });
    checkOptions(op, call);
    checkOptionalTensors(op, { attnMask: call.attnMask, keyPaddingMask: call.keyPaddingMask });
    if (call.averageAttnWeights !== undefined) checkBoolean(op, 'averageAttnWeights', call.averageAttnWeights);
    if (query.rank === 2 && key.rank === 2 && value.rank === 2) {
      // Unbatched [L, E], [S, E], [S, E] (torch takes them too, either batchFirst): a batch of one.
      return tidy(() => {
        const kpm = call.keyPaddingMask;
        const y = this.attendBatchFirst(query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0), { ...call, keyPaddingMask: kpm?.rank === 1 ? kpm.unsqueeze(0) : kpm }, needWeights);
        return { output: y.output.squeeze(0), weights: y.weights?.squeeze(0) };
      });
    }
    if (this.options.batchFirst === false) {
      // [L, N, E] in and out: the batch-first computation between two transposes (views on the CPU).
      return tidy(() => {
        const swap = (t: F<B>): F<B> => (t.rank === 3 ? t.swapDims(0, 1) : t);
        const y = this.attendBatchFirst(swap(query), swap(key), swap(value), call, needWeights);
        return { output: y.output.swapDims(0, 1), weights: y.weights };
      });
    }
    return this.attendBatchFirst(query, key, value, call, needWeights);
  }

  private attendBatchFirst(query: F<B>, key: F<B>, value: F<B>, call: MultiheadAttentionCall<B>, needWeights: boolean): { output: F<B>; weights: F<B> | undefined } {
    const op = 'MultiheadAttention';
    checkOptionalTensors(op, { attnMask: call.attnMask, keyPaddingMask: call.keyPaddingMask });
    const e = this.embedDim;
    const [kd, vd] = [this.kdim, this.vdim];
    if (query.rank !== 3 || key.rank !== 3 || value.rank !== 3 || query.shape[2] !== e || key.shape[2] !== kd || value.shape[2] !== vd || key.shape[1] !== value.shape[1] || key.shape[0] !== query.shape[0] || value.shape[0] !== query.shape[0]) {
      throw new ShapeError(`query, key and value must be [N, L, ${e}], [N, S, ${kd}], [N, S, ${vd}]`, { op, shapes: [query.shape, key.shape, value.shape], hint: this.options.batchFirst === false ? 'with batchFirst: false the inputs are [L, N, E] (shown here batch-first)' : 'inputs are batch-first (pass batchFirst: false for [L, N, E])' });
    }
    const [n, l] = query.shape as [number, number];
    const s = key.shape[1]!;
    const h = this.numHeads;
    const d = this.headDim;
    if (call.keyPaddingMask && (call.keyPaddingMask.rank !== 2 || call.keyPaddingMask.shape[0] !== n || call.keyPaddingMask.shape[1] !== s)) {
      throw new ShapeError(`keyPaddingMask must be [${n}, ${s}]`, { op, shapes: [call.keyPaddingMask.shape] });
    }
    const kpm = call.keyPaddingMask;
    if (kpm && kpm.dtype !== 'bool' && !isFloat(kpm.dtype)) throw new DTypeError(`keyPaddingMask must be bool (true: padding) or float (added), got ${kpm.dtype}`, { op, dtypes: [kpm.dtype] });
    const mask = call.attnMask;
    if (mask && !(mask.rank === 2 && mask.shape[0] === l && mask.shape[1] === s) && !(mask.rank === 3 && mask.shape[0] === n * h && mask.shape[1] === l && mask.shape[2] === s)) {
      throw new ShapeError(`attnMask must be [${l}, ${s}] or [${n * h}, ${l}, ${s}] (batch * heads, L, S)`, { op, shapes: [query.shape, key.shape, mask.shape] });
    }
    if (mask && mask.dtype !== 'bool' && !isFloat(mask.dtype)) throw new DTypeError(`attnMask must be bool (true: blocked) or float (added), got ${mask.dtype}`, { op, dtypes: [mask.dtype] });
    return tidy(() => {
      const project = (x: F<B>, part: number, extra?: Param<B>): F<B> => {
        const separate = [this.qProjWeight, this.kProjWeight, this.vProjWeight][part];
        const w = separate ? separate.value : this.inProjWeight!.value.slice([null, [part * e, (part + 1) * e]]);
        let y = x.matmul(w);
        if (this.inProjBias) y = y.add(this.inProjBias.value.slice([[part * e, (part + 1) * e]]));
        // bias_k / bias_v: one more position, after the projection (torch's order).
        if (extra) y = Tensor.cat([y, extra.value.expand([n, 1, e])], 1);
        let heads = y.reshape([n, y.shape[1]!, h, d]).permute([0, 2, 1, 3]);
        if (part > 0 && this.options.addZeroAttn === true) heads = Tensor.cat([heads, zeros(x.backend, [n, h, 1, d], { device: x.device, dtype: heads.dtype })], 2);
        return heads;
      };
      const q = project(query, 0);
      const k = project(key, 1, this.biasK);
      const v = project(value, 2, this.biasV);
      // The appended keys are never masked: the masks get that many zero (allowed) columns.
      const appended = k.shape[2]! - s;
      // One additive mask [N or 1, H or 1, L, S] from every source (true = blocked -> -Infinity).
      let blocked: Tensor<B, 'bool'> | undefined;
      let additive: F<B> | undefined;
      if (mask && call.isCausal) throw new ArgumentError('give either attnMask or isCausal, not both', { op });
      if (call.isCausal) blocked = causalMask(query.backend, l, s, query.device as ReturnType<B['defaultDevice']>).logicalNot();
      else if (mask?.dtype === 'bool') blocked = mask as Tensor<B, 'bool'>;
      else if (mask) additive = mask as F<B>;
      if (blocked?.rank === 3) blocked = blocked.reshape([n, h, l, s]);
      if (additive?.rank === 3) additive = additive.reshape([n, h, l, s]);
      if (kpm?.dtype === 'bool') {
        const pad = (kpm as Tensor<B, 'bool'>).reshape([n, 1, 1, s]);
        blocked = blocked ? blocked.logicalOr(pad) : pad;
      } else if (kpm) {
        const pad = (kpm as F<B>).reshape([n, 1, 1, s]);
        additive = additive ? additive.add(pad) : pad;
      }
      let attnMask: F<B> | undefined = additive;
      if (blocked) {
        // In the query's dtype (-Infinity is a float16 value too): the scores it is added to have it.
        const minus = zeros(query.backend, blocked.shape, { device: query.device, dtype: query.dtype }).maskFill(blocked, -Infinity);
        attnMask = attnMask ? attnMask.add(minus) : minus;
      }
      if (attnMask && appended > 0) attnMask = attnMask.pad([0, appended]);
      const weights = attentionWeights(q, k, { attnMask, dropoutP: this.training ? (this.options.dropout ?? 0) : 0 });
      const context = weights.matmul(v).permute([0, 2, 1, 3]).reshape([n, l, e]);
      const output = this.outProj.forward(context);
      return { output, weights: needWeights ? (call.averageAttnWeights === false ? weights : weights.mean(1)) : undefined };
    });
  }
}
