/**
 * A model with tied parameters (one layer used twice: two names, one ParamId): every replica
 * steps the tied weight once with its summed gradient, as one device does, and the record that
 * comes back lists it under both names.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { tidy } from '../../src/memory/tidy.js';
import { crossEntropy } from '../../src/nn/loss.js';
import type { ModuleRecord } from '../../src/nn/record.js';
import { Adam } from '../../src/optim/adam.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { DataParallel } from '../../src/parallel/data-parallel.js';
import { fromData } from '../../src/tensor/creation.js';
import { Tied } from './fixtures/tied-task.js';

const TASK = new URL('./fixtures/tied-task.ts', import.meta.url);
const host = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => host.close());

const N = 10;
const batches = Array.from({ length: 3 }, (_, s) => ({
  x: Float32Array.from({ length: N * 6 }, (_, i) => Math.sin(1.7 * i + s)),
  y: Int32Array.from({ length: N }, (_, i) => (i * 7 + s) % 3),
}));

async function oneDevice(record: ModuleRecord, clipNorm: number | undefined): Promise<ModuleRecord> {
  const model = new Tied(host, host.defaultDevice()).fromRecord(record);
  const opt = new Adam<typeof host>({ lr: 0.05, ...(clipNorm !== undefined ? { clipNorm } : {}) });
  for (const b of batches) {
    tidy(() => {
      const loss = crossEntropy(model.forward(fromData(host, b.x, { shape: [N, 6] })), fromData(host, b.y));
      opt.step(model, ParamGrads.from(loss.backward(), model));
    });
  }
  const r = await model.toRecord();
  model.dispose();
  return r;
}

describe('DataParallel with tied parameters', () => {
  test.each([
    ['cpu', 'main', undefined],
    ['cpu:worker*2', 'main', undefined],
    ['cpu:worker*2', 'sharded', undefined],
    ['cpu,cpu:worker', 'sharded', undefined],
    ['cpu:worker*2', 'main', 0.05],
    ['cpu,cpu:worker', 'sharded', 0.05],
  ] as const)('%s, %s, clipNorm %s: the weights of one device, under every name', async (devices, strategy, clipNorm) => {
    host.seed(5);
    const model = new Tied(host, host.defaultDevice());
    const record = await model.toRecord();
    model.dispose();
    expect(Object.keys(record.params)).toEqual(['first.weight', 'first.bias', 'again.weight', 'again.bias', 'head.weight', 'head.bias']);
    const want = await oneDevice(record, clipNorm);
    const dp = await DataParallel.create({ task: TASK, module: record, devices, strategy, options: clipNorm !== undefined ? { clipNorm } : {}, split: 'even', onNotice: () => undefined });
    try {
      for (const b of batches) await dp.step({ x: { data: b.x, shape: [N, 6] }, y: { data: b.y, shape: [N] } });
      const got = await dp.record();
      expect(Object.keys(got.params).sort()).toEqual(Object.keys(record.params).sort());
      for (const [name, w] of Object.entries(want.params)) {
        const g = got.params[name]!;
        expect(g.id, name).toBe(w.id);
        g.data.forEach((v, i) => expect(Math.abs(v - w.data[i]!), `${name}[${i}]`).toBeLessThanOrEqual(2e-6 + 1e-5 * Math.abs(w.data[i]!)));
      }
      // The tied weight moved (the test would pass trivially otherwise).
      expect(want.params['first.weight']!.data.some((v, i) => v !== record.params['first.weight']!.data[i])).toBe(true);
      const state = await dp.optimizerState();
      expect(Object.keys(state.params)).toHaveLength(4);
    } finally {
      await dp.close();
    }
  });

  test('a record whose names share a ParamId with different shapes is an ArgumentError naming both', async () => {
    host.seed(5);
    const model = new Tied(host, host.defaultDevice());
    const record = await model.toRecord();
    model.dispose();
    const bad = { params: { ...record.params, 'again.bias': { ...record.params['head.bias']!, id: record.params['first.bias']!.id } } };
    await expect(DataParallel.create({ task: TASK, module: bad, devices: 'cpu' })).rejects.toThrow(/DataParallel: parameters 'first.bias' and 'again.bias' share ParamId .* but have shapes \[6\] and \[3\]/);
  });
});
