/**
 * Checkpoints every N epochs: the model as safetensors (saveModule) and the optimizer's state as
 * safetensors too (one tensor per parameter and state name, the step counts and the schedule in
 * the metadata), so training can resume with loadOptimizerState.
 */
import { field } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import type { Module } from '../nn/module.js';
import type { TensorRecord } from '../nn/record.js';
import type { Optimizer, OptimizerRecord } from '../optim/optimizer.js';
import { saveModule } from '../record/module.js';
import { decodeSafetensors, encodeSafetensors, type SafeTensor } from '../record/safetensors.js';
import type { Callback, EpochLogs, FitContext } from './callback.js';

const KIND = 'switchyard.optimizer';

/** An optimizer's state as safetensors bytes. */
export async function saveOptimizerState<B extends Backend>(optimizer: Optimizer<B>): Promise<Uint8Array> {
  const given: unknown = optimizer;
  if (typeof field(given, 'state') !== 'function') throw new ArgumentError('saveOptimizerState takes an optimizer', { op: 'saveOptimizerState' });
  const rec = await optimizer.state();
  const tensors: Record<string, SafeTensor> = {};
  const steps: Record<string, number> = {};
  for (const [id, p] of Object.entries(rec.params)) {
    steps[id] = p.step;
    for (const [name, t] of Object.entries(p.tensors)) tensors[`${id}/${name}`] = { dtype: 'float32', shape: t.shape, data: t.data };
  }
  const scheduler = optimizer.options.scheduler?.state();
  return encodeSafetensors(tensors, { [KIND]: rec.kind, 'switchyard.steps': JSON.stringify(steps), ...(scheduler ? { 'switchyard.scheduler': JSON.stringify(scheduler) } : {}) });
}

/** Restores what saveOptimizerState wrote, for the parameters of `module` (and the optimizer's scheduler). */
export function loadOptimizerState<B extends Backend>(optimizer: Optimizer<B>, module: Module<B>, bytes: Uint8Array): void {
  const { tensors, metadata } = decodeSafetensors(bytes, { float16: 'float32' });
  const kind = metadata[KIND];
  if (kind === undefined) throw new ArgumentError('these bytes hold no optimizer state', { op: 'loadOptimizerState', hint: 'pass a file written by saveOptimizerState' });
  const steps = JSON.parse(metadata['switchyard.steps'] ?? '{}') as Record<string, number>;
  const params: Record<string, { step: number; tensors: Record<string, TensorRecord> }> = {};
  for (const [id, step] of Object.entries(steps)) params[id] = { step, tensors: {} };
  for (const [key, t] of Object.entries(tensors)) {
    const cut = key.indexOf('/');
    const p = params[key.slice(0, cut)];
    if (cut < 0 || !p || !(t.data instanceof Float32Array)) throw new ArgumentError(`unexpected tensor '${key}' in the optimizer state`, { op: 'loadOptimizerState' });
    p.tensors[key.slice(cut + 1)] = { shape: t.shape, dtype: 'float32', data: t.data };
  }
  const record: OptimizerRecord = { kind, params };
  optimizer.loadState(record, module);
  const sched = metadata['switchyard.scheduler'];
  if (sched && optimizer.options.scheduler) optimizer.options.scheduler.loadState(JSON.parse(sched));
}

export interface CheckpointOptions {
  /** The folder (created if missing); files are epoch-<n>.model.safetensors and epoch-<n>.optim.safetensors. */
  dir?: string;
  /** Every this many epochs (default 1); the last epoch is always saved. */
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

  async onEpochEnd(ctx: FitContext<B, M>, logs: EpochLogs): Promise<void> {
    const every = this.options.every ?? 1;
    if (logs.epoch % every !== 0 && logs.epoch !== ctx.epochs) return;
    const values: Record<string, string> = { epoch: String(logs.epoch) };
    for (const [k, v] of Object.entries(logs.train)) values[`train.${k}`] = String(v);
    for (const [k, v] of Object.entries(logs.valid ?? {})) values[`valid.${k}`] = String(v);
    await this.put(`epoch-${logs.epoch}.model.safetensors`, await saveModule(ctx.model, { ...this.options.metadata, ...values }), logs.epoch);
    if (this.options.optimizer !== false) await this.put(`epoch-${logs.epoch}.optim.safetensors`, await saveOptimizerState(ctx.optimizer), logs.epoch);
  }
}
