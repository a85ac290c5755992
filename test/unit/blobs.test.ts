/** Upload payloads reused after their executor copied them: values never leak between uploads. */
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { fromData } from '../../src/index.js';
import { BlobStore } from '../../src/runtime/blobs.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

describe('BlobStore reuse', () => {
  test('a recycled large array is handed out again for the same dtype and length only', () => {
    const b = new BlobStore();
    const a = b.alloc('float32', 1 << 16);
    b.recycle(a, 'float32');
    expect(b.pooledBytes).toBe(a.byteLength);
    expect(b.alloc('float32', (1 << 16) + 1)).not.toBe(a);
    expect(b.alloc('int32', 1 << 16)).not.toBe(a);
    expect(b.alloc('float32', 1 << 16)).toBe(a);
    expect(b.pooledBytes).toBe(0);
  });

  test('small arrays, views and arrays over the bound are not kept; the pool stays bounded', () => {
    const b = new BlobStore();
    b.recycle(new Float32Array(100), 'float32');
    b.recycle(new Float32Array(1 << 17).subarray(1), 'float32');
    expect(b.pooledBytes).toBe(0);
    for (let i = 0; i < 40; i++) b.recycle(new Float32Array(1 << 18), 'float32'); // 1 MiB each
    expect(b.pooledBytes).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(b.pooledBytes).toBeGreaterThan(0);
  });

  test('repeated large uploads through a backend read back exactly what each was given', async () => {
    const n = 1 << 16;
    for (let k = 0; k < 4; k++) {
      const src = Float32Array.from({ length: n }, (_, i) => (i % 97) * (k + 1) - k);
      const t = fromData(cpu, src, { shape: [n] });
      src.fill(-7); // the caller's array changes after the call: the tensor keeps the values given
      const got = (await t.toData()).values;
      t.dispose();
      for (const i of [0, 1, 96, 97, n - 1]) expect(got[i]).toBe((i % 97) * (k + 1) - k);
    }
    expect(cpu.runtime.blobs.pooledBytes).toBeGreaterThan(0);
  });
});
