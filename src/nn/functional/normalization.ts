/**
 * Normalisations as functions (torch.nn.functional.batch_norm / group_norm / layer_norm /
 * rms_norm), written with tensor ops so autodiff differentiates them. Statistics use the biased
 * variance, as PyTorch's forward passes do. A float16 input is normalised in float32 and rounded
 * back before the affine step, as torch's kernels accumulate in float32.
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../errors.js';
import { tidy } from '../../memory/tidy.js';
import { asDType, inFloat32 } from '../../tensor/precision.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkArray, checkBoolean, checkInteger, checkKeys, checkOptions, field } from '../../ir/validate.js';
import { checkEps, checkOptionalTensors, checkTensors } from '../check.js';
import { checkFloat } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** Mean over every dim but `keep` (kept as size 1), reducing one dim at a time. */
export function meanExcept<B extends Backend>(x: F<B>, keep: number): F<B> {
  let m = x;
  for (let d = 0; d < x.rank; d++) if (d !== keep) m = m.mean(d, true);
  return m === x ? x.reshape(x.shape) : m;
}

/** Mean over the last `count` dims (kept as size 1). */
function meanLast<B extends Backend>(x: F<B>, count: number): F<B> {
  let m = x;
  for (let d = x.rank - count; d < x.rank; d++) m = m.mean(d, true);
  return m;
}

/** [C] -> [1, C, 1, ...] to broadcast over channel dim 1 of a rank-`rank` input. */
function perChannel<B extends Backend>(t: F<B>, rank: number): F<B> {
  return t.reshape([1, t.shape[0]!, ...new Array<number>(Math.max(0, rank - 2)).fill(1)]);
}

export interface BatchNormOptions<B extends Backend> {
  weight?: F<B> | undefined;
  bias?: F<B> | undefined;
  /** Normalise with this batch's statistics (true) or with the running ones (false, the default). */
  training?: boolean;
  eps?: number;
}

/**
 * torch.nn.functional.batch_norm over channel dim 1 of [N, C, ...]. Returns the output only: the
 * running statistics are the BatchNorm layers' to update (see nn.BatchNorm2d).
 */
/** The input, the optional tensors among the options and eps, for untyped callers. */
function checkArgs(op: string, x: unknown, options: unknown, others: Readonly<Record<string, unknown>> = {}): number | undefined {
  checkTensors(op, { input: x });
  checkOptions(op, options);
  checkOptionalTensors(op, { ...others, weight: field(options, 'weight'), bias: field(options, 'bias') });
  const eps = field(options, 'eps');
  return eps === undefined ? undefined : checkEps(op, eps);
}

/** weight / bias must have exactly `shape` (broadcasting would hide a wrong size, or blame mul). */
function checkAffine<B extends Backend>(op: string, x: F<B>, shape: readonly number[], affine: Readonly<Record<string, F<B> | undefined>>): void {
  for (const [name, t] of Object.entries(affine)) {
    if (t && (t.rank !== shape.length || t.shape.some((d, i) => d !== shape[i]))) {
      throw new ShapeError(`${name} must be [${shape.join(', ')}], got [${t.shape.join(', ')}]`, { op, shapes: [x.shape, t.shape] });
    }
  }
}

export function batchNorm<B extends Backend>(x: F<B>, runningMean: F<B> | undefined, runningVar: F<B> | undefined, options: BatchNormOptions<B> = {}): F<B> {
  const op = 'batchNorm';
  checkArgs(op, x, options, { runningMean, runningVar });
  checkFloat(op, x, runningMean, runningVar, options.weight, options.bias);
  if (x.rank < 2) throw new ShapeError('the input must be [N, C, ...]', { op, shapes: [x.shape] });
  const c = x.shape[1]!;
  for (const [name, t] of [['runningMean', runningMean], ['runningVar', runningVar], ['weight', options.weight], ['bias', options.bias]] as const) {
    if (t && (t.rank !== 1 || t.shape[0] !== c)) throw new ShapeError(`${name} must be [${c}] (one per channel), got [${t.shape.join(', ')}]`, { op, shapes: [x.shape, t.shape] });
  }
  // Named here: normalising a float16 input in float32 would otherwise take float32 statistics silently.
  for (const [name, t] of [['runningMean', runningMean], ['runningVar', runningVar]] as const) {
    if (t && t.dtype !== x.dtype) throw new DTypeError(`${name} must have the input's dtype (${x.dtype}), got ${t.dtype}`, { op, dtypes: [x.dtype, t.dtype] });
  }
  const eps = options.eps ?? 1e-5;
  return tidy(() => {
    let y = inFloat32(x, (xf) => {
      let mean: F<B>;
      let variance: F<B>;
      if (options.training) {
        const count = xf.size / c;
        if (count <= 1) throw new ShapeError(`training needs more than one value per channel, got ${count}`, { op, shapes: [x.shape], hint: 'use a batch of two or more, or eval()' });
        mean = meanExcept(xf, 1);
        variance = meanExcept(xf.sub(mean).square(), 1);
      } else {
        if (!runningMean || !runningVar) throw new ArgumentError('outside training the running mean and variance are needed', { op });
        mean = perChannel(asDType(runningMean, xf.dtype), xf.rank);
        variance = perChannel(asDType(runningVar, xf.dtype), xf.rank);
      }
      return xf.sub(mean).mul(variance.add(eps).rsqrt());
    });
    if (options.weight) y = y.mul(perChannel(options.weight, x.rank));
    if (options.bias) y = y.add(perChannel(options.bias, x.rank));
    return y;
  });
}

/** torch.nn.functional.group_norm: [N, C, ...] normalised over each group of C / groups channels (and all positions). */
export function groupNorm<B extends Backend>(x: F<B>, groups: number, options: { weight?: F<B> | undefined; bias?: F<B> | undefined; eps?: number } = {}): F<B> {
  const op = 'groupNorm';
  checkArgs(op, x, options);
  checkFloat(op, x, options.weight, options.bias);
  checkInteger(op, 'groups', groups, 1);
  if (x.rank < 2) throw new ShapeError('the input must be [N, C, ...]', { op, shapes: [x.shape] });
  const [n, c] = x.shape as [number, number];
  if (c % groups !== 0) throw new ShapeError(`groups ${groups} must divide the ${c} channels`, { op, shapes: [x.shape] });
  checkAffine(op, x, [c], { weight: options.weight, bias: options.bias });
  const eps = options.eps ?? 1e-5;
  return tidy(() => {
    let y = inFloat32(x, (xf) => {
      const g = xf.reshape([n, groups, -1]);
      const centred = g.sub(g.mean(2, true));
      const variance = centred.square().mean(2, true);
      return centred.mul(variance.add(eps).rsqrt()).reshape(x.shape);
    });
    if (options.weight) y = y.mul(perChannel(options.weight, x.rank));
    if (options.bias) y = y.add(perChannel(options.bias, x.rank));
    return y;
  });
}

function checkNormalized<B extends Backend>(op: string, x: F<B>, normalizedShape: readonly number[], options: unknown): void {
  checkArgs(op, x, options);
  checkArray(op, 'normalizedShape', normalizedShape).forEach((d) => checkInteger(op, 'normalizedShape', d, 0));
  checkFloat(op, x);
  const tail = x.shape.slice(x.rank - normalizedShape.length);
  if (normalizedShape.length === 0 || normalizedShape.length > x.rank || tail.some((d, i) => d !== normalizedShape[i])) {
    throw new ShapeError(`the input's last dims must be [${normalizedShape.join(', ')}]`, { op, shapes: [x.shape, normalizedShape] });
  }
}

/** torch.nn.functional.layer_norm over the last dims `normalizedShape`. */
export function layerNorm<B extends Backend>(x: F<B>, normalizedShape: readonly number[], options: { weight?: F<B> | undefined; bias?: F<B> | undefined; eps?: number } = {}): F<B> {
  checkNormalized('layerNorm', x, normalizedShape, options);
  checkFloat('layerNorm', options.weight, options.bias);
  checkAffine('layerNorm', x, normalizedShape, { weight: options.weight, bias: options.bias });
  const eps = options.eps ?? 1e-5;
  return tidy(() => {
    let y = inFloat32(x, (xf) => {
      const centred = xf.sub(meanLast(xf, normalizedShape.length));
      return centred.mul(meanLast(centred.square(), normalizedShape.length).add(eps).rsqrt());
    });
    if (options.weight) y = y.mul(options.weight);
    if (options.bias) y = y.add(options.bias);
    return y;
  });
}

/** torch.nn.functional.rms_norm: x / sqrt(mean(x^2) + eps) over the last dims (eps default: the input dtype's machine epsilon, as PyTorch). */
export function rmsNorm<B extends Backend>(x: F<B>, normalizedShape: readonly number[], options: { weight?: F<B> | undefined; eps?: number } = {}): F<B> {
  checkNormalized('rmsNorm', x, normalizedShape, options);
  checkFloat('rmsNorm', options.weight);
  checkAffine('rmsNorm', x, normalizedShape, { weight: options.weight });
  // torch.finfo(x.dtype).eps: 2^-23 for float32, 2^-10 for float16.
  const eps = options.eps ?? (x.dtype === 'float16' ? 2 ** -10 : 2 ** -23);
  return tidy(() => {
    const y = inFloat32(x, (xf) => xf.mul(meanLast(xf.square(), normalizedShape.length).add(eps).rsqrt()));
    return options.weight ? y.mul(options.weight) : y;
  });
}

export interface InstanceNormOptions<B extends Backend> {
  /** Per-channel statistics [C], used when useInputStats is false. */
  runningMean?: F<B> | undefined;
  runningVar?: F<B> | undefined;
  weight?: F<B> | undefined;
  bias?: F<B> | undefined;
  /** Normalise with each instance's own statistics (default true, torch's use_input_stats); false: with the running ones. */
  useInputStats?: boolean;
  eps?: number;
}

/**
 * torch.nn.functional.instance_norm over [N, C, ...]: each (sample, channel) normalised over its
 * positions (biased variance), then a per-channel scale and shift. Returns the output only: the
 * running statistics are the InstanceNorm layers' to update (as batchNorm here).
 */
export function instanceNorm<B extends Backend>(x: F<B>, options: InstanceNormOptions<B> = {}): F<B> {
  const op = 'instanceNorm';
  const eps = checkArgs(op, x, options, { runningMean: field(options, 'runningMean'), runningVar: field(options, 'runningVar') }) ?? 1e-5;
  checkKeys(op, options, ['runningMean', 'runningVar', 'weight', 'bias', 'useInputStats', 'eps']);
  const useInputStats = checkBoolean(op, 'useInputStats', field(options, 'useInputStats') ?? true);
  const { runningMean, runningVar, weight, bias } = options;
  checkFloat(op, x, runningMean, runningVar, weight, bias);
  if (x.rank < 2) throw new ShapeError('the input must be [N, C, ...]', { op, shapes: [x.shape] });
  const c = x.shape[1]!;
  checkAffine(op, x, [c], { runningMean, runningVar, weight, bias });
  for (const [name, t] of [['runningMean', runningMean], ['runningVar', runningVar], ['weight', weight], ['bias', bias]] as const) {
    if (t && t.dtype !== x.dtype) throw new DTypeError(`${name} must have the input's dtype (${x.dtype}), got ${t.dtype}`, { op, dtypes: [x.dtype, t.dtype] });
  }
  const spatial = x.shape.slice(2).reduce((a, d) => a * d, 1);
  if (useInputStats && spatial <= 1) {
    throw new ShapeError(`each instance needs more than one position to normalise over, got ${spatial}`, { op, shapes: [x.shape], hint: 'instance statistics of one value are 0 / 0; use useInputStats: false with running statistics' });
  }
  let running: readonly [F<B>, F<B>] | undefined;
  if (!useInputStats) {
    if (!runningMean || !runningVar) throw new ArgumentError('useInputStats: false needs runningMean and runningVar', { op });
    running = [runningMean, runningVar];
  }
  return tidy(() => {
    let y = inFloat32(x, (xf) => {
      if (running) {
        const mean = perChannel(asDType(running[0], xf.dtype), xf.rank);
        const variance = perChannel(asDType(running[1], xf.dtype), xf.rank);
        return xf.sub(mean).mul(variance.add(eps).rsqrt());
      }
      const spatialDims = Array.from({ length: xf.rank - 2 }, (_, i) => i + 2);
      const centred = xf.sub(xf.mean(spatialDims, true));
      return centred.mul(centred.square().mean(spatialDims, true).add(eps).rsqrt());
    });
    if (weight) y = y.mul(perChannel(weight, x.rank));
    if (bias) y = y.add(perChannel(bias, x.rank));
    return y;
  });
}
