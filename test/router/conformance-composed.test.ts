/**
 * The conformance table through composed backends: Autodiff<Router<[Wgpu, Cpu]>> on each device,
 * a Router holding a decorator (Autodiff<Cpu>) beside a plain Cpu, and a Router of Routers.
 */
import { afterAll } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import type { Wgpu } from '../../src/backends/wgpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { Router } from '../../src/router/router.js';
import { runConformance } from '../conformance/vitest-suite.js';
import { describeGpu } from './gpu.js';

const A = CpuDevice.named('cpu:a');
const B = CpuDevice.named('cpu:b');
const C = CpuDevice.named('cpu:c');

const decorated = new Router([new Autodiff(new Cpu({ threads: 0, device: A })), new Cpu({ threads: 0, device: B })]);
const nested = new Router([new Router([new Cpu({ threads: 0, device: C }), new Cpu({ threads: 0, device: CpuDevice.named('cpu:d') })]), new Cpu({ threads: 0, device: CpuDevice.named('cpu:e') })]);
afterAll(async () => {
  await decorated.close();
  await nested.close();
});

for (const d of [MultiDevice.B1(A), MultiDevice.B2(B)]) runConformance(`${decorated.name} on ${MultiDevice.describe(d)}`, () => decorated.on(d));
runConformance(`${nested.name} on B1(B2(cpu:d))`, () => nested.on(MultiDevice.B1(MultiDevice.B2(CpuDevice.named('cpu:d')))));

const cpu = new Cpu({ device: CpuDevice.named('cpu:w') });
afterAll(() => cpu.close());

describeGpu('conformance through autodiff<router<wgpu, cpu>>', (wgpu: Wgpu) => {
  const router = new Router([wgpu, cpu]);
  for (const d of [MultiDevice.B1(WgpuDevice.Default), MultiDevice.B2(CpuDevice.named('cpu:w'))]) {
    const ad = new Autodiff(router.on(d));
    runConformance(`${ad.name} on ${MultiDevice.describe(d)}`, () => ad);
  }
});
