/**
 * Module records: plain data (names, ids, shapes, one ArrayBuffer per tensor) that survives
 * structuredClone and postMessage; `transferables(record)` lists the buffers to move, not copy.
 */
import { field, show } from '../ir/validate.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { asParamId, type ParamId } from './param.js';

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

/** What fromRecord did: names loaded, the module's names the record lacks, and the record's names the module lacks. */
export interface RecordReport {
  readonly loaded: readonly string[];
  readonly missing: readonly string[];
  readonly unexpected: readonly string[];
}

export interface FromRecordOptions {
  /** Refuse a record whose names differ from the module's (default true), as torch's load_state_dict. */
  strict?: boolean;
  /** Called with what was loaded and what was not (torch's load_state_dict returns missing and unexpected keys). */
  report?: (report: RecordReport) => void;
}

/**
 * One entry of a record, checked (also for untyped callers): a non-empty string id, dtype
 * 'float32', a shape of integers >= 0, and a Float32Array of as many values.
 */
export function checkParamRecord(name: string, entry: unknown): ParamRecord {
  const op = 'fromRecord';
  const hint = 'records hold { id, shape, dtype: "float32", data: Float32Array } per parameter, as toRecord() makes them';
  if (typeof entry !== 'object' || entry === null) throw new ArgumentError(`parameter '${name}' in the record is ${show(entry)}, not { id, shape, dtype, data }`, { op, hint });
  const id = field(entry, 'id');
  if (typeof id !== 'string' || id.length === 0) throw new ArgumentError(`parameter '${name}' has the id ${show(id)} in the record; ids are non-empty strings`, { op, hint });
  const dtype = field(entry, 'dtype');
  if (dtype !== 'float32') throw new ArgumentError(`parameter '${name}' has dtype ${show(dtype)} in the record; records are float32`, { op, hint });
  const shape = field(entry, 'shape');
  if (!Array.isArray(shape) || shape.some((d) => !Number.isSafeInteger(d) || d < 0)) throw new ArgumentError(`parameter '${name}' has the shape ${show(shape)} in the record; shapes are arrays of integers >= 0`, { op, hint });
  const data = field(entry, 'data');
  if (!(data instanceof Float32Array)) throw new ArgumentError(`parameter '${name}' holds ${show(data)} in the record, not a Float32Array`, { op, hint });
  const dims = shape.filter((d): d is number => typeof d === 'number');
  const size = dims.reduce((a, d) => a * d, 1);
  if (data.length !== size) throw new ShapeError(`parameter '${name}' of shape [${dims.join(', ')}] holds ${data.length} values in the record`, { op, shapes: [dims] });
  return { id: asParamId(id), shape: dims, dtype, data };
}
