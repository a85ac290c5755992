/**
 * PyTorch state dicts as safetensors (what `safetensors.torch.save_file(model.state_dict(), f)`
 * writes) to and from modules. Names follow PyTorch's: each module's `torchKeys()` says where its
 * fields are named or laid out differently (Sequential's `layers.0.weight` is `0.weight`, a
 * Linear weight is [in, out] here and [out, in] in torch, LayerNorm's gamma is `weight`, ...).
 * Loading is strict by default and all or nothing: every key is checked before any parameter
 * changes; with `strict: false` the keys that could not be placed come back in the report.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { Module, type TorchKey } from '../nn/module.js';
import { Param } from '../nn/param.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { decodeSafetensors, encodeSafetensors, type SafeTensor } from './safetensors.js';

/** One parameter under its PyTorch name. */
export interface TorchEntry<B extends Backend = Backend> {
  /** Our dotted name ('layers.0.weight'). */
  readonly name: string;
  /** The state_dict key ('0.weight'). */
  readonly key: string;
  readonly layout: TorchKey['layout'];
  readonly param: Param<B>;
}

function join(prefix: string, local: string): string {
  return prefix && local ? `${prefix}.${local}` : prefix || local;
}

/** Every parameter and buffer of `module` with its state_dict key, in field order. */
export function torchEntries<B extends Backend>(module: Module<B>): Array<TorchEntry<B>> {
  if (!(module instanceof Module)) throw new ArgumentError(`a module is needed, got ${module === null ? 'null' : typeof module}`, { op: 'torchEntries' });
  const out: Array<TorchEntry<B>> = [];
  const walk = (m: Module<B>, ours: string, torch: string): void => {
    const keys = m.torchKeys();
    const visit = (value: unknown, ourLocal: string, torchLocal: string): void => {
      const spec = keys[ourLocal];
      const tl = spec ? spec.key : torchLocal;
      if (value instanceof Param) out.push({ name: join(ours, ourLocal), key: join(torch, tl), layout: spec?.layout, param: value as Param<B> });
      else if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${ourLocal}.${i}`, join(tl, String(i))));
      else if (value instanceof Module) walk(value as Module<B>, join(ours, ourLocal), join(torch, tl));
    };
    for (const [field, value] of Object.entries(m)) visit(value, field, field);
  };
  walk(module, '', '');
  return out;
}

/** The shape PyTorch stores for a parameter of shape `shape` under `layout`. */
function torchShape(shape: readonly number[], layout: TorchKey['layout']): number[] {
  if (layout === 'transpose') return [...shape].reverse();
  return [...shape];
}

/** [a, b] row-major -> [b, a] row-major. */
function transposed(data: ArrayLike<number>, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = data[i * cols + j]!;
  return out;
}

export interface TorchLoadOptions {
  /** Every parameter needs a key and every key a parameter (default true). */
  strict?: boolean;
  /** Renames the file's keys before matching, e.g. (k) => k.replace(/^module\./, '') for DataParallel files. */
  rename?: (key: string) => string;
}

export interface TorchLoadReport {
  /** Keys loaded, in the module's order. */
  readonly loaded: string[];
  /** State_dict keys the module expects that the file lacks (their parameters kept their values). */
  readonly missing: string[];
  /** Keys in the file that no parameter takes. */
  readonly unexpected: string[];
}

/**
 * Loads safetensors bytes of a PyTorch state_dict into `module` in place (each tensor on its
 * parameter's device, ids kept). Throws before changing anything when a shape or dtype does not
 * fit, or (strict) when keys are missing or unexpected; otherwise reports them.
 */
export function loadTorchStateDict<B extends Backend>(module: Module<B>, bytes: Uint8Array, options: TorchLoadOptions = {}): TorchLoadReport {
  const op = 'loadTorchStateDict';
  const { tensors } = decodeSafetensors(bytes, { float16: 'float32' });
  const file = new Map<string, SafeTensor>();
  for (const [k, t] of Object.entries(tensors)) file.set(options.rename ? options.rename(k) : k, t);
  const entries = torchEntries(module);
  const missing = entries.filter((e) => !file.has(e.key)).map((e) => e.key);
  const taken = new Set(entries.map((e) => e.key));
  const unexpected = [...file.keys()].filter((k) => !taken.has(k));
  if ((options.strict ?? true) && (missing.length > 0 || unexpected.length > 0)) {
    const parts = [missing.length ? `missing keys: ${missing.join(', ')}` : '', unexpected.length ? `unexpected keys: ${unexpected.join(', ')}` : ''].filter(Boolean);
    throw new ArgumentError(`the state dict does not fit the module (${parts.join('; ')}); nothing was loaded`, {
      op,
      hint: `the module expects ${entries.map((e) => e.key).join(', ')}; pass { strict: false } to load the keys that fit and get the rest reported, or { rename } to map the file's names`,
    });
  }
  // Check every tensor first, so a bad one leaves the module untouched.
  const plan: Array<{ entry: TorchEntry<B>; data: Float32Array }> = [];
  for (const e of entries) {
    const t = file.get(e.key);
    if (!t) continue;
    const want = torchShape(e.param.shape, e.layout);
    const isCount = e.layout === 'count';
    if (t.dtype === 'bool' || (t.dtype === 'int32' && !isCount)) {
      throw new DTypeError(`'${e.key}' is ${t.dtype === 'int32' ? 'an integer tensor' : 'bool'}; parameter '${e.name}' is float32`, { op, dtypes: [t.dtype] });
    }
    const fits = t.shape.length === want.length && t.shape.every((d, i) => d === want[i]);
    if (!fits) {
      throw new ShapeError(`'${e.key}' has shape [${t.shape.join(', ')}]; parameter '${e.name}' [${e.param.shape.join(', ')}] needs [${want.join(', ')}] in PyTorch's layout${e.layout === 'transpose' ? ' (stored transposed here)' : ''}`, {
        op,
        shapes: [t.shape, want],
        hint: 'check that the module was built with the sizes the PyTorch model had',
      });
    }
    const values = Float32Array.from(t.data);
    plan.push({ entry: e, data: e.layout === 'transpose' && want.length === 2 ? transposed(values, want[0]!, want[1]!) : values });
  }
  for (const { entry, data } of plan) {
    const v = entry.param.value;
    // In the parameter's dtype: a float16 module (toDType) stays float16, as Module.loadRecord keeps it.
    entry.param.set(fromData(v.backend, data, { shape: v.shape, device: v.device, dtype: v.dtype }));
  }
  return { loaded: plan.map((p) => p.entry.key), missing, unexpected };
}

/**
 * The module's parameters and buffers as safetensors bytes under PyTorch's state_dict names and
 * layouts, for `model.load_state_dict(safetensors.torch.load_file(f))`. Counters (BatchNorm's
 * num_batches_tracked) are written as int32; load_state_dict copies them into its int64 buffers.
 */
export async function saveTorchStateDict<B extends Backend>(module: Module<B>, metadata: Readonly<Record<string, string>> = {}): Promise<Uint8Array> {
  if (!(module instanceof Module)) throw new ArgumentError(`a module is needed, got ${module === null ? 'null' : typeof module}`, { op: 'saveTorchStateDict' });
  const tensors: Record<string, SafeTensor> = {};
  for (const e of torchEntries(module)) {
    const { shape, values } = await e.param.value.toData();
    const want = torchShape(shape, e.layout);
    if (e.layout === 'count') tensors[e.key] = { dtype: 'int32', shape: want, data: Int32Array.from(values, (v) => Math.round(v)) };
    else if (e.layout === 'transpose' && shape.length === 2) tensors[e.key] = { dtype: 'float32', shape: want, data: transposed(values, shape[0]!, shape[1]!) };
    else tensors[e.key] = { dtype: 'float32', shape: want, data: Float32Array.from(values) };
  }
  return encodeSafetensors(tensors, { format: 'pt', ...metadata });
}
