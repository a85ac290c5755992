import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { fromData, scheduler, type OpEvent, type OpRecord } from '../../src/index.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import type { ExecResult, Executor, PendingResult } from '../../src/scheduler/executor.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

/** An executor whose ops finish only when the test says so: no timing involved. */
class ManualExecutor implements Executor<number> {
  readonly deviceKey = 'manual';
  readonly started: string[] = [];
  readonly released: number[] = [];
  private gates = new Map<number, { resolve: (r: ExecResult<number>) => void; reject: (e: unknown) => void }>();
  execute(record: OpRecord): PendingResult<number> {
    this.started.push(record.op);
    return {
      promise: new Promise((resolve, reject) => this.gates.set(record.outputs[0]!.id, { resolve, reject })),
    };
  }
  finish(id: number, value: number): void {
    this.gates.get(id)!.resolve({ outputs: [value], where: 'manual' });
  }
  failOp(id: number, e: unknown): void {
    this.gates.get(id)!.reject(e);
  }
  async read(s: number) {
    return Float32Array.of(s);
  }
  release(s: number): void {
    this.released.push(s);
  }
}

let nextId = 1_000_000;
function rec(op: string, inputs: number[]): OpRecord {
  const meta = (id: number) => ({ id, shape: [1], dtype: 'float32' as const });
  return { id: nextId, op: op as OpRecord['op'], device: 'manual', inputs: inputs.map(meta), outputs: [meta(nextId++)], attrs: {} as never };
}

describe('scheduler', () => {
  test('an op waits for its producers and runs when they finish', async () => {
    const s = new Scheduler();
    const ex = new ManualExecutor();
    const a = rec('exp', []);
    const b = rec('neg', [a.outputs[0]!.id]);
    s.submit(a, ex);
    s.submit(b, ex);
    expect(ex.started).toEqual(['exp']);
    ex.finish(a.outputs[0]!.id, 5);
    await Promise.resolve();
    await Promise.resolve();
    expect(ex.started).toEqual(['exp', 'neg']);
    ex.finish(b.outputs[0]!.id, 6);
    await expect(s.use(b.outputs[0]!.id, 'read', (v) => v)).resolves.toBe(6);
  });

  test('a failure rejects every dependent read with the original error; unrelated ops go on', async () => {
    const s = new Scheduler();
    const ex = new ManualExecutor();
    const a = rec('exp', []);
    const b = rec('neg', [a.outputs[0]!.id]);
    const c = rec('abs', [b.outputs[0]!.id]);
    const u = rec('sin', []);
    for (const r of [a, b, c, u]) s.submit(r, ex);
    const boom = new Error('boom');
    ex.failOp(a.outputs[0]!.id, boom);
    ex.finish(u.outputs[0]!.id, 1);
    const readC = s.use(c.outputs[0]!.id, 'read', (v) => v);
    await expect(readC).rejects.toThrow('boom');
    await expect(s.use(u.outputs[0]!.id, 'read', (v) => v)).resolves.toBe(1);
    expect(s.pendingOps).toBe(0);
  });

  test('storage is released when no owner and no pending op needs it', async () => {
    const s = new Scheduler();
    const ex = new ManualExecutor();
    const a = rec('exp', []);
    const b = rec('neg', [a.outputs[0]!.id]);
    s.submit(a, ex);
    s.submit(b, ex);
    s.release(a.outputs[0]!.id); // the user drops a while b still needs it
    ex.finish(a.outputs[0]!.id, 7);
    await Promise.resolve();
    expect(ex.released).toEqual([]);
    ex.finish(b.outputs[0]!.id, 8);
    await Promise.resolve();
    await Promise.resolve();
    expect(ex.released).toEqual([7]);
  });

  test('one event per op with bytes and ordered times', async () => {
    const events: OpEvent[] = [];
    const sub = scheduler.events$.subscribe((e) => events.push(e));
    const x = fromData(cpu, [1, 2, 3, 4]);
    await x.add(x).toData();
    sub.unsubscribe();
    const add = events.find((e) => e.op === 'add')!;
    expect(add.device).toBe('cpu');
    expect(add.inputBytes).toBe(32);
    expect(add.outputBytes).toBe(16);
    expect(add.queuedAt).toBeLessThanOrEqual(add.startAt);
    expect(add.startAt).toBeLessThanOrEqual(add.endAt);
  });

  test('op records survive structuredClone and JSON', () => {
    const records: OpRecord[] = [];
    const original = (scheduler as unknown as { submit: Scheduler['submit'] }).submit;
    const spy = (r: OpRecord, e: Executor<unknown>, p?: never) => {
      records.push(r);
      original.call(scheduler, r, e, p);
    };
    (scheduler as unknown as { submit: unknown }).submit = spy;
    try {
      const x = fromData(cpu, [[1, 2], [3, 4]]);
      x.slice([[0, 1], null]).sum(0, true).matmul(x).softmax(-1);
    } finally {
      (scheduler as unknown as { submit: unknown }).submit = original;
    }
    expect(records.map((r) => r.op)).toEqual(['fromData', 'slice', 'sum', 'matmul', 'softmax']);
    for (const r of records) {
      expect(structuredClone(r)).toEqual(r);
      expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    }
  });
});
