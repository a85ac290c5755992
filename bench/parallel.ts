/**
 * Data-parallel training (`npm run bench -- parallel [--quick] [--no-gpu] [--replicas 1,2,4,8]
 * [--batch 1024] [--steps N] [--worker-pool 1 | --worker-inline] [--only a,b,c,d] [--warm-jit N]`; compiled: `node dist/bench/main.js
 * parallel ...`). `--worker-pool 1` / `--worker-inline` force where 'cpu:worker' replicas compute. The training
 * step of an MLP 784-512-512-10 with Adam (examples/data-parallel-task.ts) on random data:
 *
 *   (a) CPU only: 1 vs 2/4/8 'cpu:worker' replicas (each computes on one thread), even shards;
 *       scaling efficiency T1 / (n Tn), beside the same step on one thread without DataParallel,
 *       and where each step's time went (dispatch, reload, compute, the tail after compute); beside
 *       it, when python3 has torch, PyTorch's compute-only scaling on the same cores (n processes
 *       of one thread on batch / n, no gradient exchange): what the cores allow at best.
 *   (b) The GPU alone (the task's step on one device, no DataParallel; and DataParallel on
 *       'wgpu:0' alone) against the GPU with CPU replicas, shards balanced by measured speed (the
 *       balancer adds the CPU only where it helps); the gain over the GPU alone (medians, and,
 *       judged, the median of each step's ratio to the GPU alone's steps just before and after it,
 *       the two alternating step by step, which GPU clock drift hardly moves). A diagnostic row
 *       gives the GPU the whole batch beside idle CPU replicas (a fixed split with weight 0 for
 *       them): what attached but idle replicas cost the GPU, with the steps that ran solo and
 *       the messages the idle replicas were sent (both counted by DataParallel).
 *   (c) A per-step timeline with small buckets: gradients handed over, reduced and applied while
 *       backward still runs.
 *   (d) What CPU replicas that take no shard cost the GPU's steps (see idleCost).
 *
 * `--warm-jit N`: before (b), N steps of DataParallel on 'wgpu:0' alone and N plain steps, in
 * turn, on a batch of 16: V8 optimizes code that runs once per step only after some hundreds of
 * steps, so without it (b) times DataParallel's per-step code mostly unoptimized, as in a run's
 * first minute; with it, as in a long run.
 *
 * Step times are medians of wall times after a warm-up that covers the balancer's probes; (a) and
 * (b) time their configurations side by side, in interleaved rounds.
 */
import { mlpRecord } from './mlp-record.js';
import { median, medianInterval } from './stats.js';
import { settleTuner } from './tuner.js';
import { Autodiff } from '../src/autodiff/autodiff.js';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import type { Device } from '../src/devices/device.js';
import { tidy } from '../src/memory/tidy.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Adam } from '../src/optim/adam.js';
import { ParamGrads } from '../src/optim/param-grads.js';
import { DataParallel, type DataParallelOptions, type StepResult } from '../src/parallel/data-parallel.js';
import { gpuInventory } from '../src/parallel/gpus.js';
import type { Batch } from '../src/parallel/protocol.js';
import { overlapOf, phasesOf, renderTimeline, type Phases } from '../src/parallel/timeline.js';
import { fromData } from '../src/tensor/creation.js';
import { mlp, type MnistTaskOptions } from '../examples/data-parallel-task.js';
import { torchJson } from './gpu-baselines.js';

const SIZES = [784, 512, 512, 10];
/** Untimed steps that lead each configuration's turn in a round, at least LEAD_IN_MS of them (see timeScaling). */
const LEAD_IN = 2;
/** Interleaved rounds of (b). */
const B_ROUNDS = 6;
const LEAD_IN_MS = 300;

/** Runs `step` at least LEAD_IN times and for at least LEAD_IN_MS. */
async function leadIn(step: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  for (let s = 0; s < LEAD_IN || performance.now() - t0 < LEAD_IN_MS; s++) await step();
}

/** PyTorch's compute-only scaling on this machine's cores: JSON {n: ms per step of the slowest of n processes}. */
const TORCH_CPU_SCALING = String.raw`
import importlib.util, json, sys, time, multiprocessing as mp
# Checked here: without torch the children would die at their import and the parent wait forever.
if importlib.util.find_spec('torch') is None: sys.exit('torch is not installed')
def work(b, q, barrier):
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    opt = torch.optim.Adam(m.parameters(), 1e-3)
    x = torch.randn(b, 784); y = torch.randint(0, 10, (b,))
    def step():
        opt.zero_grad(); l = torch.nn.functional.cross_entropy(m(x), y); l.backward(); opt.step()
    for _ in range(3): step()
    barrier.wait()
    ts = []
    for _ in range(11):
        t = time.perf_counter(); step(); ts.append((time.perf_counter() - t) * 1e3)
    ts.sort(); q.put(ts[5])
if __name__ == '__main__':
    mp.set_start_method('fork')
    a = json.loads(sys.argv[1]); out = {}
    for n in a['counts']:
        q = mp.Queue(); bar = mp.Barrier(n)
        ps = [mp.Process(target=work, args=(-(-a['batch'] // n), q, bar)) for _ in range(n)]
        [p.start() for p in ps]; r = [q.get(timeout=300) for _ in ps]; [p.join() for p in ps]
        out[str(n)] = max(r)
    print(json.dumps(out))
`;
const LR = 1e-3;
const TASK = new URL(import.meta.url.endsWith('.ts') ? '../examples/data-parallel-task.ts' : '../examples/data-parallel-task.js', import.meta.url);

function randomBatch(n: number, seed: number): Batch {
  let a = seed >>> 0;
  const next = () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
  // In shared memory, as a loader filling SharedArrayBuffers gives it: replicas in threads read
  // it in place (a plain batch costs one copy per step, 3.2 MB at batch 1024).
  const x = new Float32Array(new SharedArrayBuffer(n * 784 * 4));
  for (let i = 0; i < x.length; i++) x[i] = next();
  const y = new Int32Array(new SharedArrayBuffer(n * 4));
  for (let i = 0; i < n; i++) y[i] = Math.floor(next() * 10);
  return { x: { data: x, shape: [n, 784] }, y: { data: y, shape: [n] } };
}

interface Timed {
  ms: number;
  /** Mean of each phase over the timed steps. */
  phases: Phases;
  last: StepResult;
  shards: readonly number[];
  notes: string[];
  describe: string;
  /** The first replica's backend, e.g. 'autodiff<cpu>, 1 pool thread'. */
  backend: string;
  /** Timed steps that ran solo, of `steps`. */
  solo: number;
  steps: number;
  /** Messages sent to replicas that took no shard, over the timed steps. */
  idleMessages: number;
  /**
   * With a plain step given: for each timed step, the mean of the plain steps just before and just
   * after it over its time (above 1: faster than the plain step). Drifts (GPU clocks, the host)
   * shift medians taken seconds apart more than this paired ratio.
   */
  vsPlain: number[];
  /** With a plain step given: per round, the median of that turn's paired ratios. */
  roundRatios: number[];
  /** Per round, whether the turn had a step that was not solo (several replicas took shards). */
  mixedTurns: boolean[];
}

/** DataParallel over the task from the same initial weights; its notices (without the prefix) go to `notes`. */
async function startParallel(devices: string, extra: Partial<DataParallelOptions<MnistTaskOptions>>, notes: string[] = []): Promise<DataParallel> {
  return DataParallel.create<MnistTaskOptions>({ task: TASK, module: await mlpRecord(SIZES), devices, options: { sizes: SIZES, lr: LR }, onNotice: (m) => notes.push(m.replace(/^DataParallel: /, '')), ...extra });
}

/** Median step wall time of a DataParallel run after `warm` steps. */
async function timeParallel(devices: string, batch: Batch, warm: number, steps: number, extra: Partial<DataParallelOptions<MnistTaskOptions>> = {}): Promise<Timed> {
  const notes: string[] = [];
  const dp = await startParallel(devices, extra, notes);
  try {
    const walls: number[] = [];
    const phases: Phases[] = [];
    let last: StepResult | undefined;
    let solo = 0;
    let idleMessages = 0;
    for (let s = 0; s < warm + steps; s++) {
      const t0 = performance.now();
      last = await dp.step(batch);
      const wall = performance.now() - t0;
      if (s >= warm) {
        walls.push(wall);
        phases.push(phasesOf(last.timeline));
        if (last.solo) solo++;
        const shards = last.shards;
        idleMessages += last.traffic.reduce((a, t, r) => a + (shards[r] === 0 ? t.messages : 0), 0);
      }
    }
    const describe = dp.replicaInfo.map((r) => `${r.device}${r.active ? '' : ' (idle)'}`).join(', ');
    const mean = (k: keyof Phases): number => phases.reduce((a, p) => a + p[k], 0) / phases.length;
    const avg: Phases = { dispatchMs: mean('dispatchMs'), reloadMs: mean('reloadMs'), computeMs: mean('computeMs'), tailMs: mean('tailMs'), wallMs: mean('wallMs') };
    return { ms: median(walls), phases: avg, last: last!, shards: last!.shards, notes, describe, backend: dp.replicaInfo[0]?.describe ?? '', solo, steps, idleMessages, vsPlain: [], roundRatios: [], mixedTurns: [] };
  } finally {
    await dp.close();
  }
}

/**
 * Configurations measured side by side: every configuration's DataParallel is started first and
 * warmed up, then the timed steps run in interleaved rounds, so that a slow or fast stretch of the
 * machine falls on every configuration alike rather than on whichever ran then. Idle replicas
 * wait on their event loops (no CPU). Each turn is led in by untimed steps (LEAD_IN, and
 * LEAD_IN_MS at least) and times steps / rounds in a row: the first steps after a switch run on
 * cores, caches and GPU clocks the previous configuration left (on the H200's host, turns of one
 * untimed and two timed steps put 4 replicas at 36.7 ms where 20 in a row gave 30-33 ms; the GPU
 * alone ran 5% slower in the turn after the GPU had idled through a slow CPU mix). A plain step,
 * when given, alternates with each configuration's steps (see `vsPlain`).
 */
async function timeScaling(configs: ReadonlyArray<{ devices: string; extra: Partial<DataParallelOptions<MnistTaskOptions>> }>, batch: Batch, warm: number, steps: number, rounds: number, plain?: { step: () => Promise<number>; walls: number[] }): Promise<Timed[]> {
  const runs = [];
  try {
    for (const c of configs) {
      const notes: string[] = [];
      const dp = await startParallel(c.devices, c.extra, notes);
      runs.push({ dp, notes, walls: [] as number[], vsPlain: [] as number[], roundRatios: [] as number[], mixedTurns: [] as boolean[], phases: [] as Phases[], solo: 0, idleMessages: 0, last: undefined as StepResult | undefined });
      for (let s = 0; s < warm; s++) await dp.step(batch);
    }
    if (plain) for (let s = 0; s < warm; s++) await plain.step();
    for (let r = 0; r < rounds; r++) {
      // `steps` timed steps in all, spread over the rounds.
      const per = Math.floor(((r + 1) * steps) / rounds) - Math.floor((r * steps) / rounds);
      // Each round starts at the next configuration, so none always follows the same one.
      for (let k = 0; k < runs.length; k++) {
        const run = runs[(r + k) % runs.length]!;
        // With a plain step given, the two alternate step by step (lead-in included): each timed
        // step is compared with the plain steps just before and after it, which ran on the same
        // GPU clocks and host load (turns of ten steps apart differed by up to 20% on the H200).
        const both = async (): Promise<void> => {
          await run.dp.step(batch);
          if (plain) await plain.step();
        };
        await leadIn(both);
        const turn: number[] = [];
        const ratios: number[] = [];
        let mixed = false;
        let before = plain ? await plain.step() : 0;
        for (let s = 0; s < per; s++) {
          // As the caller sees it (StepResult.wallMs leaves out the call's own checks and queue).
          const t0 = performance.now();
          const step = await run.dp.step(batch);
          const wall = performance.now() - t0;
          if (!step.solo) mixed = true;
          turn.push(wall);
          run.walls.push(wall);
          run.phases.push(phasesOf(step.timeline));
          if (step.solo) run.solo++;
          run.idleMessages += step.traffic.reduce((a, t, q) => a + (step.shards[q] === 0 ? t.messages : 0), 0);
          run.last = step;
          if (plain) {
            const after = await plain.step();
            plain.walls.push(after);
            ratios.push((before + after) / 2 / wall);
            before = after;
          }
        }
        if (plain) {
          run.vsPlain.push(...ratios);
          run.roundRatios.push(median(ratios));
          run.mixedTurns.push(mixed);
        }
      }
    }
    return runs.map((run) => {
      const mean = (k: keyof Phases): number => run.phases.reduce((a, p) => a + p[k], 0) / run.phases.length;
      const last = run.last!;
      return {
        ms: median(run.walls),
        phases: { dispatchMs: mean('dispatchMs'), reloadMs: mean('reloadMs'), computeMs: mean('computeMs'), tailMs: mean('tailMs'), wallMs: mean('wallMs') },
        last,
        shards: last.shards,
        notes: run.notes,
        describe: run.dp.replicaInfo.map((i) => `${i.device}${i.active ? '' : ' (idle)'}`).join(', '),
        backend: run.dp.replicaInfo[0]?.describe ?? '',
        solo: run.solo,
        steps: run.walls.length,
        idleMessages: run.idleMessages,
        vsPlain: run.vsPlain,
        roundRatios: run.roundRatios,
        mixedTurns: run.mixedTurns,
      };
    });
  } finally {
    for (const run of runs) await run.dp.close();
  }
}

/**
 * The task's step without DataParallel: Autodiff over one backend, on this thread; `step()` runs
 * one and gives its wall time. It does what examples/data-parallel-task.ts does per shard (loss,
 * the accuracy count it reports, Adam) and reads what a replica reads (the loss, the count, and
 * the last bias, which orders after the update).
 */
function plainRunner(inner: Backend & { close(): Promise<void> }, device: Device, batch: Batch): { step: () => Promise<number>; close: () => Promise<void> } {
  const ad = new Autodiff(inner);
  ad.seed(1);
  const model = mlp(ad, device, SIZES);
  const opt = new Adam<typeof ad>({ lr: LR });
  const xs = batch['x']!.data;
  const ys = batch['y']!.data;
  if (!(xs instanceof Float32Array) || !(ys instanceof Int32Array)) throw new Error('the batch holds float x and int y');
  const n = ys.length;
  let taken = 0;
  return {
    step: async () => {
      const t0 = performance.now();
      const [loss, correct] = tidy(() => {
        const x = fromData(ad, xs, { shape: [n, 784], device });
        const y = fromData(ad, ys, { device });
        const logits = model.forward(x);
        const l = crossEntropy(logits, y);
        const c = logits.argmax(1).equal(y).cast('int32').sum();
        opt.step(model, ParamGrads.from(l.backward(), model));
        return [l, c] as const;
      });
      // The last bias (a small read ordered after the update, same device), the loss and the count, in one wait.
      await Promise.all([model.params().at(-1)!.value.toData(), loss.item(), correct.item()]);
      loss.dispose();
      correct.dispose();
      const wall = performance.now() - t0;
      if (++taken === 2) await settleTuner(inner);
      return wall;
    },
    close: async () => {
      model.dispose();
      opt.clear();
      await ad.close();
    },
  };
}

/** Median wall time of the plain step over `steps` steps after `warm`. */
async function timePlain(inner: Backend & { close(): Promise<void> }, device: Device, batch: Batch, warm: number, steps: number): Promise<number> {
  const run = plainRunner(inner, device, batch);
  const walls: number[] = [];
  for (let s = 0; s < warm + steps; s++) {
    const wall = await run.step();
    if (s >= warm) walls.push(wall);
  }
  await run.close();
  return median(walls);
}

/** A DataParallel configuration of part (d): its devices and options. */
interface Config {
  readonly devices: string;
  readonly extra: Partial<DataParallelOptions<MnistTaskOptions>>;
}

/**
 * (d) What CPU replicas attached to the GPU cost its steps while they take no shard: DataParallel
 * on 'wgpu:0' alone (A) against two other configurations B and C, one step each in turn
 * (A B A C ...): every step follows another instance's (each has its own GPU device, and a step
 * right after another device's pays for the switch), and B and C are compared with the A steps
 * on either side. The usual B: CPU replicas the balancer keeps out (margin 0.99, no
 * re-evaluation, so every timed step is solo); C: the same fixed idle. The control row makes B
 * and C two more instances on 'wgpu:0' alone: what the order and the instances cost by themselves.
 */
async function idleCost(bConfig: Config, cConfig: Config, batch: Batch, warm: number, rounds: number): Promise<{ a: number; b: number[]; c: number[]; bSolo: number }> {
  const made: DataParallel[] = [];
  try {
    const A = await startParallel('wgpu:0', {});
    made.push(A);
    const B = await startParallel(bConfig.devices, bConfig.extra);
    made.push(B);
    const C = await startParallel(cConfig.devices, cConfig.extra);
    made.push(C);
    for (let s = 0; s < warm; s++) for (const dp of made) await dp.step(batch);
    const timed = async (dp: DataParallel): Promise<{ ms: number; solo: boolean }> => {
      const t0 = performance.now();
      const r = await dp.step(batch);
      return { ms: performance.now() - t0, solo: r.solo };
    };
    const as: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    let bSolo = 0;
    let prev = (await timed(A)).ms;
    for (let r = 0; r < rounds; r++) {
      const tb = await timed(B);
      const a1 = (await timed(A)).ms;
      const tc = await timed(C);
      const a2 = (await timed(A)).ms;
      if (tb.solo) bSolo++;
      as.push(a1, a2);
      b.push(tb.ms - (prev + a1) / 2);
      c.push(tc.ms - (a1 + a2) / 2);
      prev = a2;
    }
    return { a: median(as), b, c, bSolo };
  } finally {
    for (const dp of made) await dp.close();
  }
}

function parseList(args: readonly string[], name: string, fallback: number[]): number[] {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  return (args[i + 1] ?? '').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
}

export async function main(args: readonly string[] = []): Promise<void> {
  const quick = args.includes('--quick');
  // --only a,b,c,d: the parts to run (all by default).
  const onlyAt = args.indexOf('--only');
  const parts = new Set(onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',') : ['a', 'b', 'c', 'd']);
  const batchSize = parseList(args, '--batch', [1024])[0] ?? 1024;
  const replicaCounts = parseList(args, '--replicas', quick ? [1, 2] : [1, 2, 4, 8]);
  const steps = parseList(args, '--steps', [quick ? 3 : 10])[0] ?? 10;
  const os = await import('node:os');
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const batch = randomBatch(batchSize, 7);
  const warm = quick ? 2 : 4;
  // CPU replicas run JavaScript on every step (the join, the flat update, the reload of the weights):
  // V8 optimises those loops only after some steps, so (a) times the steady state of a long run.
  const warmCpu = quick ? 2 : 20;
  console.log(`\n## Data-parallel training: MLP ${SIZES.join('-')}, Adam, batch ${batchSize}; ${cores} cores; median of ${steps} steps after ${warm} (CPU replicas in (a): ${warmCpu}; + the balancer's probes)\n`);

  // (a) CPU-only scaling.
  if (parts.has('a')) {
    console.log(`### (a) CPU replicas ('cpu:worker', one compute thread each), even shards and balanced (the default)\n`);
    const rounds = quick ? 1 : 5;
    console.log(`Every configuration started and warmed up (${warmCpu} steps) first, then timed side by side: ${rounds} interleaved rounds (each starting at the next configuration), each configuration's turn ${LEAD_IN} untimed steps (${LEAD_IN_MS} ms at least) then ${steps} timed; medians over all rounds.\n`);
    const plainOne = await timePlain(new Cpu({ threads: 1 }), { backend: 'cpu', key: 'cpu' }, batch, warm, steps);
    console.log(`one thread without DataParallel (Autodiff<Cpu>, pool of 1; timed before the rounds, not interleaved): ${plainOne.toFixed(1)} ms per step\n`);
    // CPU replicas in threads share memory: both strategies run the flat update (each replica steps
    // the optimizer on the range it reduced), so one strategy is timed.
    console.log('| replicas | shard | ms per step | samples/s | speedup vs 1 | efficiency T1 / (n Tn) | dispatch | reload | compute | tail | a replica computes |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    let t1 = 0;
    const pool = parseList(args, '--worker-pool', [])[0];
    const forced: Partial<DataParallelOptions<MnistTaskOptions>> = pool === 1 ? { workerPoolThreads: 1 } : args.includes('--worker-inline') ? { workerPoolThreads: 0 } : {};
    // Where the default computes on the replicas' own threads (two threads each do not fit), the
    // pool-thread variant is timed too, to check the rule.
    // Even shards (the scaling of the step itself), and for n > 1 the default split too: shards
    // balanced by each replica's measured speed, which follows cores that run slower for a while.
    type Variant = { n: number; split: 'even' | 'balanced'; extra: Partial<DataParallelOptions<MnistTaskOptions>> };
    const variants: Variant[] = replicaCounts.flatMap((n): Variant[] => {
      const where: Variant[] = Object.keys(forced).length === 0 && 2 * n + 1 > cores ? [{ n, split: 'even', extra: {} }, { n, split: 'even', extra: { workerPoolThreads: 1 } }] : [{ n, split: 'even', extra: forced }];
      return n > 1 ? [...where, { ...where[0]!, split: 'balanced' }] : where;
    });
    // `steps` timed steps a turn.
    const timed = await timeScaling(variants.map(({ n, split, extra }) => ({ devices: `cpu:worker*${n}`, extra: { strategy: 'sharded', split, ...extra } })), batch, warmCpu, rounds * steps, rounds);
    for (const [k, { n, split }] of variants.entries()) {
      const r = timed[k]!;
      if (n === 1 && t1 === 0) t1 = r.ms;
      const base = t1 || r.ms;
      const p = r.phases;
      const shard = split === 'even' ? String(Math.ceil(batchSize / n)) : `balanced: ${Math.min(...r.shards)}-${Math.max(...r.shards)}`;
      console.log(`| ${n} | ${shard} | ${r.ms.toFixed(1)} | ${Math.round((batchSize / r.ms) * 1000)} | ${(base / r.ms).toFixed(2)}x | ${(base / (n * r.ms)).toFixed(2)} | ${p.dispatchMs.toFixed(1)} | ${p.reloadMs.toFixed(1)} | ${p.computeMs.toFixed(1)} | ${p.tailMs.toFixed(1)} | ${r.backend.replace(/^autodiff<cpu>, /, '')} |`);
    }
    console.log('\n(dispatch: to the last replica starting; reload: the longest reload of weights at the start of the step (with the ranges update, the weights of every bucket were reloaded during the previous step, those of the last as it ended, which can delay the start of the next step: that is in dispatch); compute: the longest forward + backward; tail: after the last compute, the join and update not hidden by backward; means in ms)\n');
    const ceiling = torchJson<Record<string, number>>(TORCH_CPU_SCALING, [JSON.stringify({ batch: batchSize, counts: replicaCounts })]);
    if (ceiling) {
      // What the cores give without any communication: the same step in PyTorch, n processes of one
      // thread each on batch / n at once, against one process on the whole batch.
      const one = ceiling['1'];
      console.log(`PyTorch CPU in the same run, compute only (n processes of one thread, each its own model on batch / n at once; no gradient exchange), ms per step (the slowest process):\n`);
      console.log('| processes | ms per step | efficiency T1 / (n Tn) |');
      console.log('| --- | --- | --- |');
      for (const n of replicaCounts) {
        const t = ceiling[String(n)];
        if (t !== undefined && one !== undefined) console.log(`| ${n} | ${t.toFixed(1)} | ${(one / (n * t)).toFixed(2)} |`);
      }
      console.log('');
    }
  }

  // (b) GPU with CPU replicas.
  const inventory = args.includes('--no-gpu') ? { gpus: [] } : await gpuInventory();
  if (!parts.has('b')) {
    // Not asked for.
  } else if (inventory.gpus.length === 0) console.log('### (b) skipped: no GPU adapter\n');
  else {
    console.log(`### (b) the GPU alone against the GPU with CPU replicas (${inventory.gpus[0]!.name})\n`);
    // Timed steps per turn of (b): at batch 1024 24 times the steps over the six rounds (the 95%
    // interval of 60 paired steps spanned 0.80-1.05 on a noisy H100 host), 6 times at 8192 (there
    // 60 gave intervals 1-3% wide); cost follows the batch.
    const perTurn = (b: number): number => Math.max(steps, Math.round((4 * steps * 1024) / b));
    console.log(`Timed as (a): ${quick ? 1 : B_ROUNDS} interleaved rounds, each configuration's turn ${LEAD_IN} untimed steps (${LEAD_IN_MS} ms at least) then ${quick ? steps : `${perTurn(batchSize)} (batch ${batchSize}) or ${perTurn(8 * batchSize)} (batch ${8 * batchSize})`} timed; the GPU alone (no DataParallel, this thread) steps between every two of a configuration's steps, lead-in included, and each configuration is judged on the median over its timed steps of (the GPU alone's steps just before and after) / (its step), with a 95% interval for that median (order statistics).\n`);
    const { Wgpu } = await import('../src/backends/wgpu/backend.js');
    const warmJit = parseList(args, '--warm-jit', [0])[0] ?? 0;
    if (warmJit > 0) {
      const small = randomBatch(16, 5);
      const gpu = await Wgpu.create();
      const plainSmall = plainRunner(gpu, gpu.defaultDevice(), small);
      const dp = await startParallel('wgpu:0', {});
      const t0 = performance.now();
      for (let s = 0; s < warmJit; s++) {
        await dp.step(small);
        await plainSmall.step();
      }
      await dp.close();
      await plainSmall.close();
      console.log(`JIT warm-up: ${warmJit} steps of DataParallel on wgpu:0 alone and ${warmJit} plain steps, in turn, batch 16 (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
    }
    for (const b of quick ? [batchSize] : [batchSize, 8 * batchSize]) {
      const big = b === batchSize ? batch : randomBatch(b, 11);
      const gpu = await Wgpu.create();
      const plainRun = { ...plainRunner(gpu, gpu.defaultDevice(), big), walls: [] as number[] };
      const warmBalanced = warm + 16; // the balancer's warm-up (3), the GPU alone (4), the probe (4), the mix (4) and the GPU alone again (4)
      const workers = Math.max(1, Math.min(8, cores - 2));
      // Diagnostic rows: the GPU takes everything (weight 0 for the CPU replicas): the cost of
      // idle replicas being attached, which should be none (every step solo, nothing sent to them).
      const allToGpu = (n: number): number[] => [1, ...new Array<number>(n).fill(0)];
      const rows: Array<[string, Partial<DataParallelOptions<MnistTaskOptions>>, boolean]> = [
        ['wgpu:0,cpu', {}, false],
        [`wgpu:0,cpu:worker*${workers}`, {}, false],
        ['wgpu:0,cpu', { split: [3, 1] }, false],
        ['wgpu:0,cpu', { split: allToGpu(1) }, true],
        [`wgpu:0,cpu:worker*${workers}`, { split: allToGpu(workers) }, true],
      ];
      // DataParallel on the GPU alone and every mix, started and warmed up first, then timed in
      // interleaved rounds (as (a)): the GPU's own step drifts by tens of percent within a run.
      // GPU steps are short and their times spread widely: six rounds of perTurn steps each.
      // The plain step (no DataParallel, this thread) takes its turns in the same rounds.
      const timedSteps = quick ? steps : B_ROUNDS * perTurn(b);
      const timedB = await timeScaling([{ devices: 'wgpu:0', extra: {} }, ...rows.map(([devices, extra]) => ({ devices, extra }))], big, warmBalanced, timedSteps, quick ? 1 : B_ROUNDS, plainRun);
      await plainRun.close();
      const plain = median(plainRun.walls);
      const one = timedB[0]!;
      // The GPU alone: the task's step without DataParallel, the same work on the same device.
      const alone = plain;
      const paired = (r: Timed): number => median(r.vsPlain);
      const interval = (r: Timed): string => medianInterval(r.vsPlain).map((v) => v.toFixed(2)).join('-');
      console.log(`batch ${b}: the GPU alone: ${plain.toFixed(2)} ms per step without DataParallel (the task's step), ${one.ms.toFixed(2)} ms with DataParallel on wgpu:0 alone (${(plain / one.ms).toFixed(2)}x; paired step by step ${paired(one).toFixed(2)}x, 95% interval ${interval(one)}, per round ${one.roundRatios.map((v) => v.toFixed(2)).join(' ')}; both interleaved with the rows below)\n`);
      console.log('| devices | final shards | ms per step | gain over the GPU alone (without DataParallel): medians | paired step by step with the GPU alone (95% interval) | against DataParallel on wgpu:0 alone (ratio of the paired medians) | per round (* a turn with steps that were not solo) | balancer |');
      console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
      for (const [k, [, extra, idle]] of rows.entries()) {
        const r = timedB[k + 1]!;
        const counted = `${r.solo}/${r.steps} steps solo, ${r.idleMessages} messages to idle replicas`;
        const how = idle ? `diagnostic: fixed split ${JSON.stringify(extra.split)}, the CPU replicas attached but idle; ${counted}` : extra.split ? `fixed split ${JSON.stringify(extra.split)} (no balancer)` : `${r.notes.join('; ') || '-'} (${counted})`;
        // Judged on the paired ratio: GPU clocks drift by tens of percent within a run (an
        // H200's SM clock fell from 1980 to 600-765 MHz under this light load), which moves medians
        // of turns taken seconds apart more than the ratio to the plain steps on either side.
        const gain = paired(r);
        const verdict = extra.split && !idle ? '' : gain >= 1 / 1.02 ? ' (not slower)' : ' (SLOWER)';
        const rounds = r.roundRatios.map((v, q) => `${v.toFixed(2)}${r.mixedTurns[q] ? '*' : ''}`).join(' ');
        console.log(`| ${r.describe} | ${r.shards.join(' / ')} | ${r.ms.toFixed(2)} | ${(alone / r.ms).toFixed(2)}x | ${gain.toFixed(3)}x${verdict} (${interval(r)}) | ${(gain / paired(one)).toFixed(2)}x | ${rounds} | ${how} |`);
      }
      console.log('');
    }
  }

  // (c) The timeline of one step, buckets of at most 512 KiB (one per layer here).
  if (parts.has('c')) {
    console.log('### (c) one step, gradient buckets of at most 512 KiB (first 256 KiB)\n');
    const timelineDevices = inventory.gpus.length > 0 ? ['cpu:worker*4', 'wgpu:0,cpu:worker*2'] : ['cpu:worker*4'];
    for (const devices of timelineDevices) {
      const r = await timeParallel(devices, batch, warm, steps, { strategy: 'sharded', split: 'even', bucketBytes: 512 * 1024, firstBucketBytes: 256 * 1024 });
      const o = overlapOf(r.last.timeline);
      const ranges = devices.includes('wgpu') ? '' : ' (CPU replicas only: each r also steps the optimizer on its range)';
      console.log(`${devices}, 'sharded': ${r.ms.toFixed(1)} ms per step (median); the last step${ranges}:\n`);
      console.log('```');
      console.log(renderTimeline(r.last.timeline, 72));
      console.log('```');
      console.log(`communication ${o.commMs.toFixed(2)} ms, of which ${o.overlappedMs.toFixed(2)} ms (${(100 * o.fraction).toFixed(0)}%) ran while backward ran (backward ${o.backwardMs.toFixed(2)} ms)\n`);
    }
  }

  // (d) What idle CPU replicas cost the GPU's steps.
  if (parts.has('d') && inventory.gpus.length === 0) console.log('### (d) skipped: no GPU adapter\n');
  else if (parts.has('d')) {
    const rounds = quick ? 20 : 200;
    const workers = Math.max(1, Math.min(8, cores - 2));
    console.log(`### (d) what CPU replicas that take no shard cost the GPU's steps\n`);
    console.log(`DataParallel on wgpu:0 alone (A), with CPU replicas the balancer keeps out (B) and with them fixed idle (C), one step each in turn (A B A C ...), ${rounds} rounds after ${warm + 16} steps each; B and C minus the mean of the A steps on either side, medians with 95% intervals. The control row's B and C are two more instances on wgpu:0 alone: what remains there is the order's and the instances' own cost, not the CPU replicas'.\n`);
    console.log('| attached (B, C) | A ms per step | B - A ms | C - A ms | B steps solo |');
    console.log('| --- | --- | --- | --- | --- |');
    const kept = { balance: { margin: 0.99, reevaluateEvery: 1_000_000 } };
    const fixedIdle = (idle: number): Partial<DataParallelOptions<MnistTaskOptions>> => ({ split: [1, ...new Array<number>(idle).fill(0)] });
    const rows: Array<{ name: string; b: Config; c: Config }> = [
      // The null: B and C do what A does, so their differences are the order's and the instances'.
      { name: 'none (control: B and C on wgpu:0 alone too)', b: { devices: 'wgpu:0', extra: {} }, c: { devices: 'wgpu:0', extra: {} } },
      { name: `cpu (${Math.max(1, cores - 2)} pool threads, the default)`, b: { devices: 'wgpu:0,cpu', extra: kept }, c: { devices: 'wgpu:0,cpu', extra: fixedIdle(1) } },
      // Whether the number of idle threads matters: the same replica with one pool thread.
      { name: 'cpu (1 pool thread)', b: { devices: 'wgpu:0,cpu', extra: { ...kept, cpuThreads: 1 } }, c: { devices: 'wgpu:0,cpu', extra: { ...fixedIdle(1), cpuThreads: 1 } } },
      { name: `cpu:worker*${workers}`, b: { devices: `wgpu:0,cpu:worker*${workers}`, extra: kept }, c: { devices: `wgpu:0,cpu:worker*${workers}`, extra: fixedIdle(workers) } },
    ];
    for (const row of rows) {
      const r = await idleCost(row.b, row.c, batch, warm + 16, rounds);
      const show = (xs: number[]): string => `${median(xs).toFixed(3)} (${medianInterval(xs).map((v) => v.toFixed(3)).join(' to ')})`;
      console.log(`| ${row.name} | ${r.a.toFixed(2)} | ${show(r.b)} | ${show(r.c)} | ${r.bSolo}/${rounds} |`);
    }
    console.log('');
  }
}
