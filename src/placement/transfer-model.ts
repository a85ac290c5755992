/**
 * The cost of moving bytes from one device to another: alpha + beta * bytes (latency and inverse
 * bandwidth), fitted by least squares to the median time of each size class (powers of two), so
 * a few slow transfers do not bend the line. Until two size classes are measured it answers with
 * a prior for the path (host copy, upload, readback), marked as such.
 *
 * A calibration measures a pair alone; inside a workload a transfer also waits (a readback for
 * the GPU batch that makes its input, then for the JavaScript turn to end). Those waits are kept
 * apart, as the median excess over the line of the last transfers seen in workloads, and added
 * to predictions once there are `IN_WORKLOAD_MIN` of them: a move that looked cheap in isolation
 * is charged what it costs where it happens.
 */
import { median } from './history.js';

export interface TransferFit {
  /** Latency (ms). */
  readonly alpha: number;
  /** ms per byte. */
  readonly beta: number;
  /** 'measured': fitted to samples; 'prior': a default for the path, nothing measured yet. */
  readonly source: 'measured' | 'prior';
}

/** Defaults before any measurement: a host copy moves about 4 GB/s, anything through a GPU queue 1 GB/s with 0.1 ms latency. */
export function priorFit(fromHost: boolean, toHost: boolean): TransferFit {
  if (fromHost && toHost) return { alpha: 0.02, beta: 1 / 4e6, source: 'prior' };
  return { alpha: 0.1, beta: 1 / 1e6, source: 'prior' };
}

const CAPACITY = 256;

/** Transfers seen in workloads that the excess is the median of, and how many it needs. */
const IN_WORKLOAD_CAPACITY = 32;
export const IN_WORKLOAD_MIN = 3;

export class TransferModel {
  private readonly ring: Array<readonly [number, number]> = [];
  private next = 0;
  private fit: TransferFit | undefined;
  private dirty = false;
  /** Whether a calibration run has measured this pair (persisted: it is not repeated). */
  calibrated = false;
  /** Measured time over the line of transfers seen in workloads (ms), newest last. */
  private readonly excess: number[] = [];

  constructor(
    private readonly prior: TransferFit,
    samples: ReadonlyArray<readonly [number, number]> = [],
  ) {
    for (const s of samples) this.add(s[0], s[1]);
  }

  add(bytes: number, ms: number): void {
    if (!(bytes >= 0 && ms >= 0) || !Number.isFinite(ms)) return;
    const s = [bytes, ms] as const;
    if (this.ring.length < CAPACITY) this.ring.push(s);
    else {
      this.ring[this.next] = s;
      this.next = (this.next + 1) % CAPACITY;
    }
    this.dirty = true;
  }

  get size(): number {
    return this.ring.length;
  }

  samples(): Array<readonly [number, number]> {
    return [...this.ring];
  }

  model(): TransferFit {
    if (this.dirty) {
      this.fit = this.refit();
      this.dirty = false;
    }
    return this.fit ?? this.prior;
  }

  predict(bytes: number): number {
    const m = this.model();
    return m.alpha + m.beta * bytes + this.waits();
  }

  /** A transfer inside a workload took `ms`: its excess over the line is what it waited. */
  addInWorkload(bytes: number, ms: number): void {
    if (!(bytes >= 0 && ms >= 0) || !Number.isFinite(ms)) return;
    const m = this.model();
    this.excess.push(Math.max(ms - (m.alpha + m.beta * bytes), 0));
    if (this.excess.length > IN_WORKLOAD_CAPACITY) this.excess.shift();
  }

  /** The waits kept (for persistence), oldest first. */
  excesses(): number[] {
    return [...this.excess];
  }

  /** Waits from a saved model (non-negative finite numbers only), before any of this process. */
  restoreExcesses(waits: readonly unknown[]): void {
    for (const w of waits) if (typeof w === 'number' && Number.isFinite(w) && w >= 0) this.excess.push(w);
    while (this.excess.length > IN_WORKLOAD_CAPACITY) this.excess.shift();
  }

  /** The median wait of transfers in workloads (0 until there are enough of them). */
  waits(): number {
    if (this.excess.length < IN_WORKLOAD_MIN) return 0;
    return median([...this.excess].sort((a, b) => a - b));
  }

  private refit(): TransferFit | undefined {
    const classes = new Map<number, { bytes: number[]; ms: number[] }>();
    for (const [b, ms] of this.ring) {
      const k = b > 0 ? Math.round(Math.log2(b)) : -1;
      let c = classes.get(k);
      if (!c) classes.set(k, (c = { bytes: [], ms: [] }));
      c.bytes.push(b);
      c.ms.push(ms);
    }
    if (classes.size < 2) return undefined;
    const xs: number[] = [];
    const ys: number[] = [];
    for (const c of classes.values()) {
      xs.push(median([...c.bytes].sort((a, b) => a - b)));
      ys.push(median([...c.ms].sort((a, b) => a - b)));
    }
    const k = xs.length;
    const mx = xs.reduce((a, b) => a + b, 0) / k;
    const my = ys.reduce((a, b) => a + b, 0) / k;
    let sxx = 0;
    let sxy = 0;
    for (let i = 0; i < k; i++) {
      sxx += (xs[i]! - mx) ** 2;
      sxy += (xs[i]! - mx) * (ys[i]! - my);
    }
    if (sxx === 0) return undefined;
    // Negative latency or bandwidth is noise at small sizes: clamp to the physically possible.
    const beta = Math.max(sxy / sxx, 0);
    const alpha = Math.max(my - beta * mx, 0);
    return { alpha, beta, source: 'measured' };
  }
}
