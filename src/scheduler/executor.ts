/**
 * What a backend gives the scheduler for one device: run an op record over input storages,
 * read a storage back to the host, and free a storage. `S` is the backend's storage type.
 *
 * Executors may run ahead of completion: a GPU executor returns its outputs as soon as the work
 * is encoded (later ops can use them at once) together with `done`, which settles when the
 * device has really finished; a late failure rejects `done` and every read of the outputs and
 * of anything computed from them.
 */
import type { TypedArray } from '../ir/dtype.js';
import type { OpRecord } from '../ir/ops.js';

export interface ExecOptions {
  /** Set under backpressure: run now on this thread if at all possible (no pool, no await). */
  readonly sync: boolean;
  /** Someone watches op events: report the true completion through `done` where it differs from the return. */
  readonly timing: boolean;
}

export interface ExecResult<S> {
  readonly outputs: S[];
  /** Where it ran, for the op event. */
  readonly where: string;
  /**
   * Settles when the device has finished the work (absent: finished when returned); it may
   * resolve to when the device could begin it (a GPU batch's submission, on the scheduler's clock).
   */
  readonly done?: Promise<number | undefined | void>;
}

/** Work still running (on the pool, or waiting for a device to initialise). */
export interface PendingResult<S> {
  readonly promise: Promise<ExecResult<S>>;
  /**
   * Blocks this thread until the work is done and returns its result (throws its error), or
   * returns undefined if it cannot block for it. Used only under backpressure.
   */
  waitSync?(): ExecResult<S> | undefined;
}

export function isPending<S>(r: ExecResult<S> | PendingResult<S>): r is PendingResult<S> {
  return 'promise' in r;
}

export interface Executor<S> {
  readonly deviceKey: string;
  /** Whether storages live in host memory (CPU) rather than on a device. */
  readonly host: boolean;
  execute(record: OpRecord, inputs: readonly S[], payload: TypedArray | undefined, options: ExecOptions): ExecResult<S> | PendingResult<S>;
  /**
   * Whether a 'fromData' payload is copied by the time the op's result is in (then the scheduler
   * hands it back to the blob store for reuse); an executor that may keep it leaves this unset.
   */
  readonly copiesPayload?: boolean;
  /** A contiguous host copy of the values. */
  read(storage: S): Promise<TypedArray>;
  /**
   * Copies a float32 storage's values (row-major) into `target` from index `at`, with no array in
   * between, where the storage is in host memory; false where this executor cannot (another
   * dtype, device memory): the caller reads instead.
   */
  readInto?(storage: S, target: Float32Array, at: number): boolean;
  release(storage: S): void;
}
