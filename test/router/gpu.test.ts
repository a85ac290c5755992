/** Router<[Wgpu, Cpu]> (and a three-backend router with a GPU): routing, transfers in every direction, isolation. */
import { afterAll, expect, expectTypeOf, test } from 'vitest';
import type { Wgpu } from '../../src/backends/wgpu/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { DeviceError } from '../../src/errors.js';
import { Router } from '../../src/router/router.js';
import { fromData } from '../../src/tensor/creation.js';
import { describeGpu } from './gpu.js';
import { bits, CPU1, recordEvents } from './helpers.js';

const cpu = new Cpu({ threads: 0 });
const cpu1 = new Cpu({ threads: 0, device: CPU1 });
afterAll(async () => {
  await cpu.close();
  await cpu1.close();
});

const G = MultiDevice.B1(WgpuDevice.Default);
/** A second WebGPU device of the same backend (its own GPUDevice): GPU to GPU goes through the host. */
const G2 = MultiDevice.B1(WgpuDevice.Cpu);
const C = MultiDevice.B2(CpuDevice.Cpu);

function tricky(): Float32Array {
  return new Float32Array(Uint32Array.of(0x7fc00000, 0xffc00001, 0x80000000, 0x00000001, 0x007fffff, 0x80000001, 0x7f800000, 0xff800000, 0x7f7fffff, 0x3eaaaaab).buffer);
}

describeGpu('Router<[Wgpu, Cpu]>', (wgpu: Wgpu) => {
  const router = new Router([wgpu, cpu]);

  test('types, name and device strings', () => {
    expectTypeOf(router).toEqualTypeOf<Router<[Wgpu, Cpu]>>();
    expectTypeOf(router.defaultDevice()).toEqualTypeOf<MultiDevice<0, WgpuDevice> | MultiDevice<1, CpuDevice>>();
    expect(router.name).toBe('router<wgpu, cpu>');
    expect(router.parseDevice('wgpu')).toEqual(G);
    expect(router.parseDevice('wgpu:cpu')).toEqual(G2);
    expect(router.parseDevice('wgpu:0')).toEqual(MultiDevice.B1(WgpuDevice.DiscreteGpu(0)));
    expect(router.parseDevice('cpu')).toEqual(C);
    expect(() => router.parseDevice('cuda:0')).toThrow(/valid devices: wgpu:default, cpu/);
    // @ts-expect-error a CPU tag in the Wgpu position
    expect(() => router.device(0, CpuDevice.Cpu)).toThrow(DeviceError);
  });

  test('each op runs where its inputs live; mixing devices is refused', async () => {
    const rec = recordEvents();
    const g = fromData(router, [1, 2, 3], { device: G });
    const c = fromData(router, [1, 2, 3], { device: C });
    expect(() => g.add(c)).toThrow(/different devices \(wgpu:default and cpu\).*toDevice/);
    const sg = g.exp().sum();
    const sc = c.exp().sum();
    const [a, b] = await Promise.all([sg.item(), sc.item()]);
    expect(a).toBeCloseTo(Math.E + Math.E ** 2 + Math.E ** 3, 4);
    expect(b).toBeCloseTo(a, 4);
    rec.stop();
    // Events come in completion order (the GPU's exp finishes after the CPU's): compare in submission order.
    const exps = rec.events.filter((e) => e.op === 'exp').sort((x, y) => x.opId - y.opId);
    expect(exps.map((e) => [e.device, e.where])).toEqual([
      ['wgpu:default', 'gpu'],
      ['cpu', 'inline'],
    ]);
  });

  const pairs = [
    [C, G, 'upload from cpu', 'readback from wgpu:default'],
    [G, C, 'readback from wgpu:default', 'upload from cpu'],
    [G, G2, 'readback+upload from wgpu:default', 'readback+upload from wgpu:cpu'],
  ] as const;
  for (const [from, to, there, back] of pairs) {
    test(`bit-exact round trips ${from.key} -> ${to.key} -> ${from.key}`, async () => {
      const rec = recordEvents();
      const xs = [
        fromData(router, tricky(), { device: from }),
        fromData(router, Int32Array.of(-(2 ** 31), 2 ** 31 - 1, 0, -1, 7), { device: from }),
        fromData(router, Uint8Array.of(1, 0, 0, 1, 1), { device: from }),
      ];
      for (const x of xs) {
        const want = await x.toData();
        const y = x.toDevice(to);
        const z = y.toDevice(from);
        expect([y.device, z.device]).toEqual([to, from]);
        const [a, b] = await Promise.all([y.toData(), z.toData()]);
        expect([a.dtype, b.dtype]).toEqual([want.dtype, want.dtype]);
        expect(bits(a.values)).toEqual(bits(want.values));
        expect(bits(b.values)).toEqual(bits(want.values));
      }
      rec.stop();
      const moves = rec.events.filter((e) => e.op === 'transfer');
      expect(moves.map((e) => e.where)).toEqual([there, back, there, back, there, back]);
      expect(moves.map((e) => e.outputBytes)).toEqual([40, 40, 20, 20, 5, 5]);
    });
  }

  test('a strided GPU view moves in logical order; same-device moves are views', async () => {
    const g = fromData(router, [[1, 2, 3], [4, 5, 6]], { device: G });
    expect(await g.transpose().slice([[1, 3], null]).toDevice(C).toArray()).toEqual([
      [2, 5],
      [3, 6],
    ]);
    const rec = recordEvents();
    const same = g.toDevice(G);
    rec.stop();
    expect(rec.on('transfer')).toEqual([]);
    expect(await same.toArray()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
  });

  test('a failing GPU op fails its dependents only; the CPU keeps running, and vice versa', async () => {
    const g = fromData(router, [1, 2, 3], { device: G });
    const c = fromData(router, [1, 2, 3], { device: C });
    const badG = g.indexSelect(0, fromData(router, Int32Array.of(9), { device: G })).toDevice(C);
    const badC = c.indexSelect(0, fromData(router, Int32Array.of(-9), { device: C })).toDevice(G);
    const okC = c.mul(3).sum();
    const okG = g.mul(3).sum();
    await expect(badG.toData()).rejects.toThrow(/indexSelect/);
    await expect(badC.toData()).rejects.toThrow(/indexSelect/);
    expect([await okC.item(), await okG.item()]).toEqual([18, 18]);
  });

  test('three backends: [Wgpu, Cpu, Cpu]', async () => {
    const three = new Router([wgpu, cpu, cpu1]);
    expectTypeOf(three).toEqualTypeOf<Router<[Wgpu, Cpu, Cpu]>>();
    expect(three.name).toBe('router<wgpu, cpu, cpu>');
    const rec = recordEvents();
    let t = fromData(three, [1, 2, 3], { device: three.device(1, CpuDevice.Cpu) });
    for (const d of [three.device(0, WgpuDevice.Default), three.device(2, CPU1), three.device(1, CpuDevice.Cpu)]) t = t.toDevice(d).mul(2);
    expect(await t.toArray()).toEqual([8, 16, 24]);
    rec.stop();
    expect(rec.on('mulScalar')).toEqual(['wgpu:default', 'cpu:1', 'cpu']);
    expect(rec.events.filter((e) => e.op === 'transfer').map((e) => e.where)).toEqual(['upload from cpu', 'readback from wgpu:default', 'host-copy from cpu:1']);
  });
});
