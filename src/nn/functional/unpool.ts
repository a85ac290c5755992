/**
 * torch.nn.functional.max_unpool1d / max_unpool2d: each value written to the flat per-plane
 * position its index names (maxPool's `returnIndices`), zeros elsewhere, composed from
 * `scatterAdd` so every backend and autodiff have it (its gradient is the gather torch's is).
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../errors.js';
import { checkOptions } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { ones, zeros } from '../../tensor/creation.js';
import { asIndexCaller } from '../../tensor/index-scope.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';
import { checkElements, checkFloat, checkRank, pair, single, type Pair } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface MaxUnpool2dOptions {
  /** Default: the kernel size. */
  stride?: Pair;
  padding?: Pair;
  /** The output's spatial size [H, W] or [N, C, H, W] (the trailing two are taken, as torch); default (in - 1) stride - 2 padding + kernel. */
  outputSize?: readonly number[];
}

export interface MaxUnpool1dOptions {
  stride?: number;
  padding?: number;
  /** The output length (a number, [L] or [N, C, L]); default (in - 1) stride - 2 padding + kernel. */
  outputSize?: number | readonly number[];
}

/** torch.nn.functional.max_unpool2d: x and indices [N, C, H, W] or [C, H, W] -> [N, C, H', W']. */
export function maxUnpool2d<B extends Backend>(x: F<B>, indices: Tensor<B, 'int'>, kernelSize: Pair, options: MaxUnpool2dOptions = {}): F<B> {
  const op = 'maxUnpool2d';
  checkTensors(op, { input: x, indices });
  checkOptions(op, options);
  checkRank(op, 'the input', x, [3, 4], '[N, C, H, W] or [C, H, W]');
  const kernel = pair(op, 'kernelSize', kernelSize, 1);
  const stride = pair(op, 'stride', options.stride ?? kernel, 1);
  const padding = pair(op, 'padding', options.padding ?? 0, 0);
  const [h, w] = x.shape.slice(-2) as [number, number];
  const size = outputSize(op, options.outputSize, [h, w], kernel, stride, padding);
  return unpool(op, x, indices, size);
}

/** torch.nn.functional.max_unpool1d: x and indices [N, C, L] or [C, L] -> [N, C, L']. */
export function maxUnpool1d<B extends Backend>(x: F<B>, indices: Tensor<B, 'int'>, kernelSize: number, options: MaxUnpool1dOptions = {}): F<B> {
  const op = 'maxUnpool1d';
  checkTensors(op, { input: x, indices });
  checkOptions(op, options);
  checkRank(op, 'the input', x, [2, 3], '[N, C, L] or [C, L]');
  const k = single(op, 'kernelSize', kernelSize, 1);
  const stride = single(op, 'stride', options.stride ?? k, 1);
  const padding = single(op, 'padding', options.padding ?? 0, 0);
  const given = options.outputSize;
  if (given !== undefined && typeof given !== 'number' && (!Array.isArray(given) || (given.length !== 1 && given.length !== 3))) {
    throw new ArgumentError(`outputSize must be a length, [L] or [N, C, L], got ${JSON.stringify(given)}`, { op });
  }
  const [, len] = outputSize(op, given === undefined ? undefined : [1, ...(typeof given === 'number' ? [given] : given.slice(-1))], [1, x.shape[x.rank - 1]!], [1, k], [1, stride], [0, padding]);
  return unpool(op, x, indices, [len]);
}

/** torch's default_output_size: the given size within one stride of the default, else an error. */
function outputSize(op: string, given: readonly number[] | undefined, input: readonly [number, number], kernel: readonly [number, number], stride: readonly [number, number], padding: readonly [number, number]): [number, number] {
  const defaults = input.map((n, i) => (n - 1) * stride[i]! - 2 * padding[i]! + kernel[i]!) as [number, number];
  if (given === undefined) {
    if (defaults[0] < 1 || defaults[1] < 1) throw new ShapeError(`the output size [${defaults.join(', ')}] would be empty`, { op, shapes: [input], hint: 'use less padding' });
    return defaults;
  }
  if (!Array.isArray(given) || (given.length !== 2 && given.length !== 4) || given.some((v) => !Number.isSafeInteger(v) || v < 1)) {
    throw new ArgumentError(`outputSize must be [H, W] or [N, C, H, W] of positive integers, got ${JSON.stringify(given)}`, { op });
  }
  const size = given.slice(-2) as [number, number];
  for (let i = 0; i < 2; i++) {
    if (size[i]! <= defaults[i]! - stride[i]! || size[i]! >= defaults[i]! + stride[i]!) {
      throw new ShapeError(`outputSize [${size.join(', ')}] must be less than a stride from the default size [${defaults.join(', ')}]`, { op, shapes: [input], hint: 'torch accepts sizes strictly between the default minus and plus the stride' });
    }
  }
  return size;
}

/**
 * Scatters each plane's values to their indices. Two indices naming the same position (windows that
 * overlap and share a maximum) would add; dividing by the count there gives the value itself when
 * they carry the same value (as from maxPool), and the division is kept out of the gradient so each
 * value still receives the output gradient at its index, as torch's. The index values are known
 * only where they are (on the device): one outside the output plane is not checked here (that
 * would wait on the device) but fails the scatterAdd when it runs, as `maxUnpool2d: index i is
 * out of range for H'·W' positions in an output plane (in scatterAdd)` on reading the result.
 */
function unpool<B extends Backend>(op: string, x: F<B>, indices: Tensor<B, 'int'>, size: readonly number[]): F<B> {
  checkFloat(op, x);
  if (indices.dtype !== 'int32') throw new DTypeError(`indices must be int32 (maxPool's returnIndices), got ${indices.dtype}`, { op, dtypes: [indices.dtype] });
  if (indices.rank !== x.rank || indices.shape.some((d, i) => d !== x.shape[i])) {
    throw new ShapeError(`indices must have the input's shape [${x.shape.join(', ')}]`, { op, shapes: [x.shape, indices.shape] });
  }
  const spatial = size.length;
  const lead = x.shape.slice(0, x.rank - spatial);
  const planes = lead.reduce((a, v) => a * v, 1);
  const area = size.reduce((a, v) => a * v, 1);
  checkElements(op, 'the output', [...lead, ...size], [x.shape]);
  const inArea = x.shape.slice(x.rank - spatial).reduce((a, v) => a * v, 1);
  return asIndexCaller({ name: op, of: 'positions in an output plane' }, () =>
    tidy(() => {
      const idx = indices.reshape([planes, inArea]);
      const values = x.reshape([planes, inArea]);
      const base = zeros(x.backend, [planes, area], { device: x.device, dtype: x.dtype });
      const sum = base.scatterAdd(1, idx, values);
      const count = base.scatterAdd(1, idx, ones(x.backend, [planes, inArea], { device: x.device, dtype: x.dtype })).clampMin(1);
      const out = sum.sub(sum.sub(sum.div(count)).detach());
      return out.reshape([...lead, ...size]);
    }),
  );
}
