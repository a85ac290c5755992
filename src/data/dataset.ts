/** Datasets: anything with a length and a get(i) (PyTorch's map-style Dataset), and a few ready-made ones. */
import { field } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import type { HostTensor } from './host-tensor.js';
import { seededPermutation } from './shuffle.js';

export interface Dataset<T> {
  readonly length: number;
  get(index: number): T;
}

type Rows<T extends Readonly<Record<string, HostTensor>>> = { readonly [K in keyof T]: T[K] };

/**
 * Rows of equally long host tensors (torch.utils.data.TensorDataset): sample i holds row i of
 * each (a host tensor of the row's shape, viewing the same memory).
 */
export class TensorDataset<T extends Readonly<Record<string, HostTensor>>> implements Dataset<Rows<T>> {
  readonly length: number;

  constructor(readonly tensors: T) {
    const given: unknown = tensors;
    if (typeof given !== 'object' || given === null) throw new ArgumentError('TensorDataset takes named host tensors: { x: hostTensor(...), y: hostTensor(...) }', { op: 'TensorDataset' });
    for (const [name, t] of Object.entries(tensors)) {
      const shape: unknown = field(t, 'shape');
      if (!Array.isArray(shape)) throw new ArgumentError(`'${name}' must be a host tensor (hostTensor(data, shape))`, { op: 'TensorDataset' });
    }
    const lengths = Object.values(tensors).map((t) => t.shape[0] ?? 0);
    if (lengths.length === 0) throw new ArgumentError('a TensorDataset needs at least one tensor', { op: 'TensorDataset' });
    if (lengths.some((n) => n !== lengths[0])) {
      throw new ArgumentError(`every tensor needs the same first dim, got ${Object.entries(tensors).map(([k, t]) => `${k} [${t.shape.join(', ')}]`).join(', ')}`, { op: 'TensorDataset' });
    }
    this.length = lengths[0]!;
  }

  get(index: number): Rows<T> {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new ArgumentError(`index ${index} is out of range for ${this.length} samples`, { op: 'TensorDataset.get' });
    }
    const out: Record<string, HostTensor> = {};
    for (const [k, t] of Object.entries(this.tensors)) {
      const row = t.shape.slice(1);
      const size = row.reduce((a, b) => a * b, 1);
      out[k] = { dtype: t.dtype, shape: row, data: t.data.subarray(index * size, (index + 1) * size) } as HostTensor;
    }
    return out as Rows<T>;
  }
}

/** A dataset of samples made by `f` from another's (torchvision-style transforms). */
export class MappedDataset<S, T> implements Dataset<T> {
  constructor(
    readonly source: Dataset<S>,
    readonly f: (sample: S, index: number) => T,
  ) {}
  get length(): number {
    return this.source.length;
  }
  get(index: number): T {
    return this.f(this.source.get(index), index);
  }
}

/** The samples at `indices` of another dataset (torch.utils.data.Subset). */
export class Subset<T> implements Dataset<T> {
  constructor(
    readonly source: Dataset<T>,
    readonly indices: ArrayLike<number>,
  ) {}
  get length(): number {
    return this.indices.length;
  }
  get(index: number): T {
    if (!Number.isInteger(index) || index < 0 || index >= this.indices.length) {
      throw new ArgumentError(`index ${index} is out of range for ${this.indices.length} samples`, { op: 'Subset.get' });
    }
    return this.source.get(this.indices[index]!);
  }
}

/** Splits a dataset into disjoint random subsets of the given sizes, reproducibly with `seed`. */
export function randomSplit<T, const S extends readonly number[]>(dataset: Dataset<T>, sizes: S, seed = 0): { -readonly [K in keyof S]: Subset<T> } {
  const ds: unknown = dataset;
  if (typeof field(ds, 'length') !== 'number') throw new ArgumentError('randomSplit takes a dataset (with length and get)', { op: 'randomSplit' });
  if (!Array.isArray(sizes)) throw new ArgumentError('sizes must be an array of sample counts', { op: 'randomSplit' });
  if (sizes.reduce((a, b) => a + b, 0) !== dataset.length || sizes.some((s) => !Number.isInteger(s) || s < 0)) {
    throw new ArgumentError(`sizes [${sizes.join(', ')}] must be non-negative integers adding up to ${dataset.length}`, { op: 'randomSplit' });
  }
  const order = seededPermutation(dataset.length, seed);
  let at = 0;
  const parts = sizes.map((s) => {
    const part = order.slice(at, at + s);
    at += s;
    return new Subset(dataset, part);
  });
  // One subset per size: the mapped tuple type says so.
  return parts as { -readonly [K in keyof S]: Subset<T> };
}
