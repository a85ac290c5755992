/**
 * Once the step selector settles on one device, placement's steps are untimed but for one in
 * `sampleEvery`: no op is profiled, predicted or logged, and the scheduler reads no clock per op.
 * The work is counted here (clock reads, samples fed, predictions, decisions), never timed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import type { PlacementOptions } from '../../src/placement/placement.js';
import { Router } from '../../src/router/router.js';
import { scheduler } from '../../src/runtime/default.js';
import { clock } from '../../src/scheduler/clock.js';
import type { OpRecord } from '../../src/ir/ops.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { SyntheticEvents, type Meta } from './synthetic.js';

const CPU1 = CpuDevice.named('cpu:1');
const D0 = MultiDevice.B1(CpuDevice.Cpu);
const f32 = (...shape: number[]): Meta => ({ shape, dtype: 'float32' });

/** A virtual clock that counts its reads: the test moves it between steps. */
const virtual = { now: 0, reads: 0 };
beforeAll(() => {
  clock.delegate = {
    now: () => {
      virtual.reads++;
      return virtual.now;
    },
  };
});
afterAll(() => {
  clock.delegate = undefined;
});

const routers: Array<Router<[Cpu, Cpu]>> = [];
afterEach(async () => {
  for (const r of routers.splice(0)) await r.close();
});

function router(mode: 'auto' | 'trace', options: PlacementOptions): Router<[Cpu, Cpu]> {
  const r = new Router([new Cpu({ threads: 0 }), new Cpu({ threads: 0, device: CPU1 })], {
    placement: mode,
    placer: { persist: false, calibrate: false, explore: 0, minSamples: 1, traceCalibrationRuns: 1, ...options },
  });
  routers.push(r);
  return r;
}

/** Devices of the placed ops a step ran (records seen through the scheduler's events). */
/** One step: `links` x (exp, mul) and a sum, read; the virtual clock moves `ms`; the step is marked. The sum's device. */
async function chainStep(r: Router<[Cpu, Cpu]>, x: Tensor<Router<[Cpu, Cpu]>, 'float'>, links: number, ms: number): Promise<string> {
  let y = x;
  for (let i = 0; i < links; i++) y = y.exp().mul(0.5);
  const out = y.sum();
  await out.item();
  virtual.now += ms;
  r.markStep();
  return out.device.key;
}

function recorded(): { stop(): string[] } {
  const records: OpRecord[] = [];
  const sub = scheduler.events$.subscribe((e) => records.push(e.record));
  return {
    stop: () => {
      sub.unsubscribe();
      return [...new Set(records.filter((r) => r.inputs.length > 0 && r.op !== 'transfer').map((r) => r.device))];
    },
  };
}

describe("placement: untimed steps once 'auto' settles on one device", () => {
  test('an untimed step reads the clock twice whatever its length, feeds no sample, predicts and decides nothing; one in sampleEvery is timed; re-checks are timed and still switch', async () => {
    const r = router('auto', { recheckEvery: 10, sampleEvery: 4 });
    const p = r.placement!;
    const x = fromData(r, new Float32Array(64).fill(0.01), { shape: [8, 8], device: D0 });
    const OPS = 41; // 20 x (exp, mul) and a sum
    const predict = vi.spyOn(p.profiler.model, 'predict');
    const step = async (ms: number): Promise<{ device: string; reads: number; samples: number; placed: number; predicted: number; watching: boolean }> => {
      const before = { reads: virtual.reads, samples: p.profiler.samples, placed: p.dmda.counts.placed, predicted: predict.mock.calls.length };
      const watching = p.profiler.watching;
      const device = await chainStep(r, x, 20, ms);
      return { device, reads: virtual.reads - before.reads, samples: p.profiler.samples - before.samples, placed: p.dmda.counts.placed - before.placed, predicted: predict.mock.calls.length - before.predicted, watching };
    };
    // Online (learning), cpu alone, cpu:1 alone, online twice: cpu alone (3 ms) wins.
    for (const ms of [20, 3, 5, 4, 4]) await step(ms);
    expect(r.explain().notes.at(-1)).toMatch(/step 4: online placement's step took 4.000 ms, cpu alone 3.000 ms, cpu:1 alone 5.000 ms: every op runs on cpu/);
    // Step 5, the first on cpu, is timed: every op profiled.
    const first = await step(3);
    expect(first.watching).toBe(true);
    expect(first.placed).toBe(OPS);
    expect(first.reads).toBeGreaterThan(OPS);
    // Steps 6-8 are untimed: the same work as the device alone, plus two clock reads per step.
    for (let i = 0; i < 3; i++) expect(await step(3)).toEqual({ device: 'cpu', reads: 2, samples: 0, placed: 0, predicted: 0, watching: false });
    expect(p.untimed).toEqual({ steps: 3, ops: 3 * OPS });
    // explain() after an untimed step shows the latest sampled step's rows, and says so.
    const x8 = r.explain();
    expect(x8.notes[0]).toMatch(/^step 8 ran every op on cpu untimed \(3.000 ms between markStep calls; while one device is the choice, one step in 4 is timed op by op\); the rows come from step 5, the latest sampled step/);
    expect(x8.step).toBe(5);
    expect(x8.ops).toBe(OPS);
    expect(x8.rows.every((row) => row.device === 'cpu' && row.reason === 'alone' && row.measuredMs !== undefined)).toBe(true);
    expect(await p.settled(100)).toBe(true);
    expect(p.explain({ step: 'current' }).notes.some((n) => /untimed/.test(n))).toBe(false); // step 9 is sampled
    // Step 9: one in four is timed again.
    expect((await step(3)).placed).toBe(OPS);
    for (let i = 0; i < 3; i++) expect((await step(3)).samples).toBe(0); // steps 10-12
    expect(p.explain({ step: 'current' }).notes.some((n) => /untimed/.test(n))).toBe(false); // step 13 is sampled
    expect(p.explain().notes[0]).toMatch(/^step 12 ran every op on cpu untimed.*the rows come from step 9/);
    expect((await step(3)).placed).toBe(OPS); // step 13
    expect(p.explain({ step: 'current' }).notes[0]).toMatch(/^step 14 runs every op on cpu untimed/);
    expect((await step(3)).samples).toBe(0); // step 14
    // Step 14 ended the 10 steps before the re-check: online placement (the runner-up) runs 2 steps, timed.
    expect(r.explain().notes.at(-1)).toMatch(/step 14: trying online placement again/);
    const trial = [await step(1), await step(1)];
    for (const t of trial) {
      expect(t.watching).toBe(true);
      expect(t.placed).toBe(OPS);
    }
    // 1 ms beats cpu's 3 ms: online placement takes over, and every step is timed again.
    expect(r.explain().notes.at(-1)).toMatch(/online placement's step took 1.000 ms, cpu alone's 3.000 ms: placing online/);
    for (let i = 0; i < 3; i++) expect((await step(1)).placed).toBe(OPS);
    expect(p.untimed.steps).toBe(7);
  });

  test("a re-check of another device alone runs untimed (only its wall time is compared) and still switches; so does auto's last calibration run", async () => {
    const r = router('auto', { recheckEvery: 4, sampleEvery: 50, traceCalibrationRuns: 3 });
    const p = r.placement!;
    const x = fromData(r, new Float32Array(64).fill(0.01), { shape: [8, 8], device: D0 });
    const step = async (ms: number): Promise<{ device: string; placed: number; samples: number }> => {
      const before = { placed: p.dmda.counts.placed, samples: p.profiler.samples };
      const device = await chainStep(r, x, 5, ms);
      return { device, placed: p.dmda.counts.placed - before.placed, samples: p.profiler.samples - before.samples };
    };
    // Step 0 online; steps 1-3 cpu alone, 4-6 cpu:1 alone (3 runs each: a warm-up, a timed run,
    // and a last run untimed); steps 7-8 online.
    await step(20);
    const calib: Array<{ device: string; placed: number }> = [];
    for (const ms of [9, 4, 3, 9, 6, 5]) calib.push(await step(ms));
    expect(calib.map((c) => c.device)).toEqual(['cpu', 'cpu', 'cpu', 'cpu:1', 'cpu:1', 'cpu:1']);
    expect(calib.map((c) => c.placed > 0)).toEqual([true, true, false, true, true, false]);
    for (const ms of [8, 8]) await step(ms);
    // The least of each device's counted runs (the timed one and the untimed last one).
    expect(r.explain().notes.at(-1)).toMatch(/step 8: online placement's step took 8.000 ms, cpu alone 3.000 ms, cpu:1 alone 5.000 ms: every op runs on cpu/);
    // Settled on cpu: steps 9-12; step 12 ends the interval, and the runner-up (cpu:1 alone) is tried.
    for (let i = 0; i < 4; i++) expect((await step(3)).device).toBe('cpu');
    expect(r.explain().notes.at(-1)).toMatch(/trying cpu:1 alone again/);
    const trial = [await step(1), await step(1)];
    // The challenger's steps run every op on cpu:1, untimed: nothing placed by the model, no sample fed.
    expect(trial).toEqual([
      { device: 'cpu:1', placed: 0, samples: 0 },
      { device: 'cpu:1', placed: 0, samples: 0 },
    ]);
    // 1 ms beats cpu's 3 ms: cpu:1 alone takes over.
    expect(r.explain().notes.at(-1)).toMatch(/cpu:1 alone's step took 1.000 ms, cpu alone's 3.000 ms: every op runs on cpu:1/);
    expect((await step(1)).device).toBe('cpu:1');
  });

  test("a router watches the runtime's events from its first placed op, not before", async () => {
    const r = router('auto', {});
    const x = fromData(r, new Float32Array(4).fill(1), { shape: [2, 2], device: D0 });
    expect(r.placement!.profiler.enabled).toBe(true);
    expect(r.placement!.profiler.watching).toBe(false);
    await x.exp().toData();
    expect(r.placement!.profiler.watching).toBe(true);
  });

  test('sampleEvery: 0 times every step, as before', async () => {
    const r = router('auto', { recheckEvery: 0, sampleEvery: 0 });
    const x = fromData(r, new Float32Array(64).fill(0.01), { shape: [8, 8], device: D0 });
    for (const ms of [20, 3, 5, 4, 4, 3, 3, 3]) {
      await x.exp().sum().item();
      virtual.now += ms;
      r.markStep();
    }
    expect(r.explain().notes.at(-1)).toMatch(/every op runs on cpu/);
    expect(r.placement!.untimed).toEqual({ steps: 0, ops: 0 });
    expect(r.placement!.profiler.watching).toBe(true);
  });
});

describe("placement: untimed steps once 'trace' settles on one device", () => {
  function traced(options: PlacementOptions): { r: Router<[Cpu, Cpu]>; syn: SyntheticEvents } {
    const syn = new SyntheticEvents();
    const r = router('trace', { events: syn.subject, ...options });
    const m = f32(16, 16);
    // The model puts the whole step on cpu; measured, cpu:1 alone is faster.
    for (const [op, inputs, attrs, ms] of [['matmul', [m, m], {}, [1, 2]], ['exp', [m], {}, [0.1, 0.2]], ['sum', [m], { dim: null, keepDims: false }, [0.1, 0.2]]] as const) {
      syn.op(op, [...inputs], attrs, 'cpu', ms[0], 4);
      syn.op(op, [...inputs], attrs, 'cpu:1', ms[1], 4);
    }
    for (const [f, t] of [['cpu', 'cpu:1'], ['cpu:1', 'cpu']] as const) for (const n of [256, 1 << 18]) syn.transfer(f, t, n, 0.01 + (4 * n) / 1e6, 3);
    return { r, syn };
  }

  test('untimed replayed steps build no step graph and predict nothing; a step that differs is recorded again', async () => {
    const { r } = traced({ recheckEvery: 0, sampleEvery: 4 });
    const p = r.placement!;
    const predict = vi.spyOn(p.profiler.model, 'predict');
    const x = fromData(r, new Float32Array(256).fill(0.01), { shape: [16, 16], device: D0 });
    r.markStep();
    const step = async (ms: number, extra = false): Promise<{ devices: string[]; placed: number; predicted: number; watching: boolean }> => {
      const before = { placed: p.dmda.counts.placed, predicted: predict.mock.calls.length };
      const watching = p.profiler.watching;
      const rec = recorded();
      let y = x.matmul(x).exp();
      if (extra) y = y.exp();
      await y.sum().item();
      const devices = rec.stop();
      virtual.now += ms;
      r.markStep();
      return { devices, placed: p.dmda.counts.placed - before.placed, predicted: predict.mock.calls.length - before.predicted, watching };
    };
    for (const ms of [20, 6, 2]) await step(ms); // recorded; cpu alone 6 ms; cpu:1 alone 2 ms
    expect(r.explain().notes.at(-1)).toMatch(/every op runs on cpu:1 \(plan 2\)/);
    expect((await step(2)).placed).toBe(3); // the first step on cpu:1 is timed (its input moves there, and is kept)
    // Untimed: the profiler stops watching once the timed ops' events are in, or a step later (these synthetic ones never come).
    expect(await step(2)).toEqual({ devices: ['cpu:1'], placed: 0, predicted: 0, watching: true });
    for (let i = 0; i < 2; i++) expect(await step(2)).toEqual({ devices: ['cpu:1'], placed: 0, predicted: 0, watching: false });
    expect(p.untimed).toEqual({ steps: 3, ops: 9 });
    expect((await step(2)).placed).toBe(3); // one in four timed
    expect(r.explain().rows.map((row) => `${row.op}@${row.device}:${row.reason}`)).toEqual(['matmul@cpu:1:alone', 'exp@cpu:1:alone', 'sum@cpu:1:alone']);
    // An untimed step whose ops differ from the recording (one more exp): recorded again next.
    const odd = await step(2, true);
    expect(odd.devices).toEqual(['cpu:1']);
    expect(odd.placed).toBe(0);
    expect(r.explain().notes.at(-1)).toMatch(/step \d+: the step's ops differ from the recorded ones; recording again/);
    const again = await step(2, true);
    expect(again.placed).toBe(4);
    expect(again.watching).toBe(true);
  });
});
