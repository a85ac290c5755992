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
  /** The last `inheritFaults` call that listed this fault (deduplication without a Set). */
  mark = 0;

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

let calls = 0;

/**
 * The faults an output inherits: its inputs' relevant faults plus the op's own, without
 * duplicates. Linear in the faults seen: in a loop that never yields, no verdict settles and
 * the lists grow with the batches in flight, so this runs once per op over lists of tens of
 * faults: it marks instead of hashing, and an output whose only faulted input already lists
 * every relevant fault shares that input's list (lists are never mutated).
 */
export function inheritFaults(inputs: ReadonlyArray<{ readonly faults: readonly Fault[] }>, own: readonly Fault[]): readonly Fault[] {
  let only: readonly Fault[] | undefined;
  let several = false;
  for (const s of inputs) {
    if (s.faults.length === 0 || s.faults === only) continue;
    if (only === undefined) only = s.faults;
    else several = true;
  }
  if (!several && only !== undefined && only.every((f) => f.relevant) && own.every((f) => !f.relevant || only!.includes(f))) return only;
  const mark = ++calls;
  const out: Fault[] = [];
  for (const f of own) {
    if (f.mark !== mark && f.relevant) {
      f.mark = mark;
      out.push(f);
    }
  }
  for (const s of inputs) {
    for (const f of s.faults) {
      if (f.mark !== mark && f.relevant) {
        f.mark = mark;
        out.push(f);
      }
    }
  }
  return out;
}

/** Waits for every fault and throws the first error. */
export async function checkFaults(faults: readonly Fault[]): Promise<void> {
  for (const f of faults) {
    if (!f.settled) await f.done;
    if (f.error) throw f.error;
  }
}
