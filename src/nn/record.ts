/**
 * Module records: plain data (names, ids, shapes, one ArrayBuffer per tensor) that survives
 * structuredClone and postMessage; `transferables(record)` lists the buffers to move, not copy.
 */
import { field } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import type { ParamId } from './param.js';

export interface TensorRecord {
  readonly shape: readonly number[];
  readonly dtype: 'float32';
  /** Owns its whole ArrayBuffer (offset 0, full length), so it can be transferred. */
  readonly data: Float32Array;
}

export interface ParamRecord extends TensorRecord {
  readonly id: ParamId;
}

export interface ModuleRecord {
  /** Parameters by dotted name ('layers.0.weight'). */
  readonly params: Readonly<Record<string, ParamRecord>>;
}

/** The buffers of a record, for `postMessage(record, transferables(record))`. */
export function transferables(record: { readonly params: Readonly<Record<string, TensorRecord>> }): ArrayBuffer[] {
  const given: unknown = record;
  const params: unknown = field(given, 'params');
  if (typeof params !== 'object' || params === null) throw new ArgumentError('transferables takes a module record ({ params })', { op: 'transferables', hint: 'records come from await module.toRecord()' });
  return Object.values(record.params).map((p) => p.data.buffer as ArrayBuffer);
}

/** A copy of `values` in an ArrayBuffer of its own (reads may return views of shared memory). */
export function ownedFloat32(values: ArrayLike<number> & { readonly buffer?: ArrayBufferLike; readonly byteOffset?: number; readonly length: number }): Float32Array {
  if (values instanceof Float32Array && values.buffer instanceof ArrayBuffer && values.byteOffset === 0 && values.byteLength === values.buffer.byteLength) return values;
  return Float32Array.from(values);
}
