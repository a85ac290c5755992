/** Loader options and datasets checked at construction, seeds past 32 bits, and randomSplit by fractions. */
import { describe, expect, it } from 'vitest';
import { randomSplit, type Dataset } from '../../src/data/dataset.js';
import { DataLoader } from '../../src/data/loader.js';
import { WorkerDataLoader } from '../../src/data/worker-loader.js';
import { ArgumentError } from '../../src/errors.js';

const range = (n: number): Dataset<number> => ({ length: n, get: (i) => i });
// Untyped callers (plain JavaScript) pass anything.
const loader = (ds: unknown, options: unknown): unknown => Reflect.construct(DataLoader, [ds, options]);

describe('DataLoader options', () => {
  it('refuses unknown keys, naming the near one', () => {
    expect(() => loader(range(4), { batch_size: 2 })).toThrow(ArgumentError);
    expect(() => loader(range(4), { batch_size: 2 })).toThrow(/DataLoader: unknown option 'batch_size' \(did you mean 'batchSize'\?\)/);
    expect(() => loader(range(4), { drop_last: true })).toThrow(/did you mean 'dropLast'/);
    expect(() => loader(range(4), { numWorkers: 2 })).toThrow(/unknown option 'numWorkers'/);
  });

  it('refuses shuffle and dropLast that are not booleans, a seed that is not a safe integer, a collate that is not a function', () => {
    expect(() => loader(range(4), { shuffle: 'false' })).toThrow(/DataLoader: shuffle must be true or false, got "false"/);
    expect(() => loader(range(4), { dropLast: 1 })).toThrow(/DataLoader: dropLast must be true or false, got 1/);
    for (const seed of [NaN, 1.7, 'abc', 2 ** 53, Infinity]) expect(() => loader(range(4), { shuffle: true, seed })).toThrow(/DataLoader: seed must be an integer/);
    expect(() => loader(range(4), { collate: 5 })).toThrow(/DataLoader: collate must be a function/);
  });

  it('refuses a dataset without length and get, or with a length that is not an integer >= 0', () => {
    expect(() => loader({}, {})).toThrow(/DataLoader: DataLoader takes a dataset \(an object with length and get\(i\)\)/);
    expect(() => loader({ length: 3 }, {})).toThrow(ArgumentError);
    expect(() => loader(null, {})).toThrow(ArgumentError);
    for (const length of [NaN, 2.5, -1]) expect(() => loader({ length, get: () => 0 }, {})).toThrow(/DataLoader: the dataset's length must be an integer >= 0/);
  });

  it('gives seeds that differ past 32 bits or in sign different orders, and keeps seeds below 2^32 as they were', () => {
    const order = (seed: number) => new DataLoader(range(20), { batchSize: 20, shuffle: true, seed }).plan(0)[0]!.join(',');
    expect(order(2 ** 32)).not.toBe(order(0));
    expect(order(-1)).not.toBe(order(2 ** 32 - 1));
    expect(order(2 ** 40 + 3)).toBe(order(2 ** 40 + 3));
  });
});

describe('WorkerDataLoader options', () => {
  it('refuses unknown keys and bad values before starting a worker', async () => {
    const create = WorkerDataLoader.create as (o: unknown) => Promise<unknown>;
    const module = new URL('./fixtures/squares.ts', import.meta.url);
    await expect(create({ module, batch_size: 5 })).rejects.toThrow(/WorkerDataLoader: unknown option 'batch_size' \(did you mean 'batchSize'\?\)/);
    await expect(create({ module, shuffle: 'yes' })).rejects.toThrow(/WorkerDataLoader: shuffle must be true or false/);
    await expect(create({ module, seed: 0.5 })).rejects.toThrow(/WorkerDataLoader: seed must be an integer/);
    await expect(create({ module, export: 3 })).rejects.toThrow(/WorkerDataLoader: export must be the factory's name/);
  });
});

describe('randomSplit', () => {
  it('refuses a seed that is not a safe integer and a dataset without length and get', () => {
    const split = randomSplit as (ds: unknown, sizes: unknown, seed?: unknown) => unknown;
    expect(() => split(range(4), [2, 2], 'x')).toThrow(/randomSplit: seed must be an integer/);
    expect(() => split(range(4), [2, 2], 1.5)).toThrow(/randomSplit: seed must be an integer/);
    expect(() => split({ length: 4 }, [2, 2])).toThrow(/randomSplit: randomSplit takes a dataset/);
  });

  it('splits by fractions adding up to 1 as torch: floor each, the remainder one by one to the first splits', () => {
    // 10 * [0.8, 0.2] = [8, 2]; 10 * [0.33, 0.33, 0.34] floors to [3, 3, 3], one left for the first: [4, 3, 3].
    expect(randomSplit(range(10), [0.8, 0.2]).map((s) => s.length)).toEqual([8, 2]);
    expect(randomSplit(range(10), [0.33, 0.33, 0.34]).map((s) => s.length)).toEqual([4, 3, 3]);
    // 7 * [0.25] * 4 floors to [1, 1, 1, 1]; three left: [2, 2, 2, 1].
    const parts = randomSplit(range(7), [0.25, 0.25, 0.25, 0.25], 3);
    expect(parts.map((s) => s.length)).toEqual([2, 2, 2, 1]);
    const all = parts.flatMap((s) => Array.from(s.indices));
    expect([...all].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(() => randomSplit(range(10), [0.5, 0.6])).toThrow(/fractions adding up to 1/);
  });
});
