/**
 * Gating for router tests that need a WebGPU adapter: one `Wgpu` made up front. With CI=true a
 * missing adapter is a failing test, never a silent skip; elsewhere the suite skips with a message.
 */
import { afterAll, describe, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';

const made = await Wgpu.create().then(
  (wgpu) => ({ wgpu, missing: undefined }),
  (e: unknown) => ({ wgpu: undefined, missing: e instanceof Error ? e.message : String(e) }),
);

/** `describe` for suites over a Router with a Wgpu inside; the Wgpu is closed after the file. */
export function describeGpu(name: string, fn: (wgpu: Wgpu) => void): void {
  const { wgpu, missing } = made;
  if (wgpu) {
    afterAll(() => wgpu.close());
    describe(name, () => fn(wgpu));
  } else if (process.env['CI'] === 'true') {
    describe(name, () => {
      test('a WebGPU adapter is available (required when CI=true)', () => {
        throw new Error(`no WebGPU adapter: ${missing}`);
      });
    });
  } else {
    console.warn(`skipping '${name}': no WebGPU adapter (${missing}); install lavapipe (mesa-vulkan-drivers) to run it`);
    describe.skip(`${name} [skipped: no WebGPU adapter]`, () => undefined);
  }
}
