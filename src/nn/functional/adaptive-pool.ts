/**
 * Adaptive pooling (torch.nn.functional.adaptive_avg_pool1d / 2d, adaptive_max_pool1d / 2d): any
 * input size to a given output size, output cell i covering [floor(i size / out), ceil((i + 1)
 * size / out)). Both gather each window (windows.ts) and reduce it: averages sum the window and
 * divide by its size (float16 in float32, as torch accumulates), so an inf or NaN reaches only the
 * cells whose windows hold it (a matmul with averaging matrices would multiply it by their zeros);
 * maxima send a window's gradient to its first maximum in row-major order (a NaN counts as the
 * maximum), as max pooling's.
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { checkInteger } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { fromData } from '../../tensor/creation.js';
import { inFloat32 } from '../../tensor/precision.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';
import { checkElements, checkFloat, checkRank } from './args.js';
import { adaptiveKernel, adaptiveWindowTable, unfold } from './windows.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** Output size 2-D: n, or [h, w] where null keeps that input dim. */
export type AdaptiveSize2d = number | readonly [number | null, number | null];

/** The output dims: `v` a number (every dim) or one entry per dim, null keeping the input's. */
function outputDims(op: string, v: unknown, dims: readonly number[]): number[] {
  if (!Array.isArray(v)) return dims.map(() => checkInteger(op, 'outputSize', v, 1));
  if (v.length !== dims.length) throw new ArgumentError(`outputSize must be a number or a list of ${dims.length}, got ${JSON.stringify(v)}`, { op });
  return v.map((d: unknown, i) => (d === null ? dims[i]! : checkInteger(op, 'outputSize', d, 1)));
}

/** The checked input as [..., H, W] (a 1-D input with H = 1) and the output size [oh, ow]. */
function prepare<B extends Backend>(op: string, x: F<B>, outputSize: unknown, oneD: boolean): [number, number] {
  checkTensors(op, { input: x });
  checkFloat(op, x);
  if (oneD) checkRank(op, 'the input', x, [2, 3], '[N, C, L] or [C, L]');
  else checkRank(op, 'the input', x, [3, 4], '[N, C, H, W] or [C, H, W]');
  const inDims = x.shape.slice(oneD ? -1 : -2);
  const out = outputDims(op, outputSize, inDims);
  if (inDims.some((d) => d === 0)) throw new ShapeError(`the input has an empty spatial dim (${inDims.join('x')})`, { op, shapes: [x.shape] });
  const planes = x.shape.slice(0, oneD ? -1 : -2);
  checkElements(op, 'the output', [...planes, ...out], [x.shape]);
  return oneD ? [1, out[0]!] : [out[0]!, out[1]!];
}

/** [oh, ow]: the number of input cells in each output cell's window. */
function windowSizes(h: number, w: number, oh: number, ow: number): Float32Array {
  const size = (i: number, n: number, out: number): number => Math.ceil(((i + 1) * n) / out) - Math.floor((i * n) / out);
  const sizes = new Float32Array(oh * ow);
  for (let i = 0; i < oh; i++) for (let j = 0; j < ow; j++) sizes[i * ow + j] = size(i, h, oh) * size(j, w, ow);
  return sizes;
}

function averaged<B extends Backend>(op: string, x: F<B>, oh: number, ow: number): F<B> {
  const [h, w] = x.shape.slice(-2) as [number, number];
  const planes = x.shape.slice(0, -2);
  const k = adaptiveKernel(h, w, oh, ow);
  checkElements(op, 'the gathered windows', [...planes, k, oh, ow], [x.shape]);
  return inFloat32(x, (x32) =>
    tidy(() => {
      const x4 = x32.reshape([planes.reduce((a, d) => a * d, 1), 1, h, w]);
      // Slots past a window's end read 0: they add nothing to its sum.
      const sums = unfold(x4, adaptiveWindowTable(h, w, oh, ow), k, 0).sum(2);
      const sizes = fromData(x32.backend, windowSizes(h, w, oh, ow), { shape: [oh * ow], device: x32.device, dtype: x32.dtype });
      return sums.div(sizes).reshape([...planes, oh, ow]);
    }),
  );
}

function maximum<B extends Backend>(op: string, x: F<B>, oh: number, ow: number): F<B> {
  const [h, w] = x.shape.slice(-2) as [number, number];
  const planes = x.shape.slice(0, -2);
  const k = adaptiveKernel(h, w, oh, ow);
  checkElements(op, 'the gathered windows', [...planes, k, oh, ow], [x.shape]);
  return tidy(() => {
    const x4 = x.reshape([planes.reduce((a, d) => a * d, 1), 1, h, w]);
    const windows = unfold(x4, adaptiveWindowTable(h, w, oh, ow), k, -Infinity);
    const pooled = x.requiresGrad ? windows.maxWithIndices(2).values : windows.max(2);
    return pooled.reshape([...planes, oh, ow]);
  });
}

/** torch.nn.functional.adaptive_avg_pool2d: x [N, C, H, W] or [C, H, W] to `outputSize` (null keeps that dim). */
export function adaptiveAvgPool2d<B extends Backend>(x: F<B>, outputSize: AdaptiveSize2d): F<B> {
  const [oh, ow] = prepare('adaptiveAvgPool2d', x, outputSize, false);
  return averaged('adaptiveAvgPool2d', x, oh, ow);
}

/** torch.nn.functional.adaptive_avg_pool1d: x [N, C, L] or [C, L] to length `outputSize`. */
export function adaptiveAvgPool1d<B extends Backend>(x: F<B>, outputSize: number): F<B> {
  const [, ol] = prepare('adaptiveAvgPool1d', x, outputSize, true);
  return tidy(() => averaged('adaptiveAvgPool1d', x.unsqueeze(-2), 1, ol).squeeze(-2));
}

/** torch.nn.functional.adaptive_max_pool2d (the values): x [N, C, H, W] or [C, H, W] to `outputSize` (null keeps that dim). */
export function adaptiveMaxPool2d<B extends Backend>(x: F<B>, outputSize: AdaptiveSize2d): F<B> {
  const [oh, ow] = prepare('adaptiveMaxPool2d', x, outputSize, false);
  return maximum('adaptiveMaxPool2d', x, oh, ow);
}

/** torch.nn.functional.adaptive_max_pool1d (the values): x [N, C, L] or [C, L] to length `outputSize`. */
export function adaptiveMaxPool1d<B extends Backend>(x: F<B>, outputSize: number): F<B> {
  const [, ol] = prepare('adaptiveMaxPool1d', x, outputSize, true);
  return tidy(() => maximum('adaptiveMaxPool1d', x.unsqueeze(-2), 1, ol).squeeze(-2));
}
