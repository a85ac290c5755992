/**
 * A lane per device: how many of its ops are submitted and not finished, and when it is predicted
 * to be free (ops queue behind each other; each op's duration is predicted from the mean of its
 * kind's recent durations on this lane). Placement reads these; the scheduler keeps them.
 */
export interface LaneInfo {
  readonly device: string;
  /** Ops submitted to this device and not finished. */
  readonly depth: number;
  /** When the queued work is predicted to be done (ms on the scheduler's clock). */
  readonly predictedFreeAt: number;
}

/** Weight of the newest duration in the running mean. */
const ALPHA = 0.2;

export class Lane implements LaneInfo {
  depth = 0;
  predictedFreeAt = 0;
  private readonly meanMs = new Map<string, number>();

  constructor(readonly device: string) {}

  /** Books an op: returns the depth it found. */
  enter(op: string, now: number): number {
    const found = this.depth++;
    this.predictedFreeAt = Math.max(now, this.predictedFreeAt) + (this.meanMs.get(op) ?? 0);
    return found;
  }

  leave(op: string, ms: number | undefined): void {
    this.depth--;
    if (ms === undefined || !(ms >= 0)) return;
    const m = this.meanMs.get(op);
    this.meanMs.set(op, m === undefined ? ms : m + ALPHA * (ms - m));
  }

  /** The mean duration seen for an op kind, if any. */
  predict(op: string): number | undefined {
    return this.meanMs.get(op);
  }
}
