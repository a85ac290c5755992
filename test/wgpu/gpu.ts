/**
 * Gating for tests that need a WebGPU adapter. With CI=true a missing adapter is a failure, never
 * a silent skip; elsewhere the tests skip with a message that says how to enable them.
 */
import { describe, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import type { GpuContext } from '../../src/backends/wgpu/context.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { INSTALL_HINT, defaultAdapterSource } from '../../src/backends/wgpu/adapter.js';

async function probe(): Promise<string | undefined> {
  const source = defaultAdapterSource();
  try {
    const a = await source.requestAdapter(WgpuDevice.Default);
    return a ? undefined : 'requestAdapter returned null';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    source.release();
  }
}

const missing = await probe();

export const hasAdapter = missing === undefined;

/** `describe` for suites that need an adapter. */
export function describeGpu(name: string, fn: () => void): void {
  if (missing === undefined) describe(name, fn);
  else if (process.env['CI'] === 'true') {
    describe(name, () => {
      test('a WebGPU adapter is available (required when CI=true)', () => {
        throw new Error(`no WebGPU adapter (${missing}); ${INSTALL_HINT}`);
      });
    });
  } else {
    console.warn(`skipping '${name}': no WebGPU adapter (${missing}). To enable: ${INSTALL_HINT}`);
    describe.skip(`${name} [skipped: no WebGPU adapter; to enable: ${INSTALL_HINT}]`, fn);
  }
}

/** A Wgpu backend on its own runtime, without autotuning, opened, with its device's context (for tests that count submits). */
export async function openGpu(): Promise<{ wgpu: Wgpu; ctx: GpuContext }> {
  const wgpu = new Wgpu({ runtime: new Runtime(), autotune: false });
  await wgpu.init(wgpu.defaultDevice());
  const ctx = wgpu.exec(wgpu.defaultDevice()).context;
  if (!ctx) throw new Error('the opened Wgpu backend has no GPU context');
  return { wgpu, ctx };
}
