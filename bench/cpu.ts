/**
 * The CPU benchmark (`npm run bench -- cpu [--quick] [--no-sweep] [--only matmul,gelu,mlp,tiny,sweep]`):
 * one table from one run.
 *
 * Four Switchyard CPU backends: the JS reference kernels and the SIMD wasm kernels
 * (`new Cpu({ kernels })`), each inline (`threads: 0`) and on the worker pool (threads = cores),
 * beside TensorFlow.js's `cpu` and `wasm` backends on the same inputs in the same process:
 * - matmul GFLOP/s at 256, 512 and 1024;
 * - the GELU chain `x * (erf(x / sqrt2) + 1) / 2` as five separate ops on 16M floats, in ms;
 * - one SGD training step of an MLP 784-512-512-10 (ReLU, cross-entropy, batch 256, the same
 *   weights everywhere), in ms to the loss value; PyTorch's CPU time for it too where python3 has torch;
 * - scheduler overhead per tiny op (16 floats, wasm kernels): queued -> done from `events$`, and
 *   wall time per op of a chain of 10k dependent adds;
 * - a sweep around the inline threshold (wasm kernels): elementwise add and matmul, inline vs always-pool.
 *
 * Every comparison interleaves its cases round by round (A B C D, then D C B A, ...) after a
 * warm-up, and reports medians: the machine is shared and noisy. Progress goes to stderr, the
 * tables (markdown) to stdout.
 */
import { median } from './stats.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type * as TF from '@tensorflow/tfjs-core';
import { execFileSync } from 'node:child_process';
import { Autodiff } from '../src/autodiff/autodiff.js';
import { kernelsFor } from '../src/backends/cpu/kernels/index.js';
import { relaxedSimdSupported } from '../src/backends/cpu/wasm/module.js';
import { Cpu, CpuDevice, DEFAULT_INLINE_THRESHOLD, type OpRecord, fromData, full, memory, random, scheduler, Distribution, type OpEvent, type Tensor, tidy } from '../src/index.js';
import { Relu } from '../src/nn/activation.js';
import { Linear } from '../src/nn/linear.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Sequential } from '../src/nn/sequential.js';
import { ParamGrads } from '../src/optim/param-grads.js';
import { SGD } from '../src/optim/sgd.js';
import { settle } from './settle.js';

type Ours = Tensor<Cpu, 'float'>;

interface Options {
  quick: boolean;
  sweep: boolean;
  /** Sections to run (`--only matmul,gelu,mlp,tiny,sweep`); all when absent. */
  only: ReadonlySet<string> | undefined;
}

// ---- small helpers ---------------------------------------------------------------------------

function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function f(x: number, digits = 1): string {
  if (!Number.isFinite(x)) return 'n/a';
  return x.toFixed(digits);
}

function log(msg: string): void {
  process.stderr.write(`[bench cpu] ${msg}\n`);
}

/** Busy CPU seconds of the whole machine so far (Linux /proc/stat; undefined elsewhere). */
function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...
    const busy = (v[0] ?? 0) + (v[1] ?? 0) + (v[2] ?? 0) + (v[5] ?? 0) + (v[6] ?? 0) + (v[7] ?? 0);
    return busy / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * Measures how many cores other processes kept busy while a section ran: machine busy time minus
 * this process's own CPU time (all its threads), over the wall time.
 */
function foreignLoad(): () => number {
  const m0 = machineBusySeconds();
  const u0 = process.cpuUsage();
  const t0 = performance.now();
  return () => {
    const m1 = machineBusySeconds();
    if (m0 === undefined || m1 === undefined) return NaN;
    const u = process.cpuUsage(u0);
    const own = (u.user + u.system) / 1e6;
    const wall = (performance.now() - t0) / 1000;
    return Math.max(0, (m1 - m0 - own) / wall);
  };
}

const foreign: Array<[string, number]> = [];

/** Runs a section and records the other processes' load during it. */
async function section<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const stop = foreignLoad();
  const r = await fn();
  const l = stop();
  foreign.push([name, l]);
  log(`${name}: other processes kept ${f(l, 2)} cores busy`);
  return r;
}

interface Case {
  readonly name: string;
  /** One measurement, in ms. */
  run(): Promise<number>;
}

/**
 * Runs `warmup` then `rounds` rounds of every case, alternating the order each round; returns the
 * times per case. `lead` untimed runs precede each timed one: a case timed right after another
 * framework's would otherwise pay for that one's garbage (collections it left due) and caches.
 */
async function interleave(cases: readonly Case[], rounds: number, warmup = 1, lead = 0): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let w = 0; w < warmup; w++) for (const c of cases) await c.run();
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) {
      for (let l = 0; l < lead; l++) await c.run();
      out.get(c.name)!.push(await c.run());
    }
  }
  return out;
}

function spread(xs: readonly number[]): string {
  if (xs.length === 0) return 'n/a';
  return `${f(Math.min(...xs), 2)} / ${f(median(xs), 2)} / ${f(Math.max(...xs), 2)} (n=${xs.length})`;
}

/** Deterministic uniform [-1, 1) data shared by every backend. */
function data(n: number, seed: number): Float32Array {
  const a = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    a[i] = ((s >>> 0) / 2 ** 32) * 2 - 1;
  }
  return a;
}

/**
 * Waits for a tensor without copying it out: reads a one-element view of it. (A full read would
 * copy into a fresh array, and first-touching fresh memory costs about 3.7 ms/MB on this VM.)
 */

// ---- TensorFlow.js -------------------------------------------------------------------------------

interface TfInfo {
  cpu: boolean;
  wasm: boolean;
  wasmNote: string;
}

// TensorFlow.js is a devDependency, imported when the bench runs: where it is not installed (the
// GPU machine takes the production dependencies only), its columns are n/a.
let tf: typeof TF;
let tfWasm: typeof import('@tensorflow/tfjs-backend-wasm');

async function initTf(): Promise<TfInfo> {
  const info: TfInfo = { cpu: false, wasm: false, wasmNote: '' };
  try {
    tf = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-cpu');
    tfWasm = await import('@tensorflow/tfjs-backend-wasm');
  } catch (e) {
    info.wasmNote = `TensorFlow.js is not installed here (${e instanceof Error ? e.message.split('\n')[0] : String(e)}): its columns are n/a`;
    return info;
  }
  tf.env().set('PROD', true);
  info.cpu = (await tf.setBackend('cpu')) && tf.getBackend() === 'cpu';
  try {
    const require = createRequire(import.meta.url);
    const dir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + path.sep;
    tfWasm.setWasmPaths(dir);
    const ok = await tf.setBackend('wasm');
    await tf.ready();
    if (!ok || tf.getBackend() !== 'wasm') throw new Error(`tf.setBackend('wasm') gave ${String(ok)}, backend ${tf.getBackend()}`);
    // Check it computes.
    const probe = tf.matMul(tf.tensor2d([1, 2, 3, 4], [2, 2]), tf.tensor2d([1, 0, 0, 1], [2, 2]));
    const v = await probe.data();
    probe.dispose();
    if (v[0] !== 1 || v[3] !== 4) throw new Error(`wasm matmul probe gave [${Array.from(v).join(', ')}]`);
    const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true;
    const mt = (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) === true;
    const threads = tfWasm.getThreadsCount();
    const binary = simd && mt ? 'tfjs-backend-wasm-threaded-simd.wasm' : simd ? 'tfjs-backend-wasm-simd.wasm' : 'tfjs-backend-wasm.wasm';
    info.wasm = true;
    info.wasmNote = `wasm initialised from ${dir} (${binary}): SIMD ${simd ? 'yes' : 'no'}, threads ${mt ? `yes (${threads})` : `no (${threads} thread; TF.js turns wasm threads off under Node, tfjs#3830)`}`;
  } catch (e) {
    info.wasmNote = `wasm backend did not initialise: ${e instanceof Error ? e.message : String(e)}`;
  }
  await tf.setBackend('cpu');
  return info;
}

/** The TF.js twin of `settle`: waits for a result by reading one element of it. */
async function tfSettle(t: TF.Tensor): Promise<void> {
  const first = tf.tidy(() => tf.slice(tf.reshape(t, [-1]), [0], [Math.min(1, t.size)]));
  await first.data();
  first.dispose();
}

async function useTf(name: 'cpu' | 'wasm'): Promise<void> {
  if (tf.getBackend() !== name) await tf.setBackend(name);
}

// ---- benchmarks ----------------------------------------------------------------------------------

/** Our CPU backends: the JS reference kernels and the SIMD wasm kernels, each inline and on the pool. */
type VariantKey = 'js-inline' | 'js-pool' | 'wasm-inline' | 'wasm-pool';
type Col = VariantKey | 'tf-cpu' | 'tf-wasm';
interface Variant {
  readonly key: VariantKey;
  readonly be: Cpu;
}

const COLS: readonly Col[] = ['js-inline', 'js-pool', 'wasm-inline', 'wasm-pool', 'tf-cpu', 'tf-wasm'];
const COL_LABEL: Record<Col, string> = {
  'js-inline': 'JS inline',
  'js-pool': 'JS pool',
  'wasm-inline': 'wasm inline',
  'wasm-pool': 'wasm pool',
  'tf-cpu': 'TF.js cpu',
  'tf-wasm': 'TF.js wasm',
};

interface Row {
  label: string;
  values: Partial<Record<Col, number>>;
  /** Higher is better (GFLOP/s) or lower is better (ms, µs). */
  higherBetter: boolean;
}

const raw: string[] = [];
/** TF.js tensors to dispose at the end of a benchmark. */
const tfHeld: TF.Tensor[] = [];
function disposeTf(): void {
  for (const t of tfHeld.splice(0)) t.dispose();
}

function medians(t: Map<string, number[]>, fn: (ms: number) => number): Partial<Record<Col, number>> {
  const out: Partial<Record<Col, number>> = {};
  for (const c of COLS) {
    const v = t.get(c);
    if (v && v.length > 0) out[c] = fn(median(v));
  }
  return out;
}

async function benchMatmul(variants: readonly Variant[], tfi: TfInfo, n: number, rounds: number, warmup: number): Promise<Row> {
  const av = data(n * n, 1000 + n);
  const bv = data(n * n, 2000 + n);
  const flop = 2 * n ** 3;
  const held: Ours[] = [];
  const ours = (be: Cpu) => {
    const a = fromData(be, av, { shape: [n, n] });
    const b = fromData(be, bv, { shape: [n, n] });
    held.push(a, b);
    return async () => {
      const t0 = performance.now();
      const c = a.matmul(b);
      await settle(c);
      const dt = performance.now() - t0;
      c.dispose();
      return dt;
    };
  };
  const tfCase = (name: 'cpu' | 'wasm') => {
    let a: TF.Tensor2D | undefined;
    let b: TF.Tensor2D | undefined;
    return async () => {
      await useTf(name);
      // Inputs live on the backend they are used on (TF.js would otherwise move them on each call).
      if (!a || !b) {
        a = tf.tensor2d(av, [n, n]);
        b = tf.tensor2d(bv, [n, n]);
        tfHeld.push(a, b);
      }
      const t0 = performance.now();
      const c = tf.matMul(a, b);
      await tfSettle(c);
      const dt = performance.now() - t0;
      c.dispose();
      return dt;
    };
  };
  const cases: Case[] = variants.map((v) => ({ name: v.key, run: ours(v.be) }));
  if (tfi.cpu) cases.push({ name: 'tf-cpu', run: tfCase('cpu') });
  if (tfi.wasm) cases.push({ name: 'tf-wasm', run: tfCase('wasm') });
  // Correctness check: each of ours against TF.js on the same inputs.
  if (tfi.cpu || tfi.wasm) {
    await useTf(tfi.wasm ? 'wasm' : 'cpu');
    const r = tf.tidy(() => tf.matMul(tf.tensor2d(av, [n, n]), tf.tensor2d(bv, [n, n])));
    const theirs = await r.data();
    r.dispose();
    for (const v of variants) {
      const a = fromData(v.be, av, { shape: [n, n] });
      const b = fromData(v.be, bv, { shape: [n, n] });
      const c = a.matmul(b);
      const mine = (await c.toData()).values;
      for (const t of [a, b, c]) t.dispose();
      let maxDiff = 0;
      for (let i = 0; i < mine.length; i++) maxDiff = Math.max(maxDiff, Math.abs(mine[i]! - theirs[i]!));
      raw.push(`matmul ${n}: max |${v.key} - TF.js ${tfi.wasm ? 'wasm' : 'cpu'}| = ${maxDiff.toExponential(2)}`);
    }
  }
  const t = await interleave(cases, rounds, warmup);
  for (const [k, v] of t) raw.push(`matmul ${n} ${k} ms min/median/max: ${spread(v)}`);
  for (const x of held) x.dispose();
  disposeTf();
  return { label: `matmul ${n}x${n} (GFLOP/s)`, values: medians(t, (ms) => flop / (ms * 1e6)), higherBetter: true };
}

function geluOurs(x: Ours): Ours {
  const t1 = x.div(Math.SQRT2);
  const t2 = t1.erf();
  const t3 = t2.add(1);
  const t4 = x.mul(t3);
  const y = t4.div(2);
  for (const t of [t1, t2, t3, t4]) t.dispose();
  return y;
}

async function benchGelu(variants: readonly Variant[], tfi: TfInfo, n: number, rounds: number): Promise<Row> {
  const xv = data(n, 77);
  for (let i = 0; i < n; i++) xv[i] = xv[i]! * 4;
  const held: Ours[] = [];
  const ours = (be: Cpu) => {
    const x = fromData(be, xv);
    held.push(x);
    return async () => {
      const t0 = performance.now();
      const y = geluOurs(x);
      await settle(y);
      const dt = performance.now() - t0;
      y.dispose();
      return dt;
    };
  };
  const tfCase = (name: 'cpu' | 'wasm') => {
    let x: TF.Tensor1D | undefined;
    return async () => {
      await useTf(name);
      if (!x) tfHeld.push((x = tf.tensor1d(xv)));
      const xx = x;
      const t0 = performance.now();
      const y = tf.tidy(() => tf.div(tf.mul(xx, tf.add(tf.erf(tf.div(xx, Math.SQRT2)), 1)), 2));
      await tfSettle(y);
      const dt = performance.now() - t0;
      y.dispose();
      return dt;
    };
  };
  const cases: Case[] = variants.map((v) => ({ name: v.key, run: ours(v.be) }));
  if (tfi.cpu && tf.getKernel('Erf', 'cpu') !== undefined) cases.push({ name: 'tf-cpu', run: tfCase('cpu') });
  if (tfi.wasm && tf.getKernel('Erf', 'wasm') !== undefined) cases.push({ name: 'tf-wasm', run: tfCase('wasm') });
  // Check: each of ours against the float64 formula on a few points.
  for (const v of variants) {
    const y = geluOurs(held[variants.indexOf(v)]!);
    const vals = (await y.toData()).values;
    y.dispose();
    let maxDiff = 0;
    for (let i = 0; i < n; i += 9973) {
      const x = xv[i]!;
      maxDiff = Math.max(maxDiff, Math.abs(vals[i]! - (x * (erf64(x / Math.SQRT2) + 1)) / 2));
    }
    raw.push(`gelu ${v.key}: max |ours - float64 reference| on ${Math.ceil(n / 9973)} points = ${maxDiff.toExponential(2)}`);
  }
  const t = await interleave(cases, rounds);
  for (const [k, v] of t) raw.push(`gelu ${k} ms min/median/max: ${spread(v)}`);
  for (const x of held) x.dispose();
  disposeTf();
  return { label: `GELU chain, 5 ops on ${n / 2 ** 20}M floats (ms)`, values: medians(t, (ms) => ms), higherBetter: false };
}

// ---- MLP training step -----------------------------------------------------------------------------

const MLP = { batch: 256, sizes: [784, 512, 512, 10], lr: 0.05 } as const;

/** Inputs in [0, 1) and class labels, the same for every framework. */
function mlpData(): { x: Float32Array; y: Int32Array; weights: Float32Array[]; biases: Float32Array[] } {
  const x = data(MLP.batch * MLP.sizes[0], 4242).map((v) => (v + 1) / 2);
  const y = Int32Array.from({ length: MLP.batch }, (_, i) => (i * 7) % MLP.sizes[3]);
  const weights: Float32Array[] = [];
  const biases: Float32Array[] = [];
  for (let l = 0; l + 1 < MLP.sizes.length; l++) {
    const fanIn = MLP.sizes[l]!;
    const bound = 1 / Math.sqrt(fanIn);
    weights.push(data(fanIn * MLP.sizes[l + 1]!, 10 + l).map((v) => v * bound));
    biases.push(data(MLP.sizes[l + 1]!, 20 + l).map((v) => v * bound));
  }
  return { x, y, weights, biases };
}

/** One SGD step of the MLP 784-512-512-10 (ReLU, cross-entropy) on one batch, timed to the loss value. */
async function benchMlp(variants: readonly Variant[], tfi: TfInfo, rounds: number): Promise<Row> {
  const d = mlpData();
  const cleanup: Array<() => void> = [];
  const ours = (be: Cpu) => {
    const ad = new Autodiff(be);
    const layers: Linear<typeof ad>[] = [];
    for (let l = 0; l + 1 < MLP.sizes.length; l++) layers.push(new Linear(ad, MLP.sizes[l]!, MLP.sizes[l + 1]!));
    // Same weights as TF.js.
    layers.forEach((layer, l) => {
      layer.weight.set(fromData(ad, d.weights[l]!, { shape: [MLP.sizes[l]!, MLP.sizes[l + 1]!] }));
      layer.bias?.set(fromData(ad, d.biases[l]!));
    });
    const model = new Sequential(layers[0]!, new Relu(), layers[1]!, new Relu(), layers[2]!);
    const opt = new SGD<typeof ad>({ lr: MLP.lr });
    const x = fromData(ad, d.x, { shape: [MLP.batch, MLP.sizes[0]] });
    const y = fromData(ad, d.y, { dtype: 'int32' });
    cleanup.push(() => {
      x.dispose();
      y.dispose();
      for (const p of model.params()) p.value.dispose();
    });
    const losses: number[] = [];
    return {
      losses,
      run: async () => {
        const t0 = performance.now();
        const loss = tidy(() => {
          const l = crossEntropy(model.forward(x), y);
          opt.step(model, ParamGrads.from(l.backward(), model));
          return l;
        });
        losses.push(await loss.item());
        const dt = performance.now() - t0;
        loss.dispose();
        return dt;
      },
    };
  };
  // TF.js: the same step with its backward pass written out (tfjs-core registers gradients only
  // through its bundler entry points, which Node cannot import), updates by Variable.assign.
  const tfCase = (name: 'cpu' | 'wasm') => {
    let state: { vars: TF.Variable[]; x: TF.Tensor2D; onehot: TF.Tensor2D } | undefined;
    const losses: number[] = [];
    return {
      losses,
      run: async () => {
        await useTf(name);
        if (!state) {
          const vars: TF.Variable[] = [];
          for (let l = 0; l + 1 < MLP.sizes.length; l++) {
            vars.push(tf.variable(tf.tensor2d(d.weights[l]!, [MLP.sizes[l]!, MLP.sizes[l + 1]!])), tf.variable(tf.tensor1d(d.biases[l]!)));
          }
          state = { vars, x: tf.tensor2d(d.x, [MLP.batch, MLP.sizes[0]]), onehot: tf.cast(tf.oneHot(tf.tensor1d(d.y, 'int32'), MLP.sizes[3]), 'float32') as TF.Tensor2D };
          tfHeld.push(...vars, state.x, state.onehot);
        }
        const { vars, x, onehot } = state;
        const [w1, b1, w2, b2, w3, b3] = vars as [TF.Variable<TF.Rank.R2>, TF.Variable, TF.Variable<TF.Rank.R2>, TF.Variable, TF.Variable<TF.Rank.R2>, TF.Variable];
        const t0 = performance.now();
        const loss = tf.tidy(() => {
          const z1 = tf.add(tf.matMul(x, w1), b1) as TF.Tensor2D;
          const h1 = tf.relu(z1);
          const z2 = tf.add(tf.matMul(h1, w2), b2) as TF.Tensor2D;
          const h2 = tf.relu(z2);
          const z3 = tf.add(tf.matMul(h2, w3), b3) as TF.Tensor2D;
          const logp = tf.logSoftmax(z3);
          const lossV = tf.neg(tf.mean(tf.sum(tf.mul(onehot, logp), 1)));
          const g3 = tf.div(tf.sub(tf.exp(logp), onehot), MLP.batch) as TF.Tensor2D;
          const g2 = tf.mul(tf.matMul(g3, w3, false, true), tf.step(z2)) as TF.Tensor2D;
          const g1 = tf.mul(tf.matMul(g2, w2, false, true), tf.step(z1)) as TF.Tensor2D;
          const grads = [tf.matMul(x, g1, true, false), tf.sum(g1, 0), tf.matMul(h1, g2, true, false), tf.sum(g2, 0), tf.matMul(h2, g3, true, false), tf.sum(g3, 0)];
          vars.forEach((v, i) => v.assign(tf.sub(v, tf.mul(grads[i]!, MLP.lr))));
          return lossV;
        });
        losses.push((await loss.data())[0]!);
        const dt = performance.now() - t0;
        loss.dispose();
        return dt;
      },
    };
  };
  const runs = new Map<string, { losses: number[]; run: () => Promise<number> }>();
  for (const v of variants) runs.set(v.key, ours(v.be));
  if (tfi.cpu) runs.set('tf-cpu', tfCase('cpu'));
  if (tfi.wasm) runs.set('tf-wasm', tfCase('wasm'));
  // A step timed right after another framework's ran slower than steps alone (the same wasm step: 44 against 28-36 ms
  // on 2 cores, 29 against 12.5 on 16): one untimed step first.
  const t = await interleave([...runs].map(([name, r]) => ({ name, run: r.run })), rounds, 3, 1);
  for (const [k, v] of t) raw.push(`MLP step ${k} ms min/median/max: ${spread(v)}`);
  // Same weights, data and learning rate: the first step's loss agrees across frameworks.
  raw.push(`MLP step: first loss ${[...runs].map(([k, r]) => `${k} ${f(r.losses[0] ?? NaN, 5)}`).join(', ')}`);
  for (const c of cleanup) c();
  disposeTf();
  return { label: `MLP ${MLP.sizes.join('-')} SGD step, batch ${MLP.batch} (ms)`, values: medians(t, (ms) => ms), higherBetter: false };
}

/** PyTorch's CPU time for the same step, where python3 with torch is installed (the GPU machine); undefined elsewhere. */
function torchMlp(threads: number, rounds: number): { ms: number; note: string } | undefined {
  const script = `
import time, torch
torch.set_num_threads(${threads})
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
opt = torch.optim.SGD(m.parameters(), lr=${MLP.lr})
x = torch.rand(${MLP.batch}, 784); y = torch.arange(${MLP.batch}) * 7 % 10
def step():
    opt.zero_grad(); loss = torch.nn.functional.cross_entropy(m(x), y); loss.backward(); opt.step(); return loss.item()
for _ in range(5): step()
ts = []
for _ in range(${rounds}):
    t0 = time.perf_counter(); step(); ts.append((time.perf_counter() - t0) * 1000)
ts.sort()
print(ts[len(ts) // 2], torch.__version__)
`;
  try {
    const out = execFileSync('python3', ['-c', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 }).trim().split(/\s+/);
    const ms = Number(out[0]);
    return Number.isFinite(ms) ? { ms, note: `PyTorch ${out[1]} CPU, ${threads} threads, median of ${rounds}` } : undefined;
  } catch {
    return undefined;
  }
}

/** erf in float64 (Abramowitz-Stegun 7.1.26 is too coarse; this is the series / continued fraction). */
function erf64(x: number): number {
  const ax = Math.abs(x);
  if (ax < 2.5) {
    // Maclaurin series.
    let sum = 0;
    let term = ax;
    for (let k = 0; k < 80; k++) {
      sum += term / (2 * k + 1);
      term *= (-ax * ax) / (k + 1);
    }
    return Math.sign(x) * ((2 / Math.sqrt(Math.PI)) * sum);
  }
  // Continued fraction for erfc.
  let cf = 0;
  for (let k = 60; k >= 1; k--) cf = (k / 2) / (ax + cf);
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + cf);
  return Math.sign(x) * (1 - erfc);
}

interface Tiny {
  wallUs: number;
  queuedToDoneUs: number;
  queuedToDoneP99Us: number;
  runUs: number;
}

async function benchTiny(inline: Cpu, pool: Cpu, ops: number, rounds: number): Promise<{ inline: Tiny; pool: Tiny }> {
  const chain = (be: Cpu, observe: boolean, sink: number[][]) => async () => {
    const b = full(be, [16], 1);
    let y = full(be, [16], 0);
    await y.toData();
    const key = be.device.key;
    const q2d: number[] = [];
    const run: number[] = [];
    const sub = observe
      ? scheduler.events$.subscribe((e: OpEvent) => {
          if (e.device === key && e.op === 'add') {
            q2d.push(e.endAt - e.queuedAt);
            run.push(e.endAt - e.startAt);
          }
        })
      : undefined;
    const t0 = performance.now();
    for (let i = 0; i < ops; i++) {
      const z = y.add(b);
      y.dispose();
      y = z;
    }
    const values = (await y.toData()).values;
    const dt = performance.now() - t0;
    sub?.unsubscribe();
    if (values[0] !== ops) throw new Error(`tiny chain computed ${values[0]}, expected ${ops}`);
    y.dispose();
    b.dispose();
    if (observe) sink.push(q2d, run);
    return dt;
  };
  const ev = { inline: [] as number[][], pool: [] as number[][] };
  const t = await interleave(
    [
      { name: 'inline', run: chain(inline, false, ev.inline) },
      { name: 'pool', run: chain(pool, false, ev.pool) },
      { name: 'inline-observed', run: chain(inline, true, ev.inline) },
      { name: 'pool-observed', run: chain(pool, true, ev.pool) },
    ],
    rounds,
  );
  for (const [k, v] of t) raw.push(`tiny ${ops}-add chain ${k} ms min/median/max: ${spread(v)}`);
  const summarise = (k: 'inline' | 'pool'): Tiny => {
    // Drop the warm-up round's samples (the first pair).
    const pairs = ev[k].slice(2);
    const q2d = pairs.filter((_, i) => i % 2 === 0).flat();
    const run = pairs.filter((_, i) => i % 2 === 1).flat();
    return {
      wallUs: (median(t.get(k) ?? []) * 1000) / ops,
      queuedToDoneUs: median(q2d) * 1000,
      queuedToDoneP99Us: quantile(q2d, 0.99) * 1000,
      runUs: median(run) * 1000,
    };
  };
  const r = { inline: summarise('inline'), pool: summarise('pool') };
  raw.push(`tiny add, wall per op with an events$ observer: inline ${f(((median(t.get('inline-observed') ?? []) * 1000) / ops), 2)} µs, pool ${f(((median(t.get('pool-observed') ?? []) * 1000) / ops), 2)} µs`);
  raw.push(`tiny add, events$ p99 queued->done: inline ${f(r.inline.queuedToDoneP99Us, 2)} µs, pool ${f(r.pool.queuedToDoneP99Us, 2)} µs; median start->done (kernel + bookkeeping): inline ${f(r.inline.runUs, 2)} µs, pool ${f(r.pool.runUs, 2)} µs`);
  return r;
}

// ---- inline threshold sweep ----------------------------------------------------------------------

/** The cost the CPU executor compares with its inline threshold, from the kernel's own estimate. */
function kernelCost(op: 'add' | 'matmul', inputs: ReadonlyArray<readonly number[]>, output: readonly number[]): number {
  const meta = (shape: readonly number[], id: number) => ({ id, shape, dtype: 'float32' as const });
  const record = { id: 0, op, device: 'cpu', inputs: inputs.map((s, i) => meta(s, i + 1)), outputs: [meta(output, 0)], attrs: {} } as unknown as OpRecord;
  return kernelsFor('wasm')(op)?.cost(record) ?? NaN;
}

interface SweepRow {
  label: string;
  cost: number;
  inlineUs: number;
  poolUs: number;
  defaultWhere: 'inline' | 'pool';
}

async function sweep(inline: Cpu, forced: Cpu, rounds: number): Promise<{ add: SweepRow[]; matmul: SweepRow[] }> {
  // Chains long enough for ~3e7 scalar multiply-adds / element ops of real work.
  const chainLen = (work: number) => Math.max(4, Math.min(400, Math.ceil(3e7 / work)));
  const addRows: SweepRow[] = [];
  for (const n of [16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304]) {
    const cost = kernelCost('add', [[n], [n]], [n]);
    const len = chainLen(2 * n);
    const xv = data(n, n);
    const bv = data(n, n + 1);
    const chain = (be: Cpu) => {
      const b = fromData(be, bv);
      const x = fromData(be, xv);
      return {
        // The whole chain: submitting it and waiting for the last result (the sources are resident).
        run: async () => {
          const t0 = performance.now();
          let y = x.add(b);
          for (let i = 1; i < len; i++) {
            const z = y.add(b);
            y.dispose();
            y = z;
          }
          await settle(y);
          const dt = performance.now() - t0;
          y.dispose();
          return dt;
        },
        dispose: () => {
          b.dispose();
          x.dispose();
        },
      };
    };
    const ci = chain(inline);
    const cp = chain(forced);
    const t = await interleave([{ name: 'inline', run: ci.run }, { name: 'pool', run: cp.run }], rounds);
    ci.dispose();
    cp.dispose();
    const row: SweepRow = {
      label: `add, ${n} floats`,
      cost,
      inlineUs: (median(t.get('inline')!) * 1000) / len,
      poolUs: (median(t.get('pool')!) * 1000) / len,
      defaultWhere: cost < DEFAULT_INLINE_THRESHOLD ? 'inline' : 'pool',
    };
    addRows.push(row);
    log(`sweep ${row.label}: inline ${f(row.inlineUs)} µs, pool ${f(row.poolUs)} µs per op (chain of ${len})`);
  }
  const mmRows: SweepRow[] = [];
  for (const n of [32, 40, 48, 64, 80, 96, 128, 160, 192, 256]) {
    const cost = kernelCost('matmul', [[n, n], [n, n]], [n, n]);
    const len = chainLen(n ** 3);
    // Entries of size 1/sqrt(n) keep a chain of products bounded.
    const wv = data(n * n, 3 * n).map((v) => (v * Math.sqrt(3)) / Math.sqrt(n));
    const xv = data(n * n, 5 * n);
    const mk = (be: Cpu) => {
      const w = fromData(be, wv, { shape: [n, n] });
      const x = fromData(be, xv, { shape: [n, n] });
      return {
        run: async () => {
          const t0 = performance.now();
          let y = x.matmul(w);
          for (let i = 1; i < len; i++) {
            const z = y.matmul(w);
            y.dispose();
            y = z;
          }
          await settle(y);
          const dt = performance.now() - t0;
          y.dispose();
          return dt;
        },
        dispose: () => {
          w.dispose();
          x.dispose();
        },
      };
    };
    const ci = mk(inline);
    const cp = mk(forced);
    const t = await interleave([{ name: 'inline', run: ci.run }, { name: 'pool', run: cp.run }], rounds);
    ci.dispose();
    cp.dispose();
    const row: SweepRow = {
      label: `matmul ${n}x${n}`,
      cost,
      inlineUs: (median(t.get('inline')!) * 1000) / len,
      poolUs: (median(t.get('pool')!) * 1000) / len,
      defaultWhere: cost < DEFAULT_INLINE_THRESHOLD ? 'inline' : 'pool',
    };
    mmRows.push(row);
    log(`sweep ${row.label}: inline ${f(row.inlineUs)} µs, pool ${f(row.poolUs)} µs per op (chain of ${len})`);
  }
  return { add: addRows, matmul: mmRows };
}

/** The smallest row from which the pool wins at every larger size in the sweep. */
function crossover(rows: readonly SweepRow[]): SweepRow | undefined {
  let at: SweepRow | undefined;
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    if (r.poolUs < r.inlineUs) at = r;
    else break;
  }
  return at;
}

// ---- main ------------------------------------------------------------------------------------------

export async function main(args: readonly string[] = []): Promise<void> {
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((args[onlyAt + 1] ?? '').split(',')) : undefined;
  const opts: Options = { quick: args.includes('--quick'), sweep: !args.includes('--no-sweep') && (only?.has('sweep') ?? true), only };
  const runs = (name: string) => opts.only?.has(name) ?? true;
  const started = performance.now();
  const loadStart = os.loadavg();
  const q = (n: number) => (opts.quick ? Math.max(2, Math.ceil(n / 3)) : n);
  const variants: Variant[] = [
    { key: 'js-inline', be: new Cpu({ kernels: 'js', threads: 0, device: CpuDevice.named('cpu:js-inline') }) },
    { key: 'js-pool', be: new Cpu({ kernels: 'js', device: CpuDevice.named('cpu:js-pool') }) },
    { key: 'wasm-inline', be: new Cpu({ kernels: 'wasm', threads: 0, device: CpuDevice.named('cpu:wasm-inline') }) },
    { key: 'wasm-pool', be: new Cpu({ kernels: 'wasm', device: CpuDevice.named('cpu:wasm-pool') }) },
  ];
  const byKey = (k: VariantKey) => variants.find((v) => v.key === k)!.be;
  const tfi = await initTf();
  const threads = byKey('wasm-pool').threads;
  log(`pool threads: ${threads}; wasm kernels: ${relaxedSimdSupported() ? 'relaxed SIMD (FMA)' : 'SIMD (no relaxed SIMD in this engine)'}; ${tfi.wasmNote}`);
  // Let the pools' workers start (they start at backend creation) and run once before timing anything.
  for (const v of variants) {
    const w = random(v.be, [1 << 20], Distribution.Default);
    const s = w.add(w);
    await s.toData();
    w.dispose();
    s.dispose();
  }
  const rows: Row[] = [];
  // Warm-up rounds: the workers' copy of the JS kernel needs about ten calls at 256 to reach its steady speed.
  for (const [n, rounds, warmup] of [
    [256, 15, 4],
    [512, 9, 2],
    [1024, 7, 1],
  ] as const) {
    if (!runs('matmul')) break;
    log(`matmul ${n} ...`);
    rows.push(await section(`matmul ${n}`, () => benchMatmul(variants, tfi, n, q(rounds), warmup)));
  }
  if (runs('gelu')) {
    log('GELU chain ...');
    rows.push(await section('GELU', () => benchGelu(variants, tfi, 16 * 2 ** 20, q(5))));
  }
  let torch: ReturnType<typeof torchMlp>;
  if (runs('mlp')) {
    log('MLP step ...');
    rows.push(await section('MLP step', () => benchMlp(variants, tfi, q(9))));
    torch = torchMlp(threads, 21);
  }
  let tiny: { inline: Tiny; pool: Tiny } | undefined;
  if (runs('tiny')) {
    log('tiny ops ...');
    tiny = await section('tiny ops', () => benchTiny(byKey('wasm-inline'), byKey('wasm-pool'), 10_000, q(7)));
  }
  let sw: { add: SweepRow[]; matmul: SweepRow[] } | undefined;
  if (opts.sweep) {
    log('inline threshold sweep (wasm kernels) ...');
    const forced = new Cpu({ kernels: 'wasm', inlineThreshold: 0, device: CpuDevice.named('cpu:forced-pool') });
    {
      const w = random(forced, [1 << 16], Distribution.Default);
      const s = w.add(w);
      await s.toData();
      w.dispose();
      s.dispose();
    }
    sw = await section('threshold sweep', () => sweep(byKey('wasm-inline'), forced, q(9)));
    await forced.close();
  }

  // ---- print ----
  const lines: string[] = [];
  const cpuModel = os.cpus()[0]?.model ?? 'unknown';
  lines.push(`CPU benchmark, ${new Date().toISOString()}, ${os.availableParallelism()} cores (${cpuModel}), Node ${process.version}, pool threads ${threads}, wasm kernels ${relaxedSimdSupported() ? 'with relaxed SIMD (FMA)' : 'with plain SIMD (relaxed SIMD unavailable)'}; load average (1/5/15 min) ${loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} at the end`);
  if (foreign.length > 0) lines.push(`Other processes' load during each section (cores busy, from /proc/stat minus this process): ${foreign.map(([n, l]) => `${n} ${f(l, 2)}`).join(', ')}.`);
  lines.push('');
  lines.push('Medians over interleaved rounds after a warm-up (GFLOP/s for matmul, ms for the rest). Ratio columns: wasm pool against the column named (> 1: wasm pool is faster).');
  lines.push('');
  lines.push(`| benchmark | ${COLS.map((c) => COL_LABEL[c]).join(' | ')} | vs TF.js wasm | vs TF.js cpu | vs JS pool | vs wasm inline |`);
  lines.push(`|---|${COLS.map(() => '---:').join('|')}|---:|---:|---:|---:|`);
  for (const r of rows) {
    const v = (c: Col) => r.values[c] ?? NaN;
    const ratio = (c: Col) => (r.higherBetter ? v('wasm-pool') / v(c) : v(c) / v('wasm-pool'));
    const d = r.higherBetter ? 1 : 0;
    lines.push(`| ${r.label} | ${COLS.map((c) => f(v(c), d)).join(' | ')} | ${f(ratio('tf-wasm'), 2)}x | ${f(ratio('tf-cpu'), 2)}x | ${f(ratio('js-pool'), 2)}x | ${f(ratio('wasm-inline'), 2)}x |`);
  }
  if (tiny) {
    lines.push(`| tiny op (add, 16 floats), queued -> done from events$ (µs, median) | | | ${f(tiny.inline.queuedToDoneUs, 2)} | ${f(tiny.pool.queuedToDoneUs, 2)} | | | | | | |`);
    lines.push(`| tiny op, wall per op over a chain of 10k dependent adds (µs) | | | ${f(tiny.inline.wallUs, 2)} | ${f(tiny.pool.wallUs, 2)} | | | | | | |`);
  }
  lines.push('');
  const goal = (ok: boolean, measured: boolean) => (!measured ? 'not measured' : ok ? 'met' : 'NOT met');
  const mm = rows.find((r) => r.label.startsWith('matmul 1024'));
  if (mm) {
    const g = mm.values['wasm-pool'] ?? NaN;
    const vs = g / (mm.values['tf-wasm'] ?? NaN);
    lines.push(`Goal, matmul 1024 on ${threads} threads >= 60 GFLOP/s: ${f(g, 1)} (${goal(g >= 60, Number.isFinite(g))}); >= 1.8x TF.js wasm: ${f(vs, 2)}x (${goal(vs >= 1.8, Number.isFinite(vs))}).`);
  }
  const mlp = rows.find((r) => r.label.startsWith('MLP'));
  if (mlp) {
    const ms = mlp.values['wasm-pool'] ?? NaN;
    const vs = (mlp.values['tf-wasm'] ?? NaN) / ms;
    lines.push(`Goal, MLP step <= 40 ms: ${f(ms, 1)} ms (${goal(ms <= 40, Number.isFinite(ms))}); >= 8x TF.js wasm: ${f(vs, 2)}x (${goal(vs >= 8, Number.isFinite(vs))}).`);
    lines.push(torch ? `PyTorch, same step (${torch.note}): ${f(torch.ms, 2)} ms; wasm pool / PyTorch time ${f(ms / torch.ms, 1)}x.` : 'PyTorch: not measured (no python3 with torch on this machine).');
  }
  const gelu = rows.find((r) => r.label.startsWith('GELU'));
  if (gelu) {
    const ms = gelu.values['wasm-pool'] ?? NaN;
    lines.push(`Goal, GELU chain on 16M floats <= 60 ms: ${f(ms, 1)} ms (${goal(ms <= 60, Number.isFinite(ms))}).`);
  }
  lines.push(`TF.js: ${tfi.wasmNote}.`);
  if (sw) {
    lines.push('');
    lines.push(`Inline threshold sweep, wasm kernels (current default ${DEFAULT_INLINE_THRESHOLD} scalar ops; cost = the kernel's own estimate, as the executor compares it with the threshold; time per op in a chain of dependent ops, median):`);
    lines.push('');
    lines.push('| op | cost (scalar ops) | inline (µs) | pool, forced (µs) | pool / inline speedup | default picks |');
    lines.push('|---|---:|---:|---:|---:|---|');
    for (const r of [...sw.add, ...sw.matmul]) lines.push(`| ${r.label} | ${r.cost} | ${f(r.inlineUs)} | ${f(r.poolUs)} | ${f(r.inlineUs / r.poolUs, 2)}x | ${r.defaultWhere} |`);
    const ca = crossover(sw.add);
    const cm = crossover(sw.matmul);
    lines.push('');
    const at = (r: SweepRow | undefined) => (r === undefined ? 'nowhere in the sweep' : `${r.label} (cost ${r.cost})`);
    lines.push(`Pool wins (at that size and every larger one) from: ${at(ca)}; ${at(cm)}.`);
  }
  lines.push('');
  lines.push('Raw figures (ms unless stated):');
  for (const r of raw) lines.push(`- ${r}`);
  for (const v of variants) {
    const m = memory(v.be.device);
    lines.push(`- ${v.key}: live tensors left at the end (should be 0) ${m.tensors}; pooled free bytes ${m.pooledBytes}`);
  }
  lines.push(`- whole run: ${f((performance.now() - started) / 1000, 1)} s`);
  console.log(lines.join('\n'));
  for (const v of variants) await v.be.close();
}
