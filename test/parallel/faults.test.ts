/**
 * Faults: a replica that throws, whose worker thread dies, or that hangs fails its step with a
 * ReplicaError naming the replica and its device; every thread ends (no orphan), later calls
 * fail with the same error, and a new DataParallel resumes from the last checkpoint to the
 * weights an uninterrupted run reaches.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import type { ModuleRecord } from '../../src/nn/record.js';
import { loadCheckpoint } from '../../src/parallel/checkpoint.js';
import { DataParallel, type DataParallelOptions } from '../../src/parallel/data-parallel.js';
import { ReplicaError } from '../../src/parallel/errors.js';
import type { Batch } from '../../src/parallel/protocol.js';
import { mlp, type MlpOptions } from './fixtures/mlp-task.js';
import { RefTrainer, refModel, worstRatio } from './ref-mlp.js';

const TASK = new URL('./fixtures/mlp-task.ts', import.meta.url);
const SIZES = [6, 8, 3];
const B = 10;
const host = new Autodiff(new Cpu({ threads: 0 }));
const dirs: string[] = [];
afterAll(async () => {
  await host.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function data(step: number): { x: Float32Array; y: Int32Array; batch: Batch } {
  const x = Float32Array.from({ length: B * SIZES[0]! }, (_, i) => Math.sin(0.7 * i + step));
  const y = Int32Array.from({ length: B }, (_, i) => (i + step) % SIZES[2]!);
  return { x, y, batch: { x: { data: x, shape: [B, SIZES[0]!] }, y: { data: y, shape: [B] } } };
}

async function start(options: Partial<DataParallelOptions<MlpOptions>> & { options: MlpOptions }, record?: ModuleRecord): Promise<DataParallel> {
  host.seed(9);
  const module = record ?? (await mlp(host, host.defaultDevice(), SIZES).toRecord());
  return DataParallel.create<MlpOptions>({ task: TASK, module, devices: 'cpu:worker*2', split: 'even', onNotice: () => undefined, ...options });
}

const SGD: MlpOptions = { sizes: SIZES, optimizer: 'sgd', lr: 0.3, momentum: 0.5 };

describe('a failing replica fails the step, names itself, and leaves no thread behind', () => {
  test('a replica that throws', async () => {
    const dp = await start({ options: { ...SGD, fault: { replica: 1, step: 2, kind: 'throw' } } });
    await dp.step(data(1).batch);
    const failed = dp.step(data(2).batch);
    await expect(failed).rejects.toThrow(ReplicaError);
    await expect(failed).rejects.toThrow(/replica 1 \(cpu:worker\) failed during 'step': Error: injected fault on replica 1/);
    await dp.close();
    expect(dp.replicaInfo.every((r) => r.ended && !r.active)).toBe(true);
    // Later calls fail with the same error, at once.
    await expect(dp.step(data(3).batch)).rejects.toThrow(/replica 1 \(cpu:worker\) failed/);
    await expect(dp.record()).rejects.toThrow(/replica 1 \(cpu:worker\) failed/);
  });

  test('a replica whose worker thread dies mid-step', async () => {
    const dp = await start({ options: { ...SGD, fault: { replica: 0, step: 1, kind: 'exit' } } });
    const err: unknown = await dp.step(data(1).batch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplicaError);
    expect(err).toMatchObject({ replica: 0, device: 'cpu:worker' });
    expect(String(err)).toMatch(/replica 0 \(cpu:worker\) ended: its worker thread exited with code 7/);
    expect(String(err)).toMatch(/hint: .*[Rr]esume from the last checkpoint/);
    await dp.close();
    expect(dp.replicaInfo.every((r) => r.ended)).toBe(true);
  });

  test('a replica that hangs fails the step when timeoutMs passes', async () => {
    const dp = await start({ options: { ...SGD, fault: { replica: 1, step: 1, kind: 'hang' } }, timeoutMs: 4000 });
    await expect(dp.step(data(1).batch)).rejects.toThrow(/replica 1 \(cpu:worker\) did not finish step 1 within 4000 ms/);
    await dp.close();
    expect(dp.replicaInfo.every((r) => r.ended)).toBe(true);
  });
});

describe('bad tasks', () => {
  test('a task module without a task, or a model that does not match the record, fails create() naming the replica', async () => {
    host.seed(9);
    const module = await mlp(host, host.defaultDevice(), SIZES).toRecord();
    const noTask = DataParallel.create({ task: new URL('./ref-mlp.ts', import.meta.url), module, devices: 'cpu:worker', options: {} });
    await expect(noTask).rejects.toThrow(/replica 0 \(cpu:worker\) failed during 'init': ArgumentError: .*ref-mlp.ts does not export a task.*hint: export default defineTask/);
    const other = DataParallel.create<MlpOptions>({ task: TASK, module, devices: 'cpu:worker', options: { ...SGD, sizes: [6, 5, 3] } });
    await expect(other).rejects.toThrow(/replica 0 \(cpu:worker\) failed during 'init': ShapeError: fromRecord: parameter 'layers.0.weight' has shape \[6, 5\], the record \[6, 8\]/);
  });
});

describe('resuming from a checkpoint', () => {
  test('the next run continues from the last checkpoint to the weights of an uninterrupted run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-dp-resume-'));
    dirs.push(dir);
    const adam: MlpOptions = { sizes: SIZES, optimizer: 'adam', lr: 0.02, eps: 1e-6 };
    // Run 1: two steps, a checkpoint, then replica 1's thread dies during step 3.
    const first = await start({ options: { ...adam, fault: { replica: 1, step: 3, kind: 'exit' } }, strategy: 'sharded' });
    const initial = await first.record();
    await first.step(data(1).batch);
    await first.step(data(2).batch);
    await first.checkpoint(dir, { epoch: 0, next: 3 });
    await expect(first.step(data(3).batch)).rejects.toThrow(/replica 1 \(cpu:worker\) ended/);
    await first.close();

    // Run 2 resumes.
    const cp = await loadCheckpoint(dir);
    expect(cp).toBeDefined();
    expect(cp!.step).toBe(2);
    expect(cp!.meta).toEqual({ epoch: 0, next: 3 });
    const second = await start({ options: adam, strategy: 'sharded', optimizerState: cp!.optimizer, startStep: cp!.step }, cp!.model);
    const r3 = await second.step(data(3).batch);
    expect(r3.step).toBe(3);
    await second.step(data(4).batch);
    const resumed = await second.record();
    await second.close();

    // The float64 reference trains four steps without a break.
    const layers = refModel(initial, SIZES);
    const ref = new RefTrainer(layers, { kind: 'adam', lr: 0.02, eps: 1e-6 });
    for (let s = 1; s <= 4; s++) ref.step(data(s).x, data(s).y, B);
    const worst = worstRatio(resumed, layers, 1e-5, 1e-4);
    expect(worst.ratio, worst.where).toBeLessThanOrEqual(1);
    // Resuming without the optimizer state would not get there (Adam's moments matter).
    expect(cp!.optimizer.kind).toBe('adam');
    expect(Object.keys(cp!.optimizer.params)).toHaveLength(4);
    // ParamIds survive the checkpoint.
    expect(Object.values(resumed.params).map((p) => p.id)).toEqual(Object.values(initial.params).map((p) => p.id));
  });
});
