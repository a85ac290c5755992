/** Convolution, pooling, normalisation and activation layers against float64 references; initialisers against their distributions. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { LeakyRelu, LogSoftmax, Sigmoid, Silu, Softmax, Softplus, Tanh } from '../../src/nn/activation.js';
import { BatchNorm1d, BatchNorm2d } from '../../src/nn/batch-norm.js';
import { Conv1d, Conv2d, ConvTranspose2d, type ConvPaddingMode } from '../../src/nn/conv.js';
import { Flatten } from '../../src/nn/flatten.js';
import { batchNorm, groupNorm, layerNorm, rmsNorm } from '../../src/nn/functional/normalization.js';
import { GroupNorm } from '../../src/nn/group-norm.js';
import { calculateGain, kaimingNormal, orthogonal, truncatedNormal, xavierNormal, xavierUniform } from '../../src/nn/init.js';
import { Buffer } from '../../src/nn/param.js';
import { AdaptiveAvgPool2d, MaxPool2d } from '../../src/nn/pool.js';
import { RMSNorm } from '../../src/nn/rms-norm.js';
import { Sequential } from '../../src/nn/sequential.js';
import { Distribution, fromData, random } from '../../src/tensor/creation.js';
import { untyped } from '../untyped.js';
import { checkCase, type FnCase } from './check.js';
import { conv2dRef, mismatch, randn, rng, type Nd } from './conv-ref.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
ad.seed(11);
afterAll(() => ad.close());

async function vals(t: { toData(): Promise<{ values: ArrayLike<number> }> }): Promise<number[]> {
  return Array.from((await t.toData()).values);
}

/** Normalises groups of the flat data: each group is a list of indices. */
function normalise(x: Nd, groups: number[][], eps: number, scale: (i: number) => number, shift: (i: number) => number): Nd {
  const out = new Float64Array(x.data.length);
  for (const g of groups) {
    const mean = g.reduce((s, i) => s + x.data[i]!, 0) / g.length;
    const v = g.reduce((s, i) => s + (x.data[i]! - mean) ** 2, 0) / g.length;
    for (const i of g) out[i] = ((x.data[i]! - mean) / Math.sqrt(v + eps)) * scale(i) + shift(i);
  }
  return { shape: x.shape, data: out };
}

/** Indices of [N, C, S] data grouped per channel (over N and S). */
function perChannel(n: number, c: number, s: number): number[][] {
  return Array.from({ length: c }, (_, ch) => Array.from({ length: n * s }, (_, k) => (Math.floor(k / s) * c + ch) * s + (k % s)));
}

const NORM_CASES: FnCase[] = [
  {
    name: 'batchNorm (training) over N, H, W with weight and bias',
    shapes: [[3, 2, 2, 3], [2], [2]],
    run: ([x, w, b]) => batchNorm(x!, undefined, undefined, { weight: w!, bias: b!, training: true }),
    ref: ([x, w, b]) => normalise(x!, perChannel(3, 2, 6), 1e-5, (i) => w!.data[Math.floor(i / 6) % 2]!, (i) => b!.data[Math.floor(i / 6) % 2]!),
  },
  {
    name: 'batchNorm (eval) with running statistics',
    shapes: [[2, 3, 4], [3], [3]],
    values: [undefined, [0.5, -0.25, 0.1], [0.9, 1.5, 0.3]],
    run: ([x, m, v]) => batchNorm(x!, m!, v!, { training: false }),
    ref: ([x, m, v]) => ({ shape: x!.shape, data: x!.data.map((val, i) => (val - m!.data[Math.floor(i / 4) % 3]!) / Math.sqrt(v!.data[Math.floor(i / 4) % 3]! + 1e-5)) }),
  },
  {
    name: 'groupNorm 2 groups of 2 channels',
    shapes: [[2, 4, 3], [4], [4]],
    run: ([x, w, b]) => groupNorm(x!, 2, { weight: w!, bias: b! }),
    ref: ([x, w, b]) => normalise(x!, Array.from({ length: 4 }, (_, g) => Array.from({ length: 6 }, (_, k) => g * 6 + k)), 1e-5, (i) => w!.data[Math.floor(i / 3) % 4]!, (i) => b!.data[Math.floor(i / 3) % 4]!),
  },
  {
    name: 'layerNorm over the last two dims',
    shapes: [[2, 3, 4], [3, 4], [3, 4]],
    run: ([x, w, b]) => layerNorm(x!, [3, 4], { weight: w!, bias: b! }),
    ref: ([x, w, b]) => normalise(x!, [0, 1].map((n) => Array.from({ length: 12 }, (_, k) => n * 12 + k)), 1e-5, (i) => w!.data[i % 12]!, (i) => b!.data[i % 12]!),
  },
  {
    name: 'rmsNorm over the last dim',
    shapes: [[3, 5], [5]],
    run: ([x, w]) => rmsNorm(x!, [5], { weight: w!, eps: 1e-6 }),
    ref: ([x, w]) => {
      const out = new Float64Array(15);
      for (let r = 0; r < 3; r++) {
        const ms = Array.from({ length: 5 }, (_, j) => x!.data[r * 5 + j]! ** 2).reduce((a, b) => a + b) / 5;
        for (let j = 0; j < 5; j++) out[r * 5 + j] = (x!.data[r * 5 + j]! / Math.sqrt(ms + 1e-6)) * w!.data[j]!;
      }
      return { shape: [3, 5], data: out };
    },
  },
];

describe('normalisation functions', () => {
  it.each(NORM_CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_n, c, i) => {
    await checkCase(ad, c, 300 + i);
  });

  it('report bad shapes', () => {
    const x = fromData(ad, new Float32Array(24), { shape: [2, 3, 4] });
    expect(() => groupNorm(x, 2)).toThrow(/groupNorm: groups 2 must divide the 3 channels/);
    expect(() => layerNorm(x, [3])).toThrow(ShapeError);
    expect(() => batchNorm(x, undefined, undefined, { weight: fromData(ad, [1, 2]), training: true })).toThrow(/weight must be \[3\]/);
    expect(() => batchNorm(fromData(ad, [[1, 2, 3]]), undefined, undefined, { training: true })).toThrow(/more than one value per channel/);
  });
});

describe('BatchNorm2d', () => {
  it('trains on batch statistics, updates the running ones (momentum 0.1, unbiased variance), and evaluates with them', async () => {
    const bn = new BatchNorm2d(ad, 2);
    const next = rng(5);
    const x = randn([4, 2, 3, 3], next);
    const xt = fromData(ad, Float32Array.from(x.data), { shape: x.shape });
    const y = bn.forward(xt);
    const ref = normalise(x, perChannel(4, 2, 9), 1e-5, () => 1, () => 0);
    expect(mismatch(await vals(y), ref.data)).toBeUndefined();
    const groups = perChannel(4, 2, 9);
    const mean = groups.map((g) => g.reduce((s, i) => s + x.data[i]!, 0) / g.length);
    const unbiased = groups.map((g, c) => g.reduce((s, i) => s + (x.data[i]! - mean[c]!) ** 2, 0) / (g.length - 1));
    expect(mismatch(await vals(bn.runningMean!.value), mean.map((m) => 0.1 * m))).toBeUndefined();
    expect(mismatch(await vals(bn.runningVar!.value), unbiased.map((v) => 0.9 + 0.1 * v))).toBeUndefined();
    expect(await bn.numBatchesTracked!.value.item()).toBe(1);
    bn.eval();
    const e = await vals(bn.forward(xt));
    const rm = mean.map((m) => 0.1 * m);
    const rv = unbiased.map((v) => 0.9 + 0.1 * v);
    expect(mismatch(e, Array.from(x.data, (v, i) => (v - rm[Math.floor(i / 9) % 2]!) / Math.sqrt(rv[Math.floor(i / 9) % 2]! + 1e-5)))).toBeUndefined();
  });

  it('with momentum null keeps a cumulative average', async () => {
    const bn = new BatchNorm1d(ad, 1, { momentum: null, affine: false });
    bn.forward(fromData(ad, [[1], [3]])).dispose();
    bn.forward(fromData(ad, [[5], [9]])).dispose();
    expect(await vals(bn.runningMean!.value)).toEqual([(2 + 7) / 2]);
    expect(await vals(bn.runningVar!.value)).toEqual([(2 + 8) / 2]);
    expect(bn.namedParams().map(([n]) => n)).toEqual(['runningMean', 'runningVar', 'numBatchesTracked']);
  });

  it('counts its buffers apart: numParams leaves them out, records keep them, clones keep them buffers', () => {
    const bn = new BatchNorm2d(ad, 3);
    expect(bn.numParams()).toBe(6);
    expect(bn.namedParams().map(([n]) => n)).toEqual(['weight', 'bias', 'runningMean', 'runningVar', 'numBatchesTracked']);
    expect(bn.clone().runningMean).toBeInstanceOf(Buffer);
    expect(bn.runningMean!.value.requiresGrad).toBe(false);
    expect(() => bn.forward(fromData(ad, new Float32Array(8), { shape: [2, 4] }))).toThrow(/BatchNorm2d: expects \[N, 3, H, W\]/);
  });
});

describe('GroupNorm and RMSNorm layers', () => {
  it('have PyTorch parameter names and defaults', async () => {
    const g = new GroupNorm(ad, 2, 4);
    expect(g.namedParams().map(([n]) => n)).toEqual(['weight', 'bias']);
    expect(() => new GroupNorm(ad, 3, 4)).toThrow(ArgumentError);
    const r = new RMSNorm(ad, 4);
    const y = await vals(r.forward(fromData(ad, [[1, 2, 3, 4]])));
    const rms = Math.sqrt((1 + 4 + 9 + 16) / 4 + 2 ** -23);
    expect(mismatch(y, [1, 2, 3, 4].map((v) => v / rms))).toBeUndefined();
  });
});

describe('convolution and pooling layers', () => {
  it('Conv2d is initialised as PyTorch and runs the functional', async () => {
    const c = new Conv2d(ad, 4, 6, 3, { padding: 1, groups: 2 });
    expect(c.weight.shape).toEqual([6, 2, 3, 3]);
    const bound = 1 / Math.sqrt(2 * 9);
    const w = await vals(c.weight.value);
    const b = await vals(c.bias!.value);
    expect(Math.max(...w.map(Math.abs))).toBeLessThanOrEqual(bound);
    expect(Math.max(...w.map(Math.abs))).toBeGreaterThan(0.8 * bound);
    expect(Math.max(...b.map(Math.abs))).toBeLessThanOrEqual(bound);
    const x = randn([1, 4, 4, 4], rng(3));
    const y = c.forward(fromData(ad, Float32Array.from(x.data), { shape: x.shape }));
    const ref = conv2dRef(x, { shape: [6, 2, 3, 3], data: Float64Array.from(w) }, { groups: 2, pads: [1, 1, 1, 1], bias: { shape: [6], data: Float64Array.from(b) } });
    expect(mismatch(await vals(y), ref.data)).toBeUndefined();
    expect(() => new Conv2d(ad, 3, 4, 3, { groups: 2 })).toThrow(ArgumentError);
  });

  it('ConvTranspose2d takes its fan from the output channels; Conv1d without bias', () => {
    const t = new ConvTranspose2d(ad, 2, 4, [2, 3], { stride: 2 });
    expect(t.weight.shape).toEqual([2, 4, 2, 3]);
    expect(t.forward(fromData(ad, new Float32Array(18), { shape: [1, 2, 3, 3] })).shape).toEqual([1, 4, 6, 7]);
    const c = new Conv1d(ad, 2, 3, 5, { bias: false, padding: 'same' });
    expect(c.namedParams().map(([n]) => n)).toEqual(['weight']);
    expect(c.forward(fromData(ad, new Float32Array(14), { shape: [1, 2, 7] })).shape).toEqual([1, 3, 7]);
  });

  it("Conv1d / Conv2d paddingMode: the padding mirrors, repeats or wraps the input (torch's padding_mode)", async () => {
    // x [1, 2, 3, 4], weight [1, 2, 3], padding 1: each mode's padded row by hand.
    const x = fromData(ad, [[[1, 2, 3, 4]]]);
    const want: Array<[ConvPaddingMode, number[]]> = [['zeros', [8, 14, 20, 11]], ['reflect', [10, 14, 20, 20]], ['replicate', [9, 14, 20, 23]], ['circular', [12, 14, 20, 14]]];
    for (const [mode, values] of want) {
      const c = new Conv1d(ad, 1, 1, 3, { padding: 1, bias: false, paddingMode: mode });
      c.weight.set(fromData(ad, [[[1, 2, 3]]]));
      expect(Array.from(await vals(c.forward(x))), mode).toEqual(values);
    }
    // 2-D, 'same' with an even kernel: torch pads 0 before and 1 after in each dim; replicate repeats the last row and column.
    const c2 = new Conv2d(ad, 1, 1, 2, { padding: 'same', bias: false, paddingMode: 'replicate' });
    c2.weight.set(fromData(ad, [[[[1, 0], [0, 1]]]]));
    expect(Array.from(await vals(c2.forward(fromData(ad, [[[[1, 2], [3, 4]]]]))))).toEqual([5, 6, 7, 8]);
    expect(() => new Conv2d(ad, 1, 1, 2, { paddingMode: untyped('mirror') })).toThrow(/Conv2d: paddingMode must be 'zeros', 'reflect', 'replicate' or 'circular'/);
  });

  it('a LeNet-shaped Sequential runs end to end with gradients for every parameter', async () => {
    const net = new Sequential(new Conv2d(ad, 1, 4, 5), new BatchNorm2d(ad, 4), new Tanh(), new MaxPool2d(2), new Conv2d(ad, 4, 6, 3), new AdaptiveAvgPool2d(2), new Flatten(), new Softmax());
    const y = net.forward(fromData(ad, Float32Array.from(randn([2, 1, 12, 12], rng(9)).data), { shape: [2, 1, 12, 12] }));
    expect(y.shape).toEqual([2, 24]);
    const grads = y.mul(fromData(ad, Float32Array.from({ length: 48 }, (_, i) => i % 7), { shape: [2, 24] })).sum().backward();
    for (const [name, p] of net.namedParams()) if (p.trainable) expect(grads.has(p.value), name).toBe(true);
  });
});

describe('activations', () => {
  const xs = [-30, -3, -0.5, 0, 0.5, 2, 25];
  it.each([
    ['Tanh', new Tanh(), Math.tanh],
    ['Sigmoid', new Sigmoid(), (v: number) => 1 / (1 + Math.exp(-v))],
    ['Silu', new Silu(), (v: number) => v / (1 + Math.exp(-v))],
    ['LeakyRelu', new LeakyRelu(0.2), (v: number) => (v > 0 ? v : 0.2 * v)],
    ['Softplus', new Softplus(), (v: number) => (v > 20 ? v : Math.log1p(Math.exp(v)))],
    ['Softplus beta 2', new Softplus(2), (v: number) => (2 * v > 20 ? v : Math.log1p(Math.exp(2 * v)) / 2)],
  ] as const)('%s', async (_n, m, f) => {
    expect(mismatch(await vals(m.forward(fromData(ad, xs))), xs.map(f), 1e-6, 1e-5)).toBeUndefined();
  });

  it('Softmax and LogSoftmax along a dim', async () => {
    const x = [[1, 2], [3, 5]];
    const col = [Math.exp(1) / (Math.exp(1) + Math.exp(3)), Math.exp(2) / (Math.exp(2) + Math.exp(5)), Math.exp(3) / (Math.exp(1) + Math.exp(3)), Math.exp(5) / (Math.exp(2) + Math.exp(5))];
    expect(mismatch(await vals(new Softmax(0).forward(fromData(ad, x))), col)).toBeUndefined();
    expect(mismatch(await vals(new LogSoftmax(0).forward(fromData(ad, x))), col.map(Math.log))).toBeUndefined();
  });
});

describe('initialisers', () => {
  const stats = (v: number[]) => {
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    return { mean, std: Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length), min: Math.min(...v), max: Math.max(...v) };
  };

  it('xavier uniform and normal follow Glorot (fans from [out, in, k...], or given)', async () => {
    const u = stats(await vals(xavierUniform(ad, [200, 100, 3])));
    const bound = Math.sqrt(6 / (300 + 600));
    expect(u.max).toBeLessThanOrEqual(bound);
    expect(u.std / (bound / Math.sqrt(3))).toBeCloseTo(1, 1);
    const n = stats(await vals(xavierNormal(ad, [300, 400], { gain: 2 })));
    expect(n.std / (2 * Math.sqrt(2 / 700))).toBeCloseTo(1, 1);
    const given = stats(await vals(xavierUniform(ad, [400, 300], { fanIn: 400, fanOut: 300 })));
    expect(given.max).toBeLessThanOrEqual(Math.sqrt(6 / 700));
  });

  it('kaiming normal: std gain / sqrt(fan), fanIn or fanOut', async () => {
    const a = stats(await vals(kaimingNormal(ad, [100, 800], { nonlinearity: 'relu' })));
    expect(a.std / Math.sqrt(2 / 800)).toBeCloseTo(1, 1);
    const b = stats(await vals(kaimingNormal(ad, [100, 800], { mode: 'fanOut', nonlinearity: 'relu' })));
    expect(b.std / Math.sqrt(2 / 100)).toBeCloseTo(1, 1);
    expect(calculateGain('leakyRelu', 0.2)).toBeCloseTo(Math.sqrt(2 / 1.04), 12);
    expect(calculateGain('tanh')).toBeCloseTo(5 / 3, 12);
  });

  it('truncated normal stays in [a, b] with the truncated moments', async () => {
    const v = await vals(truncatedNormal(ad, [100000], { mean: 1, std: 2, a: -1, b: 3 }));
    const s = stats(v);
    expect(s.min).toBeGreaterThanOrEqual(-1);
    expect(s.max).toBeLessThanOrEqual(3);
    // N(1, 4) truncated to mean +- 1 std: mean 1, std 2 * sqrt(1 - 2 phi(1) / (2 Phi(1) - 1)) = 2 * 0.5376
    expect(s.mean).toBeCloseTo(1, 1);
    expect(s.std / (2 * 0.5376)).toBeCloseTo(1, 1);
    const one = await vals(truncatedNormal(ad, [50000], { a: 0, b: 0.5 }));
    expect(Math.min(...one)).toBeGreaterThanOrEqual(0);
  });

  it('orthogonal gives orthonormal rows or columns, scaled by gain, reproducibly', async () => {
    for (const [r, c] of [[5, 3], [3, 5], [4, 4]] as const) {
      const q = await vals(orthogonal(ad, [r, c], { gain: 2 }));
      const tall = r >= c;
      const k = tall ? c : r;
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) {
          let dot = 0;
          for (let m = 0; m < (tall ? r : c); m++) dot += tall ? q[m * c + i]! * q[m * c + j]! : q[i * c + m]! * q[j * c + m]!;
          expect(dot).toBeCloseTo(i === j ? 4 : 0, 5);
        }
    }
    ad.seed(3);
    const a = await vals(orthogonal(ad, [3, 2, 2]));
    ad.seed(3);
    expect(await vals(orthogonal(ad, [3, 2, 2]))).toEqual(a);
  });

  it('dtype float16: the float32 values of the same stream, rounded once (the ends of a uniform clamped in)', async () => {
    const bound = Math.sqrt(6 / (20 + 30));
    // [low, high) where the draw is uniform: rounding may leave it, and is then clamped in.
    const draws: Array<[string, (o: { dtype?: 'float16' }) => ReturnType<typeof xavierUniform<typeof ad>>, [number, number] | undefined]> = [
      ['xavierUniform', (o) => xavierUniform(ad, [20, 30], o), [-bound, bound]],
      ['kaimingNormal', (o) => kaimingNormal(ad, [20, 30], o), undefined],
      ['truncatedNormal', (o) => truncatedNormal(ad, [600], o), undefined],
      ['orthogonal', (o) => orthogonal(ad, [20, 30], o), undefined],
      ['random', (o) => random(ad, [600], Distribution.Normal(0, 3), o), undefined],
    ];
    for (const [name, draw, range] of draws) {
      ad.seed(11);
      const wide = await vals(draw({}));
      ad.seed(11);
      const half = draw({ dtype: 'float16' });
      expect(half.dtype, name).toBe('float16');
      expect(half.shape, name).toEqual([name === 'truncatedNormal' || name === 'random' ? 600 : 20, ...(name === 'truncatedNormal' || name === 'random' ? [] : [30])]);
      const got = await vals(half);
      wide.forEach((w, i) => {
        const r = roundHalf(w);
        if (!range || (r >= range[0] && r < range[1])) expect(got[i], `${name}[${i}]`).toBe(r);
        else {
          expect(got[i]! >= range[0] && got[i]! < range[1], `${name}[${i}] = ${got[i]} in range`).toBe(true);
          expect(Math.abs(got[i]! - w), `${name}[${i}] within a float16 step`).toBeLessThanOrEqual(2 ** -10 * Math.abs(w));
        }
      });
    }
    expect(() => random(ad, [2], Distribution.Default, untyped({ dtype: 'int32' }))).toThrow(DTypeError);
    for (const dtype of ['int32', 'bool', null, 'float64']) {
      expect(() => truncatedNormal(ad, [4], untyped({ dtype })), String(dtype)).toThrow(DTypeError);
      expect(() => orthogonal(ad, [2, 2], untyped({ dtype })), String(dtype)).toThrow(DTypeError);
    }
  });

  it('dtype float16 uniforms stay in [low, high): rounding to the high end is clamped in (torch draws none there)', async () => {
    // 2^-12 of the float32 draws in [0, 1) round up to 1 in float16: about 50 of 200000.
    ad.seed(5);
    const unit = await vals(random(ad, [200000], Distribution.Default, { dtype: 'float16' }));
    const max = (v: number[]): number => v.reduce((a, b) => Math.max(a, b), -Infinity);
    const min = (v: number[]): number => v.reduce((a, b) => Math.min(a, b), Infinity);
    expect(max(unit)).toBe(1 - 2 ** -11);
    expect(min(unit)).toBeGreaterThanOrEqual(0);
    // -0.3 and 0.3 are not float16 values: the nearest ones (±0.30005) lie outside the range.
    const u = await vals(random(ad, [200000], Distribution.Uniform(-0.3, 0.3), { dtype: 'float16' }));
    expect(min(u)).toBeGreaterThanOrEqual(-0.3);
    expect(max(u)).toBe(0.2998046875);
  });
});

/** float16 rounding of a number (round to nearest even), for the reference only. */
function roundHalf(x: number): number {
  const f = Math.fround(x);
  if (!Number.isFinite(f) || f === 0) return f;
  const ulp = 2 ** (Math.max(Math.floor(Math.log2(Math.abs(f))), -14) - 10);
  const q = f / ulp;
  let r = Math.round(q);
  // Math.round takes halves towards +inf; float16 takes them to even (then r - 1 is).
  if (Math.abs(q - Math.trunc(q)) === 0.5 && r % 2 !== 0) r -= 1;
  const v = r * ulp;
  return Math.abs(v) > 65504 ? Math.sign(v) * Infinity : v;
}
