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

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

/** Not for users to call with arbitrary arguments: internals exported for types, and the op-record builders. */
const SKIP = new Set([
  'ArgumentError', 'CaptureError', 'DTypeError', 'DeviceError', 'DisposedError', 'KernelError', 'ShapeError', 'SwitchyardError',
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
