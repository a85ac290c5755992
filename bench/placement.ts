/**
 * Auto-placement (`npm run bench -- placement [--quick] [--cpu-only] [--rounds n] [--only inception,mlp,chain,embedding] [--overhead | --no-overhead]`;
 * compiled: `node dist/bench/main.js placement`).
 *
 * Four workloads, each run as one step after another (a step ends at a read of its result):
 * - inception: blocks of four branches of different weight (matmuls, elementwise), concatenated;
 * - mlp: a small-batch MLP training step (forward, backward, SGD): launch bound, where a CPU may win;
 * - chain: a chain of large matmuls, where a GPU wins;
 * - embedding: an embedding lookup (indexSelect into a large table, mean over each bag) and dense layers.
 * Each on: every single device alone, hand placement where it is natural, `auto` and `trace`
 * (each with its own Router over the same backends, after a warm-up in which the profiler learns
 * and the trace is recorded, measured and planned). Modes are interleaved round by round, each
 * timed step starting on idle devices (the last step's work and events done) after untimed
 * steps of the same mode for 250 ms, at least one (what the mode before left, such as a GPU's
 * clocks down after a CPU mode's long steps, is not charged to it); medians.
 * Then what settled placement costs: each workload bare on each device, through an explicit router,
 * and on 'auto' and 'trace' routers once their step selector has chosen, wall and CPU time per
 * step side by side (`--overhead`: only this section).
 * Then: the time to place a 1,000-op graph (HEFT on a recorded step, and online per op).
 *
 * The router is Router<[Wgpu, Cpu]> when a WebGPU adapter is found (on a machine without a GPU:
 * lavapipe), else (or with --cpu-only) Router<[Cpu, Cpu]>. Progress goes to stderr, tables to stdout.
 */
import { median } from './stats.js';
import { settleTuner } from './tuner.js';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Autodiff } from '../src/autodiff/autodiff.js';
import { noGrad } from '../src/autodiff/grad-mode.js';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { CpuDevice } from '../src/devices/cpu.js';
import type { Device } from '../src/devices/device.js';
import { MultiDevice } from '../src/devices/multi-device.js';
import { tidy } from '../src/memory/tidy.js';
import { heft } from '../src/placement/heft.js';
import type { Explanation } from '../src/placement/explain.js';
import { Router } from '../src/router/router.js';
import { Distribution, fromData, random } from '../src/tensor/creation.js';
import { Tensor } from '../src/tensor/tensor.js';
import type { Kind } from '../src/ir/dtype.js';

const log = (msg: string): void => void process.stderr.write(`[bench placement] ${msg}\n`);

/** What a workload runs on: a router, or (the settled-overhead section) one backend alone. */
type R = Backend;
type PR = Router<[Backend, Backend]>;
type Mode = 'single0' | 'single1' | 'hand' | 'auto' | 'trace';

/** What a workload sees of its mode: where to create tensors, and (hand placement) where each part runs. */
/**
 * Untimed steps a mode runs at the start of each round, before the timed ones: at least one, and
 * for at least `LEAD_IN_MS`. A GPU left idle through a CPU mode's round (seconds, on the large
 * sizes) runs at low clocks for its first tens of milliseconds of work: measured on the H200, the
 * mode right after a CPU mode took up to 3x its steady step.
 */
const LEAD_IN_MS = 250;

async function leadIn(step: () => Promise<void>, placed: { markStep(): void } | undefined): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  do {
    await step();
    placed?.markStep();
    n++;
  } while (performance.now() - t0 < LEAD_IN_MS);
  return n;
}

interface Ctx {
  readonly router: R;
  /** The device tensors of a role ('param', 'input', or a part name) are created on. */
  dev(role: string): Device;
  /** Hand placement moves `t` to the device of `part`; every other mode leaves it. */
  at<K extends Kind>(part: string, t: Tensor<R, K>): Tensor<R, K>;
}

interface Workload {
  readonly name: string;
  /** Hand placement: part -> device index (0: the first backend, the GPU when there is one). Absent: no natural one. */
  readonly hand?: Readonly<Record<string, 0 | 1>>;
  /** Builds parameters and inputs; returns one step (resolves when its result is read). */
  setup(ctx: Ctx): () => Promise<void>;
}

interface Sizes {
  inception: { batch: number; width: number; blocks: number };
  mlp: { batch: number; inp: number; hidden: number; out: number };
  chain: { n: number; k: number };
  embedding: { vocab: number; dim: number; batch: number; bag: number; hidden: number };
}

function sizesFor(quick: boolean, gpu: 'real' | 'software' | 'none'): Sizes {
  // On a real GPU the large sizes; on lavapipe or two CPU devices, sizes a 2-core machine runs in seconds.
  if (gpu === 'real' && !quick) {
    return {
      inception: { batch: 256, width: 1024, blocks: 4 },
      mlp: { batch: 16, inp: 784, hidden: 256, out: 10 },
      chain: { n: 2048, k: 8 },
      embedding: { vocab: 200_000, dim: 256, batch: 256, bag: 32, hidden: 1024 },
    };
  }
  return {
    inception: { batch: 32, width: quick ? 128 : 256, blocks: 2 },
    mlp: { batch: 16, inp: 784, hidden: 128, out: 10 },
    chain: { n: quick ? 192 : 320, k: 4 },
    embedding: { vocab: quick ? 20_000 : 50_000, dim: 64, batch: 64, bag: 16, hidden: 256 },
  };
}

const normal = (std: number) => Distribution.Normal(0, std);

function inception(s: Sizes['inception']): Workload {
  return {
    name: `inception (${s.blocks} blocks of 4 branches, [${s.batch}, ${s.width}])`,
    hand: { input: 0, param: 0, b1: 0, b2: 0, b3: 1, b4: 1, cat: 0 },
    setup(ctx) {
      const { router } = ctx;
      const w = s.width;
      const q = w / 4;
      const blocks = Array.from({ length: s.blocks }, () => ({
        w1: random(router, [w, q], normal(1 / Math.sqrt(w)), { device: ctx.dev('b1') }),
        w2a: random(router, [w, 2 * q], normal(1 / Math.sqrt(w)), { device: ctx.dev('b2') }),
        w2b: random(router, [2 * q, q], normal(1 / Math.sqrt(2 * q)), { device: ctx.dev('b2') }),
        w3: random(router, [w, q / 2], normal(1 / Math.sqrt(w)), { device: ctx.dev('b3') }),
        w3b: random(router, [q / 2, q], normal(1 / Math.sqrt(q / 2)), { device: ctx.dev('b3') }),
        w4: random(router, [w, q], normal(1 / Math.sqrt(w)), { device: ctx.dev('b4') }),
      }));
      const x0 = random(router, [s.batch, w], normal(1), { device: ctx.dev('input') });
      return async () => {
        const out = tidy(() => {
          let x: Tensor<R, 'float'> = x0;
          for (const b of blocks) {
            const b1 = ctx.at('b1', x).matmul(b.w1).relu();
            const b2 = ctx.at('b2', x).matmul(b.w2a).relu().matmul(b.w2b).relu();
            const b3 = ctx.at('b3', x).tanh().matmul(b.w3).sigmoid().matmul(b.w3b);
            const b4 = ctx.at('b4', x).mul(0.5).tanh().matmul(b.w4).gelu();
            const y = Tensor.cat([ctx.at('cat', b1), ctx.at('cat', b2), ctx.at('cat', b3), ctx.at('cat', b4)], 1);
            x = y.add(ctx.at('cat', x)).mul(0.5);
          }
          return x.sum();
        });
        await out.item();
        out.dispose();
      };
    },
  };
}

function mlp(s: Sizes['mlp']): Workload {
  return {
    name: `mlp training step (batch ${s.batch}, ${s.inp}-${s.hidden}-${s.out}, SGD)`,
    setup(ctx) {
      const ad = new Autodiff(ctx.router);
      type P = Tensor<Autodiff<R>, 'float'>;
      const param = (shape: number[], std: number): P => random(ad, shape, normal(std), { device: ctx.dev('param') }).requireGrad();
      let p = { w1: param([s.inp, s.hidden], 1 / Math.sqrt(s.inp)), b1: param([s.hidden], 0.01), w2: param([s.hidden, s.out], 1 / Math.sqrt(s.hidden)), b2: param([s.out], 0.01) };
      const x = random(ad, [s.batch, s.inp], Distribution.Uniform(0, 1), { device: ctx.dev('input') });
      const onehot = fromData(ad, Float32Array.from({ length: s.batch * s.out }, (_, i) => (i % s.out === Math.floor(i / s.out) % s.out ? 1 : 0)), { shape: [s.batch, s.out], device: ctx.dev('input') });
      return async () => {
        const [loss, next] = tidy(() => {
          const logits = x.matmul(p.w1).add(p.b1).relu().matmul(p.w2).add(p.b2);
          const l = logits.logSoftmax(1).mul(onehot).sum().mul(-1 / s.batch);
          const grads = l.backward();
          const step = (t: P): P => noGrad(() => t.sub(t.grad(grads)!.mul(0.05)), ad.runtime).requireGrad();
          return [l, { w1: step(p.w1), b1: step(p.b1), w2: step(p.w2), b2: step(p.b2) }] as const;
        });
        await loss.item();
        loss.dispose();
        for (const t of Object.values(p)) t.dispose();
        p = next;
      };
    },
  };
}

function chain(s: Sizes['chain']): Workload {
  return {
    name: `chain of ${s.k} matmuls ${s.n}^2`,
    setup(ctx) {
      const a = random(ctx.router, [s.n, s.n], Distribution.Uniform(0, 2 / s.n), { device: ctx.dev('param') });
      const x0 = random(ctx.router, [s.n, s.n], Distribution.Uniform(0, 1), { device: ctx.dev('input') });
      return async () => {
        const out = tidy(() => {
          let x: Tensor<R, 'float'> = x0;
          for (let i = 0; i < s.k; i++) x = x.matmul(a);
          return x.sum();
        });
        await out.item();
        out.dispose();
      };
    },
  };
}

function embedding(s: Sizes['embedding']): Workload {
  return {
    name: `embedding lookup (${s.vocab} x ${s.dim}, ${s.batch} bags of ${s.bag}) + 3 dense layers of ${s.hidden}`,
    hand: { table: 1, input: 1, param: 0, dense: 0 },
    setup(ctx) {
      const { router } = ctx;
      const table = random(router, [s.vocab, s.dim], normal(0.1), { device: ctx.dev('table') });
      const ids = fromData(router, Int32Array.from({ length: s.batch * s.bag }, (_, i) => (i * 7919) % s.vocab), { device: ctx.dev('input') });
      const w1 = random(router, [s.dim, s.hidden], normal(1 / Math.sqrt(s.dim)), { device: ctx.dev('param') });
      const w2 = random(router, [s.hidden, s.hidden], normal(1 / Math.sqrt(s.hidden)), { device: ctx.dev('param') });
      const w3 = random(router, [s.hidden, 16], normal(1 / Math.sqrt(s.hidden)), { device: ctx.dev('param') });
      return async () => {
        const out = tidy(() => {
          const bags = table.indexSelect(0, ctx.at('table', ids)).reshape([s.batch, s.bag, s.dim]).mean(1);
          const h = ctx.at('dense', bags).matmul(w1).relu().matmul(w2).relu().matmul(w3);
          return h.sum();
        });
        await out.item();
        out.dispose();
      };
    },
  };
}

interface ModeResult {
  ms: number[];
  explanation?: Explanation;
}

async function runWorkload(backends: [Backend, Backend], names: [string, string], w: Workload, warmup: number, rounds: number): Promise<Map<Mode, ModeResult>> {
  const devs: [MultiDevice<0>, MultiDevice<1>] = [MultiDevice.at(0, backends[0].defaultDevice()), MultiDevice.at(1, backends[1].defaultDevice())];
  // The host CPU: where inputs arrive from (the last backend is always a Cpu).
  const host = devs[1];
  const explicit: PR = new Router(backends);
  const auto: PR = new Router(backends, { placement: 'auto', placer: { persist: false } });
  const trace: PR = new Router(backends, { placement: 'trace', placer: { persist: false } });
  await Promise.all([auto.calibrate(), trace.calibrate()]);
  const ctxFor = (mode: Mode): Ctx => {
    const identity = <K extends Kind>(_: string, t: Tensor<R, K>): Tensor<R, K> => t;
    switch (mode) {
      case 'single0':
      case 'single1': {
        const d = devs[mode === 'single0' ? 0 : 1];
        return { router: explicit, dev: () => d, at: identity };
      }
      case 'hand': {
        const hand = w.hand!;
        const devOf = (part: string): MultiDevice<0> | MultiDevice<1> => devs[hand[part] ?? hand['param'] ?? 0];
        return { router: explicit, dev: devOf, at: (part, t) => (t.device.key === devOf(part).key ? t : t.toDevice(devOf(part))) };
      }
      case 'auto':
      case 'trace':
        // A user of auto placement creates parameters on the default device, and data arrives on the host.
        return { router: mode === 'auto' ? auto : trace, dev: (role) => (role === 'input' ? host : devs[0]), at: identity };
    }
  };
  const modes: Mode[] = ['single0', 'single1', ...(w.hand ? (['hand'] as const) : []), 'auto', 'trace'];
  const steps = new Map<Mode, () => Promise<void>>();
  for (const m of modes) steps.set(m, w.setup(ctxFor(m)));
  const results = new Map<Mode, ModeResult>(modes.map((m) => [m, { ms: [] }]));
  const placed = (m: Mode): PR | undefined => (m === 'auto' ? auto : m === 'trace' ? trace : undefined);
  for (const m of modes) {
    const n = placed(m) ? warmup : 2;
    for (let i = 0; i < n; i++) {
      await steps.get(m)!();
      placed(m)?.markStep();
    }
    // The single-device modes run first: the placed routers learn from tuned kernels.
    if (m === 'single1') await Promise.all(backends.map(settleTuner));
  }
  // Each measured step starts on idle devices: the work a step left running (a GPU batch still
  // finishing, its events still to be handled) would otherwise land in the next mode's step.
  const keys = devs.map((d) => d.key);
  const quiesce = async (): Promise<void> => {
    for (let i = 0; i < 2000 && keys.some((k) => explicit.runtime.lane(k).depth > 0); i++) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setTimeout(r, 1));
  };
  for (let r = 0; r < rounds; r++) {
    for (const m of r % 2 ? [...modes].reverse() : modes) {
      await quiesce();
      // One step first, untimed: what the mode before left (a GPU idle for a CPU mode's
      // hundreds of ms, its clocks down; a pool gone cold) would otherwise land in this one.
      await leadIn(steps.get(m)!, placed(m));
      await quiesce();
      const t0 = performance.now();
      await steps.get(m)!();
      results.get(m)!.ms.push(performance.now() - t0);
      placed(m)?.markStep();
    }
  }
  // Let the last steps' events arrive, then explain the last full step.
  await Promise.all([auto.placement!.settled(), trace.placement!.settled()]);
  results.get('auto')!.explanation = auto.explain();
  results.get('trace')!.explanation = trace.explain();
  await auto.placement!.close();
  await trace.placement!.close();
  void names;
  return results;
}

/** One mode's steps in the settled-overhead section: wall and CPU (user + system) time per step. */
interface Cost {
  wall: number[];
  cpu: number[];
}

/**
 * What 'auto' and 'trace' cost once settled: both routers run the workload until their step
 * selector has chosen (and, where it chose one device, while every op runs there untimed but
 * for one step in 50 and the re-checks); then, interleaved round by round, each device bare (its
 * backend alone, no router), each device through an explicit router, and the two placed routers.
 * A round is `perRound` steps of one mode; per mode the median over rounds of the mean step.
 */
async function settledOverhead(backends: [Backend, Backend], names: [string, string], w: Workload, warmup: number, rounds: number, perRound: number): Promise<string> {
  const devs: [MultiDevice<0>, MultiDevice<1>] = [MultiDevice.at(0, backends[0].defaultDevice()), MultiDevice.at(1, backends[1].defaultDevice())];
  const explicit: PR = new Router(backends);
  const auto: PR = new Router(backends, { placement: 'auto', placer: { persist: false } });
  const trace: PR = new Router(backends, { placement: 'trace', placer: { persist: false } });
  await Promise.all([auto.calibrate(), trace.calibrate()]);
  const identity = <K extends Kind>(_: string, t: Tensor<R, K>): Tensor<R, K> => t;
  const placedCtx = (r: PR): Ctx => ({ router: r, dev: (role) => (role === 'input' ? devs[1] : devs[0]), at: identity });
  type Key = 'bare0' | 'bare1' | 'explicit0' | 'explicit1' | 'auto' | 'trace';
  const steps = new Map<Key, () => Promise<void>>([
    ['bare0', w.setup({ router: backends[0], dev: () => backends[0].defaultDevice(), at: identity })],
    ['bare1', w.setup({ router: backends[1], dev: () => backends[1].defaultDevice(), at: identity })],
    ['explicit0', w.setup({ router: explicit, dev: () => devs[0], at: identity })],
    ['explicit1', w.setup({ router: explicit, dev: () => devs[1], at: identity })],
    ['auto', w.setup(placedCtx(auto))],
    ['trace', w.setup(placedCtx(trace))],
  ]);
  const placed = (k: Key): PR | undefined => (k === 'auto' ? auto : k === 'trace' ? trace : undefined);
  for (const [k, step] of steps) {
    for (let i = 0; i < (placed(k) ? warmup : 3); i++) {
      await step();
      placed(k)?.markStep();
    }
    if (k === 'bare1') await Promise.all(backends.map(settleTuner));
  }
  const quiesce = async (): Promise<void> => {
    for (let i = 0; i < 2000 && devs.some((d) => explicit.runtime.lane(d.key).depth > 0); i++) await new Promise((r) => setTimeout(r, 1));
  };
  const costs = new Map<Key, Cost>([...steps.keys()].map((k) => [k, { wall: [], cpu: [] }]));
  const keys = [...steps.keys()];
  const untimed0 = { auto: auto.placement!.untimed.steps, trace: trace.placement!.untimed.steps };
  const leadSteps = new Map<Key, number>();
  for (let r = 0; r < rounds; r++) {
    // Each round starts at another mode (reversed every other round): a mode's round may pay for
    // what the one before left running (pool workers, GC threads, a GPU finishing), so every mode
    // follows every other in turn.
    const start = Math.floor(r / 2) % keys.length;
    const order = [...keys.slice(start), ...keys.slice(0, start)];
    for (const k of r % 2 ? order.reverse() : order) {
      await quiesce();
      const step = steps.get(k)!;
      leadSteps.set(k, (leadSteps.get(k) ?? 0) + (await leadIn(step, placed(k))));
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < perRound; i++) {
        await step();
        placed(k)?.markStep();
      }
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      costs.get(k)!.wall.push(wall / perRound);
      costs.get(k)!.cpu.push((c.user + c.system) / 1000 / perRound);
    }
  }
  const med = (k: Key) => median(costs.get(k)!.wall);
  const cpu = (k: Key) => median(costs.get(k)!.cpu);
  const cell = (k: Key) => `${med(k).toFixed(3)} (${cpu(k).toFixed(3)})`;
  // A placed router against its settled device bare (or, mixed, against the faster device bare).
  const on = (r: PR): string => r.placement!.settledDevice ?? 'mixed';
  const bareOf = (r: PR): Key => (on(r) === devs[0].key ? 'bare0' : on(r) === devs[1].key ? 'bare1' : med('bare0') <= med('bare1') ? 'bare0' : 'bare1');
  const ratio = (k: 'auto' | 'trace', r: PR) => `${(med(k) / med(bareOf(r))).toFixed(2)}x (${(cpu(k) / cpu(bareOf(r))).toFixed(2)}x)`;
  const total = (k: 'auto' | 'trace') => rounds * perRound + (leadSteps.get(k) ?? 0);
  const untimed = (k: 'auto' | 'trace', r: PR) => `${r.placement!.untimed.steps - untimed0[k]}/${total(k)}`;
  await auto.placement!.close();
  await trace.placement!.close();
  void names;
  return `| ${w.name} | ${on(auto)} / ${on(trace)} | ${cell('bare0')} | ${cell('bare1')} | ${cell('explicit0')} | ${cell('explicit1')} | ${cell('auto')} | ${cell('trace')} | ${ratio('auto', auto)} | ${ratio('trace', trace)} | ${untimed('auto', auto)} / ${untimed('trace', trace)} |`;
}

/** Time to place a 1,000-op graph: HEFT on a random step graph, and the online placer per op through the tensor API. */
async function placingTime(backends: [Backend, Backend]): Promise<string[]> {
  const lines: string[] = [];
  // HEFT: 1,000 tasks, about 2 inputs each from the previous 50, 2 and 3 processors.
  for (const q of [2, 3]) {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const n = 1000;
    const cost = Array.from({ length: n }, () => Array.from({ length: q }, () => 0.01 + rnd()));
    const edges = [];
    for (let t = 1; t < n; t++) for (let k = 0; k < 2; k++) edges.push({ from: Math.max(0, t - 1 - Math.floor(rnd() * 50)), to: t, data: 4096 * Math.floor(1 + rnd() * 64) });
    const t0 = performance.now();
    const s = heft({ tasks: n, processors: q, cost, edges, comm: (e) => 0.01 + e.data / 1e6 });
    lines.push(`| HEFT, 1,000 tasks, ${edges.length} edges, ${q} devices | ${(performance.now() - t0).toFixed(1)} ms | makespan ${s.makespan.toFixed(1)} |`);
  }
  // The traced step: a recorded 1,000-op graph, planned at markStep (models from the recording and calibration steps).
  const devs: [Device, Device] = [MultiDevice.at(0, backends[0].defaultDevice()), MultiDevice.at(1, backends[1].defaultDevice())];
  const trace: PR = new Router(backends, { placement: 'trace', placer: { persist: false, calibrate: false } });
  const explicit: PR = new Router(backends);
  const x0 = random(trace, [16, 16], normal(1), { device: devs[1] });
  const step = async (r: PR, x: Tensor<PR, 'float'>) => {
    const out = tidy(() => {
      let y = x;
      for (let i = 0; i < 250; i++) y = y.mul(0.5).add(y.exp().mul(0.01)).tanh();
      return y.sum();
    });
    await out.item();
    out.dispose();
  };
  let planMs = 0;
  for (let i = 0; i < 8 && planMs === 0; i++) {
    await step(trace, x0);
    const before = trace.placement!.plansMade;
    const t0 = performance.now();
    trace.markStep();
    const dt = performance.now() - t0;
    if (trace.placement!.plansMade > before) planMs = dt;
  }
  const ops = trace.explain().ops;
  lines.push(`| trace: markStep that plans a recorded step of ${ops} ops | ${planMs.toFixed(1)} ms | |`);
  // Online: enqueueing 1,000 ops, explicit vs auto (same ops, same inputs).
  const auto: PR = new Router(backends, { placement: 'auto', placer: { persist: false, calibrate: false } });
  const enqueue = (r: PR): number => {
    const x = random(r, [16, 16], normal(1), { device: devs[1] });
    const t0 = performance.now();
    const out = tidy(() => {
      let y: Tensor<R, 'float'> = x;
      for (let i = 0; i < 333; i++) y = y.mul(0.5).add(y).tanh();
      return y.sum();
    });
    const dt = performance.now() - t0;
    void out.item().then(() => out.dispose());
    return dt;
  };
  const te: number[] = [];
  const ta: number[] = [];
  for (let i = 0; i < 7; i++) {
    te.push(enqueue(explicit));
    ta.push(enqueue(auto));
    await new Promise((r) => setTimeout(r, 20));
  }
  lines.push(`| auto: enqueue 1,000 ops (explicit: ${median(te).toFixed(1)} ms) | ${median(ta).toFixed(1)} ms | ${((1000 * (median(ta) - median(te))) / 1000).toFixed(2)} us per op for placing |`);
  // Settled: auto and trace routers whose step selector chose one device alone enqueue the same
  // steps untimed (each step awaited, then marked), against the explicit router, interleaved.
  const idle = async (r: PR): Promise<void> => {
    for (let i = 0; i < 5000 && devs.some((d) => r.runtime.lane(d.key).depth > 0); i++) await new Promise((res) => setTimeout(res, 1));
  };
  const settledOn = async (mode: 'auto' | 'trace'): Promise<PR> => {
    const r: PR = new Router(backends, { placement: mode, placer: { persist: false, calibrate: false } });
    for (let i = 0; i < 40 && !(r.placement!.settledDevice !== undefined && r.placement!.untimed.steps > 0); i++) {
      enqueue(r);
      await idle(r);
      r.markStep();
    }
    return r;
  };
  const settled = { auto: await settledOn('auto'), trace: await settledOn('trace') };
  const times = { explicit: [] as number[], auto: [] as number[], trace: [] as number[] };
  for (let i = 0; i < 9; i++) {
    for (const k of ['explicit', 'auto', 'trace'] as const) {
      const r = k === 'explicit' ? explicit : settled[k];
      times[k].push(enqueue(r));
      await idle(r);
      if (k !== 'explicit') r.markStep();
    }
  }
  for (const k of ['auto', 'trace'] as const) {
    const p = settled[k].placement!;
    lines.push(`| ${k} settled on ${p.settledDevice ?? 'no device (mixed)'}: enqueue 1,000 ops (explicit: ${median(times.explicit).toFixed(1)} ms) | ${median(times[k]).toFixed(1)} ms | ${(median(times[k]) - median(times.explicit)).toFixed(2)} us per op more than explicit (${p.untimed.steps} untimed steps) |`);
    await p.close();
  }
  await auto.placement!.close();
  await trace.placement!.close();
  return lines;
}

export async function main(args: readonly string[]): Promise<void> {
  const quick = args.includes('--quick');
  const cpuOnly = args.includes('--cpu-only');
  const roundsArg = args.indexOf('--rounds');
  const rounds = roundsArg >= 0 ? Number(args[roundsArg + 1]) : quick ? 5 : 9;
  let gpu: Wgpu | undefined;
  let kind: 'real' | 'software' | 'none' = 'none';
  let adapter = '';
  if (!cpuOnly) {
    try {
      gpu = await Wgpu.create();
      const info = await gpu.adapterInfo();
      adapter = `${info.vendor} ${info.device} ${info.description}`.trim();
      kind = /llvmpipe|lavapipe|swiftshader|software/i.test(`${adapter} ${info.architecture}`) ? 'software' : 'real';
    } catch (e) {
      log(`no WebGPU adapter (${e instanceof Error ? e.message.split(';')[0] : String(e)}): Router<[Cpu, Cpu]>`);
    }
  }
  const cpu = new Cpu();
  const second: Backend = gpu ?? new Cpu({ device: CpuDevice.named('cpu:1') });
  const backends: [Backend, Backend] = [second, cpu];
  const names: [string, string] = [gpu ? `wgpu (${adapter})` : 'cpu:1', 'cpu'];
  const sizes = sizesFor(quick, kind);
  // Enough for each mode to settle: a recorded or learning step, 3 steps on each device alone, 2 of the plan or online placement, and re-plans.
  const warmup = quick ? 20 : 30;
  console.log(`## placement: ${new Router(backends).name} on ${os.cpus()[0]?.model.trim()} (${os.cpus().length} cores)${gpu ? `, adapter: ${adapter}` : ''}`);
  console.log(`${new Date().toISOString()}; ${warmup} warm-up steps per placed mode, ${rounds} rounds, median step times\n`);
  const onlyArg = args.indexOf('--only');
  const only = onlyArg >= 0 ? new Set((args[onlyArg + 1] ?? '').split(',')) : undefined;
  const all = { inception: inception(sizes.inception), mlp: mlp(sizes.mlp), chain: chain(sizes.chain), embedding: embedding(sizes.embedding) };
  const workloads = Object.entries(all).flatMap(([k, w]) => (!only || only.has(k) ? [w] : []));
  const overhead = async (): Promise<void> => {
    const perRound = quick ? 5 : 10;
    // Rounds enough for each mode to follow every other in both orders (6 modes: 12 rounds).
    const overheadRounds = Math.max(rounds, 12);
    console.log(`### settled placement vs the device alone: ms per step (CPU ms per step), median over ${overheadRounds} interleaved rounds of ${perRound} steps\n`);
    const [k0, k1] = backends.map((b) => b.defaultDevice().key);
    console.log(`| workload | settled on (auto / trace) | ${k0} bare | ${k1} bare | ${k0} explicit router | ${k1} explicit router | auto | trace | auto / its device bare (CPU) | trace / its device bare (CPU) | untimed steps auto / trace |`);
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const w of workloads) {
      log(`settled overhead: ${w.name}`);
      console.log(await settledOverhead(backends, names, w, warmup, overheadRounds, perRound));
    }
    console.log('');
  };
  if (args.includes('--overhead')) {
    await overhead();
    await cpu.close();
    await second.close();
    return;
  }
  const summary: string[] = [];
  const goals: Array<{ name: string; auto: number; trace: number; errAuto?: number; errTrace?: number }> = [];
  let readmeExample: { name: string; text: string } | undefined;
  console.log(`| workload | ${names[0]} | ${names[1]} | hand | auto | trace | auto / best single | trace / best single | auto: step predicted / measured | trace: step predicted / measured | median op error auto / trace (measured spans) |`);
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const w of workloads) {
    log(w.name);
    const r = await runWorkload(backends, names, w, warmup, rounds);
    const med = (m: Mode) => (r.has(m) ? median(r.get(m)!.ms) : undefined);
    const best = Math.min(med('single0')!, med('single1')!);
    const f = (v: number | undefined) => (v === undefined ? 'n/a' : v.toFixed(2));
    const ex = (m: Mode) => {
      const x = r.get(m)!.explanation;
      return x ? `${f(x.predictedStepMs)} / ${f(x.measuredStepMs)}` : '-';
    };
    // The spans measured behind it: one GPU batch of eight ops is one measurement.
    const err = (m: Mode) => {
      const x = r.get(m)!.explanation;
      return x?.medianErrorPct === undefined ? '-' : `${x.medianErrorPct.toFixed(0)}% (${x.measurements})`;
    };
    console.log(`| ${w.name} | ${f(med('single0'))} | ${f(med('single1'))} | ${f(med('hand'))} | ${f(med('auto'))} | ${f(med('trace'))} | ${(med('auto')! / best).toFixed(2)}x | ${(med('trace')! / best).toFixed(2)}x | ${ex('auto')} | ${ex('trace')} | ${err('auto')} / ${err('trace')} |`);
    const ea = r.get('auto')!.explanation?.medianErrorPct;
    const et = r.get('trace')!.explanation?.medianErrorPct;
    goals.push({ name: w.name, auto: med('auto')! / best, trace: med('trace')! / best, ...(ea !== undefined ? { errAuto: ea } : {}), ...(et !== undefined ? { errTrace: et } : {}) });
    // The README's example: the traced MLP training step (else the first workload run).
    if (w.name.startsWith('mlp') || readmeExample === undefined) readmeExample = { name: w.name, text: r.get('trace')!.explanation!.toString() };
    summary.push(`### ${w.name}: trace\n\n${r.get('trace')!.explanation!.toString()}\n`);
    summary.push(`### ${w.name}: auto (rows of the last step)\n\n${r.get('auto')!.explanation!.toString()}\n`);
  }
  console.log(`\nTimes in ms (median step, first submit to result read; each round, a mode's timed step follows untimed steps of its own for ${LEAD_IN_MS} ms, at least one). Ratios below 1 are faster than the best single device.\n`);
  if (goals.length > 0) {
    const worst = (k: 'auto' | 'trace') => Math.max(...goals.map((g) => g[k]));
    const fastest = Math.min(...goals.map((g) => Math.min(g.auto, g.trace)));
    const errs = (k: 'errAuto' | 'errTrace') => goals.flatMap((g) => (g[k] !== undefined ? [g[k]] : []));
    const med = (xs: number[]) => (xs.length > 0 ? `${median(xs).toFixed(0)}%` : '-');
    console.log('| goal | measured | met |');
    console.log('| --- | --- | --- |');
    console.log(`| auto <= 1.05x the best single device, every workload | worst ${worst('auto').toFixed(2)}x | ${worst('auto') <= 1.05 ? 'yes' : 'no'} |`);
    console.log(`| trace <= 1.05x the best single device, every workload | worst ${worst('trace').toFixed(2)}x | ${worst('trace') <= 1.05 ? 'yes' : 'no'} |`);
    console.log(`| a mixed workload >= 1.2x faster than the best single device | best ${(1 / fastest).toFixed(2)}x faster | ${1 / fastest >= 1.2 ? 'yes' : 'no'} |`);
    // Met when each mode's median over workloads is below 20%.
    const errMet = (['errAuto', 'errTrace'] as const).every((k) => errs(k).length > 0 && median(errs(k)) < 20);
    console.log(`| median prediction error < 20% (per mode, median over workloads of each last step's median over its measured spans) | auto ${med(errs('errAuto'))}, trace ${med(errs('errTrace'))} (per workload: auto ${errs('errAuto').map((e) => e.toFixed(0)).join('/')}%, trace ${errs('errTrace').map((e) => e.toFixed(0)).join('/')}%) | ${errMet ? 'yes' : 'no'} |`);
    console.log('');
  }
  if (!args.includes('--no-overhead')) await overhead();
  console.log('| placing a 1,000-op graph | time | |');
  console.log('| --- | ---: | --- |');
  for (const l of await placingTime(backends)) console.log(l);
  console.log('');
  if (readmeExample) console.log(`### explain() for the README: ${readmeExample.name}, trace mode\n\n${readmeExample.text}\n`);
  for (const s of summary) console.log(s);
  await cpu.close();
  await second.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
