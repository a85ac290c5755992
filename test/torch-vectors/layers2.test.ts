/**
 * Switchyard's layers against PyTorch's reference vectors, group 'layers2'
 * (tools/torch-vectors/groups/layers2.py): what the 'layers' group named unsupported and was then
 * added. Max pools with return_indices (the indices, int64 in torch, are compared as floats) and
 * max_unpool (alone and as the round trip pool -> unpool, so the gradient crosses both), Bilinear,
 * local response norm, lp pools (with ceil_mode's partial windows), MultiheadAttention's per-head
 * weights, kdim / vdim, add_bias_kv and add_zero_attn, ConvTranspose output_size, EmbeddingBag and
 * LSTM proj_size.
 */
import * as NF from '../../src/nn/functional/index.js';
import * as nn from '../../src/nn/index.js';
import { convLayerOptions, moduleCase, multiheadAttention, poolOptions } from './nn-args.js';
import { a, torchVectorSuite, type AD, type Adapter, type Ctx, type F } from './harness.js';

const outputSize = (x: Ctx): { outputSize?: number[] } => (Array.isArray(x.args['output_size']) ? { outputSize: x.args['output_size'] as number[] } : {});

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  max_pool2d_indices: (x) => {
    const r = NF.maxPool2d(x.t['x']!, a.list(x, 'kernel_size') as NF.Pair, { ...poolOptions(x), returnIndices: true });
    return [r.values, r.indices.cast('float32')];
  },
  max_pool1d_indices: (x) => {
    const r = NF.maxPool1d(x.t['x']!, a.num(x, 'kernel_size')!, { ...(poolOptions(x) as NF.Pool1dOptions & { dilation?: number }), returnIndices: true });
    return [r.values, r.indices.cast('float32')];
  },
  max_unpool2d_roundtrip: (x) => {
    const k = a.list(x, 'kernel_size') as NF.Pair;
    const o = poolOptions(x);
    const r = NF.maxPool2d(x.t['x']!, k, { ...o, returnIndices: true });
    return NF.maxUnpool2d(r.values, r.indices, k, { ...(o.stride === undefined ? {} : { stride: o.stride }), ...(o.padding === undefined ? {} : { padding: o.padding }), ...outputSize(x) });
  },
  max_unpool1d_roundtrip: (x) => {
    const k = a.num(x, 'kernel_size')!;
    const o = poolOptions(x) as NF.Pool1dOptions;
    const r = NF.maxPool1d(x.t['x']!, k, { ...o, returnIndices: true });
    return NF.maxUnpool1d(r.values, r.indices, k, { ...(o.stride === undefined ? {} : { stride: o.stride }), ...(o.padding === undefined ? {} : { padding: o.padding }), ...outputSize(x) });
  },
  max_unpool2d: (x) => NF.maxUnpool2d(x.t['values']!, x.int['indices']!, a.list(x, 'kernel_size') as NF.Pair, { ...(poolOptions(x) as NF.MaxUnpool2dOptions), ...outputSize(x) }),
  max_unpool1d: (x) => NF.maxUnpool1d(x.t['values']!, x.int['indices']!, a.num(x, 'kernel_size')!, { ...(poolOptions(x) as NF.MaxUnpool1dOptions), ...outputSize(x) }),
  Bilinear: (x) => {
    const m = new nn.Bilinear(x.b, a.num(x, 'in1_features')!, a.num(x, 'in2_features')!, a.num(x, 'out_features')!, { bias: a.bool(x, 'bias') ?? true });
    return moduleCase(x, m, () => m.forward(x.t['x1']!, x.t['x2']!));
  },
  bilinear: (x) => NF.bilinear(x.t['x1']!, x.t['x2']!, x.t['weight']!, x.t['bias']),
  local_response_norm: (x) => NF.localResponseNorm(x.t['x']!, a.num(x, 'size')!, lrnOptions(x)),
  LocalResponseNorm: (x) => new nn.LocalResponseNorm<AD>(a.num(x, 'size')!, lrnOptions(x)).forward(x.t['x']!),
  lp_pool2d: (x) => NF.lpPool2d(x.t['x']!, a.num(x, 'norm_type')!, a.list(x, 'kernel_size') as NF.Pair, poolOptions(x)),
  lp_pool1d: (x) => NF.lpPool1d(x.t['x']!, a.num(x, 'norm_type')!, a.num(x, 'kernel_size')!, poolOptions(x) as NF.Pool1dOptions),
  MultiheadAttention: (x) => multiheadAttention(x, a.bool(x, 'need_weights') ?? false),
  ConvTranspose2d: (x) => {
    const m = new nn.ConvTranspose2d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, a.list(x, 'kernel_size') as NF.Pair, convLayerOptions(x) as nn.ConvTranspose2dLayerOptions);
    return moduleCase(x, m, () => m.forward(x.t['x']!, x.args['output_size'] as number[]));
  },
  ConvTranspose1d: (x) => {
    const m = new nn.ConvTranspose1d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, a.num(x, 'kernel_size')!, convLayerOptions(x) as nn.ConvTranspose1dLayerOptions);
    return moduleCase(x, m, () => m.forward(x.t['x']!, x.args['output_size'] as number[]));
  },
  EmbeddingBag: (x) => embeddingBagCase(x),
  embedding_bag: (x) => NF.embeddingBag(x.int['indices']!, x.t['weight']!, { offsets: x.int['offsets'], mode: x.args['mode'] as NF.EmbeddingBagMode }),
  LSTM: (x) => lstmCase(x),
};

/** An LSTM case (proj_size among its args), outputs: output, h, c. */
function lstmCase(x: Ctx): { outputs: F[]; module: nn.Module<AD> } {
  const m = new nn.LSTM(x.b, a.num(x, 'input_size')!, a.num(x, 'hidden_size')!, {
    numLayers: a.num(x, 'num_layers', 1)!,
    bidirectional: a.bool(x, 'bidirectional') ?? false,
    batchFirst: a.bool(x, 'batch_first') ?? false,
    bias: a.bool(x, 'bias') ?? true,
    projSize: a.num(x, 'proj_size', 0)!,
  });
  return moduleCase(x, m, () => {
    const y = m.forward(x.t['input']!, { ...(x.t['h0'] ? { h: x.t['h0'] } : {}), ...(x.t['c0'] ? { c: x.t['c0'] } : {}) });
    return [y.output, y.h, y.c];
  });
}

function embeddingBagCase(x: Ctx): { outputs: F[]; module: nn.Module<AD> } {
  const pad = a.num(x, 'padding_idx');
  const m = new nn.EmbeddingBag(x.b, a.num(x, 'num_embeddings')!, a.num(x, 'embedding_dim')!, {
    mode: x.args['mode'] as NF.EmbeddingBagMode,
    includeLastOffset: a.bool(x, 'include_last_offset') ?? false,
    ...(pad === undefined ? {} : { paddingIdx: pad }),
  });
  return moduleCase(x, m, () => m.forward(x.int['indices']!, x.int['offsets'], x.t['per_sample_weights']));
}

/** A conv module's options from the case's args (torch's names -> ours). */
function lrnOptions(x: Ctx): NF.LocalResponseNormOptions {
  const o: NF.LocalResponseNormOptions = {};
  for (const k of ['alpha', 'beta', 'k'] as const) if (x.args[k] !== undefined) o[k] = a.num(x, k)!;
  return o;
}

await torchVectorSuite({ groups: ['layers2'], adapters: ADAPTERS });
