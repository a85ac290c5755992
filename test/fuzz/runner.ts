/**
 * Runs one fuzzed call on a backend and checks what must hold for every input: a rejection is
 * a Switchyard error (thrown at the call or from a read), nothing hangs, the tensors that
 * existed before keep their values (bit for bit), and every storage the call made is freed once
 * its outputs are disposed (the backends' memory() counts return to where they were).
 */
import { expect } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import type { Device } from '../../src/devices/device.js';
import { SwitchyardError } from '../../src/errors.js';
import type { DType, TypedArray } from '../../src/ir/dtype.js';
import { arange, fromData, full, fullLike, ones, random, zeros } from '../../src/tensor/creation.js';
import { Tensor } from '../../src/tensor/tensor.js';
import type { ArgSpec, Call, TensorSpec } from './ops.js';

export interface Fixture {
  readonly name: string;
  readonly backend: Backend;
  /** Another backend: its tensors are foreign to `backend`. */
  readonly foreign: Backend;
  /** A second device of `backend` (a Router's other backend), if it has one. */
  readonly otherDevice: Device | undefined;
  /** Storages live on every device the fixture uses. */
  live(): number;
}

/** Waits at most `ms` (a hang becomes a failure that names the call, not a stuck test run). */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const HANG_MS = 60_000;

function valuesFor(spec: TensorSpec): TypedArray {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const [lo, hi] = spec.range ?? [-3, 4];
  const at = (i: number) => lo + ((i * 7 + spec.seed) % (hi - lo + 1));
  if (spec.dtype === 'float32' || spec.dtype === 'float16') return Float32Array.from({ length: n }, (_, i) => (i % 5 === 4 ? at(i) + 0.5 : at(i)));
  if (spec.dtype === 'int32') return Int32Array.from({ length: n }, (_, i) => at(i));
  return Uint8Array.from({ length: n }, (_, i) => ((i + spec.seed) % 3 === 0 ? 1 : 0));
}

function make(fx: Fixture, spec: TensorSpec): Tensor<Backend> {
  const backend = spec.mode === 'foreign' ? fx.foreign : fx.backend;
  const device = spec.mode === 'otherDevice' ? fx.otherDevice : undefined;
  const dtype: DType = spec.dtype;
  const t = fromData(backend, valuesFor(spec), { shape: spec.shape, dtype, ...(device ? { device } : {}) });
  if (spec.mode === 'disposed') t.dispose();
  return t;
}

const STATIC_FNS: Record<string, (...args: unknown[]) => unknown> = {
  cat: (...a) => Reflect.apply(Tensor.cat, Tensor, a),
  stack: (...a) => Reflect.apply(Tensor.stack, Tensor, a),
  where: (...a) => Reflect.apply(Tensor.where, Tensor, a),
  fullLike: (...a) => Reflect.apply(fullLike, undefined, a),
  einsum: (...a) => Reflect.apply(Tensor.einsum, Tensor, a),
};
const CREATE_FNS: Record<string, (...args: unknown[]) => unknown> = {
  fromData: (...a) => Reflect.apply(fromData, undefined, a),
  full: (...a) => Reflect.apply(full, undefined, a),
  zeros: (...a) => Reflect.apply(zeros, undefined, a),
  ones: (...a) => Reflect.apply(ones, undefined, a),
  arange: (...a) => Reflect.apply(arange, undefined, a),
  random: (...a) => Reflect.apply(random, undefined, a),
};

function bytes(values: TypedArray): number[] {
  return Array.from(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

function describeCall(call: Call): string {
  const arg = (a: ArgSpec): string => {
    if (a.t === 'tensor') return `${a.mode === 'ok' ? '' : a.mode + ' '}${a.dtype}[${a.shape.join(',')}]`;
    if (a.t === 'tensors') return `[${a.items.map(arg).join(', ')}]`;
    if (a.t === 'device') return `device:${a.which}`;
    if (typeof a.v === 'function') return 'fn';
    if (typeof a.v === 'symbol') return 'symbol';
    if (typeof a.v === 'bigint') return `${a.v}n`;
    try {
      return JSON.stringify(a.v, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? typeof a.v;
    } catch {
      return typeof a.v;
    }
  };
  const head = call.kind === 'method' ? `${arg(call.receiver!)}.${call.op}` : call.kind === 'static' ? `Tensor.${call.op}` : `${call.op}(backend, `;
  return `${head}${call.kind === 'create' ? '' : '('}${call.args.map(arg).join(', ')})`;
}

/** Runs `call` on `fx` and checks the invariants; throws (an expect failure) when one breaks. */
export async function check(fx: Fixture, call: Call): Promise<string> {
  const what = `${fx.name}: ${describeCall(call)}`;
  const start = fx.live();
  const made: Array<Tensor<Backend>> = [];
  const tensor = (spec: TensorSpec): Tensor<Backend> => {
    const t = make(fx, spec);
    made.push(t);
    return t;
  };
  const resolve = (a: ArgSpec): unknown => {
    switch (a.t) {
      case 'tensor':
        return tensor(a);
      case 'tensors':
        return a.items.map(tensor);
      case 'device':
        return a.which === 'own' ? fx.backend.defaultDevice() : a.which === 'other' ? (fx.otherDevice ?? fx.foreign.defaultDevice()) : 'cpu';
      case 'value':
        return a.v;
    }
  };
  const receiver = call.receiver ? tensor(call.receiver) : undefined;
  const args = call.args.map(resolve);
  const witness = fromData(fx.backend, Float32Array.from([1.5, -2, NaN, -0]));
  made.push(witness);
  const watched = made.filter((t) => !t.isDisposed);
  const before = await within(Promise.all(watched.map(async (t) => bytes((await t.toData()).values))), HANG_MS, `reading the inputs of ${what}`);
  const baseline = fx.live();

  let error: unknown;
  let result: unknown;
  try {
    if (call.kind === 'method') {
      const fn: unknown = Reflect.get(receiver!, call.op);
      if (typeof fn !== 'function') throw new Error(`no method ${call.op}`);
      result = Reflect.apply(fn, receiver, args);
    } else if (call.kind === 'static') result = STATIC_FNS[call.op]!(...args);
    else result = CREATE_FNS[call.op]!(fx.backend, ...args);
  } catch (e) {
    error = e;
  }

  const outputs: Array<Tensor<Backend>> = [];
  if (error === undefined && result instanceof Promise) {
    // The async ops (nonzero, maskedSelect, unique): their tensors are read and freed as the others'.
    try {
      result = await within(result, HANG_MS, what);
    } catch (e) {
      error = e;
    }
  }
  if (error === undefined) {
    if (result instanceof Tensor) {
      outputs.push(result);
    } else if (Array.isArray(result)) {
      for (const r of result) if (r instanceof Tensor) outputs.push(r);
    } else if (result !== null && typeof result === 'object') {
      // { values, indices } of sort / topk / maxWithIndices
      for (const r of Object.values(result)) if (r instanceof Tensor) outputs.push(r);
    }
  }
  if (error !== undefined && !(error instanceof SwitchyardError)) {
    throw new Error(`${what} threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}, not a Switchyard error`, { cause: error });
  }
  let outcome = error === undefined ? 'ok' : `rejected: ${(error as Error).name}`;
  for (const o of outputs) {
    try {
      const data = await within(o.toData(), HANG_MS, `reading the result of ${what}`);
      expect(data.values.length, what).toBe(o.size);
      expect(data.shape, what).toEqual(o.shape);
    } catch (e) {
      if (!(e instanceof SwitchyardError)) throw new Error(`reading the result of ${what} failed with ${String(e)}, not a Switchyard error`, { cause: e });
      outcome = `read rejected: ${e.name}`;
    }
    o.dispose();
  }

  const after = await within(Promise.all(watched.map(async (t) => bytes((await t.toData()).values))), HANG_MS, `reading the inputs after ${what}`);
  expect(after, `${what}: the inputs and an unrelated tensor keep their values`).toEqual(before);
  // A failed output can reject while a sibling branch of its graph still runs on the pool; its
  // storages are freed when that work ends, so wait for the scheduler (a hang still fails here).
  await within(fx.backend.runtime.scheduler.flush(), HANG_MS, `the ops of ${what} finishing`);
  expect(fx.live(), `${what}: storages live after disposing its outputs`).toBe(baseline);
  for (const t of made) t.dispose();
  expect(fx.live(), `${what}: storages live after disposing everything`).toBe(start);
  return outcome;
}
