/** The error of a data-parallel step that a replica failed (it threw, or its thread or process ended). */
import { SwitchyardError } from '../errors.js';

export class ReplicaError extends SwitchyardError {
  override readonly cause: unknown;
  constructor(
    message: string,
    readonly replica: number,
    readonly device: string,
    details: { cause?: unknown; hint?: string } = {},
  ) {
    super(`replica ${replica} (${device}) ${message}`, { op: 'DataParallel', ...(details.hint ? { hint: details.hint } : {}) });
    this.cause = details.cause;
  }
}
