/**
 * The 3-D convolutions and pools beyond the torch vectors (test/torch-vectors/layers3d.test.ts):
 * typed errors naming the op and the shapes, a float64 loop reference for conv3d and
 * convTranspose3d at uneven options, the layers' parameter shapes and state dict keys.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../../src/autodiff/autodiff.js';
import { Cpu } from '../../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../../src/errors.js';
import * as nn from '../../../src/nn/index.js';
import { torchEntries } from '../../../src/record/torch.js';
import { fromData, ones } from '../../../src/tensor/creation.js';
import { untyped } from '../../untyped.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
const F = nn.functional;
type T = ReturnType<typeof ones<typeof ad>>;

const x5 = ones(ad, [1, 2, 4, 5, 5]);
const w5 = ones(ad, [3, 2, 3, 3, 3]);

function throws(f: () => unknown, type: typeof ArgumentError | typeof ShapeError | typeof DTypeError, message: RegExp): void {
  expect(f).toThrow(type);
  expect(f).toThrow(message);
}

describe('bad arguments are typed errors naming the op', () => {
  test.each([
    ['conv3d weight', () => F.conv3d(x5, untyped<T>(null)), ArgumentError, /conv3d: weight must be a tensor, got null/],
    ['conv3d bias', () => F.conv3d(x5, w5, { bias: untyped(3) }), ArgumentError, /conv3d: bias must be a tensor or undefined, got 3/],
    ['conv3d stride pair', () => F.conv3d(x5, w5, { stride: untyped([1, 1]) }), ArgumentError, /conv3d: stride must be a number or a triple \[d, h, w\], got \[1,1\]/],
    ['conv3d same strided', () => F.conv3d(x5, w5, { padding: 'same', stride: 2 }), ArgumentError, /conv3d: padding 'same' needs stride 1/],
    ['conv3d padding mode', () => F.conv3d(x5, w5, { padding: untyped('full') }), ArgumentError, /conv3d: unknown padding mode 'full'/],
    ['conv3d 4-D weight', () => F.conv3d(x5, ones(ad, [3, 2, 3, 3])), ShapeError, /conv3d: the weight must be \[out, in \/ groups, kd, kh, kw\] \(rank 5\), got rank 4/],
    ['conv3d 3-D input', () => F.conv3d(ones(ad, [2, 4, 5]), w5), ShapeError, /conv3d: the input must be \[N, C, D, H, W\] or \[C, D, H, W\] \(rank 4 or 5\), got rank 3/],
    ['conv3d channels', () => F.conv3d(x5, ones(ad, [3, 3, 3, 3, 3])), ShapeError, /conv3d: the input has 2 channels, the weight expects 3.*shapes: \[1, 2, 4, 5, 5\], \[3, 3, 3, 3, 3\]/],
    ['conv3d groups', () => F.conv3d(x5, ones(ad, [3, 1, 3, 3, 3]), { groups: 2 }), ShapeError, /conv3d: groups 2 must divide both the input channels \(2\) and the output channels \(3\)/],
    ['conv3d kernel too large', () => F.conv3d(x5, ones(ad, [1, 2, 5, 3, 3])), ShapeError, /conv3d: the kernel 5x3x3 \(dilation 1x1x1, span 5x3x3\) is larger than the padded input 4x5x5/],
    ['conv3d zero kernel', () => F.conv3d(x5, ones(ad, [1, 2, 3, 0, 3])), ShapeError, /conv3d: the weight's kernel dims must be >= 1, got 3x0x3/],
    ['conv3d bias shape', () => F.conv3d(x5, w5, { bias: ones(ad, [2]) }), ShapeError, /conv3d: bias must be \[3\]/],
    ['conv3d int input', () => F.conv3d(untyped<T>(fromData(ad, new Int32Array(8), { shape: [1, 1, 2, 2, 2] })), ones(ad, [1, 1, 1, 1, 1])), DTypeError, /conv3d: takes float tensors, got int32/],
    ['conv3d padding 1e4', () => F.conv3d(x5, ones(ad, [1, 2, 1, 1, 1]), { padding: 1e4 }), ShapeError, /conv3d: the window table \[1, 20004, 20005, 20005\]/],
    ['convTranspose3d input', () => F.convTranspose3d(untyped<T>(undefined), w5), ArgumentError, /convTranspose3d: input must be a tensor, got undefined/],
    ['convTranspose3d channels', () => F.convTranspose3d(x5, ones(ad, [3, 1, 2, 2, 2])), ShapeError, /convTranspose3d: the input has 2 channels, the weight \[in, out \/ groups, kd, kh, kw\] expects 3/],
    ['convTranspose3d outputPadding', () => F.convTranspose3d(x5, ones(ad, [2, 1, 2, 2, 2]), { stride: 2, outputPadding: [0, 2, 0] }), ArgumentError, /convTranspose3d: outputPadding \[0, 2, 0\] must be smaller than the stride or the dilation/],
    ['convTranspose3d padding', () => F.convTranspose3d(ones(ad, [1, 2, 1, 1, 1]), ones(ad, [2, 1, 2, 2, 2]), { padding: 1 }), ShapeError, /convTranspose3d: the output would be 0x0x0/],
    ['maxPool3d input', () => F.maxPool3d(untyped<T>(null), 2), ArgumentError, /maxPool3d: input must be a tensor/],
    ['maxPool3d kernel pair', () => F.maxPool3d(x5, untyped([2, 2])), ArgumentError, /maxPool3d: kernelSize must be a number or a triple/],
    ['maxPool3d padding', () => F.maxPool3d(x5, 2, { padding: [0, 2, 0] }), ArgumentError, /maxPool3d: padding \[0, 2, 0\] must be at most half the kernel \[2, 2, 2\]/],
    ['maxPool3d window', () => F.maxPool3d(x5, [5, 2, 2]), ShapeError, /maxPool3d: the window 5x2x2 \(dilation 1x1x1\) is larger than the padded input 4x5x5; shapes: \[1, 2, 4, 5, 5\]/],
    ['maxPool3d rank', () => F.maxPool3d(ones(ad, [2, 5, 5]), 2), ShapeError, /maxPool3d: the input must be \[N, C, D, H, W\] or \[C, D, H, W\]/],
    ['avgPool3d divisorOverride', () => F.avgPool3d(x5, 2, { divisorOverride: 0 }), ArgumentError, /avgPool3d: divisorOverride must be an integer >= 1, got 0/],
    ['adaptiveAvgPool3d size', () => F.adaptiveAvgPool3d(x5, untyped([2, 2])), ArgumentError, /adaptiveAvgPool3d: outputSize must be a number or a list of 3, got \[2,2\]/],
    ['adaptiveMaxPool3d size 0', () => F.adaptiveMaxPool3d(x5, 0), ArgumentError, /adaptiveMaxPool3d: outputSize must be an integer >= 1, got 0/],
    ['adaptiveMaxPool3d 1e5', () => F.adaptiveMaxPool3d(x5, 1e5), ShapeError, /adaptiveMaxPool3d: the output \[1, 2, 100000, 100000, 100000\]/],
    ['adaptiveAvgPool3d empty', () => F.adaptiveAvgPool3d(ones(ad, [1, 2, 0, 3, 3]), 2), ShapeError, /adaptiveAvgPool3d: the input has an empty spatial dim \(0x3x3\)/],
    ['Conv3d paddingMode', () => new nn.Conv3d(ad, 2, 2, 3, { paddingMode: untyped('mirror') }), ArgumentError, /Conv3d: paddingMode must be 'zeros', 'reflect', 'replicate' or 'circular'/],
    ['Conv3d groups', () => new nn.Conv3d(ad, 3, 2, 3, { groups: 2 }), ArgumentError, /Conv3d: groups 2 must divide inChannels 3 and outChannels 2/],
    ['Conv3d input', () => new nn.Conv3d(ad, 2, 2, 3).forward(untyped<T>(null)), ArgumentError, /Conv3d: input must be a tensor/],
    ['ConvTranspose3d kernel', () => new nn.ConvTranspose3d(ad, 2, 2, untyped([3, 3])), ArgumentError, /ConvTranspose3d: kernelSize must be a number or a triple/],
    ['Conv3d reflect too wide', () => new nn.Conv3d(ad, 2, 2, 3, { padding: [4, 0, 0], paddingMode: 'reflect' }).forward(x5), ShapeError, /pad: reflect padding \(4, 4\)/],
  ] as Array<[string, () => unknown, typeof ArgumentError, RegExp]>)('%s', (_name, f, type, message) => throws(f, type, message));
});

/** Deterministic values in [-1, 1). */
const values = (n: number, seed: number): Float64Array => Float64Array.from({ length: n }, (_, i) => (((i * 7919 + seed * 104729) % 2003) / 2003) * 2 - 1);

/**
 * float64 loops: y[n, o, z, y, x] = b[o] + sum over the group's channels and the kernel of
 * w[o, c, a, b, c'] x[n, g * C/G + c, z s - p + a d, ...] (zero outside), the definition of conv3d.
 */
function conv3dRef(x: Float64Array, xs: number[], w: Float64Array, ws: number[], bias: Float64Array, s: number[], p: number[], d: number[], groups: number): { data: Float64Array; shape: number[] } {
  const [n, c, ...inp] = xs as [number, number, number, number, number];
  const [o, cg, ...k] = ws as [number, number, number, number, number];
  const out = inp.map((v, i) => Math.floor((v + 2 * p[i]! - d[i]! * (k[i]! - 1) - 1) / s[i]!) + 1);
  const data = new Float64Array(n * o * out[0]! * out[1]! * out[2]!);
  let at = 0;
  for (let b = 0; b < n; b++)
    for (let oc = 0; oc < o; oc++) {
      const g = Math.floor(oc / (o / groups));
      for (let z = 0; z < out[0]!; z++)
        for (let y = 0; y < out[1]!; y++)
          for (let xx = 0; xx < out[2]!; xx++) {
            let sum = bias[oc]!;
            for (let ci = 0; ci < cg; ci++)
              for (let a = 0; a < k[0]; a++)
                for (let bb = 0; bb < k[1]; bb++)
                  for (let cc = 0; cc < k[2]; cc++) {
                    const iz = z * s[0]! - p[0]! + a * d[0]!;
                    const iy = y * s[1]! - p[1]! + bb * d[1]!;
                    const ix = xx * s[2]! - p[2]! + cc * d[2]!;
                    if (iz < 0 || iy < 0 || ix < 0 || iz >= inp[0] || iy >= inp[1] || ix >= inp[2]) continue;
                    const xv = x[(((b * c + g * cg + ci) * inp[0] + iz) * inp[1] + iy) * inp[2] + ix]!;
                    sum += xv * w[(((oc * cg + ci) * k[0] + a) * k[1] + bb) * k[2] + cc]!;
                  }
            data[at++] = sum;
          }
    }
  return { data, shape: [n, o, ...out] };
}

/** float64 scatter form of the transposed convolution: each input voxel adds w times itself to o = i s - p + k d. */
function convTranspose3dRef(x: Float64Array, xs: number[], w: Float64Array, ws: number[], s: number[], p: number[], op: number[], d: number[], groups: number): { data: Float64Array; shape: number[] } {
  const [n, c, ...inp] = xs as [number, number, number, number, number];
  const [, og, ...k] = ws as [number, number, number, number, number];
  const o = og * groups;
  const out = inp.map((v, i) => (v - 1) * s[i]! - 2 * p[i]! + d[i]! * (k[i]! - 1) + op[i]! + 1);
  const data = new Float64Array(n * o * out[0]! * out[1]! * out[2]!);
  for (let b = 0; b < n; b++)
    for (let ci = 0; ci < c; ci++) {
      const g = Math.floor(ci / (c / groups));
      for (let z = 0; z < inp[0]; z++)
        for (let y = 0; y < inp[1]; y++)
          for (let xx = 0; xx < inp[2]; xx++) {
            const xv = x[(((b * c + ci) * inp[0] + z) * inp[1] + y) * inp[2] + xx]!;
            for (let oc = 0; oc < og; oc++)
              for (let a = 0; a < k[0]; a++)
                for (let bb = 0; bb < k[1]; bb++)
                  for (let cc = 0; cc < k[2]; cc++) {
                    const oz = z * s[0]! - p[0]! + a * d[0]!;
                    const oy = y * s[1]! - p[1]! + bb * d[1]!;
                    const ox = xx * s[2]! - p[2]! + cc * d[2]!;
                    if (oz < 0 || oy < 0 || ox < 0 || oz >= out[0]! || oy >= out[1]! || ox >= out[2]!) continue;
                    const at = (((b * o + g * og + oc) * out[0]! + oz) * out[1]! + oy) * out[2]! + ox;
                    data[at] = data[at]! + xv * w[(((ci * og + oc) * k[0] + a) * k[1] + bb) * k[2] + cc]!;
                  }
          }
    }
  return { data, shape: [n, o, ...out] };
}

async function expectClose(t: T, want: { data: Float64Array; shape: number[] }): Promise<void> {
  expect(t.shape).toEqual(want.shape);
  const got = (await t.toData()).values;
  for (let i = 0; i < want.data.length; i++) expect(Math.abs(got[i]! - want.data[i]!), `element ${i}`).toBeLessThan(1e-4 * (1 + Math.abs(want.data[i]!)));
}

describe('against float64 loops', () => {
  test('conv3d: groups, stride, padding and dilation differing per dim', async () => {
    const xs = [2, 4, 5, 6, 7];
    const ws = [6, 2, 2, 3, 2];
    const x = values(xs.reduce((a, b) => a * b), 1);
    const w = values(ws.reduce((a, b) => a * b), 2);
    const b = values(6, 3);
    const s: [number, number, number] = [1, 2, 3];
    const p: [number, number, number] = [1, 0, 2];
    const d: [number, number, number] = [2, 1, 2];
    const y = F.conv3d(fromData(ad, Float32Array.from(x), { shape: xs }), fromData(ad, Float32Array.from(w), { shape: ws }), { bias: fromData(ad, Float32Array.from(b)), stride: s, padding: p, dilation: d, groups: 2 });
    await expectClose(y, conv3dRef(x, xs, w, ws, b, s, p, d, 2));
  });
  test('convTranspose3d: groups, stride, padding, output padding and dilation differing per dim', async () => {
    const xs = [2, 4, 3, 2, 4];
    const ws = [4, 3, 3, 2, 2];
    const x = values(xs.reduce((a, b) => a * b), 4);
    const w = values(ws.reduce((a, b) => a * b), 5);
    const s: [number, number, number] = [2, 3, 1];
    const p: [number, number, number] = [1, 0, 1];
    const op: [number, number, number] = [1, 2, 0];
    const d: [number, number, number] = [1, 2, 2];
    const y = F.convTranspose3d(fromData(ad, Float32Array.from(x), { shape: xs }), fromData(ad, Float32Array.from(w), { shape: ws }), { stride: s, padding: p, outputPadding: op, dilation: d, groups: 2 });
    await expectClose(y, convTranspose3dRef(x, xs, w, ws, s, p, op, d, 2));
  });
});

describe('layers', () => {
  test("Conv3d and ConvTranspose3d hold torch's parameter shapes under torch's keys, initialised in ±1/sqrt(fanIn)", async () => {
    const c = new nn.Conv3d(ad, 4, 6, [3, 2, 1], { groups: 2 });
    expect(torchEntries(c).map((e) => [e.key, e.param.value.shape])).toEqual([['weight', [6, 2, 3, 2, 1]], ['bias', [6]]]);
    const bound = 1 / Math.sqrt(2 * 3 * 2 * 1);
    for (const v of (await c.weight.value.toData()).values) expect(Math.abs(v)).toBeLessThanOrEqual(bound);
    const t = new nn.ConvTranspose3d(ad, 4, 6, 2, { groups: 2, bias: false });
    expect(torchEntries(t).map((e) => [e.key, e.param.value.shape])).toEqual([['weight', [4, 3, 2, 2, 2]]]);
    expect(t.forward(ones(ad, [4, 2, 3, 2])).shape).toEqual([6, 3, 4, 3]);
    expect(new nn.MaxPool3d<typeof ad>(2).forward(ones(ad, [1, 1, 4, 4, 5])).shape).toEqual([1, 1, 2, 2, 2]);
    expect(new nn.AdaptiveAvgPool3d<typeof ad>([2, null, 1]).forward(ones(ad, [3, 4, 4, 5])).shape).toEqual([3, 2, 4, 1]);
  });
  test('float16 inputs run and keep their dtype', async () => {
    const x = ones(ad, [1, 2, 3, 4, 4], { dtype: 'float16' });
    expect(F.conv3d(x, ones(ad, [2, 2, 2, 2, 2], { dtype: 'float16' }), { padding: 'same' }).dtype).toBe('float16');
    expect(F.avgPool3d(x, 2, { padding: 1, countIncludePad: false }).dtype).toBe('float16');
    const a = F.adaptiveAvgPool3d(x, [2, 3, 3]);
    expect(a.dtype).toBe('float16');
    for (const v of (await a.toData()).values) expect(v).toBe(1);
  });
});
