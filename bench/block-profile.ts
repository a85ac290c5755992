/**
 * Where the transformer block's GPU time goes (the block of the fusion bench: d 512, 8 heads, seq
 * 256, batch 8, forward + backward): every kernel timed with GPU timestamps over a few steps, the
 * costliest first; then each matmul shape of the block alone (as the forward and backward call
 * them: plain, a transposed operand) beside torch fp32 (TF32 off) and torch's own kernel table
 * for the same step, measured in the same run.
 *
 * `--steps N` (5 profiled steps), `--small` (d 64, 4 heads, seq 32, batch 2: lavapipe), `--tuned`
 * (print the tuned kernel of each shape bucket).
 * `--after`: only the step's wall time, fresh and then after each thing the fusion bench does
 * before its block (large elementwise tensors, a kernel profile, a captured step replayed), to find
 * which of them leaves the block slower there.
 */
import { Autodiff, Distribution, Fusion, Wgpu, captureStep, random, tidy, type Tensor } from '../src/index.js';
import { intOption } from './args.js';
import { Block, TORCH_BLOCK } from './block.js';
import { torchJson } from './gpu-baselines.js';
import { settle } from './settle.js';

const TORCH = String.raw`
import json, sys, time, torch, torch.nn as nn, torch.nn.functional as F
${TORCH_BLOCK}
cfg = json.loads(sys.argv[1]); dev = 'cuda'
torch.backends.cuda.matmul.allow_tf32 = False
d, h, S, Bt = cfg['d'], cfg['heads'], cfg['seq'], cfg['batch']; dh = d // h
def timed(fn, n):
    for _ in range(3): fn()
    torch.cuda.synchronize(); t0 = time.perf_counter()
    for _ in range(n): fn()
    torch.cuda.synchronize(); return (time.perf_counter() - t0) * 1000 / n
mm = {}
for name, (a, b) in cfg['shapes'].items():
    x = torch.randn(*a, device=dev); y = torch.randn(*b, device=dev)
    mm[name] = timed(lambda: x @ y, 50)
step = torch_block(d, h, S, Bt, dev)
stepMs = timed(step, 20)
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    for _ in range(5): step()
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by='cuda_time_total', row_limit=15), file=sys.stderr)
print(json.dumps({'device': torch.cuda.get_device_name(0), 'mm': mm, 'stepMs': stepMs}))
`;

const fmt = (v: number, d = 3): string => v.toFixed(d);

export async function main(args: readonly string[]): Promise<void> {
  const small = args.includes('--small');
  const cfg = small ? { d: 64, heads: 4, seq: 32, batch: 2 } : { d: 512, heads: 8, seq: 256, batch: 8 };
  const steps = intOption(args, '--steps', 5);
  const { d, heads, seq, batch } = cfg;
  const tokens = seq * batch;
  const bh = batch * heads;
  const dh = d / heads;
  const gpu = await Wgpu.create();
  if (!(await gpu.features()).timestamps) throw new Error('this adapter has no timestamp-query: no kernel times');
  const ad = new Autodiff(gpu);
  const block = new Block(ad, d, heads);
  const x = random(ad, [batch, seq, d], Distribution.Normal(0, 1));
  const step = (): Tensor<typeof ad> =>
    tidy(() => {
      const loss = block.forward(x).square().mean();
      loss.backward().dispose();
      return loss;
    });
  const run = async (n: number): Promise<number> => {
    const t0 = performance.now();
    let last: Tensor<typeof ad> | undefined;
    for (let i = 0; i < n; i++) {
      last?.dispose();
      last = step();
    }
    await settle(last!);
    last!.dispose();
    return (performance.now() - t0) / n;
  };
  await run(3);
  const tuned = await gpu.autotuned();
  // The host's JIT: in a process that had run 13 steps the block took 8.7-10.5 ms on an H100 and
  // an H200, 2.9-5.9 ms after the fusion bench's earlier parts had run the same code.
  for (let i = 0; i < 5; i++) await run(10);
  const stepMs = await run(10);
  if (args.includes('--tuned')) for (const [bucket, variant] of Object.entries(tuned)) console.log(`tuned: ${bucket} -> ${variant}`);
  if (args.includes('--after')) {
    const line = async (what: string): Promise<void> => console.log(`| ${what} | ${fmt(await run(10))} | ${fmt(await run(10))} |`);
    console.log('| block step after | ms (10 queued) | again |\n| --- | ---: | ---: |');
    console.log(`| nothing (fresh) | ${fmt(stepMs)} | ${fmt(await run(10))} |`);
    for (let i = 0; i < 4; i++) {
      const big = random(ad, [small ? 1 << 20 : 64 << 20], Distribution.Normal(0, 1));
      const y = tidy(() => big.add(big).gelu());
      await settle(y);
      y.dispose();
      big.dispose();
    }
    await line('4 x 64M-float tensors made, used and freed');
    await gpu.startKernelProfile();
    await run(5);
    await gpu.stopKernelProfile();
    await line('a kernel profile of 5 steps');
    const cap = await captureStep(ad, step);
    for (let i = 0; i < 20; i++) await cap.run();
    await cap.sync();
    cap.dispose();
    for (const t of cap.outputs) t.dispose();
    await line('the step captured and replayed 20 times');
    const fused = new Autodiff(new Fusion(gpu));
    const fb = new Block(fused, d, heads);
    const fx = random(fused, [batch, seq, d], Distribution.Normal(0, 1));
    for (let i = 0; i < 3; i++) {
      const l = tidy(() => {
        const loss = fb.forward(fx).square().mean();
        loss.backward().dispose();
        return loss;
      });
      await settle(l);
      l.dispose();
    }
    await gpu.autotuned();
    await line('a Fusion over the same Wgpu ran the block 3 times');
    x.dispose();
    block.dispose();
    await ad.close();
    return;
  }
  await gpu.startKernelProfile();
  await run(steps);
  const kernels = await gpu.stopKernelProfile();
  const total = kernels.reduce((s, k) => s + k.totalMs, 0) / steps;

  console.log(`## Transformer block fwd+bwd (d ${d}, ${heads} heads, seq ${seq}, batch ${batch}): where the GPU time goes\n`);
  console.log(`step ${fmt(stepMs)} ms (wall, 10 steps queued back to back); GPU kernel time ${fmt(total)} ms per step over ${steps} profiled steps (each dispatch in its own timestamped pass)\n`);
  console.log('| kernel | calls per step | GPU ms per step | share | mean us |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const k of kernels.slice(0, 25)) {
    const name = k.kernel.length > 110 ? `${k.kernel.slice(0, 107)}...` : k.kernel;
    console.log(`| \`${name.replaceAll('|', '\\|')}\` | ${fmt(k.calls / steps, 1)} | ${fmt(k.totalMs / steps)} | ${fmt((100 * k.totalMs) / steps / total, 1)}% | ${fmt(k.meanUs, 1)} |`);
  }

  // The block's matmuls alone: [a shape, b shape, which operand the call transposes].
  const shapes: Record<string, [number[], number[], 'a' | 'b' | 'none']> = {
    'linear d->d fwd (x W^T)': [[tokens, d], [d, d], 'b'],
    'linear d->4d fwd': [[tokens, d], [4 * d, d], 'b'],
    'linear 4d->d fwd': [[tokens, 4 * d], [d, 4 * d], 'b'],
    'linear d->d dx (g W)': [[tokens, d], [d, d], 'none'],
    'linear d->4d dW (g^T x)': [[tokens, 4 * d], [tokens, d], 'a'],
    'attention scores (q k^T)': [[bh, seq, dh], [bh, seq, dh], 'b'],
    'attention values (p v)': [[bh, seq, seq], [bh, seq, dh], 'none'],
    'attention dP^T v (p^T g)': [[bh, seq, seq], [bh, seq, dh], 'a'],
  };
  const torchShapes: Record<string, [number[], number[]]> = {};
  const tr = (s: number[]): number[] => [...s.slice(0, -2), s.at(-1)!, s.at(-2)!];
  console.log('\n| matmul (shapes as stored; the call transposes one) | GFLOP | ours ms | ours TFLOP/s | torch fp32 ms | torch / ours |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  const ours: Record<string, { ms: number; gflop: number }> = {};
  for (const [name, [as, bs, t]] of Object.entries(shapes)) {
    const a = random(ad, as, Distribution.Normal(0, 1));
    const b = random(ad, bs, Distribution.Normal(0, 1));
    const call = (): Tensor<typeof ad> => tidy(() => (t === 'a' ? a.transpose().matmul(b) : t === 'b' ? a.matmul(b.transpose()) : a.matmul(b)));
    const ea = t === 'a' ? tr(as) : as;
    const eb = t === 'b' ? tr(bs) : bs;
    torchShapes[name] = [ea, eb];
    const m = ea.at(-2)!;
    const k = ea.at(-1)!;
    const n = eb.at(-1)!;
    const gflop = (2 * m * k * n * (ea.length === 3 ? ea[0]! : 1)) / 1e9;
    for (let i = 0; i < 3; i++) {
      const w = call();
      await settle(w);
      w.dispose();
    }
    await gpu.autotuned();
    const reps = 30;
    const t0 = performance.now();
    let last: Tensor<typeof ad> | undefined;
    for (let i = 0; i < reps; i++) {
      last?.dispose();
      last = call();
    }
    await settle(last!);
    last!.dispose();
    const ms = (performance.now() - t0) / reps;
    ours[name] = { ms, gflop };
    a.dispose();
    b.dispose();
  }
  const torch = torchJson<{ device: string; mm: Record<string, number>; stepMs: number }>(TORCH, [JSON.stringify({ ...cfg, shapes: torchShapes })], true);
  for (const [name, { ms, gflop }] of Object.entries(ours)) {
    const tm = torch?.mm[name];
    console.log(`| ${name}: [${torchShapes[name]![0].join(', ')}] x [${torchShapes[name]![1].join(', ')}] | ${fmt(gflop, 2)} | ${fmt(ms)} | ${fmt(gflop / ms, 1)} | ${tm === undefined ? 'n/a' : fmt(tm)} | ${tm === undefined ? '' : `${fmt(tm / ms, 2)}x`} |`);
  }
  console.log(`\ntorch (${torch?.device ?? 'n/a'}) block step, TF32 off: ${torch ? fmt(torch.stepMs) : 'n/a'} ms; ours ${fmt(stepMs)} ms${torch ? ` (${fmt(stepMs / torch.stepMs, 1)}x torch's)` : ''}; torch's kernel table is on stderr above`);
  x.dispose();
  block.dispose();
  await ad.close();
}
