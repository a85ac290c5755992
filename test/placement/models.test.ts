import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterAll, describe, expect, test } from 'vitest';
import { CostModel } from '../../src/placement/cost-model.js';
import { footprint } from '../../src/placement/footprint.js';
import { robustMean } from '../../src/placement/history.js';
import { Profiler } from '../../src/placement/profiler.js';
import { fitPowerLaw } from '../../src/placement/regression.js';
import { serviceTimes, type Sample } from '../../src/placement/service-time.js';
import { TransferModel, priorFit } from '../../src/placement/transfer-model.js';
import type { OpEvent } from '../../src/scheduler/events.js';
import { SyntheticEvents } from './synthetic.js';

const f32 = (...shape: number[]) => ({ shape, dtype: 'float32' as const });

describe('history: robust mean', () => {
  test('drops samples beyond 3 scaled MADs of the median', () => {
    const xs = [1.0, 1.1, 0.9, 1.05, 0.95, 50];
    // Reference: median 1.025, MAD 0.075 -> limit 0.3336; 50 is out, the mean of the rest is 1.0.
    const e = robustMean(xs)!;
    expect(e.kept).toBe(5);
    expect(e.ms).toBeCloseTo((1.0 + 1.1 + 0.9 + 1.05 + 0.95) / 5, 12);
  });

  test('identical samples (MAD 0) are all kept; an outlier among them is not', () => {
    expect(robustMean([2, 2, 2, 2])).toEqual({ ms: 2, kept: 4, n: 4 });
    expect(robustMean([2, 2, 2, 9])!.ms).toBe(2);
  });
});

describe('regression a*n^b + c', () => {
  test('recovers a known law and predicts sizes it never saw within 2%', () => {
    const law = (n: number) => 3e-9 * n ** 1.5 + 0.04;
    const points = [1e4, 4e4, 1.6e5, 6.4e5, 2.56e6].map((n) => ({ n, ms: law(n) }));
    const fit = fitPowerLaw(points)!;
    for (const n of [2e4, 1e6, 1e7]) expect(Math.abs(fit.a * n ** fit.b + fit.c - law(n)) / law(n)).toBeLessThan(0.02);
  });

  test('needs three sizes spanning a factor of 4', () => {
    expect(fitPowerLaw([{ n: 10, ms: 1 }, { n: 100, ms: 2 }])).toBeUndefined();
    expect(fitPowerLaw([{ n: 10, ms: 1 }, { n: 12, ms: 2 }, { n: 14, ms: 3 }])).toBeUndefined();
  });
});

describe('transfer model alpha + beta * bytes', () => {
  test('fits latency and bandwidth from the median of each size class', () => {
    const t = new TransferModel(priorFit(true, false));
    const alpha = 0.05;
    const beta = 1 / 2e6; // 2 GB/s
    for (const b of [1 << 10, 1 << 16, 1 << 20, 1 << 22]) for (let i = 0; i < 5; i++) t.add(b, alpha + beta * b);
    t.add(1 << 16, 40); // one stall in a class of six
    const m = t.model();
    expect(m.source).toBe('measured');
    expect(m.alpha).toBeCloseTo(alpha, 9);
    expect(m.beta).toBeCloseTo(beta, 15);
    expect(t.predict(1 << 24)).toBeCloseTo(alpha + beta * (1 << 24), 6);
  });

  test('answers with the path prior until two sizes are measured', () => {
    const t = new TransferModel(priorFit(true, true));
    expect(t.model().source).toBe('prior');
    t.add(4096, 1);
    expect(t.model().source).toBe('prior');
  });
});

describe('cost model', () => {
  const fpAt = (n: number) => footprint('exp', [f32(n)], {});

  test('none, then partial, then history once minSamples are kept (the first run is a warm-up)', () => {
    const m = new CostModel({ minSamples: 4 });
    const fp = fpAt(1000);
    expect(m.predict(fp, 'cpu').source).toBe('none');
    m.add(fp, 'cpu', 100); // warm-up: not kept
    expect(m.predict(fp, 'cpu').source).toBe('none');
    m.add(fp, 'cpu', 2);
    expect(m.predict(fp, 'cpu')).toEqual({ ms: 2, source: 'partial', samples: 1 });
    for (let i = 0; i < 3; i++) m.add(fp, 'cpu', 2);
    expect(m.predict(fp, 'cpu')).toEqual({ ms: 2, source: 'history', samples: 4 });
    expect(m.predict(fp, 'cpu:1').source).toBe('none');
  });

  test('an unseen size is predicted by the regression of its op family', () => {
    const m = new CostModel({ minSamples: 3 });
    const law = (n: number) => 1e-6 * n + 0.01;
    for (const n of [1 << 10, 1 << 13, 1 << 16, 1 << 19]) for (let i = 0; i < 4; i++) m.add(fpAt(n), 'cpu', law(n));
    const p = m.predict(fpAt(1 << 22), 'cpu');
    expect(p.source).toBe('regression');
    expect(Math.abs(p.ms - law(1 << 22)) / law(1 << 22)).toBeLessThan(0.02);
  });

  test('shapes in one quarter-octave bucket share a history; dtypes and reduction dims do not', () => {
    expect(footprint('exp', [f32(1000)], {}).key).toBe(footprint('exp', [f32(1020)], {}).key);
    expect(footprint('exp', [f32(1000)], {}).key).not.toBe(footprint('exp', [f32(1400)], {}).key);
    expect(footprint('sum', [f32(64, 64)], { dim: 0, keepDims: false }).key).not.toBe(footprint('sum', [f32(64, 64)], { dim: 1, keepDims: false }).key);
    expect(footprint('neg', [f32(8)], {}).key).not.toBe(footprint('neg', [{ shape: [8], dtype: 'int32' }], {}).key);
    // A scalar operand's value does not change the work.
    expect(footprint('mulScalar', [f32(8)], { scalar: 2 }).key).toBe(footprint('mulScalar', [f32(8)], { scalar: 3 }).key);
  });

  test('JSON round trip: the reloaded model predicts the same', () => {
    const m = new CostModel({ minSamples: 3 });
    for (const n of [1 << 10, 1 << 13, 1 << 16]) for (let i = 0; i < 5; i++) m.add(fpAt(n), 'cpu', n / 1e4 + i * 0.001);
    for (const b of [1 << 12, 1 << 20]) for (let i = 0; i < 3; i++) m.addTransfer('cpu', 'cpu:1', b, 0.01 + b / 1e6);
    m.transfer('cpu', 'cpu:1').calibrated = true;
    for (const ms of [2, 3, 4]) m.transfer('cpu', 'cpu:1').addInWorkload(1 << 12, ms); // waits inside a workload
    const back = new CostModel({ minSamples: 3 });
    back.load(JSON.parse(JSON.stringify(m.toJSON())));
    // Reference: the line is 0.01 + b / 1e6; the waits are the excesses over it, and their median is added.
    const line = 0.01 + 4096 / 1e6;
    expect(back.predictTransfer('cpu', 'cpu:1', 4096)).toBeCloseTo(line + (3 - line), 9);
    for (const n of [1 << 10, 1 << 13, 1 << 16, 1 << 20]) expect(back.predict(fpAt(n), 'cpu')).toEqual(m.predict(fpAt(n), 'cpu'));
    expect(back.transferFit('cpu', 'cpu:1')).toEqual(m.transferFit('cpu', 'cpu:1'));
    expect(back.transfer('cpu', 'cpu:1').calibrated).toBe(true);
  });
});

describe('service times from events', () => {
  function run(events: OpEvent[], weigh: (e: OpEvent) => number = () => 1): Sample[] {
    const out: Sample[] = [];
    const src = new Subject<OpEvent>();
    src.pipe(serviceTimes((g) => g.map(weigh))).subscribe((s) => out.push(s));
    for (const e of events) src.next(e);
    src.complete();
    return out;
  }
  const syn = new SyntheticEvents();
  const rec = (ms: number, where: string, start: number) => {
    let e: OpEvent | undefined;
    const sub = syn.subject.subscribe((x) => (e = x));
    syn.op('exp', [f32(4)], {}, 'gpu:0', ms, 1);
    sub.unsubscribe();
    return { ...e!, startAt: start, queuedAt: start, endAt: start + ms, where };
  };

  test('ops one after another: each its own start to end', () => {
    const s = run([rec(2, 'inline', 0), rec(3, 'inline', 5), rec(1, 'inline', 8)]);
    expect(s.map((x) => x.ms)).toEqual([2, 3, 1]);
  });

  test('a GPU batch (encoded one by one, done together): the time after the last encode is split by weight', () => {
    // Encoded at 0, 0.1, 0.2; the batch is done at 10.2 (events of one batch arrive a little apart).
    const batch = [0, 0.1, 0.2].map((t, i) => ({ ...rec(1, 'gpu', t), endAt: 10.2 + i * 0.001 }));
    const weights = new Map(batch.map((e, i) => [e.opId, [1, 2, 5][i]!]));
    const s = run(batch, (e: OpEvent) => weights.get(e.opId)!);
    const span = 10.202 - 0.2;
    expect(s.map((x) => x.ms)).toEqual([1, 2, 5].map((w) => (span * w) / 8));
  });

  test('a GPU batch counts from its submission: the wait for the encoding turn to end (CPU ops inline meanwhile) is not the GPU\'s', () => {
    // Encoded at 0 and 0.1, submitted at 4 (the turn ran 3.9 ms of inline CPU ops first), done at 5.
    const batch = [0, 0.1].map((t) => ({ ...rec(1, 'gpu', t), submitAt: 4, endAt: 5 }));
    const s = run(batch);
    expect(s.map((x) => x.ms)).toEqual([0.5, 0.5]);
    // Two batches in one busy period: from the later submission.
    const two = [{ ...rec(1, 'gpu', 10), submitAt: 10.5, endAt: 12 }, { ...rec(1, 'gpu', 11), submitAt: 11.5, endAt: 13 }];
    expect(run(two).map((x) => x.ms)).toEqual([0.75, 0.75]);
  });

  test('a profiler splits a group by measured estimates only when every op has one, else by roofline for all', () => {
    const src = new SyntheticEvents();
    const p = new Profiler(src.subject, { minSamples: 3, warmup: 0, persist: false });
    const samples: Sample[] = [];
    p.samples$.subscribe((x) => samples.push(x));
    // exp over 4 floats has a history of 2 ms on gpu:0; sum over 4M floats has none.
    const expOf = (start: number, end: number) => ({ ...rec(1, 'gpu', start), startAt: start, submitAt: start, endAt: end });
    src.subject.next(expOf(0, 2));
    src.subject.next(expOf(3, 5));
    p.flush();
    expect(p.model.estimate(footprint('exp', [f32(4)], {}), 'gpu:0')?.ms).toBe(2);
    // Made on another stream: the profiler has not seen this sum.
    let big: OpEvent | undefined;
    const sub = syn.subject.subscribe((x) => (big = x));
    syn.op('sum', [f32(1 << 22)], { dim: null, keepDims: false }, 'gpu:0', 1, 1);
    sub.unsubscribe();
    samples.length = 0;
    // One batch of both, 1 ms: the roofline makes the 16 MiB read the larger share (a mix would give exp 2 ms against an order-of-magnitude guess).
    const e1 = expOf(10, 11);
    const e2 = { ...big!, startAt: 10, queuedAt: 10, submitAt: 10, endAt: 11, where: 'gpu' };
    src.subject.next(e1);
    src.subject.next(e2);
    p.flush();
    const roof = (flops: number, bytes: number) => 0.005 + Math.max(flops / 1e10, bytes / 3e8);
    const wExp = roof(footprint('exp', [f32(4)], {}).flops, footprint('exp', [f32(4)], {}).bytes);
    const fpSum = footprint('sum', [f32(1 << 22)], { dim: null, keepDims: false });
    const wSum = roof(fpSum.flops, fpSum.bytes);
    expect(samples.map((x) => x.ms)).toEqual([wExp / (wExp + wSum), wSum / (wExp + wSum)]);
    p.disable();
  });

  test('the synthetic stream reaches a profiler model through the operators', () => {
    const src = new SyntheticEvents();
    const p = new Profiler(src.subject, { minSamples: 3, persist: false });
    src.op('exp', [f32(1000)], {}, 'cpu', 0.5, 4);
    src.transfer('cpu', 'cpu:1', 1 << 10, 0.02, 3);
    src.transfer('cpu', 'cpu:1', 1 << 18, 0.3, 3);
    expect(p.model.predict(footprint('exp', [f32(1000)], {}), 'cpu')).toEqual({ ms: 0.5, source: 'history', samples: 3 });
    expect(p.model.transferFit('cpu', 'cpu:1').source).toBe('measured');
    p.disable();
  });
});

describe('persistence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-placement-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('save writes JSON under <dir>/placement/, load restores the models, reset({ saved }) deletes it', async () => {
    const src = new SyntheticEvents();
    const p = new Profiler(src.subject, { minSamples: 3, persist: dir });
    p.identify(['cpu', 'wgpu:NVIDIA/hopper/H200/test']);
    src.op('matmul', [f32(64, 64), f32(64, 64)], {}, 'cpu', 0.25, 5);
    const file = (await p.save())!;
    expect(file.startsWith(join(dir, 'placement'))).toBe(true);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ format: 'switchyard-placement', version: 1, adapters: ['cpu', 'wgpu:NVIDIA/hopper/H200/test'] });

    const q = new Profiler(new Subject<OpEvent>(), { minSamples: 3, persist: dir });
    q.identify(['cpu', 'wgpu:NVIDIA/hopper/H200/test']);
    expect(await q.load()).toBe(true);
    const fp = footprint('matmul', [f32(64, 64), f32(64, 64)], {});
    expect(q.model.predict(fp, 'cpu')).toEqual({ ms: 0.25, source: 'history', samples: 4 });

    // Another adapter is another file: nothing to load.
    const other = new Profiler(new Subject<OpEvent>(), { persist: dir });
    other.identify(['cpu', 'wgpu:lavapipe']);
    expect(await other.load()).toBe(false);

    await q.reset({ saved: true });
    expect(existsSync(file)).toBe(false);
    expect(q.model.predict(fp, 'cpu').source).toBe('none');
    p.disable();
    q.disable();
    other.disable();
  });

  test('a corrupt file is ignored', async () => {
    const p = new Profiler(new Subject<OpEvent>(), { persist: dir });
    p.identify(['corrupt']);
    const file = (await p.path())!;
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(dir, 'placement'), { recursive: true });
    writeFileSync(file, '{ not json');
    expect(await p.load()).toBe(false);
    p.disable();
  });
});
