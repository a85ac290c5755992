/**
 * Ops of a step that runs every op on one device are predicted from the times the same ops took
 * in earlier such steps (their calibration steps after the warm-up, then the sampled steps), not
 * from footprint histories that mix every placement the ops ran in. Times are synthetic events.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import type { OpRecord } from '../../src/ir/ops.js';
import { AloneTimes } from '../../src/placement/alone-times.js';
import { footprint } from '../../src/placement/footprint.js';
import { Router } from '../../src/router/router.js';
import { scheduler } from '../../src/runtime/default.js';
import { clock } from '../../src/scheduler/clock.js';
import { fromData } from '../../src/tensor/creation.js';
import { SyntheticEvents } from './synthetic.js';

describe('AloneTimes', () => {
  test('the median of the latest 8 times of the op at a position; another op there starts afresh', () => {
    const t = new AloneTimes();
    expect(t.predict('cpu', 0, 'exp')).toBeUndefined();
    for (const ms of [9, 1, 2, 3]) t.add('cpu', 0, 'exp', ms);
    expect(t.predict('cpu', 0, 'exp')).toBe(2.5);
    expect(t.predict('cpu:1', 0, 'exp')).toBeUndefined();
    expect(t.predict('cpu', 0, 'log')).toBeUndefined();
    // Ten more: only the latest 8 (all 4) count.
    for (let i = 0; i < 10; i++) t.add('cpu', 0, 'exp', 4);
    expect(t.predict('cpu', 0, 'exp')).toBe(4);
    t.add('cpu', 0, 'log', 7);
    expect(t.predict('cpu', 0, 'exp')).toBeUndefined();
    expect(t.predict('cpu', 0, 'log')).toBe(7);
    t.add('cpu', 1, 'sum', Number.NaN);
    expect(t.predict('cpu', 1, 'sum')).toBeUndefined();
  });
});

const CPU1 = CpuDevice.named('cpu:1');
const D0 = MultiDevice.B1(CpuDevice.Cpu);

let now = 0;
beforeAll(() => {
  clock.delegate = { now: () => now };
});
afterAll(() => {
  clock.delegate = undefined;
});
const routers: Array<Router<[Cpu, Cpu]>> = [];
afterEach(async () => {
  for (const r of routers.splice(0)) await r.close();
});

/** A router over two CPU devices whose profiler hears only synthetic events, and a step that runs x.exp().sum(). */
function setup(mode: 'auto' | 'trace') {
  const syn = new SyntheticEvents();
  const r = new Router([new Cpu({ threads: 0 }), new Cpu({ threads: 0, device: CPU1 })], {
    placement: mode,
    placer: { events: syn.subject, persist: false, calibrate: false, explore: 0, minSamples: 1, traceCalibrationRuns: 2, sampleEvery: 0, recheckEvery: 0 },
  });
  routers.push(r);
  const x = fromData(r, new Float32Array(64).fill(0.01), { shape: [8, 8], device: D0 });
  /** Runs the step; each placed op's synthetic event takes `ms(op)`; the step takes `wall` ms. */
  const step = async (ms: (op: string) => number, wall: number): Promise<void> => {
    const records: OpRecord[] = [];
    const sub = scheduler.events$.subscribe((e) => records.push(e.record));
    await x.exp().sum().item();
    sub.unsubscribe();
    for (const rec of records) if (rec.inputs.length > 0 && rec.op !== 'transfer') syn.subject.next(syn.event(rec, ms(rec.op)));
    now += wall;
    r.markStep();
  };
  return { r, step };
}

describe("placement: a step on one device alone is predicted from that placement's own times", () => {
  test('trace: the plan falls back to cpu alone; its first step is predicted from the calibration step after the warm-up', async () => {
    const { r, step } = setup('trace');
    await step((op) => (op === 'exp' ? 5 : 0.5), 20); // step 0: recorded
    await step((op) => (op === 'exp' ? 9 : 0.9), 3); // step 1: cpu alone, warm-up
    await step((op) => (op === 'exp' ? 1 : 0.1), 3); // step 2: cpu alone
    await step((op) => (op === 'exp' ? 2 : 0.2), 5); // steps 3-4: cpu:1 alone
    await step((op) => (op === 'exp' ? 2 : 0.2), 5);
    expect(r.explain().notes.at(-1)).toMatch(/every op runs on cpu/);
    await step((op) => (op === 'exp' ? 1 : 0.1), 3); // step 5
    const rows = new Map(r.explain().rows.map((row) => [row.op, row]));
    expect(rows.get('exp')!.reason).toBe('alone');
    expect(rows.get('exp')!.predictedMs).toBeCloseTo(1, 9);
    expect(rows.get('sum')!.predictedMs).toBeCloseTo(0.1, 9);
    expect(r.explain().medianErrorPct).toBeCloseTo(0, 6);
  });

  test("auto: settled on cpu, exp is predicted at the 1 ms it took in cpu's calibration step, not the history's mix with the online steps' 5 ms", async () => {
    const { r, step } = setup('auto');
    const online = (op: string) => (op === 'exp' ? 5 : 0.5);
    await step(online, 20); // step 0: online (learning)
    await step((op) => (op === 'exp' ? 9 : 0.9), 3); // step 1: cpu alone, warm-up
    await step((op) => (op === 'exp' ? 1 : 0.1), 3); // step 2: cpu alone
    await step((op) => (op === 'exp' ? 2 : 0.2), 5); // steps 3-4: cpu:1 alone
    await step((op) => (op === 'exp' ? 2 : 0.2), 5);
    await step(online, 4); // steps 5-6: online
    await step(online, 4);
    expect(r.explain().notes.at(-1)).toMatch(/step 6: online placement's step took 4.000 ms, cpu alone 3.000 ms: every op runs on cpu/);
    // The footprint's history on cpu mixes every run there (the online steps' 5 ms among them).
    const history = r.placement!.profiler.model.predict(footprint('exp', [{ shape: [8, 8], dtype: 'float32' }], {}), 'cpu').ms;
    expect(history).toBeGreaterThan(1.5);
    await step((op) => (op === 'exp' ? 1.25 : 0.125), 3); // step 7: settled on cpu
    const x7 = r.explain();
    expect(x7.step).toBe(7);
    const rows = new Map(x7.rows.map((row) => [row.op, row]));
    expect(rows.get('exp')!.reason).toBe('alone');
    expect(rows.get('exp')!.predictedMs).toBeCloseTo(1, 9);
    expect(rows.get('sum')!.predictedMs).toBeCloseTo(0.1, 9);
    expect(x7.medianErrorPct).toBeCloseTo(20, 6); // |1 - 1.25| / 1.25 and |0.1 - 0.125| / 0.125
    // Step 8: the median of steps 2 and 7.
    await step((op) => (op === 'exp' ? 1.25 : 0.125), 3);
    expect(new Map(r.explain().rows.map((row) => [row.op, row])).get('exp')!.predictedMs).toBeCloseTo(1.125, 9);
  });
});
