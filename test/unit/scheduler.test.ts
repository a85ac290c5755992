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
  readonly host = true;
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
function rec(op: 'exp' | 'neg' | 'abs' | 'sin', inputs: number[]): OpRecord {
  const meta = (id: number) => ({ id, shape: [1], dtype: 'float32' as const });
  return { id: nextId, op, device: 'manual', inputs: inputs.map(meta), outputs: [meta(nextId++)], attrs: {} };
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

  test('op records survive structuredClone and JSON (each event carries its record)', async () => {
    const records: OpRecord[] = [];
    const sub = scheduler.events$.subscribe((e) => records.push(e.record));
    const x = fromData(cpu, [[1, 2], [3, 4]]);
    await x.slice([[0, 1], null]).sum(0, true).matmul(x).softmax(-1).toData();
    sub.unsubscribe();
    expect(records.map((r) => r.op)).toEqual(['fromData', 'slice', 'sum', 'matmul', 'softmax']);
    for (const r of records) {
      expect(structuredClone(r)).toEqual(r);
      expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    }
    expect(records[3]!.inputs.map((m) => m.shape)).toEqual([[1, 2], [2, 2]]);
  });

  test("a lane counts its device's unfinished ops; each event reports the depth it found", async () => {
    const s = new Scheduler();
    const ex = new ManualExecutor();
    const events: OpEvent[] = [];
    const sub = s.events$.subscribe((e) => events.push(e));
    const a = rec('exp', []);
    const b = rec('neg', []);
    const c = rec('abs', [a.outputs[0]!.id]);
    for (const r of [a, b, c]) s.submit(r, ex);
    expect(s.lane('manual').depth).toBe(3);
    ex.finish(a.outputs[0]!.id, 1);
    ex.finish(b.outputs[0]!.id, 2);
    await Promise.resolve();
    await Promise.resolve();
    expect(s.lane('manual').depth).toBe(1);
    ex.finish(c.outputs[0]!.id, 3);
    await s.flush();
    sub.unsubscribe();
    expect(s.lane('manual').depth).toBe(0);
    expect(events.map((e) => [e.op, e.queueDepth])).toEqual([
      ['exp', 0],
      ['neg', 1],
      ['abs', 2],
    ]);
    expect(s.laneInfos().map((l) => l.device)).toEqual(['manual']);
  });

  test('an op that ran ahead is reported when its work is done, not when it returned', async () => {
    const s = new Scheduler();
    let signal!: () => void;
    const done = new Promise<void>((r) => (signal = r));
    const ahead: Executor<number> = {
      deviceKey: 'ahead',
      host: false,
      execute: () => ({ outputs: [1], where: 'gpu', done }),
      read: async (v) => Float32Array.of(v),
      release: () => undefined,
    };
    const events: OpEvent[] = [];
    const sub = s.events$.subscribe((e) => events.push(e));
    const a = rec('exp', []);
    const b = rec('neg', [a.outputs[0]!.id]);
    s.submit(a, ahead);
    s.submit(b, ahead);
    // Both ran (b used a's output at once), neither is reported yet.
    await expect(s.use(b.outputs[0]!.id, 'read', (v) => v)).resolves.toBe(1);
    expect(events).toEqual([]);
    expect(s.lane('manual').depth).toBe(2);
    signal();
    await done;
    await Promise.resolve();
    sub.unsubscribe();
    expect(events.map((e) => e.op)).toEqual(['exp', 'neg']);
    expect(s.lane('manual').depth).toBe(0);
  });
});
