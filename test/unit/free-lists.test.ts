/**
 * The pools' free lists: at most the bound kept, the buffers freed longest ago let go first
 * (whatever their class), the most recently freed of a class taken first; and the GPU pool's use
 * of them after large buffers filled the bound (later small buffers are still reused, not made anew).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BufferPool } from '../../src/backends/wgpu/buffers.js';
import { SharedPoolAllocator } from '../../src/backends/cpu/allocator.js';
import { FreeLists } from '../../src/memory/free-lists.js';

interface Item {
  readonly id: number;
  readonly size: number;
}

describe('FreeLists', () => {
  test('matches the model over long runs too (past the queues\' compaction points)', () => {
    // A deterministic generator: thousands of puts and takes over a few classes.
    let seed = 11;
    const next = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
    for (const max of [64 * 300, 64 * 3000]) {
      const dropped: Item[] = [];
      const lists = new FreeLists<Item>(max, (b) => dropped.push(b));
      const model: Item[] = [];
      let modelBytes = 0;
      let dropCount = 0;
      for (let i = 0; i < 20000; i++) {
        const size = [16, 32, 64][Math.floor(next() * 3)]!;
        if (next() < 0.6) {
          const item = { id: i, size };
          lists.put(item, size);
          model.push(item);
          modelBytes += size;
          while (modelBytes > max) {
            const gone = model.shift()!;
            modelBytes -= gone.size;
            expect(dropped[dropCount++]).toBe(gone);
          }
        } else {
          let at = -1;
          for (let k = model.length - 1; k >= 0; k--) if (model[k]!.size === size) (at = k), (k = -1);
          const want = at >= 0 ? model.splice(at, 1)[0] : undefined;
          if (want) modelBytes -= want.size;
          expect(lists.take(size)).toBe(want);
        }
        expect(lists.bytes).toBe(modelBytes);
      }
      expect(dropped).toHaveLength(dropCount);
    }
  });

  test('matches a model: kept bytes within the bound, oldest evicted first, newest of a class taken first', () => {
    const sizes = [16, 32, 64, 256];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), size: fc.constantFrom(...sizes, 2048) }),
      fc.record({ kind: fc.constant('take' as const), size: fc.constantFrom(...sizes) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fc.constantFrom(0, 100, 300, 1000), (ops, max) => {
        const dropped: Item[] = [];
        const lists = new FreeLists<Item>(max, (b) => dropped.push(b));
        // The model: kept items in the order freed.
        let model: Item[] = [];
        const modelDropped: Item[] = [];
        let next = 0;
        for (const o of ops) {
          if (o.kind === 'put') {
            const item = { id: next++, size: o.size };
            lists.put(item, o.size);
            if (o.size > max) modelDropped.push(item);
            else {
              model.push(item);
              while (model.reduce((a, b) => a + b.size, 0) > max) modelDropped.push(model.shift()!);
            }
          } else {
            const got = lists.take(o.size);
            const want = model.filter((b) => b.size === o.size).at(-1);
            expect(got).toBe(want);
            if (want) model = model.filter((b) => b !== want);
          }
          expect(lists.bytes).toBe(model.reduce((a, b) => a + b.size, 0));
          expect(lists.bytes).toBeLessThanOrEqual(max);
          expect(dropped).toEqual(modelDropped);
        }
        lists.clear();
        expect(lists.bytes).toBe(0);
        expect(new Set(dropped.map((b) => b.id)).size).toBe(dropped.length);
        expect(dropped.length).toBe(modelDropped.length + model.length);
      }),
    );
  });
});

/** A device whose buffers record whether they were destroyed. */
function fakeDevice(): { device: GPUDevice; made: Array<{ size: number; destroyed: boolean }> } {
  const made: Array<{ size: number; destroyed: boolean }> = [];
  const device = {
    createBuffer: ({ size }: { size: number }) => {
      const rec = { size, destroyed: false };
      made.push(rec);
      return { size, destroy: () => (rec.destroyed = true), rec };
    },
  };
  // The pool calls createBuffer and destroy only.
  return { device: device as unknown as GPUDevice, made };
}

describe('BufferPool', () => {
  test('large buffers that filled the bound make way: a loop of small tensors afterwards reuses its buffers', () => {
    const { device, made } = fakeDevice();
    const pool = new BufferPool(device, 0, 1 << 30, 4 << 20);
    // Two 2 MiB tensors fill the 4 MiB bound once freed.
    const big = [pool.acquire(2 << 20), pool.acquire(2 << 20)];
    for (const b of big) pool.release(b, false);
    expect(pool.stats().pooledBytes).toBe(4 << 20);
    // A step that makes and frees three 64 KiB tensors, ten times.
    for (let step = 0; step < 10; step++) {
      const bufs = [pool.acquire(65536), pool.acquire(65536), pool.acquire(65536)];
      for (const b of bufs) pool.release(b, false);
    }
    // Three small buffers made in all (the first step), and one large buffer let go for them.
    expect(made.filter((m) => m.size === 65536)).toHaveLength(3);
    expect(made.filter((m) => m.size === 2 << 20 && m.destroyed)).toHaveLength(1);
    expect(pool.stats().pooledBytes).toBeLessThanOrEqual(4 << 20);
  });

  test('a buffer let go while its batch is open is destroyed only after the submit', () => {
    const { device, made } = fakeDevice();
    const pool = new BufferPool(device, 0, 1 << 30, 1 << 20);
    const a = pool.acquire(1 << 20);
    pool.release(a, true);
    const b = pool.acquire(1 << 19);
    // b's class differs: freeing it pushes a (freed in this open batch) out of the bound.
    pool.release(b, true);
    expect(made[0]!.destroyed).toBe(false);
    pool.commit();
    expect(made[0]!.destroyed).toBe(true);
    expect(made[1]!.destroyed).toBe(false);
  });
});

describe('SharedPoolAllocator', () => {
  test('after large arrays filled the bound, small ones freed later are kept and reused', () => {
    const alloc = new SharedPoolAllocator(1 << 20);
    const big = alloc.alloc('float32', 1 << 18); // 1 MiB: the whole bound
    alloc.free(big);
    const first = alloc.alloc('float32', 1000);
    alloc.free(first);
    const again = alloc.alloc('float32', 1000);
    expect(again.buffer).toBe(first.buffer);
    expect(alloc.stats().pooledBytes).toBe(0);
  });
});
