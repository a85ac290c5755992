/**
 * Buffers (BatchNorm's running statistics) under DataParallel: one replica publishes them after
 * its forward pass and every replica loads them at the next step (PyTorch DDP's
 * broadcast_buffers); no optimizer update touches them or a frozen weight (weight decay included). Checked with a
 * global batch made of one batch twice: each of two replicas then sees that batch, so weights,
 * running statistics and the batch count must be those of one device trained on it.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { tidy } from '../../src/memory/tidy.js';
import { crossEntropy } from '../../src/nn/loss.js';
import type { ModuleRecord } from '../../src/nn/record.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { DataParallel, type Strategy } from '../../src/parallel/data-parallel.js';
import { fromData } from '../../src/tensor/creation.js';
import { describeGpu } from '../wgpu/gpu.js';
import { normOptimizer, WithNorm, type NormOptions } from './fixtures/bn-task.js';

const TASK = new URL('./fixtures/bn-task.ts', import.meta.url);
const host = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => host.close());

const N = 6;
const batches = Array.from({ length: 4 }, (_, s) => ({
  x: Float32Array.from({ length: N * 5 }, (_, i) => 2 * Math.sin(1.3 * i + s) + 0.5 * s),
  y: Int32Array.from({ length: N }, (_, i) => (i + s) % 3),
}));

/** One batch twice over: [x; x]. */
function doubled(b: { x: Float32Array; y: Int32Array }): { x: { data: Float32Array; shape: number[] }; y: { data: Int32Array; shape: number[] } } {
  const x = new Float32Array(2 * b.x.length);
  x.set(b.x);
  x.set(b.x, b.x.length);
  const y = new Int32Array(2 * N);
  y.set(b.y);
  y.set(b.y, N);
  return { x: { data: x, shape: [2 * N, 5] }, y: { data: y, shape: [2 * N] } };
}

async function oneDevice(record: ModuleRecord, o: NormOptions): Promise<ModuleRecord> {
  const model = new WithNorm(host, host.defaultDevice()).fromRecord(record);
  const opt = normOptimizer<typeof host>(o);
  for (const b of batches) {
    tidy(() => {
      const loss = crossEntropy(model.forward(fromData(host, b.x, { shape: [N, 5] })), fromData(host, b.y));
      opt.step(model, ParamGrads.from(loss.backward(), model));
    });
  }
  const r = await model.toRecord();
  model.dispose();
  return r;
}

async function check(devices: string, strategy: Strategy, options: NormOptions, extra: { gpuHost?: 'process' | 'thread' | 'main' } = {}, atol = 2e-6, rtol = 1e-5): Promise<void> {
  host.seed(2);
  const model = new WithNorm(host, host.defaultDevice());
  const record = await model.toRecord();
  model.dispose();
  const want = await oneDevice(record, options);
  const dp = await DataParallel.create({ task: TASK, module: record, devices, strategy, options, split: 'even', onNotice: () => undefined, ...extra });
  try {
    for (const b of batches) await dp.step(doubled(b));
    const got = await dp.record();
    for (const [name, w] of Object.entries(want.params)) {
      const g = got.params[name]!.data;
      w.data.forEach((v, i) => expect(Math.abs(g[i]! - v), `${name}[${i}]: ${g[i]} vs one device ${v}`).toBeLessThanOrEqual(atol + rtol * Math.abs(v)));
    }
    expect(Array.from(got.params['bn.numBatchesTracked']!.data)).toEqual([batches.length]);
    // The statistics moved (the comparison would hold trivially otherwise); the frozen weight did not.
    expect(want.params['bn.runningMean']!.data.some((v) => Math.abs(v) > 1e-3)).toBe(true);
    expect(Array.from(got.params['scale']!.data)).toEqual([1.5, 0.5, 1, 2, 0.75, 1.25]);
  } finally {
    await dp.close();
  }
}

describe('DataParallel with buffers', () => {
  test.each([
    ['cpu:worker*2', 'main', { optimizer: 'sgd', weightDecay: 0.1 }],
    ['cpu:worker*2', 'sharded', { optimizer: 'adamw', weightDecay: 0.5 }],
    ['cpu,cpu:worker', 'sharded', { optimizer: 'sgd', weightDecay: 0.1 }],
    ['cpu,cpu:worker', 'main', { optimizer: 'adamw', weightDecay: 0.5 }],
  ] as ReadonlyArray<readonly [string, Strategy, NormOptions]>)('%s, %s, %o: the running statistics and weights of one device', async (devices, strategy, options) => {
    await check(devices, strategy, options);
  });
});

describeGpu('DataParallel with buffers and a GPU replica', () => {
  test('a GPU replica in its own process publishes its buffers in its message', async () => {
    await check('wgpu:0,cpu:worker', 'main', { optimizer: 'sgd', weightDecay: 0.1 }, { gpuHost: 'process' }, 1e-5, 1e-4);
  }, 120_000);
});
