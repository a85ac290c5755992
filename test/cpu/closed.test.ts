/** A closed Cpu: later ops fail with one DeviceError, inline or pool-sized; earlier tensors stay readable. */
import { describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DeviceError } from '../../src/errors.js';
import { fromData, random } from '../../src/tensor/creation.js';
import { Distribution } from '../../src/index.js';

describe('Cpu after close()', () => {
  test('every later op, creation ops too, fails with a DeviceError saying the backend was closed', async () => {
    const cpu = new Cpu({ threads: 2, inlineThreshold: 0 });
    const small = fromData(cpu, [1, 2, 3]);
    const big = random(cpu, [256, 256], Distribution.Default);
    await big.toData();
    await cpu.close();
    for (const t of [small.add(1), big.matmul(big), fromData(cpu, [4, 5])]) {
      const e = await t.toData().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(DeviceError);
      expect(String(e)).toMatch(/the CPU backend cpu was closed.*create a new one/);
      expect(String(e)).not.toMatch(/later ops run normally/);
    }
    // Host memory outlives the pool: values computed before close() still read.
    expect(Array.from((await small.toData()).values)).toEqual([1, 2, 3]);
    expect((await big.toData()).values.length).toBe(256 * 256);
  });

  test('an inline-only Cpu refuses later ops too; ops queued before close() resolves still run', async () => {
    const cpu = new Cpu({ threads: 0 });
    const x = fromData(cpu, [1, 2]);
    const closing = cpu.close();
    const queued = x.mul(2);
    await closing;
    expect(Array.from((await queued.toData()).values)).toEqual([2, 4]);
    await expect(x.add(1).toData()).rejects.toBeInstanceOf(DeviceError);
  });
});
