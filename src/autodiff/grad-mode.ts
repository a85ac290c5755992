/** The no-grad scope: ops run inside `noGrad(fn)` are not recorded on any tape. */
import { ArgumentError } from '../errors.js';
import { Runtime } from '../runtime/runtime.js';

export function isGradEnabled(runtime: Runtime = Runtime.default): boolean {
  return runtime.gradEnabled;
}

/**
 * Runs `fn` without recording gradients (evaluation, optimizer updates). Synchronous only: the
 * scope is a counter, and ops after an `await` would run outside it.
 */
export function noGrad<T>(fn: () => T, runtime: Runtime = Runtime.default): T {
  runtime.noGradDepth++;
  let result: T;
  try {
    result = fn();
  } finally {
    runtime.noGradDepth--;
  }
  if (result instanceof Promise) {
    throw new ArgumentError('noGrad() takes a synchronous function: ops after an await would be recorded', {
      op: 'noGrad',
      hint: 'build the tensors inside noGrad(), and await their reads outside it',
    });
  }
  return result;
}
