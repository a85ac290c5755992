/**
 * CPU/GPU overlap and router overhead (`npm run bench -- overlap [--quick] [--threads n]`; compiled:
 * `node dist/bench/main.js overlap`; `--threads n` sets the pool size, default the cores).
 *
 * - Overlap: a CPU branch (a chain of matmuls on the worker pool) and a GPU branch (a chain of
 *   matmuls on WebGPU), calibrated to similar durations, timed alone and together through one
 *   Router<[Wgpu, Cpu]>. overlap = (T_cpu + T_gpu - T_both) / min(T_cpu, T_gpu), the Intel MPI
 *   Benchmarks definition: 1 is perfect overlap, 0 is none (the branches ran one after the other).
 * - Router overhead: ops/s of 1k-element adds through the router against the inner backend used
 *   directly, on each device.
 *
 * Cases are interleaved round by round (order alternating) after a warm-up; medians are reported.
 * Progress goes to stderr, the tables (markdown) to stdout.
 */
import { median } from './stats.js';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { CpuDevice } from '../src/devices/cpu.js';
import type { Device } from '../src/devices/device.js';
import { MultiDevice } from '../src/devices/multi-device.js';
import { WgpuDevice } from '../src/devices/wgpu.js';
import { tidy } from '../src/memory/tidy.js';
import { Router } from '../src/router/router.js';
import { Distribution, fromData, random } from '../src/tensor/creation.js';
import type { Tensor } from '../src/tensor/tensor.js';

const log = (msg: string): void => void process.stderr.write(`[bench overlap] ${msg}\n`);

/** Runs every case once per round, alternating the order; returns the times (ms) per case. */
async function interleave(cases: ReadonlyArray<readonly [string, () => Promise<number>]>, rounds: number): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>(cases.map(([n]) => [n, []]));
  for (const [, run] of cases) await run(); // warm-up: pipelines, pool threads, JIT
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of r % 2 ? [...cases].reverse() : cases) out.get(name)!.push(await run());
  }
  return out;
}

// ---- overlap ----------------------------------------------------------------------------------

type R = Router<[Wgpu, Cpu]>;

/** A chain of k matmuls x <- x a on `device`; `a` is row-stochastic-ish, so values stay bounded. Returns the ms to the result. */
function chain(router: R, device: Device, n: number): (k: number, readAfter?: Promise<unknown>) => Promise<number> {
  const a = random(router, [n, n], Distribution.Uniform(0, 2 / n), { device });
  return async (k, readAfter) => {
    const t0 = performance.now();
    const out = tidy(() => {
      let x: Tensor<R, 'float'> = a;
      for (let i = 0; i < k; i++) x = x.matmul(a);
      return x.sum();
    });
    // Experiment: the result is read (a pending GPU readback) only after `readAfter` settles.
    if (readAfter) await readAfter;
    await out.item();
    out.dispose();
    return performance.now() - t0;
  };
}

/** The length of chain that takes about `ms`: grow until a run is long enough to time, then rescale twice at full length. */
async function calibrate(run: (k: number) => Promise<number>, ms: number): Promise<number> {
  const time = async (k: number): Promise<number> => Math.min(await run(k), await run(k));
  await run(2);
  let k = 4;
  let t = await time(k);
  while (t < ms / 4 && k < 4096) t = await time((k *= 4));
  for (let i = 0; i < 2; i++) {
    k = Math.max(1, Math.round((k * ms) / t));
    t = await time(k);
  }
  return k;
}

/**
 * The largest matmul size (128 to 4096) whose single product takes at most 1/16 of the branch:
 * small enough on a software adapter, large enough that a fast GPU is not dispatch-bound.
 */
async function gpuSize(router: R, device: Device, branchMs: number): Promise<[number, (k: number, readAfter?: Promise<unknown>) => Promise<number>]> {
  let best: [number, (k: number, readAfter?: Promise<unknown>) => Promise<number>] | undefined;
  for (let n = 128; n <= 4096; n *= 2) {
    const run = chain(router, device, n);
    await run(1);
    const t = median([await run(1), await run(1), await run(1)]);
    if (best && t > branchMs / 16) break;
    best = [n, run];
  }
  return best!;
}

interface OverlapResult {
  tCpu: number;
  tGpu: number;
  tBoth: number;
  /** In the run together: when each branch had its result (ms from the start). */
  cpuEnd: number;
  gpuEnd: number;
  overlap: number;
  kCpu: number;
  kGpu: number;
  nCpu: number;
  nGpu: number;
}

async function overlap(router: R, quick: boolean, nCpu: number, deferGpuRead: boolean): Promise<OverlapResult> {
  const [G, C] = [router.device(0, router.backends[0].defaultDevice()), router.device(1, CpuDevice.Cpu)];
  const cpuRun = chain(router, C, nCpu);
  const target = quick ? 150 : 400;
  const kCpu = await calibrate(cpuRun, target);
  const tc = median([await cpuRun(kCpu), await cpuRun(kCpu), await cpuRun(kCpu)]);
  const [nGpu, gpuRun] = await gpuSize(router, G, tc);
  const kGpu = await calibrate(gpuRun, tc);
  log(`CPU branch: ${kCpu} matmuls of ${nCpu}^2; GPU branch: ${kGpu} matmuls of ${nGpu}^2`);
  const ends: Array<[number, number]> = [];
  const both = async (): Promise<number> => {
    const t0 = performance.now();
    // Both chains are enqueued before either is awaited; with --defer-gpu-read the GPU result is
    // read only once the CPU branch is done (no readback pending while the CPU works).
    const cpuDone = cpuRun(kCpu);
    const [c, g] = await Promise.all([cpuDone, gpuRun(kGpu, deferGpuRead ? cpuDone : undefined)]);
    ends.push([c, g]);
    return performance.now() - t0;
  };
  const times = await interleave(
    [
      ['cpu', () => cpuRun(kCpu)],
      ['gpu', () => gpuRun(kGpu)],
      ['both', both],
    ],
    quick ? 3 : 7,
  );
  const tCpu = median(times.get('cpu')!);
  const tGpu = median(times.get('gpu')!);
  const tBoth = median(times.get('both')!);
  const cpuEnd = median(ends.map((e) => e[0]));
  const gpuEnd = median(ends.map((e) => e[1]));
  return { tCpu, tGpu, tBoth, cpuEnd, gpuEnd, overlap: (tCpu + tGpu - tBoth) / Math.min(tCpu, tGpu), kCpu, kGpu, nCpu, nGpu };
}

// ---- router overhead --------------------------------------------------------------------------

/** ops/s of `n` independent 1k-element adds on `device` of backend `b` (until the last is done). */
function addRate(b: Backend, device: Device, n: number): () => Promise<number> {
  const x = fromData(b, new Float32Array(1024).fill(1), { device });
  return async () => {
    const t0 = performance.now();
    let y: Tensor | undefined;
    for (let i = 0; i < n; i++) {
      y?.dispose();
      y = x.add(x);
    }
    await y!.toData();
    y!.dispose();
    return (n / (performance.now() - t0)) * 1000;
  };
}

interface OverheadRow {
  device: string;
  direct: number;
  routed: number;
  slower: number;
}

async function overhead(router: R, quick: boolean): Promise<OverheadRow[]> {
  const rows: OverheadRow[] = [];
  const targets: Array<[Backend, Device, Device, number]> = [
    [router.backends[1], CpuDevice.Cpu, MultiDevice.B2(CpuDevice.Cpu), 20_000],
    [router.backends[0], router.backends[0].defaultDevice(), MultiDevice.B1(router.backends[0].defaultDevice()), 4_000],
  ];
  for (const [inner, d, md, n] of targets) {
    const direct = addRate(inner, d, n);
    const routed = addRate(router, md, n);
    const ratios: number[] = [];
    const rd: number[] = [];
    const rr: number[] = [];
    await direct();
    await routed();
    for (let r = 0; r < (quick ? 9 : 31); r++) {
      // Pairs alternate their order; the ratio of each pair cancels slow drifts of a shared machine.
      const [a, b] = r % 2 ? [await routed(), await direct()].reverse() : [await direct(), await routed()];
      rd.push(a!);
      rr.push(b!);
      ratios.push(b! / a!);
    }
    rows.push({ device: d.key, direct: median(rd), routed: median(rr), slower: 1 - median(ratios) });
  }
  return rows;
}

// ---- entry ------------------------------------------------------------------------------------

export async function main(args: readonly string[] = []): Promise<void> {
  const quick = args.includes('--quick');
  const t = args.indexOf('--threads');
  const threads = t >= 0 ? Number(args[t + 1]) : undefined;
  let wgpu: Wgpu;
  try {
    wgpu = await Wgpu.create({ device: WgpuDevice.Default });
  } catch (e) {
    console.log(`overlap: no WebGPU adapter (${e instanceof Error ? e.message : String(e)}); nothing to measure`);
    return;
  }
  const cpu = new Cpu(threads === undefined ? {} : { threads });
  const router = new Router([wgpu, cpu]);
  const info = await wgpu.adapterInfo();
  const adapter = info.description || `${info.vendor} ${info.architecture}`.trim() || 'unknown adapter';
  log(`${router.name}: ${os.cpus().length} cores, pool of ${cpu.threads}, adapter '${adapter}'`);

  // Two CPU op sizes: a long chain of small matmuls needs the main thread between every op
  // (dispatching pool tasks), a short chain of large ones hardly at all.
  const results: OverlapResult[] = [];
  const defer = args.includes('--defer-gpu-read');
  if (defer) log('experiment: the GPU branch is read only after the CPU branch is done');
  for (const n of quick ? [256] : [256, 512]) results.push(await overlap(router, quick, n, defer));
  log('router overhead');
  const rows = args.includes('--overlap-only') ? [] : await overhead(router, quick);

  const ms = (x: number): string => x.toFixed(1);
  console.log(`\n### Overlap (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, pool of ${cpu.threads} threads, adapter '${adapter}'${defer ? ', GPU read deferred until the CPU branch is done' : ''})\n`);
  console.log('| CPU branch (pool) | GPU branch (WebGPU) | T_cpu ms | T_gpu ms | T_both ms (CPU done, GPU done) | overlap |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const o of results) {
    const work = (k: number, n: number): string => `${k} chained matmuls ${n}x${n}`;
    console.log(`| ${work(o.kCpu, o.nCpu)} | ${work(o.kGpu, o.nGpu)} | ${ms(o.tCpu)} | ${ms(o.tGpu)} | ${ms(o.tBoth)} (${ms(o.cpuEnd)}, ${ms(o.gpuEnd)}) | **${o.overlap.toFixed(2)}** |`);
  }
  console.log('\noverlap = (T_cpu + T_gpu - T_both) / min(T_cpu, T_gpu): 1 = perfect, 0 = serial; medians of interleaved rounds\n');
  console.log(`### Router overhead (1k-element adds, ops/s, median of interleaved pairs)\n`);
  console.log('| device | inner backend directly | through router<wgpu, cpu> | router slower by |');
  console.log('| --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.device} | ${r.direct.toFixed(0)} | ${r.routed.toFixed(0)} | ${(100 * r.slower).toFixed(1)}% |`);
  await router.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
