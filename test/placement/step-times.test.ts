/**
 * Ops of a step that repeats a placement (every op on one device, a replayed plan) are predicted
 * from the times the same ops took in its earlier steps (for a device alone: its calibration steps
 * after the warm-up, then the sampled steps), not from footprint histories that mix every
 * placement the ops ran in. Times are synthetic events.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import type { OpRecord } from '../../src/ir/ops.js';
import { StepTimes } from '../../src/placement/step-times.js';
import { footprint } from '../../src/placement/footprint.js';
import { Router } from '../../src/router/router.js';
import { scheduler } from '../../src/runtime/default.js';
import { clock } from '../../src/scheduler/clock.js';
import { fromData } from '../../src/tensor/creation.js';
import { SyntheticEvents } from './synthetic.js';

describe('StepTimes', () => {
  test('the median of the latest 8 times of the op at a position of a placement; another op there starts afresh', () => {
    const t = new StepTimes();
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
    // At most 8 placements: the oldest is forgotten.
    for (let i = 0; i < 8; i++) t.add(`plan:${i}`, 0, 'exp', i);
    expect(t.predict('cpu', 0, 'log')).toBeUndefined();
    expect(t.predict('plan:0', 0, 'exp')).toBe(0);
    expect(t.predict('plan:7', 0, 'exp')).toBe(7);
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
  /** Runs the step; each placed op's synthetic event takes `ms(op, device)`; the step takes `wall` ms. */
  const step = async (ms: (op: string, device: string) => number, wall: number): Promise<void> => {
    const records: OpRecord[] = [];
    const sub = scheduler.events$.subscribe((e) => records.push(e.record));
    await x.exp().sum().item();
    sub.unsubscribe();
    for (const rec of records) if (rec.inputs.length > 0 && rec.op !== 'transfer') syn.subject.next(syn.event(rec, ms(rec.op, rec.device)));
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

  test('trace: a mixed plan that holds; its steps are predicted from its own earlier steps', async () => {
    const { r, step } = setup('trace');
    // exp is fast on cpu:1, sum on cpu: HEFT splits the step. In the plan's steps exp takes 1.5
    // (beside the transfers), against 1 in cpu:1's calibration steps.
    const alone = (op: string, device: string) => (op === 'exp' ? (device === 'cpu' ? 10 : 1) : device === 'cpu' ? 0.1 : 10);
    const inPlan = (op: string, device: string) => (op === 'exp' && device === 'cpu:1' ? 1.5 : alone(op, device));
    await step(alone, 20); // step 0: recorded
    for (const wall of [10, 10, 11, 11]) await step(alone, wall); // steps 1-4: each device alone
    expect(r.explain().notes.at(-1)).toMatch(/planned with HEFT \(plan 1\): 1 on (cpu:1, 1 on cpu|cpu, 1 on cpu:1)/);
    await step(inPlan, 2); // steps 5-6: the plan, measured
    await step(inPlan, 2);
    const history = r.placement!.profiler.model.predict(footprint('exp', [{ shape: [8, 8], dtype: 'float32' }], {}), 'cpu:1').ms;
    expect(Math.abs(history - 1.5)).toBeGreaterThan(0.1);
    await step(inPlan, 2); // step 7
    const rows = new Map(r.explain().rows.map((row) => [`${row.op}@${row.device}`, row]));
    expect(rows.get('exp@cpu:1')!.reason).toBe('plan');
    expect(rows.get('exp@cpu:1')!.predictedMs).toBeCloseTo(1.5, 9);
    expect(rows.get('sum@cpu')!.predictedMs).toBeCloseTo(0.1, 9);
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
    expect(r.explain().notes.at(-1)).toMatch(/step 6: online placement's step took 4.000 ms, cpu alone 3.000 ms, cpu:1 alone 5.000 ms: every op runs on cpu/);
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
