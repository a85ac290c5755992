/**
 * The autotuner: the fastest measured variant wins, the heuristic runs until then, failed or
 * unmeasurable variants never win, buckets are powers of two, winners persist per file. Trials
 * here are synthetic (no timing); one test runs real trials on this adapter and checks that
 * results stay those of a float64 reference.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { Autotuner, fileStore, indexedDbStore, sizeBucket, TUNE_DATABASE, TUNE_OBJECT_STORE } from '../../src/backends/wgpu/autotune.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import type { MatmulTile } from '../../src/backends/wgpu/wgsl/matmul.js';
import { ArgumentError, fromData } from '../../src/index.js';
import { describeGpu } from './gpu.js';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-autotune-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Autotuner', () => {
  test('runs the fallback until tuned, then the fastest measured variant', async () => {
    const t = new Autotuner(true);
    const times: Record<string, number | undefined> = { a: 3, b: 1, c: undefined, d: 2 };
    const tried: string[] = [];
    const trial = (v: string): Promise<number | undefined> => {
      tried.push(v);
      return Promise.resolve(times[v]);
    };
    expect(t.choose('k', ['a', 'b', 'c', 'd'], (v) => v, 'a', trial)).toBe('a');
    await t.idle();
    expect(tried[0]).toBe('a');
    expect(t.choose('k', ['a', 'b', 'c', 'd'], (v) => v, 'a', trial)).toBe('b');
    expect(t.entries()).toEqual({ k: 'b' });
    // Tuned once per bucket: two passes, the second in reverse and without the variant that failed.
    expect(tried).toEqual(['a', 'b', 'c', 'd', 'd', 'b', 'a']);
  });

  test('each variant keeps its best of two passes: a GPU whose clocks rise during the trials does not pick the last variant', async () => {
    const t = new Autotuner(true);
    // Every call runs 1.5x faster than the one before (clocks rising); 'a' is the fastest kernel.
    const kernel: Record<string, number> = { a: 1, b: 1.2, c: 1.4 };
    let clock = 8;
    const trial = (v: string): Promise<number> => {
      clock /= 1.5;
      return Promise.resolve(kernel[v]! * Math.max(1, clock));
    };
    t.choose('k', ['a', 'b', 'c'], (v) => v, 'a', trial);
    await t.idle();
    // One pass would have picked 'c' (timed last, at the highest clock: 1.4 * 2.37 < 1 * 5.33).
    expect(t.lookup('k')).toBe('a');
  });

  test('every variant is prepared (its kernel compiled) before the first is timed; a failed preparation still gets its trial', async () => {
    const t = new Autotuner(true);
    const calls: string[] = [];
    const prepare = (v: string): Promise<void> => {
      calls.push(`prepare ${v}`);
      return v === 'c' ? Promise.reject(new Error('no compile')) : Promise.resolve();
    };
    const trial = (v: string): Promise<number | undefined> => {
      calls.push(`time ${v}`);
      return Promise.resolve({ a: 3, b: 2, c: undefined, d: 1 }[v]);
    };
    t.choose('k', ['a', 'b', 'c', 'd'], (v) => v, 'b', trial, prepare);
    await t.idle();
    // The fallback first, then the others in order, then back (without c, which measured
    // nothing); all preparations before any timing.
    expect(calls).toEqual(['prepare b', 'prepare a', 'prepare c', 'prepare d', 'time b', 'time a', 'time c', 'time d', 'time d', 'time a', 'time b']);
    expect(t.lookup('k')).toBe('d');
  });

  test('a failing or throwing variant never wins; nothing measured keeps the fallback', async () => {
    const t = new Autotuner(true);
    t.choose('x', ['a', 'b'], (v) => v, 'a', (v) => (v === 'a' ? Promise.resolve(undefined) : Promise.reject(new Error('no'))));
    await t.idle();
    expect(t.lookup('x')).toBe('a');
  });

  test('disabled: never measures', async () => {
    const t = new Autotuner(false);
    let calls = 0;
    expect(t.choose('k', ['a', 'b'], (v) => v, 'b', () => Promise.resolve(++calls))).toBe('b');
    await t.idle();
    expect(calls).toBe(0);
    expect(t.entries()).toEqual({});
  });

  test('the winner is the minimum of the measured times (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0.001, max: 100, noNaN: true }), { minLength: 2, maxLength: 6 }), async (ms) => {
        const t = new Autotuner(true);
        const names = ms.map((_, i) => `v${i}`);
        t.choose('b', names, (v) => v, names[0]!, (v) => Promise.resolve(ms[Number(v.slice(1))]));
        await t.idle();
        const best = names[ms.indexOf(Math.min(...ms))];
        expect(t.lookup('b')).toBe(best);
      }),
      { numRuns: 50 },
    );
  });

  test('sizes share power-of-two buckets', () => {
    expect([1, 16, 17, 1000, 1024, 1025].map(sizeBucket)).toEqual([16, 16, 32, 1024, 1024, 2048]);
    fc.assert(fc.property(fc.integer({ min: 1, max: 1 << 24 }), (n) => {
      const b = sizeBucket(n);
      expect(b).toBeGreaterThanOrEqual(n);
      expect(b < 2 * n || b === 16).toBe(true);
    }));
  });

  test('winners persist in the file and load in a new tuner', async () => {
    const file = join(dir, 'nested', 'tune.json');
    const t = await Autotuner.open({ file }, 'test adapter');
    t.choose('bucket', ['slow', 'fast'], (v) => v, 'slow', (v) => Promise.resolve(v === 'fast' ? 1 : 5));
    await t.idle();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ bucket: 'fast' });
    // A new process: a tuner with a table of its own, loaded from the file.
    const again = new Autotuner(true, fileStore(file), await fileStore(file).load());
    let calls = 0;
    expect(again.choose('bucket', ['slow', 'fast'], (v) => v, 'slow', () => Promise.resolve(++calls))).toBe('fast');
    expect(calls).toBe(0);
  });

  test('an unreadable or malformed file is an empty table', async () => {
    expect(await fileStore(join(dir, 'missing.json')).load()).toEqual({});
    const bad = join(dir, 'bad.json');
    await fileStore(bad).save({ a: 'b' });
    expect(await fileStore(bad).load()).toEqual({ a: 'b' });
  });
});

describe('devices on one adapter share a table', () => {
  /** A trial that resolves when told to, counting its calls. */
  function gate(times: Record<string, number>): { trial: (v: string) => Promise<number>; calls: string[]; open: () => void } {
    const calls: string[] = [];
    let release: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (release = resolve));
    return {
      calls,
      open: () => release(),
      trial: async (v) => {
        calls.push(v);
        await opened;
        return times[v]!;
      },
    };
  }

  test('a bucket is tuned once: the second device runs the fallback meanwhile, then the first one\'s winner, and its idle() waits for it', async () => {
    const file = join(dir, 'shared-1.json');
    const first = await Autotuner.open({ file }, 'gpu');
    const second = await Autotuner.open({ file }, 'gpu');
    const one = gate({ a: 2, b: 1 });
    const two = gate({ a: 2, b: 1 });
    expect(first.choose('k', ['a', 'b'], (v) => v, 'a', one.trial)).toBe('a');
    expect(second.choose('k', ['a', 'b'], (v) => v, 'a', two.trial)).toBe('a');
    let settled = false;
    const waiting = second.idle().then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    one.open();
    await waiting;
    expect(two.calls).toEqual([]);
    expect(second.choose('k', ['a', 'b'], (v) => v, 'a', two.trial)).toBe('b');
    expect(second.entries()).toEqual({ k: 'b' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ k: 'b' });
  });

  test('a device closed mid-trial keeps nothing, and another device tunes the bucket', async () => {
    const file = join(dir, 'shared-2.json');
    const first = await Autotuner.open({ file }, 'gpu');
    const second = await Autotuner.open({ file }, 'gpu');
    const one = gate({ a: 1, b: 2 });
    first.choose('k', ['a', 'b'], (v) => v, 'b', one.trial);
    second.choose('k', ['a', 'b'], (v) => v, 'b', () => Promise.resolve(5));
    first.close();
    one.open();
    await first.idle();
    expect(second.lookup('k')).toBeUndefined();
    expect(second.choose('k', ['a', 'b'], (v) => v, 'b', (v) => Promise.resolve(v === 'a' ? 3 : 1))).toBe('b');
    await second.idle();
    expect(second.lookup('k')).toBe('b');
  });

  test('winners another thread saved after the table was made join it at the next open; those in memory stay', async () => {
    const file = join(dir, 'shared-3.json');
    const first = await Autotuner.open({ file }, 'gpu');
    first.choose('mine', ['a', 'b'], (v) => v, 'a', (v) => Promise.resolve(v === 'a' ? 2 : 1));
    await first.idle();
    await fileStore(file).save({ mine: 'a', theirs: 'c' });
    const second = await Autotuner.open({ file }, 'gpu');
    expect(second.entries()).toEqual({ mine: 'b', theirs: 'c' });
    expect(first.lookup('theirs')).toBe('c');
  });

  test('file: null and other files keep tables of their own', async () => {
    const a = await Autotuner.open({ file: null }, 'gpu');
    const b = await Autotuner.open({ file: null }, 'gpu');
    const c = await Autotuner.open({ file: join(dir, 'shared-4.json') }, 'gpu');
    a.choose('k', ['x', 'y'], (v) => v, 'x', (v) => Promise.resolve(v === 'x' ? 2 : 1));
    await a.idle();
    expect(a.lookup('k')).toBe('y');
    expect(b.lookup('k')).toBeUndefined();
    expect(c.lookup('k')).toBeUndefined();
  });
});

describe('the IndexedDB store (browsers)', () => {
  test('a table saved for an adapter loads in a new tuner; other adapters have their own', async () => {
    const factory = new IDBFactory();
    const store = indexedDbStore(factory, 'gpu A');
    const t = new Autotuner(true, store, await store.load());
    t.choose('bucket', ['slow', 'fast'], (v) => v, 'slow', (v) => Promise.resolve(v === 'fast' ? 1 : 5));
    await t.idle();
    expect(await indexedDbStore(factory, 'gpu A').load()).toEqual({ bucket: 'fast' });
    expect(await indexedDbStore(factory, 'gpu B').load()).toEqual({});
    const again = new Autotuner(true, store, await indexedDbStore(factory, 'gpu A').load());
    let calls = 0;
    expect(again.choose('bucket', ['slow', 'fast'], (v) => v, 'slow', () => Promise.resolve(++calls))).toBe('fast');
    expect(calls).toBe(0);
  });

  test('a later save replaces the table; entries that are not strings are ignored', async () => {
    const factory = new IDBFactory();
    await indexedDbStore(factory, 'gpu').save({ a: 'x', b: 'y' });
    await indexedDbStore(factory, 'gpu').save({ a: 'z' });
    expect(await indexedDbStore(factory, 'gpu').load()).toEqual({ a: 'z' });
    // A record written by something else, with a value that is not a variant key.
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = factory.open(TUNE_DATABASE, 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(TUNE_OBJECT_STORE, 'readwrite');
      tx.objectStore(TUNE_OBJECT_STORE).put({ a: 'ok', b: 3, c: null }, 'odd');
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
    db.close();
    expect(await indexedDbStore(factory, 'odd').load()).toEqual({ a: 'ok' });
  });

  test('storage that fails is an empty table and an ignored write', async () => {
    const broken = new IDBFactory();
    broken.open = () => {
      throw new DOMException('storage disabled', 'SecurityError');
    };
    const store = indexedDbStore(broken, 'gpu');
    expect(await store.load()).toEqual({});
    await expect(store.save({ a: 'b' })).resolves.toBeUndefined();
  });
});

test('the autotune option is checked', () => {
  expect(() => new Wgpu({ autotune: { file: 3 as unknown as string } })).toThrow(ArgumentError);
});

describeGpu('autotuned matmuls on this adapter', () => {
  test('real trials pick a variant per bucket, persist it, and results stay exact', async () => {
    const file = join(dir, 'gpu.json');
    const w = await Wgpu.create({ autotune: { file } });
    try {
      const M = 70, K = 50, N = 90;
      const a = Float32Array.from({ length: M * K }, (_, i) => ((i * 7) % 13) - 6);
      const b = Float32Array.from({ length: K * N }, (_, i) => ((i * 5) % 11) - 5);
      const ref = new Float64Array(M * N);
      for (let i = 0; i < M; i++) for (let k = 0; k < K; k++) for (let j = 0; j < N; j++) ref[i * N + j]! += a[i * K + k]! * b[k * N + j]!;
      const ta = fromData(w, a, { shape: [M, K] });
      const tb = fromData(w, b, { shape: [K, N] });
      const before = await ta.matmul(tb).toData();
      const table = await w.autotuned();
      expect(Object.keys(table).some((k) => k.startsWith('matmul|') && k.includes('128x128x64'))).toBe(true);
      // The winner was compiled for its trial: the op path does not compile it again.
      const ctx = w.exec(w.defaultDevice()).context!;
      const compiles = ctx.opCompiles;
      const after = await ta.matmul(tb).toData();
      expect(ctx.opCompiles).toBe(compiles);
      // Small integers: every variant is exact.
      expect(Array.from(before.values)).toEqual(Array.from(ref));
      expect(Array.from(after.values)).toEqual(Array.from(ref));
      expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')))).toEqual(Object.keys(table));
    } finally {
      await w.close();
    }
  });
  test('rows of whole vec4s: a split-K variant is timed with its second pass', async () => {
    const w = await Wgpu.create({ autotune: { file: null } });
    try {
      await w.init(w.defaultDevice());
      const ctx = w.exec(w.defaultDevice()).context!;
      // The trials this matmul offers the tuner, called here one by one (the tuner's own loop
      // stops at its time budget, which a loaded machine can reach before the last variants).
      const offered: Array<{ variants: readonly unknown[]; trial: (v: unknown) => Promise<number | undefined> }> = [];
      vi.spyOn(ctx.tuner, 'choose').mockImplementation((_bucket, variants, _key, fallback, trial) => {
        offered.push({ variants, trial });
        return fallback;
      });
      const timed: string[] = [];
      const time = ctx.timeProgram.bind(ctx);
      vi.spyOn(ctx, 'timeProgram').mockImplementation(async (program, sizes, params, groups) => {
        const ms = await time(program, sizes, params, groups);
        if (ms !== undefined) timed.push(program.key);
        return ms;
      });
      const M = 64, K = 256, N = 128;
      const ta = fromData(w, new Float32Array(M * K).fill(1), { shape: [M, K] });
      const tb = fromData(w, new Float32Array(K * N).fill(1), { shape: [K, N] });
      await ta.matmul(tb).toData();
      expect(offered.length).toBe(1);
      const { variants, trial } = offered[0]!;
      const splits = variants.filter((v): v is MatmulTile => typeof v === 'object' && v !== null && 'splitK' in v);
      expect(splits.map((t) => t.splitK).sort()).toEqual([2, 2, 4]);
      for (const t of splits) {
        timed.length = 0;
        const ms = await trial(t);
        expect(ms).toBeGreaterThan(0);
        expect(timed).toEqual([expect.stringContaining(`|split${t.splitK}`), `matmul-v4-splitk-sum|${t.splitK}`]);
      }
    } finally {
      vi.restoreAllMocks();
      await w.close();
    }
  });
});
