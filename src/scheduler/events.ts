/** One event per op: the whole record, where it ran, its lane's queue depth, and when (ms on the scheduler's clock). */
import type { OpRecord } from '../ir/ops.js';

export interface OpEvent {
  /** The op record as submitted (shapes, dtypes, attrs). */
  readonly record: OpRecord;
  readonly opId: number;
  readonly op: string;
  readonly device: string;
  readonly inputBytes: number;
  readonly outputBytes: number;
  /** Ops of this device's lane submitted and not finished when this one was submitted. */
  readonly queueDepth: number;
  /** When the op was submitted. */
  readonly queuedAt: number;
  /** When its inputs were ready and the backend started it. */
  readonly startAt: number;
  /**
   * Work that runs ahead (GPU): when the command batch holding it was submitted. The device could
   * not begin it earlier; between `startAt` (encoded) and this it waited for the batch to close.
   */
  readonly submitAt?: number;
  /** When the device finished the work (for GPU ops: the queue's completion, not the end of encoding). */
  readonly endAt: number;
  /** Where the backend ran it: 'inline', 'pool', 'gpu', 'view', or a transfer path. */
  readonly where: string;
  readonly error?: string;
}
