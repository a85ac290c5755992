/**
 * The ops benchmark (`npm run bench -- ops [--quick] [--wgpu] [--only <name part>]`; compiled: `node dist/bench/main.js ops --wgpu`):
 * the scans, sorts, composite reductions, padding, activations and attention, one table from one
 * run: Switchyard's CPU backend inline (`threads: 0`) and on its worker pool beside TensorFlow.js's
 * `cpu` backend on the same inputs (and, with `--wgpu`, Switchyard's WebGPU backend). A second
 * table prices the composite ops against the one-kernel op nearest to them (var against mean,
 * logsumexp against logSoftmax, maxWithIndices against max).
 *
 * Cases interleave round by round after a warm-up; medians are reported. A measurement is the
 * op `reps` times, then one element of the last result read back, divided by `reps`.
 */
import { median } from './stats.js';
import os from 'node:os';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { Cpu, Wgpu, fromData, scaledDotProductAttention, type Backend, type Tensor } from '../src/index.js';
import { settle } from './settle.js';

type T = Tensor<Backend, 'float'>;

function f(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : 'n/a';
}

function log(msg: string): void {
  process.stderr.write(`[bench ops] ${msg}\n`);
}

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


async function tfSettle(t: tf.Tensor): Promise<void> {
  const first = tf.tidy(() => tf.slice(tf.reshape(t, [-1]), [0], [Math.min(1, t.size)]));
  await first.data();
  first.dispose();
}

interface OpCase {
  readonly name: string;
  readonly shapes: ReadonlyArray<readonly number[]>;
  readonly ours: (xs: readonly T[]) => Tensor<Backend>;
  readonly tf?: (xs: readonly tf.Tensor[]) => tf.Tensor;
  readonly reps: number;
}

const SDPA_MASK = (L: number) => tf.tidy(() => tf.mul(tf.sub(tf.linalg.bandPart(tf.ones([L, L]), -1, 0), 1), 1e9));

const CASES: readonly OpCase[] = [
  { name: 'cumsum dim 1', shapes: [[1024, 1024]], ours: ([x]) => x!.cumsum(1), tf: ([x]) => tf.cumsum(x!, 1), reps: 3 },
  { name: 'sort (full) dim 1', shapes: [[256, 4096]], ours: ([x]) => x!.sort(1, true).values, tf: ([x]) => tf.topk(x!, 4096).values, reps: 1 },
  { name: 'topk k=16 dim 1', shapes: [[256, 4096]], ours: ([x]) => x!.topk(16).values, tf: ([x]) => tf.topk(x!, 16).values, reps: 1 },
  { name: 'logsumexp dim 1', shapes: [[1024, 1024]], ours: ([x]) => x!.logsumexp(1), tf: ([x]) => tf.logSumExp(x!, 1), reps: 3 },
  { name: 'var dim 1 (correction 0)', shapes: [[1024, 1024]], ours: ([x]) => x!.var(1, { correction: 0 }), tf: ([x]) => tf.moments(x!, 1).variance, reps: 3 },
  { name: 'maxWithIndices dim 1', shapes: [[1024, 1024]], ours: ([x]) => x!.maxWithIndices(1).values, tf: ([x]) => tf.tidy(() => tf.add(tf.max(x!, 1), tf.cast(tf.argMax(x!, 1), 'float32'))), reps: 3 },
  { name: 'sum dims [0, 2]', shapes: [[64, 256, 256]], ours: ([x]) => x!.sum([0, 2]), tf: ([x]) => tf.sum(x!, [0, 2]), reps: 3 },
  { name: 'flip dim 1', shapes: [[1024, 1024]], ours: ([x]) => x!.flip(1), tf: ([x]) => tf.reverse(x!, 1), reps: 3 },
  { name: 'pad reflect 2 (last two dims)', shapes: [[16, 3, 128, 128]], ours: ([x]) => x!.pad([2, 2, 2, 2], 'reflect'), tf: ([x]) => tf.mirrorPad(x!, [[0, 0], [0, 0], [2, 2], [2, 2]], 'reflect'), reps: 3 },
  { name: 'pad constant 2 (last two dims)', shapes: [[16, 3, 128, 128]], ours: ([x]) => x!.pad([2, 2, 2, 2]), tf: ([x]) => tf.pad(x!, [[0, 0], [0, 0], [2, 2], [2, 2]]), reps: 3 },
  { name: 'softplus', shapes: [[4 << 20]], ours: ([x]) => x!.softplus(), tf: ([x]) => tf.softplus(x!), reps: 3 },
  { name: 'atan2', shapes: [[4 << 20], [4 << 20]], ours: ([x, y]) => x!.atan2(y!), tf: ([x, y]) => tf.atan2(x!, y!), reps: 3 },
  { name: 'expm1', shapes: [[4 << 20]], ours: ([x]) => x!.expm1(), tf: ([x]) => tf.expm1(x!), reps: 3 },
  {
    name: 'attention causal [8,128,64]',
    shapes: [[8, 128, 64], [8, 128, 64], [8, 128, 64]],
    ours: ([q, k, v]) => scaledDotProductAttention(q!, k!, v!, { isCausal: true }),
    tf: ([q, k, v]) => tf.tidy(() => tf.matMul(tf.softmax(tf.add(tf.mul(tf.matMul(q!, k!, false, true), 1 / 8), SDPA_MASK(128))), v!)),
    reps: 2,
  },
];

/** Composite op vs the nearest one-kernel op on the same input. */
const PAIRS: ReadonlyArray<readonly [string, (x: T) => Tensor<Backend>, string, (x: T) => Tensor<Backend>]> = [
  ['var(dim 1)', (x) => x.var(1), 'mean(dim 1)', (x) => x.mean(1)],
  ['logsumexp(dim 1)', (x) => x.logsumexp(1), 'logSoftmax(dim 1)', (x) => x.logSoftmax(1)],
  ['maxWithIndices(dim 1)', (x) => x.maxWithIndices(1).values, 'max(dim 1)', (x) => x.max(1)],
  ['sum(dims [0, 1])', (x) => x.sum([0, 1]), 'sum()', (x) => x.sum()],
];

interface Runner {
  readonly name: string;
  readonly backend: Backend;
}

async function timeOurs(c: OpCase, inputs: readonly T[]): Promise<number> {
  const t0 = performance.now();
  let last: Tensor<Backend> | undefined;
  for (let r = 0; r < c.reps; r++) {
    last?.dispose();
    last = c.ours(inputs);
  }
  await settle(last!);
  last!.dispose();
  return (performance.now() - t0) / c.reps;
}

async function timeTf(c: OpCase, inputs: readonly tf.Tensor[]): Promise<number> {
  const t0 = performance.now();
  let last: tf.Tensor | undefined;
  for (let r = 0; r < c.reps; r++) {
    last?.dispose();
    last = c.tf!(inputs);
  }
  await tfSettle(last!);
  last!.dispose();
  return (performance.now() - t0) / c.reps;
}

export async function main(args: readonly string[]): Promise<void> {
  const quick = args.includes('--quick');
  // --only <text>: the cases whose name contains text.
  const only = args.includes('--only') ? (args[args.indexOf('--only') + 1] ?? '') : '';
  const rounds = quick ? 3 : 5;
  const runners: Runner[] = [
    { name: 'inline', backend: new Cpu({ threads: 0 }) },
    { name: 'pool', backend: new Cpu() },
  ];
  if (args.includes('--wgpu')) runners.push({ name: 'wgpu', backend: await Wgpu.create() });
  tf.env().set('PROD', true);
  await tf.setBackend('cpu');
  console.log(`# ops benchmark, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), node ${process.version}, ${rounds} rounds, median ms per op`);
  console.log('');
  console.log(`| op | shape | ${runners.map((r) => `Switchyard ${r.name}`).join(' | ')} | TF.js cpu | pool / TF.js |`);
  console.log(`| --- | --- | ${runners.map(() => '---').join(' | ')} | --- | --- |`);
  for (const c of CASES.filter((k) => k.name.includes(only))) {
    log(c.name);
    const raw = c.shapes.map((s, k) => data(s.reduce((a, d) => a * d, 1), 17 + k));
    const ours = runners.map((r) => raw.map((v, k) => fromData(r.backend, v, { shape: c.shapes[k]! }) as T));
    const theirs = raw.map((v, k) => tf.tensor(v, [...c.shapes[k]!]));
    const times = new Map<string, number[]>([...runners.map((r) => [r.name, []] as [string, number[]]), ['tf', []]]);
    const one = async (name: string) => {
      if (name === 'tf') return timeTf(c, theirs);
      const i = runners.findIndex((r) => r.name === name);
      return timeOurs(c, ours[i]!);
    };
    const names = [...runners.map((r) => r.name), ...(c.tf ? ['tf'] : [])];
    for (const n of names) await one(n);
    for (let r = 0; r < rounds; r++) for (const n of r % 2 ? [...names].reverse() : names) times.get(n)!.push(await one(n));
    const m = (n: string) => median(times.get(n)!);
    console.log(`| ${c.name} | ${c.shapes.map((s) => `[${s.join(',')}]`).join(' ')} | ${runners.map((r) => f(m(r.name))).join(' | ')} | ${c.tf ? f(m('tf')) : 'n/a'} | ${c.tf ? f(m('pool') / m('tf')) : 'n/a'} |`);
    for (const xs of ours) for (const x of xs) x.dispose();
    for (const x of theirs) x.dispose();
  }
  console.log('');
  console.log('Composite ops against the one-kernel op nearest to them, [1024, 1024], median ms (ratio: composite / single):');
  console.log('');
  console.log(`| composite | single | ${runners.map((r) => `${r.name} ms (ratio)`).join(' | ')} |`);
  console.log(`| --- | --- | ${runners.map(() => '---').join(' | ')} |`);
  const raw = data(1024 * 1024, 5);
  for (const [an, a, bn, b] of PAIRS.filter(([n]) => n.includes(only))) {
    log(`${an} vs ${bn}`);
    const cells: string[] = [];
    for (const r of runners) {
      const x = fromData(r.backend, raw, { shape: [1024, 1024] }) as T;
      const ca: OpCase = { name: an, shapes: [], ours: ([t]) => a(t!), reps: 3 };
      const cb: OpCase = { name: bn, shapes: [], ours: ([t]) => b(t!), reps: 3 };
      await timeOurs(ca, [x]);
      await timeOurs(cb, [x]);
      const ta: number[] = [];
      const tb: number[] = [];
      for (let k = 0; k < rounds; k++) {
        ta.push(await timeOurs(ca, [x]));
        tb.push(await timeOurs(cb, [x]));
      }
      cells.push(`${f(median(ta))} vs ${f(median(tb))} (${f(median(ta) / median(tb), 1)}x)`);
      x.dispose();
    }
    console.log(`| ${an} | ${bn} | ${cells.join(' | ')} |`);
  }
  for (const r of runners) {
    const c = r.backend as Partial<{ close(): Promise<void> }>;
    if (typeof c.close === 'function') await c.close();
  }
}
