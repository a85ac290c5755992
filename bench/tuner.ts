/**
 * Waits for the WebGPU autotuner of a backend, if it has one. A matmul's first call in a shape
 * bucket starts kernel trials in the background (up to half a second per bucket); steps timed
 * meanwhile wait behind the trials' compiles and dispatches. Benchmarks call this after a warm-up.
 */
import type { Backend } from '../src/backends/backend.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';

export async function settleTuner(b: Backend): Promise<void> {
  if (b instanceof Wgpu) await b.autotuned();
}
