/**
 * Checkpoints every N epochs: the model as safetensors (saveModule) and the optimizer's state as
 * safetensors too (one tensor per parameter and state name, the step counts and the schedule in
 * the metadata), so training can resume with loadOptimizerState.
 */
import { field, show } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import type { Module } from '../nn/module.js';
import type { TensorRecord } from '../nn/record.js';
import type { LrSchedulerState } from '../optim/lr-scheduler.js';
import { refuseLBFGS } from '../optim/lbfgs.js';
import type { Optimizer, OptimizerRecord } from '../optim/optimizer.js';
import { saveModule } from '../record/module.js';
import { decodeSafetensors, encodeSafetensors, type SafeTensor } from '../record/safetensors.js';
import type { Callback, EpochLogs, FitContext } from './callback.js';

const KIND = 'switchyard.optimizer';

/** An optimizer's state as safetensors bytes. */
export async function saveOptimizerState<B extends Backend>(optimizer: Optimizer<B>): Promise<Uint8Array> {
  const given: unknown = optimizer;
  refuseLBFGS('saveOptimizerState', given);
  if (typeof field(given, 'state') !== 'function') throw new ArgumentError('saveOptimizerState takes an optimizer', { op: 'saveOptimizerState' });
  const rec = await optimizer.state();
  const tensors: Record<string, SafeTensor> = {};
  const steps: Record<string, number> = {};
  for (const [id, p] of Object.entries(rec.params)) {
    steps[id] = p.step;
    for (const [name, t] of Object.entries(p.tensors)) tensors[`${id}/${name}`] = { dtype: 'float32', shape: t.shape, data: t.data };
  }
  const scheduler = optimizer.options.scheduler?.state();
  // The base rate as set now (opt.lr = ...), as torch saves param_groups' lr.
  return encodeSafetensors(tensors, { [KIND]: rec.kind, 'switchyard.steps': JSON.stringify(steps), [LR]: JSON.stringify(optimizer.lr), ...(scheduler ? { 'switchyard.scheduler': JSON.stringify(scheduler) } : {}) });
}

const LR = 'switchyard.lr';

/**
 * Restores what saveOptimizerState wrote, for the parameters of `module`: the state, the base rate
 * `lr`, and the optimizer's scheduler. All or nothing: everything is checked before anything loads;
 * a file with a scheduler's state for an optimizer without one is an ArgumentError (the schedule
 * would restart silently).
 */
export function loadOptimizerState<B extends Backend>(optimizer: Optimizer<B>, module: Module<B>, bytes: Uint8Array): void {
  const given: unknown = optimizer;
  refuseLBFGS('loadOptimizerState', given);
  if (typeof field(given, 'loadState') !== 'function' || typeof field(given, 'options') !== 'object') throw new ArgumentError(`loadOptimizerState takes an optimizer, got ${show(given)}`, { op: 'loadOptimizerState' });
  const { tensors, metadata } = decodeSafetensors(bytes, { float16: 'float32' });
  const kind = metadata[KIND];
  if (kind === undefined) throw new ArgumentError('these bytes hold no optimizer state', { op: 'loadOptimizerState', hint: 'pass a file written by saveOptimizerState' });
  // All the metadata is read before anything loads: a damaged entry changes nothing.
  const steps = readSteps(metadata);
  const sched = readScheduler(metadata);
  const lr = readJson(metadata, LR);
  if (lr !== undefined && (typeof lr !== 'number' || !Number.isFinite(lr))) throw new ArgumentError(`the metadata '${LR}' must be a finite number, got ${show(lr)}`, { op: 'loadOptimizerState', hint: DAMAGED });
  const params: Record<string, { step: number; tensors: Record<string, TensorRecord> }> = {};
  for (const [id, step] of Object.entries(steps)) params[id] = { step, tensors: {} };
  for (const [key, t] of Object.entries(tensors)) {
    const cut = key.indexOf('/');
    const p = params[key.slice(0, cut)];
    if (cut < 0 || !p || !(t.data instanceof Float32Array)) throw new ArgumentError(`unexpected tensor '${key}' in the optimizer state`, { op: 'loadOptimizerState' });
    p.tensors[key.slice(cut + 1)] = { shape: t.shape, dtype: 'float32', data: t.data };
  }
  const scheduler = optimizer.options.scheduler;
  if (sched && !scheduler) {
    throw new ArgumentError(`the file holds the state of a '${sched.kind}' scheduler, and this optimizer has none`, { op: 'loadOptimizerState', hint: 'build the optimizer with the scheduler it was saved with (options.scheduler)' });
  }
  const record: OptimizerRecord = { kind, params };
  // The scheduler loads first (its loadState refuses another kind before changing anything); if the
  // optimizer's state then does not fit, the scheduler gets its own state back.
  const before = sched && scheduler ? scheduler.state() : undefined;
  if (sched && scheduler) scheduler.loadState(sched);
  try {
    optimizer.loadState(record, module);
  } catch (e) {
    if (before && scheduler) scheduler.loadState(before);
    throw e;
  }
  if (typeof lr === 'number') optimizer.lr = lr;
}

const DAMAGED = 'the file is damaged or was not written by saveOptimizerState: load an intact file that saveOptimizerState wrote';

/** A metadata entry's JSON (undefined when absent); text that is not JSON is an ArgumentError naming the key. */
function readJson(metadata: Readonly<Record<string, string>>, key: string): unknown {
  const text = metadata[key];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch {
    throw new ArgumentError(`the metadata '${key}' is not valid JSON, got ${show(text)}`, { op: 'loadOptimizerState', hint: DAMAGED });
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** 'switchyard.steps': each parameter's step count, { [ParamId]: integer >= 0 }. */
function readSteps(metadata: Readonly<Record<string, string>>): Record<string, number> {
  const key = 'switchyard.steps';
  const v = readJson(metadata, key) ?? {};
  if (!isRecord(v)) throw new ArgumentError(`the metadata '${key}' must be an object of step counts, got ${show(v)}`, { op: 'loadOptimizerState', hint: DAMAGED });
  const steps: Record<string, number> = {};
  for (const [id, step] of Object.entries(v)) {
    if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0) {
      throw new ArgumentError(`the metadata '${key}' gives parameter '${id}' the step count ${show(step)} (an integer >= 0 expected)`, { op: 'loadOptimizerState', hint: DAMAGED });
    }
    steps[id] = step;
  }
  return steps;
}

/** 'switchyard.scheduler': the scheduler's state, or undefined when the file has none. */
function readScheduler(metadata: Readonly<Record<string, string>>): LrSchedulerState | undefined {
  const key = 'switchyard.scheduler';
  const v = readJson(metadata, key);
  if (v === undefined) return undefined;
  const bad = (what: string): ArgumentError => new ArgumentError(`the metadata '${key}' ${what}`, { op: 'loadOptimizerState', hint: DAMAGED });
  if (!isRecord(v)) throw bad(`must be an object { kind, stepCount, extra? }, got ${show(v)}`);
  // Other fields (SequentialLR's schedulers) go through as they are: the scheduler's loadState checks them.
  const { kind, stepCount, extra, ...rest } = v;
  if (typeof kind !== 'string') throw bad(`has kind ${show(kind)} (a string expected)`);
  if (typeof stepCount !== 'number' || !Number.isSafeInteger(stepCount) || stepCount < 0) throw bad(`has stepCount ${show(stepCount)} (an integer >= 0 expected)`);
  if (extra === undefined) return { ...rest, kind, stepCount };
  if (!isRecord(extra)) throw bad(`has extra ${show(extra)} (an object of numbers expected)`);
  const values: Record<string, number> = {};
  for (const [name, x] of Object.entries(extra)) {
    // JSON writes Infinity (ReduceLROnPlateau's first best) as null: left out, the scheduler keeps its own.
    if (x === null) continue;
    if (typeof x !== 'number') throw bad(`has extra.${name} ${show(x)} (a number expected)`);
    values[name] = x;
  }
  return { ...rest, kind, stepCount, extra: values };
}

export interface CheckpointOptions {
  /** The folder (created if missing); files are epoch-<n>.model.safetensors and epoch-<n>.optim.safetensors. */
  dir?: string;
  /** Every this many epochs (default 1); the last epoch is always saved, also after an early stop. */
  every?: number;
  /** Also save the optimizer state (default true). */
  optimizer?: boolean;
  /** Instead of writing files: receives each file's name and bytes (browsers, tests, object stores). */
  save?: (name: string, bytes: Uint8Array, epoch: number) => void | Promise<void>;
  /** Metadata stored in the model file (the epoch and logged values are added). */
  metadata?: Readonly<Record<string, string>>;
}

export class Checkpoint<B extends Backend = Backend, M extends Module<B> = Module<B>> implements Callback<B, M> {
  /** The files written so far. */
  readonly written: string[] = [];
  /** The epoch last saved in this fit. */
  private savedEpoch: number | undefined;

  constructor(readonly options: CheckpointOptions) {
    if (typeof options !== 'object' || options === null) throw new ArgumentError('Checkpoint takes options { dir, every?, ... }', { op: 'Checkpoint' });
    const every = options.every ?? 1;
    if (!Number.isInteger(every) || every < 1) throw new ArgumentError(`every must be a positive integer, got ${every}`, { op: 'Checkpoint' });
    if (!options.dir && !options.save) throw new ArgumentError('a checkpoint needs a dir or a save function', { op: 'Checkpoint' });
  }

  private async put(name: string, bytes: Uint8Array, epoch: number): Promise<void> {
    if (this.options.save) await this.options.save(name, bytes, epoch);
    else {
      const [{ mkdir, writeFile }, { join }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
      await mkdir(this.options.dir!, { recursive: true });
      await writeFile(join(this.options.dir!, name), bytes);
    }
    this.written.push(name);
  }

  onFitStart(): void {
    this.savedEpoch = undefined;
  }

  async onEpochEnd(ctx: FitContext<B, M>, logs: EpochLogs): Promise<void> {
    const every = this.options.every ?? 1;
    if (logs.epoch % every !== 0 && logs.epoch !== ctx.epochs) return;
    await this.save(ctx, logs);
  }

  /** After an early stop the last epoch ran was not the planned last one: it is saved here. */
  async onFitEnd(ctx: FitContext<B, M>): Promise<void> {
    const last = ctx.history[ctx.history.length - 1];
    if (last && last.epoch !== this.savedEpoch) await this.save(ctx, last);
  }

  private async save(ctx: FitContext<B, M>, logs: EpochLogs): Promise<void> {
    const values: Record<string, string> = { epoch: String(logs.epoch) };
    for (const [k, v] of Object.entries(logs.train)) values[`train.${k}`] = String(v);
    for (const [k, v] of Object.entries(logs.valid ?? {})) values[`valid.${k}`] = String(v);
    await this.put(`epoch-${logs.epoch}.model.safetensors`, await saveModule(ctx.model, { ...this.options.metadata, ...values }), logs.epoch);
    if (this.options.optimizer !== false) await this.put(`epoch-${logs.epoch}.optim.safetensors`, await saveOptimizerState(ctx.optimizer), logs.epoch);
    this.savedEpoch = logs.epoch;
  }
}
