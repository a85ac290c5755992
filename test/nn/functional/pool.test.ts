/** maxPool / avgPool / adaptiveAvgPool against direct float64 loops, with finite-difference gradients. */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../../src/autodiff/autodiff.js';
import { Cpu } from '../../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError } from '../../../src/errors.js';
import { adaptiveAvgPool1d, adaptiveAvgPool2d, adaptiveMaxPool1d, adaptiveMaxPool2d, avgPool1d, avgPool2d, maxPool1d, maxPool2d } from '../../../src/nn/functional/pool.js';
import { fromData, zeros } from '../../../src/tensor/creation.js';
import { makeWgpu } from '../../autodiff/backends.js';
import { checkCase, type AD, type FnCase } from '../check.js';
import { adaptiveAvgPool2dRef, maxPool2dGradRef, nd, pool2dRef, type Nd, type Pool2dRefOptions } from '../conv-ref.js';

const cpu = new Autodiff(new Cpu({ threads: 0 }));
const wgpuInner = await makeWgpu();
const wgpu = wgpuInner ? new Autodiff(wgpuInner) : undefined;
afterAll(async () => {
  await cpu.close();
  await wgpuInner?.close();
});

const as2d = (t: Nd): Nd => ({ shape: [t.shape[0]!, t.shape[1]!, 1, t.shape[2]!], data: t.data });
const as1d = (t: Nd): Nd => ({ shape: [t.shape[0]!, t.shape[1]!, t.shape[3]!], data: t.data });

/** torch's adaptive max pooling: output cell (i, j) is the maximum over rows [floor(i H / oh), ceil((i + 1) H / oh)) and likewise columns. */
function adaptiveMaxPool2dRef(x: Nd, oh: number, ow: number): Nd {
  const [N, C, H, W] = x.shape as [number, number, number, number];
  const out = new Float64Array(N * C * oh * ow);
  for (let nc = 0; nc < N * C; nc++)
    for (let i = 0; i < oh; i++)
      for (let j = 0; j < ow; j++) {
        let m = -Infinity;
        for (let y = Math.floor((i * H) / oh); y < Math.ceil(((i + 1) * H) / oh); y++)
          for (let xx = Math.floor((j * W) / ow); xx < Math.ceil(((j + 1) * W) / ow); xx++) m = Math.max(m, x.data[(nc * H + y) * W + xx]!);
        out[(nc * oh + i) * ow + j] = m;
      }
  return { shape: [N, C, oh, ow], data: out };
}

const CASES: FnCase[] = [
  {
    name: 'maxPool2d 2x2',
    shapes: [[2, 3, 6, 6]],
    run: ([x]) => maxPool2d(x!, 2),
    ref: ([x]) => pool2dRef(x!, 'max', { kernel: [2, 2] }),
  },
  {
    name: 'maxPool2d 3x3, stride 2, padding 1',
    shapes: [[1, 2, 7, 8]],
    run: ([x]) => maxPool2d(x!, 3, { stride: 2, padding: 1 }),
    ref: ([x]) => pool2dRef(x!, 'max', { kernel: [3, 3], stride: [2, 2], padding: [1, 1] }),
  },
  {
    name: 'maxPool2d ceilMode',
    shapes: [[1, 1, 5, 7]],
    run: ([x]) => maxPool2d(x!, 2, { ceilMode: true }),
    ref: ([x]) => pool2dRef(x!, 'max', { kernel: [2, 2], ceilMode: true }),
  },
  {
    name: 'maxPool2d 2x2 on 5x7 (the last row and column are dropped)',
    shapes: [[2, 1, 5, 7]],
    run: ([x]) => maxPool2d(x!, 2),
    ref: ([x]) => pool2dRef(x!, 'max', { kernel: [2, 2] }),
  },
  {
    name: 'maxPool2d dilation 2, kernel [3, 2], stride 1',
    shapes: [[1, 2, 7, 6]],
    run: ([x]) => maxPool2d(x!, [3, 2], { dilation: 2, stride: 1 }),
    ref: ([x]) => pool2dRef(x!, 'max', { kernel: [3, 2], dilation: [2, 2], stride: [1, 1] }),
  },
  {
    name: 'maxPool2d unbatched',
    shapes: [[2, 4, 4]],
    run: ([x]) => maxPool2d(x!, 2),
    ref: ([x]) => {
      const y = pool2dRef({ shape: [1, ...x!.shape], data: x!.data }, 'max', { kernel: [2, 2] });
      return { shape: y.shape.slice(1), data: y.data };
    },
  },
  {
    name: 'avgPool2d 2x2',
    shapes: [[2, 2, 4, 6]],
    run: ([x]) => avgPool2d(x!, 2),
    ref: ([x]) => pool2dRef(x!, 'avg', { kernel: [2, 2] }),
  },
  {
    name: 'avgPool2d [3, 2] on 7x5 (tiling, cropped)',
    shapes: [[1, 2, 7, 5]],
    run: ([x]) => avgPool2d(x!, [3, 2]),
    ref: ([x]) => pool2dRef(x!, 'avg', { kernel: [3, 2] }),
  },
  {
    name: 'avgPool2d 3x3, stride 2, padding 1 (padding counted)',
    shapes: [[1, 2, 7, 6]],
    run: ([x]) => avgPool2d(x!, 3, { stride: 2, padding: 1 }),
    ref: ([x]) => pool2dRef(x!, 'avg', { kernel: [3, 3], stride: [2, 2], padding: [1, 1] }),
  },
  {
    name: 'avgPool2d countIncludePad false',
    shapes: [[1, 2, 7, 6]],
    run: ([x]) => avgPool2d(x!, 3, { stride: 2, padding: 1, countIncludePad: false }),
    ref: ([x]) => pool2dRef(x!, 'avg', { kernel: [3, 3], stride: [2, 2], padding: [1, 1], countIncludePad: false }),
  },
  {
    name: 'avgPool2d ceilMode with padding (the overhang is not counted)',
    shapes: [[1, 1, 6, 6]],
    run: ([x]) => avgPool2d(x!, 3, { stride: 2, padding: 1, ceilMode: true }),
    ref: ([x]) => pool2dRef(x!, 'avg', { kernel: [3, 3], stride: [2, 2], padding: [1, 1], ceilMode: true }),
  },
  {
    name: 'avgPool2d divisorOverride',
    shapes: [[1, 1, 4, 4]],
    run: ([x]) => avgPool2d(x!, 2, { divisorOverride: 3 }),
    ref: ([x]) => pool2dRef(x!, 'avg', { kernel: [2, 2], divisorOverride: 3 }),
  },
  {
    name: 'adaptiveAvgPool2d 7x5 -> 3x2',
    shapes: [[2, 2, 7, 5]],
    run: ([x]) => adaptiveAvgPool2d(x!, [3, 2]),
    ref: ([x]) => adaptiveAvgPool2dRef(x!, 3, 2),
  },
  {
    name: 'adaptiveAvgPool2d global (1)',
    shapes: [[2, 3, 4, 5]],
    run: ([x]) => adaptiveAvgPool2d(x!, 1),
    ref: ([x]) => adaptiveAvgPool2dRef(x!, 1, 1),
  },
  {
    name: 'adaptiveAvgPool2d upwards 3x3 -> 5x4, and null keeps a dim',
    shapes: [[1, 2, 3, 3]],
    run: ([x]) => adaptiveAvgPool2d(adaptiveAvgPool2d(x!, [5, null]), [null, 4]),
    ref: ([x]) => adaptiveAvgPool2dRef(x!, 5, 4),
  },
  {
    name: 'maxPool1d kernel 3, stride 2, padding 1',
    shapes: [[2, 2, 9]],
    run: ([x]) => maxPool1d(x!, 3, { stride: 2, padding: 1 }),
    ref: ([x]) => as1d(pool2dRef(as2d(x!), 'max', { kernel: [1, 3], stride: [1, 2], padding: [0, 1] })),
  },
  {
    name: 'adaptiveMaxPool2d 7x5 -> 3x2 (overlapping windows of two sizes)',
    shapes: [[2, 2, 7, 5]],
    run: ([x]) => adaptiveMaxPool2d(x!, [3, 2]),
    ref: ([x]) => adaptiveMaxPool2dRef(x!, 3, 2),
  },
  {
    name: 'adaptiveMaxPool2d unbatched, upwards 3x4 -> 5x[keep]',
    shapes: [[2, 3, 4]],
    run: ([x]) => adaptiveMaxPool2d(x!, [5, null]),
    ref: ([x]) => {
      const y = adaptiveMaxPool2dRef({ shape: [1, ...x!.shape], data: x!.data }, 5, 4);
      return { shape: y.shape.slice(1), data: y.data };
    },
  },
  {
    name: 'adaptiveMaxPool1d 9 -> 4',
    shapes: [[2, 3, 9]],
    run: ([x]) => adaptiveMaxPool1d(x!, 4),
    ref: ([x]) => as1d(adaptiveMaxPool2dRef(as2d(x!), 1, 4)),
  },
  {
    name: 'adaptiveAvgPool1d 7 -> 3, unbatched',
    shapes: [[3, 7]],
    run: ([x]) => adaptiveAvgPool1d(x!, 3),
    ref: ([x]) => {
      const y = adaptiveAvgPool2dRef({ shape: [1, 3, 1, 7], data: x!.data }, 1, 3);
      return { shape: [3, 3], data: y.data };
    },
  },
  {
    name: 'avgPool1d kernel 2',
    shapes: [[2, 2, 7]],
    run: ([x]) => avgPool1d(x!, 2),
    ref: ([x]) => as1d(pool2dRef(as2d(x!), 'avg', { kernel: [1, 2] })),
  },
];

describe('pooling on autodiff<cpu>', () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    await checkCase(cpu, c, 200 + i);
  });

  it('maxPool2d propagates NaN and ignores -Infinity padding', async () => {
    const x = fromData(cpu, [[[[NaN, 1], [2, 3]]]]);
    expect(Array.from((await maxPool2d(x, 2).toData()).values)).toEqual([NaN]);
    const y = fromData(cpu, [[[[-5, -6], [-7, -8]]]]);
    expect(Array.from((await maxPool2d(y, 2, { stride: 1, padding: 1 }).toData()).values)).toEqual([-5, -5, -6, -5, -5, -6, -7, -7, -8]);
  });
});

describe('adaptive average pooling keeps inf and NaN in their own windows (as torch)', () => {
  const backends: Array<[string, AD | undefined]> = [['autodiff<cpu>', cpu], ['autodiff<wgpu>', wgpu]];
  for (const [name, b] of backends) {
    it.runIf(b !== undefined)(`${name}: 1-D and 2-D`, async () => {
      // torch: adaptive_avg_pool1d([inf, 1, 2, 3], 2) = [inf, 2.5]; 2-D [[1, 2], [3, nan]] to [2, 1] = [[1.5], [nan]].
      const one = adaptiveAvgPool1d(fromData(b!, Float32Array.from([Infinity, 1, 2, 3]), { shape: [1, 1, 4] }), 2);
      expect(Array.from((await one.toData()).values)).toEqual([Infinity, 2.5]);
      const two = adaptiveAvgPool2d(fromData(b!, Float32Array.from([1, 2, 3, NaN]), { shape: [1, 1, 2, 2] }), [2, 1]);
      expect(Array.from((await two.toData()).values)).toEqual([1.5, NaN]);
      // Overlapping windows (5 -> 3: [0, 2), [1, 4), [3, 5)): -inf at 0 reaches only the first.
      const lap = adaptiveAvgPool1d(fromData(b!, Float32Array.from([-Infinity, 3, 6, 9, 12]), { shape: [1, 5] }), 3);
      expect(Array.from((await lap.toData()).values)).toEqual([-Infinity, 6, 10.5]);
    });

    it.runIf(b !== undefined)(`${name}: float16 windows sum in float32 (a sum past 65504 does not overflow)`, async () => {
      const x = fromData(b!, new Float32Array(16).fill(60000), { shape: [1, 1, 4, 4], dtype: 'float16' });
      const y = adaptiveAvgPool2d(x, 1);
      expect(y.dtype).toBe('float16');
      // 60000 in float16 is 60000 exactly; the mean of sixteen of them too.
      expect(Array.from((await y.toData()).values)).toEqual([60000]);
    });
  }
});

/** maxPool2d's input gradient for the output gradient `dy` (as loss = sum(y * dy)). */
async function maxPoolGrad(b: AD, x: Nd, dy: Nd, o: Pool2dRefOptions): Promise<Float32Array> {
  const xt = fromData(b, Float32Array.from(x.data), { shape: [...x.shape] }).requireGrad();
  const y = maxPool2d(xt, o.kernel, { stride: o.stride ?? o.kernel, padding: o.padding ?? [0, 0], dilation: o.dilation ?? [1, 1], ceilMode: o.ceilMode ?? false });
  expect(y.shape).toEqual(dy.shape);
  const grads = y.mul(fromData(b, Float32Array.from(dy.data), { shape: [...dy.shape] })).sum().backward();
  const g = grads.get(xt);
  if (!g) throw new Error('no gradient for x');
  const values = (await g.toData()).values;
  if (!(values instanceof Float32Array)) throw new Error('a float gradient');
  return values;
}

const tieCases: Array<[string, Nd, Pool2dRefOptions]> = [
  ['a constant image, 2x2 windows', nd([1, 1, 4, 4], new Array<number>(16).fill(1)), { kernel: [2, 2] }],
  ['overlapping windows of equal values (stride 1)', nd([1, 1, 3, 3], new Array<number>(9).fill(0)), { kernel: [2, 2], stride: [1, 1] }],
  ['equal negatives beside -Infinity padding', nd([1, 1, 3, 3], new Array<number>(9).fill(-1)), { kernel: [3, 3], stride: [1, 1], padding: [1, 1] }],
  ['a NaN takes the gradient from a larger value', nd([1, 1, 2, 2], [5, 1, NaN, 7]), { kernel: [2, 2] }],
  ['two NaNs: the first takes it', nd([1, 1, 2, 2], [0, NaN, NaN, 2]), { kernel: [2, 2] }],
  ['a window of -Infinity beside -Infinity padding: its first in-bounds element, never the padding', nd([1, 1, 2, 2], [-Infinity, -Infinity, -Infinity, -Infinity]), { kernel: [2, 2], stride: [1, 1], padding: [1, 1] }],
  ['-Infinity rows with padding and dilation', nd([1, 1, 3, 4], [-Infinity, -Infinity, 3, -Infinity, -Infinity, -Infinity, -Infinity, -Infinity, 1, -Infinity, -Infinity, -Infinity]), { kernel: [3, 3], stride: [1, 2], padding: [1, 1], dilation: [1, 2] }],
  ['ties after a ReLU, dilated', nd([1, 2, 5, 5], Array.from({ length: 50 }, (_, i) => Math.max(0, (i % 5) - 2))), { kernel: [2, 2], stride: [1, 2], dilation: [2, 1] }],
];

describe('maxPool2d gradients of tied maxima: all to the first, in row-major order (as PyTorch)', () => {
  const backends: Array<[string, AD | undefined]> = [['autodiff<cpu>', cpu], ['autodiff<wgpu>', wgpu]];
  for (const [name, b] of backends) {
    it.runIf(b !== undefined).each(tieCases)(`${name}: %s`, async (_label, x, o) => {
      const shape = pool2dRef(x, 'max', o).shape;
      const dy = nd(shape, Array.from({ length: shape.reduce((a, d) => a * d, 1) }, (_, i) => (i % 5) - 2 + 0.5));
      expect(Array.from(await maxPoolGrad(b!, x, dy, o))).toEqual(Array.from(maxPool2dGradRef(x, dy, o).data));
    });
  }

  for (const [name, b] of backends) {
    it.runIf(b !== undefined)(`${name}: maxPool1d credits the first in-bounds element of a -Infinity window`, async () => {
      // torch: windows [pad, a, b], [a, b, c], [b, c, pad] of -Infinity route to a, a, b.
      const x = fromData(b!, [[[-Infinity, -Infinity, -Infinity]]]).requireGrad();
      const grads = maxPool1d(x, 3, { stride: 1, padding: 1 }).sum().backward();
      expect(Array.from((await x.grad(grads)!.toData()).values)).toEqual([2, 1, 0]);
    });
  }

  it('any geometry, inputs of few distinct values (property, autodiff<cpu>)', async () => {
    const geometry = fc
      .record({
        n: fc.integer({ min: 1, max: 2 }),
        c: fc.integer({ min: 1, max: 2 }),
        h: fc.integer({ min: 1, max: 6 }),
        w: fc.integer({ min: 1, max: 6 }),
        kh: fc.integer({ min: 1, max: 3 }),
        kw: fc.integer({ min: 1, max: 3 }),
        sh: fc.integer({ min: 1, max: 3 }),
        sw: fc.integer({ min: 1, max: 3 }),
        dh: fc.integer({ min: 1, max: 2 }),
        dw: fc.integer({ min: 1, max: 2 }),
        padH: fc.boolean(),
        padW: fc.boolean(),
        ceilMode: fc.boolean(),
        seed: fc.integer({ min: 0, max: 1 << 20 }),
      })
      .filter((g) => g.h + 2 * (g.padH ? g.kh >> 1 : 0) >= g.dh * (g.kh - 1) + 1 && g.w + 2 * (g.padW ? g.kw >> 1 : 0) >= g.dw * (g.kw - 1) + 1);
    await fc.assert(
      fc.asyncProperty(geometry, async (g) => {
        const o: Pool2dRefOptions = { kernel: [g.kh, g.kw], stride: [g.sh, g.sw], padding: [g.padH ? g.kh >> 1 : 0, g.padW ? g.kw >> 1 : 0], dilation: [g.dh, g.dw], ceilMode: g.ceilMode };
        let state = g.seed;
        const next = (): number => (state = (state * 1103515245 + 12345) % 2147483648);
        const x = nd([g.n, g.c, g.h, g.w], Array.from({ length: g.n * g.c * g.h * g.w }, () => [-Infinity, -1, 0, 1][next() % 4]!));
        const shape = pool2dRef(x, 'max', o).shape;
        const dy = nd(shape, Array.from({ length: shape.reduce((a, d) => a * d, 1) }, () => (next() % 7) - 3));
        expect(Array.from(await maxPoolGrad(cpu, x, dy, o))).toEqual(Array.from(maxPool2dGradRef(x, dy, o).data));
      }),
      { numRuns: 60 },
    );
  });
});

describe.runIf(wgpu !== undefined)('pooling on autodiff<wgpu>', () => {
  for (const i of [0, 1, 9, 12, 14, 16]) {
    it(CASES[i]!.name, async () => {
      await checkCase(wgpu!, CASES[i]!, 200 + i);
    });
  }
});

describe('pooling errors', () => {
  const t = (shape: number[]) => zeros(cpu, shape);
  it('a window larger than the input, too much padding, bad arguments', () => {
    expect(() => maxPool2d(t([1, 1, 2, 2]), 3)).toThrow(ShapeError);
    expect(() => maxPool2d(t([1, 1, 2, 2]), 3)).toThrow(/maxPool2d: the window 3x3 .* larger than the padded input 2x2; shapes: \[1, 1, 2, 2\]/);
    expect(() => avgPool2d(t([1, 1, 6, 6]), 2, { padding: 2 })).toThrow(ArgumentError);
    expect(() => avgPool2d(t([1, 1, 6, 6]), 2, { padding: 2 })).toThrow(/at most half the kernel/);
    expect(() => maxPool2d(t([1, 1, 6, 6]), 0)).toThrow(ArgumentError);
    expect(() => maxPool2d(t([6, 6]), 2)).toThrow(/maxPool2d: the input must be \[N, C, H, W\] or \[C, H, W\]/);
    expect(() => maxPool1d(t([1, 1, 2]), 3)).toThrow(/maxPool1d/);
    expect(() => avgPool2d(t([1, 1, 4, 4]), 2, { divisorOverride: 0 })).toThrow(ArgumentError);
    expect(() => adaptiveAvgPool2d(t([1, 1, 4, 4]), 0)).toThrow(ArgumentError);
  });
});
