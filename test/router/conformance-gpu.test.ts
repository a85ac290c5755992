/** The conformance table through Router<[Wgpu, Cpu]>, in full, on each of its devices. */
import { afterAll } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import type { Wgpu } from '../../src/backends/wgpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { Router } from '../../src/router/router.js';
import { runConformance } from '../conformance/vitest-suite.js';
import { describeGpu } from './gpu.js';

const cpu = new Cpu();
afterAll(() => cpu.close());

describeGpu('conformance through router<wgpu, cpu>', (wgpu: Wgpu) => {
  const router = new Router([wgpu, cpu]);
  for (const d of [MultiDevice.B1(WgpuDevice.Default), MultiDevice.B2(CpuDevice.Cpu)]) {
    runConformance(`${router.name} on ${MultiDevice.describe(d)}`, () => router.on(d));
  }
});
