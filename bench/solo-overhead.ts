/**
 * DataParallel's own cost per step on one GPU: its direct solo step (the replica on the calling
 * thread, its own optimizer step) against the same step written without it, alternating step by
 * step on two devices of one GPU, so drifts (clocks, the host) hit both alike. Per step: the host
 * time until the step's reads are asked for (ops recorded), the wall time, and the submits.
 *
 * `--batch N` (1024), `--steps N` (1500 timed pairs after 200), `--small` (784-64-10, batch 64, 300 pairs: lavapipe).
 */
import { median, medianInterval } from './stats.js';
import { intOption } from './args.js';
import { mlpRecord } from './mlp-record.js';
import { Autodiff } from '../src/autodiff/autodiff.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { tidy } from '../src/memory/tidy.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Adam } from '../src/optim/adam.js';
import { ParamGrads } from '../src/optim/param-grads.js';
import { DataParallel } from '../src/parallel/data-parallel.js';
import type { Batch } from '../src/parallel/protocol.js';
import { fromData } from '../src/tensor/creation.js';
import { mlp, type MnistTaskOptions } from '../examples/data-parallel-task.js';

const TASK = new URL(import.meta.url.endsWith('.ts') ? '../examples/data-parallel-task.ts' : '../examples/data-parallel-task.js', import.meta.url);
const LR = 1e-3;

export async function main(args: readonly string[]): Promise<void> {
  const small = args.includes('--small');
  const sizes = small ? [784, 64, 10] : [784, 512, 512, 10];
  const n = intOption(args, '--batch', small ? 64 : 1024);
  const steps = intOption(args, '--steps', small ? 300 : 1500);
  const warm = 200;
  let seed = 7;
  const next = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
  const x = new Float32Array(new SharedArrayBuffer(n * 784 * 4)).map(() => next());
  const y = new Int32Array(new SharedArrayBuffer(n * 4)).map(() => Math.floor(next() * 10));
  const batch: Batch = { x: { data: x, shape: [n, 784] }, y: { data: y, shape: [n] } };
  const record = await mlpRecord(sizes);

  const gpu = await Wgpu.create();
  const ad = new Autodiff(gpu);
  const device = ad.defaultDevice();
  const ctx = gpu.exec(device).context!;
  const model = mlp(ad, device, sizes);
  await model.fromRecord(record);
  const opt = new Adam<typeof ad>({ lr: LR });
  // The task's step (loss, the count of correct answers, Adam) and what a replica reads.
  const plain = async (): Promise<[number, number, number]> => {
    const s0 = ctx.submitCount;
    const t0 = performance.now();
    const [loss, correct] = tidy(() => {
      const logits = model.forward(fromData(ad, x, { shape: [n, 784], device }));
      const labels = fromData(ad, y, { device });
      const l = crossEntropy(logits, labels);
      const c = logits.argmax(1).equal(labels).cast('int32').sum();
      opt.step(model, ParamGrads.from(l.backward(), model));
      return [l, c] as const;
    });
    const reads = Promise.all([model.params().at(-1)!.value.toData(), loss.item(), correct.item()]);
    const host = performance.now() - t0;
    await reads;
    // Freeing the step's tensors is part of the step (DataParallel's replica does it before it answers).
    loss.dispose();
    correct.dispose();
    const wall = performance.now() - t0;
    return [host, wall, ctx.submitCount - s0];
  };
  const dp = await DataParallel.create<MnistTaskOptions>({ task: TASK, module: record, devices: 'wgpu:0', gpuHost: 'main', options: { sizes, lr: LR } });
  const parallel = async (): Promise<[number, number]> => {
    const t0 = performance.now();
    const p = dp.step(batch);
    const host = performance.now() - t0;
    await p;
    return [host, performance.now() - t0];
  };
  const rows = { plain: [] as Array<[number, number, number]>, dp: [] as Array<[number, number]> };
  const ratios: number[] = [];
  for (let s = 0; s < warm + steps; s++) {
    // Alternating which goes first: neither always follows the other.
    let a: [number, number, number];
    let b: [number, number];
    if (s % 2 === 0) {
      a = await plain();
      b = await parallel();
    } else {
      b = await parallel();
      a = await plain();
    }
    if (s < warm) continue;
    rows.plain.push(a);
    rows.dp.push(b);
    ratios.push(a[1] / b[1]);
  }
  const info = await gpu.adapterInfo();
  const [lo, hi] = medianInterval(ratios);
  console.log(`\n## DataParallel's own cost per step: MLP ${sizes.join('-')}, Adam, batch ${n}, one GPU (${info.device || info.description})\n`);
  console.log(`${steps} pairs after ${warm}, alternating step by step. Host ms: until the step's reads are asked for (its ops recorded).\n`);
  console.log('| step | ms per step (median) | host ms (median) | submits per step |');
  console.log('| --- | --- | --- | --- |');
  console.log(`| without DataParallel | ${median(rows.plain.map((r) => r[1])).toFixed(3)} | ${median(rows.plain.map((r) => r[0])).toFixed(3)} | ${median(rows.plain.map((r) => r[2]))} |`);
  console.log(`| DataParallel on wgpu:0 alone (direct solo step) | ${median(rows.dp.map((r) => r[1])).toFixed(3)} | ${median(rows.dp.map((r) => r[0])).toFixed(3)} | |`);
  const diff = median(rows.dp.map((r, i) => r[1] - rows.plain[i]![1]));
  console.log(`\npaired (without / with, step by step): ${median(ratios).toFixed(3)}x, 95% interval ${lo.toFixed(3)}-${hi.toFixed(3)}; DataParallel's own cost: ${(diff * 1000).toFixed(0)} us per step (median of the paired differences)`);
  await dp.close();
  model.dispose();
  await ad.close();
}
