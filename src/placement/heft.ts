import { ArgumentError } from '../errors.js';

/**
 * HEFT (Topcuoglu, Hariri, Wu 2002): list scheduling of a task graph on heterogeneous processors.
 * Tasks are ranked by upward rank (mean run time plus the longest path of mean transfer and run
 * times to an exit task), then each, in decreasing rank, goes to the processor where it finishes
 * earliest, inserted into the first idle gap long enough after its inputs arrive.
 */

export interface HeftEdge {
  readonly from: number;
  readonly to: number;
  /** What the edge carries (bytes, or the paper's communication cost); `comm` turns it into time. */
  readonly data: number;
}

export interface HeftProblem {
  readonly tasks: number;
  readonly processors: number;
  /** cost[t][p]: run time of task t on processor p (Infinity: it cannot run there). */
  readonly cost: ReadonlyArray<ReadonlyArray<number>>;
  readonly edges: readonly HeftEdge[];
  /** Time for an edge's data to go from processor p to q (never asked for p === q: that is free). */
  comm(edge: HeftEdge, p: number, q: number): number;
  /** The earliest start of task t on processor p from inputs outside the graph (default 0). */
  release?(t: number, p: number): number;
  /**
   * A cost of putting task t on processor p that falls outside the schedule (what a later run of
   * the graph pays for it): added to the finish time when processors are compared, not to the schedule.
   */
  penalty?(t: number, p: number): number;
}

export interface HeftSchedule {
  /** The processor of each task. */
  readonly proc: number[];
  readonly start: number[];
  readonly finish: number[];
  readonly makespan: number;
  /** Tasks in the order they were scheduled (decreasing upward rank). */
  readonly order: number[];
  readonly rank: number[];
}

/** Tasks in an order where every edge goes forward (Kahn's algorithm, smallest index first). */
function topological(n: number, succ: ReadonlyArray<readonly HeftEdge[]>, indegree: number[]): number[] {
  const order: number[] = [];
  const ready: number[] = [];
  for (let t = 0; t < n; t++) if (indegree[t] === 0) ready.push(t);
  let head = 0;
  while (head < ready.length) {
    const t = ready[head++]!;
    order.push(t);
    for (const e of succ[t]!) if (--indegree[e.to]! === 0) ready.push(e.to);
  }
  if (order.length !== n) throw new ArgumentError(`the task graph has a cycle (${n - order.length} tasks on it)`, { op: 'heft' });
  return order;
}

export function heft(problem: HeftProblem): HeftSchedule {
  const { tasks: n, processors: q, cost } = problem;
  const succ: HeftEdge[][] = Array.from({ length: n }, () => []);
  const pred: HeftEdge[][] = Array.from({ length: n }, () => []);
  const indegree = new Array<number>(n).fill(0);
  for (const e of problem.edges) {
    succ[e.from]!.push(e);
    pred[e.to]!.push(e);
    indegree[e.to]!++;
  }
  const topo = topological(n, succ, indegree);
  const position = new Array<number>(n);
  topo.forEach((t, i) => (position[t] = i));

  // Mean run time over the processors a task can use; mean transfer time over ordered pairs.
  const meanCost = (t: number): number => {
    let s = 0;
    let k = 0;
    for (let p = 0; p < q; p++) {
      const c = cost[t]![p]!;
      if (Number.isFinite(c)) {
        s += c;
        k++;
      }
    }
    return k > 0 ? s / k : 0;
  };
  const meanComm = (e: HeftEdge): number => {
    if (q < 2) return 0;
    let s = 0;
    for (let a = 0; a < q; a++) for (let b = 0; b < q; b++) if (a !== b) s += problem.comm(e, a, b);
    return s / (q * (q - 1));
  };
  const rank = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    const t = topo[i]!;
    let tail = 0;
    for (const e of succ[t]!) tail = Math.max(tail, meanComm(e) + rank[e.to]!);
    rank[t] = meanCost(t) + tail;
  }
  // Decreasing rank; equal ranks keep the topological order, so a task never precedes its inputs.
  // Ranks within rounding of each other count as equal (80 and 80.00000000000001 in the paper's example).
  const order = [...topo].sort((a, b) => {
    const d = rank[b]! - rank[a]!;
    return Math.abs(d) > 1e-9 * Math.max(Math.abs(rank[a]!), Math.abs(rank[b]!), 1) ? d : position[a]! - position[b]!;
  });

  const proc = new Array<number>(n).fill(-1);
  const start = new Array<number>(n).fill(0);
  const finish = new Array<number>(n).fill(0);
  // Busy intervals per processor, sorted by start.
  const busy: Array<Array<[number, number]>> = Array.from({ length: q }, () => []);
  for (const t of order) {
    let bestP = -1;
    let bestStart = 0;
    let bestFinish = Infinity;
    let bestScore = Infinity;
    for (let p = 0; p < q; p++) {
      const w = cost[t]![p]!;
      if (!Number.isFinite(w)) continue;
      let ready = problem.release ? problem.release(t, p) : 0;
      for (const e of pred[t]!) {
        const from = proc[e.from]!;
        ready = Math.max(ready, finish[e.from]! + (from === p ? 0 : problem.comm(e, from, p)));
      }
      const s = earliestGap(busy[p]!, ready, w);
      const score = s + w + (problem.penalty ? problem.penalty(t, p) : 0);
      if (score < bestScore) {
        bestP = p;
        bestStart = s;
        bestFinish = s + w;
        bestScore = score;
      }
    }
    if (bestP < 0) throw new ArgumentError(`task ${t} cannot run on any processor (every cost is infinite)`, { op: 'heft' });
    proc[t] = bestP;
    start[t] = bestStart;
    finish[t] = bestFinish;
    insertInterval(busy[bestP]!, bestStart, bestFinish);
  }
  let makespan = 0;
  for (let t = 0; t < n; t++) makespan = Math.max(makespan, finish[t]!);
  return { proc, start, finish, makespan, order, rank };
}

/** The earliest start >= ready of an idle gap of length w (insertion policy). */
function earliestGap(intervals: ReadonlyArray<readonly [number, number]>, ready: number, w: number): number {
  let s = ready;
  for (const [a, b] of intervals) {
    if (b <= s) continue;
    if (a >= s + w) return s;
    s = Math.max(s, b);
  }
  return s;
}

function insertInterval(intervals: Array<[number, number]>, a: number, b: number): void {
  let i = intervals.length;
  while (i > 0 && intervals[i - 1]![0] > a) i--;
  intervals.splice(i, 0, [a, b]);
}
