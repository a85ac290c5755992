/**
 * Tensor and op ids, unique across runtimes: each runtime has a prefix (the worker thread's id by
 * default, 0 on the main thread) and counts below 2^32 within it, so records made by runtimes in
 * several worker threads can be merged without collisions. Ids stay below 2^53 (plain numbers).
 */
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';

const SPAN = 2 ** 32;
/** Prefixes keep ids below 2^53. */
export const MAX_PREFIX = 2 ** 21 - 1;

export class IdSource {
  private nextTensor = 1;
  private nextOp = 1;
  private readonly base: number;

  constructor(readonly prefix: number) {
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > MAX_PREFIX) {
      throw new ArgumentError(`a runtime id prefix must be an integer in [0, ${MAX_PREFIX}], got ${show(prefix)}`, { op: 'Runtime' });
    }
    this.base = prefix * SPAN;
  }

  tensor(): number {
    return this.base + this.nextTensor++;
  }

  op(): number {
    return this.base + this.nextOp++;
  }

  /** The prefix of the runtime that made an id. */
  static prefixOf(id: number): number {
    return Math.floor(id / SPAN);
  }
}

/** This thread's default prefix: its worker thread id in Node (0 on the main thread), random in browsers. */
export function threadPrefix(): number {
  const proc = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown; versions?: { node?: string } } }).process;
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as { threadId?: number } | undefined;
  if (wt && typeof wt.threadId === 'number') return wt.threadId % (MAX_PREFIX + 1);
  // Browsers: the window is 0; a web worker draws one (collisions need a prefix set explicitly).
  const isWindow = typeof (globalThis as { document?: unknown }).document !== 'undefined';
  return isWindow ? 0 : 1 + Math.floor(Math.random() * MAX_PREFIX);
}
