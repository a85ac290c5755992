/**
 * The autocast scope (as torch.autocast): inside `autocast(fn)`, matmuls of float32 operands run
 * in float16 (inputs rounded to float16, products accumulated in float32 by the kernels) and
 * return float32, so float32 weights stay the master copy and the rest of the model is
 * unchanged. Gradients flow back through the casts: float32 weights get float32 gradients.
 */
import { ArgumentError } from '../errors.js';
import { checkOptions } from '../ir/validate.js';
import { Runtime } from '../runtime/runtime.js';
import { syncScope } from '../runtime/scope.js';

export interface AutocastOptions {
  /** The runtime whose ops the scope covers (default: this thread's). */
  readonly runtime?: Runtime;
}

export function isAutocastEnabled(runtime: Runtime = Runtime.default): boolean {
  if (!(runtime instanceof Runtime)) throw new ArgumentError('the runtime must be a Runtime (backend.runtime)', { op: 'isAutocastEnabled' });
  return runtime.autocastDepth > 0;
}

/** Runs `fn` with float16 matmuls. Synchronous only, as `noGrad`: ops after an await would run outside it. */
export function autocast<T>(fn: () => T, options: AutocastOptions = {}): T {
  checkOptions('autocast', options);
  const runtime = options.runtime ?? Runtime.default;
  return syncScope(
    'autocast',
    () => runtime.autocastDepth++,
    () => runtime.autocastDepth--,
    fn,
    'run in float32',
    'build the forward pass inside autocast(), and await reads outside it',
  );
}
