/**
 * An online choice among candidate placements of a repeated step (each device alone, a HEFT plan,
 * online placement), by measured step time, the way an autotuner picks a kernel: the candidate
 * with the least measured step wins. A model that predicts badly can then cost no more than the
 * steps that measured the candidates.
 *
 * After the choice, the winner (the incumbent) runs every step, and its recent step times are
 * kept. Every `recheckEvery` steps another candidate (the one tried least recently, the runner-up first) runs `trials` steps again; it takes over only
 * when its least step is below the incumbent's recent least by more than `hysteresis`, so noise
 * does not flip the choice back and forth. Each re-check the incumbent survives doubles the
 * interval (up to `maxRecheckEvery`), so the cost of checking shrinks as the choice holds.
 *
 * A re-check also comes early when the incumbent's last few steps were each slower than another
 * candidate's measured step by more than the hysteresis: the incumbent got slower (online
 * placement drifting to another placement as its models learn, a device slowed by other work).
 * The same rule decides it, so the challenger takes over when its trial confirms that time; a
 * trial that does not confirm it books the challenger's new time, and the incumbent must run twice
 * as many steps before the next early re-check (noise between candidates of about the same speed
 * cannot make them frequent).
 */

export interface SelectorOptions {
  /** A challenger must beat the incumbent by more than this fraction to take over (default 0.05). */
  hysteresis?: number;
  /** Steps between re-checks at first (default 50); 0 never re-checks. */
  recheckEvery?: number;
  /** The interval doubles up to this many steps (default 800). */
  maxRecheckEvery?: number;
  /** Steps a challenger runs in a re-check (default 2). */
  trials?: number;
}

/** A change of candidate, for notes. */
export interface Switch {
  readonly from: string;
  readonly to: string;
  /** The new incumbent's least measured step, and the old one's. */
  readonly ms: number;
  readonly previousMs: number;
}

/** Recent steps of the incumbent kept for the comparison at a re-check. */
const RECENT = 8;

/** Consecutive incumbent steps slower than another candidate's that start a re-check early. */
const SLOWER_STEPS = 4;

export class StepSelector {
  private readonly hysteresis: number;
  private readonly baseInterval: number;
  private readonly maxInterval: number;
  private readonly trials: number;
  /** Each candidate's least measured step (its latest trial). */
  private readonly best = new Map<string, number>();
  private incumbentKey: string;
  private recent: number[] = [];
  private interval: number;
  private untilCheck: number;
  /** Re-checks so far, and the re-check that last tried each candidate. */
  private checks = 0;
  private readonly tried = new Map<string, number>();
  /** The challenger running now, with its trial steps so far, and whether it runs early. */
  private trial: { key: string; ms: number[]; early: boolean } | undefined;
  /** Incumbent steps since the last re-check, and how many an early re-check needs (doubling while early ones fail). */
  private sinceCheck = 0;
  private earlyAfter = SLOWER_STEPS;

  /**
   * `measured`: each candidate's least measured step so far, in order of preference (on a tie
   * within `hysteresis` of the fastest, the first listed wins: list the simpler candidates first).
   */
  constructor(measured: ReadonlyMap<string, number>, options: SelectorOptions = {}) {
    this.hysteresis = options.hysteresis ?? 0.05;
    this.baseInterval = options.recheckEvery ?? 50;
    this.maxInterval = Math.max(options.maxRecheckEvery ?? 800, this.baseInterval);
    this.trials = Math.max(options.trials ?? 2, 1);
    for (const [k, ms] of measured) if (Number.isFinite(ms)) this.best.set(k, ms);
    if (this.best.size === 0) throw new RangeError('StepSelector needs at least one measured candidate');
    const fastest = Math.min(...this.best.values());
    this.incumbentKey = [...this.best].find(([, ms]) => ms <= fastest * (1 + this.hysteresis))![0];
    this.interval = this.baseInterval;
    this.untilCheck = this.baseInterval;
  }

  /** The chosen candidate. */
  get incumbent(): string {
    return this.incumbentKey;
  }

  /** The candidate the coming step runs: the incumbent, or a challenger during a re-check. */
  get current(): string {
    return this.trial?.key ?? this.incumbentKey;
  }

  /** Each candidate's least measured step (the incumbent's: its recent least). */
  times(): Map<string, number> {
    const t = new Map(this.best);
    if (this.recent.length > 0) t.set(this.incumbentKey, this.recentLeast());
    return t;
  }

  /** One candidate's entry of `times()`, without building the map (asked once per step). */
  timeOf(key: string): number | undefined {
    return key === this.incumbentKey && this.recent.length > 0 ? this.recentLeast() : this.best.get(key);
  }

  private recentLeast(): number {
    let least = Infinity;
    for (const ms of this.recent) if (ms < least) least = ms;
    return least;
  }

  /** Steps until the next re-check begins (Infinity: none). */
  get nextCheckIn(): number {
    return this.baseInterval > 0 && this.best.size > 1 ? this.untilCheck : Infinity;
  }

  /** The step that ran `current` took `ms`; returns the switch it caused, if any. */
  record(ms: number): Switch | undefined {
    if (!Number.isFinite(ms) || ms < 0) return undefined;
    const trial = this.trial;
    if (trial) {
      trial.ms.push(ms);
      if (trial.ms.length < this.trials) return undefined;
      this.trial = undefined;
      this.sinceCheck = 0;
      const theirs = Math.min(...trial.ms);
      this.best.set(trial.key, theirs);
      const mine = this.recent.length > 0 ? this.recentLeast() : this.best.get(this.incumbentKey)!;
      if (theirs < mine * (1 - this.hysteresis)) {
        const from = this.incumbentKey;
        this.best.set(from, mine);
        this.incumbentKey = trial.key;
        this.recent = [...trial.ms];
        this.interval = this.baseInterval;
        this.untilCheck = this.interval;
        this.earlyAfter = SLOWER_STEPS;
        return { from, to: trial.key, ms: theirs, previousMs: mine };
      }
      if (trial.early) this.earlyAfter *= 2;
      this.interval = Math.min(2 * this.interval, this.maxInterval);
      this.untilCheck = this.interval;
      return undefined;
    }
    this.recent.push(ms);
    if (this.recent.length > RECENT) this.recent.shift();
    this.sinceCheck++;
    if (this.baseInterval > 0 && this.best.size > 1 && this.recheckEarly()) return undefined;
    if (this.baseInterval > 0 && this.best.size > 1 && --this.untilCheck <= 0) {
      // The other candidate tried least recently, the fastest first on a tie: each gets its turn
      // (a first measurement that was unlucky gets another chance), the runner-up first.
      let key: string | undefined;
      for (const [k, v] of this.best) {
        if (k === this.incumbentKey) continue;
        const tried = this.tried.get(k) ?? 0;
        const bestTried = key === undefined ? Infinity : (this.tried.get(key) ?? 0);
        if (key === undefined || tried < bestTried || (tried === bestTried && v < this.best.get(key)!)) key = k;
      }
      this.tried.set(key!, ++this.checks);
      this.trial = { key: key!, ms: [], early: false };
    }
    return undefined;
  }

  /**
   * Starts a re-check of the fastest other candidate when each of the incumbent's last
   * `SLOWER_STEPS` steps lost to that candidate's measured step by the hysteresis (the rule a
   * trial is judged by), at least `earlyAfter` steps after the last re-check; the comparison then
   * takes only those steps as the incumbent's.
   */
  private recheckEarly(): boolean {
    const n = this.recent.length;
    if (n < SLOWER_STEPS || this.sinceCheck < this.earlyAfter) return false;
    let slowest = Infinity; // the least of the last SLOWER_STEPS steps
    for (let i = n - SLOWER_STEPS; i < n; i++) if (this.recent[i]! < slowest) slowest = this.recent[i]!;
    let key: string | undefined;
    let fastest = Infinity;
    for (const [k, v] of this.best) {
      if (k !== this.incumbentKey && v < fastest) {
        key = k;
        fastest = v;
      }
    }
    if (key === undefined || !(fastest < slowest * (1 - this.hysteresis))) return false;
    this.recent = this.recent.slice(-SLOWER_STEPS);
    this.tried.set(key, ++this.checks);
    this.trial = { key, ms: [], early: true };
    return true;
  }
}
