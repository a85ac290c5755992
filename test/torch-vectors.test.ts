/**
 * Switchyard against PyTorch's own outputs ("other peers' vectors"): every JSON file in
 * test/fixtures/torch/ (written by tools/torch-vectors/gen.py, see there for the format) is run
 * case by case on every test backend, and the outputs and the gradients of
 * sum_k sum(output_k * g_k) are compared with torch's float32 values, within the tolerance the
 * file states for its group (a case may state its own): |ours - torch| <= atol + rtol |torch|,
 * NaN matching NaN and an infinity the same infinity. Where a mismatch is within float32 rounding
 * of torch's own float64 result (ref64), the message says so.
 *
 * A JSON op maps to our API through ADAPTERS. Ops we do not have are in UNSUPPORTED (named, with
 * the reason); known differences are in KNOWN, each with the torch versions it concerns, so that
 * fixtures from another torch (`/usr/bin/python3 tools/torch-vectors/gen.py test/fixtures/torch`
 * on that machine) are held to what that version does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Autodiff } from '../src/autodiff/autodiff.js';
import type { Backend } from '../src/backends/backend.js';
import type { Module } from '../src/nn/module.js';
import { GRU, LSTM, TransformerDecoderLayer, TransformerEncoderLayer } from '../src/nn/index.js';
import * as NF from '../src/nn/functional/index.js';
import * as nn from '../src/nn/index.js';
import { encodeSafetensors, type SafeTensor } from '../src/record/safetensors.js';
import { loadTorchStateDict, torchEntries } from '../src/record/torch.js';
import { fromData } from '../src/tensor/creation.js';
import { einsum } from '../src/tensor/einsum.js';
import type { Tensor } from '../src/tensor/tensor.js';
import { testBackends } from './autodiff/backends.js';

type AD = Autodiff<Backend>;
type F = Tensor<AD, 'float'>;
type I = Tensor<AD, 'int'>;
type Bool = Tensor<AD, 'bool'>;
type Num = number | 'nan' | 'inf' | '-inf';
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Input {
  readonly name: string;
  readonly shape: number[];
  readonly dtype: 'float32' | 'int64' | 'bool';
  readonly data: Array<Num | boolean>;
  readonly grad: boolean;
}

interface Tolerance {
  readonly rtol: number;
  readonly atol: number;
}

interface Case {
  readonly name: string;
  readonly op: string;
  readonly args: Readonly<Record<string, Json>>;
  readonly inputs: Input[];
  readonly outputs: Array<{ shape: number[]; data: Num[] }>;
  readonly grads: Readonly<Record<string, Num[]>>;
  readonly ref64?: { outputs: Num[][]; grads: Readonly<Record<string, Num[]>> };
  readonly state_dict?: Readonly<Record<string, { shape: number[]; data: Num[] }>>;
  readonly tolerance?: Tolerance;
}

interface Fixture {
  readonly group: string;
  readonly torch: string;
  readonly generator: number;
  readonly tolerance: Tolerance;
  readonly note: string;
  readonly absent: Array<{ op: string; reason: string }>;
  readonly cases: Case[];
}

const DIR = fileURLToPath(new URL('./fixtures/torch/', import.meta.url));
const FIXTURES: Fixture[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(DIR + f, 'utf8')) as Fixture);

const num = (v: Num | boolean): number => (typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : v === 'nan' ? NaN : v === 'inf' ? Infinity : -Infinity);

/** torch.__version__ '1.13.0a0', '2.5.1+cpu' -> [major, minor]. */
function version(v: string): [number, number] {
  const m = /^(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}
const before = (v: string, major: number, minor: number): boolean => {
  const [a, b] = version(v);
  return a < major || (a === major && b < minor);
};

/** The fixed gradient weight g_k of output k (gen.py's gweight). */
function weight(n: number, k: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => (((i * 37 + 11 * k + 5) % 17) - 8) / 8);
}

// ------------------------------------------------------------------------------------------------
// Adapters: JSON op -> our API.

interface Ctx {
  readonly b: AD;
  readonly args: Readonly<Record<string, Json>>;
  /** Inputs by name (float, int or bool tensors). */
  readonly t: Readonly<Record<string, F>>;
  readonly int: Readonly<Record<string, I>>;
  readonly bool: Readonly<Record<string, Bool>>;
  /** The inputs in file order. */
  readonly list: ReadonlyArray<F | I | Bool>;
  readonly c: Case;
}

/** An adapter returns the outputs, and the module when the case has a state dict. */
type Result = F | F[] | { outputs: F[]; module: Module<AD> };
type Adapter = (x: Ctx) => Result;

const a = {
  num: (x: Ctx, k: string, d?: number): number | undefined => (x.args[k] === undefined || x.args[k] === null ? d : num(x.args[k] as Num)),
  bool: (x: Ctx, k: string): boolean | undefined => (x.args[k] === undefined ? undefined : (x.args[k] as boolean)),
  list: (x: Ctx, k: string): number | number[] | undefined => (x.args[k] === undefined || x.args[k] === null ? undefined : (x.args[k] as number | number[])),
  red: (x: Ctx): 'none' | 'mean' | 'sum' => x.args['reduction'] as 'none' | 'mean' | 'sum',
};
/** A float or int input (targets are either). */
const target = (x: Ctx, name = 'target'): F | I => x.t[name] ?? x.int[name]!;

const unary = (f: (t: F, x: Ctx) => F): Adapter => (x) => f(x.t['x']!, x);

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  // interpolate
  interpolate: unary((t, x) =>
    NF.interpolate(t, {
      ...(x.args['size'] !== undefined ? { size: a.list(x, 'size')! } : {}),
      ...(x.args['scale_factor'] !== undefined ? { scaleFactor: a.list(x, 'scale_factor')! } : {}),
      mode: x.args['mode'] as NF.InterpolateMode,
      ...(x.args['align_corners'] !== undefined ? { alignCorners: a.bool(x, 'align_corners')! } : {}),
      ...(x.args['recompute_scale_factor'] !== undefined ? { recomputeScaleFactor: a.bool(x, 'recompute_scale_factor')! } : {}),
    }),
  ),
  pixel_shuffle: unary((t, x) => NF.pixelShuffle(t, a.num(x, 'upscale_factor')!)),
  pixel_unshuffle: unary((t, x) => NF.pixelUnshuffle(t, a.num(x, 'downscale_factor')!)),
  // activations
  elu: unary((t, x) => NF.elu(t, a.num(x, 'alpha', 1))),
  celu: unary((t, x) => NF.celu(t, a.num(x, 'alpha', 1))),
  selu: unary((t) => NF.selu(t)),
  glu: unary((t, x) => NF.glu(t, a.num(x, 'dim', -1))),
  logsigmoid: unary((t) => NF.logSigmoid(t)),
  softsign: unary((t) => NF.softsign(t)),
  tanhshrink: unary((t) => NF.tanhshrink(t)),
  hardshrink: unary((t, x) => NF.hardshrink(t, a.num(x, 'lambd', 0.5))),
  softshrink: unary((t, x) => NF.softshrink(t, a.num(x, 'lambd', 0.5))),
  threshold: unary((t, x) => NF.threshold(t, a.num(x, 'threshold')!, a.num(x, 'value')!)),
  softmin: unary((t, x) => NF.softmin(t, a.num(x, 'dim')!)),
  softmax: unary((t, x) => t.softmax(a.num(x, 'dim')!)),
  log_softmax: unary((t, x) => t.logSoftmax(a.num(x, 'dim')!)),
  prelu: (x) => NF.prelu(x.t['x']!, x.t['weight']!),
  gelu: unary((t, x) => NF.gelu(t, x.args['approximate'] as 'none' | 'tanh')),
  silu: unary((t) => NF.silu(t)),
  mish: unary((t) => NF.mish(t)),
  hardswish: unary((t) => NF.hardswish(t)),
  hardsigmoid: unary((t) => NF.hardsigmoid(t)),
  softplus: unary((t, x) => NF.softplus(t, a.num(x, 'beta', 1), a.num(x, 'threshold', 20))),
  leaky_relu: unary((t, x) => NF.leakyRelu(t, a.num(x, 'negative_slope', 0.01))),
  hardtanh: unary((t, x) => NF.hardtanh(t, a.num(x, 'min_val', -1), a.num(x, 'max_val', 1))),
  relu6: unary((t) => NF.relu6(t)),
  relu: unary((t) => t.relu()),
  sigmoid: unary((t) => t.sigmoid()),
  tanh: unary((t) => t.tanh()),
  // losses
  cross_entropy: (x) => nn.crossEntropy(x.t['input']!, target(x), { weight: x.t['weight'], ignoreIndex: a.num(x, 'ignore_index', -100), labelSmoothing: a.num(x, 'label_smoothing', 0), reduction: a.red(x) }),
  nll_loss: (x) => nn.nllLoss(x.t['input']!, x.int['target']!, { weight: x.t['weight'], ignoreIndex: a.num(x, 'ignore_index', -100), reduction: a.red(x) }),
  binary_cross_entropy: (x) => nn.binaryCrossEntropy(x.t['input']!, x.t['target']!, { weight: x.t['weight'], reduction: a.red(x) }),
  binary_cross_entropy_with_logits: (x) => nn.binaryCrossEntropyWithLogits(x.t['input']!, x.t['target']!, { weight: x.t['weight'], posWeight: x.t['pos_weight'], reduction: a.red(x) }),
  mse_loss: (x) => nn.mseLoss(x.t['input']!, x.t['target']!, { reduction: a.red(x) }),
  l1_loss: (x) => nn.l1Loss(x.t['input']!, x.t['target']!, { reduction: a.red(x) }),
  smooth_l1_loss: (x) => nn.smoothL1Loss(x.t['input']!, x.t['target']!, { beta: a.num(x, 'beta', 1)!, reduction: a.red(x) }),
  huber_loss: (x) => nn.huberLoss(x.t['input']!, x.t['target']!, { delta: a.num(x, 'delta', 1)!, reduction: a.red(x) }),
  kl_div: (x) => nn.klDiv(x.t['input']!, x.t['target']!, { reduction: x.args['reduction'] as 'batchmean', logTarget: a.bool(x, 'log_target') ?? false }),
  margin_ranking_loss: (x) => nn.marginRankingLoss(x.t['input1']!, x.t['input2']!, x.t['target']!, { margin: a.num(x, 'margin', 0)!, reduction: a.red(x) }),
  hinge_embedding_loss: (x) => nn.hingeEmbeddingLoss(x.t['input']!, target(x), { margin: a.num(x, 'margin', 1)!, reduction: a.red(x) }),
  soft_margin_loss: (x) => nn.softMarginLoss(x.t['input']!, x.t['target']!, { reduction: a.red(x) }),
  multilabel_soft_margin_loss: (x) => nn.multiLabelSoftMarginLoss(x.t['input']!, x.t['target']!, { weight: x.t['weight'], reduction: a.red(x) }),
  cosine_embedding_loss: (x) => nn.cosineEmbeddingLoss(x.t['input1']!, x.t['input2']!, target(x), { margin: a.num(x, 'margin', 0)!, reduction: a.red(x) }),
  triplet_margin_loss: (x) =>
    nn.tripletMarginLoss(x.t['anchor']!, x.t['positive']!, x.t['negative']!, { margin: a.num(x, 'margin', 1)!, p: a.num(x, 'p', 2)!, swap: a.bool(x, 'swap') ?? false, reduction: a.red(x) }),
  poisson_nll_loss: (x) => nn.poissonNllLoss(x.t['input']!, x.t['target']!, { logInput: a.bool(x, 'log_input') ?? true, full: a.bool(x, 'full') ?? false, reduction: a.red(x) }),
  gaussian_nll_loss: (x) => nn.gaussianNllLoss(x.t['input']!, x.t['target']!, x.t['var']!, { full: a.bool(x, 'full') ?? false, reduction: a.red(x) }),
  multi_margin_loss: (x) => nn.multiMarginLoss(x.t['input']!, x.int['target']!, { p: a.num(x, 'p', 1) as 1 | 2, margin: a.num(x, 'margin', 1)!, weight: x.t['weight'], reduction: a.red(x) }),
  // norms, distances
  layer_norm: (x) => NF.layerNorm(x.t['x']!, x.args['normalized_shape'] as number[], { weight: x.t['weight'], bias: x.t['bias'], eps: a.num(x, 'eps', 1e-5)! }),
  group_norm: (x) => NF.groupNorm(x.t['x']!, a.num(x, 'num_groups')!, { weight: x.t['weight'], bias: x.t['bias'], eps: a.num(x, 'eps', 1e-5)! }),
  // The running statistics' update (momentum) is the layers' business here, not batchNorm's: only the output is compared.
  batch_norm: (x) => NF.batchNorm(x.t['x']!, x.t['running_mean'], x.t['running_var'], { weight: x.t['weight'], bias: x.t['bias'], training: a.bool(x, 'training')!, eps: a.num(x, 'eps', 1e-5)! }),
  instance_norm: (x) =>
    NF.instanceNorm(x.t['x']!, { runningMean: x.t['running_mean'], runningVar: x.t['running_var'], weight: x.t['weight'], bias: x.t['bias'], useInputStats: a.bool(x, 'use_input_stats') ?? true, eps: a.num(x, 'eps', 1e-5)! }),
  rms_norm: (x) => NF.rmsNorm(x.t['x']!, x.args['normalized_shape'] as number[], { weight: x.t['weight'], ...(x.args['eps'] !== undefined ? { eps: a.num(x, 'eps')! } : {}) }),
  normalize: (x) => NF.normalize(x.t['x']!, { p: a.num(x, 'p', 2)!, dim: a.num(x, 'dim', 1)!, eps: a.num(x, 'eps', 1e-12)! }),
  cosine_similarity: (x) => NF.cosineSimilarity(x.t['x1']!, x.t['x2']!, { dim: a.num(x, 'dim', 1)!, eps: a.num(x, 'eps', 1e-8)! }),
  pairwise_distance: (x) => NF.pairwiseDistance(x.t['x1']!, x.t['x2']!, { p: a.num(x, 'p', 2)!, eps: a.num(x, 'eps', 1e-6)!, keepDims: a.bool(x, 'keepdim') ?? false }),
  vector_norm: (x) => x.t['x']!.norm(a.num(x, 'ord', 2), (x.args['dim'] ?? undefined) as number | number[] | undefined, a.bool(x, 'keepdim') ?? false),
  // misc
  einsum: (x) => einsum(x.args['equation'] as string, x.list as F[]),
  adaptive_avg_pool1d: unary((t, x) => NF.adaptiveAvgPool1d(t, a.num(x, 'output_size')!)),
  adaptive_max_pool1d: unary((t, x) => NF.adaptiveMaxPool1d(t, a.num(x, 'output_size')!)),
  adaptive_avg_pool2d: unary((t, x) => NF.adaptiveAvgPool2d(t, x.args['output_size'] as NF.AdaptiveSize2d)),
  adaptive_max_pool2d: unary((t, x) => NF.adaptiveMaxPool2d(t, x.args['output_size'] as NF.AdaptiveSize2d)),
  max_pool2d: unary((t, x) => NF.maxPool2d(t, a.list(x, 'kernel_size') as NF.Pair, poolOptions(x))),
  avg_pool2d: unary((t, x) => NF.avgPool2d(t, a.list(x, 'kernel_size') as NF.Pair, poolOptions(x))),
  max_pool1d: unary((t, x) => NF.maxPool1d(t, a.num(x, 'kernel_size')!, poolOptions(x) as NF.Pool1dOptions)),
  avg_pool1d: unary((t, x) => NF.avgPool1d(t, a.num(x, 'kernel_size')!, poolOptions(x) as NF.Pool1dOptions)),
  conv1d: (x) => NF.conv1d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.Conv1dOptions<AD>),
  conv2d: (x) => NF.conv2d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.Conv2dOptions<AD>),
  conv_transpose1d: (x) => NF.convTranspose1d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.ConvTranspose1dOptions<AD>),
  conv_transpose2d: (x) => NF.convTranspose2d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.ConvTranspose2dOptions<AD>),
  scaled_dot_product_attention: (x) =>
    NF.scaledDotProductAttention(x.t['q']!, x.t['k']!, x.t['v']!, { attnMask: x.t['attn_mask'] ?? x.bool['attn_mask'], isCausal: a.bool(x, 'is_causal') ?? false, ...(x.args['scale'] !== undefined ? { scale: a.num(x, 'scale')! } : {}) }),
  // modules
  TransformerEncoderLayer: (x) => {
    const m = new TransformerEncoderLayer(x.b, a.num(x, 'd_model')!, a.num(x, 'nhead')!, layerOptions(x));
    load(m, x.c);
    const mask = x.t['src_mask'] ?? x.bool['src_mask'];
    return { outputs: [m.forward(x.t['src']!, { ...(mask ? { mask } : {}), ...(x.bool['src_key_padding_mask'] ? { srcKeyPaddingMask: x.bool['src_key_padding_mask'] } : {}) })], module: m };
  },
  TransformerDecoderLayer: (x) => {
    const m = new TransformerDecoderLayer(x.b, a.num(x, 'd_model')!, a.num(x, 'nhead')!, layerOptions(x));
    load(m, x.c);
    const call = { tgtMask: x.bool['tgt_mask'], memoryMask: x.bool['memory_mask'], tgtKeyPaddingMask: x.bool['tgt_key_padding_mask'], memoryKeyPaddingMask: x.bool['memory_key_padding_mask'] };
    return { outputs: [m.forward(x.t['tgt']!, x.t['memory']!, call)], module: m };
  },
  LSTM: (x) => {
    const m = new LSTM(x.b, a.num(x, 'input_size')!, a.num(x, 'hidden_size')!, rnnOptions(x));
    load(m, x.c);
    const y = m.forward(x.t['input']!, { ...(x.t['h0'] ? { h: x.t['h0'] } : {}), ...(x.t['c0'] ? { c: x.t['c0'] } : {}) });
    return { outputs: [y.output, y.h, y.c], module: m };
  },
  GRU: (x) => {
    const m = new GRU(x.b, a.num(x, 'input_size')!, a.num(x, 'hidden_size')!, rnnOptions(x));
    load(m, x.c);
    const y = m.forward(x.t['input']!, x.t['h0']);
    return { outputs: [y.output, y.h], module: m };
  },
};

function poolOptions(x: Ctx): NF.MaxPool2dOptions & NF.AvgPool2dOptions {
  const o: Record<string, unknown> = {};
  for (const [k, ours] of [['stride', 'stride'], ['padding', 'padding'], ['dilation', 'dilation'], ['ceil_mode', 'ceilMode'], ['count_include_pad', 'countIncludePad'], ['divisor_override', 'divisorOverride']] as const) {
    if (x.args[k] !== undefined) o[ours] = x.args[k];
  }
  return o;
}

function convOptions(x: Ctx): Record<string, unknown> {
  const o: Record<string, unknown> = { bias: x.t['bias'] };
  for (const [k, ours] of [['stride', 'stride'], ['padding', 'padding'], ['dilation', 'dilation'], ['groups', 'groups'], ['output_padding', 'outputPadding']] as const) {
    if (x.args[k] !== undefined) o[ours] = x.args[k];
  }
  return o;
}

function layerOptions(x: Ctx): nn.TransformerEncoderLayerOptions {
  return { dimFeedforward: a.num(x, 'dim_feedforward')!, dropout: 0, activation: x.args['activation'] as 'relu' | 'gelu', layerNormEps: a.num(x, 'layer_norm_eps', 1e-5)!, normFirst: a.bool(x, 'norm_first')! };
}

function rnnOptions(x: Ctx): nn.RnnOptions {
  return { numLayers: a.num(x, 'num_layers')!, bidirectional: a.bool(x, 'bidirectional')!, batchFirst: a.bool(x, 'batch_first')! };
}

/** The case's state dict into `m`, through safetensors bytes as a file from torch would come. */
function load(m: Module<AD>, c: Case): void {
  const tensors: Record<string, SafeTensor> = {};
  for (const [k, v] of Object.entries(c.state_dict ?? {})) tensors[k] = { dtype: 'float32', shape: v.shape, data: Float32Array.from(v.data, num) };
  loadTorchStateDict(m, encodeSafetensors(tensors));
}

// ------------------------------------------------------------------------------------------------
// What we do not run, and what differs knowingly.

/** Ops in the fixtures that Switchyard does not have (none so far). */
const UNSUPPORTED: Readonly<Record<string, string>> = {};

interface Known {
  readonly group: string;
  readonly cases: RegExp;
  /** The fixtures' torch versions this applies to. */
  readonly torch: (v: string) => boolean;
  readonly versions: string;
  /**
   * 'version': torch changed between versions, ours follows the newer; 'torch': torch's gradient
   * is not the derivative of its own forward (or its kernels disagree with each other), ours is
   * kept; 'ours': a deliberate difference of ours.
   */
  readonly kind: 'version' | 'torch' | 'ours';
  readonly why: string;
}

const all = (): boolean => true;
const before2 = (v: string): boolean => before(v, 2, 0);

/**
 * Each entry expects its cases to disagree with the fixture (so it is noticed when they stop
 * disagreeing: then narrow `torch`). Entries for torch < 2.0 are what 1.13 showed; fixtures from
 * 2.x are held to the plain comparison for them.
 */
const KNOWN: readonly Known[] = [
  {
    group: 'interpolate',
    cases: /^3d nearest scale_factor=(1\.1|2\.05)$/,
    torch: before2,
    versions: '1.13',
    kind: 'version',
    why: "torch 1.13's 3-D nearest forward takes floor(i / scale) even where the output is the input's size (1.1 on 5) or double it (2.05 on 5); ours copies / halves there, nearest_idx's shortcuts, which interpolate.ts follows for 3-D and 4-D (1.13's 4-D path does too)",
  },
  {
    group: 'interpolate',
    cases: /^5d nearest scale_factor=(1\.1|\[2\.05, 1\.0, 0\.6\])$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only: torch's nearest backward maps with nearest_idx (copy at equal size, halve at double) while its contiguous 5-D forward takes floor(i / scale) everywhere; ours is the derivative of the (matching) forward",
  },
  {
    group: 'interpolate',
    cases: /^4d bicubic ac=False scale_factor=1\.1$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only: torch's bicubic backward copies the gradient when the output size equals the input's (5x6 at 1.1), though its forward resamples at 1 / 1.1; ours is the derivative of the (matching) forward",
  },
  {
    group: 'activations',
    cases: /^softshrink( lambd=1\.5)? non-finite$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'ours',
    why: 'softshrink(NaN) is NaN here (as hardshrink in torch); torch 1.13 gives 0 (its kernel falls through to the 0 branch)',
  },
  {
    group: 'activations',
    cases: /^hardswish( non-finite)?$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "torch 1.13's vectorised hardswish backward gives 1 at x = 3 and NaN at NaN, its scalar tail 1.5 at x = 3 and 1 at NaN (so it depends on the element's position); ours is 1.5 at 3 (x / 3 + 1/2 on [-3, 3]) and NaN at NaN",
  },
  {
    group: 'losses',
    cases: /^smooth_l1_loss beta=0\.0 reduction=/,
    torch: before2,
    versions: '1.13',
    kind: 'version',
    why: "with beta 0, torch 1.13 runs the smooth-L1 kernel, whose gradient at a zero difference is -1 (x <= -beta); torch 2.x's F.smooth_l1_loss calls l1_loss for beta 0 (gradient 0 there, as ours)",
  },
  {
    group: 'losses',
    cases: /^binary_cross_entropy at 0 and 1 reduction=/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "the target's gradient at probabilities 0 and 1: torch's is -logit(x) unclamped (+-inf, NaN), though its forward clamps the logs at -100; ours is the derivative of the clamped forward (+-100 g)",
  },
  {
    group: 'losses',
    cases: /^kl_div zero target reduction=/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'ours',
    why: "the target's gradient where the target is 0 (d/dt t log t is -inf there): torch's is NaN (xlogy's 0 / 0), ours finite",
  },
  {
    group: 'norms',
    cases: /^cosine_similarity eps=0\.5$/,
    torch: before2,
    versions: '1.13',
    kind: 'version',
    why: "gradient only, where a norm is below eps: ours follows torch 2.x (each input divided by its norm clamped under no_grad, distance.ts); torch 1.13's implementation differentiates differently (the outputs agree)",
  },
];

// ------------------------------------------------------------------------------------------------
// Running and comparing.

function mismatch(got: ArrayLike<number>, want: readonly Num[], tol: Tolerance, ref?: readonly Num[]): string | undefined {
  if (got.length !== want.length) return `length ${got.length}, torch ${want.length}`;
  const bad: string[] = [];
  let count = 0;
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!;
    const w = num(want[i]!);
    const ok = Number.isNaN(w) ? Number.isNaN(g) : !Number.isFinite(w) ? g === w : Math.abs(g - w) <= tol.atol + tol.rtol * Math.abs(w);
    if (ok) continue;
    count++;
    if (bad.length < 6) bad.push(`[${i}] ours ${g} torch ${w}${ref ? ` torch64 ${num(ref[i]!)}` : ''}`);
  }
  return count === 0 ? undefined : `${count} of ${want.length} differ: ${bad.join('; ')}`;
}

async function runCase(b: AD, c: Case, tol: Tolerance): Promise<string[]> {
  const adapter = ADAPTERS[c.op];
  if (!adapter) throw new Error(`no adapter for op '${c.op}': add one, or name it in UNSUPPORTED with the reason`);
  const made: Array<Tensor<AD>> = [];
  const t: Record<string, F> = {};
  const int: Record<string, I> = {};
  const bool: Record<string, Bool> = {};
  const list: Array<F | I | Bool> = [];
  const leaves: Array<[string, F]> = [];
  for (const input of c.inputs) {
    if (input.dtype === 'float32') {
      let x = fromData(b, Float32Array.from(input.data, num), { shape: input.shape });
      if (input.grad) {
        x = x.requireGrad();
        leaves.push([input.name, x]);
      }
      t[input.name] = x;
      list.push(x);
      made.push(x);
    } else if (input.dtype === 'int64') {
      const x = fromData(b, Int32Array.from(input.data, num), { shape: input.shape });
      int[input.name] = x;
      list.push(x);
      made.push(x);
    } else {
      const x = fromData(b, Uint8Array.from(input.data, num), { shape: input.shape });
      bool[input.name] = x;
      list.push(x);
      made.push(x);
    }
  }
  const result = adapter({ b, args: c.args, t, int, bool, list, c });
  const outputs = Array.isArray(result) ? result : 'outputs' in result ? result.outputs : [result];
  const module = !Array.isArray(result) && 'module' in result ? result.module : undefined;
  const problems: string[] = [];
  if (outputs.length !== c.outputs.length) return [`${outputs.length} outputs, torch ${c.outputs.length}`];
  for (const [k, o] of outputs.entries()) {
    const want = c.outputs[k]!;
    if (o.shape.length !== want.shape.length || o.shape.some((d, i) => d !== want.shape[i])) {
      problems.push(`output ${k}: shape [${o.shape.join(', ')}], torch [${want.shape.join(', ')}]`);
      continue;
    }
    const m = mismatch((await o.toData()).values, want.data, tol, c.ref64?.outputs[k]);
    if (m) problems.push(`output ${k}: ${m}`);
  }
  const params = module ? torchEntries(module) : [];
  if (leaves.length + params.length > 0 && problems.length === 0) {
    const ws = outputs.map((o, k) => fromData(b, weight(o.size, k), { shape: o.shape }));
    let loss = outputs[0]!.mul(ws[0]!).sum();
    for (let k = 1; k < outputs.length; k++) loss = loss.add(outputs[k]!.mul(ws[k]!).sum());
    const grads = loss.backward();
    const check = async (name: string, g: F | undefined, transpose: boolean): Promise<void> => {
      const want = c.grads[name];
      if (!want) return void problems.push(`torch recorded no gradient for '${name}'`);
      let got: Float32Array = g ? (await g.toData()).values : new Float32Array(want.length);
      if (g && transpose && g.rank === 2) {
        const [r, cl] = g.shape as [number, number];
        const tr = new Float32Array(got.length);
        for (let i = 0; i < r; i++) for (let j = 0; j < cl; j++) tr[j * r + i] = got[i * cl + j]!;
        got = tr;
      }
      const m = mismatch(got, want, tol, c.ref64?.grads[name]);
      if (m) problems.push(`grad ${name}: ${m}`);
    };
    for (const [name, x] of leaves) await check(name, x.grad(grads), false);
    for (const e of params) await check(e.key, e.param.value.grad(grads), e.layout === 'transpose');
    grads.dispose();
    loss.dispose();
    for (const w of ws) w.dispose();
  }
  for (const o of outputs) o.dispose();
  module?.dispose();
  for (const x of made) x.dispose();
  return problems;
}

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

for (const fx of FIXTURES) {
  describe(`torch ${fx.torch} vectors: ${fx.group} (${fx.cases.length} cases; rtol ${fx.tolerance.rtol}, atol ${fx.tolerance.atol})`, () => {
    it('the fixture names its torch version and every op maps to an adapter or a named skip', () => {
      expect(fx.torch).toMatch(/^\d+\.\d+/);
      for (const c of fx.cases) expect(ADAPTERS[c.op] !== undefined || UNSUPPORTED[c.op] !== undefined, `op '${c.op}' of '${c.name}'`).toBe(true);
    });
    for (const absent of fx.absent) it.skip(`torch ${fx.torch} lacks ${absent.op}: ${absent.reason}`, () => {});
    for (const tb of backends) {
      describe(tb.name, () => {
        for (const c of fx.cases) {
          if (UNSUPPORTED[c.op] !== undefined) {
            it.skip(`${c.name}: unsupported (${UNSUPPORTED[c.op]})`, () => {});
            continue;
          }
          const known = KNOWN.find((k) => k.group === fx.group && k.cases.test(c.name) && k.torch(fx.torch));
          const tol = c.tolerance ?? fx.tolerance;
          if (known) {
            it(`${c.name} [known (${known.kind}, torch ${known.versions}): ${known.why}]`, async () => {
              expect((await runCase(tb.backend, c, tol)).length, 'a known difference went away: update KNOWN').toBeGreaterThan(0);
            });
            continue;
          }
          it(c.name, async () => {
            const problems = await runCase(tb.backend, c, tol);
            expect(problems.join('\n'), `${c.name} on ${tb.name} (torch ${fx.torch})`).toBe('');
          });
        }
      });
    }
  });
}

