/**
 * Batch normalisation (torch.nn.BatchNorm1d / BatchNorm2d). While training it normalises with the
 * batch's statistics and updates running ones (mean, unbiased variance; momentum 0.1, or a
 * cumulative average with `momentum: null`); in eval mode it uses the running statistics. The
 * running statistics are buffers (nn.Buffer: parameters that do not train) (so they move, save and load with the module).
 */
import { noGrad } from '../autodiff/grad-mode.js';
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { checkInteger, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { ones, zeros } from '../tensor/creation.js';
import { asDType } from '../tensor/precision.js';
import type { Tensor } from '../tensor/tensor.js';
import { batchNorm, meanExcept } from './functional/normalization.js';
import { checkEps, checkLayer, checkTensors } from './check.js';
import { Module, type TorchKey } from './module.js';
import { Buffer, Param } from './param.js';

export interface BatchNormOptions {
  /** Default 1e-5. */
  eps?: number;
  /** Weight of the new batch in the running statistics (default 0.1); null for a cumulative average. */
  momentum?: number | null;
  /** Learn a per-channel scale and shift (default true). */
  affine?: boolean;
  /** Keep running statistics (default true); without them eval mode also uses the batch's. */
  trackRunningStats?: boolean;
  device?: Device;
}

abstract class BatchNorm<B extends Backend> extends Module<B> {
  readonly weight: Param<B> | undefined;
  readonly bias: Param<B> | undefined;
  readonly runningMean: Buffer<B> | undefined;
  readonly runningVar: Buffer<B> | undefined;
  /** How many training batches updated the running statistics (a float32 scalar, PyTorch's int64 counter; float32 after toDType('float16') too). */
  readonly numBatchesTracked: Buffer<B> | undefined;
  readonly eps: number;
  readonly momentum: number | null;
  protected abstract readonly op: string;
  protected abstract readonly ranks: readonly number[];

  constructor(backend: B, readonly numFeatures: number, options: BatchNormOptions = {}) {
    super();
    checkLayer(new.target.name, backend, options);
    checkInteger(new.target.name, 'numFeatures', numFeatures, 1);
    const device = options.device ?? backend.defaultDevice();
    this.eps = checkEps(new.target.name, options.eps ?? 1e-5);
    const momentum: unknown = options.momentum === undefined ? 0.1 : options.momentum;
    // null: a cumulative average (torch's momentum=None).
    if (momentum !== null && !(typeof momentum === 'number' && momentum >= 0 && momentum <= 1)) {
      throw new ArgumentError(`momentum must be a number in [0, 1] or null, got ${show(momentum)}`, { op: new.target.name });
    }
    this.momentum = momentum;
    if (options.affine !== false) {
      this.weight = new Param(ones(backend, [numFeatures], { device }));
      this.bias = new Param(zeros(backend, [numFeatures], { device }));
    }
    if (options.trackRunningStats !== false) {
      this.runningMean = new Buffer(zeros(backend, [numFeatures], { device }));
      this.runningVar = new Buffer(ones(backend, [numFeatures], { device }));
      this.numBatchesTracked = new Buffer(zeros(backend, [], { device }), undefined, true);
    }
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { runningMean: { key: 'running_mean' }, runningVar: { key: 'running_var' }, numBatchesTracked: { key: 'num_batches_tracked', layout: 'count' } };
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.op, { input: x });
    if (!this.ranks.includes(x.rank) || x.shape[1] !== this.numFeatures) {
      throw new ShapeError(`expects [N, ${this.numFeatures}${this.ranks.includes(3) ? '' : ', H, W'}]${this.ranks.includes(3) ? ` or [N, ${this.numFeatures}, L]` : ''}`, { op: this.op, shapes: [x.shape] });
    }
    const useBatch = this.training || !this.runningMean;
    if (this.training && this.runningMean) this.updateRunningStats(x);
    return batchNorm(x, this.runningMean?.value, this.runningVar?.value, { weight: this.weight?.value, bias: this.bias?.value, training: useBatch, eps: this.eps });
  }

  private updateRunningStats(x: Tensor<B, 'float'>): void {
    const count = x.size / this.numFeatures;
    if (count <= 1) return; // batchNorm reports it
    noGrad(() => {
      const tracked = this.numBatchesTracked!;
      tracked.set(tidy(() => tracked.value.add(1)));
      // In float32 for a float16 input (its squared deviations past 256 overflow float16), and the
      // blend too (torch's opmath): one rounding to the statistics' dtype at the end.
      const [mean, unbiased] = tidy(() => {
        const xf = asDType(x, 'float32');
        const mu = meanExcept(xf, 1);
        const v = meanExcept(xf.sub(mu).square(), 1).mul(count / (count - 1));
        return [mu.reshape([this.numFeatures]), v.reshape([this.numFeatures])] as const;
      });
      const momentum = this.momentum;
      // new = (1 - m) old + m batch; a cumulative average has m = 1 / t, with t (the counter, float32
      // even for float16 statistics, as torch's integer counter) on the device.
      const blend = (old: Tensor<B, 'float'>, batch: Tensor<B, 'float'>): Tensor<B, 'float'> =>
        tidy(() => {
          const o = asDType(old, batch.dtype);
          // torch's form (1 - m) old + m batch for both: old + (batch - old) m is NaN at an infinite old.
          if (momentum !== null) return asDType(o.mul(1 - momentum).add(batch.mul(momentum)), old.dtype);
          const m = asDType(tracked.value, batch.dtype).pow(-1);
          return asDType(o.mul(m.neg().add(1)).add(batch.mul(m)), old.dtype);
        });
      const rm = this.runningMean!;
      const rv = this.runningVar!;
      rm.set(blend(rm.value, mean));
      rv.set(blend(rv.value, unbiased));
      for (const t of [mean, unbiased]) t.dispose();
    });
  }
}

/** Over channel dim 1 of [N, C] or [N, C, L]. */
export class BatchNorm1d<B extends Backend = Backend> extends BatchNorm<B> {
  protected readonly op = 'BatchNorm1d';
  protected readonly ranks = [2, 3];
}

/** Over channel dim 1 of [N, C, H, W]. */
export class BatchNorm2d<B extends Backend = Backend> extends BatchNorm<B> {
  protected readonly op = 'BatchNorm2d';
  protected readonly ranks = [4];
}
