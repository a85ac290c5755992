/** float16 on WebGPU: storage of 2-byte elements (odd counts and offsets), the rounding kernel, the missing-feature error. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { defaultAdapterSource } from '../../src/backends/wgpu/adapter.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DTypeError } from '../../src/errors.js';
import { toHalfBits } from '../../src/ir/half.js';
import { fromData } from '../../src/index.js';
import { describeGpu } from './gpu.js';

describeGpu('float16 on the GPU', () => {
  let w: Wgpu;
  const cpu = new Cpu({ threads: 0 });
  beforeAll(async () => {
    w = await Wgpu.create();
  });
  afterAll(async () => {
    await w.close();
    await cpu.close();
  });

  test('odd lengths and odd offsets round-trip bit for bit', async () => {
    for (const n of [1, 2, 3, 5, 7, 33]) {
      const bits = Uint16Array.from({ length: n }, (_, i) => (i * 7919 + 3) & 0x7bff);
      const t = fromData(w, bits);
      expect(t.dtype).toBe('float16');
      const d = await t.toData();
      expect(Array.from(d.values, toHalfBits)).toEqual(Array.from(bits));
      if (n > 2) {
        // A view starting at an odd element: its bytes do not start on a word.
        const s = await t.slice([[1, n]]).toData();
        expect(Array.from(s.values, toHalfBits)).toEqual(Array.from(bits.subarray(1)));
        const c = await t.slice([[1, n]]).add(0).toData();
        expect(Array.from(c.values, toHalfBits)).toEqual(Array.from(bits.subarray(1)));
      }
    }
  });

  test('rounding to float16 matches the CPU bit for bit (ties, subnormals, overflow)', async () => {
    // Exact ties between neighbours, subnormal ties, values near the overflow threshold.
    const values = Float32Array.from([1 + 2 ** -11, 1 + 3 * 2 ** -11, 2 ** -25, 3 * 2 ** -25, 5 * 2 ** -26, 65519, 65520, -65536, 1e-30, -0, 2 ** -14 - 2 ** -25, 0.1, -3.14159, NaN]);
    const onGpu = await fromData(w, values).cast('float16').toData();
    const onCpu = await fromData(cpu, values).cast('float16').toData();
    expect(Array.from(onGpu.values, toHalfBits)).toEqual(Array.from(onCpu.values, toHalfBits));
    expect(Array.from(onCpu.values, toHalfBits)).toEqual(Array.from(values, toHalfBits));
  });

  test('a float16 tensor moves between the CPU and the GPU unchanged', async () => {
    const bits = Uint16Array.from([0x3c00, 0x0001, 0x7bff, 0xfc00, 0x8000]);
    const t = fromData(w, bits).mul(1);
    const back = fromData(cpu, (await t.toData()).values, { dtype: 'float16' });
    expect(Array.from((await back.toData()).values, toHalfBits)).toEqual(Array.from(bits));
  });
});

describeGpu('float16 without shader-f16', () => {
  test('is a DTypeError at the call that names the feature', async () => {
    const source = defaultAdapterSource();
    // The real adapter, reporting no features: the device is then made without shader-f16.
    const w = await Wgpu.create({
      requestAdapter: async (d) => {
        const a = await source.requestAdapter(d);
        if (!a) return null;
        const none = new Set<string>();
        return new Proxy(a, {
          get: (target, key) => {
            if (key === 'features') return none;
            const v: unknown = Reflect.get(target, key, target);
            return typeof v === 'function' ? v.bind(target) : v;
          },
        });
      },
    });
    try {
      expect(() => fromData(w, [1, 2, 3], { dtype: 'float16' })).toThrow(DTypeError);
      expect(() => fromData(w, [1, 2, 3]).cast('float16')).toThrow(/shader-f16/);
      expect(await fromData(w, [1, 2, 3]).sum().item()).toBe(6);
    } finally {
      await w.close();
      source.release();
    }
  });
});
