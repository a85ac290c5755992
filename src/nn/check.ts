/** Argument checks shared by layers and losses, for untyped JavaScript callers. */
import { ArgumentError } from '../errors.js';
import type { Backend } from '../backends/backend.js';
import { checkBackend, checkOptions, show } from '../ir/validate.js';
import { Tensor } from '../tensor/tensor.js';

/** Each named value must be a tensor: else an ArgumentError naming the op and the argument. */
export function checkTensors(op: string, args: Readonly<Record<string, unknown>>): void {
  for (const [name, v] of Object.entries(args)) {
    if (!(v instanceof Tensor)) throw new ArgumentError(`${name} must be a tensor, got ${show(v)}`, { op, hint: 'make one with fromData(backend, values)' });
  }
}

/** A layer's backend and options (an object or undefined), for untyped callers. */
export function checkLayer<B extends Backend>(op: string, backend: B, options: unknown): void {
  checkBackend(op, backend);
  checkOptions(op, options);
}

/** An eps: a finite number >= 0. */
export function checkEps(op: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ArgumentError(`eps must be a finite number >= 0, got ${show(v)}`, { op });
  return v;
}

/** Each named value must be a tensor or undefined (optional tensors: bias, weight, masks). */
export function checkOptionalTensors(op: string, args: Readonly<Record<string, unknown>>): void {
  for (const [name, v] of Object.entries(args)) {
    if (v !== undefined && !(v instanceof Tensor)) throw new ArgumentError(`${name} must be a tensor or undefined, got ${show(v)}`, { op, hint: 'make one with fromData(backend, values)' });
  }
}
