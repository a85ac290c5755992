import { Worker } from 'node:worker_threads';
import { describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, fromData, Runtime, scheduler, type OpRecord } from '../../src/index.js';
import { IdSource } from '../../src/runtime/ids.js';

function runWorker(): Promise<{ prefix: number; records: OpRecord[] }> {
  const url = new URL('../fixtures/runtime-worker.ts', import.meta.url);
  // A JavaScript entry that imports the .ts module, which registers tsx's loader for its thread.
  const worker = new Worker(new URL('../fixtures/ts-worker.mjs', import.meta.url), { workerData: { module: url.href } });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { prefix: number; records: OpRecord[] }) => resolve(m));
    worker.once('error', reject);
  }).finally(() => worker.terminate()) as Promise<{ prefix: number; records: OpRecord[] }>;
}

function ids(records: readonly OpRecord[]): { ops: number[]; tensors: number[] } {
  return { ops: records.map((r) => r.id), tensors: records.flatMap((r) => r.outputs.map((m) => m.id)) };
}

describe('runtimes', () => {
  test('records from two runtimes in two worker threads merge without id collisions', async () => {
    const [a, b] = await Promise.all([runWorker(), runWorker()]);
    expect(a.prefix).not.toBe(b.prefix);
    expect(a.records.map((r) => r.op)).toEqual(['fromData', 'mulScalar', 'add', 'exp']);
    // The main thread's runtime makes the same ops too.
    const cpu = new Cpu({ threads: 0 });
    const mine: OpRecord[] = [];
    const sub = scheduler.events$.subscribe((e) => mine.push(e.record));
    const x = fromData(cpu, [1, 2, 3]);
    await x.mul(2).add(x).exp().toData();
    sub.unsubscribe();
    await cpu.close();
    const all = [a.records, b.records, mine].map(ids);
    const ops = all.flatMap((i) => i.ops);
    const tensors = all.flatMap((i) => i.tensors);
    expect(new Set(ops).size).toBe(ops.length);
    expect(new Set(tensors).size).toBe(tensors.length);
    // Each id names its runtime.
    for (const r of a.records) expect(IdSource.prefixOf(r.id)).toBe(a.prefix);
    for (const r of b.records) expect(IdSource.prefixOf(r.outputs[0]!.id)).toBe(b.prefix);
    // Inputs refer to tensors of the same runtime: a merged stream is still a valid graph.
    const produced = new Set(a.records.flatMap((r) => r.outputs.map((m) => m.id)));
    for (const r of a.records) for (const m of r.inputs) expect(produced.has(m.id)).toBe(true);
  });

  test('a runtime of its own: its own ids, scheduler and tidy scopes', async () => {
    const rt = new Runtime({ prefix: 7 });
    const cpu = new Cpu({ threads: 0, runtime: rt });
    const x = fromData(cpu, [1, 2]);
    expect(IdSource.prefixOf(x.id)).toBe(7);
    expect(rt.scheduler.liveSlots).toBe(1);
    expect(await x.add(1).toArray()).toEqual([2, 3]);
    await cpu.close();
  });

  test('a prefix out of range is an ArgumentError', () => {
    expect(() => new Runtime({ prefix: -1 })).toThrow(ArgumentError);
    expect(() => new Runtime({ prefix: 2 ** 21 })).toThrow(/prefix must be an integer/);
  });
});
