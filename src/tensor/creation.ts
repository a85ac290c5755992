/**
 * Creating tensors on a backend's device: `fromData`, `zeros`, `ones`, `full`, `arange`,
 * `random`. The backend comes first (it fixes the tensor's type); the device defaults to the
 * backend's default device.
 */
import { ArgumentError, DTypeError } from '../errors.js';
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { encodeHalves } from '../ir/half.js';
import { allocTyped, coerce, storedValue, type DType, type FloatDType, type Kind, type KindOf, type TypedArray } from '../ir/dtype.js';
import { fromHalfBits, roundHalf, toHalfBits } from '../ir/half.js';
import type { DistributionSpec } from '../ir/ops.js';
import { checkShape } from '../ir/shape.js';
import { MAX_ELEMENTS, MAX_RANK, checkBackend, checkDType, checkDevice, checkInt32Value, checkInteger, checkNumber, checkOptions, show } from '../ir/validate.js';
import { Tensor, checkTensor, type NestedArray } from './tensor.js';

export interface CreateOptions<D extends DType = DType> {
  device?: Device;
  dtype?: D;
}

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

function deviceFor<B extends Backend>(op: string, backend: B, device: unknown): DeviceOf<B> {
  return (device === undefined ? backend.defaultDevice() : checkDevice(op, device)) as DeviceOf<B>;
}

/** The options every creation function takes: an object with a known dtype (or none) and a device tag (or none). */
function creationOptions(op: string, options: unknown, fallback: DType): { dtype: DType; device: unknown; explicitDType: boolean; shape: unknown } {
  const o = checkOptions(op, options);
  const explicitDType = o['dtype'] !== undefined;
  return { dtype: explicitDType ? checkDType(op, o['dtype']) : fallback, device: o['device'], explicitDType, shape: o['shape'] };
}

/** Distributions for `random` (Burn's `Distribution`). */
export const Distribution = {
  /** Uniform in [0, 1). */
  Default: { kind: 'default' } as DistributionSpec,
  Uniform(low: number, high: number): DistributionSpec {
    checkNumber('random', 'Uniform low', low, true);
    checkNumber('random', 'Uniform high', high, true);
    if (!(low <= high)) throw new ArgumentError(`Uniform(${low}, ${high}) needs low <= high`, { op: 'random' });
    return { kind: 'uniform', low, high };
  },
  Normal(mean: number, std: number): DistributionSpec {
    checkNumber('random', 'Normal mean', mean, true);
    checkNumber('random', 'Normal std', std, true);
    if (!(std >= 0)) throw new ArgumentError(`Normal(${mean}, ${std}) needs std >= 0`, { op: 'random' });
    return { kind: 'normal', mean, std };
  },
  /** 1 with probability p, else 0 (as float32). */
  Bernoulli(p: number): DistributionSpec {
    checkNumber('random', 'Bernoulli p', p);
    if (!(p >= 0 && p <= 1)) throw new ArgumentError(`Bernoulli(${p}) needs 0 <= p <= 1`, { op: 'random' });
    return { kind: 'bernoulli', p };
  },
} as const;

/** A distribution as `Distribution` builds it (a hand-written one from untyped code is checked the same way). */
function checkDistribution(d: unknown): DistributionSpec {
  const kind = d !== null && typeof d === 'object' ? (d as { kind?: unknown }).kind : undefined;
  const o = d as Record<string, unknown>;
  switch (kind) {
    case 'default':
      return Distribution.Default;
    case 'uniform':
      return Distribution.Uniform(o['low'] as number, o['high'] as number);
    case 'normal':
      return Distribution.Normal(o['mean'] as number, o['std'] as number);
    case 'bernoulli':
      return Distribution.Bernoulli(o['p'] as number);
    default:
      throw new ArgumentError(`unknown distribution ${show(d)}`, { op: 'random', hint: 'use Distribution.Default, Uniform(lo, hi), Normal(mean, std) or Bernoulli(p)' });
  }
}

/** The shape of nested arrays, from their first entries (iteratively: deep nesting is an error, not a stack overflow). */
function inferShape(data: unknown): number[] {
  const shape: number[] = [];
  let d = data;
  while (Array.isArray(d)) {
    if (shape.length === MAX_RANK) throw new ArgumentError(`nested arrays deeper than ${MAX_RANK} levels: tensors have at most ${MAX_RANK} dims`, { op: 'fromData' });
    shape.push(d.length);
    if (d.length === 0) break;
    d = d[0];
  }
  return shape;
}

/** Leaves seen while flattening: booleans only make a bool tensor, any number a float one. */
interface Leaves {
  booleans: number;
  numbers: number;
}

function flattenInto(data: unknown, shape: readonly number[], dim: number, out: number[], leaves: Leaves): void {
  if (dim === shape.length) {
    if (Array.isArray(data)) throw new ArgumentError('ragged nested array: elements nest deeper than the first', { op: 'fromData' });
    if (typeof data === 'boolean') {
      out.push(data ? 1 : 0);
      leaves.booleans++;
    } else if (typeof data === 'number') {
      out.push(data);
      leaves.numbers++;
    }
    else throw new ArgumentError(`values must be numbers or booleans, got ${show(data)}`, { op: 'fromData' });
    return;
  }
  if (!Array.isArray(data) || data.length !== shape[dim]) {
    throw new ArgumentError(`ragged nested array: dim ${dim} should have ${shape[dim]} entries`, { op: 'fromData', hint: 'every row must have the same length' });
  }
  for (const d of data as readonly unknown[]) flattenInto(d, shape, dim + 1, out, leaves);
}

/** Typed arrays whose values are plain numbers (not BigInt64Array, not DataView). */
function isNumberArray(v: unknown): v is ArrayLike<number> & ArrayBufferView {
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array);
}

export type FromDataInput = NestedArray | TypedArray;

type DefaultKind<T> = T extends Int32Array ? 'int' : T extends Uint8Array ? 'bool' : T extends boolean | readonly boolean[] | readonly (readonly boolean[])[] ? 'bool' : 'float';

/**
 * A tensor from nested arrays or a typed array (with `shape`). Default dtype: float32 for
 * numbers and Float32Array, int32 for Int32Array, bool for booleans and Uint8Array, float16 for
 * Uint16Array (float16 bit patterns, taken as they are). With dtype float16, numbers round to the
 * nearest float16 (ties to even).
 */
export function fromData<B extends Backend, T extends FromDataInput, D extends DType | undefined = undefined>(
  backend: B,
  data: T,
  options: { device?: Device; dtype?: D; shape?: readonly number[] } = {},
): Tensor<B, D extends DType ? KindOf<D> : DefaultKind<T>> {
  const b = checkBackend('fromData', backend);
  const opts = checkOptions('fromData', options);
  let flat: ArrayLike<number>;
  let shape: number[];
  let fallback: DType;
  if (isNumberArray(data)) {
    flat = data;
    shape = [flat.length];
    fallback = data instanceof Int32Array ? 'int32' : data instanceof Uint8Array ? 'bool' : data instanceof Uint16Array ? 'float16' : 'float32';
  } else if (Array.isArray(data) || typeof data === 'number' || typeof data === 'boolean') {
    shape = inferShape(data);
    const out: number[] = [];
    const leaves: Leaves = { booleans: 0, numbers: 0 };
    flattenInto(data, shape, 0, out, leaves);
    flat = out;
    // Mixed booleans and numbers are numbers ([true, 2] is [1, 2]), whichever comes first.
    fallback = leaves.booleans > 0 && leaves.numbers === 0 ? 'bool' : 'float32';
  } else {
    throw new ArgumentError(`data must be nested arrays of numbers or booleans, or a typed array, got ${show(data)}`, { op: 'fromData' });
  }
  const { dtype } = creationOptions('fromData', opts, fallback);
  if (flat instanceof Uint16Array && dtype !== 'float16') {
    throw new DTypeError(`a Uint16Array holds float16 bit patterns, not ${dtype} values`, { op: 'fromData', dtypes: [dtype], hint: 'pass dtype float16 (or none), or the values as numbers / a Float32Array' });
  }
  if (opts['shape'] !== undefined) shape = checkShape('fromData', opts['shape'], dtype);
  else checkShape('fromData', shape, dtype);
  const n = shape.reduce((a, c) => a * c, 1);
  if (flat.length !== n) {
    throw new ArgumentError(`${flat.length} values do not fill shape [${shape.join(', ')}] (${n} elements)`, { op: 'fromData' });
  }
  const device = deviceFor('fromData', b, opts['device']);
  const payload = b.runtime.blobs.alloc(dtype, n);
  // Same-kind typed arrays hold coerced values already: a block copy (weights reloaded per step).
  // float16 from a Uint16Array: the bit patterns as they are.
  if ((dtype === 'float32' && flat instanceof Float32Array) || (dtype === 'int32' && flat instanceof Int32Array) || flat instanceof Uint16Array) payload.set(flat);
  else if (dtype === 'float16' && flat instanceof Float32Array && payload instanceof Uint16Array) encodeHalves(flat, 0, n, payload);
  else for (let i = 0; i < n; i++) payload[i] = storedValue(dtype, flat[i]!);
  return Tensor.upload(b, payload, shape, dtype, device) as never;
}

/** A creation value: a number (a boolean counts as 0 / 1). */
function fillValue(op: string, value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return checkNumber(op, 'value', value);
}

/** A tensor filled with `value`. Default dtype float32. */
export function full<B extends Backend, D extends DType = 'float32'>(backend: B, shape: readonly number[], value: number, options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  return fullNamed('full', backend, shape, value, options);
}

/** `full`, its errors naming the function the caller called (zeros, ones). */
function fullNamed<B extends Backend, D extends DType = 'float32'>(op: string, backend: B, shape: readonly number[], value: number, options: CreateOptions<D>): Tensor<B, KindOf<D>> {
  const b = checkBackend(op, backend);
  const { dtype, device } = creationOptions(op, options, 'float32');
  const dims = checkShape(op, shape, dtype);
  const given = fillValue(op, value);
  if (dtype === 'int32') checkInt32Value(op, given);
  const v = coerce(dtype, given);
  return Tensor.create(b, 'full', { value: v }, dims, dtype, deviceFor(op, b, device)) as never;
}

export function zeros<B extends Backend, D extends DType = 'float32'>(backend: B, shape: readonly number[], options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  return fullNamed('zeros', backend, shape, 0, options);
}

export function ones<B extends Backend, D extends DType = 'float32'>(backend: B, shape: readonly number[], options: CreateOptions<D> = {}): Tensor<B, KindOf<D>> {
  return fullNamed('ones', backend, shape, 1, options);
}

/** A tensor like `t` (shape, dtype, device) filled with `value`. */
export function fullLike<B extends Backend, K extends Kind>(t: Tensor<B, K>, value: number): Tensor<B, K> {
  checkTensor('fullLike', 'the tensor', t);
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
  const b = checkBackend('arange', backend);
  const start = end === undefined ? 0 : checkNumber('arange', 'start', startOrEnd, true);
  const stop = checkNumber('arange', 'end', end === undefined ? startOrEnd : end, true);
  checkNumber('arange', 'step', step, true);
  if (step === 0) throw new ArgumentError('step must be a finite non-zero number', { op: 'arange' });
  const inferred: DType = Number.isInteger(start) && Number.isInteger(stop) && Number.isInteger(step) ? 'int32' : 'float32';
  const { dtype, device } = creationOptions('arange', options, inferred);
  if (dtype === 'bool') throw new DTypeError('arange makes numbers, not bools', { op: 'arange', dtypes: [dtype] });
  const n = Math.max(0, Math.ceil((stop - start) / step));
  if (n > MAX_ELEMENTS) checkShape('arange', [n], dtype);
  if (dtype === 'int32' && n > 0) {
    const last = start + (n - 1) * step;
    if (![start, last].every((v) => Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31)) {
      throw new ArgumentError(`int32 values from ${start} to ${last} do not fit int32`, { op: 'arange', hint: 'pass { dtype: "float32" }, or a smaller range' });
    }
  }
  return Tensor.create(b, 'arange', { start, step }, [n], dtype, deviceFor('arange', b, device)) as never;
}

/** Random float32 values from a distribution, from the device's seedable counter-based stream. */
export function random<B extends Backend>(backend: B, shape: readonly number[], distribution: DistributionSpec = Distribution.Default, options: { device?: Device; dtype?: FloatDType } = {}): Tensor<B, 'float'> {
  const b = checkBackend('random', backend);
  const dims = checkShape('random', shape);
  const dist = checkDistribution(distribution);
  const { dtype, device: given } = creationOptions('random', options, 'float32');
  if (dtype !== 'float32' && dtype !== 'float16') throw new DTypeError(`random draws floats, not ${dtype}`, { op: 'random', dtypes: [dtype], hint: "pass dtype 'float32' or 'float16', or cast the result" });
  const device = deviceFor('random', b, given);
  const n = dims.reduce((a, c) => a * c, 1);
  const { seed, counter } = b.randomStream(device, n);
  const drawn: Tensor<B, 'float'> = Tensor.create(b, 'random', { distribution: dist, seed, counter }, dims, 'float32', device) as never;
  if (dtype === 'float32') return drawn;
  // float16 values are the float32 draws rounded once (torch draws half in float too); rounding
  // can reach a uniform's high end (0.9998 to 1) or pass a low end float16 cannot hold, so those
  // ends are clamped in: [low, high) as in float32.
  const rounded = drawn.cast(dtype);
  drawn.dispose();
  const range = dist.kind === 'default' ? ([0, 1] as const) : dist.kind === 'uniform' && dist.low < dist.high ? ([dist.low, dist.high] as const) : undefined;
  if (!range) return rounded;
  const inRange = rounded.clamp(halfAtLeast(range[0]), halfBelow(range[1]));
  rounded.dispose();
  return inRange;
}

/** The largest float16 value below v. */
function halfBelow(v: number): number {
  const r = roundHalf(v);
  if (r < v) return r;
  const bits = toHalfBits(r);
  // One pattern towards -inf: a smaller magnitude above zero, a larger one below.
  if (r > 0) return fromHalfBits(bits - 1);
  return r === 0 ? fromHalfBits(0x8001) : fromHalfBits(bits + 1);
}

/** The smallest float16 value at or above v. */
function halfAtLeast(v: number): number {
  const r = roundHalf(v);
  if (r >= v) return r;
  const bits = toHalfBits(r);
  if (r > 0) return fromHalfBits(bits + 1);
  return r === 0 ? fromHalfBits(0x0001) : fromHalfBits(bits - 1);
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
  for (let i = 0; i < steps; i++) values[i] = storedValue(dtype, i < half || steps === 1 ? start + step * i : end - step * (steps - 1 - i));
  return Tensor.upload(checkBackend('linspace', backend), values, [steps], dtype, deviceFor('linspace', backend, options.device)) as never;
}

/** The [2, n] int32 coordinates (row-major) of the entries of a row x col matrix whose columns in row i are range(i). */
function triangleIndices<B extends Backend>(op: string, backend: B, row: number, col: number, offset: number, options: { device?: Device }, range: (i: number, off: number, cols: number) => [number, number]): Tensor<B, 'int'> {
  const b = checkBackend(op, backend);
  const rows = checkInteger(op, 'row', row, 0, 2 ** 31 - 1);
  const cols = checkInteger(op, 'col', col, 0, 2 ** 31 - 1);
  const off = checkInteger(op, 'offset', offset);
  const device = deviceFor(op, b, checkOptions(op, options)['device']);
  // The whole matrix bounds the output: refused past the element limit before anything is made.
  checkShape(op, [rows, cols], 'int32');
  let n = 0;
  for (let i = 0; i < rows; i++) {
    const [lo, hi] = range(i, off, cols);
    n += Math.max(0, hi - lo);
  }
  const out = new Int32Array(2 * n);
  let k = 0;
  for (let i = 0; i < rows; i++) {
    const [lo, hi] = range(i, off, cols);
    for (let j = lo; j < hi; j++, k++) {
      out[k] = i;
      out[n + k] = j;
    }
  }
  return Tensor.upload(b, out, [2, n], 'int32', device) as never;
}

/** torch.triu_indices(row, col, offset): the coordinates of the upper triangle (j - i >= offset), [2, n] int32. */
export function triuIndices<B extends Backend>(backend: B, row: number, col: number = row, offset = 0, options: { device?: Device } = {}): Tensor<B, 'int'> {
  return triangleIndices('triuIndices', backend, row, col, offset, options, (i, off, cols) => [Math.min(cols, Math.max(0, i + off)), cols]);
}

/** torch.tril_indices(row, col, offset): the coordinates of the lower triangle (j - i <= offset), [2, n] int32. */
export function trilIndices<B extends Backend>(backend: B, row: number, col: number = row, offset = 0, options: { device?: Device } = {}): Tensor<B, 'int'> {
  return triangleIndices('trilIndices', backend, row, col, offset, options, (i, off, cols) => [0, Math.max(0, Math.min(cols, i + off + 1))]);
}
