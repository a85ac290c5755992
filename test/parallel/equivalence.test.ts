/**
 * N replicas on one global batch give the updated weights of one device on that batch.
 * Checked against an independent float64 reference (ref-mlp.ts) and against the same model
 * trained on one Switchyard device, for both strategies, uneven shards, several buckets, global
 * gradient clipping, the one-replica path and the balancer's probe shards. CPU replicas only.
 *
 * Tolerances: float32 against the float64 reference, |a - b| <= 1e-5 + 1e-4 |b|; against the
 * one-device float32 run, |a - b| <= 2e-6 + 1e-5 |b| (the sums run in another order).
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { tidy } from '../../src/memory/tidy.js';
import type { ModuleRecord } from '../../src/nn/record.js';
import { crossEntropy } from '../../src/nn/loss.js';
import { Adam } from '../../src/optim/adam.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { SGD } from '../../src/optim/sgd.js';
import type { Optimizer } from '../../src/optim/optimizer.js';
import { DataParallel, type DataParallelOptions } from '../../src/parallel/data-parallel.js';
import { fromData } from '../../src/tensor/creation.js';
import { mlp, type MlpOptions } from './fixtures/mlp-task.js';
import { RefTrainer, refModel, worstRatio } from './ref-mlp.js';

const TASK = new URL('./fixtures/mlp-task.ts', import.meta.url);
const SIZES = [12, 16, 8, 3];
const B = 23;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function batches(count: number, seed: number, sizes: readonly number[]): Array<{ x: Float32Array; y: Int32Array }> {
  const next = rng(seed);
  return Array.from({ length: count }, () => ({
    x: Float32Array.from({ length: B * sizes[0]! }, () => 2 * next() - 1),
    y: Int32Array.from({ length: B }, () => Math.floor(next() * sizes[sizes.length - 1]!)),
  }));
}

const host = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => host.close());

async function initialRecord(seed: number, sizes: readonly number[]): Promise<ModuleRecord> {
  host.seed(seed);
  const m = mlp(host, host.defaultDevice(), sizes);
  const r = await m.toRecord();
  m.dispose();
  return r;
}

/** The same training on one Switchyard device (no DataParallel). */
async function oneDevice(record: ModuleRecord, opts: MlpOptions, data: ReadonlyArray<{ x: Float32Array; y: Int32Array }>): Promise<ModuleRecord> {
  const model = mlp(host, host.defaultDevice(), opts.sizes).fromRecord(record);
  const extra = { ...(opts.clipNorm !== undefined ? { clipNorm: opts.clipNorm } : {}), maximize: opts.maximize ?? false };
  const opt: Optimizer<typeof host> = opts.optimizer === 'adam' ? new Adam({ lr: opts.lr, eps: opts.eps ?? 1e-8, amsgrad: opts.amsgrad ?? false, ...(opts.betas ? { betas: opts.betas } : {}), ...extra }) : new SGD({ lr: opts.lr, momentum: opts.momentum ?? 0, ...extra });
  for (const b of data) {
    tidy(() => {
      const loss = crossEntropy(model.forward(fromData(host, b.x, { shape: [B, opts.sizes[0]!] })), fromData(host, b.y));
      opt.step(model, ParamGrads.from(loss.backward(), model));
    });
  }
  const out = await model.toRecord();
  model.dispose();
  opt.clear();
  return out;
}

async function trainParallel(record: ModuleRecord, opts: MlpOptions, data: ReadonlyArray<{ x: Float32Array; y: Int32Array }>, dpOptions: Partial<DataParallelOptions<MlpOptions>>): Promise<{ record: ModuleRecord; losses: number[]; shards: number[][]; steps: 'ranges' | 'owners' }> {
  const dp = await DataParallel.create<MlpOptions>({ task: TASK, module: record, devices: 'cpu:worker*2', options: opts, split: 'even', onNotice: () => undefined, ...dpOptions });
  try {
    const losses: number[] = [];
    const shards: number[][] = [];
    for (const b of data) {
      const r = await dp.step({ x: { data: b.x, shape: [B, opts.sizes[0]!] }, y: { data: b.y, shape: [B] } });
      losses.push(r.loss);
      shards.push([...r.shards]);
    }
    return { record: await dp.record(), losses, shards, steps: dp.optimizerSteps };
  } finally {
    await dp.close();
  }
}

function reference(record: ModuleRecord, opts: MlpOptions, data: ReadonlyArray<{ x: Float32Array; y: Int32Array }>): { layers: ReturnType<typeof refModel>; losses: number[] } {
  const layers = refModel(record, opts.sizes);
  const t = new RefTrainer(layers, { kind: opts.optimizer, lr: opts.lr, ...(opts.momentum !== undefined ? { momentum: opts.momentum } : {}), ...(opts.eps !== undefined ? { eps: opts.eps } : {}), ...(opts.clipNorm !== undefined ? { clipNorm: opts.clipNorm } : {}) });
  const losses = data.map((b) => t.step(b.x, b.y, B));
  return { layers, losses };
}

function expectClose(actual: ModuleRecord, expected: ModuleRecord, atol: number, rtol: number): void {
  for (const [name, p] of Object.entries(expected.params)) {
    const got = actual.params[name]!.data;
    for (let i = 0; i < p.data.length; i++) {
      const ok = Math.abs(got[i]! - p.data[i]!) <= atol + rtol * Math.abs(p.data[i]!);
      if (!ok) expect.fail(`${name}[${i}]: ${got[i]} vs one device ${p.data[i]}`);
    }
  }
}

async function check(seed: number, opts: MlpOptions, dpOptions: Partial<DataParallelOptions<MlpOptions>>, steps = 3): Promise<{ shards: number[][]; steps: 'ranges' | 'owners' }> {
  const record = await initialRecord(seed, opts.sizes);
  const data = batches(steps, seed * 31, opts.sizes);
  const ref = reference(record, opts, data);
  const [dp, one] = await Promise.all([trainParallel(record, opts, data, dpOptions), oneDevice(record, opts, data)]);
  const worst = worstRatio(dp.record, ref.layers, 1e-5, 1e-4);
  expect(worst.ratio, worst.where).toBeLessThanOrEqual(1);
  expectClose(dp.record, one, 2e-6, 1e-5);
  dp.losses.forEach((l, i) => expect(l).toBeCloseTo(ref.losses[i]!, 5));
  // The weights moved: a test of equal results is no test when nothing changed.
  expect(worstRatio(record, ref.layers, 1e-5, 1e-4).ratio).toBeGreaterThan(1);
  return { shards: dp.shards, steps: dp.steps };
}

describe('DataParallel gives the weights of one device', () => {
  test("AMSGrad (no flat rule: the replicas step with tensors), 'main' and 'sharded', uneven shards", async () => {
    const opts: MlpOptions = { sizes: SIZES, optimizer: 'adam', lr: 0.05, eps: 1e-6, amsgrad: true, betas: [0.9, 0.5] };
    const record = await initialRecord(8, SIZES);
    const data = batches(4, 8 * 31, SIZES);
    const one = await oneDevice(record, opts, data);
    // The same run without AMSGrad ends elsewhere: the option is in effect.
    const plain = await oneDevice(record, { ...opts, amsgrad: false }, data);
    const moved = Object.entries(one.params).some(([name, p]) => p.data.some((v, i) => Math.abs(v - plain.params[name]!.data[i]!) > 1e-4));
    expect(moved).toBe(true);
    for (const strategy of ['main', 'sharded'] as const) {
      const dp = await trainParallel(record, opts, data, { strategy, split: [1, 2] });
      expect(dp.steps).toBe('owners');
      expectClose(dp.record, one, 2e-6, 1e-5);
    }
  });

  test("maximize (no flat rule: the replicas step with tensors), Adam and SGD, 'sharded', uneven shards", async () => {
    for (const optimizer of ['adam', 'sgd'] as const) {
      const opts: MlpOptions = { sizes: SIZES, optimizer, lr: 0.05, eps: 1e-6, momentum: 0.5, maximize: true };
      const record = await initialRecord(9, SIZES);
      const data = batches(3, 9 * 31, SIZES);
      const one = await oneDevice(record, opts, data);
      // Maximising ends elsewhere than minimising: the option is in effect.
      const min = await oneDevice(record, { ...opts, maximize: false }, data);
      expect(Object.entries(one.params).some(([name, p]) => p.data.some((v, i) => Math.abs(v - min.params[name]!.data[i]!) > 1e-3))).toBe(true);
      const dp = await trainParallel(record, opts, data, { strategy: 'sharded', split: [2, 1] });
      expect(dp.steps).toBe('owners');
      expectClose(dp.record, one, 2e-6, 1e-5);
    }
  });

  test("'main', two replicas, even shards (12 + 11), SGD with momentum, each replica computing on its own thread", async () => {
    const { shards, steps } = await check(1, { sizes: SIZES, optimizer: 'sgd', lr: 0.2, momentum: 0.9 }, { strategy: 'main', workerPoolThreads: 0 });
    expect(shards[0]).toEqual([12, 11]);
    // CPU replicas in threads: every replica steps the optimizer on the ranges it reduced.
    expect(steps).toBe('ranges');
  });

  test("'sharded', three replicas, uneven shards (1:2:4), Adam, many small buckets, each replica computing on a pool thread", async () => {
    const { shards, steps } = await check(2, { sizes: SIZES, optimizer: 'adam', lr: 0.01, eps: 1e-6 }, { strategy: 'sharded', devices: 'cpu:worker*3', split: [1, 2, 4], bucketBytes: 256, firstBucketBytes: 128, workerPoolThreads: 1 });
    expect(shards[0]).toEqual([3, 7, 13]);
    expect(steps).toBe('ranges');
  });

  test("'main' on a pool replica and a one-thread replica (3:1), SGD, clipped on the global norm", async () => {
    // Clipping needs the global norm before any update: each parameter steps on its owner.
    const { steps } = await check(3, { sizes: SIZES, optimizer: 'sgd', lr: 0.5, clipNorm: 0.05 }, { strategy: 'main', devices: 'cpu,cpu:worker', split: [3, 1], cpuThreads: 2 });
    expect(steps).toBe('owners');
  });

  test("'sharded', two replicas, a layer of 82k values: each reducer sums and steps its range in slices", async () => {
    // 320 x 256 weights and their bias in one bucket, halved between the two reducers: 41k values
    // each, more than one slice (replica.ts) of the sum and Adam update.
    // eps 1e-3: Adam divides by sqrt(v) + eps, which with a small eps magnifies the float32
    // summation-order noise of near-zero gradients past the one-device tolerance (4e-6 apart with
    // eps 1e-6, sliced or not; the float64 check holds either way).
    const { steps } = await check(6, { sizes: [320, 256, 3], optimizer: 'adam', lr: 0.01, eps: 1e-3 }, { strategy: 'sharded', workerPoolThreads: 1 });
    expect(steps).toBe('ranges');
  });

  test('one replica: the optimizer steps locally', async () => {
    await check(4, { sizes: SIZES, optimizer: 'adam', lr: 0.01, eps: 1e-6 }, { devices: 'cpu:worker' });
  });

  test("'sharded' under the balancer: the core alone, then probe shards, then whatever it decides", async () => {
    const { shards, steps } = await check(5, { sizes: SIZES, optimizer: 'adam', lr: 0.01, eps: 1e-6 }, { strategy: 'sharded', split: 'balanced', balance: { core: [0], warmupSteps: 0, measureSteps: 1 } }, 7);
    // Steps 1-2: replica 0 alone; 3-4: replica 1 takes a probe shard of 1 sample (its gradient
    // joined with weight 1/23); then added (balanced shards) or not.
    expect(shards.slice(0, 2)).toEqual([[B, 0], [B, 0]]);
    expect(shards.slice(2, 4)).toEqual([[B - 1, 1], [B - 1, 1]]);
    // The core must run alone as it would without the others (solo), so the optimizer stays on
    // it rather than in the ranges update over shared memory.
    expect(steps).toBe('owners');
  });
});
