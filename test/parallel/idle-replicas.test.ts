/**
 * A replica that takes no shard costs the one that does nothing: whenever a single replica takes
 * the whole batch, the step runs solo (its own optimizer step; no gradient handed over, nothing
 * joined, no weight reloaded) and the others are sent no message. Checked by counting what the
 * coordinator sent (StepResult.traffic), never by timing: while the balancer measures the core
 * alone, after it decides to go on without the candidates, and with a fixed split that gives the
 * idle replicas weight 0 (whatever the strategy). The weights still match a float64 reference.
 */
import { describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import type { ModuleRecord } from '../../src/nn/record.js';
import { DataParallel, type DataParallelOptions, type StepResult } from '../../src/parallel/data-parallel.js';
import type { Batch } from '../../src/parallel/protocol.js';
import { mlp, type MlpOptions } from './fixtures/mlp-task.js';
import { RefTrainer, refModel, worstRatio } from './ref-mlp.js';

const TASK = new URL('./fixtures/mlp-task.ts', import.meta.url);
const SIZES = [8, 12, 4];
const B = 16;
const OPTS: MlpOptions = { sizes: SIZES, optimizer: 'adam', lr: 0.01, eps: 1e-6 };

function data(step: number): { x: Float32Array; y: Int32Array; batch: Batch } {
  const x = Float32Array.from({ length: B * SIZES[0]! }, (_, i) => Math.sin(0.29 * i + step));
  const y = Int32Array.from({ length: B }, (_, i) => (5 * i + step) % SIZES[2]!);
  return { x, y, batch: { x: { data: x, shape: [B, SIZES[0]!] }, y: { data: y, shape: [B] } } };
}

async function initialRecord(): Promise<ModuleRecord> {
  const host = new Autodiff(new Cpu({ threads: 0 }));
  host.seed(17);
  const r = await mlp(host, host.defaultDevice(), SIZES).toRecord();
  await host.close();
  return r;
}

/** Trains `steps` steps on 'cpu:worker*3'; returns every step's result, the notices and whether the weights match the reference. */
async function train(steps: number, dpOptions: Partial<DataParallelOptions<MlpOptions>>): Promise<{ results: StepResult[]; notices: string[]; optimizerSteps: string }> {
  const initial = await initialRecord();
  const notices: string[] = [];
  const dp = await DataParallel.create<MlpOptions>({ task: TASK, module: initial, devices: 'cpu:worker*3', options: OPTS, onNotice: (m) => notices.push(m), ...dpOptions });
  try {
    const results: StepResult[] = [];
    for (let s = 1; s <= steps; s++) results.push(await dp.step(data(s).batch));
    const layers = refModel(initial, SIZES);
    const ref = new RefTrainer(layers, { kind: 'adam', lr: OPTS.lr, eps: OPTS.eps! });
    for (let s = 1; s <= steps; s++) ref.step(data(s).x, data(s).y, B);
    const worst = worstRatio(await dp.record(), layers, 1e-5, 1e-4);
    expect(worst.ratio, worst.where).toBeLessThanOrEqual(1);
    return { results, notices, optimizerSteps: dp.optimizerSteps };
  } finally {
    await dp.close();
  }
}

/** A step where only `core` took a shard ran solo and sent nothing to anyone else. */
function expectSolo(r: StepResult, core: number): void {
  expect(r.shards[core], `step ${r.step}`).toBe(B);
  expect(r.solo, `step ${r.step}`).toBe(true);
  r.traffic.forEach((t, i) => expect(t, `step ${r.step}, replica ${i}`).toEqual(i === core ? { messages: 1, reloaded: 0, buckets: 0 } : { messages: 0, reloaded: 0, buckets: 0 }));
}

describe('idle replicas cost the core nothing', () => {
  test('the balancer measures the core solo, probes, and after deciding against the candidates the core is solo again', async () => {
    // margin 0.99: the candidates are never predicted 99% faster, so the decision is always 'skip'.
    const { results, notices, optimizerSteps } = await train(7, { strategy: 'sharded', split: 'balanced', balance: { core: [0], warmupSteps: 0, measureSteps: 1, margin: 0.99 } });
    // Steps 1-2: the core alone, exactly as without the others; timed on the device for the balancer.
    for (const r of results.slice(0, 2)) {
      expectSolo(r, 0);
      expect(r.computeMs[0], `step ${r.step}`).toBeGreaterThan(0);
    }
    // Steps 3-4: each candidate a probe shard of 1; gradients are joined, the core steps the optimizer.
    for (const r of results.slice(2, 4)) {
      expect(r.shards).toEqual([B - 2, 1, 1]);
      expect(r.solo).toBe(false);
      expect(r.traffic[1]!.buckets).toBeGreaterThan(0);
    }
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/cpu:worker \(replica 0\) runs alone: .* ms for cpu:worker \(replica 0\) alone \(solo: its own optimizer step, no gradient read back or joined, no weight reloaded; the others sent nothing; median of 1 steps\); with cpu:worker \(replica 1\), cpu:worker \(replica 2\) predicted/);
    // Steps 5-7: solo again (the core owns every parameter: it holds the newest weights), and,
    // the balancer settled, not timed op by op (computeMs 0).
    for (const r of results.slice(4)) {
      expectSolo(r, 0);
      expect(r.computeMs[0], `step ${r.step}`).toBe(0);
    }
    // The optimizer stays with the core (no flat update over shared memory).
    expect(optimizerSteps).toBe('owners');
  });

  test('whatever the balancer decides (margin 0), every step the core takes alone runs solo, after a mix too', async () => {
    const { results, notices } = await train(12, { strategy: 'main', split: 'balanced', balance: { core: [0], warmupSteps: 0, measureSteps: 1, margin: 0 } });
    for (const r of results) {
      if (r.shards[1] === 0 && r.shards[2] === 0) expectSolo(r, 0);
      else expect(r.solo).toBe(false);
    }
    // Steps 1-2 alone, 3-4 probe; an add is followed by the mix (5-6) and the core alone again (7-8).
    expect(notices.length).toBeGreaterThanOrEqual(1);
    if (/adding/.test(notices[0]!)) {
      for (const r of results.slice(6, 8)) expectSolo(r, 0);
      expect(notices[1]).toMatch(/(keeping|dropping) .* against .* alone \(solo: .*; the faster of .* \(before the mix\) and .* \(after it\), medians of 1 steps each\)/);
    }
  });

  test("a fixed split that gives replicas weight 0: they own nothing and are sent nothing, even under 'sharded'", async () => {
    const { results, optimizerSteps } = await train(3, { strategy: 'sharded', split: [0, 1, 0] });
    for (const r of results) expectSolo(r, 1);
    expect(optimizerSteps).toBe('owners');
  });

  test('a core of two CPU replicas keeps the ranges update; the candidate is sent nothing while the core runs alone', async () => {
    const { results, notices, optimizerSteps } = await train(6, { strategy: 'main', split: 'balanced', balance: { core: [0, 1], warmupSteps: 0, measureSteps: 1, margin: 0.99 } });
    const idle = (r: StepResult): boolean => r.shards[2] === 0;
    // Steps 1-2 alone, 3-4 with a probe shard, then (skipped) alone again.
    expect(results.map(idle)).toEqual([true, true, false, false, true, true]);
    for (const r of results.filter(idle)) {
      expect(r.shards[0]! + r.shards[1]!).toBe(B);
      expect(r.solo).toBe(false);
      expect(r.traffic[2], `step ${r.step}`).toEqual({ messages: 0, reloaded: 0, buckets: 0 });
    }
    expect(notices[0]).toMatch(/the core replicas joined among themselves; the others sent nothing/);
    expect(optimizerSteps).toBe('ranges');
  });

  test('two replicas with weight and one with 0: the idle one is sent nothing, the two join in shared memory', async () => {
    const { results, optimizerSteps } = await train(3, { strategy: 'main', split: [1, 1, 0] });
    for (const r of results) {
      expect(r.shards).toEqual([8, 8, 0]);
      expect(r.solo).toBe(false);
      expect(r.traffic[2]).toEqual({ messages: 0, reloaded: 0, buckets: 0 });
      expect(r.traffic[0]!.buckets).toBeGreaterThan(0);
      // The step and one reload per bucket: the reductions start from the shared counters, with no message.
      const buckets = r.timeline.replicas.find((t) => t.index === 0)!.buckets.length;
      expect(buckets).toBeGreaterThan(0);
      for (const i of [0, 1]) expect(r.traffic[i]!.messages, `step ${r.step}, replica ${i}`).toBe(1 + buckets);
    }
    expect(optimizerSteps).toBe('ranges');
  });
});
