/** A parameter backward never reaches: its buckets are joined as zeros, handed over inside the step, and its weights stay put. */
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DataParallel } from '../../src/parallel/data-parallel.js';
import { overlapOf } from '../../src/parallel/timeline.js';
import { WithUnused } from './fixtures/unused-param-task.js';

const TASK = new URL('./fixtures/unused-param-task.ts', import.meta.url);
const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

describe('DataParallel with an unused parameter', () => {
  test('its buckets are handed over within the step and its weights do not move', async () => {
    cpu.seed(3);
    const model = new WithUnused(cpu, cpu.defaultDevice());
    const record = await model.toRecord();
    model.dispose();
    // Buckets of at most 300 bytes: the unused 16 x 16 layer fills buckets of its own.
    const dp = await DataParallel.create({ task: TASK, module: record, devices: 'cpu:worker*2', split: 'even', bucketBytes: 300, firstBucketBytes: 300, onNotice: () => undefined });
    try {
      const n = 16;
      const x = Float32Array.from({ length: n * 8 }, (_, i) => Math.sin(i));
      const y = Int32Array.from({ length: n }, (_, i) => i % 4);
      for (let s = 0; s < 3; s++) {
        const r = await dp.step({ x: { data: x, shape: [n, 8] }, y: { data: y, shape: [n] } });
        const t = r.timeline;
        for (const rep of t.replicas) {
          for (const b of rep.buckets) {
            if (!b.send) continue;
            expect(b.send.startAt, `step ${r.step}, replica ${rep.index}, bucket ${b.bucket}`).toBeGreaterThanOrEqual(t.startAt);
            expect(b.send.endAt).toBeLessThanOrEqual(t.endAt);
          }
        }
        expect(overlapOf(t).commMs).toBeLessThanOrEqual(r.wallMs * t.replicas.length);
      }
      const after = await dp.record();
      for (const name of Object.keys(record.params).filter((k) => k.startsWith('unused'))) {
        expect(Array.from(after.params[name]!.data), name).toEqual(Array.from(record.params[name]!.data));
      }
      const used = Object.keys(record.params).filter((k) => k.startsWith('used'));
      expect(used.length).toBeGreaterThan(0);
      expect(used.some((k) => after.params[k]!.data.some((v, i) => v !== record.params[k]!.data[i]))).toBe(true);
    } finally {
      await dp.close();
    }
  });
});
