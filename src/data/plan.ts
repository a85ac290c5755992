/** Which samples go in which batch, per epoch: the shared plan of both loaders. */
import { checkBoolean, checkInteger, checkKeys, checkOptions, show } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import { epochSeed, seed32, seededPermutation } from './shuffle.js';

export interface PlanOptions {
  /** Samples per batch (default 1). */
  batchSize?: number;
  /** A new order every epoch (default false: dataset order). */
  shuffle?: boolean;
  /** The shuffle's seed, a safe integer (default 0): epoch e's order is a pure function of (seed, e). */
  seed?: number;
  /** Leave out a last batch smaller than batchSize (default false). */
  dropLast?: boolean;
}

export const PLAN_KEYS = ['batchSize', 'shuffle', 'seed', 'dropLast'] as const;

/** A loader's options: `known` are its keys besides the plan's (an unknown key is refused, as torch refuses an unknown keyword). */
export function checkPlan(op: string, o: PlanOptions, known: readonly string[]): void {
  const opts = checkOptions(op, o);
  checkKeys(op, opts, [...PLAN_KEYS, ...known]);
  const b = opts['batchSize'] ?? 1;
  if (typeof b !== 'number' || !Number.isInteger(b) || b < 1) throw new ArgumentError(`batchSize must be a positive integer, got ${show(b)}`, { op });
  for (const k of ['shuffle', 'dropLast'] as const) if (opts[k] !== undefined) checkBoolean(op, k, opts[k]);
  if (opts['seed'] !== undefined) checkInteger(op, 'seed', opts['seed']);
}

/** A map-style dataset: `length` an integer >= 0 and a `get` function (checked for untyped callers). */
export function checkDataset(op: string, ds: unknown): void {
  const length: unknown = ds !== null && typeof ds === 'object' ? Reflect.get(ds, 'length') : undefined;
  const get: unknown = ds !== null && typeof ds === 'object' ? Reflect.get(ds, 'get') : undefined;
  if (typeof get !== 'function' || typeof length !== 'number') {
    throw new ArgumentError(`${op} takes a dataset (an object with length and get(i)), got ${show(ds)}`, { op, hint: 'e.g. { length: n, get: (i) => sample } or a data.TensorDataset' });
  }
  if (!Number.isSafeInteger(length) || length < 0) throw new ArgumentError(`the dataset's length must be an integer >= 0, got ${show(length)}`, { op });
}

export function batchCount(length: number, o: PlanOptions): number {
  const b = o.batchSize ?? 1;
  return o.dropLast ? Math.floor(length / b) : Math.ceil(length / b);
}

/** The sample indices of every batch of epoch `epoch`. */
export function planBatches(length: number, epoch: number, o: PlanOptions): Int32Array[] {
  const b = o.batchSize ?? 1;
  const order = o.shuffle ? seededPermutation(length, epochSeed(seed32(o.seed ?? 0), epoch)) : Int32Array.from({ length }, (_, i) => i);
  return Array.from({ length: batchCount(length, o) }, (_, i) => order.subarray(i * b, Math.min(length, (i + 1) * b)));
}
