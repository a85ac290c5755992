/**
 * Training checkpoints in a folder: each save writes a fresh subfolder (the model as
 * safetensors, the optimizer state as safetensors, the trainer's metadata as JSON), then points
 * `latest` at it with an atomic rename, so a run killed mid-save still resumes from the previous
 * one. The two newest subfolders are kept.
 */
import { field } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import type { ModuleRecord } from '../nn/record.js';
import type { OptimizerRecord } from '../optim/optimizer.js';
import { importNodeModule } from '../platform.js';
import { recordToSafetensors, safetensorsToRecord } from '../record/module.js';
import { decodeSafetensors, encodeSafetensors, type SafeTensor } from '../record/safetensors.js';

export interface Checkpoint {
  readonly model: ModuleRecord;
  readonly optimizer: OptimizerRecord;
  /** Steps taken when it was saved. */
  readonly step: number;
  /** The trainer's own data (epoch, position in the data, settings): JSON. */
  readonly meta: Readonly<Record<string, unknown>>;
}

const STATE_KEY = 'switchyard.optimizer';

/** Optimizer state as safetensors: tensor '<paramId>/<name>', kind and step counts in the metadata. */
export function optimizerToSafetensors(record: OptimizerRecord): Uint8Array {
  const tensors: Record<string, SafeTensor> = {};
  const steps: Record<string, number> = {};
  for (const [id, s] of Object.entries(record.params)) {
    steps[id] = s.step;
    for (const [name, t] of Object.entries(s.tensors)) tensors[`${id}/${name}`] = { dtype: 'float32', shape: t.shape, data: t.data };
  }
  return encodeSafetensors(tensors, { [STATE_KEY]: JSON.stringify({ kind: record.kind, steps }) });
}

export function safetensorsToOptimizer(bytes: Uint8Array): OptimizerRecord {
  const { tensors, metadata } = decodeSafetensors(bytes, { float16: 'float32' });
  const head = metadata[STATE_KEY];
  if (!head) throw new ArgumentError('not an optimizer state file (no switchyard.optimizer metadata)', { op: 'loadCheckpoint' });
  const { kind, steps } = parseStateHead(head);
  const params: Record<string, { step: number; tensors: Record<string, { shape: readonly number[]; dtype: 'float32'; data: Float32Array }> }> = {};
  for (const [id, step] of Object.entries(steps)) params[id] = { step, tensors: {} };
  for (const [key, t] of Object.entries(tensors)) {
    const at = key.indexOf('/');
    const entry = params[key.slice(0, at)];
    if (at < 0 || !entry || !(t.data instanceof Float32Array)) throw new ArgumentError(`unexpected tensor '${key}' in the optimizer state`, { op: 'loadCheckpoint' });
    entry.tensors[key.slice(at + 1)] = { shape: t.shape, dtype: 'float32', data: t.data };
  }
  return { kind, params };
}

function parseStateHead(text: string): { kind: string; steps: Record<string, number> } {
  const bad = (): ArgumentError => new ArgumentError('the optimizer state metadata is not { kind, steps }', { op: 'loadCheckpoint' });
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad();
  }
  if (v === null || typeof v !== 'object' || !('kind' in v) || !('steps' in v)) throw bad();
  const { kind, steps } = v;
  if (typeof kind !== 'string' || steps === null || typeof steps !== 'object') throw bad();
  const out: Record<string, number> = {};
  for (const [id, n] of Object.entries(steps)) {
    if (typeof n !== 'number') throw bad();
    out[id] = n;
  }
  return { kind, steps: out };
}

type Fs = typeof import('node:fs/promises');
type Path = typeof import('node:path');

async function node(): Promise<{ fs: Fs; path: Path }> {
  const [fs, path] = await Promise.all([importNodeModule<Fs>('node:fs/promises'), importNodeModule<Path>('node:path')]);
  return { fs, path };
}

/** Saves a checkpoint into `dir` (created if needed); returns the subfolder written. */
export async function saveCheckpoint(dir: string, cp: Checkpoint): Promise<string> {
  const op = 'DataParallel.checkpoint';
  if (typeof dir !== 'string' || dir === '') throw new ArgumentError(`the checkpoint folder must be a path, got ${dir === '' ? "''" : typeof dir}`, { op });
  const given: unknown = cp;
  if (typeof field(given, 'model') !== 'object' || field(given, 'model') === null) {
    throw new ArgumentError('the checkpoint must be { model, optimizer, step, ... } (dp.checkpoint(dir) writes one)', { op });
  }
  // safetensors sorts tensors by name: the module's parameter order is kept here. The trainer's
  // data is serialised first, so that what JSON cannot hold is refused before anything is written.
  const order = Object.keys(cp.model.params);
  let trainer: string;
  try {
    trainer = `${JSON.stringify({ step: cp.step, order, meta: cp.meta }, null, 2)}\n`;
  } catch (e) {
    throw new ArgumentError(`meta must be JSON data: ${e instanceof Error ? e.message : String(e)}`, { op, hint: 'numbers, strings, booleans, arrays and plain objects (no BigInt, no cycles)' });
  }
  const { fs, path } = await node();
  const name = `step-${String(cp.step).padStart(9, '0')}`;
  const sub = path.join(dir, name);
  const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
  try {
    await fs.mkdir(dir, { recursive: true });
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.mkdir(tmp);
    await fs.writeFile(path.join(tmp, 'model.safetensors'), recordToSafetensors(cp.model, { step: String(cp.step) }));
    await fs.writeFile(path.join(tmp, 'optimizer.safetensors'), optimizerToSafetensors(cp.optimizer));
    await fs.writeFile(path.join(tmp, 'trainer.json'), trainer);
    await fs.rm(sub, { recursive: true, force: true });
    await fs.rename(tmp, sub);
    const pointer = path.join(dir, `.latest.${process.pid}.tmp`);
    await fs.writeFile(pointer, `${name}\n`);
    await fs.rename(pointer, path.join(dir, 'latest'));
  } catch (e) {
    // No half-written folder left behind; the previous checkpoint stays the latest.
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw new ArgumentError(`could not write a checkpoint into ${dir}: ${e instanceof Error ? e.message : String(e)}`, { op, hint: 'give a folder this process can create and write (not a file)' });
  }
  // Keep the two newest.
  const old = (await fs.readdir(dir)).filter((f) => /^step-\d+$/.test(f)).sort().slice(0, -2);
  await Promise.all(old.map((f) => fs.rm(path.join(dir, f), { recursive: true, force: true })));
  return sub;
}

/** The checkpoint `latest` points at, or undefined when `dir` holds none. */
export async function loadCheckpoint(dir: string): Promise<Checkpoint | undefined> {
  const { fs, path } = await node();
  let name: string;
  try {
    name = (await fs.readFile(path.join(dir, 'latest'), 'utf8')).trim();
  } catch {
    return undefined;
  }
  const sub = path.join(dir, name);
  const stored = safetensorsToRecord(new Uint8Array(await fs.readFile(path.join(sub, 'model.safetensors'))));
  const optimizer = safetensorsToOptimizer(new Uint8Array(await fs.readFile(path.join(sub, 'optimizer.safetensors'))));
  const trainer = parseTrainer(await fs.readFile(path.join(sub, 'trainer.json'), 'utf8'), sub);
  const names = [...trainer.order.filter((n) => n in stored.params), ...Object.keys(stored.params).filter((n) => !trainer.order.includes(n))];
  const model: ModuleRecord = { params: Object.fromEntries(names.map((n) => [n, stored.params[n]!])) };
  return { model, optimizer, step: trainer.step, meta: trainer.meta };
}

function parseTrainer(text: string, where: string): { step: number; order: string[]; meta: Record<string, unknown> } {
  const bad = (): ArgumentError => new ArgumentError(`${where}/trainer.json is not a checkpoint's trainer file`, { op: 'loadCheckpoint' });
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad();
  }
  if (v === null || typeof v !== 'object') throw bad();
  const step = 'step' in v ? v.step : undefined;
  const order = 'order' in v ? v.order : [];
  const meta = 'meta' in v ? v.meta : {};
  if (typeof step !== 'number' || !Array.isArray(order) || meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw bad();
  return { step, order: order.filter((n): n is string => typeof n === 'string'), meta: { ...meta } };
}
