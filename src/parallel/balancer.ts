/**
 * Shard sizes. 'balanced' (the default) fits each replica's measured compute time as
 * t(n) = a + b n (a fixed cost per step, b per sample; from the scheduler's events) and splits
 * the batch so that every replica is predicted to finish at the same time. After a few balanced
 * steps it times the fastest replica alone on whole batches, then the mix again (A-B-A, so that
 * warm-up drift favours neither); when the mix is not faster, the slower replicas are dropped (a
 * mix is never kept slower than its fastest device alone).
 * Pure: observations in, plans and decisions out (tests drive it without clocks).
 */
import { ArgumentError } from '../errors.js';

export type Split = 'balanced' | 'even' | readonly number[];

export interface BalancerOptions {
  /** Steps whose timings are ignored (kernel compilation, JIT warm-up, first allocations). Default 3. */
  warmupSteps?: number;
  /** Balanced steps timed before the solo probe, and again after it. Default 3. */
  measureSteps?: number;
  /** Steps of the fastest replica alone. Default 3 (the first of them is not timed). */
  probeSteps?: number;
}

export interface Plan {
  /** Samples per replica (indexed by replica; 0 for inactive ones). */
  readonly shards: number[];
  /** Set on probe steps: the replica that runs alone. */
  readonly solo?: number;
}

export interface Observation {
  readonly shards: readonly number[];
  /** Device-side compute ms per replica (0 where the shard was empty). */
  readonly computeMs: readonly number[];
  /** Coordinator wall time of the whole step, ms. */
  readonly wallMs: number;
}

export type Decision =
  | { readonly kind: 'probe'; readonly replica: number }
  /** The probe is over: the mix takes shards again (and is timed again). */
  | { readonly kind: 'unprobe' }
  | { readonly kind: 'keep'; readonly mixMs: number; readonly soloMs: number; readonly fastest: number }
  | { readonly kind: 'drop'; readonly keep: number; readonly dropped: readonly number[]; readonly mixMs: number; readonly soloMs: number };

interface Sample {
  n: number;
  t: number;
}

const HISTORY = 8;

/** Integer sizes summing to `total`, proportional to `weights` (largest remainders). */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, w) => a + Math.max(0, w), 0);
  if (sum <= 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const exact = weights.map((w) => (Math.max(0, w) / sum) * total);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i]!++;
    left--;
  }
  return out;
}

/** Least-squares t = a + b n over the samples (a >= 0, b > 0); b = mean t/n when the sizes hardly vary. */
export function fitCost(samples: readonly Sample[]): { a: number; b: number } | undefined {
  const s = samples.filter((x) => x.n > 0 && x.t > 0);
  if (s.length === 0) return undefined;
  const proportional = { a: 0, b: s.reduce((acc, x) => acc + x.t / x.n, 0) / s.length };
  const ns = s.map((x) => x.n);
  if (Math.max(...ns) < 1.1 * Math.min(...ns)) return proportional;
  const mn = ns.reduce((a, b) => a + b, 0) / s.length;
  const mt = s.reduce((a, x) => a + x.t, 0) / s.length;
  let sxy = 0;
  let sxx = 0;
  for (const x of s) {
    sxy += (x.n - mn) * (x.t - mt);
    sxx += (x.n - mn) ** 2;
  }
  const b = sxy / sxx;
  if (!(b > 0)) return proportional;
  const a = mt - b * mn;
  return a >= 0 ? { a, b } : { a: 0, b: s.reduce((acc, x) => acc + x.t * x.n, 0) / s.reduce((acc, x) => acc + x.n * x.n, 0) };
}

/** Sizes that make a + b n equal for every replica (those predicted to get nothing get 0). */
export function equalFinish(total: number, costs: ReadonlyArray<{ a: number; b: number }>): number[] {
  const fill = (T: number): number[] => costs.map(({ a, b }) => Math.min(total, Math.max(0, (T - a) / b)));
  let lo = 0;
  let hi = Math.max(...costs.map(({ a, b }) => a + b * total));
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (fill(mid).reduce((x, y) => x + y, 0) < total) lo = mid;
    else hi = mid;
  }
  return apportion(total, fill(hi));
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export class Balancer {
  private readonly samples: Sample[][];
  private steps = 0;
  private phase: 'measure' | 'probe' | 'remeasure' | 'settled';
  private readonly mixWalls: number[] = [];
  private readonly soloWalls: number[] = [];
  private probeReplica = -1;
  private readonly warmup: number;
  private readonly measure: number;
  private readonly probe: number;
  /** Fixed relative shard sizes, when the split gives them. */
  private readonly weights: readonly number[] | undefined;

  constructor(
    private readonly replicas: number,
    private readonly split: Split,
    options: BalancerOptions = {},
  ) {
    this.weights = typeof split === 'string' ? undefined : split;
    if (typeof split !== 'string') {
      if (split.length !== replicas || split.some((w) => !(Number.isFinite(w) && w >= 0)) || split.every((w) => w === 0)) {
        throw new ArgumentError(`split must give one weight >= 0 per device (${replicas}), not all 0; got [${split.join(', ')}]`, { op: 'DataParallel' });
      }
    } else if (split !== 'balanced' && split !== 'even') {
      throw new ArgumentError(`split must be 'balanced', 'even' or one weight per device, got ${String(split)}`, { op: 'DataParallel' });
    }
    const count = (name: string, v: number | undefined, d: number, min: number): number => {
      if (v === undefined) return d;
      if (!(Number.isInteger(v) && v >= min)) throw new ArgumentError(`${name} must be an integer >= ${min}, got ${String(v)}`, { op: 'DataParallel' });
      return v;
    };
    this.warmup = count('warmupSteps', options.warmupSteps, 3, 0);
    this.measure = count('measureSteps', options.measureSteps, 3, 1);
    this.probe = count('probeSteps', options.probeSteps, 3, 1);
    this.samples = Array.from({ length: replicas }, () => []);
    this.phase = split === 'balanced' ? 'measure' : 'settled';
  }

  /** Shard sizes for a batch of `total` over the `active` replicas. */
  plan(total: number, active: readonly number[]): Plan {
    const shards = new Array<number>(this.replicas).fill(0);
    if (this.phase === 'probe') {
      shards[this.probeReplica] = total;
      return { shards, solo: this.probeReplica };
    }
    let sizes: number[];
    const weights = this.weights;
    if (weights) sizes = apportion(total, active.map((r) => weights[r]!));
    else {
      const costs = active.map((r) => fitCost(this.samples[r]!)).filter((c) => c !== undefined);
      sizes = this.split === 'balanced' && costs.length === active.length ? equalFinish(total, costs) : apportion(total, active.map(() => 1));
    }
    active.forEach((r, k) => (shards[r] = sizes[k]!));
    return { shards };
  }

  /** Records a finished step; returns a decision when the solo probe starts or ends. */
  observe(o: Observation, active: readonly number[]): Decision | undefined {
    this.steps++;
    if (this.steps <= this.warmup) return undefined;
    // Whether this step's shards came from fitted costs (the first step after warm-up was still even).
    const planned = active.every((r) => this.samples[r]!.length > 0);
    o.shards.forEach((n, r) => {
      if (n <= 0 || !(o.computeMs[r]! > 0)) return;
      const s = this.samples[r]!;
      s.push({ n, t: o.computeMs[r]! });
      if (s.length > HISTORY) s.shift();
    });
    if (this.phase === 'measure') {
      if (active.length < 2) {
        this.phase = 'settled';
        return undefined;
      }
      if (planned) this.mixWalls.push(o.wallMs);
      if (this.mixWalls.length < this.measure) return undefined;
      this.phase = 'probe';
      this.probeReplica = this.fastest(o.shards.reduce((a, b) => a + b, 0), active);
      return { kind: 'probe', replica: this.probeReplica };
    }
    if (this.phase === 'probe') {
      this.soloWalls.push(o.wallMs);
      if (this.soloWalls.length < this.probe) return undefined;
      this.phase = 'remeasure';
      return { kind: 'unprobe' };
    }
    if (this.phase === 'remeasure') {
      this.mixWalls.push(o.wallMs);
      if (this.mixWalls.length < 2 * this.measure) return undefined;
      // The first solo step runs new shapes (kernels, buffers): it is not timed when there are more.
      const soloMs = median(this.soloWalls.length > 1 ? this.soloWalls.slice(1) : this.soloWalls);
      const mixMs = median(this.mixWalls);
      this.phase = 'settled';
      if (soloMs <= mixMs) return { kind: 'drop', keep: this.probeReplica, dropped: active.filter((r) => r !== this.probeReplica), mixMs, soloMs };
      return { kind: 'keep', mixMs, soloMs, fastest: this.probeReplica };
    }
    return undefined;
  }

  /** The replica predicted to take a whole batch fastest. */
  private fastest(total: number, active: readonly number[]): number {
    let best = active[0]!;
    let bestT = Infinity;
    for (const r of active) {
      const c = fitCost(this.samples[r]!);
      const t = c ? c.a + c.b * total : Infinity;
      if (t < bestT) {
        bestT = t;
        best = r;
      }
    }
    return best;
  }
}
