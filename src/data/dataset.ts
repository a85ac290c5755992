/** Datasets: anything with a length and a get(i) (PyTorch's map-style Dataset), and a few ready-made ones. */
import { checkInteger, field, show } from '../ir/validate.js';
import { checkDataset } from './plan.js';
import { ArgumentError } from '../errors.js';
import type { HostTensor } from './host-tensor.js';
import { seed32, seededPermutation } from './shuffle.js';

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

/**
 * Splits a dataset into disjoint random subsets, reproducibly with `seed` (a safe integer). `sizes`
 * are sample counts adding up to the dataset's length, or fractions adding up to 1 (torch >= 1.13):
 * each split gets floor(fraction * length) samples, and the remainder goes one by one to the first
 * splits in turn.
 */
export function randomSplit<T, const S extends readonly number[]>(dataset: Dataset<T>, sizes: S, seed = 0): { -readonly [K in keyof S]: Subset<T> } {
  checkDataset('randomSplit', dataset);
  if (!Array.isArray(sizes) || sizes.some((s) => typeof s !== 'number')) throw new ArgumentError(`sizes must be an array of sample counts or fractions, got ${show(sizes)}`, { op: 'randomSplit' });
  checkInteger('randomSplit', 'seed', seed);
  const n = dataset.length;
  const total = sizes.reduce((a, b) => a + b, 0);
  // torch's test: the sum is close to 1 (and not above): fractions. A dataset of 1 sample reads the same either way.
  const fractions = Math.abs(total - 1) <= 1e-9 && total <= 1 && sizes.every((s) => s >= 0 && s <= 1);
  let counts: number[];
  if (fractions) {
    counts = sizes.map((f) => Math.floor(n * f));
    const rest = n - counts.reduce((a, b) => a + b, 0);
    for (let i = 0; i < rest; i++) counts[i % counts.length]! += 1;
  } else {
    if (total !== n || sizes.some((s) => !Number.isInteger(s) || s < 0)) {
      throw new ArgumentError(`sizes [${sizes.join(', ')}] must be non-negative integers adding up to ${n}, or fractions adding up to 1`, { op: 'randomSplit' });
    }
    counts = [...sizes];
  }
  const order = seededPermutation(n, seed32(seed));
  let at = 0;
  const parts = counts.map((s) => {
    const part = order.slice(at, at + s);
    at += s;
    return new Subset(dataset, part);
  });
  // One subset per size: the mapped tuple type says so.
  return parts as { -readonly [K in keyof S]: Subset<T> };
}
