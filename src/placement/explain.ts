/**
 * What `router.explain()` shows: per op group (op, output shape, device) of a step, where it ran
 * and why, predicted against measured device time, and the transfers placement added for it;
 * then the step: predicted against measured time from first submit to last completion.
 */
import type { PredictionSource } from './cost-model.js';
import type { Reason } from './dmda.js';
import type { SampleGroup } from './service-time.js';

export interface LoggedTransfer {
  readonly bytes: number;
  readonly predictedMs: number;
  measuredMs?: number;
}

export interface LoggedOp {
  readonly op: string;
  readonly shape: string;
  readonly device: string;
  readonly reason: Reason;
  readonly source: PredictionSource;
  /** Predicted device time (NaN when nothing predicted it). */
  readonly predictedMs: number;
  /** A replayed plan's cost for it (what drift is measured against). */
  readonly plannedMs?: number;
  readonly transfers: LoggedTransfer[];
  /** The node of a traced step this op is. */
  readonly node?: number;
  measuredMs?: number;
  /** The ops it shared a measured span with (a GPU batch, pool ops side by side), if any. */
  group?: SampleGroup;
}

/** The ops placed in one step, filled with measured times as their events arrive. */
export class StepLog {
  readonly ops: LoggedOp[] = [];
  /** Earliest submit and latest completion seen among this step's ops and transfers (scheduler clock). */
  firstQueued = Infinity;
  lastEnd = -Infinity;
  /** When the first op was placed, and the latest predicted finish. */
  startedAt = Infinity;
  predictedEnd = -Infinity;
  /** A traced step's planned makespan (replaces the online prediction). */
  plannedMs: number | undefined;
  /** Wall time from the `markStep()` that began the step to the one that ended it. */
  wallMs: number | undefined;
  /** The device every op of an untimed step ran on: such a step logs and times no op (see Placement). */
  untimed: string | undefined;
  /** Placement's own marks (fields, not maps keyed by the log: one is made every step): the phase an auto router's step ran in, the plan a traced step replayed, the placement it repeated. */
  phase: string | undefined;
  plan: number | undefined;
  repeat: { readonly placement: string; readonly warmup: boolean } | undefined;

  constructor(readonly index: number) {}

  /** Ops whose measured time has arrived. */
  get measured(): number {
    let n = 0;
    for (const o of this.ops) if (o.measuredMs !== undefined) n++;
    return n;
  }

  get complete(): boolean {
    return this.ops.length > 0 && this.measured === this.ops.length;
  }

  seen(queuedAt: number, endAt: number): void {
    if (queuedAt < this.firstQueued) this.firstQueued = queuedAt;
    if (endAt > this.lastEnd) this.lastEnd = endAt;
  }
}

export interface ExplainRow {
  readonly op: string;
  /** Output shape of the group's ops. */
  readonly shape: string;
  readonly device: string;
  readonly count: number;
  /** Why the ops went there: 'earliest', 'home', 'explore', 'unknown', 'plan', 'calibrate', 'alone' (several joined by '+'). */
  readonly reason: string;
  readonly predictedMs: number;
  /** Undefined until every op of the group has been measured. */
  readonly measuredMs: number | undefined;
  readonly transfers: number;
  readonly transferBytes: number;
  readonly transferPredictedMs: number;
  readonly transferMeasuredMs: number | undefined;
}

export interface Explanation {
  readonly mode: string;
  readonly router: string;
  /** The step explained (0-based; steps end at `markStep()`). */
  readonly step: number;
  readonly ops: number;
  readonly rows: readonly ExplainRow[];
  readonly transfers: number;
  readonly transferBytes: number;
  /** Planned makespan (trace) or predicted span from first placement to last predicted finish (auto). */
  readonly predictedStepMs: number | undefined;
  /** From the first op's submit to the last op's completion; undefined until events arrived. */
  readonly measuredStepMs: number | undefined;
  /** Wall time between the `markStep()` calls around the step (what the program saw). */
  readonly wallStepMs: number | undefined;
  /**
   * Median over the step's measured spans of |predicted - measured| / measured, each op's
   * prediction as it was placed. An op timed alone is a span; ops that shared one (a GPU batch)
   * are one measurement together: their summed predictions against their share of the span (all
   * of it when the group is theirs alone), whatever way the span is split among them.
   */
  readonly medianErrorPct: number | undefined;
  /** Measured spans behind the error: ops timed alone, plus one per group of ops timed together. */
  readonly measurements: number;
  readonly notes: readonly string[];
  toString(): string;
}

function fmt(ms: number | undefined): string {
  if (ms === undefined || Number.isNaN(ms)) return '-';
  return ms >= 100 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(3) : ms.toFixed(4);
}

function fmtBytes(b: number): string {
  if (b >= 1 << 20) return `${(b / (1 << 20)).toFixed(1)} MiB`;
  if (b >= 1 << 10) return `${(b / (1 << 10)).toFixed(1)} KiB`;
  return `${b} B`;
}

interface Group {
  readonly op: string;
  readonly shape: string;
  readonly device: string;
  readonly reasons: Set<string>;
  count: number;
  predicted: number;
  /** Sum of measured times, or undefined once an op of the group is missing one. */
  measured: number | undefined;
  transfers: number;
  transferBytes: number;
  transferPredicted: number;
  transferMeasured: number | undefined;
}

/**
 * Each op's measured time for the explanation: its own, or for an op that shared a measured span
 * with others of this step, the span split in proportion to the predictions logged for them (the
 * profiler's split, made for the model, uses its estimates at the time, which can differ).
 */
function measuredTimes(ops: readonly LoggedOp[]): Array<number | undefined> {
  const members = new Map<number, number[]>();
  ops.forEach((o, i) => {
    if (o.group === undefined || o.measuredMs === undefined) return;
    const m = members.get(o.group.id);
    if (m) m.push(i);
    else members.set(o.group.id, [i]);
  });
  const out = ops.map((o) => o.measuredMs);
  for (const idx of members.values()) {
    const g = ops[idx[0]!]!.group!;
    if (idx.length !== g.size) continue; // ops of other steps or routers in the group: the profiler's split stands
    let total = 0;
    for (const i of idx) {
      const p = ops[i]!.predictedMs;
      total = p > 0 ? total + p : Number.NaN;
    }
    if (!(total > 0)) continue;
    for (const i of idx) out[i] = (g.spanMs * ops[i]!.predictedMs) / total;
  }
  return out;
}

/** Measured spans behind a step's ops: one per op timed alone, one per group. */
function countMeasurements(ops: readonly LoggedOp[]): number {
  const seen = new Set<number>();
  let n = 0;
  for (const o of ops) {
    if (o.measuredMs === undefined) continue;
    if (o.group === undefined) n++;
    else if (!seen.has(o.group.id)) {
      seen.add(o.group.id);
      n++;
    }
  }
  return n;
}

export function explainStep(log: StepLog, mode: string, router: string, notes: readonly string[]): Explanation {
  const groups = new Map<string, Group>();
  let transfers = 0;
  let transferBytes = 0;
  const errors: number[] = [];
  const measuredMs = measuredTimes(log.ops);
  const spans = new Map<number, { predicted: number; measured: number }>();
  for (const [i, o] of log.ops.entries()) {
    const measured = measuredMs[i];
    const key = `${o.op}|${o.shape}|${o.device}`;
    let g = groups.get(key);
    if (!g) {
      g = { op: o.op, shape: o.shape, device: o.device, reasons: new Set(), count: 0, predicted: 0, measured: 0, transfers: 0, transferBytes: 0, transferPredicted: 0, transferMeasured: 0 };
      groups.set(key, g);
    }
    g.reasons.add(o.reason);
    g.count++;
    if (!Number.isNaN(o.predictedMs)) g.predicted += o.predictedMs;
    g.measured = measured === undefined || g.measured === undefined ? undefined : g.measured + measured;
    if (o.group === undefined) {
      if (measured !== undefined && measured > 0 && !Number.isNaN(o.predictedMs)) errors.push(Math.abs(o.predictedMs - measured) / measured);
    } else {
      // Ops timed together are one measurement: their summed prediction against their share of the span.
      const s = spans.get(o.group.id) ?? { predicted: 0, measured: 0 };
      s.predicted += o.predictedMs;
      s.measured = measured === undefined ? Number.NaN : s.measured + measured;
      spans.set(o.group.id, s);
    }
    for (const t of o.transfers) {
      transfers++;
      transferBytes += t.bytes;
      g.transfers++;
      g.transferBytes += t.bytes;
      g.transferPredicted += t.predictedMs;
      g.transferMeasured = t.measuredMs === undefined || g.transferMeasured === undefined ? undefined : g.transferMeasured + t.measuredMs;
    }
  }
  const rows: ExplainRow[] = [...groups.values()].map((g) => ({
    op: g.op,
    shape: g.shape,
    device: g.device,
    count: g.count,
    reason: [...g.reasons].join('+'),
    predictedMs: g.predicted,
    measuredMs: g.measured,
    transfers: g.transfers,
    transferBytes: g.transferBytes,
    transferPredictedMs: g.transferPredicted,
    transferMeasuredMs: g.transfers === 0 ? undefined : g.transferMeasured,
  }));
  for (const { predicted, measured } of spans.values()) if (measured > 0 && !Number.isNaN(predicted)) errors.push(Math.abs(predicted - measured) / measured);
  errors.sort((a, b) => a - b);
  const medianErrorPct = errors.length > 0 ? 100 * (errors.length % 2 ? errors[errors.length >> 1]! : (errors[(errors.length >> 1) - 1]! + errors[errors.length >> 1]!) / 2) : undefined;
  const predictedStepMs = log.plannedMs ?? (log.ops.length > 0 && Number.isFinite(log.startedAt) && Number.isFinite(log.predictedEnd) ? log.predictedEnd - log.startedAt : undefined);
  const measuredStepMs = log.complete && Number.isFinite(log.firstQueued) ? log.lastEnd - log.firstQueued : undefined;
  const explanation: Explanation = {
    mode,
    router,
    step: log.index,
    ops: log.ops.length,
    rows,
    transfers,
    transferBytes,
    predictedStepMs,
    measuredStepMs,
    wallStepMs: log.wallMs,
    medianErrorPct,
    measurements: countMeasurements(log.ops),
    notes,
    toString: () => render(explanation),
  };
  return explanation;
}

function render(x: Explanation): string {
  const lines = [`placement '${x.mode}' on ${x.router}, step ${x.step}: ${x.ops} ops placed, ${x.transfers} transfers added (${fmtBytes(x.transferBytes)})`, ''];
  lines.push('| op | output | device | ops | why | predicted ms | measured ms | transfers in | transfer ms predicted / measured |');
  lines.push('| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: |');
  for (const r of x.rows) {
    const t = r.transfers > 0 ? `${r.transfers} (${fmtBytes(r.transferBytes)})` : '-';
    const tm = r.transfers > 0 ? `${fmt(r.transferPredictedMs)} / ${fmt(r.transferMeasuredMs)}` : '-';
    lines.push(`| ${r.op} | ${r.shape} | ${r.device} | ${r.count} | ${r.reason} | ${fmt(r.predictedMs)} | ${fmt(r.measuredMs)} | ${t} | ${tm} |`);
  }
  lines.push('');
  const ratio = x.predictedStepMs !== undefined && x.measuredStepMs !== undefined && x.measuredStepMs > 0 ? ` (${x.predictedStepMs >= x.measuredStepMs ? '+' : ''}${((100 * (x.predictedStepMs - x.measuredStepMs)) / x.measuredStepMs).toFixed(0)}%)` : '';
  lines.push(`step time: predicted ${fmt(x.predictedStepMs)} ms, measured ${fmt(x.measuredStepMs)} ms${ratio} (first submit to last completion; ${fmt(x.wallStepMs)} ms between markStep calls); median prediction error ${x.medianErrorPct === undefined ? '-' : `${x.medianErrorPct.toFixed(0)}%`} over ${x.measurements} measured spans (ops timed alone, and groups timed together such as a GPU batch)`);
  for (const n of x.notes) lines.push(n);
  return lines.join('\n');
}
