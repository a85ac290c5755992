/**
 * GPU work fails after the fact: a validation error of a submitted batch, an index out of range
 * found by a kernel, a lost device. A `Fault` is such a late verdict; every storage carries the
 * unsettled (or failed) faults of the work that produced it and of its inputs, so a read of any
 * tensor downstream rejects with the original error while unrelated tensors read normally.
 */
import type { SwitchyardError } from '../../errors.js';

export class Fault {
  private resolveDone!: () => void;
  /** Resolves (never rejects) once the verdict is in. */
  readonly done: Promise<void> = new Promise<void>((r) => (this.resolveDone = r));
  settled = false;
  error: SwitchyardError | undefined;

  ok(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveDone();
  }

  fail(error: SwitchyardError): void {
    if (this.settled) return;
    this.settled = true;
    this.error = error;
    this.resolveDone();
  }

  /** Whether a storage still needs to carry this fault. */
  get relevant(): boolean {
    return !this.settled || this.error !== undefined;
  }
}

/**
 * The faults an output inherits: its inputs' relevant faults plus the op's own, without
 * duplicates. Linear in the faults seen: in a loop that never yields, no verdict settles and
 * the lists grow with the batches in flight.
 */
export function inheritFaults(inputs: ReadonlyArray<{ readonly faults: readonly Fault[] }>, own: readonly Fault[]): Fault[] {
  const seen = new Set<Fault>();
  for (const f of own) if (f.relevant) seen.add(f);
  for (const s of inputs) for (const f of s.faults) if (f.relevant) seen.add(f);
  return [...seen];
}

/** Waits for every fault and throws the first error. */
export async function checkFaults(faults: readonly Fault[]): Promise<void> {
  for (const f of faults) {
    if (!f.settled) await f.done;
    if (f.error) throw f.error;
  }
}
