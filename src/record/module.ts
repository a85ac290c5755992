/**
 * Modules to and from safetensors: one tensor per parameter under its dotted name, and the
 * ParamIds in the metadata (so optimizer state saved beside a checkpoint still applies).
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import type { Module } from '../nn/module.js';
import { asParamId, newParamId } from '../nn/param.js';
import type { FromRecordOptions, ModuleRecord, ParamRecord } from '../nn/record.js';
import { field, show } from '../ir/validate.js';
import { encodeHalves } from '../ir/half.js';
import { asBytes, decodeSafetensors, duplicateKey, encodeSafetensors, type SafeTensor } from './safetensors.js';

const IDS_KEY = 'switchyard.param_ids';

/**
 * A module record as safetensors bytes. `float16` names the parameters to write as `F16` (their
 * values must be float16 values, as a float16 parameter's record holds): saveModule passes the
 * module's float16 parameters, so a float16 model's file is float16, as torch saves it.
 */
export function recordToSafetensors(record: ModuleRecord, metadata: Readonly<Record<string, string>> = {}, float16: ReadonlySet<string> = new Set()): Uint8Array {
  const given: unknown = record;
  if (typeof field(given, 'params') !== 'object' || field(given, 'params') === null) {
    throw new ArgumentError(`the record must be { params: { name: { id, shape, dtype, data } } }, got ${show(record)}`, { op: 'recordToSafetensors', hint: 'records come from await module.toRecord()' });
  }
  if (metadata === null || typeof metadata !== 'object') throw new ArgumentError(`metadata must be an object of strings, got ${show(metadata)}`, { op: 'recordToSafetensors' });
  // No prototype: a parameter named '__proto__' stays an entry.
  const tensors = Object.create(null) as Record<string, SafeTensor>;
  const ids = Object.create(null) as Record<string, string>;
  for (const [name, p] of Object.entries(record.params)) {
    tensors[name] = float16.has(name) ? { dtype: 'float16', shape: p.shape, data: halfBits(p.data) } : { dtype: 'float32', shape: p.shape, data: p.data };
    ids[name] = p.id;
  }
  const meta = Object.assign(Object.create(null) as Record<string, string>, metadata);
  meta[IDS_KEY] = JSON.stringify(ids);
  return encodeSafetensors(tensors, meta);
}

/** The ParamIds in a file's metadata: a JSON object of parameter name to a non-empty string. */
function paramIds(text: string | undefined): Readonly<Record<string, string>> {
  const ids = Object.create(null) as Record<string, string>;
  if (text === undefined) return ids;
  const fail = (what: string) => new ArgumentError(`metadata '${IDS_KEY}' ${what}`, { op: 'safetensorsToRecord', hint: 'it maps parameter names to ids, as saveModule writes it; remove the entry to load with fresh ids' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw fail(`is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw fail(`must be a JSON object, got ${show(parsed)}`);
  const twice = duplicateKey(text);
  if (twice !== undefined) throw fail(`names '${twice}' twice`);
  for (const [name, id] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof id !== 'string' || id.length === 0) throw fail(`gives '${name}' the id ${show(id)}: ids are non-empty strings`);
    ids[name] = id;
  }
  return ids;
}

/** A module record from safetensors bytes (from us, or any writer: missing ids are made fresh). */
export function safetensorsToRecord(bytes: Uint8Array | ArrayBuffer): ModuleRecord {
  const { tensors, metadata } = decodeSafetensors(asBytes('safetensorsToRecord', bytes), { float16: 'float32' });
  const ids = paramIds(metadata[IDS_KEY]);
  const params = Object.create(null) as Record<string, ParamRecord>;
  for (const [name, t] of Object.entries(tensors)) {
    if (!(t.data instanceof Float32Array)) {
      throw new ArgumentError(`tensor '${name}' is ${t.dtype}; module parameters are float32`, { op: 'safetensorsToRecord' });
    }
    params[name] = { id: ids[name] ? asParamId(ids[name]) : newParamId(), shape: t.shape, dtype: 'float32', data: t.data };
  }
  return { params };
}

export async function saveModule<B extends Backend>(module: Module<B>, metadata?: Readonly<Record<string, string>>): Promise<Uint8Array> {
  const target: unknown = module;
  if (typeof field(target, 'toRecord') !== 'function') throw new ArgumentError(`saveModule takes a module, got ${show(module)}`, { op: 'saveModule' });
  const halves = new Set<string>();
  for (const [name, p] of module.namedParams()) if (p.value.dtype === 'float16') halves.add(name);
  return recordToSafetensors(await module.toRecord(), metadata, halves);
}

/** float16 values held as float32, as float16 bits (exact: each is a float16 value). */
function halfBits(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  encodeHalves(values, 0, values.length, out);
  return out;
}

export function loadModule<B extends Backend, M extends Module<B>>(module: M, bytes: Uint8Array | ArrayBuffer, options?: FromRecordOptions): M {
  // Untyped callers: the module is checked by what loading needs of it.
  const target: unknown = module;
  if (typeof target !== 'object' || target === null || !('fromRecord' in target) || typeof target.fromRecord !== 'function') {
    throw new ArgumentError(`the first argument must be the module to load into, got ${show(target)}`, { op: 'loadModule', hint: 'loadModule(model, bytes)' });
  }
  return module.fromRecord(safetensorsToRecord(bytes), options);
}
