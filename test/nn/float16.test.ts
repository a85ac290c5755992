/**
 * float16 through the nn layer: every functional op, loss and module runs in float16 and in
 * float32 on the same float16-representable inputs, parameters, masks and gradient seeds.
 *
 * The law: the float16 output has dtype float16 and equals the float32 output within float16
 * rounding, and so does every gradient (inputs and trainable parameters; each must exist and be
 * float16). Each float16 op rounds its result to the nearest float16 (unit roundoff u = 2^-11),
 * an error that a composition of m ops carries forward about m times, and that a sum of n terms
 * grows to at most (n - 1) u of the terms' magnitudes (the standard bound for a sum computed in
 * that precision). A reduction's rounding error is relative to the magnitudes summed, not to the
 * result (cancellation), so the tolerance is relative to the element plus the largest magnitude of
 * the result:
 *
 *   |f16 - f32| <= k u (|f32| + max |f32|)
 *
 * with k = 16 for an op or a short composition (a generous bound on the roundings on one path),
 * more where the case says why (recurrences, attention), and k = 16 + n for a loss that sums n
 * terms. Gradients run the backward rules too (about twice as many roundings): 2k.
 *
 * CPU always; WebGPU (Dawn on lavapipe here) when an adapter exists, and with CI=true a missing
 * adapter fails (test/autodiff/backends.ts's makeWgpu).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import type { FloatDType } from '../../src/ir/dtype.js';
import { roundHalf } from '../../src/ir/half.js';
import { tidy } from '../../src/memory/tidy.js';
import {
  AdaptiveAvgPool1d,
  AdaptiveAvgPool2d,
  AdaptiveMaxPool1d,
  AdaptiveMaxPool2d,
  AvgPool1d,
  AvgPool2d,
  BatchNorm1d,
  BatchNorm2d,
  Conv1d,
  Conv2d,
  ConvTranspose1d,
  ConvTranspose2d,
  Dropout,
  Embedding,
  Flatten,
  Gelu,
  GroupNorm,
  GRU,
  Hardsigmoid,
  Hardswish,
  Hardtanh,
  Identity,
  LayerNorm,
  LeakyRelu,
  Linear,
  LogSoftmax,
  LSTM,
  MaxPool1d,
  MaxPool2d,
  Mish,
  Module,
  MultiheadAttention,
  PositionWiseFeedForward,
  Relu,
  Relu6,
  RMSNorm,
  Selu,
  Sequential,
  Sigmoid,
  Silu,
  Softmax,
  Softplus,
  Tanh,
  TransformerEncoderLayer,
} from '../../src/nn/index.js';
import {
  adaptiveAvgPool1d,
  adaptiveAvgPool2d,
  adaptiveMaxPool1d,
  adaptiveMaxPool2d,
  avgPool1d,
  avgPool2d,
  batchNorm,
  conv1d,
  conv2d,
  convTranspose1d,
  convTranspose2d,
  dropout,
  gelu,
  groupNorm,
  hardsigmoid,
  hardswish,
  hardtanh,
  layerNorm,
  leakyRelu,
  maxPool1d,
  maxPool2d,
  mish,
  relu6,
  rmsNorm,
  scaledDotProductAttention,
  attentionWeights,
  selu,
  silu,
  softplus,
} from '../../src/nn/functional/index.js';
import { binaryCrossEntropy, binaryCrossEntropyWithLogits, crossEntropy, nllLoss } from '../../src/nn/loss.js';
import { huberLoss, klDiv, l1Loss, mseLoss, smoothL1Loss } from '../../src/nn/regression-loss.js';
import { loadTorchStateDict, saveTorchStateDict } from '../../src/record/torch.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { makeWgpu } from '../autodiff/backends.js';
import type { AD, F } from './check.js';
import { Rng } from '../conformance/rng.js';

const U = 2 ** -11;

const backends: Array<{ name: string; b: AD }> = [{ name: 'cpu', b: new Autodiff(new Cpu({ threads: 0 })) }];
const wgpu = await makeWgpu();
if (wgpu) backends.push({ name: 'wgpu', b: new Autodiff(wgpu) });
else console.warn('float16 nn tests: no WebGPU adapter, CPU only (CI=true makes this a failure)');
afterAll(async () => {
  for (const { b } of backends) await b.close();
});

/** A deterministic stream in [0, 1) (the conformance suite's mulberry32). */
function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}

const count = (shape: readonly number[]): number => shape.reduce((a, d) => a * d, 1);

/** `n` float16-representable values uniform in [lo, hi]. */
function halves(n: number, next: () => number, lo = -2, hi = 2): number[] {
  return Array.from({ length: n }, () => roundHalf(lo + (hi - lo) * next()));
}

/** A float tensor of `dtype` holding `values` (float16-representable, so both dtypes hold the same numbers). */
function lit(b: AD, values: readonly number[], shape: readonly number[], dtype: FloatDType): F {
  return fromData(b, Float32Array.from(values), { shape, dtype });
}

function ints(b: AD, values: readonly number[], shape: readonly number[] = [values.length]): Tensor<AD, 'int'> {
  return fromData(b, Int32Array.from(values), { shape });
}

function bools(b: AD, values: readonly number[], shape: readonly number[]): Tensor<AD, 'bool'> {
  return fromData(b, Uint8Array.from(values), { shape });
}

/** What a case builds once per backend: a forward per dtype and that dtype's trainable parameters. */
interface Built {
  forward(xs: F[], dtype: FloatDType): F;
  params?(dtype: FloatDType): Array<[string, F]>;
  /** Checks after the forward and backward of both dtypes (running statistics). */
  after?(): Promise<void>;
}

interface Case {
  readonly name: string;
  /** Float inputs (each requires grad), uniform in `range` (default [-2, 2]) rounded to float16. */
  readonly shapes: ReadonlyArray<readonly number[]>;
  readonly range?: readonly [number, number];
  /** Tolerance in float16 unit roundoffs (default 16). */
  readonly k?: number;
  setup(b: AD): Built;
}

/**
 * A module in both dtypes with the same (float16-rounded) parameters: made once, cast to
 * float16, and that copy cast back to float32.
 */
function twin<M extends Module<AD>>(make: () => M): { get(dtype: FloatDType): M; params(dtype: FloatDType): Array<[string, F]> } {
  const m16 = make().toDType('float16');
  const m32 = m16.clone().toDType('float32');
  const get = (dtype: FloatDType): M => (dtype === 'float16' ? m16 : m32);
  return { get, params: (dtype) => get(dtype).namedParams().filter(([, p]) => p.trainable).map(([n, p]): [string, F] => [n, p.value]) };
}

/** A module case: `make` builds it, `call` runs it on the inputs. */
function moduleCase<M extends Module<AD>>(name: string, shapes: ReadonlyArray<readonly number[]>, make: (b: AD) => M, call: (m: M, xs: F[], b: AD, dtype: FloatDType) => F, extra: Partial<Pick<Case, 'range' | 'k'>> = {}): Case {
  return {
    name,
    shapes,
    ...extra,
    setup: (b) => {
      const t = twin(() => make(b));
      return { forward: (xs, dtype) => call(t.get(dtype), xs, b, dtype), params: t.params };
    },
  };
}

/** A functional case: `f` gets the inputs, the backend and the dtype (for helper tensors it makes). */
function fnCase(name: string, shapes: ReadonlyArray<readonly number[]>, f: (xs: F[], b: AD, dtype: FloatDType) => F, extra: Partial<Pick<Case, 'range' | 'k'>> = {}): Case {
  return { name, shapes, ...extra, setup: (b) => ({ forward: (xs, dtype) => f(xs, b, dtype) }) };
}

/** Loss tolerance: 16 plus the number of terms summed. */
const lossK = (terms: number): number => 16 + terms;

/** The first element outside k u (|want| + max |want|), or undefined. */
function mismatch(got: ArrayLike<number>, want: ArrayLike<number>, k: number): string | undefined {
  if (got.length !== want.length) return `length ${got.length} vs ${want.length}`;
  let scale = 0;
  for (let i = 0; i < want.length; i++) if (Number.isFinite(want[i]!)) scale = Math.max(scale, Math.abs(want[i]!));
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!;
    const w = want[i]!;
    if (Number.isNaN(w) || !Number.isFinite(w)) {
      if (!Object.is(g, w) && !(Number.isNaN(g) && Number.isNaN(w))) return `[${i}]: ${g} vs ${w}`;
      continue;
    }
    const tol = k * U * (Math.abs(w) + scale);
    if (!(Math.abs(g - w) <= tol)) return `[${i}]: float16 ${g} vs float32 ${w} (|diff| ${Math.abs(g - w)} > ${tol})`;
  }
  return undefined;
}

interface Run {
  out: F;
  grads: Map<string, F | undefined>;
  release(): void;
}

/** The forward in `dtype` and the gradients of sum(out * seed) (out itself when it is a scalar). */
function runIn(b: AD, built: Built, c: Case, values: number[][], seed: (size: number) => number[], dtype: FloatDType): Run {
  const xs = values.map((v, i) => lit(b, v, c.shapes[i]!, dtype).requireGrad());
  // The same random stream (dropout masks) for both dtypes.
  b.seed(1234);
  const out = built.forward(xs, dtype);
  const loss = tidy(() => (out.rank === 0 ? out.mul(1) : out.mul(lit(b, seed(out.size), out.shape, dtype)).sum()));
  const g = loss.backward();
  const grads = new Map<string, F | undefined>();
  xs.forEach((x, i) => grads.set(`input ${i}`, x.grad(g)));
  for (const [name, p] of built.params?.(dtype) ?? []) grads.set(`parameter ${name}`, p.grad(g));
  return {
    out,
    grads,
    release: () => {
      g.dispose();
      for (const t of [...xs, out, loss]) t.dispose();
    },
  };
}

async function check(b: AD, c: Case, n: number): Promise<void> {
  const next = rng(1000 + n);
  const [lo, hi] = c.range ?? [-2, 2];
  const values = c.shapes.map((s) => halves(count(s), next, lo, hi));
  const built = c.setup(b);
  // The gradient seed, of the output's size: the same values for both dtypes.
  const seed = (size: number): number[] => halves(size, rng(2000 + n), -1, 1);
  const ref = runIn(b, built, c, values, seed, 'float32');
  const half = runIn(b, built, c, values, seed, 'float16');
  const k = c.k ?? 16;
  try {
    expect(half.out.dtype, 'output dtype').toBe('float16');
    expect(half.out.shape).toEqual(ref.out.shape);
    expect(mismatch((await half.out.toData()).values, (await ref.out.toData()).values, k), 'forward').toBeUndefined();
    expect([...half.grads.keys()]).toEqual([...ref.grads.keys()]);
    for (const [name, g32] of ref.grads) {
      const g16 = half.grads.get(name);
      expect(g32, `float32 gradient of ${name}`).toBeDefined();
      expect(g16, `float16 gradient of ${name}`).toBeDefined();
      expect(g16!.dtype, `dtype of the gradient of ${name}`).toBe('float16');
      expect(mismatch((await g16!.toData()).values, (await g32!.toData()).values, 2 * k), `gradient of ${name}`).toBeUndefined();
    }
    await built.after?.();
  } finally {
    ref.release();
    half.release();
  }
}

// ---- functional ops ----------------------------------------------------------------------------

const FUNCTIONAL: Case[] = [
  fnCase('conv2d, padding 1, bias', [[2, 3, 5, 5], [4, 3, 3, 3], [4]], ([x, w, bias]) => conv2d(x!, w!, { bias, padding: 1 })),
  fnCase("conv2d, padding 'same', dilation 2, groups 3", [[1, 3, 6, 6], [6, 1, 3, 3]], ([x, w]) => conv2d(x!, w!, { padding: 'same', dilation: 2, groups: 3 })),
  fnCase('conv2d, stride 2, unbatched, no padding', [[2, 7, 7], [3, 2, 3, 3]], ([x, w]) => conv2d(x!, w!, { stride: 2 })),
  fnCase('conv1d, padding 2, stride 2, bias', [[2, 3, 9], [4, 3, 3], [4]], ([x, w, bias]) => conv1d(x!, w!, { bias, padding: 2, stride: 2 })),
  fnCase('convTranspose2d, stride 2, padding 1, outputPadding 1, bias', [[1, 3, 4, 4], [3, 2, 3, 3], [2]], ([x, w, bias]) => convTranspose2d(x!, w!, { bias, stride: 2, padding: 1, outputPadding: 1 })),
  fnCase('convTranspose1d, groups 2, stride 2, bias', [[2, 4, 5], [4, 3, 3], [6]], ([x, w, bias]) => convTranspose1d(x!, w!, { bias, stride: 2, groups: 2 })),
  fnCase('maxPool2d, kernel 3, stride 2, padding 1', [[2, 3, 7, 7]], ([x]) => maxPool2d(x!, 3, { stride: 2, padding: 1 })),
  fnCase('maxPool2d, tiling kernel 2', [[1, 2, 6, 6]], ([x]) => maxPool2d(x!, 2)),
  fnCase('maxPool2d, ceilMode, dilation 2', [[1, 2, 8, 8]], ([x]) => maxPool2d(x!, 2, { stride: 3, dilation: 2, ceilMode: true })),
  fnCase('maxPool1d, padding 1', [[2, 3, 8]], ([x]) => maxPool1d(x!, 3, { stride: 2, padding: 1 })),
  fnCase('avgPool2d, padding 1, countIncludePad false', [[2, 3, 7, 7]], ([x]) => avgPool2d(x!, 3, { stride: 2, padding: 1, countIncludePad: false })),
  fnCase('avgPool2d, padding 1, ceilMode (divisors differ)', [[1, 2, 6, 6]], ([x]) => avgPool2d(x!, 3, { stride: 2, padding: 1, ceilMode: true })),
  fnCase('avgPool2d, divisorOverride 4', [[1, 2, 5, 5]], ([x]) => avgPool2d(x!, 2, { stride: 1, divisorOverride: 4 })),
  fnCase('avgPool2d, tiling kernel 2', [[1, 2, 4, 4]], ([x]) => avgPool2d(x!, 2)),
  fnCase('avgPool1d, padding 1, countIncludePad false', [[2, 3, 8]], ([x]) => avgPool1d(x!, 3, { stride: 1, padding: 1, countIncludePad: false })),
  fnCase('adaptiveAvgPool2d [3, 2] from 5x7', [[2, 3, 5, 7]], ([x]) => adaptiveAvgPool2d(x!, [3, 2])),
  fnCase('adaptiveAvgPool1d 3 from 7', [[2, 3, 7]], ([x]) => adaptiveAvgPool1d(x!, 3)),
  fnCase('adaptiveMaxPool2d [3, 4] from 5x7', [[2, 3, 5, 7]], ([x]) => adaptiveMaxPool2d(x!, [3, 4])),
  fnCase('adaptiveMaxPool1d 3 from 7', [[2, 3, 7]], ([x]) => adaptiveMaxPool1d(x!, 3)),
  fnCase('batchNorm, training, weight and bias', [[4, 3, 5], [3], [3]], ([x, w, bias]) => batchNorm(x!, undefined, undefined, { weight: w, bias, training: true })),
  fnCase('batchNorm, eval with running statistics', [[4, 3, 2, 2], [3], [3]], ([x, w, bias], b, dtype) =>
    batchNorm(x!, lit(b, [0.25, -0.5, 1], [3], dtype), lit(b, [0.5, 2, 1.25], [3], dtype), { weight: w, bias })),
  fnCase('groupNorm, 2 groups, weight and bias', [[2, 4, 3, 3], [4], [4]], ([x, w, bias]) => groupNorm(x!, 2, { weight: w, bias })),
  fnCase('layerNorm over [3, 4], weight and bias', [[2, 3, 4], [3, 4], [3, 4]], ([x, w, bias]) => layerNorm(x!, [3, 4], { weight: w, bias })),
  fnCase('rmsNorm, weight, default eps', [[3, 6], [6]], ([x, w]) => rmsNorm(x!, [6], { weight: w })),
  // Values whose squares pass float16's largest (65504): the statistics must not overflow.
  fnCase('layerNorm of values up to 1000', [[2, 3, 4]], ([x]) => layerNorm(x!, [4]), { range: [-1000, 1000] }),
  fnCase('rmsNorm of values up to 1000', [[3, 6]], ([x]) => rmsNorm(x!, [6]), { range: [-1000, 1000] }),
  fnCase('groupNorm of values up to 1000', [[2, 4, 3]], ([x]) => groupNorm(x!, 2), { range: [-1000, 1000] }),
  fnCase('batchNorm, training, of values up to 1000', [[4, 3, 2]], ([x]) => batchNorm(x!, undefined, undefined, { training: true }), { range: [-1000, 1000] }),
  fnCase('silu', [[4, 5]], ([x]) => silu(x!), { range: [-4, 4] }),
  fnCase('leakyRelu 0.2', [[4, 5]], ([x]) => leakyRelu(x!, 0.2)),
  fnCase('softplus beta 2 threshold 3', [[4, 5]], ([x]) => softplus(x!, 2, 3), { range: [-4, 4] }),
  fnCase('gelu', [[4, 5]], ([x]) => gelu(x!), { range: [-4, 4] }),
  fnCase("gelu 'tanh'", [[4, 5]], ([x]) => gelu(x!, 'tanh'), { range: [-4, 4] }),
  fnCase('hardtanh [-0.5, 1.5]', [[4, 5]], ([x]) => hardtanh(x!, -0.5, 1.5)),
  fnCase('relu6', [[4, 5]], ([x]) => relu6(x!), { range: [-8, 8] }),
  fnCase('hardsigmoid', [[4, 5]], ([x]) => hardsigmoid(x!), { range: [-4, 4] }),
  fnCase('hardswish', [[4, 5]], ([x]) => hardswish(x!), { range: [-4, 4] }),
  fnCase('mish', [[4, 5]], ([x]) => mish(x!), { range: [-4, 4] }),
  fnCase('selu', [[4, 5]], ([x]) => selu(x!), { range: [-4, 4] }),
  fnCase('dropout 0.5', [[4, 8]], ([x]) => dropout(x!, 0.5)),
  fnCase('dropout 1', [[2, 3]], ([x]) => dropout(x!, 1)),
  fnCase('scaledDotProductAttention', [[2, 3, 4], [2, 5, 4], [2, 5, 3]], ([q, k, v]) => scaledDotProductAttention(q!, k!, v!)),
  fnCase('scaledDotProductAttention, isCausal, scale', [[2, 4, 4], [2, 4, 4], [2, 4, 3]], ([q, k, v]) => scaledDotProductAttention(q!, k!, v!, { isCausal: true, scale: 0.25 })),
  fnCase('scaledDotProductAttention, bool mask', [[2, 3, 4], [2, 5, 4], [2, 5, 3]], ([q, k, v], b) =>
    scaledDotProductAttention(q!, k!, v!, { attnMask: bools(b, [1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1], [3, 5]) })),
  fnCase('scaledDotProductAttention, float mask', [[2, 3, 4], [2, 5, 4], [2, 5, 3]], ([q, k, v], b, dtype) =>
    scaledDotProductAttention(q!, k!, v!, { attnMask: lit(b, [0, -1, 0.5, -Infinity, 0, 0, 0, -2, 0, 1, -Infinity, 0, 0, 0.25, 0], [3, 5], dtype) })),
  fnCase('scaledDotProductAttention, dropoutP 0.3', [[2, 3, 4], [2, 5, 4], [2, 5, 3]], ([q, k, v]) => scaledDotProductAttention(q!, k!, v!, { dropoutP: 0.3 })),
  fnCase('attentionWeights, isCausal', [[2, 4, 4], [2, 4, 4]], ([q, k]) => attentionWeights(q!, k!, { isCausal: true })),
];

// ---- losses ------------------------------------------------------------------------------------

const TARGETS = [2, 0, 3, 1, 3, 0];
const LOSSES: Case[] = [
  fnCase('crossEntropy, class indices, mean', [[6, 4]], ([x], b) => crossEntropy(x!, ints(b, TARGETS)), { k: lossK(6 * 4) }),
  fnCase('crossEntropy, class indices, sum', [[6, 4]], ([x], b) => crossEntropy(x!, ints(b, TARGETS), { reduction: 'sum' }), { k: lossK(6 * 4) }),
  fnCase('crossEntropy, weight, ignoreIndex, labelSmoothing 0.2', [[6, 4]], ([x], b, dtype) =>
    crossEntropy(x!, ints(b, [2, -100, 3, 1, -100, 0]), { weight: lit(b, [0.5, 2, 1.5, 1], [4], dtype), labelSmoothing: 0.2 }), { k: lossK(6 * 4) }),
  fnCase('crossEntropy, custom ignoreIndex, labelSmoothing, no weight', [[6, 4]], ([x], b) => crossEntropy(x!, ints(b, [2, 1, 3, 1, 3, 0]), { ignoreIndex: 1, labelSmoothing: 0.1 }), { k: lossK(6 * 4) }),
  fnCase('crossEntropy, [N, C, L] indices, reduction none', [[2, 3, 4]], ([x], b) => crossEntropy(x!, ints(b, [0, 1, 2, 1, 2, 2, 0, -100], [2, 4]), { reduction: 'none' }), { k: lossK(3) }),
  fnCase('crossEntropy, probability targets, labelSmoothing, weight, sum', [[3, 4]], ([x], b, dtype) =>
    crossEntropy(x!, lit(b, [0.25, 0.25, 0.5, 0, 1, 0, 0, 0, 0.125, 0.375, 0.25, 0.25], [3, 4], dtype), { labelSmoothing: 0.1, weight: lit(b, [1, 0.5, 2, 1], [4], dtype), reduction: 'sum' }), { k: lossK(12) }),
  fnCase('crossEntropy, [C] logits', [[5]], ([x], b) => crossEntropy(x!, fromData(b, Int32Array.of(3), { shape: [] })), { k: lossK(5) }),
  fnCase('nllLoss, mean', [[6, 4]], ([x], b) => nllLoss(x!.logSoftmax(1), ints(b, TARGETS)), { k: lossK(6 * 4) }),
  fnCase('nllLoss, weight, ignoreIndex, sum', [[6, 4]], ([x], b, dtype) => nllLoss(x!, ints(b, [2, -100, 3, 1, 3, 0]), { weight: lit(b, [1, 2, 3, 4], [4], dtype), reduction: 'sum' }), { k: lossK(6) }),
  fnCase('nllLoss, reduction none', [[6, 4]], ([x], b) => nllLoss(x!, ints(b, TARGETS), { reduction: 'none' })),
  fnCase('binaryCrossEntropy, mean', [[3, 4]], ([p], b, dtype) => binaryCrossEntropy(p!, lit(b, [1, 0, 0.5, 0.25, 0, 1, 1, 0, 0.75, 1, 0, 0.5], [3, 4], dtype)), { range: [0.05, 0.95], k: lossK(12) }),
  fnCase('binaryCrossEntropy, weight, sum', [[3, 4]], ([p], b, dtype) =>
    binaryCrossEntropy(p!, lit(b, [1, 0, 0.5, 0.25, 0, 1, 1, 0, 0.75, 1, 0, 0.5], [3, 4], dtype), { weight: lit(b, [0.5, 1, 2, 1.5], [4], dtype), reduction: 'sum' }), { range: [0.05, 0.95], k: lossK(12) }),
  fnCase('binaryCrossEntropyWithLogits, posWeight, weight', [[3, 4]], ([x], b, dtype) =>
    binaryCrossEntropyWithLogits(x!, lit(b, [1, 0, 0.5, 0.25, 0, 1, 1, 0, 0.75, 1, 0, 0.5], [3, 4], dtype), { posWeight: lit(b, [2, 0.5, 1, 3], [4], dtype), weight: lit(b, [1, 2, 0.5], [3, 1], dtype) }), { k: lossK(12) }),
  fnCase('binaryCrossEntropyWithLogits, reduction none', [[3, 4]], ([x], b, dtype) => binaryCrossEntropyWithLogits(x!, lit(b, [1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0], [3, 4], dtype), { reduction: 'none' })),
  fnCase('mseLoss, mean', [[4, 5], [4, 5]], ([x, y]) => mseLoss(x!, y!), { k: lossK(20) }),
  fnCase('l1Loss, sum', [[4, 5], [4, 5]], ([x, y]) => l1Loss(x!, y!, { reduction: 'sum' }), { k: lossK(20) }),
  fnCase('smoothL1Loss, beta 0.5, none', [[4, 5], [4, 5]], ([x, y]) => smoothL1Loss(x!, y!, { beta: 0.5, reduction: 'none' })),
  fnCase('huberLoss, delta 0.75, mean', [[4, 5], [4, 5]], ([x, y]) => huberLoss(x!, y!, { delta: 0.75 }), { k: lossK(20) }),
  fnCase('klDiv, batchmean', [[3, 4]], ([x], b, dtype) => klDiv(x!.logSoftmax(1), lit(b, [0.25, 0.25, 0.5, 0, 1, 0, 0, 0, 0.125, 0.375, 0.25, 0.25], [3, 4], dtype), { reduction: 'batchmean' }), { k: lossK(12) }),
  fnCase('klDiv, logTarget, sum', [[3, 4], [3, 4]], ([x, t]) => klDiv(x!.logSoftmax(1), t!.logSoftmax(1), { logTarget: true, reduction: 'sum' }), { k: lossK(12) }),
];

// ---- modules -----------------------------------------------------------------------------------

const MODULES: Case[] = [
  moduleCase('Linear', [[3, 5]], (b) => new Linear(b, 5, 4), (m, [x]) => m.forward(x!)),
  moduleCase('Conv2d, padding 1, groups 2', [[2, 4, 5, 5]], (b) => new Conv2d(b, 4, 6, 3, { padding: 1, groups: 2 }), (m, [x]) => m.forward(x!)),
  moduleCase("Conv1d, padding 'same'", [[2, 3, 7]], (b) => new Conv1d(b, 3, 4, 4, { padding: 'same' }), (m, [x]) => m.forward(x!)),
  moduleCase('ConvTranspose2d, stride 2, padding 1', [[1, 3, 4, 4]], (b) => new ConvTranspose2d(b, 3, 2, 3, { stride: 2, padding: 1 }), (m, [x]) => m.forward(x!)),
  moduleCase('ConvTranspose1d, padding 1, no bias', [[2, 3, 5]], (b) => new ConvTranspose1d(b, 3, 2, 3, { padding: 1, bias: false }), (m, [x]) => m.forward(x!)),
  moduleCase('MaxPool2d, AvgPool2d, Adaptive pools 2d', [[2, 2, 9, 9]], () => new Sequential<AD>(new MaxPool2d(3, { stride: 1, padding: 1 }), new AvgPool2d(3, { stride: 2, padding: 1, countIncludePad: false }), new AdaptiveMaxPool2d([3, 2]), new AdaptiveAvgPool2d(2)), (m, [x]) => m.forward(x!)),
  moduleCase('MaxPool1d, AvgPool1d, Adaptive pools 1d', [[2, 3, 11]], () => new Sequential<AD>(new MaxPool1d(3, { stride: 1, padding: 1 }), new AvgPool1d(2, { padding: 1 }), new AdaptiveMaxPool1d(4), new AdaptiveAvgPool1d(3)), (m, [x]) => m.forward(x!)),
  moduleCase('LayerNorm', [[2, 3, 6]], (b) => new LayerNorm(b, 6), (m, [x]) => m.forward(x!)),
  moduleCase('GroupNorm', [[2, 6, 4]], (b) => new GroupNorm(b, 3, 6), (m, [x]) => m.forward(x!)),
  moduleCase('RMSNorm', [[2, 3, 6]], (b) => new RMSNorm(b, [3, 6]), (m, [x]) => m.forward(x!)),
  moduleCase('Dropout 0.25 (training)', [[4, 6]], () => new Dropout<AD>(0.25), (m, [x]) => m.forward(x!)),
  moduleCase('Dropout (eval)', [[4, 6]], () => new Dropout<AD>(0.25).eval(), (m, [x]) => m.forward(x!)),
  moduleCase(
    'activation modules in a Sequential',
    [[2, 3, 4]],
    (b) =>
      new Sequential<AD>(
        new Linear(b, 4, 4),
        new Relu(), new Gelu({ approximate: 'tanh' }), new Tanh(), new Sigmoid(), new Silu(), new LeakyRelu(0.1), new Softplus(2), new Hardtanh(-0.5, 0.75),
        new Relu6(), new Hardsigmoid(), new Hardswish(), new Mish(), new Selu(), new Identity(), new Softmax(), new LogSoftmax(1), new Gelu(), new Flatten(),
      ),
    (m, [x]) => m.forward(x!),
    { k: 32 },
  ),
  moduleCase('MultiheadAttention, keyPaddingMask and isCausal', [[2, 4, 8]], (b) => new MultiheadAttention(b, 8, 2), (m, [x], b) =>
    m.forward(x!, x!, x!, { keyPaddingMask: bools(b, [0, 0, 0, 1, 0, 0, 0, 0], [2, 4]), isCausal: true }), { k: 32 }),
  moduleCase('MultiheadAttention, bool attnMask [L, S], cross-attention', [[2, 3, 8], [2, 5, 8]], (b) => new MultiheadAttention(b, 8, 2, { bias: false }), (m, [q, kv], b) =>
    m.forward(q!, kv!, kv!, { attnMask: bools(b, [0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0], [3, 5]) }), { k: 32 }),
  moduleCase('MultiheadAttention, float attnMask [N * H, L, S], weights', [[2, 3, 8]], (b) => new MultiheadAttention(b, 8, 2), (m, [x], b, dtype) => {
    const { output, weights } = m.forwardWithWeights(x!, x!, x!, { attnMask: lit(b, halves(2 * 2 * 9, rng(5), -1, 0), [4, 3, 3], dtype) });
    const both = output.sum(2).add(weights.sum(2));
    output.dispose();
    weights.dispose();
    return both;
  }, { k: 32 }),
  moduleCase('MultiheadAttention, dropout 0.2 (training)', [[2, 3, 8]], (b) => new MultiheadAttention(b, 8, 4, { dropout: 0.2 }), (m, [x]) => m.forward(x!), { k: 32 }),
  moduleCase('TransformerEncoderLayer, gelu, normFirst, dropout', [[2, 4, 8]], (b) => new TransformerEncoderLayer(b, 8, 2, { dimFeedforward: 16, activation: 'gelu', normFirst: true, dropout: 0.1 }), (m, [x], b) =>
    m.forward(x!, { srcKeyPaddingMask: bools(b, [0, 0, 0, 1, 0, 0, 0, 0], [2, 4]) }), { k: 48 }),
  moduleCase('TransformerEncoderLayer, post-norm, causal, eval', [[2, 4, 8]], (b) => new TransformerEncoderLayer(b, 8, 2, { dimFeedforward: 16 }).eval(), (m, [x]) => m.forward(x!, { isCausal: true }), { k: 48 }),
  moduleCase('PositionWiseFeedForward', [[2, 3, 6]], (b) => new PositionWiseFeedForward(b, { dModel: 6, dFF: 12, dropout: 0.1 }), (m, [x]) => m.forward(x!), { k: 32 }),
  // A recurrence applies its cell once per step: the rounding of every step carries on (k = 16 per step).
  moduleCase('LSTM, 2 layers, bidirectional, zero initial state', [[2, 3, 3]], (b) => new LSTM(b, 3, 5, { numLayers: 2, bidirectional: true, dropout: 0.2 }), (m, [x]) => m.forward(x!).output, { k: 64 }),
  moduleCase('LSTM, given h and c, final states', [[2, 3, 3], [1, 2, 4], [1, 2, 4]], (b) => new LSTM(b, 3, 4), (m, [x, h, c]) => {
    const r = m.forward(x!, { h: h!, c: c! });
    const y = r.h.add(r.c).sum(0).add(r.output.sum(1));
    for (const t of [r.output, r.h, r.c]) t.dispose();
    return y;
  }, { k: 64 }),
  moduleCase('GRU, sequence-first, zero initial state, final h', [[3, 2, 3]], (b) => new GRU(b, 3, 5, { batchFirst: false, numLayers: 2 }), (m, [x]) => {
    const r = m.forward(x!);
    const y = r.output.sum(0).add(r.h.sum(0));
    r.output.dispose();
    r.h.dispose();
    return y;
  }, { k: 64 }),
  {
    name: 'Embedding with paddingIdx',
    shapes: [],
    setup: (b) => {
      const t = twin(() => new Embedding(b, 6, 4, { paddingIdx: 1 }));
      // No float input: the weight's gradient (the padding row's stays zero).
      return { forward: (_xs, dtype) => t.get(dtype).forward(ints(b, [0, 1, 5, 2, 1, 0], [2, 3])), params: t.params };
    },
  },
  ...(['BatchNorm1d', 'BatchNorm2d'] as const).flatMap((kind): Case[] =>
    [0.1, null].map((momentum): Case => ({
      name: `${kind}, training then eval, momentum ${momentum}`,
      shapes: [kind === 'BatchNorm1d' ? [4, 3, 5] : [3, 3, 2, 2]],
      setup: (b) => {
        const t = twin(() => (kind === 'BatchNorm1d' ? new BatchNorm1d(b, 3, { momentum }) : new BatchNorm2d(b, 3, { momentum })));
        return {
          // A training step (the batch's statistics, updating the running ones), then eval with the running ones.
          forward: ([x], dtype) => {
            const m = t.get(dtype);
            const y = m.train().forward(x!);
            const z = m.eval().forward(x!);
            const out = y.add(z);
            y.dispose();
            z.dispose();
            return out;
          },
          params: t.params,
          after: async () => {
            // The running statistics stay float16 and follow the float32 ones; the counter stays float32 (torch's is an integer).
            for (const name of ['runningMean', 'runningVar', 'numBatchesTracked'] as const) {
              const s16 = t.get('float16')[name]!.value;
              const s32 = t.get('float32')[name]!.value;
              expect(s16.dtype, name).toBe(name === 'numBatchesTracked' ? 'float32' : 'float16');
              expect(mismatch((await s16.toData()).values, (await s32.toData()).values, 16), name).toBeUndefined();
            }
          },
        };
      },
    })),
  ),
];

for (const { name, b } of backends) {
  describe(`float16 nn on ${name}`, () => {
    for (const [group, cases] of [['functional', FUNCTIONAL], ['losses', LOSSES], ['modules', MODULES]] as const) {
      describe(group, () => {
        it.each(cases.map((c, n) => [c.name, c, n] as const))('%s', async (_name, c, n) => check(b, c, n));
      });
    }

    it('a float16 module loads a PyTorch state dict and stays float16 (the BatchNorm counter float32)', async () => {
      const net = new Sequential<AD>(new Linear(b, 3, 2), new BatchNorm1d(b, 2)).toDType('float16');
      const before = await Promise.all(net.params().map(async (p) => Array.from((await p.value.toData()).values)));
      const report = loadTorchStateDict(net, await saveTorchStateDict(net));
      expect(report.missing).toEqual([]);
      for (const [i, [name, p]] of net.namedParams().entries()) {
        expect(p.value.dtype, name).toBe(name.endsWith('numBatchesTracked') ? 'float32' : 'float16');
        expect(Array.from((await p.value.toData()).values), name).toEqual(before[i]);
      }
      net.dispose();
    });

    it("rmsNorm's default eps is the input dtype's machine epsilon (torch.finfo(x.dtype).eps): 2^-10 in float16", async () => {
      // mean(x^2) = 2^-14: eps 2^-10 dominates it, eps 2^-23 does not.
      const x = lit(b, [2 ** -7, -(2 ** -7)], [1, 2], 'float16');
      const got = (await rmsNorm(x, [2]).toData()).values;
      expect(Array.from(got)).toEqual(Array.from((await rmsNorm(x, [2], { eps: 2 ** -10 }).toData()).values));
      expect(mismatch(got, [2 ** -7 / Math.sqrt(2 ** -14 + 2 ** -10), -(2 ** -7) / Math.sqrt(2 ** -14 + 2 ** -10)], 1)).toBeUndefined();
      const x32 = lit(b, [2 ** -7, -(2 ** -7)], [1, 2], 'float32');
      expect(mismatch((await rmsNorm(x32, [2]).toData()).values, [1 / Math.sqrt(1 + 2 ** -9), -1 / Math.sqrt(1 + 2 ** -9)], 1)).toBeUndefined();
    });

    it("BatchNorm's batch counter stays float32 under toDType('float16') and counts past 2048 (float16 stops there)", async () => {
      const bn = new BatchNorm1d(b, 2, { momentum: null }).toDType('float16');
      const tracked = bn.numBatchesTracked!;
      expect(tracked.value.dtype).toBe('float32');
      tracked.set(fromData(b, [2048], { shape: [] }));
      // Batch means [2, 3]; the cumulative average from zeros moves by mean / 2049.
      const y = bn.forward(lit(b, [1, 2, 3, 4], [2, 2], 'float16'));
      expect(Array.from((await tracked.value.toData()).values)).toEqual([2049]);
      const mean = bn.runningMean!.value;
      expect(mean.dtype).toBe('float16');
      expect(mismatch((await mean.toData()).values, [2 / 2049, 3 / 2049], 1)).toBeUndefined();
      y.dispose();
      bn.dispose();
    });
  });
}
