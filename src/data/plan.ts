/** Which samples go in which batch, per epoch: the shared plan of both loaders. */
import { checkOptions, show } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';
import { epochSeed, seededPermutation } from './shuffle.js';

export interface PlanOptions {
  /** Samples per batch (default 1). */
  batchSize?: number;
  /** A new order every epoch (default false: dataset order). */
  shuffle?: boolean;
  /** The shuffle's seed (default 0): epoch e's order is a pure function of (seed, e). */
  seed?: number;
  /** Leave out a last batch smaller than batchSize (default false). */
  dropLast?: boolean;
}

export function checkPlan(op: string, o: PlanOptions): void {
  const b = checkOptions(op, o)['batchSize'] ?? 1;
  if (typeof b !== 'number' || !Number.isInteger(b) || b < 1) throw new ArgumentError(`batchSize must be a positive integer, got ${show(b)}`, { op });
}

export function batchCount(length: number, o: PlanOptions): number {
  const b = o.batchSize ?? 1;
  return o.dropLast ? Math.floor(length / b) : Math.ceil(length / b);
}

/** The sample indices of every batch of epoch `epoch`. */
export function planBatches(length: number, epoch: number, o: PlanOptions): Int32Array[] {
  const b = o.batchSize ?? 1;
  const order = o.shuffle ? seededPermutation(length, epochSeed(o.seed ?? 0, epoch)) : Int32Array.from({ length }, (_, i) => i);
  return Array.from({ length: batchCount(length, o) }, (_, i) => order.subarray(i * b, Math.min(length, (i + 1) * b)));
}
