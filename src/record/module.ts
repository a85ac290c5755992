/**
 * Modules to and from safetensors: one tensor per parameter under its dotted name, and the
 * ParamIds in the metadata (so optimizer state saved beside a checkpoint still applies).
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import type { Module } from '../nn/module.js';
import { asParamId, newParamId } from '../nn/param.js';
import type { ModuleRecord, ParamRecord } from '../nn/record.js';
import { decodeSafetensors, encodeSafetensors, type SafeTensor } from './safetensors.js';

const IDS_KEY = 'switchyard.param_ids';

/** A module record as safetensors bytes. */
export function recordToSafetensors(record: ModuleRecord, metadata: Readonly<Record<string, string>> = {}): Uint8Array {
  const tensors: Record<string, SafeTensor> = {};
  const ids: Record<string, string> = {};
  for (const [name, p] of Object.entries(record.params)) {
    tensors[name] = { dtype: 'float32', shape: p.shape, data: p.data };
    ids[name] = p.id;
  }
  return encodeSafetensors(tensors, { ...metadata, [IDS_KEY]: JSON.stringify(ids) });
}

/** A module record from safetensors bytes (from us, or any writer: missing ids are made fresh). */
export function safetensorsToRecord(bytes: Uint8Array): ModuleRecord {
  const { tensors, metadata } = decodeSafetensors(bytes);
  const ids = metadata[IDS_KEY] ? (JSON.parse(metadata[IDS_KEY]) as Record<string, string>) : {};
  const params: Record<string, ParamRecord> = {};
  for (const [name, t] of Object.entries(tensors)) {
    if (!(t.data instanceof Float32Array)) {
      throw new ArgumentError(`tensor '${name}' is ${t.dtype}; module parameters are float32`, { op: 'safetensorsToRecord' });
    }
    params[name] = { id: ids[name] ? asParamId(ids[name]) : newParamId(), shape: t.shape, dtype: 'float32', data: t.data };
  }
  return { params };
}

export async function saveModule<B extends Backend>(module: Module<B>, metadata?: Readonly<Record<string, string>>): Promise<Uint8Array> {
  return recordToSafetensors(await module.toRecord(), metadata);
}

export function loadModule<B extends Backend, M extends Module<B>>(module: M, bytes: Uint8Array, options?: { strict?: boolean }): M {
  return module.fromRecord(safetensorsToRecord(bytes), options);
}
