/** WorkerDataLoader when things go wrong: a worker that exits, close() mid-epoch, bad prefetch, batches that view the dataset. */
import { describe, expect, it } from 'vitest';
import { WorkerDataLoader } from '../../src/data/worker-loader.js';
import { ArgumentError, KernelError } from '../../src/errors.js';

const squares = new URL('./fixtures/squares.ts', import.meta.url);
const prebatched = new URL('./fixtures/prebatched.ts', import.meta.url);

async function epoch<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const b of it) out.push(b);
  return out;
}

describe('WorkerDataLoader failures', () => {
  it('rejects pending and later batches with a KernelError naming the exit code when the worker thread exits', async () => {
    const loader = await WorkerDataLoader.create({ module: squares, export: 'squares', args: { n: 10, exitAt: 5 }, batchSize: 4 });
    try {
      const got: unknown[] = [];
      const run = (async () => {
        for await (const b of loader) got.push(b);
      })();
      await expect(run).rejects.toThrow(KernelError);
      await expect(run).rejects.toThrow(/DataLoader worker \(thread \d+\) exited unexpectedly with exit code 3/);
      // Samples 4..7 hold the exiting one: only the first batch came.
      expect(got.length).toBe(1);
      // A new epoch fails at once instead of waiting on a thread that is gone.
      await expect(epoch(loader)).rejects.toThrow(/exited unexpectedly with exit code 3/);
    } finally {
      await loader.close();
    }
  });

  it('after close() mid-epoch, the next batch rejects promptly, with no unhandled rejection of prefetched ones', async () => {
    for (const prefetch of [0, 2]) {
      const loader = await WorkerDataLoader.create<{ x: { data: Float32Array } }>({ module: squares, export: 'squares', args: { n: 8 }, batchSize: 1, prefetch });
      const it = loader[Symbol.asyncIterator]();
      const first = await it.next();
      expect(Array.from(first.value!.x.data)).toEqual([0, 0]);
      await loader.close();
      await expect(it.next()).rejects.toThrow(ArgumentError);
      await expect(epoch(loader)).rejects.toThrow(/WorkerDataLoader: the loader is closed/);
    }
  });

  it('refuses a prefetch that is not an integer >= 0', async () => {
    const create = WorkerDataLoader.create as (o: unknown) => Promise<unknown>;
    for (const bad of [NaN, -1, 1.5, '2', Infinity]) {
      await expect(create({ module: squares, export: 'squares', args: { n: 4 }, prefetch: bad })).rejects.toThrow(/WorkerDataLoader: prefetch must be an integer >= 0/);
    }
  });

  it('copies batches that view the dataset\'s memory instead of detaching its buffer, epoch after epoch', async () => {
    const loader = await WorkerDataLoader.create<{ x: { data: Float32Array; shape: number[] } }>({ module: prebatched, args: { n: 3 }, batchSize: 1 });
    try {
      for (let e = 0; e < 2; e++) {
        const got = await epoch(loader);
        expect(got.map((b) => Array.from(b.x.data))).toEqual([[0, 1], [2, 3], [4, 5]]);
        expect(got[0]!.x.shape).toEqual([2]);
        // Just the row crossed, not the dataset's whole array.
        expect(got[0]!.x.data.buffer.byteLength).toBe(8);
      }
    } finally {
      await loader.close();
    }
  });
});
