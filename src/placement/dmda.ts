/**
 * Online placement after StarPU's `dmda` (deque model, data aware): for each op, the predicted
 * finish on every candidate device is max(when the lane is free, when the inputs have arrived,
 * transfers included) + the predicted run time there; the op goes where that is earliest.
 *
 * - An op stays with its inputs (the device holding most of their bytes: parameters, activations)
 *   unless elsewhere finishes earlier by more than `margin` of its time at home, transfers counted,
 *   both ways: its output's way back home is charged to the move (a lone op sent elsewhere and back
 *   is the ping-pong that makes mixed placement slower than either device).
 * - Models without enough samples are explored on a bounded schedule: only devices whose history
 *   is short, only while the device is not predicted far slower than the best (`exploreSlack`),
 *   and for at most a fraction `explore` of all ops placed.
 */
import type { Handle } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { CostModel, PredictionSource } from './cost-model.js';
import { tensorBytes, type Footprint } from './footprint.js';

/** What the placer reads of the scheduler and the router: the clock, how many ops each lane holds, copies already moved. */
export interface LaneView {
  now(): number;
  depth(device: string): number;
  /** A copy of tensor `id` already on `device` (moved for an earlier op and kept), if any. */
  copy?(id: number, device: string): { readonly id: number } | undefined;
}

export interface DmdaOptions {
  /** Fraction of placed ops that may run somewhere only to measure it (default 0.1). */
  explore?: number;
  /** Leave the inputs' device only to finish earlier by more than this fraction of the time there (default 0.05). */
  margin?: number;
  /** Explore a device only while predicted at most this many times slower than the best (default 4). */
  exploreSlack?: number;
}

export interface DeviceEstimate {
  readonly device: string;
  /** Predicted run time (NaN when nothing predicts it). */
  readonly runMs: number;
  readonly source: PredictionSource;
  /** Predicted time of the transfers the op would need there. */
  readonly transferMs: number;
  readonly start: number;
  readonly finish: number;
  /** What the choice compares: the finish with each move's cost shared among the uses its tensor had so far. */
  readonly score: number;
}

export interface PlannedTransfer {
  /** The input tensor that moves. */
  readonly id: number;
  readonly from: string;
  readonly bytes: number;
  readonly ms: number;
  readonly arrival: number;
}

export type Reason = 'earliest' | 'home' | 'explore' | 'unknown' | 'plan' | 'calibrate' | 'alone';

export interface Decision {
  readonly device: Device;
  /** When it was decided (scheduler clock). */
  readonly at: number;
  readonly op: string;
  readonly reason: Reason;
  readonly runMs: number;
  readonly source: PredictionSource;
  readonly start: number;
  readonly finish: number;
  readonly transfers: readonly PlannedTransfer[];
  /** Every candidate's estimate (a forced decision: the chosen device's only). */
  readonly estimates: readonly DeviceEstimate[];
}

/** Predicted ready times kept per generation (tensors older than two generations count as ready now). */
const READY_CAPACITY = 1 << 15;

export class Dmda {
  private readonly explore: number;
  private readonly margin: number;
  private readonly slack: number;
  private readonly booked = new Map<string, number>();
  /** Predicted ready times by tensor id, in two generations: the older one is dropped when the newer fills. */
  private ready = new Map<number, number>();
  private readyOld = new Map<number, number>();
  private placed = 0;
  private explored = 0;
  /** How many placed ops used each tensor so far (two generations, like `ready`). */
  private uses = new Map<number, number>();
  private usesOld = new Map<number, number>();

  constructor(
    private readonly model: CostModel,
    private readonly lanes: LaneView,
    readonly devices: readonly Device[],
    options: DmdaOptions = {},
  ) {
    this.explore = options.explore ?? 0.1;
    this.margin = options.margin ?? 0.05;
    this.slack = options.exploreSlack ?? 4;
  }

  /** Ops placed and ops placed to explore, so far. */
  get counts(): { placed: number; explored: number } {
    return { placed: this.placed, explored: this.explored };
  }

  /** When a device's lane is predicted free: now if it holds nothing, else when its booked work ends. */
  laneFree(device: string, now = this.lanes.now()): number {
    if (this.lanes.depth(device) === 0) return now;
    return Math.max(now, this.booked.get(device) ?? now);
  }

  readyAt(id: number, now: number): number {
    return Math.max(this.ready.get(id) ?? this.readyOld.get(id) ?? now, now);
  }

  /**
   * The finish predicted for the op on one device. Its score shares each move among the uses the
   * moved tensor had so far: a tensor used again and again (a parameter, a constant input) moves
   * once and its copy is kept, so moving it pays off when the op gains more than that share.
   */
  estimate(fp: Footprint, inputs: readonly Handle[], device: Device, now = this.lanes.now()): [DeviceEstimate, PlannedTransfer[]] {
    const key = device.key;
    let arrival = now;
    let scored = now;
    let transferMs = 0;
    const transfers: PlannedTransfer[] = [];
    for (let i = 0; i < inputs.length; i++) {
      const h = inputs[i]!;
      if (h.device.key === key) {
        const at = this.readyAt(h.id, now);
        arrival = Math.max(arrival, at);
        scored = Math.max(scored, at);
        continue;
      }
      const copy = this.lanes.copy?.(h.id, key);
      if (copy) {
        const at = this.readyAt(copy.id, now);
        arrival = Math.max(arrival, at);
        scored = Math.max(scored, at);
        continue;
      }
      if (transfers.some((t) => t.id === h.id)) continue;
      const at = this.readyAt(h.id, now);
      const bytes = tensorBytes(h);
      const ms = this.model.predictTransfer(h.device.key, key, bytes);
      transferMs += ms;
      transfers.push({ id: h.id, from: h.device.key, bytes, ms, arrival: at + ms });
      arrival = Math.max(arrival, at + ms);
      scored = Math.max(scored, at + ms / (1 + this.usesOf(h.id)));
    }
    const p = this.model.predict(fp, key);
    const runMs = p.source === 'none' ? Number.NaN : p.ms;
    const run = p.source === 'none' ? 0 : p.ms;
    const free = this.laneFree(key, now);
    const start = Math.max(free, arrival);
    return [{ device: key, runMs, source: p.source, transferMs, start, finish: start + run, score: Math.max(free, scored) + run }, transfers];
  }

  private usesOf(id: number): number {
    return this.uses.get(id) ?? this.usesOld.get(id) ?? 0;
  }

  private used(inputs: readonly Handle[]): void {
    for (const h of inputs) {
      if (this.uses.size >= READY_CAPACITY) {
        this.usesOld = this.uses;
        this.uses = new Map();
      }
      this.uses.set(h.id, this.usesOf(h.id) + 1);
    }
  }

  /** The device holding most of the inputs' bytes (the first input's on a tie). */
  home(inputs: readonly Handle[]): Device {
    const bytes = new Map<string, number>();
    let best = inputs[0]!.device;
    let most = -1;
    for (const h of inputs) {
      const b = (bytes.get(h.device.key) ?? 0) + tensorBytes(h);
      bytes.set(h.device.key, b);
      if (b > most) {
        most = b;
        best = h.device;
      }
    }
    // The home must be a candidate (it is, unless inputs live on a device the placer does not use).
    return this.devices.find((d) => d.key === best.key) ?? this.devices[0]!;
  }

  decide(op: string, fp: Footprint, inputs: readonly Handle[]): Decision {
    const now = this.lanes.now();
    const all = this.devices.map((d) => this.estimate(fp, inputs, d, now));
    this.used(inputs);
    const estimates = all.map(([e]) => e);
    const home = this.home(inputs);
    const homeIdx = this.devices.indexOf(home);
    this.placed++;
    // Leaving home also costs the way back: the next ops are expected where the inputs are, so a
    // lone op sent elsewhere (a ping-pong) must gain more than both moves.
    const scores = estimates.map((e, i) => (i === homeIdx ? e.score : e.score + this.model.predictTransfer(e.device, home.key, fp.outBytes)));
    let known = -1;
    for (let i = 0; i < estimates.length; i++) {
      const e = estimates[i]!;
      if (e.source !== 'none' && (known < 0 || scores[i]! < scores[known]!)) known = i;
    }
    // Exploration: a device whose history is short, not predicted far slower than the best, within budget.
    // The budget: after this op, at most explore * placed + 1 ops explored (the +1 lets the first op explore).
    if (this.explore > 0 && this.explored <= this.explore * this.placed) {
      const bestSpan = known >= 0 ? scores[known]! - now : Infinity;
      let pick = -1;
      let pickSamples = Infinity;
      for (let i = 0; i < estimates.length; i++) {
        const e = estimates[i]!;
        if (e.source === 'history' || e.source === 'regression') continue;
        const samples = this.model.estimate(fp, e.device)?.kept ?? 0;
        if (samples >= this.model.minSamples) continue;
        if (e.source === 'partial' && scores[i]! - now > this.slack * bestSpan) continue;
        // Fewest samples first; on a tie, away from home (home is measured whenever nothing is known).
        if (samples < pickSamples || (samples === pickSamples && pick === homeIdx)) {
          pick = i;
          pickSamples = samples;
        }
      }
      if (pick >= 0) {
        this.explored++;
        return this.decision(op, fp, pick, 'explore', all, now);
      }
    }
    if (known < 0) return this.decision(op, fp, homeIdx, 'unknown', all, now);
    const h = estimates[homeIdx]!;
    if (known !== homeIdx && h.source !== 'none') {
      const gain = h.score - scores[known]!;
      if (gain <= this.margin * (h.score - now)) return this.decision(op, fp, homeIdx, 'home', all, now);
    }
    return this.decision(op, fp, known, known === homeIdx ? 'home' : 'earliest', all, now);
  }

  /** A decision made elsewhere (a traced plan, a calibration step), with its predictions. */
  forced(op: string, fp: Footprint, inputs: readonly Handle[], device: Device, reason: Reason): Decision {
    this.placed++;
    const now = this.lanes.now();
    // Only the chosen device is estimated: a replayed step places each op at little cost.
    const [e, transfers] = this.estimate(fp, inputs, device, now);
    this.used(inputs);
    return { device, at: now, op, reason, runMs: e.runMs, source: e.source, start: e.start, finish: e.finish, transfers, estimates: [e] };
  }

  /**
   * A replayed decision (a traced plan, each device alone): the device is given, so only the
   * transfers it needs and its predicted run time are worked out; no finish is predicted (NaN)
   * and nothing is booked: the step's prediction is the plan's.
   */
  replayed(op: string, fp: Footprint, inputs: readonly Handle[], device: Device, reason: Reason): Decision {
    this.placed++;
    const key = device.key;
    const transfers: PlannedTransfer[] = [];
    for (const h of inputs) {
      if (h.device.key === key || this.lanes.copy?.(h.id, key) || transfers.some((t) => t.id === h.id)) continue;
      const bytes = tensorBytes(h);
      transfers.push({ id: h.id, from: h.device.key, bytes, ms: this.model.predictTransfer(h.device.key, key, bytes), arrival: Number.NaN });
    }
    const p = this.model.predict(fp, key);
    const runMs = p.source === 'none' ? Number.NaN : p.ms;
    return { device, at: this.lanes.now(), op, reason, runMs, source: p.source, start: Number.NaN, finish: Number.NaN, transfers, estimates: [] };
  }

  /**
   * An op on the one device every op runs on, in a step that is not timed: nothing is predicted,
   * estimated or booked; only the inputs that live elsewhere without a kept copy there move.
   */
  pinned(op: string, inputs: readonly Handle[], device: Device): Decision {
    const key = device.key;
    const transfers: PlannedTransfer[] = [];
    for (const h of inputs) {
      if (h.device.key === key || this.lanes.copy?.(h.id, key) || transfers.some((t) => t.id === h.id)) continue;
      transfers.push({ id: h.id, from: h.device.key, bytes: tensorBytes(h), ms: Number.NaN, arrival: Number.NaN });
    }
    return { device, at: Number.NaN, op, reason: 'alone', runMs: Number.NaN, source: 'none', start: Number.NaN, finish: Number.NaN, transfers, estimates: [] };
  }

  private decision(op: string, fp: Footprint, i: number, reason: Reason, all: ReadonlyArray<[DeviceEstimate, PlannedTransfer[]]>, at: number): Decision {
    const [e, transfers] = all[i]!;
    return { device: this.devices[i]!, at, op, reason, runMs: e.runMs, source: e.source, start: e.start, finish: e.finish, transfers, estimates: all.map(([x]) => x) };
  }

  /** The op was submitted as decided: its lane is booked until its predicted finish, its outputs ready then. */
  commit(d: Decision, outputs: ReadonlyArray<{ readonly id: number }>): void {
    if (Number.isNaN(d.finish)) return; // replayed: nothing predicted, nothing booked
    const key = d.device.key;
    this.booked.set(key, Math.max(this.booked.get(key) ?? 0, d.finish));
    for (const o of outputs) this.setReady(o.id, d.finish);
  }

  /** A transfer the op needed was submitted: its output is ready when the input has arrived. */
  bookTransfer(d: Decision, input: number, output: number): void {
    const t = d.transfers.find((x) => x.id === input);
    if (t && !Number.isNaN(t.arrival)) this.setReady(output, t.arrival);
  }

  private setReady(id: number, at: number): void {
    if (this.ready.size >= READY_CAPACITY) {
      this.readyOld = this.ready;
      this.ready = new Map();
    }
    this.ready.set(id, at);
  }
}
