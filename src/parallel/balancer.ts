/**
 * Shard sizes. 'balanced' (the default) fits each replica's measured compute time as
 * t(n) = a + b n (a fixed cost per step, b per sample; from the scheduler's events) and splits
 * the batch so that every replica is predicted to finish at the same time; the split in use
 * changes only for a predicted gain of RESPLIT_GAIN or more.
 *
 * With devices of different kinds, the core replicas (the GPUs) always take shards and the others
 * (the CPU replicas) are candidates, added only where they are predicted to help. Every step does
 * useful work, measuring included: the core runs alone for a few steps (the time without the
 * candidates: the coordinator runs those steps exactly as it would without them, see
 * DataParallel), then each candidate takes a small probe shard of the batch (its gradient counts
 * like any other, weighted by its size) while the core takes the rest; the probe steps give the
 * candidates' cost per sample and the cost of joining gradients (a step's wall time beyond its
 * slowest replica's compute). Candidates are added only if the balanced split, join included, is
 * predicted to beat the core alone by a margin. An added mix is measured, then the core alone is
 * measured again: the mix stays only if it beats the faster of the two measurements of the core
 * alone (the first comes soon after start-up, when a device may still be warming up, which would
 * flatter the mix); otherwise it is dropped (the hysteresis: a margin to add, none to keep).
 * Every `reevaluateEvery` steps the comparison runs again; each evaluation that ends as the one
 * before it (skip after skip, drop after drop, keep after keep) doubles that interval, up to
 * MAX_BACKOFF times: probing costs steps that join gradients, and on a machine where the answer
 * does not change they would cost every 200 steps for ever (on an H200, the GPU with a CPU
 * replica that the balancer kept skipping measured 0.97x the GPU alone, probe steps among the
 * timed ones).
 * Pure: observations in, plans and decisions out (tests drive it without clocks).
 */
import { ArgumentError } from '../errors.js';

export type Split = 'balanced' | 'even' | readonly number[];

export interface BalancerOptions {
  /** Steps whose timings are ignored (kernel compilation, JIT warm-up, first allocations). Default 3. */
  warmupSteps?: number;
  /** Steps timed per configuration (the core alone, the probe, the mix). Default 3. */
  measureSteps?: number;
  /** A candidate's probe shard, as a fraction of the batch (at least 1 sample). Default 1/32. */
  probeFraction?: number;
  /** Candidates are added only when predicted to cut the step time by this fraction. Default 0.05. */
  margin?: number;
  /** Steps between two evaluations of the candidates; doubled after each that decides as the last did (up to 64x), back to this after one that changes the mix. Default 200. */
  reevaluateEvery?: number;
  /**
   * Replicas that always take shards (default: the GPU replicas; every replica when there is none).
   * With a fixed split the core is the replicas given a weight above 0 (the others stay idle).
   */
  core?: readonly number[];
}

export interface Plan {
  /** Samples per replica (indexed by replica; 0 for those that sit the step out). */
  readonly shards: number[];
}

export interface Observation {
  readonly shards: readonly number[];
  /** Device-side compute ms per replica (0 where the shard was empty). */
  readonly computeMs: readonly number[];
  /** Coordinator wall time of the whole step, ms. */
  readonly wallMs: number;
}

/** What the core alone measured: the median step time of each measurement, and how many steps each took. */
export interface AloneMeasure {
  /** The time compared against: the fastest of `runs`. */
  readonly ms: number;
  /** Each measurement's median, in the order taken (before the mix, then after it). */
  readonly runs: readonly number[];
  /** Timed steps per measurement. */
  readonly steps: number;
}

export type Decision =
  /** The probe predicts a gain: `replicas` take shards from now on (the mix is measured next). */
  | { readonly kind: 'add'; readonly replicas: readonly number[]; readonly predictedMs: number; readonly withoutMs: number; readonly alone: AloneMeasure }
  /** The probe predicts no gain (beyond the margin): the core goes on alone. */
  | { readonly kind: 'skip'; readonly replicas: readonly number[]; readonly predictedMs: number; readonly withoutMs: number; readonly alone: AloneMeasure }
  /** The mix measured faster than the core alone: it stays. */
  | { readonly kind: 'keep'; readonly replicas: readonly number[]; readonly mixMs: number; readonly withoutMs: number; readonly alone: AloneMeasure }
  /** The mix measured no faster than the core alone: `replicas` take no more shards, the core goes on alone. */
  | { readonly kind: 'drop'; readonly replicas: readonly number[]; readonly mixMs: number; readonly withoutMs: number; readonly alone: AloneMeasure };

interface Sample {
  n: number;
  t: number;
}

const HISTORY = 8;
/** A balanced split changes only when the new one is predicted this much faster than the one in use. */
const RESPLIT_GAIN = 0.03;
/** The most the re-evaluation interval grows, as a multiple of `reevaluateEvery`. */
const MAX_BACKOFF = 64;

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

/** The predicted step: the slowest taker's a + b n (those given nothing cost nothing). */
function finishOf(costs: ReadonlyArray<{ a: number; b: number }>, sizes: readonly number[]): number {
  return Math.max(...costs.map((c, k) => (sizes[k]! > 0 ? c.a + c.b * sizes[k]! : 0)));
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * warmup -> alone -> probe -> (add) verify -> recheck -> settled, or (skip) settled; from settled,
 * every `reevaluateEvery` steps: alone (then judged against the mix of the last steps, or probed).
 */
type Phase = 'warmup' | 'alone' | 'probe' | 'verify' | 'recheck' | 'settled';

export class Balancer {
  private readonly samples: Sample[][];
  private steps = 0;
  private phase: Phase = 'warmup';
  /** Steps (timed or not) in the current phase. */
  private inPhase = 0;
  private sinceEvaluation = 0;
  /** Steps between evaluations now: `reevaluate`, doubled by each evaluation that decided as the last. */
  private interval = 0;
  private lastDecision: 'skip' | 'keep' | 'drop' | undefined;
  private readonly warmup: number;
  private readonly measure: number;
  private readonly probeFraction: number;
  private readonly margin: number;
  private readonly reevaluate: number;
  /** Fixed relative shard sizes, when the split gives them. */
  private readonly weights: readonly number[] | undefined;
  /** Replicas that always take shards, and the others. */
  readonly core: readonly number[];
  readonly candidates: readonly number[];
  /** Candidates taking shards now. */
  private inUse: number[] = [];
  private aloneWalls: number[] = [];
  private mixWalls: number[] = [];
  /** Wall time beyond the slowest replica's compute, in steps with several replicas. */
  private joinMs: number[] = [];
  /** Medians of the core-alone measurements of the current evaluation. */
  private aloneRuns: number[] = [];
  /** The verified mix's steps: their shards and wall times. */
  private mixSteps: Array<{ shards: readonly number[]; wallMs: number }> = [];
  /**
   * A kept mix runs the split that measured fastest while it was verified, until the next
   * evaluation: refitting after every step could drift to a split that was never measured (and
   * may be slower than the core alone).
   */
  private pinned: readonly number[] | undefined;
  /** The balanced split in use (its batch size and takers), kept until a new one is predicted clearly faster. */
  private held: { total: number; takers: string; sizes: number[] } | undefined;

  constructor(
    private readonly replicas: number,
    private readonly split: Split,
    options: BalancerOptions = {},
    /** Which replicas are GPUs (the default core). */
    gpus: readonly number[] = [],
  ) {
    this.weights = typeof split === 'string' ? undefined : split;
    if (typeof split !== 'string') {
      // Untyped callers: a number or an object is named, not read as a list.
      if (!Array.isArray(split)) throw new ArgumentError(`split must be 'balanced', 'even' or one weight per device (${replicas}), got ${split === null ? 'null' : typeof split}`, { op: 'DataParallel' });
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
    const fraction = (name: string, v: number | undefined, d: number): number => {
      if (v === undefined) return d;
      if (!(Number.isFinite(v) && v >= 0 && v < 1)) throw new ArgumentError(`${name} must be a number in [0, 1), got ${String(v)}`, { op: 'DataParallel' });
      return v;
    };
    this.warmup = count('warmupSteps', options.warmupSteps, 3, 0);
    this.measure = count('measureSteps', options.measureSteps, 3, 1);
    this.reevaluate = count('reevaluateEvery', options.reevaluateEvery, 200, 1);
    this.interval = this.reevaluate;
    this.probeFraction = fraction('probeFraction', options.probeFraction, 1 / 32);
    this.margin = fraction('margin', options.margin, 0.05);
    this.samples = Array.from({ length: replicas }, () => []);
    const all = Array.from({ length: replicas }, (_, i) => i);
    let core = all;
    if (split === 'balanced') {
      const given = options.core;
      if (given !== undefined) {
        if (given.length === 0 || given.some((r) => !(Number.isInteger(r) && r >= 0 && r < replicas)) || new Set(given).size !== given.length) {
          throw new ArgumentError(`balance.core must list distinct replica indices in [0, ${replicas}), at least one; got [${given.join(', ')}]`, { op: 'DataParallel' });
        }
        core = [...given].sort((a, b) => a - b);
      } else if (gpus.length > 0) core = [...gpus].sort((a, b) => a - b);
    } else if (this.weights) {
      // A replica given weight 0 never takes a shard: it is neither core (it would own parameters
      // and be sent every step) nor a candidate.
      const weights = this.weights;
      core = all.filter((r) => weights[r]! > 0);
    }
    this.core = core;
    this.candidates = split === 'balanced' ? all.filter((r) => !core.includes(r)) : [];
    if (this.candidates.length === 0) this.phase = 'settled';
  }

  /** Settled: shard sizes come from the chosen mix until the next evaluation, not from new samples. */
  get settled(): boolean {
    return this.phase === 'settled';
  }

  /** Replicas that may own parameters (the optimizer runs there): the core. */
  get owners(): readonly number[] {
    return this.core;
  }

  /** Replicas that never take a shard (weight 0 in a fixed split). */
  get idle(): readonly number[] {
    return Array.from({ length: this.replicas }, (_, r) => r).filter((r) => !this.core.includes(r) && !this.candidates.includes(r));
  }

  /** Shard sizes for a batch of `total`. */
  plan(total: number): Plan {
    const shards = new Array<number>(this.replicas).fill(0);
    if (this.weights) {
      const sizes = apportion(total, this.weights);
      sizes.forEach((n, r) => (shards[r] = n));
      return { shards };
    }
    let takers = this.core;
    let rest = total;
    if (this.phase === 'probe') {
      const p = Math.max(1, Math.round(this.probeFraction * total));
      const probes = this.candidates.slice(0, Math.max(0, total - this.core.length));
      for (const r of probes) shards[r] = Math.min(p, Math.floor((total - this.core.length) / probes.length));
      rest = total - probes.reduce((a, r) => a + shards[r]!, 0);
    } else if (this.inUse.length > 0 && this.phase === 'settled' && this.pinned) {
      apportion(total, this.pinned).forEach((n, r) => (shards[r] = n));
      return { shards };
    } else if (this.inUse.length > 0 && (this.phase === 'verify' || this.phase === 'settled')) {
      takers = [...this.core, ...this.inUse].sort((a, b) => a - b);
    }
    const sizes = this.balancedSizes(rest, takers);
    takers.forEach((r, k) => (shards[r] = sizes[k]!));
    return { shards };
  }

  private balancedSizes(total: number, takers: readonly number[]): number[] {
    // One taker (the GPU alone, every step of a settled run that keeps it alone): nothing to fit.
    if (takers.length === 1) return [total];
    const key = takers.join(',');
    // The split in use: the last one planned for these takers and this batch, else even shards.
    const held = this.held && this.held.total === total && this.held.takers === key ? this.held.sizes : apportion(total, takers.map(() => 1));
    let sizes = held;
    if (this.split === 'balanced') {
      const fitted = takers.flatMap((r) => fitCost(this.samples[r]!) ?? []);
      if (fitted.length === takers.length) {
        const fresh = equalFinish(total, fitted);
        // The split moves only for a predicted gain beyond the step-to-step noise of the fitted
        // times: chasing noise changed shard sizes every step and ran slower than even shards
        // (4 CPU replicas on the H200's host, 0.73 against 0.80).
        if (finishOf(fitted, fresh) < (1 - RESPLIT_GAIN) * finishOf(fitted, held)) sizes = fresh;
      }
    }
    this.held = { total, takers: key, sizes };
    return sizes;
  }

  /** Records a finished step; returns a decision when candidates are added, kept, dropped or skipped. */
  observe(o: Observation): Decision | undefined {
    this.steps++;
    if (this.steps <= this.warmup) return undefined;
    if (this.phase === 'warmup') this.enter('alone');
    this.inPhase++;
    // The first step of a new configuration runs new shapes (kernels, buffers): not timed.
    const timed = this.inPhase > 1 || this.phase === 'settled';
    if (!timed) {
      if (this.phase === 'probe') this.joinMs = [];
      return undefined;
    }
    o.shards.forEach((n, r) => {
      if (n <= 0 || !(o.computeMs[r]! > 0)) return;
      const s = this.samples[r]!;
      s.push({ n, t: o.computeMs[r]! });
      if (s.length > HISTORY) s.shift();
    });
    if (o.shards.filter((n) => n > 0).length > 1) {
      this.joinMs.push(Math.max(0, o.wallMs - Math.max(...o.computeMs)));
      if (this.joinMs.length > HISTORY) this.joinMs.shift();
    }
    switch (this.phase) {
      case 'warmup':
        return undefined;
      case 'alone':
      case 'recheck':
        this.aloneWalls.push(o.wallMs);
        if (this.aloneWalls.length < this.measure) return undefined;
        this.aloneRuns.push(median(this.aloneWalls));
        if (this.phase === 'recheck' || this.inUse.length > 0) return this.judgeMix();
        return this.enter('probe');
      case 'probe':
        if (this.inPhase <= this.measure) return undefined;
        return this.judgeProbe(o.shards.reduce((a, b) => a + b, 0));
      case 'verify':
        this.mixWalls.push(o.wallMs);
        this.mixSteps.push({ shards: [...o.shards], wallMs: o.wallMs });
        if (this.mixWalls.length < this.measure) return undefined;
        // The core alone once more, now that the devices are as warm as for the mix.
        return this.enter('recheck');
      case 'settled':
        if (this.inUse.length > 0) {
          this.mixWalls.push(o.wallMs);
          if (this.mixWalls.length > this.measure) this.mixWalls.shift();
        }
        if (this.candidates.length === 0 || ++this.sinceEvaluation < this.interval) return undefined;
        this.aloneRuns = [];
        return this.enter('alone');
    }
  }

  /** The core alone as measured in this evaluation (the fastest measurement counts). */
  private alone(): AloneMeasure {
    return { ms: this.aloneRuns.length > 0 ? Math.min(...this.aloneRuns) : Infinity, runs: [...this.aloneRuns], steps: this.measure };
  }

  private enter(phase: Phase): undefined {
    this.phase = phase;
    this.inPhase = 0;
    if (phase === 'alone' || phase === 'recheck') this.aloneWalls = [];
    if (phase === 'verify') {
      this.mixWalls = [];
      this.mixSteps = [];
    }
    if (phase === 'alone' || phase === 'probe') this.pinned = undefined;
    if (phase === 'settled') this.sinceEvaluation = 0;
    return undefined;
  }

  /** Ends an evaluation: the next comes after `interval` steps, doubled when this one decided as the last. */
  private settle(decision: 'skip' | 'keep' | 'drop'): void {
    this.interval = decision === this.lastDecision ? Math.min(2 * this.interval, MAX_BACKOFF * this.reevaluate) : this.reevaluate;
    this.lastDecision = decision;
    this.enter('settled');
  }

  /** Steps from one evaluation's decision to the start of the next (for tests and notices). */
  get reevaluateIn(): number {
    return this.interval;
  }

  /** After the probe: the balanced split over core and candidates, join included, against the core alone. */
  private judgeProbe(total: number): Decision {
    const takers = [...this.core, ...this.candidates].sort((a, b) => a - b);
    const costs = takers.map((r) => fitCost(this.samples[r]!));
    const candidates = this.candidates;
    let predictedMs = Infinity;
    let chosen: number[] = [];
    if (costs.every((c) => c !== undefined) && this.joinMs.length > 0) {
      const sizes = equalFinish(total, costs);
      chosen = candidates.filter((r) => sizes[takers.indexOf(r)]! > 0);
      const used = takers.filter((r) => this.core.includes(r) || chosen.includes(r));
      const usedCosts = used.map((r) => costs[takers.indexOf(r)]!);
      const usedSizes = equalFinish(total, usedCosts);
      const finish = Math.max(...usedCosts.map((c, k) => (usedSizes[k]! > 0 ? c.a + c.b * usedSizes[k]! : 0)));
      predictedMs = median(this.joinMs) + finish;
    }
    const alone = this.alone();
    if (chosen.length > 0 && predictedMs < (1 - this.margin) * alone.ms) {
      this.inUse = chosen;
      this.enter('verify');
      return { kind: 'add', replicas: chosen, predictedMs, withoutMs: alone.ms, alone };
    }
    this.inUse = [];
    this.settle('skip');
    return { kind: 'skip', replicas: candidates, predictedMs, withoutMs: alone.ms, alone };
  }

  /** The mix, measured, against the fastest measurement of the core alone: kept only when faster. */
  private judgeMix(): Decision {
    const mixMs = median(this.mixWalls);
    const replicas = this.inUse;
    const alone = this.alone();
    this.settle(mixMs < alone.ms ? 'keep' : 'drop');
    if (mixMs < alone.ms) {
      const fastest = this.mixSteps.reduce((best, x) => (x.wallMs < best.wallMs ? x : best), this.mixSteps[0]!);
      this.pinned = fastest.shards;
      return { kind: 'keep', replicas, mixMs, withoutMs: alone.ms, alone };
    }
    this.pinned = undefined;
    this.inUse = [];
    return { kind: 'drop', replicas, mixMs, withoutMs: alone.ms, alone };
  }
}
