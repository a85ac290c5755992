/**
 * Host tensors: plain typed arrays with a shape and dtype, what datasets hold and batches carry
 * (they cross worker threads by transfer). `toTensors` turns a batch of them into device tensors.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError } from '../errors.js';
import type { DType } from '../ir/dtype.js';
import { checkKeys, checkOptions, show } from '../ir/validate.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';

type ArrayOf<D extends DType> = D extends 'float32' ? Float32Array : D extends 'int32' ? Int32Array : Uint8Array;

export interface HostTensor<D extends DType = DType> {
  readonly dtype: D;
  readonly shape: readonly number[];
  readonly data: ArrayOf<D>;
}

/**
 * A host tensor, its dtype taken from the array type: float32 for a Float32Array, int32 for an
 * Int32Array, and int32 values 0..255 for a Uint8Array (bytes such as pixels: there is no uint8
 * dtype, and torch keeps them numbers, not booleans) unless `{ dtype: 'bool' }` asks for a bool
 * mask (nonzero is true).
 */
export function hostTensor<A extends Float32Array | Int32Array | Uint8Array, D extends 'int32' | 'bool' = 'int32'>(data: A, shape?: readonly number[], options?: { dtype?: D }): HostTensorOf<A, D> {
  // One function for every array type: its dtype follows the array (and `dtype`) as HostTensorOf says.
  return makeHostTensor(data, shape, options) as HostTensorOf<A, D>;
}

/** What hostTensor makes of an array type (and a Uint8Array's asked dtype). */
export type HostTensorOf<A, D extends 'int32' | 'bool' = 'int32'> = HostTensor<A extends Float32Array ? 'float32' : A extends Int32Array ? 'int32' : D>;

function makeHostTensor(given: unknown, shape: unknown, options: unknown): HostTensor {
  if (!(given instanceof Float32Array || given instanceof Int32Array || given instanceof Uint8Array)) throw new ArgumentError('hostTensor takes a Float32Array, Int32Array or Uint8Array', { op: 'hostTensor' });
  const opts = checkOptions('hostTensor', options);
  checkKeys('hostTensor', opts, ['dtype']);
  const asked = opts['dtype'];
  if (asked !== undefined && !(given instanceof Uint8Array && (asked === 'bool' || asked === 'int32'))) {
    throw new ArgumentError(`dtype ${show(asked)} is not one a ${given.constructor.name} can take`, { op: 'hostTensor', hint: "only a Uint8Array takes a dtype: 'int32' (the default, values 0..255) or 'bool'" });
  }
  const dims: unknown = shape ?? [given.length];
  if (!Array.isArray(dims) || dims.some((d) => !Number.isSafeInteger(d) || d < 0)) throw new ArgumentError('the shape must be an array of integers >= 0', { op: 'hostTensor' });
  const n = dims.reduce((a, b) => a * b, 1);
  if (n !== given.length) throw new ArgumentError(`${given.length} values do not fill shape [${dims.join(', ')}]`, { op: 'hostTensor' });
  if (given instanceof Float32Array) return { dtype: 'float32', shape: [...dims], data: given };
  if (given instanceof Int32Array) return { dtype: 'int32', shape: [...dims], data: given };
  if (asked === 'bool') return { dtype: 'bool', shape: [...dims], data: given };
  return { dtype: 'int32', shape: [...dims], data: Int32Array.from(given) };
}

export function isHostTensor(v: unknown): v is HostTensor {
  if (v === null || typeof v !== 'object') return false;
  const h = v as Partial<HostTensor>;
  return (h.dtype === 'float32' || h.dtype === 'int32' || h.dtype === 'bool') && Array.isArray(h.shape) && ArrayBuffer.isView(h.data);
}

/** The device tensors of a batch: host tensors become tensors of their kind; arrays and objects map through. */
export type Tensors<T, B extends Backend> = T extends HostTensor<'float32'>
  ? Tensor<B, 'float'>
  : T extends HostTensor<'int32'>
    ? Tensor<B, 'int'>
    : T extends HostTensor<'bool'>
      ? Tensor<B, 'bool'>
      : T extends HostTensor
        ? Tensor<B>
        : T extends readonly unknown[]
          ? { -readonly [K in keyof T]: Tensors<T[K], B> }
          : T extends object
            ? { -readonly [K in keyof T]: Tensors<T[K], B> }
            : T;

/** Creates every host tensor of `batch` on `device` (numbers and strings pass through). */
export function toTensors<T, B extends Backend>(backend: B, batch: T, device?: Device): Tensors<T, B> {
  const convert = (v: unknown): unknown => {
    if (isHostTensor(v)) return fromData(backend, v.data, { shape: v.shape, dtype: v.dtype, ...(device ? { device } : {}) });
    if (Array.isArray(v)) return v.map(convert);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, convert(x)]));
    }
    return v;
  };
  return convert(batch) as Tensors<T, B>;
}

/** Every buffer that typed arrays in `value` view (host tensors' data included). */
export function viewedBuffers(value: unknown, out = new Set<ArrayBufferLike>(), seen = new Set<object>()): Set<ArrayBufferLike> {
  if (ArrayBuffer.isView(value)) out.add(value.buffer);
  else if (value !== null && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const v of Object.values(value)) viewedBuffers(v, out, seen);
  }
  return out;
}

const isPlain = (v: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * `batch` ready for postMessage, and its transfer list. A host tensor's buffer is transferred
 * only when its data spans the whole buffer and no sample views it: a collate may return views of
 * the dataset's memory (a pre-batched dataset), and transferring those would detach the dataset's
 * arrays. Other host tensors get a copy of just their data (a clone would copy the whole buffer).
 */
export function forTransfer(batch: unknown, keep: ReadonlySet<ArrayBufferLike>): { batch: unknown; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const walk = (v: unknown): unknown => {
    if (isHostTensor(v)) {
      const b = v.data.buffer;
      const whole = b instanceof ArrayBuffer && v.data.byteOffset === 0 && v.data.byteLength === b.byteLength && !keep.has(b);
      if (whole) {
        if (!transfer.includes(b)) transfer.push(b);
        return v;
      }
      const data = v.data.slice();
      // slice() makes an ArrayBuffer of exactly the data's bytes.
      if (data.buffer instanceof ArrayBuffer) transfer.push(data.buffer);
      return { ...v, data };
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && isPlain(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { batch: walk(batch), transfer };
}
