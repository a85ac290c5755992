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
import { refuseLBFGS } from '../optim/lbfgs.js';
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

function logsOf<B extends Backend>(metrics: ReadonlyArray<Metric<B>>): PhaseLogs {
  return Object.fromEntries(metrics.map((m) => [m.name, m.value()]));
}

interface Pass<B extends AutodiffBackend, M extends Module<B>, Batch> {
  model: M;
  backend: B;
  device: Device;
  source: BatchSource<Batch>;
  step: (model: M, batch: Tensors<Batch, B>) => StepOutput<B> | Tensor<B, 'float'>;
  metrics: ReadonlyArray<Metric<B>>;
  /** Trains (backward and an optimizer step per batch) when given; else evaluates without gradients. */
  optimizer?: Optimizer<B>;
}

/** One pass over a source: every step in its own tidy scope, metrics updated, `after(batch, batches)` per batch. */
async function runPass<B extends AutodiffBackend, M extends Module<B>, Batch>(p: Pass<B, M, Batch>, after: (batch: number, batches: number) => Promise<void>): Promise<void> {
  const { model, backend, device, optimizer } = p;
  for (const m of p.metrics) m.reset();
  model.train(optimizer !== undefined);
  let i = 0;
  for await (const batch of p.source) {
    const out = optimizer
      ? tidy(() => {
          const r = asOutput(p.step(model, toTensors(backend, batch, device)));
          optimizer.step(model, ParamGrads.from(r.loss.backward(), model));
          return r;
        })
      : noGrad(() => tidy(() => asOutput(p.step(model, toTensors(backend, batch, device)))));
    try {
      await Promise.all(p.metrics.map((m) => m.update(out)));
    } finally {
      for (const t of tensorsOf(out)) t.dispose();
    }
    await after(++i, p.source.length);
  }
}

export interface EvaluateOptions<B extends AutodiffBackend, M extends Module<B>, Batch> {
  /** (Typed as an intersection so the backend is inferred from the model.) */
  model: M & Module<B>;
  data: BatchSource<Batch>;
  step: (model: M, batch: Tensors<Batch, B>) => StepOutput<B> | Tensor<B, 'float'>;
  metrics?: ReadonlyArray<Metric<NoInfer<B>>>;
  device?: Device;
}

/** One pass in eval mode without gradients (Lightning's validate): the mean loss and the metrics. The model is left in training mode. */
export async function evaluate<B extends AutodiffBackend, M extends Module<B>, Batch>(options: EvaluateOptions<B, M, Batch>): Promise<PhaseLogs> {
  if (typeof options !== 'object' || options === null || typeof Reflect.get(Object(options.model), 'params') !== 'function') throw new ArgumentError('evaluate() takes { model, data, loss, ... }', { op: 'evaluate', hint: "see the README's training loop section" });
  const first = options.model.params()[0];
  if (!first) throw new ArgumentError('the model has no parameters', { op: 'evaluate' });
  const metrics: Array<Metric<B>> = [new MeanLoss<B>(), ...(options.metrics ?? []).map((m) => m.fresh())];
  try {
    await runPass({ model: options.model, backend: first.value.backend, device: options.device ?? first.value.device, source: options.data, step: options.step, metrics }, async () => {});
  } finally {
    options.model.train();
  }
  return logsOf(metrics);
}

export async function fit<B extends AutodiffBackend, M extends Module<B>, Batch>(options: FitOptions<B, M, Batch>): Promise<FitResult> {
  if (typeof options !== 'object' || options === null) throw new ArgumentError('fit() takes { model, optimizer, epochs, train, loss, ... }', { op: 'fit', hint: "see the README's training loop section" });
  const { model, optimizer, epochs } = options;
  refuseLBFGS('fit', optimizer);
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

  const pass = (source: BatchSource<Batch>, train: boolean, metrics: Array<Metric<B>>, started: number): Promise<void> =>
    runPass({ model, backend, device, source, metrics, step: train ? options.step : (options.validStep ?? options.step), ...(train ? { optimizer } : {}) }, async (batch, batches) => {
      if (train) steps++;
      const logs = { epoch, batch, batches, phase: train ? ('train' as const) : ('valid' as const), logs: logsOf(metrics), seconds: (clock.now() - started) / 1000 };
      await each((cb) => cb.onBatchEnd?.(ctx, logs));
    });

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
    epoch = history.length;
    model.train();
  }
  await each((cb) => cb.onFitEnd?.(ctx));
  return { history, stopReason };
}
