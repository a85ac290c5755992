/**
 * GPU replicas (lavapipe on machines without a GPU): a GPU replica on the calling thread, in a
 * worker thread and in a pinned child process trains to the float64 reference's weights beside a CPU replica, and a GPU
 * process killed mid-step fails the step with an error naming it, leaving no process behind.
 */
import { describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DataParallel, type DataParallelOptions, type StepResult } from '../../src/parallel/data-parallel.js';
import { ReplicaError } from '../../src/parallel/errors.js';
import type { Batch } from '../../src/parallel/protocol.js';
import { describeGpu } from '../wgpu/gpu.js';
import { mlp, type MlpOptions } from './fixtures/mlp-task.js';
import { RefTrainer, refModel, worstRatio } from './ref-mlp.js';

const TASK = new URL('./fixtures/mlp-task.ts', import.meta.url);
const SIZES = [8, 12, 4];
const B = 16;

function data(step: number): { x: Float32Array; y: Int32Array; batch: Batch } {
  const x = Float32Array.from({ length: B * SIZES[0]! }, (_, i) => Math.cos(0.37 * i + step));
  const y = Int32Array.from({ length: B }, (_, i) => (3 * i + step) % SIZES[2]!);
  return { x, y, batch: { x: { data: x, shape: [B, SIZES[0]!] }, y: { data: y, shape: [B] } } };
}

async function trained(opts: MlpOptions, dp: Partial<DataParallelOptions<MlpOptions>>, steps: number, seen: (r: StepResult) => void = () => undefined): Promise<void> {
  const host = new Autodiff(new Cpu({ threads: 0 }));
  host.seed(21);
  const initial = await mlp(host, host.defaultDevice(), SIZES).toRecord();
  await host.close();
  const par = await DataParallel.create<MlpOptions>({ task: TASK, module: initial, devices: 'wgpu:0,cpu:worker', options: opts, split: [1, 1], onNotice: () => undefined, ...dp });
  try {
    expect(par.replicaInfo[0]!.describe).toMatch(/^autodiff<wgpu> on /);
    expect(par.replicaInfo[0]!.host).toBe(dp.gpuHost ?? 'main');
    for (let s = 1; s <= steps; s++) seen(await par.step(data(s).batch));
    const layers = refModel(initial, SIZES);
    const ref = new RefTrainer(layers, { kind: opts.optimizer, lr: opts.lr, ...(opts.momentum !== undefined ? { momentum: opts.momentum } : {}), ...(opts.eps !== undefined ? { eps: opts.eps } : {}) });
    for (let s = 1; s <= steps; s++) ref.step(data(s).x, data(s).y, B);
    const worst = worstRatio(await par.record(), layers, 1e-5, 1e-4);
    expect(worst.ratio, worst.where).toBeLessThanOrEqual(1);
  } finally {
    await par.close();
  }
}

describeGpu('DataParallel with a GPU replica', () => {
  test("a GPU replica in a worker thread beside a CPU replica, 'main' on the GPU", async () => {
    await trained({ sizes: SIZES, optimizer: 'sgd', lr: 0.3, momentum: 0.9 }, { strategy: 'main', gpuHost: 'thread' }, 2);
  });

  test('one GPU: its replica runs on the calling thread; balanced, the GPU starts alone and the CPU takes probe shards', async () => {
    const shards: number[][] = [];
    await trained({ sizes: SIZES, optimizer: 'adam', lr: 0.02, eps: 1e-6 }, { strategy: 'main', gpuHost: 'main', split: 'balanced', balance: { warmupSteps: 1, measureSteps: 1 } }, 6, (r) => shards.push([...r.shards]));
    expect(shards.slice(0, 3)).toEqual([[B, 0], [B, 0], [B, 0]]);
    expect(shards[3]).toEqual([B - 1, 1]);
  });

  test("a GPU replica in a pinned process, 'sharded'", async () => {
    await trained({ sizes: SIZES, optimizer: 'adam', lr: 0.02, eps: 1e-6 }, { strategy: 'sharded', gpuHost: 'process' }, 2);
  });

  test('a GPU process killed mid-step fails the step naming it, and no process is left', async () => {
    const host = new Autodiff(new Cpu({ threads: 0 }));
    const initial = await mlp(host, host.defaultDevice(), SIZES).toRecord();
    await host.close();
    const par = await DataParallel.create<MlpOptions>({ task: TASK, module: initial, devices: 'wgpu:0,cpu:worker', options: { sizes: SIZES, optimizer: 'sgd', lr: 0.1 }, gpuHost: 'process', split: [1, 1] });
    const gpu = par.replicaInfo[0]!;
    expect(gpu.host).toBe('process');
    await par.step(data(1).batch);
    const step = par.step(data(2).batch);
    process.kill(gpu.id, 'SIGKILL');
    const err: unknown = await step.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplicaError);
    expect(String(err)).toMatch(new RegExp(`replica 0 \\(wgpu:0\\) ended: its process \\(pid ${gpu.id}\\) was killed by SIGKILL`));
    await par.close();
    expect(par.replicaInfo.every((r) => r.ended)).toBe(true);
    expect(() => process.kill(gpu.id, 0)).toThrow(/ESRCH/);
  });
});
