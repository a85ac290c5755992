/**
 * The backends the autodiff tests run on: Autodiff<Cpu> always, Autodiff<Router<[Cpu, Cpu]>>
 * (two devices, for transfers), and Autodiff<Wgpu> once src/backends/wgpu/backend.ts exists and
 * an adapter is found. In CI (CI=true) a missing adapter fails instead of skipping.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import type { Device } from '../../src/devices/device.js';
import { Router } from '../../src/router/router.js';

export interface TestBackend {
  readonly name: string;
  readonly backend: Autodiff<Backend>;
  /** A second device for transfers, when the backend has one. */
  readonly other?: Device;
  close(): Promise<void>;
}

type Closable = Backend;

const WGPU_FILE = fileURLToPath(new URL('../../src/backends/wgpu/backend.ts', import.meta.url));

/** A Wgpu backend, or undefined when there is no backend file yet or (outside CI) no adapter. */
export async function makeWgpu(): Promise<Closable | undefined> {
  if (!existsSync(WGPU_FILE)) return undefined;
  // A computed specifier: the module may not exist yet when this file is type-checked.
  const spec = '../../src/backends/wgpu/backend.js';
  const mod = (await import(spec)) as { Wgpu: { create(): Promise<Closable> } };
  try {
    return await mod.Wgpu.create();
  } catch (e) {
    if (process.env.CI === 'true') throw e;
    return undefined;
  }
}

export async function testBackends(): Promise<TestBackend[]> {
  const out: TestBackend[] = [];
  const cpu = new Autodiff(new Cpu({ threads: 0 }));
  out.push({ name: cpu.name, backend: cpu, close: () => cpu.close() });
  const router = new Router([new Cpu({ threads: 0, device: CpuDevice.named('cpu:a') }), new Cpu({ threads: 0, device: CpuDevice.named('cpu:b') })]);
  const ar = new Autodiff(router);
  out.push({ name: ar.name, backend: ar, other: router.device(1, CpuDevice.named('cpu:b')), close: () => ar.close() });
  const wgpu = await makeWgpu();
  if (wgpu) {
    const aw = new Autodiff(wgpu);
    // The router owns (and closes) the one Wgpu instance both entries use.
    out.push({ name: aw.name, backend: aw, close: async () => {} });
    const cpuB = new Cpu({ threads: 0, device: CpuDevice.named('cpu:w') });
    const mixed = new Router([wgpu, cpuB]);
    const am = new Autodiff(mixed);
    out.push({ name: am.name, backend: am, other: mixed.device(1, CpuDevice.named('cpu:w')), close: () => am.close() });
  }
  return out;
}
