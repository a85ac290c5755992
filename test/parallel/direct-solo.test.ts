/**
 * A settled solo step of the replica on the calling thread (one GPU) is called, not messaged
 * (Replica.stepNow): the same weights and losses as a float64 reference, the batch read before
 * step() returns, a replica error failing the step and the instance, timers cleared, and weights
 * read between steps current.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DataParallel, type DataParallelOptions } from '../../src/parallel/data-parallel.js';
import { ReplicaError } from '../../src/parallel/errors.js';
import type { Batch } from '../../src/parallel/protocol.js';
import { Replica } from '../../src/parallel/replica.js';
import type { ModuleRecord } from '../../src/nn/record.js';
import { describeGpu } from '../wgpu/gpu.js';
import { mlp, type MlpOptions } from './fixtures/mlp-task.js';
import { RefTrainer, refModel, worstRatio, type RefLayer } from './ref-mlp.js';

/** Closes `dp` with timers faked (set by the caller), then makes them real again. */
async function closed(dp: DataParallel): Promise<void> {
  try {
    await dp.close();
  } finally {
    vi.useRealTimers();
  }
}

const TASK = new URL('./fixtures/mlp-task.ts', import.meta.url);
const SIZES = [8, 12, 4];
const B = 16;
const OPTS: MlpOptions = { sizes: SIZES, optimizer: 'adam', lr: 0.02, eps: 1e-6 };

function data(step: number): { x: Float32Array; y: Int32Array; batch: Batch } {
  const x = Float32Array.from({ length: B * SIZES[0]! }, (_, i) => Math.sin(0.23 * i + 0.7 * step));
  const y = Int32Array.from({ length: B }, (_, i) => (5 * i + step) % SIZES[2]!);
  return { x, y, batch: { x: { data: x, shape: [B, SIZES[0]!] }, y: { data: y, shape: [B] } } };
}

async function initial(): Promise<ModuleRecord> {
  const host = new Autodiff(new Cpu({ threads: 0 }));
  host.seed(5);
  const rec = await mlp(host, host.defaultDevice(), SIZES).toRecord();
  await host.close();
  return rec;
}

async function start(module: ModuleRecord, extra: Partial<DataParallelOptions<MlpOptions>> = {}): Promise<DataParallel> {
  return DataParallel.create<MlpOptions>({ task: TASK, module, devices: 'wgpu:0', options: OPTS, gpuHost: 'main', onNotice: () => undefined, ...extra });
}

/** A DataParallel on wgpu:0 and a float64 trainer from the same initial weights. */
async function startWithReference(): Promise<{ dp: DataParallel; layers: RefLayer[]; ref: RefTrainer }> {
  const module = await initial();
  const layers = refModel(module, SIZES);
  return { dp: await start(module), layers, ref: new RefTrainer(layers, { kind: 'adam', lr: OPTS.lr, eps: OPTS.eps! }) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describeGpu('a solo step on the calling thread, called directly', () => {
  test('matches the float64 reference step by step (weights and losses), each step called directly', async () => {
    const direct = vi.spyOn(Replica.prototype, 'stepNow');
    const { dp, layers, ref } = await startWithReference();
    try {
      for (let s = 1; s <= 6; s++) {
        const r = await dp.step(data(s).batch);
        const want = ref.step(data(s).x, data(s).y, B);
        expect(r.step).toBe(s);
        expect(r.solo).toBe(true);
        expect(r.shards).toEqual([B]);
        expect(Math.abs(r.loss - want)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want)));
        expect(r.traffic).toEqual([{ messages: 1, reloaded: 0, buckets: 0 }]);
        const t = r.timeline;
        expect(t.replicas).toHaveLength(1);
        expect(t.startAt).toBeLessThanOrEqual(t.replicas[0]!.reloadAt);
        expect(t.replicas[0]!.optimizerEndAt!).toBeLessThanOrEqual(t.endAt);
      }
      expect(direct).toHaveBeenCalledTimes(6);
      const worst = worstRatio(await dp.record(), layers, 1e-5, 1e-4);
      expect(worst.ratio, worst.where).toBeLessThanOrEqual(1);
    } finally {
      await dp.close();
    }
  });

  test('the batch is read before step() returns: changing it afterwards changes nothing', async () => {
    const { dp, layers, ref } = await startWithReference();
    try {
      for (let s = 1; s <= 3; s++) {
        const d = data(s);
        const want = ref.step(Float32Array.from(d.x), Int32Array.from(d.y), B);
        const pending = dp.step(d.batch);
        d.x.fill(100);
        d.y.fill(0);
        const r = await pending;
        expect(Math.abs(r.loss - want)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want)));
      }
      const worst = worstRatio(await dp.record(), layers, 1e-5, 1e-4);
      expect(worst.ratio, worst.where).toBeLessThanOrEqual(1);
    } finally {
      await dp.close();
    }
  });

  test('a batch of another size than the step before (whose route was worked out ahead) and a step lr: still direct, still the reference', async () => {
    const direct = vi.spyOn(Replica.prototype, 'stepNow');
    const { dp, layers, ref } = await startWithReference();
    try {
      const sizes = [B, B / 2, B / 2, 3, B];
      for (const [k, n] of sizes.entries()) {
        const d = data(k + 1);
        const x = d.x.slice(0, n * SIZES[0]!);
        const y = d.y.slice(0, n);
        // The reference trainer steps at the optimizer's rate; a step lr equal to it must change nothing.
        const r = await dp.step({ x: { data: x, shape: [n, SIZES[0]!] }, y: { data: y, shape: [n] } }, k === 2 ? { lr: OPTS.lr } : {});
        const want = ref.step(x, y, n);
        expect(r.shards).toEqual([n]);
        expect(r.solo).toBe(true);
        expect(Math.abs(r.loss - want)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want)));
      }
      expect(direct).toHaveBeenCalledTimes(sizes.length);
      const worst = worstRatio(await dp.record(), layers, 1e-5, 1e-4);
      expect(worst.ratio, worst.where).toBeLessThanOrEqual(1);
    } finally {
      await dp.close();
    }
  });

  test('weights read between steps are current, and the steps after the read stay direct', async () => {
    const direct = vi.spyOn(Replica.prototype, 'stepNow');
    const { dp, layers, ref } = await startWithReference();
    try {
      for (let s = 1; s <= 4; s++) {
        await dp.step(data(s).batch);
        ref.step(data(s).x, data(s).y, B);
        const worst = worstRatio(await dp.record(), layers, 1e-5, 1e-4);
        expect(worst.ratio, `after step ${s}: ${worst.where}`).toBeLessThanOrEqual(1);
      }
      expect(direct).toHaveBeenCalledTimes(4);
    } finally {
      await dp.close();
    }
  });

  test("a replica error fails the step with a ReplicaError whose cause is the replica's own; later calls reject; no timer is left", async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const idle = timers();
    const dp = await start(await initial(), { timeoutMs: 60_000 });
    await dp.step(data(1).batch);
    const wrong: Batch = { x: { data: new Float32Array(B * 7), shape: [B, 7] }, y: { data: new Int32Array(B), shape: [B] } };
    // From the failure on, timers are faked: the replicas, the failed one too, must end when told
    // to, not at a grace timer's end (which would never fire).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const err = await dp.step(wrong).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ReplicaError);
    const re = err as ReplicaError;
    expect(re.message).toMatch(/replica 0 \(wgpu:0\)/);
    expect(re.message).toMatch(/failed during 'step'/);
    expect((re.cause as Error).name).toBe('ShapeError');
    await expect(dp.step(data(2).batch)).rejects.toBe(err);
    await closed(dp);
    expect(dp.replicaInfo.every((r) => r.ended)).toBe(true);
    expect(timers()).toBeLessThanOrEqual(idle);
  });

  test('close() right after a step: the step still completes, later steps reject', async () => {
    const dp = await start(await initial());
    await dp.step(data(1).batch);
    const before = dp.step(data(2).batch);
    const closing = dp.close();
    await expect(dp.step(data(3).batch)).rejects.toThrow(/closed/);
    expect((await before).step).toBe(2);
    await closing;
  });
});
