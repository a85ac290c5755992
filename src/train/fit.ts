/**
 * fit(): the training loop most models need (Burn's Learner, Lightning's Trainer) in one call:
 * epochs over a BatchSource, a step function that turns a batch into a loss, backward and the
 * optimizer step, validation, metrics, callbacks (progress, checkpoints, early stopping), and a
 * ReduceLROnPlateau schedule fed with the validation loss. Batches of host tensors become device
 * tensors on the model's device; every step runs in its own tidy scope.
 */
import { noGrad } from '../autodiff/grad-mode.js';
import type { AutodiffBackend } from '../autodiff/types.js';
import type { Backend } from '../backends/backend.js';
import { toTensors, type Tensors } from '../data/host-tensor.js';
import type { BatchSource } from '../data/loader.js';
import type { Device } from '../devices/device.js';
import { ArgumentError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import type { Module } from '../nn/module.js';
import { ReduceLROnPlateau } from '../optim/lr-scheduler.js';
import type { Optimizer } from '../optim/optimizer.js';
import { ParamGrads } from '../optim/param-grads.js';
import { clock } from '../scheduler/clock.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Callback, EpochLogs, FitContext, PhaseLogs } from './callback.js';
import { MeanLoss, type Metric, type StepOutput } from './metrics.js';
import { ProgressBar, type ProgressOptions } from './progress.js';

export interface FitOptions<B extends AutodiffBackend, M extends Module<B>, Batch> {
  model: M;
  optimizer: Optimizer<B>;
  train: BatchSource<Batch>;
  valid?: BatchSource<Batch>;
  epochs: number;
  /** A batch (its host tensors made device tensors) to the loss, or to { loss, output, target } for metrics. */
  step: (model: M, batch: Tensors<Batch, B>) => StepOutput<B> | Tensor<B, 'float'>;
  /** The validation step (default: `step`, run without gradients in eval mode). */
  validStep?: (model: M, batch: Tensors<Batch, B>) => StepOutput<B> | Tensor<B, 'float'>;
  /** Kept for training and validation apart; the loss is always logged. */
  metrics?: ReadonlyArray<Metric<NoInfer<B>>>;
  callbacks?: ReadonlyArray<Callback<NoInfer<B>, NoInfer<M>>>;
  /** A progress bar (default true), or its options. */
  progress?: boolean | ProgressOptions;
  /** Where batches go (default: the device of the model's first parameter). */
  device?: Device;
}

export interface FitResult {
  readonly history: readonly EpochLogs[];
  /** Why training ended before `epochs`, if it did. */
  readonly stopReason: string | undefined;
}

function asOutput<B extends Backend>(r: StepOutput<B> | Tensor<B, 'float'>): StepOutput<B> {
  return 'loss' in r ? r : { loss: r };
}

function tensorsOf<B extends Backend>(out: StepOutput<B>): Array<Tensor<B>> {
  return [out.loss, out.output, out.target].filter((t): t is Tensor<B> => t !== undefined);
}

export async function fit<B extends AutodiffBackend, M extends Module<B>, Batch>(options: FitOptions<B, M, Batch>): Promise<FitResult> {
  const { model, optimizer, epochs } = options;
  if (!Number.isInteger(epochs) || epochs < 1) throw new ArgumentError(`epochs must be a positive integer, got ${epochs}`, { op: 'fit' });
  const first = model.params()[0];
  if (!first) throw new ArgumentError('the model has no parameters', { op: 'fit' });
  const backend = first.value.backend;
  const device = options.device ?? first.value.device;
  const callbacks: Array<Callback<B, M>> = [...(options.callbacks ?? [])];
  if (options.progress !== false) callbacks.push(new ProgressBar<B, M>(options.progress === true || options.progress === undefined ? {} : options.progress));
  const phaseMetrics = (): Array<Metric<B>> => [new MeanLoss<B>(), ...(options.metrics ?? []).map((m) => m.fresh())];
  const trainMetrics = phaseMetrics();
  const validMetrics = phaseMetrics();

  const history: EpochLogs[] = [];
  let stopReason: string | undefined;
  let epoch = 0;
  let steps = 0;
  const ctx: FitContext<B, M> = {
    model,
    optimizer,
    epochs,
    get epoch() {
      return epoch;
    },
    get steps() {
      return steps;
    },
    history,
    stop(reason = 'stopped by a callback') {
      stopReason ??= reason;
    },
  };
  const each = async (f: (cb: Callback<B, M>) => void | Promise<void>): Promise<void> => {
    for (const cb of callbacks) await f(cb);
  };
  const logsOf = (metrics: ReadonlyArray<Metric<B>>): PhaseLogs => Object.fromEntries(metrics.map((m) => [m.name, m.value()]));

  /** One pass over `source`; training when `train`, else evaluation without gradients. */
  const pass = async (source: BatchSource<Batch>, train: boolean, metrics: Array<Metric<B>>, started: number): Promise<void> => {
    for (const m of metrics) m.reset();
    model.train(train);
    const batches = source.length;
    let i = 0;
    for await (const batch of source) {
      const out = train
        ? tidy(() => {
            const r = asOutput(options.step(model, toTensors(backend, batch, device)));
            const grads = ParamGrads.from(r.loss.backward(), model);
            optimizer.step(model, grads);
            return r;
          })
        : noGrad(() => tidy(() => asOutput((options.validStep ?? options.step)(model, toTensors(backend, batch, device)))));
      if (train) steps++;
      try {
        await Promise.all(metrics.map((m) => m.update(out)));
      } finally {
        for (const t of tensorsOf(out)) t.dispose();
      }
      i++;
      const logs = { epoch, batch: i, batches, phase: train ? ('train' as const) : ('valid' as const), logs: logsOf(metrics), seconds: (clock.now() - started) / 1000 };
      await each((cb) => cb.onBatchEnd?.(ctx, logs));
    }
  };

  await each((cb) => cb.onFitStart?.(ctx));
  try {
    for (epoch = 1; epoch <= epochs && stopReason === undefined; epoch++) {
      await each((cb) => cb.onEpochStart?.(ctx));
      const started = clock.now();
      await pass(options.train, true, trainMetrics, started);
      if (options.valid) await pass(options.valid, false, validMetrics, started);
      model.train();
      const logs: EpochLogs = {
        epoch,
        train: logsOf(trainMetrics),
        ...(options.valid ? { valid: logsOf(validMetrics) } : {}),
        lr: optimizer.lastLr,
        seconds: (clock.now() - started) / 1000,
      };
      history.push(logs);
      const plateau = optimizer.options.scheduler;
      if (plateau instanceof ReduceLROnPlateau) plateau.observe(logs.valid?.loss ?? logs.train.loss!);
      await each((cb) => cb.onEpochEnd?.(ctx, logs));
    }
  } finally {
    epoch = Math.min(epoch, epochs);
    model.train();
  }
  await each((cb) => cb.onFitEnd?.(ctx));
  return { history, stopReason };
}
