/** The shared conformance table run through the router, in full (the CPU's case count), once per inner device. */
import { afterAll } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { Router } from '../../src/router/router.js';
import { runConformance } from '../conformance/vitest-suite.js';
import { CPU1 } from './helpers.js';

const router = new Router([new Cpu(), new Cpu({ device: CPU1 })]);
afterAll(() => router.close());

for (const d of [MultiDevice.B1(CpuDevice.Cpu), MultiDevice.B2(CPU1)]) {
  runConformance(`${router.name} on ${MultiDevice.describe(d)}`, () => router.on(d));
}
