/**
 * What explain() calls an op's measured time and its prediction error, on logs written by hand:
 * an op timed alone against its own time; ops timed together (a GPU batch) as one measurement,
 * their summed predictions against their share of the group's span.
 */
import { describe, expect, test } from 'vitest';
import { explainStep, StepLog, type LoggedOp } from '../../src/placement/explain.js';

function op(name: string, predictedMs: number, measuredMs: number | undefined, group?: { id: number; spanMs: number; size: number }): LoggedOp {
  return { op: name, shape: '[4]', device: group ? 'gpu:0' : 'cpu', reason: 'home', source: 'history', predictedMs, transfers: [], ...(measuredMs !== undefined ? { measuredMs } : {}), ...(group ? { group } : {}) };
}

function logOf(ops: LoggedOp[]): StepLog {
  const log = new StepLog(3);
  log.ops.push(...ops);
  return log;
}

describe('explain: prediction error', () => {
  test('ops timed alone: |predicted - measured| / measured of each op, median over ops', () => {
    const x = explainStep(logOf([op('exp', 1, 2), op('log', 3, 3), op('sum', 1.5, 1)]), 'auto', 'r', []);
    // Errors 50%, 0%, 50%: median 50%.
    expect(x.medianErrorPct).toBeCloseTo(50, 10);
    expect(x.measurements).toBe(3);
  });

  test('a GPU batch: the span is split by the logged predictions, and the batch is one measurement', () => {
    // Predicted 1 + 3 = 4 ms, the batch measured 5 ms: each op 25% under. The profiler's split
    // (made with its own weights) said 4 and 1; it is not what the error is judged on.
    const g = { id: 7, spanMs: 5, size: 2 };
    const x = explainStep(logOf([op('matmul', 1, 4, g), op('relu', 3, 1, g), op('exp', 2, 2)]), 'auto', 'r', []);
    const rows = new Map(x.rows.map((r) => [r.op, r]));
    expect(rows.get('matmul')!.measuredMs).toBeCloseTo(1.25, 12);
    expect(rows.get('relu')!.measuredMs).toBeCloseTo(3.75, 12);
    // Errors per measured span: the batch's 0.2 (|4 - 5| / 5) and exp's 0: median 10%.
    expect(x.medianErrorPct).toBeCloseTo(10, 10);
    expect(x.measurements).toBe(2);
  });

  test("a group with ops from outside the step keeps the profiler's split; its error is of the members' share", () => {
    const g = { id: 1, spanMs: 6, size: 3 };
    const x = explainStep(logOf([op('matmul', 1, 4, g), op('relu', 3, 1, g)]), 'auto', 'r', []);
    const rows = new Map(x.rows.map((r) => [r.op, r]));
    expect(rows.get('matmul')!.measuredMs).toBe(4);
    expect(rows.get('relu')!.measuredMs).toBe(1);
    // The members' share of the span is 4 + 1 = 5 ms against 1 + 3 = 4 predicted: 20% (not the
    // per-op 75% and 200% of a split made with the profiler's weights).
    expect(x.medianErrorPct).toBeCloseTo(20, 10);
    expect(x.measurements).toBe(1);
  });

  test('ops without a prediction or a measurement count for nothing', () => {
    const x = explainStep(logOf([op('exp', Number.NaN, 2), op('log', 1, undefined), op('sum', 2, 1)]), 'auto', 'r', []);
    expect(x.medianErrorPct).toBeCloseTo(100, 10);
    expect(x.measurements).toBe(2);
  });
});
