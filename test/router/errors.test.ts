import type { OpRecord } from '../../src/ir/ops.js';
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { ArgumentError, DeviceError, DisposedError, ShapeError } from '../../src/errors.js';
import { Router } from '../../src/router/router.js';
import { fromData, zeros } from '../../src/tensor/creation.js';
import { CPU1, CPU2, cpuRouter } from './helpers.js';
import { thrown } from '../thrown.js';

const router = cpuRouter();
const plain = new Cpu({ threads: 0, device: CPU2 });
afterAll(async () => {
  await router.close();
  await plain.close();
});
const D0 = MultiDevice.B1(CpuDevice.Cpu);
const D1 = MultiDevice.B2(CPU1);

describe('router errors', () => {
  test('inputs on two devices: DeviceError naming both and suggesting toDevice; nothing runs', () => {
    const x = zeros(router, [3], { device: D0 });
    const y = zeros(router, [3], { device: D1 });
    const e = thrown(() => x.add(y));
    expect(e).toBeInstanceOf(DeviceError);
    expect((e as DeviceError).devices).toEqual(['cpu', 'cpu:1']);
    expect((e as DeviceError).op).toBe('add');
    expect(String(e)).toMatch(/different devices \(cpu and cpu:1\).*toDevice\(/);
    expect(String(e)).toMatch(/nothing moves between devices silently/);
    // The third input of where counts too.
    const c = zeros(router, [3], { dtype: 'bool', device: D0 });
    expect(() => x.where(c, y)).toThrow(/cpu and cpu:1/);
  });

  test('a device that is not a MultiDevice of this router', () => {
    const e = thrown(() => zeros(router, [2], { device: CpuDevice.Cpu }));
    expect(e).toBeInstanceOf(DeviceError);
    expect(String(e)).toMatch(/not a device of router<cpu, cpu>.*router\.device\(i, device\)/);
  });

  test('a position past the tuple, or an inner device the backend does not own', () => {
    expect(() => zeros(router, [2], { device: MultiDevice.B3(CpuDevice.Cpu) })).toThrow(/B3\(cpu\) is not a device of router<cpu, cpu>: router<cpu, cpu> has 2 backends/);
    expect(() => zeros(router, [2], { device: MultiDevice.B1(CPU1) })).toThrow(/backend 1 \(cpu\) does not own cpu:1/);
    expect(() => router.device(0, CPU1)).toThrow(DeviceError);
    const x = zeros(router, [2]);
    // @ts-expect-error B3 names a third backend, which Router<[Cpu, Cpu]> does not have
    expect(() => x.toDevice(MultiDevice.B3(CpuDevice.Cpu))).toThrow(DeviceError);
    // @ts-expect-error position 2 is out of the tuple
    expect(() => router.device(2, CpuDevice.Cpu)).toThrow(DeviceError);
    // @ts-expect-error a plain CPU tag is not a MultiDevice
    expect(() => x.toDevice(CPU1)).toThrow(/not a device of/);
  });

  test('an unknown device string lists the valid ones', () => {
    const e = thrown(() => router.parseDevice('gpu:7'));
    expect(e).toBeInstanceOf(ArgumentError);
    expect(String(e)).toMatch(/unknown device 'gpu:7' for router<cpu, cpu>.*valid devices: cpu, cpu:1/);
    expect(() => router.parseDevice('cpu:9')).toThrow(/valid devices: cpu, cpu:1/);
  });

  test('a router needs two backends with distinct devices', () => {
    // @ts-expect-error one backend is not a router
    expect(() => new Router([plain])).toThrow(/at least two backends, got 1/);
    const twin = new Cpu({ threads: 0, device: CPU2 });
    expect(() => new Router([plain, twin])).toThrow(/backends 1 and 2 both use device 'cpu:2'.*CpuDevice\.named/);
  });

  test('tensors of the router and of an inner backend do not mix', () => {
    const x = zeros(router, [2]);
    const inner = zeros(router.backends[0], [2]);
    expect(() => x.add(inner as never)).toThrow(/different backends \(router<cpu, cpu> and cpu\)/);
    // As inputs on two devices: a DeviceError (the README's error table).
    expect(() => x.add(inner as never)).toThrow(DeviceError);
  });

  test('a plain backend cannot transfer; a disposed tensor cannot move', () => {
    const t = zeros(plain, [2]);
    expect(() => t.toDevice({ backend: 'cpu', key: 'cpu:elsewhere' } as CpuDevice)).toThrow(/backend cpu cannot move a tensor to another device.*Router/);
    const u = zeros(router, [2]);
    u.dispose();
    expect(() => u.toDevice(D1)).toThrow(DisposedError);
  });

  test('a transfer record naming an unknown destination', () => {
    const x = zeros(router, [2]);
    const meta = { id: x.id, shape: [2], dtype: 'float32' as const };
    const record: OpRecord = { id: 1, op: 'transfer', device: 'cpu:nowhere', inputs: [meta], outputs: [{ ...meta, id: x.id + 1_000_000 }], attrs: { from: 'cpu', to: 'cpu:nowhere' } };
    expect(() => router.submit(record)).toThrow(/unknown destination device 'cpu:nowhere'/);
  });

  test("inner backends' own errors still surface at the call site", () => {
    const a = zeros(router, [2, 3], { device: D1 });
    expect(() => a.matmul(zeros(router, [4, 2], { device: D1 }))).toThrow(ShapeError);
    expect(() => fromData(router, [[1], [2, 3]], { device: D1 })).toThrow(ArgumentError);
  });
});
