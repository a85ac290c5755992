/**
 * WebGPU benchmark (`npm run bench -- wgpu`, or `node dist/bench/main.js wgpu` on the GPU
 * machine). One run prints: matmul TFLOP/s for our backend, its naive 16x16 kernel, TF.js
 * webgpu and torch.matmul (fp32, TF32 off) where present; elementwise add / exp on 64M floats
 * in GB/s against the device copy bandwidth; a 4-op chain; and toData() latency for 4 MB.
 * Pass `--small` for a quick check on a software adapter.
 */
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { Distribution, random, type Tensor } from '../src/index.js';
import { bestMsPerRep, copyBandwidth, tfjsMatmul, torchBaselines } from './gpu-baselines.js';
import { requestBenchDevice } from './matmul-tune.js';
import { settle } from './settle.js';

type Shape3 = readonly [number, number, number];
const key = ([m, k, n]: Shape3) => `${m}x${k}x${n}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;


async function matmulTflops(w: Wgpu, [m, k, n]: Shape3, reps: number): Promise<number> {
  const a = random(w, [m, k], Distribution.Normal(0, 1));
  const b = random(w, [k, n], Distribution.Normal(0, 1));
  const warm = a.matmul(b);
  await settle(warm);
  warm.dispose();
  const times: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    let last: Tensor<Wgpu, 'float'> | undefined;
    for (let i = 0; i < reps; i++) {
      last?.dispose();
      last = a.matmul(b);
    }
    await settle(last!);
    times.push((performance.now() - t0) / reps);
    last!.dispose();
  }
  a.dispose();
  b.dispose();
  return (2 * m * k * n) / (Math.min(...times) / 1000) / 1e12;
}

async function elementwiseGBs(w: Wgpu, n: number, reps: number): Promise<{ add: number; exp: number; chain: number; chainMs: number }> {
  const x = random(w, [n]);
  const y = random(w, [n]);
  const time = async (f: () => Tensor<Wgpu, 'float'>) => {
    await settle(f());
    const ts: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      let last: Tensor<Wgpu, 'float'> | undefined;
      for (let i = 0; i < reps; i++) {
        last?.dispose();
        last = f();
      }
      await settle(last!);
      ts.push((performance.now() - t0) / reps);
      last!.dispose();
    }
    return Math.min(...ts);
  };
  const tAdd = await time(() => x.add(y));
  const tExp = await time(() => x.exp());
  // A 4-op chain, unfused: each op reads and writes n floats.
  const tChain = await time(() => {
    const a = x.mul(y);
    const b = a.add(1);
    const c = b.exp();
    const d = c.neg();
    a.dispose();
    b.dispose();
    c.dispose();
    return d;
  });
  x.dispose();
  y.dispose();
  const gb = (bytes: number, ms: number) => bytes / (ms / 1000) / 1e9;
  return { add: gb(12 * n, tAdd), exp: gb(8 * n, tExp), chain: gb((12 + 8 + 8 + 8) * n, tChain), chainMs: tChain };
}

async function readLatencyMs(w: Wgpu, floats: number, reps: number): Promise<number> {
  const t = random(w, [floats]);
  await t.toData();
  const ts: number[] = [];
  for (let r = 0; r < reps; r++) {
    const u = t.add(0); // fresh values each time: nothing cached
    await settle(u);
    const t0 = performance.now();
    await u.toData();
    ts.push(performance.now() - t0);
    u.dispose();
  }
  t.dispose();
  return median(ts);
}

/** A WGSL vec4 copy kernel: the bandwidth an elementwise kernel can reach through Dawn. */
async function kernelCopyGBs(device: GPUDevice, floats: number, reps: number): Promise<number> {
  const code = `@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> b: array<vec4<f32>>;
@compute @workgroup_size(256) fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let i = g.x + g.y * nw.x * 256u;
  if (i < arrayLength(&a)) { b[i] = a[i]; }
}`;
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
  const a = device.createBuffer({ size: floats * 4, usage });
  const b = device.createBuffer({ size: floats * 4, usage });
  const pipe = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code }), entryPoint: 'main' } });
  const bind = device.createBindGroup({ layout: pipe.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: a } }, { binding: 1, resource: { buffer: b } }] });
  const groups = Math.ceil(floats / 4 / 256);
  const gx = Math.min(groups, 65535);
  const gy = Math.ceil(groups / gx);
  const best = await bestMsPerRep(device, (enc, n) => {
    const pass = enc.beginComputePass();
    pass.setPipeline(pipe);
    pass.setBindGroup(0, bind);
    for (let i = 0; i < n; i++) pass.dispatchWorkgroups(gx, gy);
    pass.end();
  }, reps);
  a.destroy();
  b.destroy();
  return (8 * floats) / (best / 1000) / 1e9;
}

export async function main(args: readonly string[] = []): Promise<void> {
  const small = args.includes('--small');
  const shapes: Shape3[] = small ? [[128, 128, 128], [100, 300, 50]] : [[1024, 1024, 1024], [2048, 2048, 2048], [4096, 4096, 4096], [1000, 3000, 500]];
  const reps = (s: Shape3) => (small ? 2 : s[0] >= 4096 ? 10 : 30);
  const ours = await Wgpu.create();
  const naive = await Wgpu.create({ matmul: 'naive' });
  const info = await ours.adapterInfo();
  console.log(`adapter: ${info.vendor} ${info.architecture} ${info.description}`.trim());

  const rows: Array<[string, Record<string, number | undefined>]> = [];
  const oursT: Record<string, number> = {};
  const naiveT: Record<string, number> = {};
  for (const s of shapes) {
    oursT[key(s)] = await matmulTflops(ours, s, reps(s));
    naiveT[key(s)] = await matmulTflops(naive, s, reps(s));
  }
  rows.push(['Switchyard wgpu (tiled)', oursT], ['Switchyard wgpu naive 16x16', naiveT]);
  await naive.close();

  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const gpu = create([]);
  const tf = await tfjsMatmul(gpu, shapes, small ? 2 : 10);
  if (tf) rows.push(['TensorFlow.js webgpu', tf]);
  const torch = small ? undefined : torchBaselines(shapes);
  if (torch) rows.push([`torch.matmul fp32, TF32 off (${torch.device})`, torch.matmulTflops]);

  const n = small ? 1 << 20 : 64 << 20;
  const ew = await elementwiseGBs(ours, n, small ? 2 : 20);
  const lat = await readLatencyMs(ours, 1 << 20, small ? 3 : 15);
  await ours.close();
  const raw = await requestBenchDevice(gpu);
  const copyKernel = await kernelCopyGBs(raw, n, small ? 2 : 20);
  const copyCmd = await copyBandwidth(raw, n * 4, small ? 2 : 20);
  raw.destroy();

  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const header = ['matmul TFLOP/s', ...shapes.map(key)];
  const out = [line(header), line(header.map(() => '---'))];
  for (const [name, r] of rows) out.push(line([name, ...shapes.map((s) => (r[key(s)] === undefined ? 'n/a' : r[key(s)]!.toFixed(2)))]));
  const big = key(shapes[small ? 0 : 2]!);
  const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}x` : 'n/a');
  out.push('', `ours / naive at ${big}: ${ratio(oursT[big], naiveT[big])}; ours / TF.js: ${ratio(oursT[big], tf?.[big])}; ours / cuBLAS: ${ratio(oursT[big], torch?.matmulTflops[big])}`);
  const copyRef = torch?.copyGBs ?? copyKernel;
  out.push(
    '',
    line(['elementwise, ' + `${n / (1 << 20)}M floats`, 'GB/s', `of copy (${copyRef.toFixed(0)} GB/s${torch ? ', torch' : ', WGSL copy kernel'})`]),
    line(['---', '---', '---']),
    line(['add (read 2, write 1)', ew.add.toFixed(0), `${((100 * ew.add) / copyRef).toFixed(0)}%`]),
    line(['exp (read 1, write 1)', ew.exp.toFixed(0), `${((100 * ew.exp) / copyRef).toFixed(0)}%`]),
    line([`4-op chain mul,add,exp,neg (${ew.chainMs.toFixed(2)} ms)`, ew.chain.toFixed(0), `${((100 * ew.chain) / copyRef).toFixed(0)}%`]),
    line(['WGSL vec4 copy kernel through Dawn', copyKernel.toFixed(0), `${((100 * copyKernel) / copyRef).toFixed(0)}%`]),
    line(['copyBufferToBuffer through Dawn', copyCmd.toFixed(0), `${((100 * copyCmd) / copyRef).toFixed(0)}%`]),
    ...(torch ? [line(['torch add', torch.addGBs.toFixed(0), `${((100 * torch.addGBs) / copyRef).toFixed(0)}%`])] : []),
    '',
    `toData() of a 4 MB tensor, call to values: median ${lat.toFixed(2)} ms`,
  );
  console.log('\n' + out.join('\n'));
  void gpu;
}
