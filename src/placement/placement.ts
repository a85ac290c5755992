/**
 * Placement for a Router in `auto` or `trace` mode: answers the tensor API's `place` question,
 * watches the records the router submits (to book lanes and ready times and to trace steps), and
 * keeps a log per step for `explain()`.
 *
 * - auto: every op is placed online by dmda (dmda.ts).
 * - trace: the first step (ops between two `markStep()` calls) is placed online and recorded;
 *   the next steps run the whole step on each device alone (`traceCalibrationRuns` each: every op
 *   measured everywhere, and a baseline); then HEFT plans the recorded graph (trace.ts) and every
 *   later step replays the plan. A step that differs from the recording is placed online and
 *   recorded again; measured op times that drift from the plan's by more than `drift`, inputs
 *   made by the previous step or the same every step, or found on other devices than planned,
 *   re-plan it.
 * - With steps, both modes choose by measured step time among every device alone and the mixed
 *   placement (online, or the plan when it is predicted faster than each device alone), with
 *   hysteresis and re-checks (selector.ts): a model that predicts badly costs only the measuring.
 * - Once the choice is one device alone, its steps are untimed but for one in `sampleEvery`: the
 *   profiler stops watching events (the scheduler then reads no clock per op, a GPU waits for no
 *   batch), nothing is predicted or logged per op, and an op whose inputs all live on that device
 *   takes the explicit path (placement returns no device). Only the step's wall time is read, which
 *   is all the selector's re-checks need; the re-check steps themselves are timed.
 */
import type { Observable, Subscription } from 'rxjs';
import type { Backend, Handle } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { OpAttrs, OpName, OpRecord } from '../ir/ops.js';
import type { Runtime } from '../runtime/runtime.js';
import type { OpEvent } from '../scheduler/events.js';
import { clock } from '../scheduler/clock.js';
import { fromData } from '../tensor/creation.js';
import { Dmda, type Decision, type DmdaOptions } from './dmda.js';
import { explainStep, StepLog, type Explanation, type LoggedOp, type LoggedTransfer } from './explain.js';
import { footprint, signature, type Footprint } from './footprint.js';
import { Profiler, type ProfilerOptions } from './profiler.js';
import { StepSelector, type SelectorOptions } from './selector.js';
import { StepTimes } from './step-times.js';
import { planStep, sameInputs, StepGraph, type Plan, type TraceInput, type TraceNode } from './trace.js';

export type PlacementMode = 'explicit' | 'auto' | 'trace';

export interface PlacementOptions extends ProfilerOptions, DmdaOptions {
  /** Re-plan a traced step when its measured op times differ from the plan's by more than this fraction (default 0.2). */
  drift?: number;
  /** Measure transfers between every pair of devices at first use, unless saved models have them (default true). */
  calibrate?: boolean;
  /** Time the transfer calibration may take (default 2000 ms). */
  calibrationBudgetMs?: number;
  /** Steps a traced step runs on each device alone before it is planned (default 3: a warm-up, then the least of two is its time alone; 0: none, and no baseline). */
  traceCalibrationRuns?: number;
  /** Steps between re-checks of the measured choice (the runner-up runs 2 steps; the interval doubles while the choice holds, up to 800); default 50, 0: never. */
  recheckEvery?: number;
  /** While every op runs on one device the selector chose, one step in this many is timed op by op (the first one included); the others only by wall time. Default 50; 0 or 1: every step. */
  sampleEvery?: number;
  /** Where op events come from (default: the runtime's scheduler); tests feed synthetic ones. */
  events?: Observable<OpEvent>;
}

/** What placement needs from its router. */
export interface PlacementHost {
  readonly name: string;
  readonly runtime: Runtime;
  /** Where ops may go: one device per inner backend. */
  readonly devices: readonly Device[];
  /** Makes the calibration's tensors (the router itself). */
  readonly backend: Backend;
  /** Names of the devices and their adapters: models are saved per machine and adapters. */
  adapters(): Promise<string[]>;
}

/** Ops that stay with their input: views and copies cost nothing worth a transfer. */
const STAYS = new Set<string>(['reshape', 'permute', 'slice', 'expand', 'copy', 'transfer']);

/** Ops logged per step at most (a longer traced step is explained by its first ones). */
const LOG_CAPACITY = 20_000;

/** Completed steps whose measurements are still collected. */
const KEEP_LOGS = 8;

/** One step in this many is timed op by op while one device alone is the choice. */
const SAMPLE_EVERY = 50;

/** A plan (or online placement) must beat the best device alone by more than this fraction, measured (and, for a plan, predicted first). */
const SINGLE_DEVICE_SLACK = 0.05;

/** The selector's names for the HEFT plan and online placement (devices go by their keys). */
const PLAN = 'plan';
const ONLINE = 'online';

/**
 * The selector's candidates in order of preference: the devices alone, fastest first, then the
 * mixed placement (on a tie within the hysteresis, the simpler candidate wins).
 */
function candidates(alone: ReadonlyMap<string, number>, mixed?: string, mixedMs?: number): Map<string, number> {
  const c = new Map([...alone].sort((a, b) => a[1] - b[1]));
  if (mixed !== undefined && mixedMs !== undefined) c.set(mixed, mixedMs);
  return c;
}

function describe(candidate: string): string {
  return candidate === PLAN ? 'the plan' : candidate === ONLINE ? 'online placement' : `${candidate} alone`;
}

interface Pending {
  readonly decision: Decision;
  readonly node: number;
  /** The model's predicted time on the chosen device when it was placed. */
  readonly predictedMs: number;
  /** A replayed plan's cost for the op. */
  readonly plannedMs?: number;
  readonly transfers: LoggedTransfer[];
  /** In a step of a repeated placement: where its time is booked (step-times.ts). */
  readonly repeat?: RepeatSlot;
}

/** An op of a step of a repeated placement (every op on one device, a replayed plan): its position and footprint there. */
interface RepeatSlot {
  readonly placement: string;
  readonly position: number;
  /** Footprint key and device. */
  readonly key: string;
}

type Phase = 'record' | 'calibrate' | 'replay';

export class Placement {
  readonly profiler: Profiler;
  readonly dmda: Dmda;
  private readonly drift: number;
  private readonly calibrationRuns: number;
  private readonly loaded: Promise<boolean>;
  private calibration: Promise<void> | undefined;
  private used = false;
  private pending: Pending | undefined;
  private readonly sampleSub: Subscription;
  private readonly notes: string[] = [];
  // Steps and their logs.
  private step = 0;
  private log: StepLog;
  private readonly done: StepLog[] = [];
  private readonly tracked = new Map<number, { item: LoggedOp | LoggedTransfer; log: StepLog; repeat?: RepeatSlot }>();
  /** Op times measured in earlier steps of the same placement (a device's warm-up step aside). */
  readonly stepTimes = new StepTimes();
  /** Each plan's name among the placements of stepTimes: plans that put every op where another did share it. */
  private planIds = new WeakMap<Plan, number>();
  private planPlacements: Array<{ readonly id: number; readonly devices: readonly string[] }> = [];
  private planPlacementsMade = 0;
  // Trace state.
  private phase: Phase = 'record';
  private graph = new StepGraph();
  /** The step before the current one (its nodes made the current step's carried inputs). */
  private previous: StepGraph | undefined;
  private traced: StepGraph | undefined;
  private plan: Plan | undefined;
  private plans = 0;
  private queue: Device[] = [];
  private calibrationRun = 0;
  private index = 0;
  private mismatch = false;
  private moved = false;
  private movedReplans = 0;
  /** Inputs from before the step that were the same tensors in the last two steps (moving them once pays). */
  private constants = new Set<number>();
  private plannedConstants = 0;
  /** Where an auto router is in its steps: learning online, each device alone, online (judged), or on one device. */
  private autoPhase: 'learn' | 'alone' | 'online' | 'fallback' = 'learn';
  /** The step from which online steps count for the judgement. */
  private onlineSince = 0;
  /** Each device's step alone: the least wall time of its calibration steps after the first (a warm-up). */
  private alone = new Map<string, number>();
  /** Whether the current plan's measured steps were compared with the devices alone. */
  private judged = false;
  /** The device a traced step runs on alone, when the plan lost to it. */
  private fallback: string | undefined;
  /** The last HEFT plan (a candidate of the selector, beside each device alone). */
  private heftPlan: Plan | undefined;
  /** The measured choice among candidates (each device alone; the plan, or online placement). */
  private selector: StepSelector | undefined;
  private readonly selectorOptions: SelectorOptions;
  /** Recent measured times per node (on the device it ran on), taken by later plans until the next drift. */
  private recent: ReadonlyMap<number, { device: string; ms: number }> | undefined;
  // Copies moved for placed ops, kept while their source lives: source id -> device key -> copy.
  private readonly replicas = new Map<number, Map<string, Handle>>();
  private readonly keptTransfers = new Set<number>();
  /** Inputs of the op being placed whose copy was asked for and not found: their transfers may be kept. */
  private asked: Array<[number, string]> = [];
  // Untimed steps (every op on one device the selector settled on).
  private readonly sampleEvery: number;
  /** The device the current step runs every op on untimed, if it is such a step. */
  private quietOn: string | undefined;
  /** The device settled on, and the step its settling began (counting which steps are sampled). */
  private settledOn: string | undefined;
  private settledAt = 0;
  /** The profiler stops watching at the next step end, events of timed ops still outstanding or not. */
  private quietDue = false;
  /** The latest ended step that was timed op by op (what explain() shows after untimed steps). */
  private lastTimed: StepLog | undefined;
  /** The current step runs a re-check's challenger. */
  private trialStep = false;
  private untimedSteps = 0;
  private untimedOps = 0;

  constructor(
    readonly mode: 'auto' | 'trace',
    private readonly host: PlacementHost,
    private readonly options: PlacementOptions = {},
  ) {
    this.profiler = new Profiler(options.events ?? host.runtime.events$, options);
    this.dmda = new Dmda(this.profiler.model, { now: () => clock.now(), depth: (d) => host.runtime.lane(d).depth, copy: (id, d) => this.replicas.get(id)?.get(d) }, host.devices, options);
    this.drift = options.drift ?? 0.2;
    this.calibrationRuns = options.traceCalibrationRuns ?? 3;
    this.sampleEvery = Math.max(Math.floor(options.sampleEvery ?? SAMPLE_EVERY), 0);
    // The runtime's events are watched from the first placed op: routers that share a runtime and
    // have not placed anything yet would otherwise time every op the others run.
    if (options.events === undefined) this.profiler.quiet(true);
    this.selectorOptions = { hysteresis: SINGLE_DEVICE_SLACK, ...(options.recheckEvery !== undefined ? { recheckEvery: options.recheckEvery } : {}) };
    this.log = new StepLog(0);
    this.loaded = host
      .adapters()
      .then((a) => {
        this.profiler.identify(a);
        return this.profiler.load();
      })
      .catch((e: unknown) => {
        this.notes.push(`saved models not loaded: ${e instanceof Error ? e.message : String(e)}`);
        return false;
      });
    this.sampleSub = this.profiler.samples$.subscribe((s) => {
      const hit = this.tracked.get(s.event.opId);
      if (!hit) return;
      this.tracked.delete(s.event.opId);
      hit.item.measuredMs = s.ms;
      if (s.group && 'op' in hit.item) hit.item.group = s.group;
      if (hit.repeat) this.stepTimes.add(hit.repeat.placement, hit.repeat.position, hit.repeat.key, s.ms);
      hit.log.seen(s.event.queuedAt, s.event.endAt);
    });
  }

  /** Resolves once saved models are loaded (true when a file was read). */
  ready(): Promise<boolean> {
    return this.loaded;
  }

  // ---- the tensor API's question ---------------------------------------------------------

  place(op: OpName, inputs: readonly Handle[], attrs: OpAttrs[OpName]): Device | undefined {
    if (inputs.length === 0 || STAYS.has(op)) return undefined;
    const quiet = this.quietOn;
    if (quiet !== undefined) {
      // An untimed step: its wall time runs from its first placed op.
      if (this.log.startedAt === Infinity) this.log.startedAt = clock.now();
      this.untimedOps++;
      // Every input already there: the explicit path, as the device alone would take.
      if (this.mode === 'auto') {
        if (allOn(inputs, quiet)) return undefined;
      } else if (this.untimedTraced(op, inputs, quiet)) return undefined;
    }
    if (!this.used) this.firstUse();
    this.asked = [];
    if (quiet !== undefined) {
      // An untimed step's op with inputs elsewhere: they move (or their kept copies serve), nothing predicted.
      const decision = this.dmda.pinned(op, inputs, this.host.devices.find((d) => d.key === quiet)!);
      this.pending = { decision, node: -1, predictedMs: Number.NaN, transfers: [] };
      return decision.device;
    }
    let fp: Footprint;
    let decision: Decision;
    let node = -1;
    let planned: number | undefined;
    if (this.mode === 'auto') {
      fp = footprint(op, inputs, attrs);
      decision = this.autoDecide(op, fp, inputs);
    } else {
      const sig = signature(op, inputs);
      const i = this.index++;
      const resolved = this.graph.resolve(inputs);
      const was = this.traced?.nodes[i];
      const same = !this.mismatch && was !== undefined && was.sig === sig && sameInputs(was.inputs, resolved);
      // The same op as recorded (exact shapes and dtypes): its footprint is the recorded one.
      fp = same ? was.fp : footprint(op, inputs, attrs);
      node = this.graph.addResolved(op, sig, fp, resolved, inputs);
      if (!same) this.mismatch = this.phase !== 'record';
      if (this.phase === 'calibrate' && same) decision = this.dmda.forced(op, fp, inputs, this.queue[0]!, 'calibrate');
      else if (this.phase === 'replay' && same && this.plan) {
        const target = this.host.devices.find((d) => d.key === this.plan!.devices[i])!;
        decision = this.dmda.replayed(op, fp, inputs, target, this.fallback !== undefined ? 'alone' : 'plan');
        planned = this.plan.costs[i];
        if (movedInputs(was!.inputs, this.graph.nodes[node]!.inputs)) this.moved = true;
      } else decision = this.dmda.decide(op, fp, inputs);
    }
    // The model's prediction as the op is placed (it follows the measurements); a replayed step's
    // drift is judged against the plan's own costs. In a step of a repeated placement (every op on
    // one device, a replayed plan), the times the same op took in its earlier steps, where there
    // are any (step-times.ts): nothing is decided on it (the device is given).
    let predictedMs = Number.isNaN(decision.runMs) ? (planned ?? Number.NaN) : decision.runMs;
    const repeat = this.repeatSlot(decision, fp);
    if (repeat) predictedMs = this.stepTimes.predict(repeat.placement, repeat.position, repeat.key) ?? predictedMs;
    this.pending = { decision, node, predictedMs, ...(planned !== undefined ? { plannedMs: planned } : {}), transfers: [], ...(repeat ? { repeat } : {}) };
    return decision.device;
  }

  /** Where an op's time is booked when its step is one of a repeated placement and the op was placed as such. */
  private repeatSlot(decision: Decision, fp: Footprint): RepeatSlot | undefined {
    const on = this.log.repeat;
    if (!on || (decision.reason !== 'alone' && decision.reason !== 'calibrate' && decision.reason !== 'plan')) return undefined;
    return { placement: on.placement, position: this.log.ops.length, key: `${fp.key}@${decision.device.key}` };
  }

  /**
   * A traced step's op in an untimed step: compared with the recording by op and input shapes
   * only (no step graph is built); true when it runs on the settled device by the explicit path.
   * An op with inputs elsewhere is placed there as replayed; one that differs from the recording
   * marks the step, which is then recorded again.
   */
  private untimedTraced(op: OpName, inputs: readonly Handle[], on: string): boolean {
    const i = this.index++;
    const was = this.traced?.nodes[i];
    if (!this.mismatch && (was === undefined || !sameShapes(was, op, inputs))) this.mismatch = true;
    return allOn(inputs, on);
  }

  /** An auto router's steps: online, each device alone, or every op on the device that beat online placement. */
  private autoDecide(op: string, fp: ReturnType<typeof footprint>, inputs: readonly Handle[]): Decision {
    if (this.autoPhase === 'alone') return this.dmda.forced(op, fp, inputs, this.queue[0]!, 'calibrate');
    if (this.autoPhase === 'fallback') return this.dmda.replayed(op, fp, inputs, this.host.devices.find((d) => d.key === this.fallback)!, 'alone');
    return this.dmda.decide(op, fp, inputs);
  }

  /** Every record the router submitted (placed or not), in order. */
  submitted(record: OpRecord): void {
    const p = this.pending;
    if (record.op === 'transfer') {
      const input = record.inputs[0]!.id;
      const output = record.outputs[0]!.id;
      if (this.mode === 'trace') this.graph.alias(output, input);
      const t = p?.decision.transfers.find((x) => x.id === input);
      if (p && t) {
        this.dmda.bookTransfer(p.decision, input, output);
        // Kept only where the layers above asked for a copy (an autodiff tape does not for tensors it tracks).
        if (this.asked.some(([id, d]) => id === input && d === record.device)) {
          let copies = this.replicas.get(input);
          if (!copies) this.replicas.set(input, (copies = new Map()));
          copies.set(record.device, { id: output, shape: record.outputs[0]!.shape, dtype: record.outputs[0]!.dtype, device: p.decision.device });
          this.keptTransfers.add(record.id);
        }
        if (this.quietOn !== undefined) return; // an untimed step logs nothing
        const logged: LoggedTransfer = { bytes: t.bytes, predictedMs: t.ms };
        p.transfers.push(logged);
        this.track(record.id, logged);
      }
      return;
    }
    if (p && record.op === p.decision.op && record.device === p.decision.device.key) {
      this.pending = undefined;
      this.dmda.commit(p.decision, record.outputs);
      if (p.node >= 0) this.graph.produced(p.node, record.outputs);
      if (this.quietOn !== undefined) return; // an untimed step logs no op
      // Without markStep() an auto router's log rolls over, as if a step ended every LOG_CAPACITY ops.
      if (this.mode === 'auto' && this.log.ops.length >= LOG_CAPACITY) this.markStep();
      const log = this.log;
      if (log.ops.length < LOG_CAPACITY) {
        const d = p.decision;
        const entry: LoggedOp = { op: d.op, shape: `[${record.outputs[0]?.shape.join(', ') ?? ''}]`, device: d.device.key, reason: d.reason, source: d.source, predictedMs: p.predictedMs, ...(p.plannedMs !== undefined ? { plannedMs: p.plannedMs } : {}), transfers: p.transfers, ...(p.node >= 0 ? { node: p.node } : {}) };
        log.ops.push(entry);
        // A warm-up step's times (kernels compile, pools grow) are not booked.
        this.track(record.id, entry, p.repeat && !log.repeat?.warmup ? p.repeat : undefined);
        log.startedAt = Math.min(log.startedAt, d.at);
        if (!Number.isNaN(d.finish)) log.predictedEnd = Math.max(log.predictedEnd, d.finish);
      }
      return;
    }
    if (this.mode !== 'trace' || this.quietOn !== undefined) return;
    // Views and other unplaced ops of one input: their output stands for the input in the step graph.
    if (record.inputs.length === 1) for (const o of record.outputs) this.graph.alias(o.id, record.inputs[0]!.id);
    // Tensors created inside the step (a backward pass's seed): where they appear follows the plan.
    else if (record.inputs.length === 0) for (const o of record.outputs) this.graph.created(o.id);
  }

  /** A copy of tensor `id` on `device` moved earlier for a placed op, if it is still kept. */
  replica(id: number, device: string): Handle | undefined {
    const copy = this.replicas.get(id)?.get(device);
    if (!copy) this.asked.push([id, device]);
    return copy;
  }

  /** Whether the router should keep (retain) the output of this transfer record: a copy placement moved. */
  keeps(record: OpRecord): boolean {
    return record.op === 'transfer' && this.keptTransfers.delete(record.id);
  }

  hasReplicas(id: number): boolean {
    return this.replicas.has(id);
  }

  /** The copies of a source that is gone: the router releases them. */
  dropReplicas(id: number): Handle[] {
    const copies = this.replicas.get(id);
    this.replicas.delete(id);
    return copies ? [...copies.values()] : [];
  }

  private track(opId: number, item: LoggedOp | LoggedTransfer, repeat?: RepeatSlot): void {
    this.tracked.set(opId, repeat ? { item, log: this.log, repeat } : { item, log: this.log });
  }

  // ---- steps --------------------------------------------------------------------------------

  /** Ends a step: the next ops belong to the next one. A traced step is recorded, measured, planned or checked here. */
  markStep(): void {
    const ended = this.log;
    // The step's time: from its first placed op to here (time between steps, spent elsewhere, is not its).
    if (Number.isFinite(ended.startedAt)) ended.wallMs = clock.now() - ended.startedAt;
    ended.untimed = this.quietOn;
    if (ended.untimed !== undefined) this.untimedSteps++;
    // A re-check's step ran another candidate: the settled choice's sample stays the one to show.
    else if (ended.ops.length > 0 && (!this.trialStep || this.lastTimed === undefined)) this.lastTimed = ended;
    this.done.push(ended);
    if (this.mode === 'trace') this.traceStep(ended);
    else this.autoStep(ended);
    while (this.done.length > KEEP_LOGS) {
      const old = this.done.shift()!;
      if (this.tracked.size > 0) for (const [id, v] of this.tracked) if (v.log === old) this.tracked.delete(id);
    }
    this.step++;
    this.log = new StepLog(this.step);
    if (this.mode === 'trace' && this.phase === 'replay' && this.plan) {
      // Once the plan was measured against the devices alone, its step is predicted at its measured time.
      this.log.plannedMs = (this.fallback === undefined ? this.selector?.timeOf(PLAN) : undefined) ?? this.plan.makespan;
      this.log.plan = this.plans;
    }
    // Every op on one device: the step is predicted to take what it measured there.
    if (this.mode === 'auto' && this.autoPhase === 'fallback' && this.fallback !== undefined) this.log.plannedMs = this.selector?.timeOf(this.fallback) ?? this.alone.get(this.fallback);
    // An auto router builds no step graph.
    if (this.mode === 'trace') this.graph = new StepGraph(this.previous);
    this.index = 0;
    this.mismatch = false;
    this.pending = undefined;
    this.chooseTiming();
    // An untimed step logs no op: it books no times.
    const repeat = this.quietOn === undefined ? this.repeatedPlacement() : undefined;
    this.log.repeat = repeat;
  }

  /**
   * The placement the coming step repeats, if it does: every op on one device as a selector's
   * candidate (a calibration step, the choice of a device alone; the first of a device's
   * calibration steps is a warm-up), or a traced step's plan.
   */
  private repeatedPlacement(): { placement: string; warmup: boolean } | undefined {
    const calibrating = this.mode === 'auto' ? this.autoPhase === 'alone' : this.phase === 'calibrate';
    if (calibrating && this.queue.length > 0) return { placement: `alone:${this.queue[0]!.key}`, warmup: this.calibrationRun === 0 && this.calibrationRuns > 1 };
    const fallback = this.mode === 'auto' ? (this.autoPhase === 'fallback' ? this.fallback : undefined) : this.phase === 'replay' ? this.fallback : undefined;
    if (fallback !== undefined) return { placement: `alone:${fallback}`, warmup: false };
    if (this.mode !== 'trace' || this.phase !== 'replay' || !this.plan) return undefined;
    return { placement: `plan:${this.planId(this.plan)}`, warmup: false };
  }

  /** The plan's placement among those seen (the devices of its ops; the latest few are kept). */
  private planId(plan: Plan): number {
    let id = this.planIds.get(plan);
    if (id !== undefined) return id;
    const same = (a: readonly string[]) => a.length === plan.devices.length && a.every((d, i) => d === plan.devices[i]);
    id = this.planPlacements.find((p) => same(p.devices))?.id;
    if (id === undefined) {
      id = this.planPlacementsMade++;
      this.planPlacements.push({ id, devices: plan.devices });
      if (this.planPlacements.length > 8) this.planPlacements.shift();
    }
    this.planIds.set(plan, id);
    return id;
  }

  /**
   * Whether the coming step is timed op by op: it is not while every op runs on the one device the
   * selector settled on (not a re-check's step), except for one step in `sampleEvery` from the
   * settling on. The profiler stops watching once the timed ops' events are in (or a step later).
   */
  private chooseTiming(): void {
    const on = this.settledChoice();
    // A re-check's steps leave the count as it was: only a new choice starts it again.
    if (on !== this.settledOn && (on !== undefined || !this.rechecking())) {
      this.settledOn = on;
      this.settledAt = this.step;
    }
    this.trialStep = this.rechecking();
    // Steps that only a wall time is wanted of run untimed too: a re-check of a device alone, and
    // an auto router's last calibration run on a device (the ones before it taught the models).
    // Timed, their inline CPU ops would pay the profiling on the step's clock, and a GPU's mostly
    // would not: the comparison would lean to the GPU.
    const quietOther = this.sampleEvery > 1 ? (this.challengerAlone() ?? this.lastCalibrationRun()) : undefined;
    const untimed = quietOther !== undefined || (on !== undefined && this.sampleEvery > 1 && (this.step - this.settledAt) % this.sampleEvery !== 0);
    this.quietOn = untimed ? (quietOther ?? on) : undefined;
    if (!untimed) {
      this.quietDue = false;
      if (this.used) this.profiler.quiet(false);
    } else if (!this.profiler.watching) this.quietDue = false; // quiet already: nothing to flush
    else if (this.quietDue || (this.profiler.flush(), this.tracked.size === 0)) {
      this.quietDue = false;
      this.profiler.quiet(true);
    } else this.quietDue = true;
  }

  /** The device every op of the coming step runs on as a re-check's challenger, if the challenger is a device alone. */
  private challengerAlone(): string | undefined {
    const s = this.selector;
    if (!s || s.current === s.incumbent || this.fallback !== s.current) return undefined;
    return this.mode === 'auto' ? (this.autoPhase === 'fallback' ? this.fallback : undefined) : this.phase === 'replay' && this.judged ? this.fallback : undefined;
  }

  /** The device of an auto router's coming calibration step when it is the last of at least three on it. */
  private lastCalibrationRun(): string | undefined {
    if (this.mode !== 'auto' || this.autoPhase !== 'alone' || this.calibrationRuns < 3 || this.calibrationRun !== this.calibrationRuns - 1) return undefined;
    return this.queue[0]?.key;
  }

  /** The device every op of the coming step runs on as the selector's settled choice (not a re-check), if any. */
  private settledChoice(): string | undefined {
    const s = this.selector;
    if (!s || this.fallback === undefined || s.current !== s.incumbent || s.current !== this.fallback) return undefined;
    if (this.mode === 'auto') return this.autoPhase === 'fallback' ? this.fallback : undefined;
    return this.phase === 'replay' && this.judged && this.plan !== undefined ? this.fallback : undefined;
  }

  /** The device every op runs on as the selector's settled choice (undefined before it, for a mixed placement, and during a re-check). */
  get settledDevice(): string | undefined {
    return this.settledOn !== undefined && !this.rechecking() ? this.settledOn : undefined;
  }

  /** Whether the coming step is a re-check's (a challenger of the selector's choice runs). */
  private rechecking(): boolean {
    const s = this.selector;
    return s !== undefined && s.current !== s.incumbent;
  }

  /** Steps and ops that ran untimed so far (every op on a settled device, nothing profiled). */
  get untimed(): { steps: number; ops: number } {
    return { steps: this.untimedSteps, ops: this.untimedOps };
  }

  private traceStep(ended: StepLog): void {
    if (ended.untimed !== undefined) {
      this.untimedTraceStep(ended);
      return;
    }
    const g = this.graph;
    g.link();
    this.previous = g;
    if (g.nodes.length === 0) return;
    const changed = this.mismatch || (this.traced !== undefined && g.nodes.length !== this.traced.nodes.length);
    if (this.phase !== 'record' && changed) {
      this.recordAgain(ended);
      return;
    }
    let linked = 0;
    if (this.phase !== 'record' && this.traced) {
      const before = this.traced.externals();
      this.constants = new Set([...g.externals()].filter((id) => before.has(id)));
      linked = this.traced.adoptLinks(g);
    }
    switch (this.phase) {
      case 'record': {
        this.traced = g;
        // Every device runs the whole step alone (the last of its runs is measured): that measures
        // ops without a prediction there, and gives the plan a baseline it has to beat.
        this.queue = [...this.host.devices];
        this.calibrationRun = 0;
        this.alone.clear();
        this.fallback = undefined;
        this.selector = undefined;
        this.heftPlan = undefined;
        if (this.calibrationRuns > 0) {
          this.phase = 'calibrate';
          this.note(`step ${ended.index}: recorded ${g.nodes.length} ops; running the step on ${this.queue.map((d) => d.key).join(', ')} alone (${this.calibrationRuns} steps each)`);
        } else this.replan(`step ${ended.index}: recorded ${g.nodes.length} ops`);
        return;
      }
      case 'calibrate':
        this.timeAlone(ended);
        if (this.queue.length === 0) this.replan(`step ${ended.index}: measured`);
        return;
      case 'replay': {
        // While every op runs on one device (a candidate alone), where the plan would put inputs does not matter.
        if (this.fallback !== undefined) {
          this.moved = false;
          this.plannedConstants = this.constants.size;
        }
        if (this.moved && this.movedReplans < 3) {
          // The step's inputs (parameters updated by the last step) live elsewhere than planned.
          this.traced = g;
          this.movedReplans++;
          this.moved = false;
          this.replan(`step ${ended.index}: inputs of the step moved`);
          return;
        }
        this.moved = false;
        if (linked > 0 && this.fallback === undefined) {
          this.replan(`step ${ended.index}: ${linked} inputs are made by the previous step (they stay where the plan puts their maker)`);
          return;
        }
        if (this.constants.size !== this.plannedConstants) {
          this.replan(`step ${ended.index}: ${this.constants.size} inputs are the same tensors every step (moved once, then kept)`);
          return;
        }
        if (this.judge(ended.index)) return;
        if (this.recheckTrace(ended)) return;
        if (this.fallback !== undefined) return;
        const m = this.measuredDrift();
        if (m !== undefined && Math.abs(m.drift) > this.drift) {
          this.movedReplans = 0;
          // The new plan takes the recent measurements for the ops as placed (the long histories follow slowly).
          this.replan(`step ${ended.index}: measured op times ${m.drift > 0 ? 'above' : 'below'} the plan's by ${Math.abs(100 * m.drift).toFixed(0)}%`, m.recent);
        }
        return;
      }
    }
  }

  /**
   * The selector's part of a replayed step: books its wall time, switches or starts a re-check;
   * returns true unless the plan runs and stays (then drift is checked).
   */
  private recheckTrace(ended: StepLog): boolean {
    const selector = this.selector;
    if (!selector || !this.judged) return false;
    const was = selector.current;
    // Steps just after a change of candidate are not its (the selector counted from the change).
    const change = ended.wallMs !== undefined && ended.plan === this.plans ? selector.record(ended.wallMs) : undefined;
    if (change) this.note(`step ${ended.index}: ${describe(change.to)}'s step took ${change.ms.toFixed(3)} ms, ${describe(change.from)}'s ${change.previousMs.toFixed(3)} ms: ${change.to === PLAN ? 'the plan runs' : `every op runs on ${change.to}`} (next check in ${selector.nextCheckIn} steps)`);
    else if (selector.current !== was && selector.current !== selector.incumbent) this.note(`step ${ended.index}: trying ${describe(selector.current)} again`);
    this.useTrace(selector.current);
    return selector.current !== PLAN || selector.incumbent !== PLAN;
  }

  /** The step's ops differ from the recorded ones: the next step is recorded afresh. */
  private recordAgain(ended: StepLog): void {
    this.note(`step ${ended.index}: the step's ops differ from the recorded ones; recording again`);
    this.stepTimes.clear();
    this.planPlacements = [];
    this.planIds = new WeakMap();
    this.phase = 'record';
    this.traced = undefined;
    this.plan = undefined;
    this.recent = undefined;
    this.moved = false;
  }

  /**
   * An untimed traced step (every op on the settled device, no step graph): one that differs from
   * the recording is recorded again; else only the selector hears of it. The next step links no
   * input to this one (it has no graph), which only the plan's steps would use.
   */
  private untimedTraceStep(ended: StepLog): void {
    this.previous = undefined;
    if (this.mismatch || this.index !== this.traced?.nodes.length) {
      this.recordAgain(ended);
      return;
    }
    this.recheckTrace(ended);
  }

  /**
   * (measured - planned) / planned, summed over the fully measured steps of the current plan among
   * the last few, with each node's mean measured time; undefined until two are measured (one
   * step's noise does not re-plan).
   */
  private measuredDrift(): { drift: number; recent: Map<number, { device: string; ms: number }> } | undefined {
    let predicted = 0;
    let measured = 0;
    let steps = 0;
    const sums = new Map<number, { device: string; ms: number; n: number }>();
    for (const log of this.done) {
      if (log.plan !== this.plans || !log.complete) continue;
      steps++;
      for (const o of log.ops) {
        const planned = o.plannedMs ?? o.predictedMs;
        if (Number.isNaN(planned) || o.measuredMs === undefined) continue;
        predicted += planned;
        measured += o.measuredMs;
        if (o.node === undefined) continue;
        const s = sums.get(o.node);
        if (s && s.device === o.device) {
          s.ms += o.measuredMs;
          s.n++;
        } else sums.set(o.node, { device: o.device, ms: o.measuredMs, n: 1 });
      }
    }
    if (steps < 2 || predicted <= 0) return undefined;
    const recent = new Map<number, { device: string; ms: number }>();
    for (const [node, s] of sums) recent.set(node, { device: s.device, ms: s.ms / s.n });
    return { drift: (measured - predicted) / predicted, recent };
  }

  /**
   * An auto router with steps (markStep) guards its online placement the way a traced step is
   * guarded: after one step online (the profiler learns), each device runs the steps alone
   * (`traceCalibrationRuns` each); then online placement must keep its steps within 5% of the
   * best device alone, or every op goes to that device; it tries online placement again after
   * 50 steps, against that device's recent steps.
   */
  private autoStep(ended: StepLog): void {
    if (ended.ops.length === 0 && ended.untimed === undefined) return;
    ended.phase = this.autoPhase;
    const step = ended.index;
    switch (this.autoPhase) {
      case 'learn':
        if (this.calibrationRuns === 0) return;
        this.autoPhase = 'alone';
        this.queue = [...this.host.devices];
        this.calibrationRun = 0;
        this.alone.clear();
        this.note(`step ${step}: running the steps on ${this.queue.map((d) => d.key).join(', ')} alone (${this.calibrationRuns} steps each)`);
        return;
      case 'alone':
        this.timeAlone(ended);
        if (this.queue.length === 0) {
          this.autoPhase = 'online';
          this.onlineSince = step + 1;
        }
        return;
      case 'online':
      case 'fallback': {
        const selector = this.selector;
        if (selector) {
          const was = selector.current;
          const change = ended.wallMs !== undefined ? selector.record(ended.wallMs) : undefined;
          if (change) this.note(`step ${step}: ${describe(change.to)}'s step took ${change.ms.toFixed(3)} ms, ${describe(change.from)}'s ${change.previousMs.toFixed(3)} ms: ${change.to === ONLINE ? 'placing online' : `every op runs on ${change.to}`} (next check in ${selector.nextCheckIn} steps)`);
          else if (selector.current !== was && selector.current !== selector.incumbent) this.note(`step ${step}: trying ${describe(selector.current)} again`);
          this.useAuto(selector.current);
          return;
        }
        const spans = this.done.flatMap((l) => (l.phase === 'online' && l.index >= this.onlineSince && l.wallMs !== undefined ? [l.wallMs] : []));
        if (spans.length < 2) return;
        this.onlineSince = Infinity;
        // Each device alone and online placement, by measured step (devices first: on a tie the simpler wins).
        const measured = candidates(this.alone, ONLINE, Math.min(...spans));
        const chosen = new StepSelector(measured, this.selectorOptions);
        this.selector = chosen;
        const pick = chosen.incumbent;
        this.useAuto(pick);
        if (pick === ONLINE) return;
        const others = [...measured].filter(([k]) => k !== ONLINE && k !== pick).map(([k, ms]) => `, ${k} alone ${ms.toFixed(3)} ms`).join('');
        this.note(`step ${step}: online placement's step took ${measured.get(ONLINE)!.toFixed(3)} ms, ${pick} alone ${measured.get(pick)!.toFixed(3)} ms${others}: every op runs on ${pick} (next check in ${chosen.nextCheckIn} steps)`);
        return;
      }
    }
  }

  /** Runs an auto router's next steps as `candidate` says: online, or every op on one device. */
  private useAuto(candidate: string): void {
    if (candidate === ONLINE) {
      this.autoPhase = 'online';
      this.fallback = undefined;
    } else {
      this.autoPhase = 'fallback';
      this.fallback = candidate;
    }
  }

  /** Books a calibration step's time for the device it ran on; moves to the next device after its runs. */
  private timeAlone(ended: StepLog): void {
    if (ended.wallMs !== undefined && (this.calibrationRun > 0 || this.calibrationRuns === 1)) {
      const key = this.queue[0]!.key;
      this.alone.set(key, Math.min(this.alone.get(key) ?? Infinity, ended.wallMs));
    }
    if (++this.calibrationRun >= this.calibrationRuns) {
      this.queue.shift();
      this.calibrationRun = 0;
    }
  }

  /**
   * Once two steps of a HEFT plan have run, chooses by measured wall time (first placed op to
   * markStep: what the program sees, reads included) among each device alone (its calibration
   * steps) and the plan: the plan stays only if it beats the best device alone by more than the
   * selector's hysteresis (5%). Returns whether the plan changed.
   */
  private judge(step: number): boolean {
    if (this.judged || this.fallback !== undefined) return false;
    const spans = this.done.flatMap((l) => (l.plan === this.plans && l.wallMs !== undefined ? [l.wallMs] : []));
    if (spans.length < 2) return false;
    this.judged = true;
    if (this.alone.size === 0) return false;
    const measured = candidates(this.alone, PLAN, Math.min(...spans));
    this.selector = new StepSelector(measured, this.selectorOptions);
    const pick = this.selector.incumbent;
    if (pick === PLAN) return false;
    this.useTrace(pick);
    this.note(`step ${step}: the plan's step took ${measured.get(PLAN)!.toFixed(3)} ms, ${pick} alone ${measured.get(pick)!.toFixed(3)} ms: every op runs on ${pick} (plan ${this.plans})`);
    return true;
  }

  /** A traced step's next steps run `candidate`: the HEFT plan, or every op on one device. */
  private useTrace(candidate: string): void {
    if (candidate === PLAN) {
      if (this.fallback === undefined && this.plan === this.heftPlan) return;
      this.fallback = undefined;
      this.plan = this.heftPlan;
    } else {
      if (this.fallback === candidate) return;
      this.fallback = candidate;
      this.plan = this.devicePlan(candidate, this.alone.get(candidate) ?? Number.NaN);
    }
    this.plans++;
  }

  /** Every node of the traced step on one device. */
  private devicePlan(device: string, makespan: number): Plan {
    const nodes = this.traced!.nodes;
    const preds = nodes.map((n) => this.profiler.model.predict(n.fp, device));
    return { devices: nodes.map(() => device), costs: preds.map((p) => p.ms), sigs: nodes.map((n) => n.sig), makespan, sources: preds.map((p) => p.source) };
  }

  /** The predicted step of every node on one device, one after another (transfers of inputs from elsewhere included). */
  private predictedAlone(device: string): number {
    let ms = 0;
    for (const n of this.traced!.nodes) {
      const p = this.profiler.model.predict(n.fp, device);
      if (p.source === 'none') return Infinity;
      ms += p.ms;
      for (const x of n.inputs) if ('id' in x && x.from === undefined && x.device !== device && !this.constants.has(x.id)) ms += this.profiler.model.predictTransfer(x.device, device, x.bytes);
    }
    return ms;
  }

  /** Plans made for traced steps so far (HEFT runs). */
  get plansMade(): number {
    return this.plans;
  }

  private replan(why: string, recent?: ReadonlyMap<number, { device: string; ms: number }>): void {
    if (!this.traced) return;
    const constants = this.constants;
    const measured = recent ?? this.recent;
    this.recent = measured;
    this.judged = false;
    this.plan = planStep(this.traced.nodes, this.profiler.model, this.host.devices, {
      movedOnce: (id, d) => constants.has(id) || this.replicas.get(id)?.has(d) === true,
      measured: (t, d) => (measured?.get(t)?.device === d ? measured.get(t)!.ms : undefined),
    });
    this.heftPlan = this.plan;
    this.plannedConstants = constants.size;
    this.plans++;
    this.phase = 'replay';
    this.fallback = undefined;
    const counts = new Map<string, number>();
    for (const d of this.plan.devices) counts.set(d, (counts.get(d) ?? 0) + 1);
    this.note(`${why}; planned with HEFT (plan ${this.plans}): ${[...counts].map(([d, n]) => `${n} on ${d}`).join(', ')}, makespan ${this.plan.makespan.toFixed(3)} ms`);
    // The devices alone were measured: a plan not predicted faster than each of them alone (every
    // single-device schedule is a candidate) is not worth its measuring steps.
    if (this.selector) for (const [k, ms] of this.selector.times()) if (k !== PLAN) this.alone.set(k, ms);
    this.selector = undefined;
    if (this.alone.size === 0) return;
    let bestKey: string | undefined;
    let bestMs = Infinity;
    for (const d of this.host.devices) {
      const ms = this.predictedAlone(d.key);
      if (ms < bestMs) [bestKey, bestMs] = [d.key, ms];
    }
    if (counts.size > 1 && this.plan.makespan < (1 - SINGLE_DEVICE_SLACK) * bestMs) return;
    this.judged = true;
    this.selector = new StepSelector(candidates(this.alone), this.selectorOptions);
    const pick = this.selector.incumbent;
    this.useTrace(pick);
    const reason = counts.size === 1 ? 'the plan uses one device' : `the plan is not predicted 5% faster than ${bestKey ?? 'a device'} alone (${Number.isFinite(bestMs) ? `${bestMs.toFixed(3)} ms` : 'unknown'})`;
    this.note(`${reason}; measured fastest alone: ${pick} (${this.alone.get(pick)!.toFixed(3)} ms): every op runs on ${pick} (plan ${this.plans})`);
  }

  private note(s: string): void {
    this.notes.push(s);
    if (this.notes.length > 20) this.notes.shift();
  }

  // ---- explain --------------------------------------------------------------------------

  /**
   * Resolves once every op of the last ended step has been measured (its event arrived), or after
   * `timeoutMs` (default 2000): GPU ops report when their command batch is done, after the step's
   * read may have returned. Await it before `explain()` for measured times of the whole step.
   */
  async settled(timeoutMs = 2000): Promise<boolean> {
    const until = performance.now() + timeoutMs;
    for (;;) {
      this.profiler.flush();
      const last = this.done[this.done.length - 1];
      const log = last?.untimed !== undefined ? this.lastTimed : last;
      if (!log || log.complete) return true;
      if (performance.now() >= until) return false;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** The latest ended step (or the current one when no step has ended), with measured times that have arrived. */
  explain(options: { step?: 'last' | 'current' } = {}): Explanation {
    this.profiler.flush();
    let log = options.step === 'current' || this.done.length === 0 ? this.log : this.done[this.done.length - 1]!;
    const notes = [...this.notes];
    const untimed = log === this.log ? this.quietOn : log.untimed;
    if (untimed !== undefined) {
      const what = `step ${log.index} ${log === this.log ? 'runs' : 'ran'} every op on ${untimed} untimed (${log.wallMs !== undefined ? `${log.wallMs.toFixed(3)} ms between markStep calls; ` : ''}while one device is the choice, one step in ${this.sampleEvery} is timed op by op)`;
      const sampled = options.step !== 'current' ? this.lastTimed : undefined;
      // First: it says which step the table is; the history of choices follows in order.
      if (sampled) {
        notes.unshift(`${what}; the rows come from step ${sampled.index}, the latest sampled step`);
        log = sampled;
      } else notes.unshift(what);
    }
    const { placed, explored } = this.dmda.counts;
    if (explored > 0) notes.push(`${explored} of ${placed} ops placed so far ran where their model was short of samples (exploration)`);
    return explainStep(log, this.mode, this.host.name, notes);
  }

  // ---- transfer calibration ---------------------------------------------------------------

  private firstUse(): void {
    this.used = true;
    this.profiler.quiet(false);
    if (this.options.calibrate === false) return;
    void this.loaded.then(() => {
      const { devices } = this.host;
      const missing = devices.some((a) => devices.some((b) => a !== b && !this.profiler.model.transfer(a.key, b.key).calibrated));
      if (missing && !this.calibration) {
        this.calibration = this.calibrateTransfers().catch((e: unknown) => {
          this.note(`transfer calibration failed: ${e instanceof Error ? e.message : String(e)}`);
        });
      }
    });
  }

  /**
   * Measures transfers of 1 KiB to 4 MiB between every ordered pair of devices, round-robin, for
   * at most `budgetMs`; fits alpha + beta * bytes per pair and saves the models.
   */
  async calibrateTransfers(budgetMs = this.options.calibrationBudgetMs ?? 2000): Promise<void> {
    const { devices, backend, runtime } = this.host;
    const model = this.profiler.model;
    const pairs: Array<[Device, Device]> = [];
    for (const a of devices) for (const b of devices) if (a !== b) pairs.push([a, b]);
    const sizes = [1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22];
    const expected = new Map<number, [string, string, number]>();
    const sub = runtime.events$.subscribe((e) => {
      if (e.op !== 'transfer' || e.error !== undefined) return;
      const m = expected.get(e.record.outputs[0]?.id ?? -1);
      if (m) model.addTransfer(m[0], m[1], m[2], Math.max(e.endAt - e.startAt, 0));
    });
    const t0 = performance.now();
    try {
      rounds: for (let rep = 0; rep < 3; rep++) {
        for (const bytes of sizes) {
          for (const [a, b] of pairs) {
            if (performance.now() - t0 > budgetMs) break rounds;
            const x = fromData(backend, new Float32Array(bytes / 4), { device: a });
            await x.toData();
            const y = x.toDevice(b);
            this.profiler.ignored.add(y.id);
            expected.set(y.id, [a.key, b.key, bytes]);
            await y.toData();
            x.dispose();
            y.dispose();
            this.profiler.ignored.delete(y.id);
          }
        }
      }
    } finally {
      sub.unsubscribe();
    }
    for (const [a, b] of pairs) {
      const t = model.transfer(a.key, b.key);
      if (t.model().source === 'measured') t.calibrated = true;
    }
    const fits = pairs.map(([a, b]) => {
      const f = model.transferFit(a.key, b.key);
      return `${a.key}->${b.key}: ${f.alpha.toFixed(3)} ms + ${f.beta > 0 ? (1 / f.beta / 1e3).toFixed(2) : 'inf'} MB/s`;
    });
    this.note(`transfers calibrated in ${(performance.now() - t0).toFixed(0)} ms: ${fits.join('; ')}`);
    await this.profiler.save().catch(() => undefined);
  }

  /** Waits for a calibration in flight, stops watching events and saves the models. */
  async close(): Promise<void> {
    await this.calibration;
    this.profiler.disable();
    this.sampleSub.unsubscribe();
    await this.profiler.save().catch(() => undefined);
  }
}

/** Whether a recorded node is op `op` over inputs of the same shapes and dtypes (its signature, without building one). */
function sameShapes(node: TraceNode, op: string, inputs: readonly Handle[]): boolean {
  const shapes = node.shapes;
  if (node.op !== op || shapes.length !== inputs.length) return false;
  for (let j = 0; j < inputs.length; j++) {
    const a = shapes[j]!;
    const b = inputs[j]!;
    if (a.dtype !== b.dtype || a.shape.length !== b.shape.length) return false;
    for (let k = 0; k < a.shape.length; k++) if (a.shape[k] !== b.shape[k]) return false;
  }
  return true;
}

/** Whether every input lives on the device keyed `key`. */
function allOn(inputs: readonly Handle[], key: string): boolean {
  for (const h of inputs) if (h.device.key !== key) return false;
  return true;
}

/** Whether a replayed node's inputs from before the step live elsewhere than when it was recorded. */
function movedInputs(recorded: readonly TraceInput[], now: readonly TraceInput[]): boolean {
  for (let j = 0; j < now.length; j++) {
    const a = recorded[j];
    const b = now[j]!;
    // Inputs the previous step made live where the plan put their maker, and tensors created in
    // the step where the plan creates them: not a move.
    if (a && 'id' in a && 'id' in b && a.from === undefined && b.from === undefined && !a.made && !b.made && a.device !== b.device) return true;
  }
  return false;
}
