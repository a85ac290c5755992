/**
 * Every public entry point called the way plain JavaScript can: a missing, null, string, object
 * or NaN argument where a backend, tensor, options object or number belongs. Each call must
 * succeed or throw (or reject with) a Switchyard error naming it: never a bare TypeError from
 * deep inside. Internal constructors and the IR builders are left out (listed below).
 */
import { afterAll, expect, test } from 'vitest';
import * as api from '../../src/index.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { SwitchyardError } from '../../src/errors.js';
import { untyped } from '../untyped.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

/** Not for users to call with arbitrary arguments: internals exported for types, and the op-record builders. */
const SKIP = new Set([
  'ArgumentError', 'CaptureError', 'DTypeError', 'DeviceError', 'DisposedError', 'KernelError', 'ShapeError', 'SubscriberError', 'SwitchyardError',
  'Tensor', 'Gradients', 'Scheduler', 'buildOp', 'buildCreation', 'buildTransfer', 'heft', 'clock.now',
  // These start threads or processes (their bad input is tested in test/parallel and test/data).
  'DataParallel', 'parallel.DataParallel', 'data.WorkerDataLoader',
]);

function entries(): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [name, v] of Object.entries(api)) {
    if (typeof v === 'function') out.push([name, v]);
    else if (typeof v === 'object' && v !== null) for (const [inner, w] of Object.entries(v)) if (typeof w === 'function') out.push([`${name}.${inner}`, w]);
  }
  return out.filter(([name]) => !SKIP.has(name));
}

const firsts: Array<[string, () => unknown]> = [['undefined', () => undefined], ['null', () => null], ['a backend', () => cpu], ["'x'", () => 'x']];
const seconds: Array<[string, () => unknown]> = [['undefined', () => undefined], ['null', () => null], ['{}', () => ({})], ['NaN', () => NaN]];

test('no public entry point throws a bare TypeError (or RangeError) on arguments of the wrong kind', async () => {
  const bare: string[] = [];
  for (const [name, fn] of entries()) {
    const isClass = /^class\b/.test(Function.prototype.toString.call(fn));
    for (const [a, first] of firsts) {
      for (const [b, second] of seconds) {
        const args = [first(), second()];
        let result: unknown;
        try {
          result = isClass ? Reflect.construct(fn as new (...x: unknown[]) => unknown, args) : Reflect.apply(fn as (...x: unknown[]) => unknown, undefined, args);
          if (result instanceof Promise) result = await Promise.race([result, new Promise((resolve) => setTimeout(resolve, 2000))]);
        } catch (e) {
          if (!(e instanceof SwitchyardError)) bare.push(`${name}(${a}, ${b}): ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
        }
        const close = typeof result === 'object' && result !== null ? Reflect.get(result, 'close') : undefined;
        if (typeof close === 'function' && result !== cpu) await Promise.resolve(Reflect.apply(close, result, [])).catch(() => undefined);
      }
    }
  }
  expect(bare).toEqual([]);
}, 120_000);

test("a class's options given as null or a string after valid leading arguments is a Switchyard error, not a TypeError", () => {
  const bare: string[] = [];
  for (const [name, fn] of entries()) {
    // Error classes are made by the library, with its own arguments.
    if (!/^class\b/.test(Function.prototype.toString.call(fn)) || (typeof fn === 'function' && fn.prototype instanceof Error)) continue;
    // The backend, then 0 to 5 sizes of 2 (channels, features, kernel sizes), then the bad options.
    for (let n = 0; n <= 5; n++) {
      for (const bad of [null, 'x']) {
        const args: unknown[] = [cpu, ...new Array<number>(n).fill(2), bad];
        try {
          const made: unknown = Reflect.construct(fn as new (...x: unknown[]) => unknown, args);
          const close = typeof made === 'object' && made !== null && made !== cpu ? Reflect.get(made, 'close') : undefined;
          if (typeof close === 'function') void Promise.resolve(Reflect.apply(close, made, [])).catch(() => undefined);
        } catch (e) {
          if (!(e instanceof SwitchyardError)) bare.push(`${name}(cpu, ${n} x 2, ${String(bad)}): ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
        }
      }
    }
  }
  expect(bare).toEqual([]);
  // The layers the review named, with the message.
  const made: Array<[string, () => unknown]> = [
    ['Conv3d', () => new api.nn.Conv3d(cpu, 2, 3, 3, untyped(null))],
    ['ConvTranspose3d', () => new api.nn.ConvTranspose3d(cpu, 2, 3, 3, untyped(null))],
    ['Conv2d', () => new api.nn.Conv2d(cpu, 2, 3, 3, untyped(null))],
    ['RNN', () => new api.nn.RNN(cpu, 2, 3, untyped(null))],
    ['LSTM', () => new api.nn.LSTM(cpu, 2, 3, untyped(null))],
    ['GRU', () => new api.nn.GRU(cpu, 2, 3, untyped(null))],
    ['Linear', () => new api.nn.Linear(cpu, 2, 3, untyped(null))],
    ['Embedding', () => new api.nn.Embedding(cpu, 2, 3, untyped(null))],
  ];
  for (const [op, make] of made) expect(make).toThrow(new RegExp(`^${op}: options must be an object, got null`));
});
