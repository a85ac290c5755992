/**
 * Creating tensors on a backend's device: `fromData`, `zeros`, `ones`, `full`, `arange`,
 * `random`. The backend comes first (it fixes the tensor's type); the device defaults to the
 * backend's default device.
 */
import { ArgumentError, DTypeError } from '../errors.js';
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { allocTyped, coerce, type DType, type Kind, type KindOf, type TypedArray } from '../ir/dtype.js';
import type { DistributionSpec } from '../ir/ops.js';
import { checkShape } from '../ir/shape.js';
import { Tensor, type NestedArray } from './tensor.js';

export interface CreateOptions<D extends DType = DType> {
  device?: Device;
  dtype?: D;
}

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

function deviceFor<B extends Backend>(backend: B, device: Device | undefined): DeviceOf<B> {
  return (device ?? backend.defaultDevice()) as DeviceOf<B>;
}

/** Distributions for `random` (Burn's `Distribution`). */
export const Distribution = {
  /** Uniform in [0, 1). */
  Default: { kind: 'default' } as DistributionSpec,
  Uniform(low: number, high: number): DistributionSpec {
    if (!(low <= high)) throw new ArgumentError(`Uniform(${low}, ${high}) needs low <= high`, { op: 'random' });
    return { kind: 'uniform', low, high };
  },
  Normal(mean: number, std: number): DistributionSpec {
    if (!(std >= 0)) throw new ArgumentError(`Normal(${mean}, ${std}) needs std >= 0`, { op: 'random' });
    return { kind: 'normal', mean, std };
  },
  /** 1 with probability p, else 0 (as float32). */
  Bernoulli(p: number): DistributionSpec {
    if (!(p >= 0 && p <= 1)) throw new ArgumentError(`Bernoulli(${p}) needs 0 <= p <= 1`, { op: 'random' });
    return { kind: 'bernoulli', p };
  },
} as const;

function inferShape(data: NestedArray, shape: number[] = []): number[] {
  if (Array.isArray(data)) {
    shape.push(data.length);
    if (data.length > 0) inferShape(data[0] as NestedArray, shape);
  }
  return shape;
}

function flattenInto(data: NestedArray, shape: readonly number[], dim: number, out: number[]): void {
  if (dim === shape.length) {
    if (Array.isArray(data)) throw new ArgumentError('ragged nested array: elements nest deeper than the first', { op: 'fromData' });
    out.push(typeof data === 'boolean' ? (data ? 1 : 0) : (data as number));
    return;
  }
  if (!Array.isArray(data) || data.length !== shape[dim]) {
    throw new ArgumentError(`ragged nested array: dim ${dim} should have ${shape[dim]} entries`, { op: 'fromData', hint: 'every row must have the same length' });
  }
  for (const d of data as readonly NestedArray[]) flattenInto(d, shape, dim + 1, out);
}

function firstLeaf(data: NestedArray): number | boolean | undefined {
  let d: NestedArray = data;
  while (Array.isArray(d)) {
    if (d.length === 0) return undefined;
    d = d[0] as NestedArray;
  }
  return d as number | boolean;
}

export type FromDataInput = NestedArray | TypedArray;

type DefaultKind<T> = T extends Int32Array ? 'int' : T extends Uint8Array ? 'bool' : T extends boolean | readonly boolean[] | readonly (readonly boolean[])[] ? 'bool' : 'float';

/**
 * A tensor from nested arrays or a typed array (with `shape`). Default dtype: float32 for
 * numbers and Float32Array, int32 for Int32Array, bool for booleans and Uint8Array.
 */
export function fromData<B extends Backend, T extends FromDataInput, D extends DType | undefined = undefined>(
  backend: B,
  data: T,
  options: { device?: Device; dtype?: D; shape?: readonly number[] } = {},
): Tensor<B, D extends DType ? KindOf<D> : DefaultKind<T>> {
  let flat: ArrayLike<number>;
  let shape: number[];
  let dtype: DType;
  if (ArrayBuffer.isView(data)) {
    flat = data as TypedArray;
    shape = options.shape ? [...options.shape] : [flat.length];
    dtype = options.dtype ?? (data instanceof Int32Array ? 'int32' : data instanceof Uint8Array ? 'bool' : 'float32');
  } else {
    shape = options.shape ? [...options.shape] : inferShape(data as NestedArray);
    const out: number[] = [];
    if (options.shape && Array.isArray(data)) {
      const inner: number[] = [];
      flattenInto(data as NestedArray, inferShape(data as NestedArray), 0, inner);
      out.push(...inner);
    } else flattenInto(data as NestedArray, shape, 0, out);
    flat = out;
    dtype = options.dtype ?? (typeof firstLeaf(data as NestedArray) === 'boolean' ? 'bool' : 'float32');
  }
  checkShape('fromData', shape);
  const n = shape.reduce((a, b) => a * b, 1);
  if (flat.length !== n) {
    throw new ArgumentError(`${flat.length} values do not fill shape [${shape.join(', ')}] (${n} elements)`, { op: 'fromData' });
  }
  const payload = allocTyped(dtype, n);
  for (let i = 0; i < n; i++) payload[i] = coerce(dtype, flat[i]!);
  return Tensor.create(backend, 'fromData', {}, shape, dtype, deviceFor(backend, options.device), payload) as never;
}

/** A tensor filled with `value`. Default dtype float32. */
export function full<B extends Backend, D extends DType = 'float32'>(backend: B, shape: readonly number[], value: number, options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  checkShape('full', shape);
  const dtype = options.dtype ?? 'float32';
  return Tensor.create(backend, 'full', { value: coerce(dtype, value) }, shape, dtype, deviceFor(backend, options.device)) as never;
}

export function zeros<B extends Backend, D extends DType = 'float32'>(backend: B, shape: readonly number[], options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  return full(backend, shape, 0, options);
}

export function ones<B extends Backend, D extends DType = 'float32'>(backend: B, shape: readonly number[], options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  return full(backend, shape, 1, options);
}

/** A tensor like `t` (shape, dtype, device) filled with `value`. */
export function fullLike<B extends Backend, K extends Kind>(t: Tensor<B, K>, value: number): Tensor<B, K> {
  return full(t.backend, t.shape, value, { device: t.device, dtype: t.dtype }) as never;
}

/**
 * `[start, end)` with `step` (torch.arange). `arange(b, 5)` is 0..4. dtype: int32 when all
 * arguments are integers, else float32 (override with `dtype`).
 */
export function arange<B extends Backend, D extends DType = 'int32'>(
  backend: B,
  startOrEnd: number,
  end?: number,
  step = 1,
  options: CreateOptions<D> = {},
): Tensor<B, KindOf<D>> {
  const start = end === undefined ? 0 : startOrEnd;
  const stop = end === undefined ? startOrEnd : end;
  if (step === 0 || !Number.isFinite(step)) throw new ArgumentError('step must be a finite non-zero number', { op: 'arange' });
  const dtype: DType = options.dtype ?? (Number.isInteger(start) && Number.isInteger(stop) && Number.isInteger(step) ? 'int32' : 'float32');
  if (dtype === 'bool') throw new DTypeError('arange makes numbers, not bools', { op: 'arange', dtypes: [dtype] });
  const n = Math.max(0, Math.ceil((stop - start) / step));
  return Tensor.create(backend, 'arange', { start, step }, [n], dtype, deviceFor(backend, options.device)) as never;
}

/** Random float32 values from a distribution, from the device's seedable counter-based stream. */
export function random<B extends Backend>(backend: B, shape: readonly number[], distribution: DistributionSpec = Distribution.Default, options: { device?: Device } = {}): Tensor<B, 'float'> {
  checkShape('random', shape);
  const device = deviceFor(backend, options.device);
  const n = shape.reduce((a, b) => a * b, 1);
  const { seed, counter } = backend.randomStream(device, n);
  return Tensor.create(backend, 'random', { distribution, seed, counter }, shape, 'float32', device) as never;
}

/** The n x m identity (ones on the diagonal; m defaults to n), as torch.eye. Default dtype float32. */
export function eye<B extends Backend, D extends DType = 'float32'>(backend: B, n: number, m: number = n, options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  checkShape('eye', [n, m]);
  const ones = full(backend, [n, m], 1, options);
  const lower = ones.tril();
  const out = lower.triu();
  ones.dispose();
  lower.dispose();
  return out;
}

/**
 * `steps` values from `start` to `end` inclusive, evenly spaced (torch.linspace: the first half
 * counted from start, the second from end, so both ends are exact). float32 by default; int32
 * truncates toward zero as torch does.
 */
export function linspace<B extends Backend, D extends DType = 'float32'>(backend: B, start: number, end: number, steps: number, options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  if (!Number.isInteger(steps) || steps < 0) throw new ArgumentError(`steps must be a non-negative integer, got ${steps}`, { op: 'linspace' });
  if (!Number.isFinite(start) || !Number.isFinite(end)) throw new ArgumentError(`start and end must be finite, got ${start} and ${end}`, { op: 'linspace' });
  const dtype = options.dtype ?? 'float32';
  if (dtype === 'bool') throw new DTypeError('linspace makes numbers, not bools', { op: 'linspace', dtypes: [dtype] });
  const step = steps > 1 ? (end - start) / (steps - 1) : 0;
  const half = Math.floor(steps / 2);
  const values = allocTyped(dtype, steps);
  for (let i = 0; i < steps; i++) values[i] = coerce(dtype, i < half || steps === 1 ? start + step * i : end - step * (steps - 1 - i));
  return Tensor.create(backend, 'fromData', {}, [steps], dtype, deviceFor(backend, options.device), values) as never;
}
