import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { fromData, memory } from '../../src/index.js';
import { CPU1, cpuRouter } from './helpers.js';

const router = cpuRouter();
afterAll(() => router.close());

describe('router views and memory', () => {
  test('tensors of router.on(d) combine with the original router\'s', async () => {
    const onB2 = router.on(MultiDevice.B2(CPU1));
    const a = fromData(router, [1, 2]).toDevice(MultiDevice.B2(CPU1));
    const b = fromData(onB2, [10, 20]);
    expect(b.device.key).toBe('cpu:1');
    expect(await a.add(b).toArray()).toEqual([11, 22]);
    expect(await b.add(a).toArray()).toEqual([11, 22]);
  });

  test('memory(device) adds up every backend that uses the device key', async () => {
    const one = new Cpu({ threads: 0, device: CpuDevice.named('cpu:mem') });
    const two = new Cpu({ threads: 0, device: CpuDevice.named('cpu:mem') });
    const before = memory(CpuDevice.named('cpu:mem')).tensors;
    const x = fromData(one, [1, 2, 3]);
    const y = fromData(two, [4, 5]);
    await Promise.all([x.toData(), y.toData()]);
    expect(one.memory().tensors).toBe(1);
    expect(two.memory().tensors).toBe(1);
    expect(memory(CpuDevice.named('cpu:mem')).tensors).toBe(before + 2);
    x.dispose();
    y.dispose();
    expect(memory(CpuDevice.named('cpu:mem')).tensors).toBe(before);
    await one.close();
    await two.close();
  });
});
