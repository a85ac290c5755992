/**
 * float16 benchmark (`npm run bench -- float16 [--cpu] [--small]`, on the GPU machine
 * `node dist/bench/main.js float16`): matmul TFLOP/s in float32 and float16 (float16 runs the
 * f32 kernel on widened copies, so this measures what the conversions cost), and an MLP
 * training step (784-1024-1024-10, batch 512, Adam) in f32 and f16-mixed (autocast + GradScaler).
 * `--cpu` runs on the CPU backend instead; `--small` uses small sizes for a software adapter.
 * Dawn offers 'shader-f16' on NVIDIA's Vulkan driver only with its `vulkan_enable_f16_on_nvidia`
 * toggle, so the benchmark asks its own Dawn instance for the adapter with that toggle.
 */
import { GradScaler, autocast } from '../src/amp/index.js';
import { Autodiff } from '../src/autodiff/autodiff.js';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { Distribution, random, type Tensor } from '../src/index.js';
import { tidy } from '../src/memory/tidy.js';
import { Relu } from '../src/nn/activation.js';
import { Linear } from '../src/nn/linear.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Sequential } from '../src/nn/sequential.js';
import { Adam } from '../src/optim/adam.js';
import { ParamGrads } from '../src/optim/param-grads.js';
import { fromData } from '../src/tensor/creation.js';
import { settle, warmUp } from './settle.js';


async function matmulTflops(b: Backend, n: number, dtype: 'float32' | 'float16', reps: number): Promise<number> {
  const a32 = random(b, [n, n], Distribution.Normal(0, 1));
  const c32 = random(b, [n, n], Distribution.Normal(0, 1));
  const a = dtype === 'float16' ? a32.cast('float16') : a32;
  const c = dtype === 'float16' ? c32.cast('float16') : c32;
  const warm = a.matmul(c);
  await settle(warm);
  warm.dispose();
  // The first call of a shape bucket starts kernel trials: time the tuned variant.
  if (b instanceof Wgpu) {
    await b.autotuned();
    // A GPU that idled (the inputs were just made) runs at low clocks until kept busy.
    await warmUp(() => a.matmul(c));
  }
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    let last: Tensor<Backend, 'float'> | undefined;
    for (let i = 0; i < reps; i++) {
      last?.dispose();
      last = a.matmul(c);
    }
    await settle(last!);
    best = Math.min(best, (performance.now() - t0) / reps);
    last!.dispose();
  }
  for (const t of new Set([a32, c32, a, c])) t.dispose();
  return (2 * n ** 3) / (best / 1000) / 1e12;
}

async function mlpStepMs(inner: Backend, mixed: boolean, sizes: { hidden: number; batch: number }, steps: number): Promise<{ ms: number; skipped: number }> {
  const b = new Autodiff(inner);
  const { hidden, batch } = sizes;
  const model = new Sequential(new Linear(b, 784, hidden), new Relu(), new Linear(b, hidden, hidden), new Relu(), new Linear(b, hidden, 10));
  const opt = new Adam<typeof b>({ lr: 1e-3 });
  const scaler = mixed ? new GradScaler() : undefined;
  const x = random(b, [batch, 784], Distribution.Normal(0, 1));
  const y = fromData(b, Int32Array.from({ length: batch }, (_, i) => i % 10));
  let skipped = 0;
  const step = async (): Promise<void> => {
    const { loss, grads } = tidy(() => {
      const logits = mixed ? autocast(() => model.forward(x), { runtime: b.runtime }) : model.forward(x);
      const l = crossEntropy(logits, y);
      return { loss: l, grads: ParamGrads.from((scaler ? scaler.scaleLoss(l) : l).backward(), model) };
    });
    if (scaler) {
      if (!(await scaler.step(opt, model, grads))) skipped++;
    } else opt.step(model, grads);
    grads.dispose();
    await loss.item();
    loss.dispose();
  };
  await step();
  await step();
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) await step();
  const ms = (performance.now() - t0) / steps;
  model.dispose();
  x.dispose();
  y.dispose();
  return { ms, skipped };
}

export async function main(args: readonly string[] = []): Promise<void> {
  const small = args.includes('--small');
  const onCpu = args.includes('--cpu');
  // The default adapter source turns on Dawn's f16 and subgroup-matrix toggles (README: WebGPU).
  const gpu = onCpu ? undefined : await Wgpu.create();
  const backend: Backend = gpu ?? new Cpu();
  const name = gpu ? `wgpu (${JSON.stringify((await gpu.adapterInfo()).description)}; tensor cores: ${(await gpu.features()).tensorCores ? 'yes' : 'no'})` : 'cpu';
  console.log(`float16 benchmark on ${name}, ${new Date().toISOString()}`);
  const sizes = small ? [128, 256] : [1024, 2048, 4096];
  for (const n of sizes) {
    const reps = small ? 3 : n >= 4096 ? 10 : 30;
    const f32 = await matmulTflops(backend, n, 'float32', reps);
    const f16 = await matmulTflops(backend, n, 'float16', reps);
    console.log(`matmul ${n}x${n}x${n}: float32 ${f32.toFixed(2)} TFLOP/s, float16 ${f16.toFixed(2)} TFLOP/s (${(f16 / f32).toFixed(2)}x)`);
  }
  const mlp = small ? { hidden: 128, batch: 64 } : { hidden: 1024, batch: 512 };
  const steps = small ? 3 : 20;
  const f32 = await mlpStepMs(backend, false, mlp, steps);
  const mixed = await mlpStepMs(backend, true, mlp, steps);
  console.log(`MLP step 784-${mlp.hidden}-${mlp.hidden}-10, batch ${mlp.batch}, Adam: f32 ${f32.ms.toFixed(2)} ms, f16-mixed ${mixed.ms.toFixed(2)} ms (${(mixed.ms / f32.ms).toFixed(2)}x; ${mixed.skipped} steps skipped by the scaler)`);
  await backend.close();
}
