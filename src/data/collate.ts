/**
 * The default collate (torch's default_collate): a list of samples to one batch, field by field.
 * Host tensors are stacked into [B, ...shape]; numbers become a float32 [B] host tensor, integers
 * too (labels that must be int32, for crossEntropy, come as Int32Array or int32 host tensors, e.g.
 * from a TensorDataset); booleans a bool [B] one; typed arrays are stacked as rows (Float32Array
 * and Float64Array as float32, Int32Array and the smaller integer arrays, Uint8Array included, as
 * int32: there is no uint8 dtype); arrays and plain objects are collated per position or key.
 * Samples that do not match (lengths, keys, kinds, shapes) are an error naming the sample and field.
 */
import { ArgumentError } from '../errors.js';
import { field, show } from '../ir/validate.js';
import type { HostTensor } from './host-tensor.js';
import { isHostTensor } from './host-tensor.js';

type IntArray = Int32Array | Int16Array | Int8Array | Uint16Array | Uint8Array | Uint8ClampedArray;
type FloatArray = Float32Array | Float64Array;

/** What defaultCollate makes of a sample type. */
export type Collated<T> = T extends HostTensor<infer D>
  ? HostTensor<D>
  : T extends number
    ? HostTensor<'float32'>
    : T extends boolean
      ? HostTensor<'bool'>
      : T extends FloatArray
        ? HostTensor<'float32'>
        : T extends IntArray
          ? HostTensor<'int32'>
          : T extends readonly unknown[]
            ? { -readonly [K in keyof T]: Collated<T[K]> }
            : T extends object
              ? { -readonly [K in keyof T]: Collated<T[K]> }
              : never;

export type Collate<T, Batch> = (samples: readonly T[]) => Batch;

const OP = 'defaultCollate';
const HINT = 'give every sample the same structure and shapes, or pass a collate function';

/** `field` of the samples, for messages: "the samples" or "field .x[1]". */
const where = (path: string): string => (path === '' ? 'the samples' : `field ${path}`);

const an = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;

function describe(v: unknown): string {
  if (isHostTensor(v)) return `${an(v.dtype)} host tensor [${v.shape.join(', ')}]`;
  if (ArrayBuffer.isView(v)) return `${an(v.constructor.name)} of ${'length' in v ? String(v.length) : '?'}`;
  return typeof v === 'number' ? 'a number' : typeof v === 'boolean' ? 'a boolean' : v === undefined ? 'nothing' : show(v);
}

function mismatch(path: string, i: number, first: unknown, other: unknown): ArgumentError {
  return new ArgumentError(`samples differ at ${where(path)}: sample ${i} has ${describe(other)} where sample 0 has ${describe(first)}`, { op: OP, hint: HINT });
}

/** The array type a host tensor of `dtype` holds (isHostTensor admits float32, int32 and bool). */
const arrayOf = (dtype: string) => (dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Uint8Array);

function stack(samples: readonly HostTensor[], path: string): HostTensor {
  const first = samples[0]!;
  const size = first.shape.reduce((a, b) => a * b, 1);
  samples.forEach((s, i) => {
    if (s.dtype !== first.dtype || s.shape.length !== first.shape.length || s.shape.some((d, k) => d !== first.shape[k])) throw mismatch(path, i, first, s);
    // A hand-made host tensor may lie: data of another type or length than its dtype and shape say.
    if (!(s.data instanceof arrayOf(s.dtype)) || s.data.length !== size) {
      throw new ArgumentError(`sample ${i} at ${where(path)} is ${an(s.dtype)} host tensor [${s.shape.join(', ')}] whose data is ${an(s.data.constructor.name)} of ${s.data.length}`, { op: OP, hint: 'build host tensors with data.hostTensor(typedArray, shape)' });
    }
  });
  const data = new (arrayOf(first.dtype))(size * samples.length);
  samples.forEach((s, i) => data.set(s.data, i * size));
  return { dtype: first.dtype, shape: [samples.length, ...first.shape], data } as HostTensor;
}

/** A typed array as a row of its dtype: Float64 narrows to float32; smaller integers widen to int32. */
function asRow(v: ArrayBufferView): HostTensor<'float32'> | HostTensor<'int32'> | undefined {
  if (v instanceof Float32Array) return { dtype: 'float32', shape: [v.length], data: v };
  if (v instanceof Float64Array) return { dtype: 'float32', shape: [v.length], data: Float32Array.from(v) };
  if (v instanceof Int32Array) return { dtype: 'int32', shape: [v.length], data: v };
  if (v instanceof Int16Array || v instanceof Int8Array || v instanceof Uint16Array || v instanceof Uint8Array || v instanceof Uint8ClampedArray) {
    return { dtype: 'int32', shape: [v.length], data: Int32Array.from(v) };
  }
  return undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

function collateAny(samples: readonly unknown[], path: string): unknown {
  const first = samples[0];
  if (isHostTensor(first)) {
    samples.forEach((s, i) => {
      if (!isHostTensor(s)) throw mismatch(path, i, first, s);
    });
    return stack(samples.filter(isHostTensor), path);
  }
  if (typeof first === 'number' || typeof first === 'boolean') {
    const kind = typeof first;
    samples.forEach((s, i) => {
      if (typeof s !== kind) throw mismatch(path, i, first, s);
    });
    if (kind === 'number') return { dtype: 'float32', shape: [samples.length], data: Float32Array.from(samples, Number) };
    return { dtype: 'bool', shape: [samples.length], data: Uint8Array.from(samples, (s) => (s === true ? 1 : 0)) };
  }
  if (ArrayBuffer.isView(first)) {
    if (asRow(first) === undefined) throw new ArgumentError(`cannot collate ${an(first.constructor.name)} at ${where(path)}`, { op: OP, hint: 'samples hold host tensors, typed arrays (not BigInt64Array / DataView), numbers, booleans, arrays and objects of them; or pass a collate function' });
    const rows = samples.map((s, i) => {
      const row = ArrayBuffer.isView(s) && s.constructor === first.constructor ? asRow(s) : undefined;
      if (row === undefined) throw mismatch(path, i, first, s);
      return row;
    });
    return stack(rows, path);
  }
  if (Array.isArray(first)) {
    samples.forEach((s, i) => {
      if (!Array.isArray(s) || s.length !== first.length) throw mismatch(path, i, first, s);
    });
    return first.map((_, k) => collateAny(samples.map((s) => (Array.isArray(s) ? s[k] : undefined)), `${path}[${k}]`));
  }
  if (isPlainObject(first)) {
    const keys = Object.keys(first);
    samples.forEach((s, i) => {
      if (!isPlainObject(s)) throw mismatch(path, i, first, s);
      const other = Object.keys(s);
      const missing = keys.filter((k) => !Object.hasOwn(s, k));
      const extra = other.filter((k) => !Object.hasOwn(first, k));
      if (missing.length > 0 || extra.length > 0) {
        throw new ArgumentError(`samples differ at ${where(path)}: sample ${i} ${[missing.length > 0 ? `lacks ${missing.map((k) => `'${k}'`).join(', ')}` : '', extra.length > 0 ? `has ${extra.map((k) => `'${k}'`).join(', ')} that sample 0 lacks` : ''].filter(Boolean).join('; ')}`, { op: OP, hint: HINT });
      }
    });
    return Object.fromEntries(keys.map((k) => [k, collateAny(samples.map((s) => field(s, k)), `${path}.${k}`)]));
  }
  throw new ArgumentError(`cannot collate ${first === null ? 'null' : typeof first === 'object' ? show(first) : `a ${typeof first}`} at ${where(path)}`, { op: OP, hint: 'samples hold host tensors, typed arrays, numbers, booleans, arrays and plain objects of them; or pass a collate function' });
}

export function defaultCollate<T>(samples: readonly T[]): Collated<T> {
  if (!Array.isArray(samples)) throw new ArgumentError('defaultCollate takes an array of samples', { op: OP });
  if (samples.length === 0) throw new ArgumentError('cannot collate an empty batch', { op: OP });
  // The result's type follows the sample type as Collated says.
  return collateAny(samples, '') as Collated<T>;
}
