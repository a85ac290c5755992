/** One event per op: what ran, where, how many bytes, and when (ms on the scheduler's clock). */
export interface OpEvent {
  readonly opId: number;
  readonly op: string;
  readonly device: string;
  readonly inputBytes: number;
  readonly outputBytes: number;
  /** When the op was submitted. */
  readonly queuedAt: number;
  /** When its inputs were ready and the backend started it. */
  readonly startAt: number;
  /** When its outputs were ready (for asynchronous GPU work: when the work was enqueued, unless the backend reports completion). */
  readonly endAt: number;
  /** Where the backend ran it: 'inline', 'pool', 'gpu', 'view'. */
  readonly where: string;
  readonly error?: string;
}
