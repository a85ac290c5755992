/**
 * Placement through a Router<[Cpu, Cpu]>: the cost model is fed only synthetic events (no
 * timing is measured), so every choice below follows from the numbers written here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { ArgumentError, DeviceError } from '../../src/errors.js';
import type { OpRecord } from '../../src/ir/ops.js';
import type { PlacementOptions } from '../../src/placement/placement.js';
import { Router } from '../../src/router/router.js';
import { scheduler } from '../../src/runtime/default.js';
import { clock } from '../../src/scheduler/clock.js';
import type { OpEvent } from '../../src/scheduler/events.js';
import { fromData } from '../../src/tensor/creation.js';
import { SyntheticEvents, type Meta } from './synthetic.js';

const CPU1 = CpuDevice.named('cpu:1');
const D0 = MultiDevice.B1(CpuDevice.Cpu);
const D1 = MultiDevice.B2(CPU1);
const f32 = (...shape: number[]): Meta => ({ shape, dtype: 'float32' });

// A virtual clock: the placer's "now" never moves, so lanes and arrivals are the model's alone.
beforeAll(() => {
  clock.delegate = { now: () => 0 };
});
afterAll(() => {
  clock.delegate = undefined;
});

const routers: Array<Router<[Cpu, Cpu]>> = [];
afterEach(async () => {
  for (const r of routers.splice(0)) await r.close();
});

function placed(mode: 'auto' | 'trace', options: PlacementOptions = {}): { router: Router<[Cpu, Cpu]>; syn: SyntheticEvents } {
  const syn = new SyntheticEvents();
  const router = new Router([new Cpu({ threads: 0 }), new Cpu({ threads: 0, device: CPU1 })], {
    placement: mode,
    placer: { events: syn.subject, persist: false, calibrate: false, explore: 0, minSamples: 3, ...options },
  });
  routers.push(router);
  return { router, syn };
}

/** Op `op` over `inputs` costs `ms[0]` on cpu and `ms[1]` on cpu:1 (4 synthetic runs each: 1 warm-up, 3 kept). */
function cost(syn: SyntheticEvents, op: Parameters<SyntheticEvents['op']>[0], inputs: Meta[], attrs: Parameters<SyntheticEvents['op']>[2], ms: [number, number]): void {
  syn.op(op, inputs, attrs, 'cpu', ms[0], 4);
  syn.op(op, inputs, attrs, 'cpu:1', ms[1], 4);
}

/** Transfers both ways: 0.01 ms + 1 ms per MB. */
function link(syn: SyntheticEvents): void {
  for (const [f, t] of [['cpu', 'cpu:1'], ['cpu:1', 'cpu']] as const) for (const n of [256, 1 << 18]) syn.transfer(f, t, n, 0.01 + (4 * n) / 1e6, 3);
}

function record(): { records: OpRecord[]; events: OpEvent[]; stop(): void } {
  const events: OpEvent[] = [];
  const sub = scheduler.events$.subscribe((e) => events.push(e));
  return {
    events,
    get records() {
      return events.map((e) => e.record).sort((a, b) => a.id - b.id);
    },
    stop: () => sub.unsubscribe(),
  };
}

type StepCosts = readonly [matmul: [number, number], exp: [number, number], sum: [number, number]];
/** The model of the trace tests: the matmul fast on cpu:1, exp and sum fast on cpu. */
const MATMUL_ON_CPU1: StepCosts = [[10, 1], [0.1, 5], [0.1, 5]];

/**
 * A traced router whose step is x.matmul(x).exp().sum() over the model `costs`, on a virtual
 * scheduler clock the test moves: `step(ms)` runs the step, returns its records (ops with
 * inputs), advances the clock by `ms` and marks the step.
 */
async function onVirtualClock(
  options: PlacementOptions,
  costs: StepCosts,
  body: (t: { router: Router<[Cpu, Cpu]>; x: ReturnType<typeof fromData<Router<[Cpu, Cpu]>, Float32Array>>; step: (ms: number) => Promise<OpRecord[]> }) => Promise<void>,
): Promise<void> {
  const { router, syn } = placed('trace', options);
  const m = f32(16, 16);
  cost(syn, 'matmul', [m, m], {}, costs[0]);
  cost(syn, 'exp', [m], {}, costs[1]);
  cost(syn, 'sum', [m], { dim: null, keepDims: false }, costs[2]);
  link(syn);
  // Step times come from the scheduler's clock: here a virtual one the test moves.
  let now = 0;
  clock.delegate = { now: () => now };
  try {
    const x = fromData(router, new Float32Array(256).fill(0.01), { shape: [16, 16], device: D0 });
    router.markStep();
    const step = async (ms: number): Promise<OpRecord[]> => {
      const rec = record();
      await x.matmul(x).exp().sum().item();
      rec.stop();
      now += ms;
      router.markStep();
      return rec.records.filter((r) => r.inputs.length > 0);
    };
    await body({ router, x, step });
  } finally {
    clock.delegate = { now: () => 0 };
  }
}

const onDevices = (records: readonly OpRecord[]): string[] => records.filter((r) => r.op !== 'transfer').map((r) => `${r.op}@${r.device}`);

/** Every op's inputs live on its device; a tensor changes device only through a transfer record. */
function checkNothingMovesSilently(records: readonly OpRecord[], known: ReadonlyMap<number, string>): void {
  const where = new Map(known);
  for (const r of records) {
    for (const m of r.inputs) {
      const d = where.get(m.id);
      if (d === undefined) continue; // made before recording started
      expect(d, `input #${m.id} of ${r.op} #${r.id}`).toBe(r.op === 'transfer' ? r.attrs.from : r.device);
    }
    for (const o of r.outputs) where.set(o.id, r.device);
  }
}

function matmul64(a: number[][], b: number[][]): number[][] {
  return a.map((row) => b[0]!.map((_, j) => row.reduce((s, v, k) => s + v * b[k]![j]!, 0)));
}
const transpose = (a: number[][]): number[][] => a[0]!.map((_, j) => a.map((row) => row[j]!));

describe("placement: 'explicit' stays as it was", () => {
  test('inputs on two devices are a DeviceError; explain() has nothing to explain', () => {
    const router = new Router([new Cpu({ threads: 0 }), new Cpu({ threads: 0, device: CPU1 })]);
    routers.push(router);
    const x = fromData(router, [1, 2], { device: D0 });
    const y = fromData(router, [3, 4], { device: D1 });
    expect(() => x.add(y)).toThrow(DeviceError);
    expect(() => router.explain()).toThrow(ArgumentError);
    expect(router.placement).toBeUndefined();
    expect(() => new Router([new Cpu({ threads: 0 }), new Cpu({ threads: 0, device: CPU1 })], { placement: 'fast' as 'auto' })).toThrow(ArgumentError);
  });
});

describe("placement: 'auto'", () => {
  test('inputs on two devices: the op runs where it finishes first, the other input moves by a transfer record', async () => {
    const { router, syn } = placed('auto');
    cost(syn, 'add', [f32(4), f32(4)], {}, [1, 5]);
    link(syn);
    const rec = record();
    const x = fromData(router, [1, 2, 3, 4], { device: D0 });
    const y = fromData(router, [10, 20, 30, 40], { device: D1 });
    const z = x.add(y);
    expect(z.device.key).toBe('cpu');
    expect(Array.from((await z.toData()).values)).toEqual([11, 22, 33, 44]);
    rec.stop();
    const transfer = rec.records.find((r) => r.op === 'transfer')!;
    const add = rec.records.find((r) => r.op === 'add')!;
    expect(transfer).toMatchObject({ device: 'cpu', attrs: { from: 'cpu:1', to: 'cpu' }, inputs: [{ id: y.id }] });
    expect(add.device).toBe('cpu');
    expect(add.inputs.map((m) => m.id)).toEqual([x.id, transfer.outputs[0]!.id]);
  });

  test('an op moves to a faster device when its inputs can follow in time, and stays when they cannot', async () => {
    const { router, syn } = placed('auto');
    cost(syn, 'matmul', [f32(64, 64), f32(64, 64)], {}, [10, 1]); // cpu:1 is 10x faster
    cost(syn, 'exp', [f32(64, 64)], {}, [1, 1]);
    link(syn); // 16 KiB moves in 0.026 ms
    const a = fromData(router, new Float32Array(64 * 64).fill(0.01), { shape: [64, 64], device: D0 });
    const m = a.matmul(a);
    expect(m.device.key).toBe('cpu:1');
    // exp costs the same on both: it stays with its input (no transfer pays off).
    expect(m.exp().device.key).toBe('cpu:1');
    expect(a.exp().device.key).toBe('cpu');
    const want = 64 * 0.01 * 0.01;
    for (const v of (await m.toData()).values) expect(v).toBeCloseTo(want, 6);
  });

  test('nothing moves silently: over a mixed graph every input lives on its op device, or came by transfer', async () => {
    const { router, syn } = placed('auto');
    const s = f32(32, 32);
    cost(syn, 'matmul', [s, s], {}, [8, 1]);
    cost(syn, 'exp', [s], {}, [0.1, 3]);
    cost(syn, 'add', [s, s], {}, [0.1, 3]);
    cost(syn, 'mulScalar', [s], { scalar: 0.5 }, [3, 0.1]);
    link(syn);
    const rec = record();
    const known = new Map<number, string>();
    const w = fromData(router, Float32Array.from({ length: 1024 }, (_, i) => ((i % 7) - 3) / 64), { shape: [32, 32], device: D0 });
    let x = fromData(router, Float32Array.from({ length: 1024 }, (_, i) => ((i % 5) - 2) / 32), { shape: [32, 32], device: D1 });
    known.set(w.id, 'cpu');
    known.set(x.id, 'cpu:1');
    const devices: string[] = [];
    for (let i = 0; i < 4; i++) {
      const h = x.matmul(w);
      const e = h.exp();
      const y = e.add(x).mul(0.5);
      devices.push(h.device.key, e.device.key, y.device.key);
      x = y;
    }
    const got = (await x.toData()).values;
    rec.stop();
    // The models above force both devices into use, so there were moves to check.
    expect(new Set(devices)).toEqual(new Set(['cpu', 'cpu:1']));
    expect(rec.records.filter((r) => r.op === 'transfer').length).toBeGreaterThan(0);
    checkNothingMovesSilently(rec.records, known);
    // And the values are those of the same program in float64.
    const W = Array.from({ length: 32 }, (_, i) => Array.from({ length: 32 }, (_, j) => (((i * 32 + j) % 7) - 3) / 64));
    let X = Array.from({ length: 32 }, (_, i) => Array.from({ length: 32 }, (_, j) => (((i * 32 + j) % 5) - 2) / 32));
    for (let i = 0; i < 4; i++) {
      const H = matmul64(X, W);
      X = H.map((row, r) => row.map((v, c) => (Math.exp(v) + X[r]![c]!) * 0.5));
    }
    X.flat().forEach((v, i) => expect(got[i]).toBeCloseTo(v, 5));
  });

  test('gradients flow back through the transfers placement inserted (Autodiff<Router<[Cpu, Cpu]>>)', async () => {
    const { router, syn } = placed('auto');
    cost(syn, 'matmul', [f32(3, 4), f32(4, 2)], {}, [10, 1]);
    cost(syn, 'mul', [f32(3, 2), f32(3, 2)], {}, [1, 10]);
    cost(syn, 'sum', [f32(3, 2)], { dim: null, keepDims: false }, [1, 10]);
    link(syn);
    const ad = new Autodiff(router);
    const X = [[1, 2, 3, 4], [0.5, -1, 2, 0], [3, 1, -2, 1]];
    const Wt = [[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6], [0.7, 0.8]];
    const C = [[1, -1], [2, 0.5], [-1, 3]];
    const x = fromData(ad, X, { device: D0 }).requireGrad();
    const w = fromData(ad, Wt, { device: D0 }).requireGrad();
    const c = fromData(ad, C, { device: D0 });
    const rec = record();
    const h = x.matmul(w);
    expect(h.device.key).toBe('cpu:1'); // x and w moved to cpu:1 by transfer records
    const loss = h.mul(c).sum();
    expect(loss.device.key).toBe('cpu');
    const grads = loss.backward();
    const gx = x.grad(grads)!;
    const gw = w.grad(grads)!;
    // Each gradient comes back to its leaf's device through the gradient of a transfer.
    expect([gx.device.key, gw.device.key]).toEqual(['cpu', 'cpu']);
    const [vx, vw, vl] = await Promise.all([gx.toData(), gw.toData(), loss.item()]);
    rec.stop();
    // Reference in float64: loss = sum((X W) * C); dX = C W^T, dW = X^T C.
    const XW = matmul64(X, Wt);
    expect(vl).toBeCloseTo(XW.flat().reduce((s, v, i) => s + v * C.flat()[i]!, 0), 4);
    matmul64(C, transpose(Wt)).flat().forEach((v, i) => expect(vx.values[i]).toBeCloseTo(v, 5));
    matmul64(transpose(X), C).flat().forEach((v, i) => expect(vw.values[i]).toBeCloseTo(v, 5));
    const transfers = rec.records.flatMap((r) => (r.op === 'transfer' ? [`${r.attrs.from}->${r.device}`] : []));
    expect(transfers.filter((t) => t === 'cpu->cpu:1').length).toBeGreaterThanOrEqual(2); // x and w forward
    expect(transfers.filter((t) => t === 'cpu:1->cpu').length).toBeGreaterThanOrEqual(2); // their gradients back
    checkNothingMovesSilently(rec.records, new Map([[x.id, 'cpu'], [w.id, 'cpu'], [c.id, 'cpu']]));
  });

  test('with steps, online placement slower than a device alone gives way to it, and is tried again later', async () => {
    const { router, syn } = placed('auto', { traceCalibrationRuns: 1, recheckEvery: 10 });
    const m = f32(16, 16);
    cost(syn, 'matmul', [m, m], {}, [10, 1]);
    cost(syn, 'exp', [m], {}, [0.1, 5]);
    link(syn);
    let now = 0;
    clock.delegate = { now: () => now };
    try {
      const x = fromData(router, new Float32Array(256).fill(0.01), { shape: [16, 16], device: D0 });
      const step = async (ms: number): Promise<string[]> => {
        const rec = record();
        await x.matmul(x).exp().toData();
        rec.stop();
        now += ms;
        router.markStep();
        return rec.records.filter((r) => r.inputs.length > 0 && r.op !== 'transfer').map((r) => `${r.op}@${r.device}`);
      };
      expect(await step(20)).toEqual(['matmul@cpu:1', 'exp@cpu']); // online: the profiler learns
      expect(await step(3)).toEqual(['matmul@cpu', 'exp@cpu']); // cpu alone
      expect(await step(5)).toEqual(['matmul@cpu:1', 'exp@cpu:1']); // cpu:1 alone
      await step(4); // online, twice: 4 ms against cpu's 3 ms alone
      await step(4);
      expect(router.explain().notes.at(-1)).toMatch(/step 4: online placement's step took 4.000 ms, cpu alone 3.000 ms, cpu:1 alone 5.000 ms: every op runs on cpu \(next check in 10 steps\)/);
      const onCpu = ['matmul@cpu', 'exp@cpu'];
      for (let i = 0; i < 10; i++) expect(await step(3)).toEqual(onCpu);
      expect(router.explain().notes.at(-1)).toMatch(/step 14: trying online placement again/);
      // The re-check: online runs 2 steps; 2.9 ms is not 5% below cpu's 3 ms, so cpu stays (hysteresis).
      expect(await step(2.9)).toEqual(['matmul@cpu:1', 'exp@cpu']);
      expect(await step(2.9)).toEqual(['matmul@cpu:1', 'exp@cpu']);
      // Then twice the interval; the next re-check is cpu:1's turn (5 ms: cpu stays).
      for (let i = 0; i < 20; i++) expect(await step(3)).toEqual(onCpu);
      expect(router.explain().notes.at(-1)).toMatch(/trying cpu:1 alone again/);
      expect(await step(5)).toEqual(['matmul@cpu:1', 'exp@cpu:1']);
      expect(await step(5)).toEqual(['matmul@cpu:1', 'exp@cpu:1']);
      // After 40 more steps online again: at 1 ms it takes over.
      for (let i = 0; i < 40; i++) expect(await step(3)).toEqual(onCpu);
      expect(router.explain().notes.at(-1)).toMatch(/trying online placement again/);
      await step(1);
      await step(1);
      expect(router.explain().notes.at(-1)).toMatch(/online placement's step took 1.000 ms, cpu alone's 3.000 ms: placing online \(next check in 10 steps\)/);
      expect(await step(1)).toEqual(['matmul@cpu:1', 'exp@cpu']);
    } finally {
      clock.delegate = { now: () => 0 };
    }
  });

  test('a tensor moved for one op is kept there for later ops, and freed with its source', async () => {
    const { router, syn } = placed('auto');
    cost(syn, 'matmul', [f32(32, 32), f32(32, 32)], {}, [10, 1]);
    link(syn);
    const a = fromData(router, new Float32Array(32 * 32).fill(0.5), { shape: [32, 32], device: D0 });
    const rec = record();
    const p = a.matmul(a);
    const q = a.matmul(a);
    await Promise.all([p.toData(), q.toData()]);
    rec.stop();
    expect([p.device.key, q.device.key]).toEqual(['cpu:1', 'cpu:1']);
    expect(rec.records.filter((r) => r.op === 'transfer').map((r) => r.inputs[0]!.id)).toEqual([a.id]);
    const held = router.memory(D1).tensors;
    expect(router.placement!.hasReplicas(a.id)).toBe(true);
    a.dispose();
    expect(router.placement!.hasReplicas(a.id)).toBe(false);
    expect(router.memory(D1).tensors).toBe(held - 1);
  });

  test('under autodiff a tracked tensor is moved for each op (its copy is a variable of the tape)', async () => {
    const { router, syn } = placed('auto');
    cost(syn, 'matmul', [f32(8, 8), f32(8, 8)], {}, [10, 1]);
    link(syn);
    const ad = new Autodiff(router);
    const w = fromData(ad, new Float32Array(64).fill(0.25), { shape: [8, 8], device: D0 }).requireGrad();
    const rec = record();
    const loss = w.matmul(w).add(w.matmul(w)).sum();
    const g = w.grad(loss.backward())!;
    const values = (await g.toData()).values;
    rec.stop();
    expect(rec.records.filter((r) => r.op === 'transfer' && r.inputs[0]!.id === w.id).length).toBe(2);
    expect(router.placement!.hasReplicas(w.id)).toBe(false); // and no copy of it is held
    // d/dW sum(2 W W) = 2 (1 W^T + W^T 1) with W = 0.25 everywhere: 2 * (8 * 0.25 + 8 * 0.25) = 8.
    for (const v of values) expect(v).toBeCloseTo(8, 5);
  });

  test('a bad call throws before anything is queued', () => {
    const { router, syn } = placed('auto');
    link(syn);
    const rec = record();
    const a = fromData(router, [[1, 2, 3], [4, 5, 6]], { device: D0 });
    const b = fromData(router, [[1, 2], [3, 4], [5, 6], [7, 8]], { device: D1 });
    expect(() => a.matmul(b)).toThrow(/matmul/);
    rec.stop();
    expect(rec.records.filter((r) => r.op === 'transfer')).toEqual([]);
  });

  test('explain(): per op group, device, why, predicted time and transfers; then the step', async () => {
    const { router, syn } = placed('auto');
    cost(syn, 'matmul', [f32(16, 16), f32(16, 16)], {}, [4, 1]);
    cost(syn, 'exp', [f32(16, 16)], {}, [0.5, 0.5]);
    link(syn);
    const a = fromData(router, new Float32Array(256).fill(0.1), { shape: [16, 16], device: D0 });
    router.markStep(); // creation is not a placed op: start the step here
    const y = a.matmul(a).exp().matmul(a);
    await y.toData();
    router.markStep();
    const x = router.explain();
    expect(x.mode).toBe('auto');
    expect(x.step).toBe(1);
    expect(x.ops).toBe(3);
    const rows = x.rows.map((r) => [r.op, r.shape, r.device, r.count, r.reason, r.transfers]);
    expect(rows).toEqual([
      // The second matmul's inputs weigh the same on both devices: it stays with the first (exp's output)
      // and uses the copy of `a` moved for the first matmul: one transfer in all.
      ['matmul', '[16, 16]', 'cpu:1', 2, 'earliest+home', 1],
      ['exp', '[16, 16]', 'cpu:1', 1, 'home', 0],
    ]);
    expect(x.rows[0]!.predictedMs).toBeCloseTo(2, 9);
    expect(x.predictedStepMs).toBeGreaterThan(2.5);
    const text = x.toString();
    expect(text).toContain("placement 'auto' on router<cpu, cpu>, step 1: 3 ops placed, 1 transfers added (1.0 KiB)");
    expect(text).toContain('| matmul | [16, 16] | cpu:1 | 2 | earliest+home | 2.000 | - | 1 (1.0 KiB) |');
  });
});

describe("placement: 'trace'", () => {
  /** One step: h = relu(x W1) W2 + b, the kind of graph a training step repeats. */
  function step(router: Router<[Cpu, Cpu]>, x: ReturnType<typeof fromData<Router<[Cpu, Cpu]>, Float32Array>>, w1: typeof x, w2: typeof x) {
    return x.matmul(w1).relu().matmul(w2).exp().sum();
  }

  test('records a step, plans it with HEFT, replays the plan; a different step is recorded again', async () => {
    const { router, syn } = placed('trace', { traceCalibrationRuns: 0 }); // models given: no step on each device alone
    cost(syn, 'matmul', [f32(8, 32), f32(32, 32)], {}, [5, 1]);
    cost(syn, 'relu', [f32(8, 32)], {}, [0.2, 0.2]);
    cost(syn, 'matmul', [f32(8, 32), f32(32, 8)], {}, [0.1, 0.3]);
    cost(syn, 'exp', [f32(8, 8)], {}, [0.05, 0.5]);
    cost(syn, 'sum', [f32(8, 8)], { dim: null, keepDims: false }, [0.05, 0.5]);
    link(syn);
    const x = fromData(router, new Float32Array(8 * 32).fill(0.1), { shape: [8, 32], device: D0 });
    const w1 = fromData(router, new Float32Array(32 * 32).fill(0.01), { shape: [32, 32], device: D0 });
    const w2 = fromData(router, new Float32Array(32 * 8).fill(0.02), { shape: [32, 8], device: D0 });
    router.markStep();
    const devicesOf = async (): Promise<string[]> => {
      const rec = record();
      const s = step(router, x, w1, w2);
      await s.item();
      router.markStep();
      rec.stop();
      return rec.records.filter((r) => r.op !== 'transfer' && r.inputs.length > 0).map((r) => `${r.op}@${r.device}`);
    };
    await devicesOf(); // recorded (placed online)
    expect(router.explain().notes.some((n) => /recorded 5 ops; planned with HEFT/.test(n))).toBe(true);
    const replayed = await devicesOf();
    // HEFT with these costs: the big matmul on cpu:1 (5 vs 1 + transfers), the rest back on cpu.
    expect(replayed).toEqual(['matmul@cpu:1', 'relu@cpu:1', 'matmul@cpu', 'exp@cpu', 'sum@cpu']);
    const x2 = router.explain();
    expect(x2.rows.every((r) => r.reason === 'plan')).toBe(true);
    expect(x2.predictedStepMs).toBeGreaterThan(0);
    expect(await devicesOf()).toEqual(replayed);
    // Another step: recorded again.
    x.exp().sum();
    router.markStep();
    expect(router.explain().notes.some((n) => /differ from the recorded ones; recording again/.test(n))).toBe(true);
  });

  test('re-plans when measured op times drift more than 20% from the plan', async () => {
    const { router, syn } = placed('trace', { traceCalibrationRuns: 0 }); // models given: no step on each device alone
    cost(syn, 'matmul', [f32(8, 32), f32(32, 32)], {}, [5, 1]);
    cost(syn, 'relu', [f32(8, 32)], {}, [0.2, 0.2]);
    cost(syn, 'matmul', [f32(8, 32), f32(32, 8)], {}, [0.1, 0.3]);
    cost(syn, 'exp', [f32(8, 8)], {}, [0.05, 0.5]);
    cost(syn, 'sum', [f32(8, 8)], { dim: null, keepDims: false }, [0.05, 0.5]);
    link(syn);
    const x = fromData(router, new Float32Array(8 * 32).fill(0.1), { shape: [8, 32], device: D0 });
    const w1 = fromData(router, new Float32Array(32 * 32).fill(0.01), { shape: [32, 32], device: D0 });
    const w2 = fromData(router, new Float32Array(32 * 8).fill(0.02), { shape: [32, 8], device: D0 });
    router.markStep();
    await step(router, x, w1, w2).item();
    router.markStep(); // recorded and planned
    await step(router, x, w1, w2).item();
    router.markStep(); // x, w1, w2 are the same tensors every step: planned again with them moved once
    expect(router.placement!.plansMade).toBe(2);
    expect(router.explain().notes.at(-1)).toMatch(/3 inputs are the same tensors every step/);
    // Replayed steps whose ops are measured 3x slower than planned: their events, with made-up times, feed the model.
    const planned = new Map<string, number>([['matmul@cpu:1', 1], ['relu@cpu:1', 0.2], ['matmul@cpu', 0.1], ['exp@cpu', 0.05], ['sum@cpu', 0.05]]);
    const slowStep = async () => {
      const rec = record();
      await step(router, x, w1, w2).item();
      rec.stop();
      for (const e of rec.events) {
        const ms = planned.get(`${e.op}@${e.device}`);
        if (ms !== undefined) syn.subject.next(syn.event(e.record, 3 * ms));
      }
      router.markStep();
    };
    await slowStep();
    // One slow step is not enough (it could be noise)...
    expect(router.placement!.plansMade).toBe(2);
    await slowStep();
    // ...two are.
    expect(router.placement!.plansMade).toBe(3);
    const notes = router.explain().notes;
    expect(notes.some((n) => /measured op times above the plan's by 200%; planned with HEFT \(plan 3\)/.test(n))).toBe(true);
    // The new plan takes the measured times: the same slow steps no longer drift from it.
    await slowStep();
    await slowStep();
    expect(router.placement!.plansMade).toBe(3);
  });
});

describe("placement: 'trace' against each device alone", () => {
  test('a plan whose steps take longer than a device alone gives way to that device', async () => {
    await onVirtualClock({ traceCalibrationRuns: 1 }, MATMUL_ON_CPU1, async ({ router, x, step }) => {
      await step(20); // recorded
      await step(3); // cpu alone (the first device)
      await step(5); // cpu:1 alone
      expect(router.explain().notes.at(-1)).toMatch(/planned with HEFT \(plan 1\): 1 on cpu:1, 2 on cpu/);
      await step(4); // the plan: two steps of 4 ms, more than 5% over cpu's 3 ms alone
      expect(router.placement!.plansMade).toBe(1);
      await step(4);
      expect(router.explain().notes.at(-1)).toMatch(/the plan's step took 4.000 ms, cpu alone 3.000 ms: every op runs on cpu \(plan 2\)/);
      const rec = record();
      await x.matmul(x).exp().sum().item();
      rec.stop();
      expect(rec.records.filter((r) => r.inputs.length > 0).map((r) => `${r.op}@${r.device}`)).toEqual(['matmul@cpu', 'exp@cpu', 'sum@cpu']);
    });
  });

  test("a device's time alone is the least of its steps after the first (a warm-up)", async () => {
    await onVirtualClock({ traceCalibrationRuns: 3 }, MATMUL_ON_CPU1, async ({ router, step }) => {
      // recorded; cpu alone: 50 (warm-up), 3.5, 3; cpu:1 alone: 1 (warm-up), 9, 6; then the plan: 4, 4.
      for (const ms of [20, 50, 3.5, 3, 1, 9, 6, 4, 4]) await step(ms);
      expect(router.explain().notes.at(-1)).toMatch(/the plan's step took 4.000 ms, cpu alone 3.000 ms: every op runs on cpu/);
    });
  });

  test('a plan must beat the best device alone by more than 5%: within 5%, the device alone runs', async () => {
    for (const [planMs, plans] of [[3.1, 2], [2.9, 2], [2.5, 1]] as const) {
      await onVirtualClock({ traceCalibrationRuns: 1 }, MATMUL_ON_CPU1, async ({ router, step }) => {
        for (const ms of [20, 3, 5, planMs, planMs, planMs]) await step(ms);
        expect(router.placement!.plansMade).toBe(plans);
      });
    }
  });

  test('a plan on one device is no candidate of its own: every op goes at once to the device measured fastest alone, whatever the model says', async () => {
    // The model: cpu faster for every op (HEFT puts the whole step there).
    await onVirtualClock({ traceCalibrationRuns: 1 }, [[1, 2], [0.1, 0.2], [0.1, 0.2]], async ({ router, step }) => {
      // Measured: cpu alone 6 ms, cpu:1 alone 2 ms.
      for (const ms of [20, 6, 2]) await step(ms);
      expect(router.explain().notes.slice(-2).join('\n')).toMatch(/planned with HEFT \(plan 1\): 3 on cpu,.*\nthe plan uses one device; measured fastest alone: cpu:1 \(2.000 ms\): every op runs on cpu:1 \(plan 2\)/);
      expect(onDevices(await step(2))).toEqual(['matmul@cpu:1', 'exp@cpu:1', 'sum@cpu:1']);
      expect(router.explain().rows.map((r) => r.reason)).toEqual(['alone', 'alone', 'alone']);
    });
  });

  test('the measured choice is re-checked: a plan that became faster than the device alone takes over, with hysteresis', async () => {
    await onVirtualClock({ traceCalibrationRuns: 1, recheckEvery: 4 }, MATMUL_ON_CPU1, async ({ router, step: run }) => {
      const devices: string[] = [];
      const step = async (ms: number) => {
        devices.push(onDevices(await run(ms)).map((d) => d.split('@')[1]).join(','));
      };
      for (const ms of [20, 3, 5, 4, 4]) await step(ms); // recorded; cpu alone; cpu:1 alone; the plan twice
      expect(router.explain().notes.at(-1)).toMatch(/every op runs on cpu/);
      devices.length = 0;
      // cpu for 4 steps, then the plan is re-checked for 2 steps (2.9: not 5% below 3), then cpu again.
      for (const ms of [3, 3, 3, 3, 2.9, 2.9, 3, 3]) await step(ms);
      expect(devices).toEqual(['cpu,cpu,cpu', 'cpu,cpu,cpu', 'cpu,cpu,cpu', 'cpu,cpu,cpu', 'cpu:1,cpu,cpu', 'cpu:1,cpu,cpu', 'cpu,cpu,cpu', 'cpu,cpu,cpu']);
      devices.length = 0;
      // The interval doubled (8 steps, 2 of them above): then cpu:1 alone has its turn (5 ms: cpu stays).
      for (const ms of [3, 3, 3, 3, 3, 3, 5, 5]) await step(ms);
      expect(devices.slice(-2)).toEqual(['cpu:1,cpu:1,cpu:1', 'cpu:1,cpu:1,cpu:1']);
      // 16 steps later the plan's turn again: it measures 2 ms and takes over.
      for (let i = 0; i < 16; i++) await step(3);
      for (const ms of [2, 2, 2]) await step(ms);
      expect(devices.slice(-3)).toEqual(['cpu:1,cpu,cpu', 'cpu:1,cpu,cpu', 'cpu:1,cpu,cpu']);
      expect(router.explain().notes.some((n) => /the plan's step took 2.000 ms, cpu alone's 3.000 ms: the plan runs/.test(n))).toBe(true);
    });
  });
});

describe("placement: 'trace' over a training loop", () => {
  test('parameters the step updates stay where the plan puts their update: no transfer in the steady state', async () => {
    const { router, syn } = placed('trace', { traceCalibrationRuns: 0 }); // models given: no step on each device alone
    const m = f32(16, 16);
    cost(syn, 'matmul', [m, m], {}, [10, 1]);
    cost(syn, 'sum', [m], { dim: null, keepDims: false }, [0.1, 0.1]);
    cost(syn, 'mulScalar', [m], { scalar: 0.99 }, [0.1, 0.1]);
    // A slow link (0.5 ms a move): moving w every step costs more than running its update after the matmul.
    for (const [f, t] of [['cpu', 'cpu:1'], ['cpu:1', 'cpu']] as const) for (const n of [256, 1 << 18]) syn.transfer(f, t, n, 0.5 + (4 * n) / 1e6, 3);
    const x = fromData(router, new Float32Array(256).fill(1), { shape: [16, 16], device: D1 });
    let w = fromData(router, new Float32Array(256).fill(0.5), { shape: [16, 16], device: D0 });
    router.markStep();
    const transfersPerStep: number[] = [];
    let last = 0;
    for (let i = 0; i < 6; i++) {
      const rec = record();
      const y = x.matmul(w).sum();
      const next = w.mul(0.99);
      last = await y.item();
      rec.stop();
      transfersPerStep.push(rec.records.filter((r) => r.op === 'transfer').length);
      w.dispose();
      w = next;
      router.markStep();
    }
    // w is used twice (the matmul and its own update): two inputs carried from the previous step.
    expect(router.explain().notes.some((n) => /2 inputs are made by the previous step.*3 on cpu:1, makespan 1.200 ms/.test(n))).toBe(true);
    // The first steps (recorded online, then planned before w was known to be carried) move w; then it lives on cpu:1.
    expect(transfersPerStep.slice(-3)).toEqual([0, 0, 0]);
    expect(w.device.key).toBe('cpu:1');
    // sum(x w) with x = 1 and w = 0.5 * 0.99^5 everywhere: 16 * 16 * 16 * w.
    expect(last).toBeCloseTo(16 * 16 * 16 * 0.5 * 0.99 ** 5, 2);
  });
});

describe('models persist per machine and adapter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-router-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('close() saves; a new router on the same backends loads the models', async () => {
    const first = placed('auto', { persist: dir });
    cost(first.syn, 'matmul', [f32(16, 16), f32(16, 16)], {}, [4, 1]);
    await first.router.placement!.ready();
    await first.router.close();
    routers.splice(routers.indexOf(first.router), 1);
    const second = placed('auto', { persist: dir });
    expect(await second.router.placement!.ready()).toBe(true);
    const a = fromData(second.router, new Float32Array(256), { shape: [16, 16], device: D0 });
    // cpu:1 is known to be 4x faster; the transfer prior (nothing measured) is small for 1 KiB.
    expect(a.matmul(a).device.key).toBe('cpu:1');
  });
});
