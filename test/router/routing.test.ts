import { afterAll, describe, expect, expectTypeOf, test } from 'vitest';
import type { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { arange, fromData, random, zeros } from '../../src/tensor/creation.js';
import type { Router } from '../../src/router/router.js';
import { CPU1, cpuRouter, recordEvents } from './helpers.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const router = cpuRouter();
afterAll(() => router.close());
const D0 = MultiDevice.B1(CpuDevice.Cpu);
const D1 = MultiDevice.B2(CPU1);

describe('Router<[Cpu, Cpu]>', () => {
  test('is typed from its tuple and named after it', () => {
    expectTypeOf(router).toEqualTypeOf<Router<[Cpu, Cpu]>>();
    expectTypeOf(router.defaultDevice()).toEqualTypeOf<MultiDevice<0, CpuDevice> | MultiDevice<1, CpuDevice>>();
    expectTypeOf(router.device(1, CPU1)).toEqualTypeOf<MultiDevice<1, CpuDevice>>();
    expect(router.name).toBe('router<cpu, cpu>');
    expect(router.backends.map((b) => b.defaultDevice().key)).toEqual(['cpu', 'cpu:1']);
  });

  test('MultiDevice tags are plain data keyed by the inner device', () => {
    expect(D1).toEqual({ backend: 'router', key: 'cpu:1', index: 1, inner: { backend: 'cpu', key: 'cpu:1' } });
    expect(structuredClone(D1)).toEqual(D1);
    expect(JSON.parse(JSON.stringify(D1))).toEqual(D1);
    expect(router.device(1, CPU1)).toEqual(D1);
    expect(MultiDevice.describe(D1)).toBe('B2(cpu:1)');
  });

  test('each op runs on the device of its inputs (seen in events$)', async () => {
    const rec = recordEvents();
    const x = fromData(router, [1, 2, 3], { device: D0 });
    const y = fromData(router, [10, 20, 30], { device: D1 });
    const sx = x.mul(2).sum();
    const sy = y.exp().log().sum();
    expect(sx.device).toEqual(D0);
    expect(sy.device).toEqual(D1);
    expect(await sx.item()).toBe(12);
    expect(await sy.item()).toBeCloseTo(60, 4);
    rec.stop();
    expect(rec.on('fromData')).toEqual(['cpu', 'cpu:1']);
    expect(rec.on('mulScalar')).toEqual(['cpu']);
    expect(rec.on('exp')).toEqual(['cpu:1']);
    expect(rec.on('log')).toEqual(['cpu:1']);
    expect(rec.on('sum')).toEqual(['cpu', 'cpu:1']);
  });

  test('creation ops use options.device, else the default device', () => {
    expect(zeros(router, [2]).device).toEqual(D0);
    expect(arange(router, 4, undefined, 1, { device: D1 }).device).toEqual(D1);
    expect(random(router, [3], undefined, { device: D1 }).device).toEqual(D1);
    expect(router.on(D1).defaultDevice()).toEqual(D1);
    expect(zeros(router.on(D1), [2]).device).toEqual(D1);
  });

  test('views and multi-output ops keep the device', async () => {
    const x = fromData(router, [[1, 2, 3], [4, 5, 6]], { device: D1 });
    const parts = x.transpose().split(1, 0);
    expect(parts.map((p) => p.device.key)).toEqual(['cpu:1', 'cpu:1', 'cpu:1']);
    expect(await parts[2]!.toArray()).toEqual([[3, 6]]);
  });

  test('parseDevice reads command-line strings', () => {
    expect(router.parseDevice('cpu')).toEqual(D0);
    expect(router.parseDevice(' CPU:1 ')).toEqual(D1);
    expect(router.deviceStrings()).toEqual(['cpu', 'cpu:1']);
  });

  test('seed, randomStream and memory go to the named device', async () => {
    // Each tensor freed once read: left to the finalizer, one could be freed while the counts below are taken.
    const read = async (t: Tensor<typeof router>) => {
      const data = await t.toData();
      t.dispose();
      return data;
    };
    router.seed(5, D1);
    const a = await read(random(router, [4], undefined, { device: D1 }));
    router.seed(5, D1);
    const b = await read(random(router, [4], undefined, { device: D1 }));
    expect(Array.from(b.values)).toEqual(Array.from(a.values));
    router.seed(9);
    const c0 = await read(random(router, [4], undefined, { device: D0 }));
    const c1 = await read(random(router, [4], undefined, { device: D1 }));
    expect(Array.from(c1.values)).toEqual(Array.from(c0.values)); // same seed, same stream position
    const before = router.memory(D1).tensors;
    const t = zeros(router, [8], { device: D1 });
    await t.toData();
    expect(router.memory(D1)).toMatchObject({ device: 'cpu:1', tensors: before + 1 });
    t.dispose();
    expect(router.memory(D1).tensors).toBe(before);
    expect(router.memory(D0).device).toBe('cpu');
  });

  test('release, retain and isLive reach the inner backend', async () => {
    const t = fromData(router, [1, 2], { device: D1 });
    expect(router.isLive(t.handle)).toBe(true);
    router.retain(t.handle);
    t.dispose();
    expect(router.isLive(t.handle)).toBe(true);
    router.release(t.handle);
    expect(router.isLive(t.handle)).toBe(false);
  });
});
