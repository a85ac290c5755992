/** Datasets, seeded batching, collation, the worker loader, and batches to tensors. */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { defaultCollate } from '../../src/data/collate.js';
import { MappedDataset, TensorDataset, randomSplit, type Dataset } from '../../src/data/dataset.js';
import { hostTensor, toTensors } from '../../src/data/host-tensor.js';
import { DataLoader } from '../../src/data/loader.js';
import { WorkerDataLoader } from '../../src/data/worker-loader.js';
import { ArgumentError } from '../../src/errors.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

const range = (n: number): Dataset<number> => ({ length: n, get: (i) => i });

async function epoch<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const b of it) out.push(b);
  return out;
}

describe('DataLoader', () => {
  it('batches in order, with a short last batch or without it', async () => {
    const plain = await epoch(new DataLoader(range(7), { batchSize: 3, collate: (s) => [...s] }));
    expect(plain).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    const dropped = new DataLoader(range(7), { batchSize: 3, dropLast: true, collate: (s) => [...s] });
    expect(dropped.length).toBe(2);
    expect(await epoch(dropped)).toEqual([[0, 1, 2], [3, 4, 5]]);
  });

  it('shuffles with its seed: the same seed gives the same orders, each epoch a new one', async () => {
    const make = (seed: number) => new DataLoader(range(50), { batchSize: 50, shuffle: true, seed, collate: (s) => [...s] });
    const a = make(1);
    const b = make(1);
    const a1 = (await epoch(a))[0]!;
    const a2 = (await epoch(a))[0]!;
    expect((await epoch(b))[0]).toEqual(a1);
    expect(a2).not.toEqual(a1);
    expect((await epoch(make(2)))[0]).not.toEqual(a1);
    expect([...a1].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('every epoch partitions the dataset (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 9 }), fc.boolean(), fc.boolean(), fc.integer(), fc.nat(5), (n, batchSize, dropLast, shuffle, seed, e) => {
        const loader = new DataLoader(range(n), { batchSize, dropLast, shuffle, seed });
        const batches = loader.plan(e);
        expect(batches.length).toBe(loader.length);
        const seen = batches.flatMap((b) => Array.from(b));
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.length).toBe(dropLast ? n - (n % batchSize) : n);
        batches.forEach((b, i) => expect(b.length).toBe(i < batches.length - 1 || dropLast || n % batchSize === 0 ? batchSize : n % batchSize));
      }),
    );
  });

  it('collates host tensors, typed arrays, numbers and nested objects', async () => {
    const ds = new TensorDataset({ x: hostTensor(Float32Array.from([1, 2, 3, 4, 5, 6]), [3, 2]), y: hostTensor(Int32Array.from([7, 8, 9])) });
    expect(ds.get(1).x.shape).toEqual([2]);
    const [first] = await epoch(new DataLoader(ds, { batchSize: 2 }));
    expect(first!.x).toEqual({ dtype: 'float32', shape: [2, 2], data: Float32Array.from([1, 2, 3, 4]) });
    expect(first!.y).toEqual({ dtype: 'int32', shape: [2], data: Int32Array.from([7, 8]) });
    const mixed = defaultCollate([{ a: 1, b: [Int32Array.of(1, 2)] }, { a: 2.5, b: [Int32Array.of(3, 4)] }]);
    expect(mixed.a).toEqual({ dtype: 'float32', shape: [2], data: Float32Array.from([1, 2.5]) });
    expect(mixed.b[0]).toEqual({ dtype: 'int32', shape: [2, 2], data: Int32Array.from([1, 2, 3, 4]) });
    expect(() => defaultCollate([{ x: hostTensor(new Float32Array(2)) }, { x: hostTensor(new Float32Array(3)) }])).toThrow(/samples differ/);
    expect(() => defaultCollate(['a'])).toThrow(ArgumentError);
    expect(() => new DataLoader(range(3), { batchSize: 0 })).toThrow(/batchSize must be a positive integer/);
  });

  it('datasets: mapped, split without overlap, checked indices', () => {
    const doubled = new MappedDataset(range(4), (v) => 2 * v);
    expect(doubled.get(3)).toBe(6);
    const [a, b] = randomSplit(range(10), [7, 3], 5);
    const all = [...Array.from({ length: 7 }, (_, i) => a!.get(i)), ...Array.from({ length: 3 }, (_, i) => b!.get(i))];
    expect(all.sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(() => randomSplit(range(10), [5, 4])).toThrow(ArgumentError);
    expect(() => new TensorDataset({ x: hostTensor(new Float32Array(4), [2, 2]), y: hostTensor(new Int32Array(3)) })).toThrow(/same first dim/);
  });

  it('toTensors makes tensors of each host tensor\'s kind', async () => {
    const batch = { x: hostTensor(Float32Array.from([1, 2]), [1, 2]), y: hostTensor(Int32Array.of(4)), tag: 'keep' };
    const t = toTensors(cpu, batch);
    expect(t.x.dtype).toBe('float32');
    expect(t.y.dtype).toBe('int32');
    expect(t.x.shape).toEqual([1, 2]);
    expect(await t.y.item()).toBe(4);
    expect(t.tag).toBe('keep');
  });
});

describe('WorkerDataLoader', () => {
  const module = new URL('./fixtures/squares.ts', import.meta.url);

  it('gives the batches the in-thread loader gives, for the same options, epoch after epoch', async () => {
    const options = { batchSize: 4, shuffle: true, seed: 9, dropLast: false };
    const worker = await WorkerDataLoader.create<{ x: { data: Float32Array; shape: number[] }; y: { data: Int32Array } }>({ module, export: 'squares', args: { n: 10 }, prefetch: 2, ...options });
    try {
      const { squares } = await import('./fixtures/squares.js');
      const local = new DataLoader(squares({ n: 10 }), options);
      expect(worker.length).toBe(3);
      for (let e = 0; e < 2; e++) {
        const [w, l] = [await epoch(worker), await epoch(local)];
        expect(w.map((b) => Array.from(b.x.data))).toEqual(l.map((b) => Array.from(b.x.data)));
        expect(w.map((b) => Array.from(b.y.data))).toEqual(l.map((b) => Array.from(b.y.data)));
        expect(w[0]!.x.shape).toEqual([4, 2]);
      }
    } finally {
      await worker.close();
    }
  });

  it('reports a failing sample, and a module without the factory', async () => {
    const worker = await WorkerDataLoader.create({ module, export: 'squares', args: { n: 6, failAt: 4 }, batchSize: 2 });
    try {
      await expect(epoch(worker)).rejects.toThrow(/the dataset failed on the worker: sample 4 is broken/);
    } finally {
      await worker.close();
    }
    await expect(WorkerDataLoader.create({ module, export: 'nothing', batchSize: 2 })).rejects.toThrow(/exports no function 'nothing'/);
  });

  it('refuses options without a module, or with a batch size that is not a number, before starting a worker', async () => {
    const create = WorkerDataLoader.create as (o: unknown) => Promise<unknown>;
    for (const bad of [undefined, {}, { module: 5 }, { module: '' }]) {
      await expect(create(bad)).rejects.toThrow(ArgumentError);
      await expect(create(bad)).rejects.toThrow(/WorkerDataLoader: options.module must be the dataset module's URL or absolute path/);
    }
    await expect(create({ module, batchSize: '4' })).rejects.toThrow(/WorkerDataLoader: batchSize must be a positive integer, got "4"/);
  });
});
