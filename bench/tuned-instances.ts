/**
 * Several devices on one GPU, autotuned apart or sharing one table (`npm run bench --
 * tuned-instances`, compiled `node dist/bench/main.js tuned-instances [--k 4] [--batch 1024]
 * [--cycles 400]`). Each of `--k` devices trains its own copy of the MLP (784-512-512-10, Adam):
 * first every device with a table of its own (`autotune: { file: null }`: each times the matmul
 * variants itself), then every device on one shared table (a file of this run). Per mode it
 * prints each device's matmul winners and each device's step against device 0's, paired step by
 * step (device 0 steps before and after each of the others'), median with a 95% interval. Apart,
 * trials' noise can give two devices different kernels for the same work; shared, they run one.
 * On a software adapter (lavapipe) the timings follow the CPU's load: read it on a GPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Autodiff } from '../src/autodiff/autodiff.js';
import { Wgpu, type WgpuOptions } from '../src/backends/wgpu/backend.js';
import { tidy } from '../src/memory/tidy.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Adam } from '../src/optim/adam.js';
import { ParamGrads } from '../src/optim/param-grads.js';
import { fromData } from '../src/tensor/creation.js';
import { mlp } from '../examples/data-parallel-task.js';
import { intOption as option } from './args.js';

const SIZES = [784, 512, 512, 10];


function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A 95% interval for the median (order statistics: ranks n/2 -+ 0.98 sqrt(n)). */
function medianInterval(xs: readonly number[]): [number, number] {
  const s = [...xs].sort((a, b) => a - b);
  const half = 0.98 * Math.sqrt(s.length);
  return [s[Math.max(0, Math.floor(s.length / 2 - half))]!, s[Math.min(s.length - 1, Math.ceil(s.length / 2 + half) - 1)]!];
}

interface Runner {
  readonly gpu: Wgpu;
  step(): Promise<number>;
  close(): Promise<void>;
}

/** One device training its own MLP on a fixed batch; step() gives the wall time of one step. */
async function runner(options: WgpuOptions, x: Float32Array, y: Int32Array): Promise<Runner> {
  const gpu = await Wgpu.create(options);
  const ad = new Autodiff(gpu);
  ad.seed(1);
  const device = ad.defaultDevice();
  const model = mlp(ad, device, SIZES);
  const opt = new Adam<typeof ad>({ lr: 1e-3 });
  const n = y.length;
  return {
    gpu,
    step: async () => {
      const t0 = performance.now();
      const loss = tidy(() => {
        const l = crossEntropy(model.forward(fromData(ad, x, { shape: [n, 784], device })), fromData(ad, y, { device }));
        opt.step(model, ParamGrads.from(l.backward(), model));
        return l;
      });
      // A read ordered after the update (one queue), and the loss.
      await Promise.all([model.params().at(-1)!.value.toData(), loss.item()]);
      loss.dispose();
      return performance.now() - t0;
    },
    close: async () => {
      model.dispose();
      opt.clear();
      await ad.close();
    },
  };
}

async function measure(label: string, options: WgpuOptions, k: number, cycles: number, x: Float32Array, y: Int32Array): Promise<void> {
  const runs: Runner[] = [];
  try {
    for (let i = 0; i < k; i++) runs.push(await runner(options, x, y));
    // Every device meets the buckets, then waits for the trials (its own or another's).
    for (const r of runs) for (let s = 0; s < 3; s++) await r.step();
    const tables = [];
    for (const r of runs) tables.push(await r.gpu.autotuned());
    for (const r of runs) for (let s = 0; s < 30; s++) await r.step();
    console.log(`### ${label}\n`);
    const buckets = [...new Set(tables.flatMap((t) => Object.keys(t)))].filter((b) => b.startsWith('matmul')).sort();
    console.log(`| bucket | ${runs.map((_, i) => `device ${i}`).join(' | ')} |`);
    console.log(`| --- | ${runs.map(() => '---').join(' | ')} |`);
    for (const b of buckets) console.log(`| ${b} | ${tables.map((t) => t[b] ?? '-').join(' | ')} |`);
    const ratios: number[][] = runs.map(() => []);
    const walls: number[][] = runs.map(() => []);
    let before = await runs[0]!.step();
    for (let c = 0; c < cycles; c++) {
      const times: number[] = [];
      for (let i = 1; i < k; i++) times.push(await runs[i]!.step());
      const after = await runs[0]!.step();
      walls[0]!.push(after);
      times.forEach((t, j) => {
        ratios[j + 1]!.push((before + after) / 2 / t);
        walls[j + 1]!.push(t);
      });
      before = after;
    }
    console.log(`\ndevice 0: ${median(walls[0]!).toFixed(3)} ms per step (median)\n`);
    console.log('| device | ms per step | speed against device 0, paired (95% interval) |');
    console.log('| --- | --- | --- |');
    for (let i = 1; i < k; i++) {
      const [lo, hi] = medianInterval(ratios[i]!);
      console.log(`| ${i} | ${median(walls[i]!).toFixed(3)} | ${median(ratios[i]!).toFixed(3)}x (${lo.toFixed(3)}-${hi.toFixed(3)}) |`);
    }
    console.log('');
  } finally {
    for (const r of runs) await r.close();
  }
}

export async function main(args: readonly string[]): Promise<void> {
  const k = option(args, '--k', 4);
  const batch = option(args, '--batch', 1024);
  const cycles = option(args, '--cycles', 400);
  if (k < 2) throw new Error('--k takes at least 2 (device 0 is the reference)');
  let a = 7;
  const next = (): number => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
  const x = Float32Array.from({ length: batch * 784 }, next);
  const y = Int32Array.from({ length: batch }, () => Math.floor(next() * 10));
  const probe = await Wgpu.create();
  const info = await probe.adapterInfo();
  await probe.close();
  console.log(`## ${k} devices on one adapter (${info.description || info.device}): MLP 784-512-512-10, Adam, batch ${batch}; ${cycles} paired cycles\n`);
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-tuned-'));
  try {
    await measure('each device tuned apart (a table of its own)', { autotune: { file: null } }, k, cycles, x, y);
    await measure('one table shared by every device', { autotune: { file: join(dir, 'table.json') } }, k, cycles, x, y);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
