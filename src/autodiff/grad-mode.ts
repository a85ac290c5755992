/** The no-grad scope: ops run inside `noGrad(fn)` are not recorded on any tape. */
import { ArgumentError } from '../errors.js';
import { Runtime } from '../runtime/runtime.js';
import { syncScope } from '../runtime/scope.js';

export function isGradEnabled(runtime: Runtime = Runtime.default): boolean {
  if (!(runtime instanceof Runtime)) throw new ArgumentError('the runtime must be a Runtime (backend.runtime)', { op: 'isGradEnabled' });
  return runtime.gradEnabled;
}

/**
 * Runs `fn` without recording gradients (evaluation, optimizer updates). Synchronous only: the
 * scope is a counter, and ops after an `await` would run outside it.
 */
export function noGrad<T>(fn: () => T, runtime: Runtime = Runtime.default): T {
  return syncScope(
    'noGrad',
    () => runtime.noGradDepth++,
    () => runtime.noGradDepth--,
    fn,
    'be recorded',
    'build the tensors inside noGrad(), and await their reads outside it',
  );
}
