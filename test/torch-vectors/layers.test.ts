/**
 * Switchyard's layers against PyTorch's reference vectors, group 'layers'
 * (tools/torch-vectors/groups/layers.py): convolutions and their modules (padding modes, groups,
 * dilation, output padding), pools at their ceil-mode, padding and non-finite edges, Embedding
 * (padding_idx, max_norm: the table after the lookup is a second output), RNN / LSTM / GRU beyond
 * transformer.json (unbatched, time-major, no bias, length 1), MultiheadAttention (masks, layouts),
 * Linear, and the running statistics of BatchNorm and InstanceNorm (the fixture's outputs after the
 * layer's output are the running mean and variance after training forwards, so the buffers are
 * compared too). Ops we lack have their own op names in the fixture and are named in UNSUPPORTED.
 */
import * as NF from '../../src/nn/functional/index.js';
import * as nn from '../../src/nn/index.js';
import { convLayerOptions, convOptions, moduleCase, multiheadAttention, poolOptions } from './nn-args.js';
import { a, load, torchVectorSuite, unary, type AD, type Adapter, type Ctx, type F, type Known } from './harness.js';

/** A conv module's options from the case's args (torch's names -> ours). */

function rnnOptions(x: Ctx): nn.RnnOptions {
  return { numLayers: a.num(x, 'num_layers', 1)!, bidirectional: a.bool(x, 'bidirectional') ?? false, batchFirst: a.bool(x, 'batch_first') ?? false, bias: a.bool(x, 'bias') ?? true, dropout: a.num(x, 'dropout', 0)! };
}

function batchNorm(x: Ctx, make: (b: AD, c: number, o: nn.BatchNormOptions) => nn.BatchNorm1d<AD> | nn.BatchNorm2d<AD>): { outputs: F[]; module: nn.Module<AD> } {
  const m = make(x.b, a.num(x, 'num_features')!, { momentum: x.args['momentum'] === null ? null : a.num(x, 'momentum')!, affine: a.bool(x, 'affine')!, trackRunningStats: a.bool(x, 'track_running_stats')! });
  load(m, x.c);
  m.train(a.bool(x, 'training')!);
  const input = x.t['x']!;
  let y: F | undefined;
  const steps = a.num(x, 'steps')!;
  for (let i = 0; i < steps; i++) {
    y?.dispose();
    // gen.py's later inputs: x (1 + i) - 0.5 i.
    y = i === 0 ? m.forward(input) : m.forward(input.mul(1 + i).sub(0.5 * i));
  }
  const stats = [m.runningMean, m.runningVar].filter((s) => s !== undefined).map((s) => s.value.clone());
  return { outputs: [y!, ...stats], module: m };
}

function instanceNorm(x: Ctx, make: (b: AD, c: number, o: nn.InstanceNormOptions) => nn.InstanceNorm1d<AD> | nn.InstanceNorm2d<AD>): { outputs: F[]; module: nn.Module<AD> } {
  const m = make(x.b, a.num(x, 'num_features')!, { momentum: a.num(x, 'momentum')!, affine: a.bool(x, 'affine')!, trackRunningStats: a.bool(x, 'track_running_stats')! });
  load(m, x.c);
  m.train(a.bool(x, 'training')!);
  const y = m.forward(x.t['x']!);
  const stats = [m.runningMean, m.runningVar].filter((s) => s !== undefined).map((s) => s.value.clone());
  return { outputs: [y, ...stats], module: m };
}

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  conv1d: (x) => NF.conv1d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.Conv1dOptions<AD>),
  conv2d: (x) => NF.conv2d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.Conv2dOptions<AD>),
  conv_transpose1d: (x) => NF.convTranspose1d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.ConvTranspose1dOptions<AD>),
  conv_transpose2d: (x) => NF.convTranspose2d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.ConvTranspose2dOptions<AD>),
  Conv1d: (x) => {
    const m = new nn.Conv1d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, a.num(x, 'kernel_size')!, convLayerOptions(x) as nn.Conv1dLayerOptions);
    return moduleCase(x, m, () => m.forward(x.t['x']!));
  },
  Conv2d: (x) => {
    const m = new nn.Conv2d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, a.list(x, 'kernel_size') as NF.Pair, convLayerOptions(x) as nn.Conv2dLayerOptions);
    return moduleCase(x, m, () => m.forward(x.t['x']!));
  },
  ConvTranspose1d: (x) => {
    const m = new nn.ConvTranspose1d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, a.num(x, 'kernel_size')!, convLayerOptions(x) as nn.ConvTranspose1dLayerOptions);
    return moduleCase(x, m, () => m.forward(x.t['x']!));
  },
  ConvTranspose2d: (x) => {
    const m = new nn.ConvTranspose2d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, a.list(x, 'kernel_size') as NF.Pair, convLayerOptions(x) as nn.ConvTranspose2dLayerOptions);
    return moduleCase(x, m, () => m.forward(x.t['x']!));
  },
  ConvTranspose2d_output_size: (x) => {
    const m = new nn.ConvTranspose2d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, a.list(x, 'kernel_size') as NF.Pair, convLayerOptions(x) as nn.ConvTranspose2dLayerOptions);
    return moduleCase(x, m, () => m.forward(x.t['x']!, x.args['output_size'] as number[]));
  },
  max_pool2d: unary((t, x) => NF.maxPool2d(t, a.list(x, 'kernel_size') as NF.Pair, poolOptions(x))),
  avg_pool2d: unary((t, x) => NF.avgPool2d(t, a.list(x, 'kernel_size') as NF.Pair, poolOptions(x))),
  max_pool1d: unary((t, x) => NF.maxPool1d(t, a.num(x, 'kernel_size')!, poolOptions(x) as NF.Pool1dOptions)),
  avg_pool1d: unary((t, x) => NF.avgPool1d(t, a.num(x, 'kernel_size')!, poolOptions(x) as NF.Pool1dOptions)),
  adaptive_avg_pool1d: unary((t, x) => NF.adaptiveAvgPool1d(t, a.num(x, 'output_size')!)),
  adaptive_max_pool1d: unary((t, x) => NF.adaptiveMaxPool1d(t, a.num(x, 'output_size')!)),
  adaptive_avg_pool2d: unary((t, x) => NF.adaptiveAvgPool2d(t, x.args['output_size'] as NF.AdaptiveSize2d)),
  adaptive_max_pool2d: unary((t, x) => NF.adaptiveMaxPool2d(t, x.args['output_size'] as NF.AdaptiveSize2d)),
  conv3d: (x) => NF.conv3d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.Conv3dOptions<AD>),
  conv_transpose3d: (x) => NF.convTranspose3d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.ConvTranspose3dOptions<AD>),
  max_pool3d: unary((t, x) => NF.maxPool3d(t, a.list(x, 'kernel_size') as NF.Triple, poolOptions(x) as NF.MaxPool3dOptions)),
  avg_pool3d: unary((t, x) => NF.avgPool3d(t, a.list(x, 'kernel_size') as NF.Triple, poolOptions(x) as NF.AvgPool3dOptions)),
  adaptive_avg_pool3d: unary((t, x) => NF.adaptiveAvgPool3d(t, x.args['output_size'] as NF.AdaptiveSize3d)),
  adaptive_max_pool3d: unary((t, x) => NF.adaptiveMaxPool3d(t, x.args['output_size'] as NF.AdaptiveSize3d)),
  Embedding: (x) => {
    const pad = a.num(x, 'padding_idx');
    const maxNorm = a.num(x, 'max_norm');
    const m = new nn.Embedding(x.b, a.num(x, 'num_embeddings')!, a.num(x, 'embedding_dim')!, {
      ...(pad === undefined ? {} : { paddingIdx: pad }),
      ...(maxNorm === undefined ? {} : { maxNorm, normType: a.num(x, 'norm_type', 2)! }),
    });
    // With maxNorm the table after the lookup (renormalised rows) is compared too, outside the graph.
    return moduleCase(x, m, () => (maxNorm === undefined ? m.forward(x.int['indices']!) : [m.forward(x.int['indices']!), m.weight.value.detach()]));
  },
  EmbeddingBag: (x) => {
    const m = new nn.EmbeddingBag(x.b, a.num(x, 'num_embeddings')!, a.num(x, 'embedding_dim')!, { mode: x.args['mode'] as NF.EmbeddingBagMode });
    return moduleCase(x, m, () => m.forward(x.int['indices']!, x.int['offsets']));
  },
  LSTM: (x) => {
    const m = new nn.LSTM(x.b, a.num(x, 'input_size')!, a.num(x, 'hidden_size')!, rnnOptions(x));
    return moduleCase(x, m, () => {
      const y = m.forward(x.t['input']!, { ...(x.t['h0'] ? { h: x.t['h0'] } : {}), ...(x.t['c0'] ? { c: x.t['c0'] } : {}) });
      return [y.output, y.h, y.c];
    });
  },
  LSTM_proj: (x) => {
    const m = new nn.LSTM(x.b, a.num(x, 'input_size')!, a.num(x, 'hidden_size')!, { ...rnnOptions(x), projSize: a.num(x, 'proj_size')! });
    return moduleCase(x, m, () => {
      const y = m.forward(x.t['input']!);
      return [y.output, y.h, y.c];
    });
  },
  GRU: (x) => {
    const m = new nn.GRU(x.b, a.num(x, 'input_size')!, a.num(x, 'hidden_size')!, rnnOptions(x));
    return moduleCase(x, m, () => {
      const y = m.forward(x.t['input']!, x.t['h0']);
      return [y.output, y.h];
    });
  },
  RNN: (x) => {
    const m = new nn.RNN(x.b, a.num(x, 'input_size')!, a.num(x, 'hidden_size')!, { ...rnnOptions(x), nonlinearity: (x.args['nonlinearity'] ?? 'tanh') as 'tanh' | 'relu' });
    return moduleCase(x, m, () => {
      const y = m.forward(x.t['input']!, x.t['h0']);
      return [y.output, y.h];
    });
  },
  MultiheadAttention: (x) => multiheadAttention(x, a.bool(x, 'need_weights') ?? false),
  // The layers fixture's later MultiheadAttention options (layers2 has more cases of each).
  MultiheadAttention_per_head: (x) => multiheadAttention(x, true),
  MultiheadAttention_kvdim: (x) => multiheadAttention(x, false),
  MultiheadAttention_bias_kv: (x) => multiheadAttention(x, false),
  Linear: (x) => {
    const m = new nn.Linear(x.b, a.num(x, 'in_features')!, a.num(x, 'out_features')!, { bias: a.bool(x, 'bias')! });
    return moduleCase(x, m, () => m.forward(x.t['x']!));
  },
  Bilinear: (x) => {
    const m = new nn.Bilinear(x.b, a.num(x, 'in1_features')!, a.num(x, 'in2_features')!, a.num(x, 'out_features')!);
    return moduleCase(x, m, () => m.forward(x.t['x1']!, x.t['x2']!));
  },
  LocalResponseNorm: unary((t, x) => NF.localResponseNorm(t, a.num(x, 'size')!)),
  lp_pool2d: unary((t, x) => NF.lpPool2d(t, a.num(x, 'norm_type')!, a.list(x, 'kernel_size') as NF.Pair, poolOptions(x))),
  lp_pool1d: unary((t, x) => NF.lpPool1d(t, a.num(x, 'norm_type')!, a.num(x, 'kernel_size')!, poolOptions(x) as NF.Pool1dOptions)),
  // The fixture keeps only the values of max_pool2d(return_indices=True); layers2 compares the indices.
  max_pool2d_with_indices: unary((t, x) => NF.maxPool2d(t, a.list(x, 'kernel_size') as NF.Pair, { ...poolOptions(x), returnIndices: true }).values),
  linear: (x) => x.t['x']!.matmul(x.t['weight']!.transpose()).add(x.t['bias']!),
  BatchNorm1d: (x) => batchNorm(x, (b, c, o) => new nn.BatchNorm1d(b, c, o)),
  BatchNorm2d: (x) => batchNorm(x, (b, c, o) => new nn.BatchNorm2d(b, c, o)),
  InstanceNorm1d: (x) => instanceNorm(x, (b, c, o) => new nn.InstanceNorm1d(b, c, o)),
  InstanceNorm2d: (x) => instanceNorm(x, (b, c, o) => new nn.InstanceNorm2d(b, c, o)),
  LayerNorm: (x) => {
    const m = new nn.LayerNorm(x.b, x.args['normalized_shape'] as number[], { eps: a.num(x, 'eps')!, elementwiseAffine: a.bool(x, 'elementwise_affine')! });
    return moduleCase(x, m, () => m.forward(x.t['x']!));
  },
  GroupNorm: (x) => {
    const m = new nn.GroupNorm(x.b, a.num(x, 'num_groups')!, a.num(x, 'num_channels')!, { affine: a.bool(x, 'affine')! });
    return moduleCase(x, m, () => m.forward(x.t['x']!));
  },
};

const UNSUPPORTED: Readonly<Record<string, string>> = {
};

const KNOWN: readonly Known[] = [];

await torchVectorSuite({ groups: ['layers'], adapters: ADAPTERS, unsupported: UNSUPPORTED, known: KNOWN });
