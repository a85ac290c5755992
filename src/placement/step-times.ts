/**
 * Op times measured in earlier steps of the same placement, by the op's position in the step: a
 * placement is every op on one device (a candidate of the step selector: its calibration steps,
 * the settled choice's sampled steps) or a replayed plan.
 *
 * An op's measured time depends on the step around it, not only on its footprint: a GPU op's time
 * is its share of the batch it shared (the batch's latency split among the ops in it), and a CPU op
 * runs slower beside GPU work on the same cores (a software adapter). A footprint's history mixes
 * every placement the op ran in; when the same placement runs again, the times its ops took in it
 * predict them better, so placement predicts such a step's ops from here.
 */
import { median } from './history.js';

/** Samples kept per op position (the latest). */
const KEEP = 8;

/** Placements remembered (the oldest is forgotten first: a replanned step's old plans). */
const PLACEMENTS = 8;

interface Slot {
  /** The op at this position: footprint key and device (another op there starts the slot afresh). */
  key: string;
  readonly ms: number[];
}

export class StepTimes {
  private readonly byPlacement = new Map<string, Slot[]>();

  /** Books the measured time of the op (`key`: footprint and device) at `position` of a step of `placement`. */
  add(placement: string, position: number, key: string, ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) return;
    let slots = this.byPlacement.get(placement);
    if (!slots) {
      this.byPlacement.set(placement, (slots = []));
      if (this.byPlacement.size > PLACEMENTS) this.byPlacement.delete(this.byPlacement.keys().next().value!);
    }
    const slot = slots[position];
    if (!slot || slot.key !== key) {
      slots[position] = { key, ms: [ms] };
      return;
    }
    slot.ms.push(ms);
    if (slot.ms.length > KEEP) slot.ms.shift();
  }

  /** The median of the times booked for this op (same placement, position and key), if any. */
  predict(placement: string, position: number, key: string): number | undefined {
    const slot = this.byPlacement.get(placement)?.[position];
    if (!slot || slot.key !== key || slot.ms.length === 0) return undefined;
    return median([...slot.ms].sort((a, b) => a - b));
  }

  /** Forgets every placement's times (the step changed). */
  clear(): void {
    this.byPlacement.clear();
  }
}
