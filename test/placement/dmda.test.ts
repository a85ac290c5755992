import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Handle } from '../../src/backends/backend.js';
import type { Device } from '../../src/devices/device.js';
import { Dmda } from '../../src/placement/dmda.js';
import { footprint } from '../../src/placement/footprint.js';
import { Profiler } from '../../src/placement/profiler.js';
import { SyntheticEvents } from './synthetic.js';

const A: Device = { backend: 'cpu', key: 'cpu' };
const B: Device = { backend: 'cpu', key: 'cpu:1' };
let nextId = 1;
const on = (device: Device, ...shape: number[]): Handle => ({ id: nextId++, shape, dtype: 'float32', device });

/** A profiler fed only synthetic events, and lanes that are empty unless the test books them. */
function setup(options: { explore?: number; margin?: number; minSamples?: number } = {}) {
  const syn = new SyntheticEvents();
  const profiler = new Profiler(syn.subject, { minSamples: options.minSamples ?? 3, persist: false });
  const depth = new Map<string, number>();
  const dmda = new Dmda(profiler.model, { now: () => 0, depth: (d) => depth.get(d) ?? 0 }, [A, B], { explore: options.explore ?? 0, margin: options.margin ?? 0 });
  /** Transfers measured as alpha + bytes / bandwidth (bytes per ms) between both devices. */
  const link = (alpha: number, bandwidth: number) => {
    for (const [f, t] of [[A, B], [B, A]] as const) {
      for (const count of [256, 1 << 18]) syn.transfer(f.key, t.key, count, alpha + (4 * count) / bandwidth, 3);
    }
  };
  return { syn, profiler, dmda, depth, link };
}

describe('dmda: the earliest predicted finish, transfers included', () => {
  const x = () => on(A, 512, 512);
  const shape = { shape: [512, 512], dtype: 'float32' as const };

  test('moves a matmul to the faster device when the transfers are cheap', () => {
    const { syn, dmda, link } = setup();
    syn.op('matmul', [shape, shape], {}, A.key, 10, 4);
    syn.op('matmul', [shape, shape], {}, B.key, 2, 4);
    link(0.1, 1e6); // 1 MiB in 1.149 ms
    const [a, b] = [x(), x()];
    const d = dmda.decide('matmul', footprint('matmul', [a, b], {}), [a, b]);
    // Reference: on B, both inputs arrive after 0.1 + 2^20 / 1e6 ms (moved side by side), then 2 ms of work.
    const arrive = 0.1 + 2 ** 20 / 1e6;
    expect(d.device).toBe(B);
    expect(d.finish).toBeCloseTo(arrive + 2, 9);
    expect(d.transfers.map((t) => [t.id, t.from, t.bytes])).toEqual([
      [a.id, 'cpu', 2 ** 20],
      [b.id, 'cpu', 2 ** 20],
    ]);
    expect(d.estimates.find((e) => e.device === 'cpu')!.finish).toBeCloseTo(10, 9);
  });

  test('keeps it where its inputs are when moving them costs more than it saves', () => {
    const { syn, dmda, link } = setup();
    syn.op('matmul', [shape, shape], {}, A.key, 10, 4);
    syn.op('matmul', [shape, shape], {}, B.key, 2, 4);
    link(0.1, 1e5); // 1 MiB in 10.6 ms
    const [a, b] = [x(), x()];
    const d = dmda.decide('matmul', footprint('matmul', [a, b], {}), [a, b]);
    expect(d.device).toBe(A);
    expect(d.transfers).toEqual([]);
  });

  test('a busy lane counts: B booked for 20 ms sends the op to A', () => {
    const { syn, dmda, link, depth } = setup();
    syn.op('matmul', [shape, shape], {}, A.key, 10, 4);
    syn.op('matmul', [shape, shape], {}, B.key, 2, 4);
    syn.op('exp', [shape], {}, B.key, 20, 4);
    link(0.1, 1e6);
    const y = on(B, 512, 512);
    const busy = dmda.forced('exp', footprint('exp', [y], {}), [y], B, 'plan');
    dmda.commit(busy, [{ id: nextId++ }]);
    depth.set(B.key, 1);
    const [a, b] = [x(), x()];
    expect(dmda.laneFree(B.key)).toBe(20);
    expect(dmda.decide('matmul', footprint('matmul', [a, b], {}), [a, b]).device).toBe(A);
    depth.set(B.key, 0); // the lane emptied early: it is free now
    expect(dmda.decide('matmul', footprint('matmul', [a, b], {}), [a, b]).device).toBe(B);
  });

  test('an input still being computed arrives when its producer is predicted to finish', () => {
    const { syn, dmda, link } = setup();
    syn.op('exp', [shape], {}, A.key, 5, 4);
    syn.op('exp', [shape], {}, B.key, 5, 4);
    syn.op('neg', [shape], {}, A.key, 1, 4);
    syn.op('neg', [shape], {}, B.key, 1, 4);
    link(0.1, 1e6);
    const a = x();
    const first = dmda.decide('exp', footprint('exp', [a], {}), [a]);
    expect(first.device).toBe(A);
    const out = { id: nextId++ };
    dmda.commit(first, [out]);
    const y: Handle = { id: out.id, shape: [512, 512], dtype: 'float32', device: A };
    const second = dmda.decide('neg', footprint('neg', [y], {}), [y]);
    // On A it starts when exp is done (5); on B it would also wait for the move (5 + 1.149).
    expect(second.device).toBe(A);
    expect(second.start).toBe(5);
    expect(second.finish).toBe(6);
  });

  test('property: with no margin and no exploration the choice is the argmin of the reference finish, a move paying the way back', () => {
    fc.assert(
      fc.property(
        fc.record({
          runA: fc.double({ min: 0.01, max: 50, noNaN: true }),
          runB: fc.double({ min: 0.01, max: 50, noNaN: true }),
          alpha: fc.double({ min: 0, max: 2, noNaN: true }),
          bandwidth: fc.double({ min: 1e4, max: 1e7, noNaN: true }),
          busyB: fc.double({ min: 0, max: 30, noNaN: true }),
          n: fc.integer({ min: 1, max: 256 }),
          splitInputs: fc.boolean(),
        }),
        ({ runA, runB, alpha, bandwidth, busyB, n, splitInputs }) => {
          const { syn, dmda, link, depth } = setup();
          const m = { shape: [n, n], dtype: 'float32' as const };
          syn.op('add', [m, m], {}, A.key, runA, 4);
          syn.op('add', [m, m], {}, B.key, runB, 4);
          syn.op('exp', [m], {}, B.key, busyB, 4);
          link(alpha, bandwidth);
          if (busyB > 0) {
            const z = on(B, n, n);
            dmda.commit(dmda.forced('exp', footprint('exp', [z], {}), [z], B, 'plan'), [{ id: nextId++ }]);
            depth.set(B.key, 1);
          }
          const a = on(A, n, n);
          const b = on(splitInputs ? B : A, n, n);
          const d = dmda.decide('add', footprint('add', [a, b], {}), [a, b]);
          // Reference, from the fitted line of the synthetic transfers (exact: no noise).
          const move = alpha + (4 * n * n) / bandwidth;
          const finishA = Math.max(0, splitInputs ? move : 0) + runA;
          const finishB = Math.max(busyB, move) + runB;
          // Home is A (most bytes, or the first input's device on a tie): going to B also pays the output's way back.
          const back = alpha + (4 * n * n) / bandwidth;
          if (Math.abs(finishA - (finishB + back)) < 1e-6 * Math.max(finishA, finishB + back)) return; // a tie either way
          expect(d.device.key).toBe(finishA < finishB + back ? A.key : B.key);
          expect(d.finish).toBeCloseTo(d.device === A ? finishA : finishB, 6);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('dmda: staying put, and bounded exploration', () => {
  const m = { shape: [64, 64], dtype: 'float32' as const };

  test('parameters stay where they are unless moving them pays more than the margin', () => {
    const { syn, dmda, link } = setup({ margin: 0.2 });
    syn.op('exp', [m], {}, A.key, 1.0, 4);
    syn.op('exp', [m], {}, B.key, 0.85, 4);
    link(0.001, 1e9);
    const w = on(A, 64, 64);
    // B finishes 15% earlier: less than the 20% margin, so the op stays with its input.
    const d = dmda.decide('exp', footprint('exp', [w], {}), [w]);
    expect(d.device).toBe(A);
    expect(d.reason).toBe('home');
  });

  test('devices short of samples are explored, at most a fraction `explore` of the ops', () => {
    const { syn, dmda } = setup({ explore: 0.1, minSamples: 10 });
    syn.op('exp', [m], {}, A.key, 1, 11); // A is known; B is not
    const w = on(A, 64, 64);
    const fp = footprint('exp', [w], {});
    const reasons: string[] = [];
    for (let i = 0; i < 200; i++) {
      const d = dmda.decide('exp', fp, [w]);
      reasons.push(d.reason);
      expect(dmda.counts.explored).toBeLessThanOrEqual(0.1 * dmda.counts.placed + 1);
    }
    const explored = reasons.filter((r) => r === 'explore').length;
    expect(explored).toBeGreaterThan(10);
    expect(explored).toBeLessThanOrEqual(21);
    // Once B's history is long enough there is nothing left to explore.
    syn.op('exp', [m], {}, B.key, 3, 11);
    for (let i = 0; i < 50; i++) expect(dmda.decide('exp', fp, [w]).reason).not.toBe('explore');
  });

  test('a device measured far slower than the best is not explored further', () => {
    const { syn, dmda } = setup({ explore: 1, minSamples: 10 });
    syn.op('exp', [m], {}, A.key, 1, 11);
    syn.op('exp', [m], {}, B.key, 50, 3); // two samples kept: partial, and 50x slower
    const w = on(A, 64, 64);
    for (let i = 0; i < 20; i++) expect(dmda.decide('exp', footprint('exp', [w], {}), [w]).device).toBe(A);
  });

  test('with nothing known and no budget the op stays with its inputs', () => {
    const { dmda } = setup({ explore: 0 });
    const w = on(B, 8);
    const d = dmda.decide('exp', footprint('exp', [w], {}), [w]);
    expect([d.device, d.reason]).toEqual([B, 'unknown']);
  });
});

describe('dmda: no ping-pong when one device is faster for every op', () => {
  const small = { shape: [16, 10], dtype: 'float32' as const };
  const big = { shape: [512, 512], dtype: 'float32' as const };

  /**
   * B plays a GPU: predicted faster for every op, with queued work ahead (its lane is booked for
   * 1 ms); A is idle. Transfers are calibrated cheap (0.1 ms) in isolation.
   */
  function gpuLike(waitMs: number | undefined) {
    const s = setup();
    for (const op of ['exp', 'add', 'mul'] as const) {
      const inputs = op === 'exp' ? [small] : [small, small];
      s.syn.op(op, inputs, {}, B.key, 0.01, 4);
      s.syn.op(op, inputs, {}, A.key, 0.012, 4);
    }
    s.syn.op('exp', [big], {}, B.key, 1, 4);
    s.link(0.1, 1e6);
    for (const [f, t] of [[A, B], [B, A]] as const) {
      s.profiler.model.transfer(f.key, t.key).calibrated = true;
      // Transfers as they happened inside the workload: each waited for the batch before it.
      if (waitMs !== undefined) s.syn.transfer(f.key, t.key, 160, waitMs, 3);
    }
    const queued = on(B, 512, 512);
    s.dmda.commit(s.dmda.forced('exp', footprint('exp', [queued], {}), [queued], B, 'plan'), [{ id: nextId++ }]);
    s.depth.set(B.key, 1);
    return s;
  }

  /** A small forward/backward-like graph from x on B: every op decided, then committed. */
  function run(dmda: Dmda): { devices: string[]; transfers: number } {
    const x = on(B, 16, 10);
    const made: Handle[] = [x];
    const devices: string[] = [];
    let transfers = 0;
    const step = (op: 'exp' | 'add' | 'mul', ...ins: Handle[]): Handle => {
      const d = dmda.decide(op, footprint(op, ins, {}), ins);
      devices.push(d.device.key);
      transfers += d.transfers.length;
      const out = on(d.device, 16, 10);
      dmda.commit(d, [out]);
      made.push(out);
      return out;
    };
    const y1 = step('exp', x);
    const y2 = step('add', y1, x);
    const y3 = step('mul', y2, y1);
    const y4 = step('exp', x); // a branch off the input
    const y5 = step('add', y4, y3);
    step('mul', y5, y5);
    return { devices, transfers };
  }

  test('with transfers charged what they cost in the workload, the whole graph stays on it: zero transfers', () => {
    const { dmda } = gpuLike(5);
    const { devices, transfers } = run(dmda);
    expect(devices).toEqual(Array(6).fill(B.key));
    expect(transfers).toBe(0);
  });

  test('(the same graph with only the calibrated transfer cost sends ops to the idle device: what the waits prevent)', () => {
    const { dmda } = gpuLike(undefined);
    const { devices, transfers } = run(dmda);
    expect(devices).toContain(A.key);
    expect(transfers).toBeGreaterThan(0);
  });

  test('the waits of transfers in workloads are added to the calibrated line once there are three', () => {
    const { profiler, syn } = setup();
    for (const n of [256, 1 << 18]) syn.transfer(A.key, B.key, n, 0.1 + (4 * n) / 1e6, 3);
    const t = profiler.model.transfer(A.key, B.key);
    t.calibrated = true;
    const line = 0.1 + 640 / 1e6;
    expect(profiler.model.predictTransfer(A.key, B.key, 640)).toBeCloseTo(line, 9);
    syn.transfer(A.key, B.key, 160, 5, 2);
    expect(profiler.model.predictTransfer(A.key, B.key, 640)).toBeCloseTo(line, 9); // two: not yet
    syn.transfer(A.key, B.key, 160, 3, 1);
    // Reference: the median of the three excesses over the line (5, 5, 3 ms, less the line's 0.1 + 640e-6).
    expect(profiler.model.predictTransfer(A.key, B.key, 640)).toBeCloseTo(line + (5 - line), 9);
  });
});
