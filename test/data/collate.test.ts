/** defaultCollate's kinds (bytes, other typed arrays, booleans) and its errors for samples that do not match. */
import { describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { defaultCollate } from '../../src/data/collate.js';
import { hostTensor, toTensors } from '../../src/data/host-tensor.js';
import { ArgumentError } from '../../src/errors.js';

// Untyped callers pass anything.
const collate = (samples: unknown[]): unknown => defaultCollate(samples);

describe('defaultCollate kinds', () => {
  it('collates Uint8Array bytes to int32 values 0..255, never bool', async () => {
    expect(defaultCollate([new Uint8Array([0, 128, 255]), new Uint8Array([3, 4, 5])])).toEqual({ dtype: 'int32', shape: [2, 3], data: Int32Array.from([0, 128, 255, 3, 4, 5]) });
    const cpu = new Cpu({ threads: 0 });
    try {
      const t = toTensors(cpu, defaultCollate([new Uint8Array([200, 1])]));
      expect(t.dtype).toBe('int32');
      expect(await t.toArray()).toEqual([[200, 1]]);
    } finally {
      await cpu.close();
    }
  });

  it('stacks Float64Array as float32 and the small integer arrays as int32', () => {
    expect(collate([new Float64Array([1.5, 2]), new Float64Array([3, 4.25])])).toEqual({ dtype: 'float32', shape: [2, 2], data: Float32Array.from([1.5, 2, 3, 4.25]) });
    for (const A of [Int16Array, Int8Array, Uint16Array, Uint8ClampedArray]) {
      expect(collate([A.from([1, 2]), A.from([3, 100])])).toEqual({ dtype: 'int32', shape: [2, 2], data: Int32Array.from([1, 2, 3, 100]) });
    }
    expect(collate([Int16Array.from([-7])])).toEqual({ dtype: 'int32', shape: [1, 1], data: Int32Array.from([-7]) });
  });

  it('collates booleans to a bool tensor, and numbers (integers too) to float32', () => {
    expect(collate([true, false, true])).toEqual({ dtype: 'bool', shape: [3], data: Uint8Array.from([1, 0, 1]) });
    expect(defaultCollate([1, 2, 3])).toEqual({ dtype: 'float32', shape: [3], data: Float32Array.from([1, 2, 3]) });
  });
});

describe('defaultCollate errors', () => {
  it('refuses ragged lists, naming the sample and the field', () => {
    expect(() => collate([[1, 2], [3, 4, 5]])).toThrow(ArgumentError);
    expect(() => collate([[1, 2], [3, 4, 5]])).toThrow(/defaultCollate: samples differ at the samples: sample 1 has an array of 3 where sample 0 has an array of 2/);
    expect(() => collate([{ a: { b: [1, 2] } }, { a: { b: [1, 2] } }, { a: { b: [1] } }])).toThrow(/samples differ at field \.a\.b: sample 2 has an array of 1/);
  });

  it('refuses objects with other keys, naming the missing and extra ones', () => {
    expect(() => collate([{ a: 1 }, { a: 2, b: 3 }])).toThrow(/samples differ at the samples: sample 1 has 'b' that sample 0 lacks/);
    expect(() => collate([{ a: 1, b: 2 }, { a: 2 }])).toThrow(/samples differ at the samples: sample 1 lacks 'b'/);
  });

  it('refuses mixed kinds and typed arrays of other types', () => {
    expect(() => collate([1, 'x'])).toThrow(/samples differ at the samples: sample 1 has "x" \(a string\) where sample 0 has a number/);
    expect(() => collate([{ y: 1 }, { y: true }])).toThrow(/samples differ at field \.y: sample 1 has a boolean where sample 0 has a number/);
    expect(() => collate([[Float32Array.of(1)], [Int32Array.of(1)]])).toThrow(/samples differ at field \[0\]: sample 1 has an Int32Array of 1 where sample 0 has a Float32Array of 1/);
    expect(() => collate([null, null])).toThrow(/cannot collate null/);
    expect(() => collate([new Map([['a', 1]])])).toThrow(/cannot collate a Map/);
  });

  it('refuses host tensors whose data does not fit their dtype and shape', () => {
    expect(() => collate([{ dtype: 'float32', shape: [3], data: new Float32Array(1) }])).toThrow(/sample 0 at the samples is a float32 host tensor \[3\] whose data is a Float32Array of 1/);
    expect(() => collate([{ dtype: 'int32', shape: [2], data: new Float32Array(2) }])).toThrow(ArgumentError);
  });
});

describe('hostTensor of bytes', () => {
  it('makes int32 values of a Uint8Array, or a bool mask when asked', () => {
    expect(hostTensor(new Uint8Array([0, 200]))).toEqual({ dtype: 'int32', shape: [2], data: Int32Array.from([0, 200]) });
    const mask = hostTensor(new Uint8Array([1, 0, 1, 1]), [2, 2], { dtype: 'bool' });
    expect(mask).toEqual({ dtype: 'bool', shape: [2, 2], data: Uint8Array.from([1, 0, 1, 1]) });
    expect(defaultCollate([mask]).dtype).toBe('bool');
    const loose = hostTensor as (d: unknown, s?: unknown, o?: unknown) => unknown;
    expect(() => loose(new Float32Array(1), undefined, { dtype: 'bool' })).toThrow(/hostTensor: dtype "bool" \(a string\) is not one a Float32Array can take/);
    expect(() => loose(new Uint8Array(1), undefined, { dtyp: 'bool' })).toThrow(/unknown option 'dtyp'/);
  });
});
