/**
 * Times the register-blocked matmul configurations of matmul-tiles.ts and the naive kernel on
 * a raw GPUDevice, after checking each against a float64 reference on an odd-sized problem.
 * `tsx bench/matmul-tune.ts` runs it alone (lavapipe here: correctness only means anything).
 */
import { NAIVE_MATMUL_WGSL, tileKey, tiledMatmulWgsl, workgroups, type TileConfig } from './matmul-tiles.js';

export const CONFIGS: readonly TileConfig[] = [
  { tm: 4, tn: 4, bk: 16, vec4: true },
  { tm: 8, tn: 4, bk: 16, vec4: true },
  { tm: 4, tn: 8, bk: 16, vec4: true },
  { tm: 8, tn: 8, bk: 8, vec4: true },
  { tm: 8, tn: 8, bk: 16, vec4: true },
  { tm: 8, tn: 8, bk: 16, vec4: false },
];

type Kernel = { name: string; source: string; tile: { tm: number; tn: number }; vec4: boolean };

export function kernels(): Kernel[] {
  return [{ name: 'naive 16x16', source: NAIVE_MATMUL_WGSL, tile: { tm: 1, tn: 1 }, vec4: false }, ...CONFIGS.map((c) => ({ name: tileKey(c), source: tiledMatmulWgsl(c), tile: c, vec4: c.vec4 }))];
}

interface Problem {
  a: GPUBuffer;
  b: GPUBuffer;
  c: GPUBuffer;
  params: GPUBuffer;
}

function problem(device: GPUDevice, m: number, k: number, n: number, fill?: { a: Float32Array; b: Float32Array }): Problem {
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const a = device.createBuffer({ size: Math.max(16, m * k * 4), usage });
  const b = device.createBuffer({ size: Math.max(16, k * n * 4), usage });
  const c = device.createBuffer({ size: Math.max(16, m * n * 4), usage });
  if (fill) {
    device.queue.writeBuffer(a, 0, fill.a);
    device.queue.writeBuffer(b, 0, fill.b);
  }
  const params = device.createBuffer({ size: 32, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(params, 0, Uint32Array.of(m, n, k, 0, 0, 0, 0, 0));
  return { a, b, c, params };
}

function pipelineFor(device: GPUDevice, source: string): GPUComputePipeline {
  return device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: source }), entryPoint: 'main' } });
}

function encode(device: GPUDevice, pipe: GPUComputePipeline, p: Problem, wg: [number, number, number], reps: number): GPUCommandBuffer {
  const bind = device.createBindGroup({
    layout: pipe.getBindGroupLayout(0),
    entries: [p.a, p.b, p.c, p.params].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipe);
  pass.setBindGroup(0, bind);
  for (let i = 0; i < reps; i++) pass.dispatchWorkgroups(...wg);
  pass.end();
  return enc.finish();
}

async function readBack(device: GPUDevice, buf: GPUBuffer, bytes: number): Promise<Float32Array> {
  const staging = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, staging, 0, bytes);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  staging.destroy();
  return out;
}

/** Max relative error against float64 on an odd problem that exercises every bound check. */
export async function checkKernel(device: GPUDevice, kernel: Kernel): Promise<number> {
  const [m, k, n] = kernel.vec4 ? [67, 36, 132] : [67, 35, 131];
  const a = Float32Array.from({ length: m * k }, (_, i) => Math.sin(i * 0.37));
  const b = Float32Array.from({ length: k * n }, (_, i) => Math.cos(i * 0.11));
  const p = problem(device, m, k, n, { a, b });
  device.queue.submit([encode(device, pipelineFor(device, kernel.source), p, workgroups(m, n, 1, kernel.tile), 1)]);
  const got = await readBack(device, p.c, m * n * 4);
  let worst = 0;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let q = 0; q < k; q++) s += a[i * k + q]! * b[q * n + j]!;
      worst = Math.max(worst, Math.abs(got[i * n + j]! - s) / (1 + Math.abs(s)));
    }
  }
  for (const buf of [p.a, p.b, p.c, p.params]) buf.destroy();
  return worst;
}

/** TFLOP/s of one kernel on an m x k x n problem (best of 3 timed batches of `reps`). */
export async function timeKernel(device: GPUDevice, kernel: Kernel, m: number, k: number, n: number, reps: number): Promise<number> {
  if (kernel.vec4 && (k % 4 !== 0 || n % 4 !== 0)) return NaN;
  const p = problem(device, m, k, n);
  const pipe = pipelineFor(device, kernel.source);
  const wg = workgroups(m, n, 1, kernel.tile);
  device.queue.submit([encode(device, pipe, p, wg, 1)]);
  await device.queue.onSubmittedWorkDone();
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const cmd = encode(device, pipe, p, wg, reps);
    const t0 = performance.now();
    device.queue.submit([cmd]);
    await device.queue.onSubmittedWorkDone();
    best = Math.min(best, (performance.now() - t0) / reps);
  }
  for (const buf of [p.a, p.b, p.c, p.params]) buf.destroy();
  return (2 * m * k * n) / (best / 1000) / 1e12;
}

export async function requestBenchDevice(gpu: GPU): Promise<GPUDevice> {
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('no WebGPU adapter');
  const l = adapter.limits;
  return adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize,
      maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  // Hold the GPU instance: if it is garbage-collected, Dawn tears the device down under us.
  const gpu = create([]);
  const device = await requestBenchDevice(gpu);
  for (const kern of kernels()) {
    const err = await checkKernel(device, kern);
    const t = await timeKernel(device, kern, 256, 256, 256, 3);
    console.log(`${kern.name.padEnd(24)} max rel err ${err.toExponential(2)}  ${t.toFixed(3)} TFLOP/s at 256 (software adapter: not meaningful)`);
  }
  device.destroy();
  void gpu;
}
