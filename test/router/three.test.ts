/** A router of three backends: types, routing and transfers around the ring. */
import { afterAll, describe, expect, expectTypeOf, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { Router } from '../../src/router/router.js';
import { fromData } from '../../src/tensor/creation.js';
import { CPU1, CPU2, recordEvents } from './helpers.js';

const router = new Router([new Cpu({ threads: 0 }), new Cpu({ threads: 0, device: CPU1 }), new Cpu({ threads: 0, device: CPU2 })]);
afterAll(() => router.close());
const devices = [MultiDevice.B1(CpuDevice.Cpu), MultiDevice.B2(CPU1), MultiDevice.B3(CPU2)] as const;

describe('Router<[Cpu, Cpu, Cpu]>', () => {
  test('types and names', () => {
    expectTypeOf(router).toEqualTypeOf<Router<[Cpu, Cpu, Cpu]>>();
    expectTypeOf(router.device(2, CPU2)).toEqualTypeOf<MultiDevice<2, CpuDevice>>();
    expect(router.name).toBe('router<cpu, cpu, cpu>');
    expect(router.parseDevice('cpu:2')).toEqual(devices[2]);
    const x = fromData(router, [1]);
    // @ts-expect-error a three-backend router has no fourth position
    expect(() => x.toDevice(MultiDevice.B4(CpuDevice.Cpu))).toThrow(/has 3 backends/);
  });

  test('a value travels around the ring, each op on its device', async () => {
    const rec = recordEvents();
    let t = fromData(router, [1, 2, 3], { device: devices[0] });
    for (const d of [devices[1], devices[2], devices[0]]) t = t.toDevice(d).add(1);
    expect(await t.toArray()).toEqual([4, 5, 6]);
    rec.stop();
    expect(rec.on('addScalar')).toEqual(['cpu:1', 'cpu:2', 'cpu']);
    expect(rec.events.filter((e) => e.op === 'transfer').map((e) => e.where)).toEqual(['host-copy from cpu', 'host-copy from cpu:1', 'host-copy from cpu:2']);
  });

  test('independent work on all three devices, joined on one', async () => {
    const parts = devices.map((d, i) => fromData(router, [i, i + 1], { device: d }).mul(10));
    const joined = parts.map((p) => p.toDevice(devices[1])).reduce((a, b) => a.add(b));
    expect(joined.device).toEqual(devices[1]);
    expect(await joined.toArray()).toEqual([30, 60]);
  });
});
