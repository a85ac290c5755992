/** The global batch staged once in shared memory for replicas in worker threads. */
import { describe, expect, test } from 'vitest';
import { SharedBatch, viewBatch } from '../../src/parallel/batch.js';

describe('SharedBatch', () => {
  test('stages every input in shared memory, keeps its buffer between steps and grows it when a batch is larger', () => {
    const staging = new SharedBatch();
    const x1 = Float32Array.from({ length: 12 }, (_, i) => i / 4);
    const y1 = Int32Array.from([3, 1, 4]);
    const m1 = Uint8Array.from([1, 0, 1]);
    const a = staging.stage({ x: { data: x1, shape: [3, 4] }, y: { data: y1, shape: [3] }, m: { data: m1, shape: [3] } });
    expect(a['x']!.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(a['x']!.data)).toEqual(Array.from(x1));
    expect(Array.from(a['y']!.data)).toEqual([3, 1, 4]);
    expect(Array.from(a['m']!.data)).toEqual([1, 0, 1]);
    expect(a['x']!.shape).toEqual([3, 4]);
    // A replica's rows are views of the staged copy, not of the caller's arrays.
    const rows = viewBatch(a, 1, 3);
    expect(Array.from(rows['x']!.data)).toEqual(Array.from(x1.subarray(4)));
    expect(rows['x']!.data.buffer).toBe(a['x']!.data.buffer);
    // The next step overwrites the same buffer; the caller's array is never touched.
    const x2 = Float32Array.from({ length: 8 }, (_, i) => -i);
    const b = staging.stage({ x: { data: x2, shape: [2, 4] }, y: { data: Int32Array.from([7, 8]), shape: [2] }, m: { data: Uint8Array.from([0, 0]), shape: [2] } });
    expect(b['x']!.data.buffer).toBe(a['x']!.data.buffer);
    expect(Array.from(b['x']!.data)).toEqual(Array.from(x2));
    expect(Array.from(x1)).toEqual(Array.from({ length: 12 }, (_, i) => i / 4));
    // A larger batch gets a larger buffer.
    const x3 = Float32Array.from({ length: 40 }, (_, i) => i);
    const c = staging.stage({ x: { data: x3, shape: [10, 4] } });
    expect(c['x']!.data.buffer.byteLength).toBeGreaterThanOrEqual(160);
    expect(Array.from(c['x']!.data)).toEqual(Array.from(x3));
  });

  test('a batch in shared memory already is read in place, not copied', () => {
    const staging = new SharedBatch();
    const x = new Float32Array(new SharedArrayBuffer(32));
    x.set([1, 2, 3, 4, 5, 6, 7, 8]);
    const y = new Int32Array(new SharedArrayBuffer(8));
    const batch = { x: { data: x, shape: [2, 4] }, y: { data: y, shape: [2] } };
    expect(staging.stage(batch)).toBe(batch);
    // One plain array among shared ones: the whole batch is staged.
    const mixed = { x: { data: x, shape: [2, 4] }, y: { data: Int32Array.from([1, 2]), shape: [2] } };
    const staged = staging.stage(mixed);
    expect(staged['x']!.data).not.toBe(x);
    expect(Array.from(staged['x']!.data)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
