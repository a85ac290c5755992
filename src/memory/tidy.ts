/**
 * Scopes in the manner of TensorFlow.js: `tidy(fn)` frees every tensor created inside `fn`
 * except those it returns (found anywhere in arrays, plain objects and Maps) and those passed
 * to `keep`. Scopes nest; kept tensors belong to the enclosing scope.
 */
import { field } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import { Runtime, type Disposable } from '../runtime/runtime.js';

export type { Disposable } from '../runtime/runtime.js';

const kept = new WeakSet<Disposable>();

/** Called by every tensor at creation (scopes of its backend's runtime; the default runtime when none is given). */
export function track(t: Disposable, runtime: Runtime = Runtime.default): void {
  const scopes = runtime.scopes;
  scopes[scopes.length - 1]?.add(t);
}

/** Exempts a tensor from the enclosing tidy scopes. */
export function keep<T extends Disposable>(t: T, runtime: Runtime = Runtime.default): T {
  if (typeof field(t, 'dispose') !== 'function') throw new ArgumentError('keep() takes a tensor (or anything with dispose())', { op: 'keep' });
  if (!(runtime instanceof Runtime)) throw new ArgumentError('the runtime must be a Runtime (backend.runtime)', { op: 'keep' });
  kept.add(t);
  for (const s of runtime.scopes) s.delete(t);
  return t;
}

function collect(value: unknown, out: Set<Disposable>, seen: Set<unknown>): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (isDisposable(value)) {
    out.add(value);
    return;
  }
  if (Array.isArray(value)) for (const v of value) collect(v, out, seen);
  else if (value instanceof Map) for (const v of value.values()) collect(v, out, seen);
  else if (Object.getPrototypeOf(value) === Object.prototype) for (const v of Object.values(value)) collect(v, out, seen);
}

function isDisposable(v: object): v is Disposable {
  return typeof (v as Partial<Disposable>).dispose === 'function' && 'isDisposed' in v;
}

export function tidy<T>(fn: () => T, runtime: Runtime = Runtime.default): T {
  if (typeof fn !== 'function') throw new ArgumentError(`tidy() takes a function, got ${fn === null ? 'null' : typeof fn}`, { op: 'tidy', hint: 'tidy(() => { ... }): tensors made inside and not returned are disposed' });
  if (!(runtime instanceof Runtime)) throw new ArgumentError('the runtime must be a Runtime (backend.runtime)', { op: 'tidy' });
  const scopes = runtime.scopes;
  const scope = new Set<Disposable>();
  scopes.push(scope);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    scopes.pop();
    for (const t of scope) if (!kept.has(t)) t.dispose();
    throw e;
  }
  scopes.pop();
  if (result instanceof Promise) {
    for (const t of scope) if (!kept.has(t)) t.dispose();
    throw new ArgumentError('tidy() takes a synchronous function: tensors used after an await would already be freed', {
      op: 'tidy',
      hint: 'build the tensors inside tidy(), and await their reads outside it',
    });
  }
  const returned = new Set<Disposable>();
  collect(result, returned, new Set());
  const parent = scopes[scopes.length - 1];
  for (const t of scope) {
    if (returned.has(t) || kept.has(t)) parent?.add(t);
    else t.dispose();
  }
  return result;
}
