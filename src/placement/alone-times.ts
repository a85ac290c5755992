/**
 * Op times measured in steps that ran every op on one device (a candidate of the step selector:
 * its calibration steps, the settled choice's sampled steps), by the op's position in the step.
 *
 * An op's measured time depends on the step around it, not only on its footprint: a GPU op's time
 * is its share of the batch it shared (the batch's latency split among the ops in it), and a CPU op
 * runs slower beside GPU work on the same cores (a software adapter). A footprint's history mixes
 * every placement the op ran in; when the same step runs again on one device alone, the times its
 * ops took in that placement predict it better, so placement predicts such a step's ops from here.
 */
import { median } from './history.js';

/** Samples kept per op position (the latest). */
const KEEP = 8;

interface Slot {
  /** The footprint key of the op at this position (another op there starts the slot afresh). */
  key: string;
  readonly ms: number[];
}

export class AloneTimes {
  private readonly byDevice = new Map<string, Slot[]>();

  /** Books the measured time of the op at `position` of a step that ran every op on `device`. */
  add(device: string, position: number, key: string, ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) return;
    let slots = this.byDevice.get(device);
    if (!slots) this.byDevice.set(device, (slots = []));
    const slot = slots[position];
    if (!slot || slot.key !== key) {
      slots[position] = { key, ms: [ms] };
      return;
    }
    slot.ms.push(ms);
    if (slot.ms.length > KEEP) slot.ms.shift();
  }

  /** The median of the times booked for this op (same position, same footprint) on `device`, if any. */
  predict(device: string, position: number, key: string): number | undefined {
    const slot = this.byDevice.get(device)?.[position];
    if (!slot || slot.key !== key || slot.ms.length === 0) return undefined;
    return median([...slot.ms].sort((a, b) => a - b));
  }

  /** Forgets every device's times (the step changed). */
  clear(): void {
    this.byDevice.clear();
  }
}
