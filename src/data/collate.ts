/**
 * The default collate (torch's default_collate): a list of samples to one batch, field by field.
 * Host tensors are stacked into [B, ...shape]; numbers become a float32 [B] host tensor (labels
 * that must be ints come as int32 host tensors, e.g. from a TensorDataset); typed arrays are
 * stacked as rows; arrays and plain objects are collated per position or key.
 */
import { ArgumentError } from '../errors.js';
import type { HostTensor } from './host-tensor.js';
import { isHostTensor } from './host-tensor.js';

/** What defaultCollate makes of a sample type. */
export type Collated<T> = T extends HostTensor<infer D>
  ? HostTensor<D>
  : T extends number
    ? HostTensor<'float32'>
    : T extends Float32Array
      ? HostTensor<'float32'>
      : T extends Int32Array
        ? HostTensor<'int32'>
        : T extends Uint8Array
          ? HostTensor<'bool'>
          : T extends readonly unknown[]
            ? { -readonly [K in keyof T]: Collated<T[K]> }
            : T extends object
              ? { -readonly [K in keyof T]: Collated<T[K]> }
              : never;

export type Collate<T, Batch> = (samples: readonly T[]) => Batch;

function stack(samples: readonly HostTensor[]): HostTensor {
  const first = samples[0]!;
  const size = first.data.length;
  for (const s of samples) {
    if (s.dtype !== first.dtype || s.shape.length !== first.shape.length || s.shape.some((d, i) => d !== first.shape[i])) {
      throw new ArgumentError(`samples differ: ${first.dtype} [${first.shape.join(', ')}] and ${s.dtype} [${s.shape.join(', ')}]`, { op: 'defaultCollate', hint: 'give every sample the same shape, or pass a collate function' });
    }
  }
  const out = first.dtype === 'float32' ? new Float32Array(size * samples.length) : first.dtype === 'int32' ? new Int32Array(size * samples.length) : new Uint8Array(size * samples.length);
  samples.forEach((s, i) => out.set(s.data, i * size));
  return { dtype: first.dtype, shape: [samples.length, ...first.shape], data: out } as HostTensor;
}

function collateAny(samples: readonly unknown[]): unknown {
  const first = samples[0];
  if (isHostTensor(first)) return stack(samples as HostTensor[]);
  if (typeof first === 'number') return { dtype: 'float32', shape: [samples.length], data: Float32Array.from(samples as number[]) };
  if (first instanceof Float32Array || first instanceof Int32Array || first instanceof Uint8Array) {
    const dtype = first instanceof Float32Array ? 'float32' : first instanceof Int32Array ? 'int32' : 'bool';
    return stack((samples as Array<Float32Array | Int32Array | Uint8Array>).map((d) => ({ dtype, shape: [d.length], data: d }) as HostTensor));
  }
  if (Array.isArray(first)) return first.map((_, i) => collateAny(samples.map((s) => (s as unknown[])[i])));
  if (first !== null && typeof first === 'object') {
    return Object.fromEntries(Object.keys(first).map((k) => [k, collateAny(samples.map((s) => (s as Record<string, unknown>)[k]))]));
  }
  throw new ArgumentError(`cannot collate a ${first === null ? 'null' : typeof first}`, { op: 'defaultCollate', hint: 'samples hold host tensors, typed arrays, numbers, arrays and objects of them; or pass a collate function' });
}

export function defaultCollate<T>(samples: readonly T[]): Collated<T> {
  if (!Array.isArray(samples)) throw new ArgumentError('defaultCollate takes an array of samples', { op: 'defaultCollate' });
  if (samples.length === 0) throw new ArgumentError('cannot collate an empty batch', { op: 'defaultCollate' });
  return collateAny(samples) as Collated<T>;
}
