/**
 * The history model of one (footprint, device): the latest durations in a ring, and a robust mean
 * over them. Outliers (a first run that compiled a kernel, a run that waited behind the garbage
 * collector) are dropped when farther than 3 scaled MADs from the median, as in a Hampel filter.
 */

/** Samples kept per history: enough for a robust mean, bounded for persistence. */
export const HISTORY_CAPACITY = 64;

export interface Estimate {
  /** Robust mean duration (ms). */
  readonly ms: number;
  /** Samples the mean kept after outlier rejection. */
  readonly kept: number;
  /** Samples held. */
  readonly n: number;
}

export function median(sorted: readonly number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}

/** Mean of the samples within 3 scaled MADs of the median (within 50% of it when the MAD is 0). */
export function robustMean(samples: readonly number[]): Estimate | undefined {
  const n = samples.length;
  if (n === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const med = median(sorted);
  const mad = median(sorted.map((x) => Math.abs(x - med)).sort((a, b) => a - b));
  const limit = mad > 0 ? 3 * 1.4826 * mad : 0.5 * Math.abs(med);
  let sum = 0;
  let kept = 0;
  for (const x of sorted) {
    if (Math.abs(x - med) <= limit) {
      sum += x;
      kept++;
    }
  }
  return kept > 0 ? { ms: sum / kept, kept, n } : { ms: med, kept: 1, n };
}

export class History {
  private readonly ring: number[] = [];
  private next = 0;
  private cached: Estimate | undefined;
  /** Samples added since the estimate was computed. */
  private fresh = 0;
  /** Runs seen, including the warm-up run that was not kept. */
  seen = 0;

  constructor(
    /** The footprint's problem size (the regression's n). */
    readonly work: number,
    /** The regression family it belongs to (op and dtypes). */
    readonly family: string,
    /** Runs not kept at first (a first run compiles kernels and grows pools). */
    private readonly warmup = 1,
    samples: readonly number[] = [],
  ) {
    for (const s of samples) this.push(s);
    this.seen = samples.length > 0 ? samples.length + warmup : 0;
  }

  get size(): number {
    return this.ring.length;
  }

  /** Adds a duration; the warm-up runs of a footprint on a device are not kept. */
  add(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) return;
    if (this.seen++ < this.warmup) return;
    this.push(ms);
  }

  private push(ms: number): void {
    if (this.ring.length < HISTORY_CAPACITY) this.ring.push(ms);
    else {
      this.ring[this.next] = ms;
      this.next = (this.next + 1) % HISTORY_CAPACITY;
    }
    this.fresh++;
  }

  /** The robust mean, recomputed once a quarter of the ring is new (every sample while the ring is short). */
  estimate(): Estimate | undefined {
    if (this.fresh > 0 && (this.cached === undefined || this.ring.length < 16 || this.fresh >= this.ring.length >> 2)) {
      this.cached = robustMean(this.ring);
      this.fresh = 0;
    }
    return this.cached;
  }

  samples(): number[] {
    return [...this.ring];
  }
}
