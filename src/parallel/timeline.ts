/**
 * What happened during one data-parallel step, per replica, on one clock (ms since the epoch,
 * fractional; comparable across threads and processes): forward and backward (to the last op's
 * completion, from the scheduler's events), each bucket's hand-over, the reductions, and the
 * optimizer updates. `overlapOf` measures how much of that communication ran while some
 * replica's backward was still running; `renderTimeline` draws it as text.
 */
import { field } from '../ir/validate.js';
import { ArgumentError } from '../errors.js';

export interface Interval {
  readonly startAt: number;
  readonly endAt: number;
}

export interface BucketEvents {
  readonly bucket: number;
  /** Hand-over: from when backward had produced the bucket to when it was in shared memory (or posted). */
  readonly send?: Interval;
  /** This replica's part of the reduction. */
  readonly reduce?: Interval;
  /** The optimizer update of the parameters this replica owns in the bucket, and their publication. */
  readonly apply?: Interval;
}

export interface ReplicaTimeline {
  readonly index: number;
  readonly device: string;
  readonly shard: number;
  readonly reloadAt: number;
  readonly forwardAt: number;
  /** When backward() was called (ops run ahead: the device may still be in the forward pass). */
  readonly backwardAt: number;
  /** When the device finished the forward pass (backward runs from here to computeEndAt). */
  readonly forwardEndAt: number;
  /** When the device finished the step's last forward or backward op. */
  readonly computeEndAt: number;
  /** Solo steps: the local optimizer step ended here. */
  readonly optimizerEndAt?: number;
  readonly buckets: readonly BucketEvents[];
}

export interface StepTimeline {
  readonly step: number;
  readonly startAt: number;
  readonly endAt: number;
  readonly replicas: readonly ReplicaTimeline[];
}

/** The union of intervals, sorted and merged. */
function union(xs: readonly Interval[]): Interval[] {
  const s = xs.filter((x) => x.endAt > x.startAt).sort((a, b) => a.startAt - b.startAt);
  const out: Interval[] = [];
  for (const x of s) {
    const last = out[out.length - 1];
    if (last && x.startAt <= last.endAt) out[out.length - 1] = { startAt: last.startAt, endAt: Math.max(last.endAt, x.endAt) };
    else out.push(x);
  }
  return out;
}

function length(xs: readonly Interval[]): number {
  return xs.reduce((a, x) => a + (x.endAt - x.startAt), 0);
}

function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const s = Math.max(x.startAt, y.startAt);
      const e = Math.min(x.endAt, y.endAt);
      if (e > s) out.push({ startAt: s, endAt: e });
    }
  }
  return union(out);
}

export interface Overlap {
  /** Wall time during which some replica handed over, reduced or updated (the union), ms. */
  readonly commMs: number;
  /** The part of it during which some replica's backward was still running, ms. */
  readonly overlappedMs: number;
  /** overlappedMs / commMs (0 when there was no communication). */
  readonly fraction: number;
  /** Wall time during which some replica ran backward, ms. */
  readonly backwardMs: number;
}

/** A step's timeline, as StepResult.timeline gives it (untyped callers get a named error). */
function checkTimeline(op: string, t: StepTimeline): StepTimeline {
  const given: unknown = t;
  if (!Array.isArray(field(given, 'replicas'))) {
    throw new ArgumentError('the timeline must be a step result\'s timeline (await dp.step(batch)).timeline', { op });
  }
  return t;
}

export function overlapOf(t: StepTimeline): Overlap {
  checkTimeline('overlapOf', t);
  const comm = union(t.replicas.flatMap((r) => r.buckets.flatMap((b) => [b.send, b.reduce, b.apply].filter((x): x is Interval => x !== undefined))));
  const backward = union(t.replicas.filter((r) => r.shard > 0).map((r) => ({ startAt: Math.max(r.backwardAt, r.forwardEndAt), endAt: r.computeEndAt })));
  const commMs = length(comm);
  const overlappedMs = length(intersect(comm, backward));
  return { commMs, overlappedMs, fraction: commMs > 0 ? overlappedMs / commMs : 0, backwardMs: length(backward) };
}

/** A text chart: per replica a compute row (f forward, b backward, from the device's op times) and a row per bucket (s hand-over, r reduce, o optimizer). */
export function renderTimeline(t: StepTimeline, width = 64): string {
  checkTimeline('renderTimeline', t);
  const span = Math.max(1e-9, t.endAt - t.startAt);
  const col = (at: number): number => Math.min(width - 1, Math.max(0, Math.floor(((at - t.startAt) / span) * width)));
  const paint = (row: string[], from: number, to: number, ch: string): void => {
    const a = col(from);
    const b = Math.max(a, col(to));
    for (let i = a; i <= b; i++) row[i] = ch;
  };
  const label = (s: string): string => s.padEnd(30).slice(0, 30);
  const lines: string[] = [];
  const total = `${span.toFixed(1)} ms`;
  lines.push(`${label(`step ${t.step}`)} 0 ms${' '.repeat(Math.max(1, width + 2 - 4 - total.length))}${total}`);
  for (const r of t.replicas) {
    const compute = new Array<string>(width).fill(' ');
    if (r.shard > 0) {
      const backwardFrom = Math.max(r.backwardAt, r.forwardEndAt);
      paint(compute, r.forwardAt, backwardFrom, 'f');
      paint(compute, backwardFrom, r.computeEndAt, 'b');
      if (r.optimizerEndAt !== undefined) paint(compute, r.computeEndAt, r.optimizerEndAt, 'o');
    }
    lines.push(`${label(r.index < 0 ? 'coordinator' : `replica ${r.index} ${r.device} n=${r.shard}`)}|${compute.join('')}|`);
    for (const b of r.buckets) {
      const row = new Array<string>(width).fill(' ');
      if (b.send) paint(row, b.send.startAt, b.send.endAt, 's');
      if (b.reduce) paint(row, b.reduce.startAt, b.reduce.endAt, 'r');
      if (b.apply) paint(row, b.apply.startAt, b.apply.endAt, 'o');
      lines.push(`${label(`  bucket ${b.bucket}`)}|${row.join('')}|`);
    }
  }
  const o = overlapOf(t);
  lines.push(`f forward, b backward, s hand-over, r reduce, o optimizer; communication ${o.commMs.toFixed(2)} ms, ${o.overlappedMs.toFixed(2)} ms of it (${(100 * o.fraction).toFixed(0)}%) while backward ran`);
  return lines.join('\n');
}

/** Where a step's wall time went, ms: the parts of the critical path, in order. */
export interface Phases {
  /** From the step's start to the last replica starting (shards sent, threads waking). */
  readonly dispatchMs: number;
  /** The longest reload of changed weights. */
  readonly reloadMs: number;
  /** The longest forward + backward (from forward's start to the last op on its device). */
  readonly computeMs: number;
  /** From the last replica's compute end to the step's end: the join and update not hidden by backward. */
  readonly tailMs: number;
  readonly wallMs: number;
}

export function phasesOf(t: StepTimeline): Phases {
  checkTimeline('phasesOf', t);
  const reps = t.replicas.filter((r) => r.index >= 0 && r.shard > 0);
  if (reps.length === 0) return { dispatchMs: 0, reloadMs: 0, computeMs: 0, tailMs: t.endAt - t.startAt, wallMs: t.endAt - t.startAt };
  const lastStart = Math.max(...reps.map((r) => r.reloadAt));
  const computeEnd = Math.max(...reps.map((r) => Math.max(r.computeEndAt, r.optimizerEndAt ?? -Infinity)));
  return {
    dispatchMs: Math.max(0, lastStart - t.startAt),
    reloadMs: Math.max(...reps.map((r) => r.forwardAt - r.reloadAt)),
    computeMs: Math.max(...reps.map((r) => r.computeEndAt - r.forwardAt)),
    tailMs: Math.max(0, t.endAt - computeEnd),
    wallMs: t.endAt - t.startAt,
  };
}
