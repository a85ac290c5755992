/**
 * Stops fit() when a logged value stops improving (Keras' / Lightning's EarlyStopping), and
 * optionally puts back the parameters of the best epoch.
 */
import { checkOptions } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import type { Module } from '../nn/module.js';
import type { ModuleRecord } from '../nn/record.js';
import { readLog, type Callback, type EpochLogs, type FitContext } from './callback.js';

export interface EarlyStoppingOptions {
  /** The value watched, 'phase.name' (default 'valid.loss'). */
  monitor?: string;
  /** Whether lower or higher is better (default: 'max' for accuracy, else 'min'). */
  mode?: 'min' | 'max';
  /** Epochs without improvement tolerated (default 3). */
  patience?: number;
  /** The smallest change that counts as an improvement (default 0). */
  minDelta?: number;
  /** Load the best epoch's parameters when training ends (default false). */
  restoreBest?: boolean;
}

export class EarlyStopping<B extends Backend = Backend, M extends Module<B> = Module<B>> implements Callback<B, M> {
  readonly monitor: string;
  readonly mode: 'min' | 'max';
  best = NaN;
  bestEpoch = 0;
  /** The epoch that stopped training, or 0. */
  stoppedEpoch = 0;
  private wait = 0;
  private snapshot: ModuleRecord | undefined;

  constructor(readonly options: EarlyStoppingOptions = {}) {
    checkOptions('EarlyStopping', options);
    this.monitor = options.monitor ?? 'valid.loss';
    this.mode = options.mode ?? (this.monitor.endsWith('accuracy') ? 'max' : 'min');
  }

  onFitStart(): void {
    this.best = NaN;
    this.bestEpoch = 0;
    this.stoppedEpoch = 0;
    this.wait = 0;
    this.snapshot = undefined;
  }

  async onEpochEnd(ctx: FitContext<B, M>, logs: EpochLogs): Promise<void> {
    const v = readLog(logs, this.monitor);
    if (v === undefined) {
      const keys = [...Object.keys(logs.train).map((k) => `train.${k}`), ...Object.keys(logs.valid ?? {}).map((k) => `valid.${k}`)];
      throw new ArgumentError(`EarlyStopping watches '${this.monitor}', which the logs lack`, { op: 'EarlyStopping', hint: `logged: ${keys.join(', ')}` });
    }
    const delta = this.options.minDelta ?? 0;
    const better = Number.isNaN(this.best) || (this.mode === 'min' ? v < this.best - delta : v > this.best + delta);
    if (better) {
      this.best = v;
      this.bestEpoch = logs.epoch;
      this.wait = 0;
      if (this.options.restoreBest) this.snapshot = await ctx.model.toRecord();
      return;
    }
    if (++this.wait >= (this.options.patience ?? 3)) {
      this.stoppedEpoch = logs.epoch;
      ctx.stop(`${this.monitor} has not improved for ${this.wait} epochs (best ${this.best.toPrecision(4)} at epoch ${this.bestEpoch})`);
    }
  }

  onFitEnd(ctx: FitContext<B, M>): void {
    if (this.snapshot) ctx.model.fromRecord(this.snapshot);
  }
}
