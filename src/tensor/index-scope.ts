/** The scope that names a public function as the caller of the index ops it records (see src/ir/index-caller.ts). */
import type { IndexCaller } from '../ir/index-caller.js';

let current: IndexCaller | undefined;

/**
 * Runs `fn` with `caller` named on the index ops it records. The outermost scope wins: a public
 * function calling another (multiMarginLoss calling oneHot) is still the one the user called.
 */
export function asIndexCaller<T>(caller: IndexCaller | undefined, fn: () => T): T {
  if (caller === undefined || current !== undefined) return fn();
  current = caller;
  try {
    return fn();
  } finally {
    current = undefined;
  }
}

/** The attrs of an index op, with the scope's caller when there is one (no key otherwise: records stay as they were). */
export function indexAttrs(dim: number): { readonly dim: number; readonly caller?: IndexCaller } {
  return current === undefined ? { dim } : { dim, caller: current };
}
