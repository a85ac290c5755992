/**
 * Instance normalisation (torch.nn.InstanceNorm1d / InstanceNorm2d): each sample's channel
 * normalised over its positions. As torch: no affine parameters and no running statistics by
 * default; with `trackRunningStats` training updates running statistics (each batch's per-instance
 * means and unbiased variances, blended per instance and averaged over the batch, as torch's
 * batch_norm over [1, N C, ...] does) and eval mode normalises with them.
 */
import { noGrad } from '../autodiff/grad-mode.js';
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { checkBoolean, checkInteger, checkKeys, field, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { ones, zeros } from '../tensor/creation.js';
import { asDType } from '../tensor/precision.js';
import type { Tensor } from '../tensor/tensor.js';
import { instanceNorm } from './functional/normalization.js';
import { checkEps, checkLayer, checkTensors } from './check.js';
import { Module, type TorchKey } from './module.js';
import { Buffer, Param } from './param.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface InstanceNormOptions {
  /** Default 1e-5. */
  eps?: number;
  /** Weight of the new batch in the running statistics (default 0.1); null leaves them as they are (torch passes 0). */
  momentum?: number | null;
  /** Learn a per-channel scale and shift (default false, as torch). */
  affine?: boolean;
  /** Keep running statistics and use them in eval mode (default false, as torch). */
  trackRunningStats?: boolean;
  device?: Device;
}

abstract class InstanceNorm<B extends Backend> extends Module<B> {
  readonly weight: Param<B> | undefined;
  readonly bias: Param<B> | undefined;
  readonly runningMean: Buffer<B> | undefined;
  readonly runningVar: Buffer<B> | undefined;
  /** torch keeps this buffer with trackRunningStats (so state dicts match) but InstanceNorm never counts; it stays 0. */
  readonly numBatchesTracked: Buffer<B> | undefined;
  readonly eps: number;
  readonly momentum: number | null;
  protected abstract readonly op: string;
  /** The rank of a batched input ([N, C, L]: 3). */
  protected abstract readonly rank: number;
  protected abstract readonly layout: string;

  constructor(backend: B, readonly numFeatures: number, options: InstanceNormOptions = {}) {
    super();
    const op = new.target.name;
    checkLayer(op, backend, options);
    checkKeys(op, options, ['eps', 'momentum', 'affine', 'trackRunningStats', 'device']);
    checkInteger(op, 'numFeatures', numFeatures, 1);
    this.eps = checkEps(op, field(options, 'eps') ?? 1e-5);
    const momentum: unknown = options.momentum === undefined ? 0.1 : options.momentum;
    if (momentum !== null && !(typeof momentum === 'number' && momentum >= 0 && momentum <= 1)) {
      throw new ArgumentError(`momentum must be a number in [0, 1] or null, got ${show(momentum)}`, { op });
    }
    this.momentum = momentum;
    const affine = checkBoolean(op, 'affine', field(options, 'affine') ?? false);
    const track = checkBoolean(op, 'trackRunningStats', field(options, 'trackRunningStats') ?? false);
    const device = options.device ?? backend.defaultDevice();
    if (affine) {
      this.weight = new Param(ones(backend, [numFeatures], { device }));
      this.bias = new Param(zeros(backend, [numFeatures], { device }));
    }
    if (track) {
      this.runningMean = new Buffer(zeros(backend, [numFeatures], { device }));
      this.runningVar = new Buffer(ones(backend, [numFeatures], { device }));
      this.numBatchesTracked = new Buffer(zeros(backend, [], { device }), undefined, true);
    }
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { runningMean: { key: 'running_mean' }, runningVar: { key: 'running_var' }, numBatchesTracked: { key: 'num_batches_tracked', layout: 'count' } };
  }

  forward(x: F<B>): F<B> {
    checkTensors(this.op, { input: x });
    const batched = x.rank === this.rank;
    if ((!batched && x.rank !== this.rank - 1) || x.shape[batched ? 1 : 0] !== this.numFeatures) {
      throw new ShapeError(`expects ${this.layout.replace(/C/g, String(this.numFeatures))}`, { op: this.op, shapes: [x.shape], hint: 'numFeatures is the channel count, dim 1 (dim 0 unbatched)' });
    }
    return tidy(() => {
      const xb = batched ? x : x.unsqueeze(0);
      const useInputStats = this.training || !this.runningMean;
      const y = instanceNorm(xb, { runningMean: this.runningMean?.value, runningVar: this.runningVar?.value, weight: this.weight?.value, bias: this.bias?.value, useInputStats, eps: this.eps });
      // After the output: a bad input (one position) is refused before the statistics change.
      if (this.training && this.runningMean) this.updateRunningStats(xb);
      return batched ? y : y.squeeze(0);
    });
  }

  private updateRunningStats(x: F<B>): void {
    const momentum = this.momentum;
    const rm = this.runningMean;
    const rv = this.runningVar;
    // momentum null: torch passes 0, which leaves the statistics as they are.
    if (momentum === null || !rm || !rv) return;
    noGrad(() => {
      const count = x.size / (x.shape[0]! * this.numFeatures);
      const dims = Array.from({ length: x.rank - 2 }, (_, i) => i + 2);
      // In float32 for a float16 input, blended there too (torch's opmath); one rounding at the end.
      const blend = (old: F<B>, batch: F<B>): F<B> => asDType(asDType(old, 'float32').mul(1 - momentum).add(batch.mul(momentum)).mean(0), old.dtype);
      const [mean, variance] = tidy(() => {
        const xf = asDType(x, 'float32');
        const mu = xf.mean(dims);
        const unbiased = xf.sub(xf.mean(dims, true)).square().mean(dims).mul(count / (count - 1));
        return [blend(rm.value, mu), blend(rv.value, unbiased)] as const;
      });
      rm.set(mean);
      rv.set(variance);
    });
  }
}

/** Over [N, C, L] (or unbatched [C, L]). */
export class InstanceNorm1d<B extends Backend = Backend> extends InstanceNorm<B> {
  protected readonly op = 'InstanceNorm1d';
  protected readonly rank = 3;
  protected readonly layout = '[N, C, L] or [C, L]';
}

/** Over [N, C, H, W] (or unbatched [C, H, W]). */
export class InstanceNorm2d<B extends Backend = Backend> extends InstanceNorm<B> {
  protected readonly op = 'InstanceNorm2d';
  protected readonly rank = 4;
  protected readonly layout = '[N, C, H, W] or [C, H, W]';
}
