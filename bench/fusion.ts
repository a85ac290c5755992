/**
 * Fusion benchmark (`npm run bench -- fusion`, or `node dist/bench/main.js fusion` on the GPU
 * machine; `--small` for a software adapter). One run prints, measured side by side:
 *  - the GELU `x * (erf(x / sqrt2) + 1) / 2` written as five tensor ops on 64M floats: fused
 *    (Fusion<Wgpu>: one kernel) against the five unfused kernels, the one-kernel `x.gelu()`, and
 *    torch's device copy (the bandwidth bar); an unfused `add` against the same copy;
 *  - one SGD training step of an MLP 784-512-512-10 (batch 256, softmax cross-entropy) under
 *    Autodiff<Wgpu> and Autodiff<Fusion<Wgpu>>, each also captured once and replayed (captureStep),
 *    beside TensorFlow.js webgpu and torch CUDA eager;
 *  - a transformer encoder block forward + backward (d 512, 8 heads, seq 256, batch 8; post-norm,
 *    attention from matmul / softmax, GELU feed-forward of 2048) with and without fusion, beside
 *    torch eager written with the same ops;
 *  - the same GELU on the CPU backend, fused and unfused.
 * Our times per call are the best of three rounds of n calls, each ending with one read, divided
 * by n (the elementwise rows also in rounds of 4n); torch times are CUDA events over the same loops.
 * `--cpu-only` runs the CPU part alone (no adapter needed). `--trace-block` also times the block
 * after each part; `--tuned` prints the tuned kernel of each shape bucket.
 */
import { Autodiff, Cpu, Distribution, Fusion, Wgpu, captureStep, fromData, nn, random, tidy, type Backend, type CapturedStep, type Tensor } from '../src/index.js';
import type { GpuContext } from '../src/backends/wgpu/context.js';
import { ParamGrads, SGD } from '../src/optim/index.js';
import { torchJson } from './gpu-baselines.js';
import { settle } from './settle.js';
import { Block, TORCH_BLOCK } from './block.js';

interface Config {
  readonly n: number;
  readonly batch: number;
  readonly block: { readonly d: number; readonly heads: number; readonly seq: number; readonly batch: number };
  readonly reps: { readonly ew: number; readonly mlp: number; readonly block: number };
  readonly cpuN: number;
}

const FULL: Config = { n: 64 << 20, batch: 256, block: { d: 512, heads: 8, seq: 256, batch: 8 }, reps: { ew: 100, mlp: 50, block: 10 }, cpuN: 16 << 20 };
const SMALL: Config = { n: 1 << 20, batch: 64, block: { d: 64, heads: 4, seq: 32, batch: 2 }, reps: { ew: 4, mlp: 4, block: 2 }, cpuN: 1 << 20 };

type Any = Tensor<Backend, 'float'>;

/** The issue's GELU, five tensor ops. */
function gelu5<B extends Backend>(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
  return x.mul(x.div(Math.SQRT2).erf().add(1)).div(2);
}


/**
 * Milliseconds per call of `run`: the best of three rounds of `n` calls, each round ending with
 * one read, divided by n. The read's latency stays in (an upper bound on the time per call, small
 * against n calls). An earlier form, the difference of n and 2n calls, printed impossible figures
 * on the H200 (an add above the memory bandwidth): short rounds cost more per call than long
 * ones there (fixed costs that do not cancel; why is not known), so the difference came out too small.
 */
async function perRep<T extends { dispose(): void }>(run: () => T, sync: (last: T) => Promise<void>, n: number): Promise<number> {
  const time = async (k: number): Promise<number> => {
    const t0 = performance.now();
    let last: T | undefined;
    for (let i = 0; i < k; i++) {
      const next = run();
      last?.dispose();
      last = next;
    }
    await sync(last!);
    last!.dispose();
    return performance.now() - t0;
  };
  await time(Math.max(2, Math.ceil(n / 2)));
  let best = Infinity;
  for (let r = 0; r < 3; r++) best = Math.min(best, await time(n));
  return best / n;
}

const per = <B extends Backend>(run: () => Tensor<B, 'float'>, n: number) => perRep(run, (t) => settle(t as Any), n);

// ---- torch (CUDA eager), the same work ------------------------------------------------------

interface TorchFigures {
  readonly device: string;
  readonly copyMs: number;
  readonly addMs: number;
  readonly geluMs: number;
  readonly gelu5Ms: number;
  readonly mlpMs: number;
  readonly blockMs: number;
}

const TORCH = String.raw`
import json, sys, torch, torch.nn as nn, torch.nn.functional as F
${TORCH_BLOCK}
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
cfg = json.loads(sys.argv[1])
dev = torch.device('cuda')
def bench(fn, reps):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    best = float('inf')
    for _ in range(5):
        s.record()
        for _ in range(reps): fn()
        e.record(); torch.cuda.synchronize()
        best = min(best, s.elapsed_time(e) / reps)
    return best
out = {'device': torch.cuda.get_device_name(0)}
n = cfg['n']
x = torch.randn(n, device=dev); y = torch.randn(n, device=dev); z = torch.empty_like(x)
out['copyMs'] = bench(lambda: z.copy_(x), 50)
out['addMs'] = bench(lambda: torch.add(x, y, out=z), 50)
out['geluMs'] = bench(lambda: F.gelu(x), 50)
out['gelu5Ms'] = bench(lambda: x * (torch.erf(x / 1.4142135623730951) + 1) / 2, 50)
del x, y, z
B = cfg['batch']
mlp = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
opt = torch.optim.SGD(mlp.parameters(), lr=0.01)
xb = torch.randn(B, 784, device=dev); yb = torch.randint(0, 10, (B,), device=dev)
def mlp_step():
    opt.zero_grad(set_to_none=True)
    F.cross_entropy(mlp(xb), yb).backward()
    opt.step()
out['mlpMs'] = bench(mlp_step, 100)
c = cfg['block']
out['blockMs'] = bench(torch_block(c['d'], c['heads'], c['seq'], c['batch'], dev), 20)
print(json.dumps(out))
`;

// ---- the models ------------------------------------------------------------------------------

function mlp<B extends Backend>(b: B): nn.Sequential<B> {
  return new nn.Sequential(new nn.Linear(b, 784, 512), new nn.Relu(), new nn.Linear(b, 512, 512), new nn.Relu(), new nn.Linear(b, 512, 10));
}

// ---- measurements ----------------------------------------------------------------------------

interface Ew {
  fusedMs: number;
  /** Per call in rounds of 4n calls. */
  fusedLongMs: number;
  addLongMs: number;
  unfusedMs: number;
  geluMs: number;
  addMs: number;
  /** GPU time of the kernels alone (timestamps), where the adapter has them. */
  kernel?: { fusedMs: number; geluMs: number; addMs: number };
}

async function elementwise(plain: Wgpu, fused: Fusion<Wgpu>, cfg: Config): Promise<Ew> {
  const fx = random(fused, [cfg.n], Distribution.Normal(0, 1));
  const x = random(plain, [cfg.n], Distribution.Normal(0, 1));
  const y = random(plain, [cfg.n], Distribution.Normal(0, 1));
  await settle(fx);
  for (const t of [x, y]) await settle(t);
  const r = cfg.reps.ew;
  const fusedCall = () => {
    const out = tidy(() => gelu5(fx));
    // One kernel per call: in a loop, later calls would otherwise join the open group and leave
    // only the last call's result to compute.
    fused.flush();
    return out;
  };
  const fusedMs = await per(fusedCall, r);
  const unfusedMs = await per(() => tidy(() => gelu5(x)), r);
  const geluMs = await per(() => x.gelu(), r);
  const addMs = await per(() => x.add(y), r);
  // Rounds four times as long: the round's fixed costs (the GPU idle while the first submit is
  // encoded, the final read's latency) spread over more calls, closer to the steady state that
  // torch's GPU events time.
  const fusedLongMs = await per(fusedCall, 4 * r);
  const addLongMs = await per(() => x.add(y), 4 * r);
  // The same calls with GPU timestamps (each kernel timed alone: no host time, no gaps).
  let kernel: Ew['kernel'];
  if ((await plain.features()).timestamps) {
    await plain.startKernelProfile();
    await per(() => {
      const out = tidy(() => gelu5(fx));
      fused.flush();
      return out;
    }, 10);
    await per(() => x.gelu(), 10);
    await per(() => x.add(y), 10);
    const table = await plain.stopKernelProfile();
    const mean = (prefix: string) => (table.find((k) => k.kernel.startsWith(prefix))?.meanUs ?? NaN) / 1000;
    kernel = { fusedMs: mean('fz|divScalar'), geluMs: mean('fz|gelu'), addMs: mean('fz|add,') };
  }
  for (const t of [fx, x, y]) t.dispose();
  return { fusedMs, unfusedMs, geluMs, addMs, fusedLongMs, addLongMs, kernel };
}

interface Step {
  ms: number;
  dispatches: number;
  /** Command buffers submitted per step, steps run back to back (as timed). */
  submits: number;
  /**
   * Milliseconds of JavaScript per step: the steps' own calls (tape, records, encoding), without
   * waiting for the GPU. Close to `ms`: the step is bound by the host, not the GPU.
   */
  hostMs?: number;
  /** Milliseconds of GPU kernel time per step (timestamps, kernels summed), where the adapter has them. */
  gpuMs?: number;
  /** Bind groups created per step in the host-time loop (a loop that repeats its ops should create none once warm). */
  bindGroups?: number;
  /** The same step captured once (captureStep) and replayed. */
  captured?: { ms: number; hostMs: number; dispatches: number; submits: number };
}

/**
 * A captured step's replays: milliseconds per step (best of three rounds of `n` replays, each
 * round ending when the GPU is done) and the host time of the replay calls alone.
 */
async function timeReplays<B extends Backend>(cap: CapturedStep<B>, ctx: GpuContext, n: number): Promise<NonNullable<Step['captured']>> {
  const round = async (k: number): Promise<{ ms: number; hostMs: number }> => {
    const t0 = performance.now();
    for (let i = 0; i < k; i++) await cap.run();
    const host = performance.now() - t0;
    await cap.sync();
    return { ms: (performance.now() - t0) / k, hostMs: host / k };
  };
  await round(Math.max(2, Math.ceil(n / 2)));
  const submitted = ctx.submitCount;
  const rounds = [await round(n), await round(n), await round(n)];
  return {
    ms: Math.min(...rounds.map((r) => r.ms)),
    hostMs: Math.min(...rounds.map((r) => r.hostMs)),
    dispatches: cap.dispatches,
    // sync() adds one submit per round where the step has index checks.
    submits: (ctx.submitCount - submitted) / (3 * n),
  };
}

/**
 * Runs a step until the autotuner has settled its matmul variants: a shape's first calls start
 * kernel trials in the background (up to half a second per shape bucket), and steps timed
 * meanwhile stalled 50-100 ms now and then on the H200.
 */
async function tunedWarmUp<B extends Backend>(step: () => Tensor<B>, wgpu: Wgpu): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const t = step();
    await settle(t);
    t.dispose();
  }
  await wgpu.autotuned();
}

async function mlpStep<B extends Backend>(b: B, wgpu: Wgpu, cfg: Config): Promise<Step> {
  const ad = new Autodiff(b);
  const model = mlp(ad);
  const opt = new SGD<typeof ad>({ lr: 0.01 });
  const x = random(ad, [cfg.batch, 784], Distribution.Normal(0, 1));
  const labels = Int32Array.from({ length: cfg.batch }, (_, i) => (i * 7) % 10);
  const y = fromData(ad, labels);
  const step = () =>
    tidy(() => {
      const loss = nn.crossEntropy(model.forward(x), y);
      opt.step(model, ParamGrads.from(loss.backward(), model), 0.01);
      return loss;
    });
  const ctx = wgpu.exec(wgpu.defaultDevice()).context!;
  await tunedWarmUp(step, wgpu);
  const ms = await per(step, cfg.reps.mlp);
  const before = ctx.dispatchCount;
  const submitted = ctx.submitCount;
  const groupsBefore = ctx.bindGroupsCreated;
  const k = cfg.reps.mlp;
  let hostMs = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    let last: ReturnType<typeof step> | undefined;
    for (let i = 0; i < k; i++) {
      const next = step();
      last?.dispose();
      last = next;
    }
    hostMs = Math.min(hostMs, (performance.now() - t0) / k);
    await settle(last as Any);
    last!.dispose();
  }
  const dispatches = (ctx.dispatchCount - before) / (3 * k);
  const submits = (ctx.submitCount - submitted) / (3 * k);
  const bindGroups = (ctx.bindGroupsCreated - groupsBefore) / (3 * k);
  let gpuMs: number | undefined;
  if ((await wgpu.features()).timestamps) {
    await wgpu.startKernelProfile();
    for (let i = 0; i < 10; i++) {
      const l = step();
      await settle(l as Any);
      l.dispose();
    }
    gpuMs = (await wgpu.stopKernelProfile()).reduce((t, e) => t + e.totalMs, 0) / 10;
  }
  // The same step recorded once and replayed: no tensor API, autodiff or fusion work per step.
  const cap = await captureStep(ad, step, { state: () => model.params().map((p) => p.value) });
  const captured = await timeReplays(cap, ctx, 4 * cfg.reps.mlp);
  cap.dispose();
  for (const t of cap.outputs) t.dispose();
  x.dispose();
  y.dispose();
  return { ms, dispatches, submits, hostMs, bindGroups, captured, ...(gpuMs === undefined ? {} : { gpuMs }) };
}

async function blockStep<B extends Backend>(b: B, wgpu: Wgpu, cfg: Config): Promise<Step> {
  const ad = new Autodiff(b);
  const { d, heads, seq, batch } = cfg.block;
  const block = new Block(ad, d, heads);
  const x = random(ad, [batch, seq, d], Distribution.Normal(0, 1));
  const step = () =>
    tidy(() => {
      const loss = block.forward(x).square().mean();
      loss.backward().dispose();
      return loss;
    });
  const ctx = wgpu.exec(wgpu.defaultDevice()).context!;
  await tunedWarmUp(step, wgpu);
  const ms = await per(step, cfg.reps.block);
  const before = ctx.dispatchCount;
  const submitted = ctx.submitCount;
  const last = step();
  await settle(last as Any);
  last.dispose();
  x.dispose();
  block.dispose();
  return { ms, dispatches: ctx.dispatchCount - before, submits: ctx.submitCount - submitted };
}

type Tf = typeof import('@tensorflow/tfjs-core');

/**
 * TensorFlow.js webgpu: the same MLP step (SGD, softmax cross-entropy), or undefined if it cannot
 * start. tfjs-core alone registers no gradients (the tfjs bundle does, and Node cannot load its
 * ES modules), so the backward pass is written out with the ops autodiff would run.
 */
async function tfjsMlp(gpu: GPU, cfg: Config): Promise<number | undefined> {
  try {
    const g = globalThis as { navigator?: { gpu?: GPU } };
    if (!g.navigator) Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
    else if (!g.navigator.gpu) Object.defineProperty(g.navigator, 'gpu', { value: gpu, configurable: true });
    const tf: Tf = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-webgpu');
    if (!(await tf.setBackend('webgpu'))) return undefined;
    await tf.ready();
    const layer = (i: number, o: number) => {
      const bound = 1 / Math.sqrt(i);
      return [tf.variable(tf.randomUniform([i, o], -bound, bound)), tf.variable(tf.randomUniform([o], -bound, bound))] as const;
    };
    const [w1, b1] = layer(784, 512);
    const [w2, b2] = layer(512, 512);
    const [w3, b3] = layer(512, 10);
    const x = tf.randomNormal([cfg.batch, 784]);
    const y = tf.oneHot(tf.tensor1d(Int32Array.from({ length: cfg.batch }, (_, i) => (i * 7) % 10), 'int32'), 10);
    const lr = 0.01;
    const step = () =>
      tf.tidy(() => {
        const z1 = tf.add(tf.matMul(x, w1), b1);
        const h1 = tf.relu(z1);
        const z2 = tf.add(tf.matMul(h1, w2), b2);
        const h2 = tf.relu(z2);
        const logp = tf.logSoftmax(tf.add(tf.matMul(h2, w3), b3));
        const loss = tf.neg(tf.mean(tf.sum(tf.mul(y, logp), 1)));
        // d loss / d logits = (softmax - onehot) / batch
        const dl = tf.div(tf.sub(tf.exp(logp), y), cfg.batch);
        const dh2 = tf.mul(tf.matMul(dl, w3, false, true), tf.step(z2));
        const dh1 = tf.mul(tf.matMul(dh2, w2, false, true), tf.step(z1));
        const updates: Array<[typeof w1, ReturnType<Tf['matMul']>]> = [
          [w3, tf.matMul(h2, dl, true, false)],
          [b3, tf.sum(dl, 0)],
          [w2, tf.matMul(h1, dh2, true, false)],
          [b2, tf.sum(dh2, 0)],
          [w1, tf.matMul(x, dh1, true, false)],
          [b1, tf.sum(dh1, 0)],
        ];
        for (const [v, grad] of updates) v.assign(tf.sub(v, tf.mul(grad, lr)));
        return loss;
      });
    return await perRep(step, async (loss) => void (await loss.data()), cfg.reps.mlp);
  } catch (e) {
    console.error('tfjs webgpu baseline failed:', e instanceof Error ? e.message : e);
    return undefined;
  }
}

/**
 * The same GELU on the CPU backend, fused and unfused, inline and on the worker pool: the best of
 * several single calls, alternating (the CPU has no read latency to cancel, and the best is what
 * survives other load on a shared machine).
 */
async function cpuGelu(cfg: Config): Promise<Array<[string, number]>> {
  const rows: Array<[string, number]> = [];
  const tries = 7;
  for (const threads of [0, undefined]) {
    const cpu = new Cpu(threads === undefined ? {} : { threads });
    const fused = new Fusion(cpu);
    const x = random(cpu, [cfg.cpuN], Distribution.Normal(0, 1));
    const fx = random(fused, [cfg.cpuN], Distribution.Normal(0, 1));
    await settle(x);
    await settle(fx);
    const once = async (f: () => Any): Promise<number> => {
      const t0 = performance.now();
      const out = f();
      await settle(out);
      out.dispose();
      return performance.now() - t0;
    };
    let unfused = Infinity;
    let fusedBest = Infinity;
    for (let i = 0; i < tries; i++) {
      unfused = Math.min(unfused, await once(() => tidy(() => gelu5(x))));
      fusedBest = Math.min(
        fusedBest,
        await once(() => {
          const out = tidy(() => gelu5(fx));
          fused.flush();
          return out;
        }),
      );
    }
    const label = threads === 0 ? 'inline' : `pool of ${cpu.threads}`;
    // With the wasm kernels Fusion passes CPU records through (README "Fusion", "The CPU").
    const how = fused.fusesElementwise(cpu.device.key) ? 'fused (one JS loop)' : 'Fusion<Cpu> (passes through to the wasm kernels)';
    rows.push([`cpu ${label}, 5 unfused ops (${cpu.kernels} kernels)`, unfused], [`cpu ${label}, ${how}`, fusedBest]);
    x.dispose();
    fx.dispose();
    await cpu.close();
  }
  return rows;
}

// ---- the report ------------------------------------------------------------------------------

const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

function cpuTable(rows: ReadonlyArray<[string, number]>, cfg: Config): string[] {
  const out = [line([`GELU, 5 ops on the CPU, ${cfg.cpuN / (1 << 20)}M floats`, 'ms (best of 7)']), line(['---', '---'])];
  for (const [name, ms] of rows) out.push(line([name, ms.toFixed(1)]));
  return out;
}

export async function main(args: readonly string[] = []): Promise<void> {
  const small = args.includes('--small');
  const cfg = small ? SMALL : FULL;
  if (args.includes('--cpu-only')) {
    console.log('\n' + cpuTable(await cpuGelu(cfg), cfg).join('\n'));
    return;
  }
  const wgpu = await Wgpu.create();
  const fused = new Fusion(wgpu);
  const info = await wgpu.adapterInfo();
  console.log(`adapter: ${info.vendor} ${info.architecture} ${info.description}`.trim());
  console.log(`config: ${JSON.stringify(cfg)}`);

  // --trace-block: the block's step time after each part (this bench's block has run up to 5x
  // slower than the same block in a fresh process; which part leaves it so is not known).
  const trace = args.includes('--trace-block') ? async (after: string) => console.log(`trace: block ${(await blockStep(wgpu, wgpu, cfg)).ms.toFixed(2)} ms after ${after}`) : async () => undefined;
  await trace('the device was made');
  const torch = torchJson<TorchFigures>(TORCH, [JSON.stringify(cfg)], true);
  if (!torch) console.log('torch: not available (python3 with torch and CUDA is needed); its rows are n/a');
  await trace('torch ran');

  const ew = await elementwise(wgpu, fused, cfg);
  await trace('the elementwise part');
  const mlpPlain = await mlpStep(wgpu, wgpu, cfg);
  await trace('the MLP step');
  const mlpFused = await mlpStep(fused, wgpu, cfg);
  await trace('the MLP step under Fusion');
  const blockPlain = await blockStep(wgpu, wgpu, cfg);
  const blockFused = await blockStep(fused, wgpu, cfg);
  // --tuned: which kernel variant won each shape bucket.
  if (args.includes('--tuned')) for (const [bucket, variant] of Object.entries(await wgpu.autotuned())) console.log(`tuned: ${bucket} -> ${variant}`);
  await fused.close();

  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const tf = await tfjsMlp(create([]), cfg);
  const cpu = await cpuGelu(cfg);

  const bytes = 4 * cfg.n;
  const gbs = (b: number, ms: number) => b / (ms / 1000) / 1e9;
  const copyGBs = torch ? gbs(2 * bytes, torch.copyMs) : undefined;
  const ofCopy = (g: number) => (copyGBs ? `${((100 * g) / copyGBs).toFixed(0)}%` : 'n/a');
  const out: string[] = [];
  out.push(line([`elementwise, ${cfg.n / (1 << 20)}M floats`, 'ms', 'GB/s', `of torch copy (${copyGBs ? copyGBs.toFixed(0) : 'n/a'} GB/s)`]), line(['---', '---', '---', '---']));
  const ewRow = (name: string, ms: number, b: number) => out.push(line([name, ms.toFixed(3), gbs(b, ms).toFixed(0), ofCopy(gbs(b, ms))]));
  ewRow('GELU, 5 ops, fused (Fusion<Wgpu>: one kernel; read 1, write 1)', ew.fusedMs, 2 * bytes);
  ewRow('GELU, 5 ops, unfused (5 kernels; counted as read 1, write 1)', ew.unfusedMs, 2 * bytes);
  ewRow('x.gelu() (one hand-written kernel)', ew.geluMs, 2 * bytes);
  ewRow('add, unfused (read 2, write 1)', ew.addMs, 3 * bytes);
  ewRow(`GELU, 5 ops, fused, rounds of ${4 * cfg.reps.ew} calls`, ew.fusedLongMs, 2 * bytes);
  ewRow(`add, unfused, rounds of ${4 * cfg.reps.ew} calls`, ew.addLongMs, 3 * bytes);
  if (ew.kernel) {
    ewRow('GELU fused, GPU time of the kernel (timestamps)', ew.kernel.fusedMs, 2 * bytes);
    ewRow('x.gelu(), GPU time of the kernel (timestamps)', ew.kernel.geluMs, 2 * bytes);
    ewRow('add, GPU time of the kernel (timestamps)', ew.kernel.addMs, 3 * bytes);
  }
  if (torch) {
    ewRow(`torch copy (${torch.device})`, torch.copyMs, 2 * bytes);
    ewRow('torch add', torch.addMs, 3 * bytes);
    ewRow('torch F.gelu', torch.geluMs, 2 * bytes);
    ewRow('torch GELU, 5 ops eager (counted as read 1, write 1)', torch.gelu5Ms, 2 * bytes);
  }
  const fusedShare = copyGBs ? gbs(2 * bytes, ew.fusedMs) / copyGBs : undefined;
  const addShare = copyGBs ? gbs(3 * bytes, ew.addMs) / copyGBs : undefined;
  out.push(
    '',
    // The goal's measure: per call through the API, host included, in rounds long enough that a
    // round's start and final read do not dominate (torch's copy is timed by GPU events).
    ...(copyGBs ? [`fused GELU / torch copy bandwidth, per call in rounds of ${4 * cfg.reps.ew} (host included; the goal's measure): ${((100 * gbs(2 * bytes, ew.fusedLongMs)) / copyGBs).toFixed(0)}% (goal >= 80%: ${verdict(gbs(2 * bytes, ew.fusedLongMs) / copyGBs >= 0.8)})`] : []),
    `fused GELU / torch copy bandwidth, per call in rounds of ${cfg.reps.ew}: ${fusedShare === undefined ? 'n/a' : `${(100 * fusedShare).toFixed(0)}%`}`,
    ...(ew.kernel && copyGBs ? [`fused GELU / torch copy bandwidth, GPU time of the kernel: ${((100 * gbs(2 * bytes, ew.kernel.fusedMs)) / copyGBs).toFixed(0)}%`] : []),
    `fused GELU speed-up over the unfused chain: ${(ew.unfusedMs / ew.fusedMs).toFixed(2)}x (goal >= 4x: ${verdict(ew.unfusedMs / ew.fusedMs >= 4)})`,
    // The same measure as the GELU's verdict (rounds of 4n calls); the short rounds beside it.
    ...(copyGBs ? [`unfused add / torch copy bandwidth, per call in rounds of ${4 * cfg.reps.ew} (the goal's measure): ${((100 * gbs(3 * bytes, ew.addLongMs)) / copyGBs).toFixed(0)}% (goal >= 70%: ${verdict(gbs(3 * bytes, ew.addLongMs) / copyGBs >= 0.7)})`] : []),
    `unfused add / torch copy bandwidth, per call in rounds of ${cfg.reps.ew}: ${addShare === undefined ? 'n/a' : `${(100 * addShare).toFixed(0)}%`}`,
  );

  const vsTorch = (ms: number | undefined, t: number | undefined) => (ms !== undefined && t ? `${(ms / t).toFixed(2)}x` : 'n/a');
  out.push('', line([`MLP 784-512-512-10 SGD step, batch ${cfg.batch}`, 'ms per step', 'host JS ms per step', 'GPU kernel ms per step', 'dispatches per step', 'submits per step', 'bind groups made per step', 'vs torch']), line(['---', '---', '---', '---', '---', '---', '---', '---']));
  const host = (s: Step) => (s.hostMs === undefined ? '' : s.hostMs.toFixed(3));
  const gpu = (s: Step) => (s.gpuMs === undefined ? '' : s.gpuMs.toFixed(3));
  const groups = (s: Step) => (s.bindGroups === undefined ? '' : s.bindGroups.toFixed(2));
  out.push(line(['Switchyard autodiff<wgpu>', mlpPlain.ms.toFixed(3), host(mlpPlain), gpu(mlpPlain), String(mlpPlain.dispatches), mlpPlain.submits.toFixed(2), groups(mlpPlain), vsTorch(mlpPlain.ms, torch?.mlpMs)]));
  out.push(line(['Switchyard autodiff<fusion<wgpu>>', mlpFused.ms.toFixed(3), host(mlpFused), gpu(mlpFused), String(mlpFused.dispatches), mlpFused.submits.toFixed(2), groups(mlpFused), vsTorch(mlpFused.ms, torch?.mlpMs)]));
  for (const [name, st] of [['autodiff<wgpu>', mlpPlain], ['autodiff<fusion<wgpu>>', mlpFused]] as const) {
    const c = st.captured;
    if (c) out.push(line([`Switchyard ${name}, captured (captureStep, replayed)`, c.ms.toFixed(3), c.hostMs.toFixed(3), '', String(c.dispatches), c.submits.toFixed(2), '0', vsTorch(c.ms, torch?.mlpMs)]));
  }
  out.push(line(['TensorFlow.js webgpu (backward written out)', tf === undefined ? 'n/a' : tf.toFixed(3), '', '', '', '', '', vsTorch(tf, torch?.mlpMs)]));
  out.push(line(['torch CUDA eager', torch ? torch.mlpMs.toFixed(3) : 'n/a', '', '', '', '', '', torch ? '1.00x' : 'n/a']));
  out.push('', 'The larger of host JS and GPU kernel ms per step bounds the step; the rest of ms per step is waiting between them (submits, completion).');
  const goal = (ms: number) => (torch ? verdict(ms <= 1.0 && ms <= 1.2 * torch.mlpMs) : 'n/a without torch');
  out.push('', `MLP step with fusion: ${mlpFused.ms.toFixed(3)} ms (goal <= 1.0 ms and <= 1.2x torch eager: ${goal(mlpFused.ms)})`);
  if (mlpFused.captured) out.push(`MLP step with fusion, captured and replayed: ${mlpFused.captured.ms.toFixed(3)} ms (same goal: ${goal(mlpFused.captured.ms)})`);

  const { d, heads, seq, batch } = cfg.block;
  out.push('', line([`transformer block fwd+bwd, d ${d}, ${heads} heads, seq ${seq}, batch ${batch}`, 'ms per step', 'dispatches per step', 'vs torch']), line(['---', '---', '---', '---']));
  out.push(line(['Switchyard autodiff<wgpu>', blockPlain.ms.toFixed(3), String(blockPlain.dispatches), vsTorch(blockPlain.ms, torch?.blockMs)]));
  out.push(line(['Switchyard autodiff<fusion<wgpu>>', blockFused.ms.toFixed(3), String(blockFused.dispatches), vsTorch(blockFused.ms, torch?.blockMs)]));
  out.push(line(['torch CUDA eager (same ops)', torch ? torch.blockMs.toFixed(3) : 'n/a', '', torch ? '1.00x' : 'n/a']));

  out.push('', ...cpuTable(cpu, cfg));
  console.log('\n' + out.join('\n'));
}
