/**
 * From op events to device time per op, as an RxJS operator. An op that ran alone on its lane
 * took `endAt - max(startAt, the lane's previous end)`. Ops whose times overlap on one lane (a GPU
 * command batch: encoded one by one, completed together; pool ops running side by side) form a
 * group: the group's busy time is measured, and split among its ops by weight (the cost model's
 * prediction, or a roofline estimate while one of them has none). For work that runs ahead (GPU),
 * the device cannot start a batch before it was submitted (`submitAt`; where an event lacks it,
 * before its last op was encoded), so the busy time counts from there: a batch waits for the
 * JavaScript turn that encodes it to end (CPU ops run inline meanwhile), and that wait is not the
 * GPU's.
 * Transfers (on a bridge) and ops that ran inline on the calling thread are timed start to end.
 * A lane's last group is held until an op that does not overlap it arrives, or `flush$` emits.
 */
import { Observable, type OperatorFunction } from 'rxjs';
import type { OpEvent } from '../scheduler/events.js';

export interface Sample {
  readonly event: OpEvent;
  /** Device time attributed to the op (ms). */
  readonly ms: number;
  /** The group the op shared a measured span with (absent: the op was timed alone). */
  readonly group?: SampleGroup;
}

/** Ops whose times overlapped on one lane: only the group's span was measured. */
export interface SampleGroup {
  /** Distinct per group within one stream. */
  readonly id: number;
  /** The measured busy time of the whole group (ms). */
  readonly spanMs: number;
  /** Ops in the group. */
  readonly size: number;
}

/** The relative costs of the ops of a group (any positive scale, one for each op, in order). */
export type Weigh = (group: readonly OpEvent[]) => readonly number[];

interface LaneState {
  lastEnd: number;
  group: OpEvent[];
  groupEnd: number;
}

export function serviceTimes(weigh: Weigh, flush$?: Observable<unknown>): OperatorFunction<OpEvent, Sample> {
  return (source) =>
    new Observable<Sample>((out) => {
      const lanes = new Map<string, LaneState>();
      let groups = 0;
      const close = (lane: LaneState): void => {
        const group = lane.group;
        if (group.length === 0) return;
        lane.group = [];
        const runsAhead = group.some((e) => e.where === 'gpu');
        let start = runsAhead ? -Infinity : Infinity;
        for (const e of group) start = runsAhead ? Math.max(start, e.submitAt ?? e.startAt) : Math.min(start, e.startAt);
        start = Math.max(start, lane.lastEnd);
        const span = Math.max(lane.groupEnd - start, 0);
        lane.lastEnd = Math.max(lane.lastEnd, lane.groupEnd);
        if (group.length === 1) {
          out.next({ event: group[0]!, ms: span });
          return;
        }
        const w = weigh(group).map((x) => (x > 0 && Number.isFinite(x) ? x : 0));
        const total = w.reduce((a, b) => a + b, 0);
        const info: SampleGroup = { id: groups++, spanMs: span, size: group.length };
        group.forEach((e, i) => out.next({ event: e, ms: total > 0 ? (span * w[i]!) / total : span / group.length, group: info }));
      };
      const flushAll = (): void => {
        for (const lane of lanes.values()) close(lane);
      };
      const sub = source.subscribe({
        next(e) {
          if (e.error !== undefined) return;
          // Transfers run on a bridge; inline ops and views ran on the calling thread, alone: timed start to end.
          if (e.op === 'transfer' || e.where === 'inline' || e.where === 'view') {
            out.next({ event: e, ms: Math.max(e.endAt - e.startAt, 0) });
            return;
          }
          let lane = lanes.get(e.device);
          if (!lane) lanes.set(e.device, (lane = { lastEnd: -Infinity, group: [], groupEnd: -Infinity }));
          if (lane.group.length > 0 && e.startAt < lane.groupEnd) {
            lane.group.push(e);
            lane.groupEnd = Math.max(lane.groupEnd, e.endAt);
            return;
          }
          close(lane);
          lane.group = [e];
          lane.groupEnd = e.endAt;
        },
        error(err: unknown) {
          out.error(err);
        },
        complete() {
          flushAll();
          out.complete();
        },
      });
      const flushSub = flush$?.subscribe(() => flushAll());
      return () => {
        sub.unsubscribe();
        flushSub?.unsubscribe();
      };
    });
}

/** Roofline estimate of an op's time before anything is measured: latency + max(compute, memory). */
export function rooflineMs(flops: number, bytes: number, runsAhead: boolean): number {
  // Rough orders of magnitude; only ratios within one group matter.
  return runsAhead ? 0.005 + Math.max(flops / 1e10, bytes / 3e8) : 0.001 + Math.max(flops / 2e7, bytes / 5e6);
}
