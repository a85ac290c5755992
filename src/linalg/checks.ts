/** Argument checks shared by the linalg ops: every refusal names the op, the shapes and a way out. */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, DeviceError, ShapeError } from '../errors.js';
import { show } from '../ir/validate.js';
import { broadcastShapes } from '../ir/shape.js';
import { checkTensor, Tensor } from '../tensor/tensor.js';

export type F<B extends Backend> = Tensor<B, 'float'>;

/** A float32 tensor of rank >= 2 (any float16 / int / bool is refused: torch.linalg refuses them on the CPU too). */
export function checkMatrix(op: string, name: string, v: unknown): void {
  checkTensor(op, name, v);
  if (!(v instanceof Tensor)) return;
  const t: Tensor = v;
  t.live(op);
  if (t.dtype !== 'float32') {
    throw new DTypeError(`${name} must be float32, got ${t.dtype}`, { op, dtypes: [t.dtype], hint: t.dtype === 'float16' ? 'cast with .cast("float32") and back: the column loop loses too much in float16' : 'cast with .cast("float32") first' });
  }
  if (t.rank < 2) throw new ShapeError(`${name} must be a matrix or a batch of matrices [..., m, n], got rank ${t.rank}`, { op, shapes: [t.shape], hint: 'unsqueeze a vector to [n, 1]' });
}

/** checkMatrix, square. */
export function checkSquare(op: string, name: string, v: unknown): void {
  checkMatrix(op, name, v);
  if (!(v instanceof Tensor)) return;
  const s: readonly number[] = v.shape;
  const m = s[s.length - 2]!;
  const n = s[s.length - 1]!;
  if (m !== n) throw new ShapeError(`${name} must be square [..., n, n], got [..., ${m}, ${n}]`, { op, shapes: [s], hint: 'these ops take square matrices in the last two dims' });
}

/** The broadcast of the batch dims (all but the last two) of a and b. */
export function batchOf(op: string, a: readonly number[], b: readonly number[]): number[] {
  try {
    return broadcastShapes(op, a.slice(0, -2), b.slice(0, -2));
  } catch {
    throw new ShapeError(`the batch dims [${a.slice(0, -2).join(', ')}] and [${b.slice(0, -2).join(', ')}] do not broadcast`, { op, shapes: [a, b], hint: 'batch dims must be equal or 1, aligned from the right' });
  }
}

/** An options object (or nothing) whose named fields are booleans or absent. */
export function boolOptions(op: string, v: unknown, keys: readonly string[]): Record<string, boolean | undefined> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ArgumentError(`options must be an object, got ${show(v)}`, { op, hint: `{ ${keys.join(', ')} } (booleans)` });
  const out: Record<string, boolean | undefined> = {};
  for (const k of keys) {
    const x: unknown = Reflect.get(v, k);
    if (x !== undefined && typeof x !== 'boolean') throw new ArgumentError(`option ${k} must be a boolean, got ${show(x)}`, { op });
    out[k] = x === undefined ? undefined : x;
  }
  return out;
}

/** a and b of one dtype (both float32 after checkMatrix, kept for when float64 comes) on one device. */
export function sameDType(op: string, a: F<Backend>, b: F<Backend>): void {
  if (a.dtype !== b.dtype) throw new DTypeError(`dtypes differ: ${a.dtype} and ${b.dtype}`, { op, dtypes: [a.dtype, b.dtype], hint: 'cast one of them' });
  if (a.device.key !== b.device.key) throw new DeviceError('A and B are on different devices', { op, devices: [a.device.key, b.device.key], hint: 'move one with toDevice (on a Router) first' });
}
