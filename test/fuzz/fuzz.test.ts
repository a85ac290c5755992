/**
 * The fuzzer: fast-check drives every public op (Tensor methods, Tensor.cat / stack / where,
 * fullLike and the creation functions) with random shapes, dims, indices, dtypes and argument
 * kinds, typed and untyped, on the CPU backend (inline and on its worker pool), Autodiff over it,
 * a Router of two CPU devices, and (on lavapipe: fewer runs) WebGPU and a Router of WebGPU and
 * CPU. See
 * runner.ts for what each call must satisfy.
 *
 * Fixed seed and bounded count here; `FUZZ_RUNS=5000 npx vitest run test/fuzz` runs longer
 * (WebGPU gets a tenth of the runs) and `FUZZ_SEED=n` another sequence.
 */
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { Router } from '../../src/router/router.js';
import { describeGpu } from '../wgpu/gpu.js';
import { callArb } from './ops.js';
import { check, type Fixture } from './runner.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261202);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 400);
const runs = (share: number) => Math.max(1, Math.round(RUNS * share));

/** With FUZZ_STATS=1, prints how often each op succeeded or was rejected (to see what the generators reach). */
const STATS = process.env['FUZZ_STATS'] === '1';

async function fuzz(fx: Fixture, numRuns: number): Promise<void> {
  const tally = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(callArb, async (call) => {
      const outcome = await check(fx, call);
      const key = `${call.op}: ${outcome}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }),
    { seed: SEED, numRuns, endOnFailure: false },
  );
  if (STATS) console.log(`${fx.name}\n${[...tally].sort().map(([k, n]) => `  ${k} x${n}`).join('\n')}`);
}

describe('fuzzing every public op', () => {
  const cpu = new Cpu({ threads: 0 });
  const other = new Cpu({ threads: 0, device: CpuDevice.named('cpu:fuzz-other') });
  const a = new Cpu({ threads: 0, device: CpuDevice.named('cpu:fuzz-a') });
  const b = new Cpu({ threads: 0, device: CpuDevice.named('cpu:fuzz-b') });
  const router = new Router([a, b]);
  const pooled = new Cpu({ threads: 2, inlineThreshold: 0, device: CpuDevice.named('cpu:fuzz-pool') });
  const taped = new Cpu({ threads: 0, device: CpuDevice.named('cpu:fuzz-autodiff') });
  const ad = new Autodiff(taped);
  afterAll(async () => {
    await Promise.all([cpu.close(), other.close(), router.close(), pooled.close(), ad.close()]);
  });

  it('on the CPU backend (inline)', async () => {
    await fuzz({ name: 'cpu', backend: cpu, foreign: other, otherDevice: undefined, live: () => cpu.memory().tensors }, runs(1));
  });

  it('on the CPU backend with every op on its worker pool', async () => {
    await fuzz({ name: 'cpu pool', backend: pooled, foreign: other, otherDevice: undefined, live: () => pooled.memory().tensors }, runs(0.25));
  });

  it('on Autodiff over the CPU backend', async () => {
    await fuzz({ name: 'autodiff<cpu>', backend: ad, foreign: other, otherDevice: undefined, live: () => taped.memory().tensors }, runs(0.25));
  });

  it('on a Router of two CPU devices', async () => {
    await fuzz({ name: 'router<cpu, cpu>', backend: router, foreign: other, otherDevice: router.device(1, b.device), live: () => a.memory().tensors + b.memory().tensors }, runs(0.5));
  });
});

describeGpu('fuzzing every public op on WebGPU', () => {
  let gpu: Wgpu;
  const cpu = new Cpu({ threads: 0, device: CpuDevice.named('cpu:fuzz-gpu-side') });
  afterAll(async () => {
    await gpu?.close();
    await cpu.close();
  });

  it('on the WebGPU backend', async () => {
    gpu = await Wgpu.create();
    await fuzz({ name: 'wgpu', backend: gpu, foreign: cpu, otherDevice: undefined, live: () => gpu.memory().tensors }, runs(0.1));
  });

  it('on a Router of WebGPU and CPU', async () => {
    const router = new Router([gpu, cpu]);
    await fuzz({ name: 'router<wgpu, cpu>', backend: router, foreign: new Cpu({ threads: 0 }), otherDevice: router.device(1, cpu.device), live: () => gpu.memory().tensors + cpu.memory().tensors }, runs(0.05));
  });
});
