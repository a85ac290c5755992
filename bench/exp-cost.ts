/**
 * What the prelude's accurate exp, expm1, exp2 and pow cost beside the driver's builtins
 * (`npm run bench -- exp-cost`): one elementwise kernel per function over `--n` floats (default
 * 32M, vec4 loads), and a plain copy as the memory-bound floor. Kernels alternate round by round
 * in one process; each round times `--launches` dispatches in one submit to the end of the GPU's
 * work. Printed: the median ms per launch, GB/s moved (read + write), and the paired ratio of the
 * prelude's kernel to the builtin's with a 95% interval over rounds.
 */
import { intOption } from './args.js';
import { median, medianInterval } from './stats.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { PRELUDE } from '../src/backends/wgpu/wgsl/prelude.js';
import { BufferUsage } from '../src/backends/wgpu/flags.js';

interface Kernel {
  readonly name: string;
  /** The body's expression of `x` (a vec4<f32>). */
  readonly expr: string;
}

const vec = (f: string, y = ''): string => `vec4<f32>(${f}(x.x${y}), ${f}(x.y${y}), ${f}(x.z${y}), ${f}(x.w${y}))`;

const PAIRS: readonly (readonly [string, Kernel, Kernel])[] = [
  ['exp', { name: 'builtin exp', expr: 'exp(x)' }, { name: 'sy_exp', expr: vec('sy_exp') }],
  ['exp2', { name: 'builtin exp2', expr: 'exp2(x)' }, { name: 'sy_exp2', expr: vec('sy_exp2') }],
  ['expm1', { name: 'builtin exp(x) - 1', expr: 'exp(x) - vec4<f32>(1.0)' }, { name: 'sy_expm1', expr: vec('sy_expm1') }],
  ['pow(x, 2.5)', { name: 'builtin pow', expr: 'pow(abs(x) + vec4<f32>(0.5), vec4<f32>(2.5))' }, { name: 'sy_pow', expr: 'vec4<f32>(sy_pow(abs(x.x) + 0.5, 2.5), sy_pow(abs(x.y) + 0.5, 2.5), sy_pow(abs(x.z) + 0.5, 2.5), sy_pow(abs(x.w) + 0.5, 2.5))' }],
  ['sigmoid', { name: '1 / (1 + builtin exp(-x))', expr: 'vec4<f32>(1.0) / (vec4<f32>(1.0) + exp(-x))' }, { name: 'sy_sigmoid', expr: vec('sy_sigmoid') }],
];

const COPY: Kernel = { name: 'copy', expr: 'x' };

function source(k: Kernel): string {
  return `${PRELUDE}
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let i = gid.x + gid.y * nw.x * 256u;
  if (i >= arrayLength(&dst)) { return; }
  let x = src[i];
  dst[i] = ${k.expr};
}`;
}

export async function main(args: readonly string[]): Promise<void> {
  const n = intOption(args, '--n', 32 << 20) & ~3;
  const rounds = intOption(args, '--rounds', 30);
  const launches = intOption(args, '--launches', 20);
  const gpu = await Wgpu.create();
  const device = gpu.exec(gpu.defaultDevice()).context!.device;
  const bytes = n * 4;
  const src = device.createBuffer({ size: bytes, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
  const dst = device.createBuffer({ size: bytes, usage: BufferUsage.STORAGE });
  // Values over exp's whole range, so neither kernel is timed on one easy path.
  const host = new Float32Array(n);
  let seed = 11;
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    host[i] = (seed / 4294967296) * 170 - 85;
  }
  device.queue.writeBuffer(src, 0, host);
  const groups = Math.ceil(n / 4 / 256);
  const gx = Math.min(groups, 32768);
  const gy = Math.ceil(groups / gx);

  const pipelines = new Map<string, GPUComputePipeline>();
  const bindings = new Map<string, GPUBindGroup>();
  const all = [COPY, ...PAIRS.flatMap(([, a, b]) => [a, b])];
  for (const k of all) {
    const module = device.createShaderModule({ code: source(k) });
    const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    pipelines.set(k.name, pipeline);
    bindings.set(k.name, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: src } }, { binding: 1, resource: { buffer: dst } }] }));
  }
  const time = async (k: Kernel): Promise<number> => {
    const enc = device.createCommandEncoder();
    for (let l = 0; l < launches; l++) {
      const pass = enc.beginComputePass();
      pass.setPipeline(pipelines.get(k.name)!);
      pass.setBindGroup(0, bindings.get(k.name)!);
      pass.dispatchWorkgroups(gx, gy);
      pass.end();
    }
    const t0 = performance.now();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    return (performance.now() - t0) / launches;
  };
  for (const k of all) await time(k); // warm
  const times = new Map<string, number[]>(all.map((k) => [k.name, []]));
  for (let r = 0; r < rounds; r++) {
    // Each round in another order, so neither side of a pair always runs first.
    const order = r % 2 === 0 ? all : [...all].reverse();
    for (const k of order) times.get(k.name)!.push(await time(k));
  }
  const gbs = (ms: number): number => (2 * bytes) / (ms * 1e6);
  const copy = median(times.get('copy')!);
  console.log(`# exp-cost: ${n} floats, ${launches} launches per round, ${rounds} rounds alternating; ${new Date().toISOString()}`);
  console.log(`copy: ${copy.toFixed(4)} ms per launch, ${gbs(copy).toFixed(0)} GB/s`);
  console.log('');
  console.log('| function | builtin ms (GB/s) | prelude ms (GB/s) | prelude / builtin (95% interval) | prelude / copy |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [label, a, b] of PAIRS) {
    const ta = times.get(a.name)!;
    const tb = times.get(b.name)!;
    const ratios = tb.map((t, i) => t / ta[i]!);
    const [lo, hi] = medianInterval(ratios);
    const ma = median(ta);
    const mb = median(tb);
    console.log(`| ${label} | ${ma.toFixed(4)} (${gbs(ma).toFixed(0)}) | ${mb.toFixed(4)} (${gbs(mb).toFixed(0)}) | ${median(ratios).toFixed(3)}x (${lo.toFixed(3)}-${hi.toFixed(3)}) | ${(mb / copy).toFixed(3)}x |`);
  }
  src.destroy();
  dst.destroy();
  await gpu.close();
}
