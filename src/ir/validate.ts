/**
 * Argument checks for the public API. TypeScript callers get most of this from the types;
 * these run for everyone (plain JavaScript passes anything), so a bad argument is a typed
 * Switchyard error at the call that names the op, the argument and what was given.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, DTypeError } from '../errors.js';
import { coerce, DTYPES, type DType } from './dtype.js';

/** The most dims a tensor may have: every kernel of every backend handles this many. */
export const MAX_RANK = 12;
/** The most elements a tensor may hold (WGSL indexes with u32; the largest typed array in V8). */
export const MAX_ELEMENTS = 2 ** 32 - 1;

/** A short description of a value for messages: `NaN`, `"3" (a string)`, `an object`. */
export function show(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (typeof v === 'string') return `${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)} (a string)`;
  if (typeof v === 'bigint') return `${v}n (a bigint)`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== 'Object' ? `a ${name}` : 'an object';
}

/** `v[name]` when `v` is an object (untyped callers: a missing or primitive argument gives undefined). */
export function field(v: unknown, name: string): unknown {
  return typeof v === 'object' && v !== null ? Reflect.get(v, name) : undefined;
}

/** An integer in [min, max] (a safe integer: never NaN, a fraction or beyond 2^53). */
export function checkInteger(op: string, name: string, v: unknown, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    const range = min === Number.MIN_SAFE_INTEGER ? (max === Number.MAX_SAFE_INTEGER ? '' : ` <= ${max}`) : max === Number.MAX_SAFE_INTEGER ? ` >= ${min}` : ` in [${min}, ${max}]`;
    throw new ArgumentError(`${name} must be an integer${range}, got ${show(v)}`, { op });
  }
  return v;
}

/** A list of integers (shifts, pads, dims). */
export function checkIntegers(op: string, name: string, v: readonly unknown[]): number[] {
  const out: number[] = [];
  for (const x of v) {
    if (typeof x !== 'number' || !Number.isSafeInteger(x)) throw new ArgumentError(`${name} must be integers, got ${show(x)}`, { op });
    out.push(x);
  }
  return out;
}

/** A number; `finite` also rules out NaN and the infinities. */
export function checkNumber(op: string, name: string, v: unknown, finite = false): number {
  if (typeof v !== 'number' || (finite && !Number.isFinite(v))) {
    throw new ArgumentError(`${name} must be a ${finite ? 'finite ' : ''}number, got ${show(v)}`, { op });
  }
  return v;
}

/**
 * A number an int32 tensor can hold: finite and in [-2^31, 2^31 - 1] (a fraction truncates toward
 * zero where the op allows one). NaN, the infinities and numbers past the range would be changed
 * silently (0, or wrapped); PyTorch refuses them too ("cannot be converted without overflow").
 */
export function checkInt32Value(op: string, v: number): number {
  if (!(Number.isFinite(v) && v > -(2 ** 31) - 1 && v < 2 ** 31)) {
    throw new DTypeError(`${v} does not fit an int32 tensor (finite values in [-2^31, 2^31 - 1])`, { op, dtypes: ['int32'], hint: 'cast the tensor with .cast("float32") first' });
  }
  return v;
}

/**
 * The scalar of an arithmetic op on a tensor of `dtype`, as the op's record holds it: an int32
 * tensor takes only integers it can hold (torch refuses 0.5 with an int tensor in place; we do
 * not promote), and the value is rounded to the tensor's dtype, as PyTorch's wrapped numbers are.
 */
export function arithScalar(op: string, dtype: DType, v: number): number {
  if (dtype === 'int32' && !Number.isInteger(v) && Number.isFinite(v)) {
    throw new DTypeError(`a non-integer scalar ${v} with an int32 tensor`, { op, dtypes: [dtype], hint: 'cast the tensor with .cast("float32") first' });
  }
  if (dtype === 'int32') checkInt32Value(op, v);
  return coerce(dtype, v);
}

/** One of a few strings (a mode, a kind): a typo is refused, never read as the other choice. */
export function checkChoice<T extends string>(op: string, name: string, v: unknown, choices: readonly T[]): T {
  const found = choices.find((c) => c === v);
  if (found === undefined) throw new ArgumentError(`${name} must be ${choices.map((c) => `'${c}'`).join(' or ')}, got ${show(v)}`, { op });
  return found;
}

export function checkBoolean(op: string, name: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new ArgumentError(`${name} must be true or false, got ${show(v)}`, { op });
  return v;
}

export function isDType(v: unknown): v is DType {
  return typeof v === 'string' && (DTYPES as readonly string[]).includes(v);
}

export function checkDType(op: string, v: unknown): DType {
  if (!isDType(v)) {
    throw new DTypeError(`unknown dtype ${show(v)}`, { op, dtypes: [show(v)], hint: `Switchyard has ${DTYPES.join(', ')}; see the README, section The API` });
  }
  return v;
}

/** An options argument: undefined or a plain object. */
export function checkOptions(op: string, v: unknown): Record<string, unknown> {
  if (v === undefined) return {};
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ArgumentError(`options must be an object, got ${show(v)}`, { op });
  return v as Record<string, unknown>;
}

/**
 * Options objects of settings (optimizers, schedulers): a key the op does not know is refused,
 * as PyTorch refuses an unknown keyword, instead of being ignored (`maximize`, `weight_decay`).
 */
export function checkKeys(op: string, v: unknown, known: readonly string[]): void {
  if (typeof v !== 'object' || v === null) return;
  for (const key of Object.keys(v)) {
    if (known.includes(key)) continue;
    const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    const near = known.find((k) => k.toLowerCase() === camel.toLowerCase());
    throw new ArgumentError(`unknown option '${key}'${near ? ` (did you mean '${near}'?)` : ''}`, { op, hint: `${op} takes ${known.map((k) => `'${k}'`).join(', ')}` });
  }
}

/** An array (of anything): what a shape, a dim list or a tensor list must be. */
export function checkArray(op: string, name: string, v: unknown): readonly unknown[] {
  if (!Array.isArray(v)) throw new ArgumentError(`${name} must be an array, got ${show(v)}`, { op });
  return v;
}

/** A backend object (Cpu, Wgpu, Router, Autodiff...): what creation functions take first. */
export function checkBackend<B extends Backend>(op: string, v: B): B {
  const o = v as unknown as Partial<Record<keyof Backend, unknown>> | null;
  if (o === null || typeof o !== 'object' || typeof o.submit !== 'function' || typeof o.defaultDevice !== 'function') {
    throw new ArgumentError(`the first argument must be a backend (new Cpu(), await Wgpu.create(), a Router...), got ${show(v)}`, { op });
  }
  return v;
}

/** A device tag ({ backend, key }, as CpuDevice / WgpuDevice / MultiDevice make); whose it is, the backend checks. */
export function checkDevice(op: string, v: unknown): Device {
  const o = v as { backend?: unknown; key?: unknown } | null;
  if (o === null || typeof o !== 'object' || typeof o.backend !== 'string' || typeof o.key !== 'string') {
    throw new ArgumentError(`device must be a device tag such as CpuDevice.Cpu or WgpuDevice.Default, got ${show(v)}`, { op });
  }
  return o as Device;
}
