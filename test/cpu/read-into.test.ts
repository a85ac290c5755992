/** CpuExecutor.readInto: a float32 tensor's values copied into a caller's array at an index, no array in between. */
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError } from '../../src/errors.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

function readInto(t: Tensor<Cpu>, target: Float32Array, at: number): Promise<boolean> {
  return cpu.runtime.scheduler.use(t.id, 'toData', (storage, ex) => {
    expect(ex).toBe(cpu.exec);
    return ex.readInto?.(storage, target, at) ?? false;
  });
}

describe('CpuExecutor.readInto', () => {
  test('contiguous and strided views land at the index, the rest of the target untouched', async () => {
    const values = Array.from({ length: 6 }, (_, i) => i + 0.5);
    const a = fromData(cpu, values, { shape: [2, 3] });
    const target = new Float32Array(10).fill(-1);
    expect(await readInto(a, target, 2)).toBe(true);
    expect(Array.from(target)).toEqual([-1, -1, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, -1, -1]);
    // A transposed view: row-major values of the view, as toData gives them.
    const t = a.transpose();
    const out = new Float32Array(6);
    expect(await readInto(t, out, 0)).toBe(true);
    expect(Array.from(out)).toEqual(Array.from((await t.toData()).values));
    expect(Array.from(out)).toEqual([0.5, 3.5, 1.5, 4.5, 2.5, 5.5]);
    for (const x of [a, t]) x.dispose();
  });

  test('another dtype is declined; a range past the target is an ArgumentError', async () => {
    const i = fromData(cpu, Int32Array.from([1, 2, 3]));
    expect(await readInto(i, new Float32Array(3), 0)).toBe(false);
    const f = fromData(cpu, [1, 2, 3]);
    await expect(readInto(f, new Float32Array(4), 2)).rejects.toBeInstanceOf(ArgumentError);
    await expect(readInto(f, new Float32Array(4), -1)).rejects.toBeInstanceOf(ArgumentError);
    for (const x of [i, f]) x.dispose();
  });
});
