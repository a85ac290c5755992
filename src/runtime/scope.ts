/**
 * A synchronous scope over a runtime counter (noGrad, autocast): the counter is raised while
 * `fn` runs. Ops after an `await` inside `fn` would run outside it, so an async `fn` is refused.
 */
import { ArgumentError } from '../errors.js';

export function syncScope<T>(op: string, enter: () => void, leave: () => void, fn: () => T, outside: string, hint: string): T {
  if (typeof fn !== 'function') throw new ArgumentError(`${op}() takes a function, got ${fn === null ? 'null' : typeof fn}`, { op, hint });
  enter();
  let result: T;
  try {
    result = fn();
  } finally {
    leave();
  }
  if (result instanceof Promise) {
    throw new ArgumentError(`${op}() takes a synchronous function: ops after an await would ${outside}`, { op, hint });
  }
  return result;
}
