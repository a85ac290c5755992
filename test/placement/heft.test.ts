import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { heft, type HeftEdge } from '../../src/placement/heft.js';

// Topcuoglu, Hariri, Wu (2002), Fig. 2 and Table 1: 10 tasks, 3 processors.
const W = [
  [14, 16, 9],
  [13, 19, 18],
  [11, 13, 19],
  [13, 8, 17],
  [12, 13, 10],
  [13, 16, 9],
  [7, 15, 11],
  [5, 11, 14],
  [18, 12, 20],
  [21, 7, 16],
];
const E: Array<[number, number, number]> = [
  [1, 2, 18], [1, 3, 12], [1, 4, 9], [1, 5, 11], [1, 6, 14], [2, 8, 19], [2, 9, 16], [3, 7, 23],
  [4, 8, 27], [4, 9, 23], [5, 9, 13], [6, 8, 15], [7, 10, 17], [8, 10, 11], [9, 10, 13],
];

describe('HEFT on the paper example', () => {
  const edges = E.map(([a, b, c]) => ({ from: a - 1, to: b - 1, data: c }));
  // In the paper an edge's cost is paid only between two different processors.
  const s = heft({ tasks: 10, processors: 3, cost: W, edges, comm: (e) => e.data });

  test('makespan 80', () => {
    expect(s.makespan).toBe(80);
  });

  test('upward ranks and order as in the paper (Table 1)', () => {
    const paper = [108, 77, 80, 80, 69, 63.333, 42.667, 35.667, 44.333, 14.667];
    s.rank.forEach((r, i) => expect(r).toBeCloseTo(paper[i]!, 3));
    expect(s.order.map((t) => t + 1)).toEqual([1, 3, 4, 2, 5, 6, 9, 7, 8, 10]);
  });

  test('the schedule of Fig. 4(a): processors and start times', () => {
    expect(s.proc.map((p) => p + 1)).toEqual([3, 1, 3, 2, 3, 2, 3, 1, 2, 2]);
    expect(s.start).toEqual([0, 27, 9, 18, 28, 26, 38, 57, 56, 73]);
  });
});

/** An independent check: every task runs for its cost, after its inputs arrive, never overlapping another on its processor. */
function checkValid(n: number, q: number, cost: number[][], edges: HeftEdge[], comm: (e: HeftEdge, p: number, r: number) => number, s: ReturnType<typeof heft>): void {
  for (let t = 0; t < n; t++) {
    expect(s.finish[t]! - s.start[t]!).toBeCloseTo(cost[t]![s.proc[t]!]!, 9);
    expect(s.start[t]!).toBeGreaterThanOrEqual(0);
  }
  for (const e of edges) {
    const delay = s.proc[e.from] === s.proc[e.to] ? 0 : comm(e, s.proc[e.from]!, s.proc[e.to]!);
    expect(s.start[e.to]! + 1e-9).toBeGreaterThanOrEqual(s.finish[e.from]! + delay);
  }
  for (let p = 0; p < q; p++) {
    const mine = [...Array(n).keys()].filter((t) => s.proc[t] === p).sort((a, b) => s.start[a]! - s.start[b]! || s.finish[a]! - s.finish[b]!);
    for (let i = 1; i < mine.length; i++) expect(s.start[mine[i]!]! + 1e-9).toBeGreaterThanOrEqual(s.finish[mine[i - 1]!]!);
  }
  expect(s.makespan).toBeCloseTo(Math.max(0, ...s.finish), 9);
}

describe('HEFT schedules are valid on random task graphs', () => {
  test('precedence, transfer delays and processor exclusivity hold', () => {
    const graph = fc
      .record({ n: fc.integer({ min: 1, max: 25 }), q: fc.integer({ min: 1, max: 4 }) })
      .chain(({ n, q }) =>
        fc.record({
          n: fc.constant(n),
          q: fc.constant(q),
          cost: fc.array(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: q, maxLength: q }), { minLength: n, maxLength: n }),
          // Edges only from lower to higher index: a DAG.
          edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.integer({ min: 0, max: 30 })), { maxLength: 3 * n }),
          latency: fc.integer({ min: 0, max: 5 }),
        }),
      );
    fc.assert(
      fc.property(graph, ({ n, q, cost, edges, latency }) => {
        const es = edges.filter(([a, b]) => a < b).map(([a, b, d]) => ({ from: a, to: b, data: d }));
        const comm = (e: HeftEdge, p: number, r: number): number => latency * (1 + Math.abs(p - r)) + e.data;
        const s = heft({ tasks: n, processors: q, cost, edges: es, comm });
        checkValid(n, q, cost, es, comm, s);
      }),
      { numRuns: 200 },
    );
  });

  test('a task that cannot run anywhere, and a cycle, are ArgumentErrors', () => {
    expect(() => heft({ tasks: 1, processors: 2, cost: [[Infinity, Infinity]], edges: [], comm: () => 0 })).toThrow(/cannot run on any processor/);
    expect(() =>
      heft({
        tasks: 2,
        processors: 1,
        cost: [[1], [1]],
        edges: [
          { from: 0, to: 1, data: 0 },
          { from: 1, to: 0, data: 0 },
        ],
        comm: () => 0,
      }),
    ).toThrow(/cycle/);
  });
});
