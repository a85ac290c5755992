/**
 * DataParallel: one replica of a module per device, each in a worker thread (or, for a GPU that
 * must be pinned, a process) with its own Runtime and backend. Every step splits the global batch
 * into shards, runs forward and backward on all replicas at once, joins the gradients by
 * parameter (the mean over the batch: each shard's mean gradient weighted by its size), steps the
 * optimizer once per parameter on the replica that owns it, and brings the other replicas up to
 * date. Gradients travel in buckets, in the order backward produces them, so joining and updating
 * overlap the rest of backward. A step where one replica takes the whole batch runs solo, as that
 * device would without DataParallel (its own optimizer step, nothing read back, joined or
 * reloaded), and replicas without a shard are sent nothing: an idle replica costs the others
 * nothing, which the balancer relies on when it times the core alone.
 *
 * Memory: replicas in worker threads share the flat gradient, joined-gradient and weight buffers
 * with the coordinator (SharedArrayBuffer: gradients are written and summed in place, never
 * serialised). Replicas in processes carry the same data in messages.
 */
import { ArgumentError, SwitchyardError } from '../errors.js';
import type { Module } from '../nn/module.js';
import type { ParamId } from '../nn/param.js';
import { sameShape } from '../ir/shape.js';
import { ownedFloat32, type ModuleRecord, type ParamRecord } from '../nn/record.js';
import type { OptimizerRecord } from '../optim/optimizer.js';
import { importNodeModule, isNode } from '../platform.js';
import { saveCheckpoint } from './checkpoint.js';
import { Balancer, type BalancerOptions, type Decision, type Observation, type Plan, type Split } from './balancer.js';
import { parseDevices, type ReplicaDevice } from './devices.js';
import { ReplicaError } from './errors.js';
import { gpuInventory, withoutSelection } from './gpus.js';
import { placeGpus, type GpuHost, type Placement } from './placement.js';
import { checkBatch, SharedBatch, sliceBatch, viewBatch } from './batch.js';
import { startMain, startProcess, startThread, taskHref, type ReplicaHost } from './host.js';
import { allocateShared, copyRecord, gatherParams, scatterParams, sharedViews, type SharedViews } from './flat.js';
import { assignOwners, planLayout, type Layout } from './layout.js';
import { absoluteNow, errorMessage, isMessage, transferList, type Batch, type ComputedMessage, type ErrorMessage, type FromReplica, type ReduceMessage, type SharedBuffers, type StepMessage, type StepReductions, type ToReplica } from './protocol.js';
import { chunkOf, sumOfSquares, weightedSum } from './reduce.js';
import { flatState, loadFlatState, type FlatRule } from './flat-optimizer.js';
import { overlapOf, type BucketEvents, type Interval, type ReplicaTimeline, type StepTimeline } from './timeline.js';

export type Strategy = 'main' | 'sharded';

export interface DataParallelOptions<O = unknown> {
  /** The task module every replica imports (a URL or a file path): `export default defineTask({ model, loss, optimizer })`. */
  readonly task: string | URL;
  /** The model to train (any backend), or its record: every replica starts from these weights and ParamIds. */
  readonly module: Module | ModuleRecord;
  /** 'wgpu:0,cpu' or ['wgpu:0', 'cpu:worker*4']: one replica per entry. */
  readonly devices: string | readonly string[];
  /** 'main' (default): the first active device steps every parameter; 'sharded': parameter i is stepped on device (i + k) mod n. */
  readonly strategy?: Strategy;
  /** Plain data handed to the task's functions. */
  readonly options?: O;
  /** 'balanced' (default: by measured speed; beside GPUs, CPU replicas take shards only where they help), 'even', or a weight per device. */
  readonly split?: Split;
  readonly balance?: BalancerOptions;
  /** Gradient bucket cap, bytes (default 25 MiB, as PyTorch DDP; 1 MiB with CPU replicas only). */
  readonly bucketBytes?: number;
  /** Cap of the first bucket, bytes (default 1 MiB; 256 KiB with CPU replicas only). */
  readonly firstBucketBytes?: number;
  /** Pool threads of a 'cpu' replica (default: the cores the other replicas leave, at least 1). */
  readonly cpuThreads?: number;
  /**
   * Where a 'cpu:worker' replica computes: 1 on a pool thread of its own (its thread stays free to
   * hand gradients over during backward), 0 on its own thread. Default: 1 while two threads per
   * such replica fit in the cores, else 0 (N replicas on N cores compute on N threads, not 2N).
   */
  readonly workerPoolThreads?: 0 | 1;
  /** Where GPU replicas run: 'auto' (default: the calling thread on a one-GPU machine, a pinned process each otherwise), 'main', 'thread' or 'process'. */
  readonly gpuHost?: GpuHost;
  /** Optimizer state to start from (a checkpoint's), for every parameter. */
  readonly optimizerState?: OptimizerRecord;
  /** Steps already taken (a checkpoint's): numbering continues from here. */
  readonly startStep?: number;
  /** Seed of the replicas' random streams (dropout). Default 1. */
  readonly seed?: number;
  /** A step that takes longer fails, naming the replicas still working (default: no limit). */
  readonly timeoutMs?: number;
  /** Replicas must report ready within this (default 180 s: GPU start-up on a software adapter is slow). */
  readonly startTimeoutMs?: number;
  /** Where notices go (devices dropped or kept by the balancer). Default: console.warn. */
  readonly onNotice?: (message: string) => void;
}

export interface StepOptions {
  /** The learning rate of this step (default: the optimizer's). */
  readonly lr?: number;
}

export interface StepResult {
  /** 1-based, continuing from `startStep`. */
  readonly step: number;
  /** Mean loss over the batch (each shard's mean weighted by its size). */
  readonly loss: number;
  /** Each metric summed over the shards. */
  readonly metrics: Readonly<Record<string, number>>;
  /** Samples per replica (0 for replicas that sat this step out). */
  readonly shards: readonly number[];
  /**
   * Device-side forward+backward ms per replica; 0 where the step was not timed: a solo step once
   * the balancer has settled (watching each op's completion costs host time; `wallMs` is the step).
   */
  readonly computeMs: readonly number[];
  readonly wallMs: number;
  readonly timeline: StepTimeline;
  /**
   * One replica took the whole batch and stepped its own optimizer, as it would without
   * DataParallel: no gradient left its device, nothing was joined, no weight was reloaded.
   */
  readonly solo: boolean;
  /** What the coordinator asked of each replica during the step: messages sent, parameters reloaded, gradient buckets handed over (0, 0, 0 for a replica that sat the step out). */
  readonly traffic: readonly ReplicaTraffic[];
}

/** One replica's part of a step's communication, counted by the coordinator. */
export interface ReplicaTraffic {
  /** Messages sent to it: the step itself, reductions, optimizer updates, a read-back of the weights it held. */
  readonly messages: number;
  /** Parameters it reloaded before computing (weights changed elsewhere). */
  readonly reloaded: number;
  /** Gradient buckets it handed over (read back from its device). */
  readonly buckets: number;
}

export interface ReplicaInfo {
  readonly index: number;
  readonly device: string;
  /** 'main' (the calling thread), 'thread' or 'process', and its thread id or pid. */
  readonly host: 'main' | 'thread' | 'process';
  readonly id: number;
  /** The backend (and adapter) the replica runs. */
  readonly describe: string;
  /** Took a shard in the last step (or, before the first step, may take one). Idle ones wait for the balancer. */
  readonly active: boolean;
  /** Its thread or process has ended. */
  readonly ended: boolean;
}

interface Replica {
  readonly index: number;
  readonly device: ReplicaDevice;
  readonly host: ReplicaHost;
  describe: string;
  /** Not told to close, not failed. */
  alive: boolean;
  /** Its thread or process has ended. */
  ended: boolean;
  /** Version of each parameter this replica holds. */
  readonly loaded: number[];
  /** Requests waiting for their answer, by the answer's type. */
  readonly waiting: Map<string, Array<{ resolve: (m: FromReplica) => void; reject: (e: unknown) => void }>>;
}

interface Run {
  readonly step: number;
  readonly lr: number | undefined;
  readonly shards: number[];
  readonly contributors: number[];
  readonly active: number[];
  readonly solo: boolean;
  readonly startAt: number;
  readonly delivered: number[];
  readonly reducing: number[];
  readonly applying: number[];
  reducedBuckets: number;
  appliedBuckets: number;
  readonly computed: Map<number, ComputedMessage>;
  readonly traffic: Array<{ messages: number; reloaded: number; buckets: number }>;
  readonly events: Map<number, Map<number, { send?: Interval; reduce?: Interval; apply?: Interval }>>;
  clipped: boolean;
  /** The replica whose buffers every replica loads next (StepMessage.publish), if the model has buffers. */
  readonly publisher: number | undefined;
  readonly resolve: (r: StepResult) => void;
  readonly reject: (e: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** The replica on the calling thread and its entry for direct solo steps (see stepDirect). */
interface DirectSolo {
  readonly rep: Replica;
  readonly direct: NonNullable<ReplicaHost['direct']>;
}

/** Where a step of `size` samples runs (see routeFor). */
interface Route {
  readonly size: number;
  readonly plan: Plan;
  readonly active: number[];
  readonly solo: boolean;
  readonly direct: DirectSolo | undefined;
}

function isModule(m: Module | ModuleRecord): m is Module {
  return 'toRecord' in m && typeof m.toRecord === 'function';
}

/** Bucket caps when every replica is a CPU replica. */
const CPU_BUCKET_BYTES = 1024 * 1024;
const CPU_FIRST_BUCKET_BYTES = 256 * 1024;

/** A direct solo step's reload list: nothing changed elsewhere. */
const NOTHING_TO_RELOAD: readonly number[] = Object.freeze([]);

/** The coordinator's pseudo-replica index in timelines (reductions it ran itself). */
const COORDINATOR = -1;

export class DataParallel {
  private readonly replicas: Replica[] = [];
  /** The replicas of the last step (every one before the first). */
  private active: number[];
  private readonly owners: number[];
  private readonly version: number[];
  /** A replica holding newer weights than the shared buffer (after solo steps), if any. */
  private staleHolder: number | undefined;
  /** Parameters (module indices) that do not train (buffers, frozen weights): no update touches them. */
  private untrained: ReadonlySet<number> = new Set();
  /** Of those, the buffers, which forward passes change: one replica publishes them each step. */
  private buffers: ReadonlySet<number> = new Set();
  private run: Run | undefined;
  /** Rejects the direct solo step in flight (see stepDirect). */
  private directStep: ((e: SwitchyardError) => void) | undefined;
  /** A direct solo step's measurement, not yet given to the balancer (see observeDeferred). */
  private unobserved: Observation | undefined;
  /** The next step's route, worked out during a direct solo step (see runStep). */
  private nextRoute: Route | undefined;
  /** Calls queued or running (enqueue). */
  private pending = 0;
  private failure: SwitchyardError | undefined;
  private closing = false;
  /** close() was called: calls made after it are refused at once (those queued before it run first). */
  private closeCalled = false;
  private stopped: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stepCount: number;
  private readonly balancer: Balancer;
  /** The flat buffers, in one shared memory (a WebAssembly.Memory where the join runs in wasm SIMD). */
  private readonly shared: SharedBuffers;
  private readonly views: SharedViews;
  /**
   * Flat mode (CPU replicas in worker threads, Adam/AdamW/SGD): each reducer steps the optimizer
   * on the range it has just reduced, over the shared weights and state; no owner, no apply.
   */
  private flat: { rule: FlatRule; steps: number[] } | undefined;
  private clipNorm: number | undefined;
  private readonly batchCopy = new SharedBatch();
  private readonly notice: (message: string) => void;

  private constructor(
    private readonly layout: Layout,
    private readonly devices: readonly ReplicaDevice[],
    private readonly strategy: Strategy,
    private readonly frozen: ModuleRecord,
    private readonly options: DataParallelOptions<unknown>,
  ) {
    const n = devices.length;
    const floats = Math.max(1, layout.total);
    const gpus = devices.flatMap((d, i) => (d.kind === 'wgpu' ? [i] : []));
    this.balancer = new Balancer(n, options.split ?? 'balanced', options.balance, gpus);
    // The flat update needs replicas that share memory (CPU replicas), at least two of them in
    // every step (the core). A core of one must run alone exactly as it would without the
    // others, solo (its own optimizer, nothing joined, nothing reloaded), so the optimizer stays
    // on it instead.
    const flatFits = n > 1 && devices.every((d) => d.kind !== 'wgpu') && this.balancer.core.length > 1;
    this.shared = allocateShared(n, floats, flatFits ? 2 : 0, layout.buckets.length);
    this.views = sharedViews(this.shared);
    this.active = devices.map((_, i) => i);
    // The optimizer runs on the replicas that always take shards (the balancer's core): no
    // optimizer state moves when candidates come and go.
    this.owners = assignOwners(layout.params.length, n, this.balancer.owners, strategy);
    this.version = layout.params.map(() => 0);
    this.stepCount = options.startStep ?? 0;
    this.notice = options.onNotice ?? ((m) => console.warn(m));
  }

  /** Starts one replica per device and loads the module into each; rejects (starting nothing) on a bad device. */
  static async create<O>(options: DataParallelOptions<O>): Promise<DataParallel> {
    if (!isNode() || typeof SharedArrayBuffer === 'undefined') {
      throw new ArgumentError('DataParallel needs Node.js (worker threads and SharedArrayBuffer)', { op: 'DataParallel' });
    }
    // Untyped callers: a missing options object, module or bad number is an ArgumentError naming it.
    if (typeof options !== 'object' || options === null) throw new ArgumentError(`create() needs an options object ({ task, module, devices }), got ${options === null ? 'null' : typeof options}`, { op: 'DataParallel' });
    checkNumbers(options);
    const devices = parseDevices(options.devices);
    const strategy = options.strategy ?? 'main';
    if (strategy !== 'main' && strategy !== 'sharded') throw new ArgumentError(`strategy must be 'main' or 'sharded', got ${String(strategy)}`, { op: 'DataParallel' });
    const gpuHost = options.gpuHost ?? 'auto';
    if (!['auto', 'main', 'thread', 'process'].includes(gpuHost)) throw new ArgumentError(`gpuHost must be 'auto', 'main', 'thread' or 'process', got ${String(gpuHost)}`, { op: 'DataParallel' });
    const taskUrl = await taskHref(options.task);
    // Devices are checked before anything starts: a GPU that does not exist is a DeviceError now.
    const placements = devices.some((d) => d.kind === 'wgpu') ? placeGpus(devices, gpuHost, await gpuInventory()) : devices.map(() => undefined);
    const given: unknown = options.module;
    const usable = typeof given === 'object' && given !== null && (('toRecord' in given && typeof given.toRecord === 'function') || ('params' in given && typeof given.params === 'object' && given.params !== null));
    if (!usable) {
      throw new ArgumentError(`module must be a Module or a module record ({ params }), got ${given === null ? 'null' : typeof given}`, { op: 'DataParallel', hint: 'pass the model itself, or `await model.toRecord()`' });
    }
    const record = isModule(options.module) ? await options.module.toRecord() : options.module;
    if (Object.keys(record.params).length === 0) throw new ArgumentError('the module has no parameters', { op: 'DataParallel' });
    const names = distinctParams(record);
    // CPU replicas join in shared memory, where a bucket costs a message, not a transfer: small
    // buckets let the join and update of the last layers run during the first layers' backward.
    const cpuOnly = devices.every((d) => d.kind !== 'wgpu');
    const buckets = cpuOnly ? { bucketBytes: options.bucketBytes ?? CPU_BUCKET_BYTES, firstBucketBytes: options.firstBucketBytes ?? CPU_FIRST_BUCKET_BYTES } : options;
    const layout = planLayout(names.map((name) => ({ name, id: record.params[name]!.id, shape: record.params[name]!.shape })), buckets);
    const dp = new DataParallel(layout, devices, strategy, record, options);
    for (const p of layout.params) dp.views.weights.set(record.params[p.name]!.data, p.offset);
    try {
      await dp.start(taskUrl, placements);
    } catch (e) {
      await dp.shutdown();
      throw e;
    }
    return dp;
  }

  private async start(taskUrl: string, placements: ReadonlyArray<Placement | undefined>): Promise<void> {
    const os = await importNodeModule<typeof import('node:os')>('node:os');
    const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
    const others = this.devices.filter((d) => d.kind !== 'cpu').length;
    const cpuThreads = this.options.cpuThreads ?? Math.max(1, cores - others - 1);
    if (!(Number.isInteger(cpuThreads) && cpuThreads >= 1)) throw new ArgumentError(`cpuThreads must be an integer >= 1, got ${String(cpuThreads)}`, { op: 'DataParallel' });
    const workers = this.devices.filter((d) => d.kind === 'cpu:worker').length;
    const fits = 2 * workers + (this.devices.length - workers) + 1 <= cores;
    const workerPoolThreads = this.options.workerPoolThreads ?? (fits ? 1 : 0);
    if (workerPoolThreads !== 0 && workerPoolThreads !== 1) throw new ArgumentError(`workerPoolThreads must be 0 or 1, got ${String(workerPoolThreads)}`, { op: 'DataParallel' });
    const hosts = await Promise.all(
      this.devices.map((d, i) => {
        const place = placements[i];
        if (place?.host === 'process') return startProcess({ ...withoutSelection(process.env), ...place.env });
        return place?.host === 'main' ? startMain() : startThread();
      }),
    );
    hosts.forEach((host, index) => {
      const r: Replica = { index, device: this.devices[index]!, host, describe: '', alive: true, ended: false, loaded: this.layout.params.map(() => 0), waiting: new Map() };
      this.replicas.push(r);
      host.onMessage((m) => this.receive(r, m));
      host.onExit((why) => this.exited(r, why));
    });
    const byOwner = this.splitState(this.options.optimizerState);
    const ready = await this.withTimeout(
      Promise.all(
        this.replicas.map((r) => {
          const shared = r.host.kind !== 'process';
          const record = copyRecord(this.frozen);
          const place = placements[r.index];
          const state = byOwner.get(r.index);
          const init: ToReplica = {
            type: 'init',
            index: r.index,
            device: r.device,
            ...(place ? { gpu: place.target } : {}),
            cpuThreads,
            workerPoolThreads,
            task: taskUrl,
            options: this.options.options,
            layout: this.layout,
            record,
            ...(shared ? { shared: this.shared } : {}),
            ...(state ? { optimizer: state } : {}),
            seed: (this.options.seed ?? 1) + r.index,
          };
          const answer = this.request(r, 'ready');
          r.host.post(init, r.host.kind === 'thread' ? transferList(Object.values(record.params).map((p) => p.data)) : []);
          return answer;
        }),
      ),
      this.options.startTimeoutMs ?? 180_000,
      () => `did not start within ${((this.options.startTimeoutMs ?? 180_000) / 1000).toFixed(0)} s`,
    );
    ready.forEach((m, i) => {
      this.replicas[i]!.describe = m.describe;
      if (m.clipNorm !== undefined) this.clipNorm = m.clipNorm;
    });
    this.untrained = new Set(ready[0]?.frozen ?? []);
    this.buffers = new Set(ready[0]?.buffers ?? []);
    // Flat mode when every replica shares memory and reports the same flat rule.
    const rule = ready[0]?.flat;
    if (rule && this.views.state.length > 0 && ready.every((m) => JSON.stringify(m.flat) === JSON.stringify(rule))) {
      this.flat = { rule, steps: loadFlatState(rule, this.layout, this.views.state, this.options.optimizerState) };
    }
  }

  /** The replicas: device, host, backend, and whether each still takes shards. */
  get replicaInfo(): ReplicaInfo[] {
    return this.replicas.map((r) => ({ index: r.index, device: r.device.key, host: r.host.kind, id: r.host.id, describe: r.describe, active: this.active.includes(r.index) && r.alive, ended: r.ended }));
  }

  /**
   * How the optimizer steps: 'ranges' (CPU replicas in threads, Adam/AdamW/SGD without clipping:
   * each replica updates the ranges it reduced, in shared memory) or 'owners' (each parameter on
   * its owner, as the strategy says).
   */
  get optimizerSteps(): 'ranges' | 'owners' {
    return this.flat ? 'ranges' : 'owners';
  }

  /** Steps taken so far (including `startStep`). */
  get steps(): number {
    return this.stepCount;
  }

  /** One training step on a global batch (named arrays sharing their first dim). */
  step(batch: Batch, options: StepOptions = {}): Promise<StepResult> {
    // Bad input rejects the returned promise (as every failure of a step does), never throws.
    let size: number;
    try {
      size = checkBatch(batch);
      if (typeof options !== 'object' || options === null) throw new ArgumentError(`step options must be an object ({ lr }), got ${options === null ? 'null' : typeof options}`, { op: 'DataParallel.step' });
      if (options.lr !== undefined && !(typeof options.lr === 'number' && Number.isFinite(options.lr) && options.lr >= 0)) throw new ArgumentError(`lr must be a number >= 0, got ${String(options.lr)}`, { op: 'DataParallel.step' });
    } catch (e) {
      return Promise.reject(e);
    }
    const lr = options.lr;
    return this.enqueue(() => this.runStep(batch, size, lr));
  }

  /** The current weights as a module record (names and ParamIds of the module given to create). */
  record(): Promise<ModuleRecord> {
    return this.enqueue(() => this.snapshot());
  }

  /** The optimizer state of every parameter, gathered from the replicas that own them. */
  optimizerState(): Promise<OptimizerRecord> {
    return this.enqueue(() => this.gatherState(this.layout.params.map((p) => p.index)));
  }

  /** Saves the current weights, optimizer state and `meta` into `dir` (see loadCheckpoint); returns the subfolder written. */
  checkpoint(dir: string, meta: Readonly<Record<string, unknown>> = {}): Promise<string> {
    // One queue entry: no step runs between reading the weights and the optimizer state.
    return this.enqueue(async () => {
      const model = await this.snapshot();
      const optimizer = await this.gatherState(this.layout.params.map((p) => p.index));
      return saveCheckpoint(dir, { model, optimizer, step: this.stepCount, meta });
    });
  }

  /** Ends every replica once the calls made before it have run (later calls reject); resolves when their threads and processes have ended. */
  async close(): Promise<void> {
    this.closeCalled = true;
    await this.queue.catch(() => undefined);
    await this.shutdown();
  }

  // ---- the step ------------------------------------------------------------------------------

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closeCalled) return Promise.reject(this.failure ?? closedError());
    const start = (): Promise<T> => {
      if (this.failure) throw this.failure;
      if (this.closing) throw closedError();
      return fn();
    };
    // With nothing queued the call starts now, not a microtask later: where the caller awaits
    // each step, a GPU idles through every hop before the step's first op.
    let next: Promise<T>;
    if (this.pending === 0) {
      try {
        next = start();
      } catch (e) {
        next = Promise.reject(e);
      }
    } else next = this.queue.then(start);
    this.pending++;
    const settled = (): void => {
      this.pending--;
    };
    this.queue = next.then(settled, settled);
    return next;
  }

  /** Not async: a direct solo step's promise goes back to the caller as it is (each hop is host time the GPU waits through). */
  private runStep(batch: Batch, size: number, lr: number | undefined): Promise<StepResult> {
    // A direct solo step worked out the next step's route while its GPU ran (see stepDirect).
    let route = this.nextRoute;
    this.nextRoute = undefined;
    if (route?.size !== size || (route.direct && !route.direct.rep.alive)) route = this.routeFor(size);
    const { plan, active, solo, direct } = route;
    this.active = active;
    if (direct) return this.stepDirect(direct, batch, size, plan.shards, lr);
    this.observeDeferred();
    return this.runMessaged(batch, plan, active, solo, lr);
  }

  /** Which replicas a step of `size` samples runs on, and whether it runs solo on the calling thread. */
  private routeFor(size: number): Route {
    const plan = this.balancer.plan(size);
    // Owners take part even with an empty shard: they step the optimizer.
    const owners = this.balancer.owners;
    const active: number[] = [];
    for (const r of this.replicas) if (plan.shards[r.index]! > 0 || owners.includes(r.index)) active.push(r.index);
    let solo = !this.flat && active.length === 1;
    for (let i = 0; solo && i < this.owners.length; i++) solo = this.owners[i] === active[0];
    const direct = solo && this.balancer.settled ? this.directSolo(active[0]!) : undefined;
    return { size, plan, active, solo, direct };
  }

  /** A step through messages: shards sent, gradients joined (or a solo step that reports device times). */
  private async runMessaged(batch: Batch, plan: Plan, active: number[], solo: boolean, lr: number | undefined): Promise<StepResult> {
    // Replicas that will reload parameters need the shared buffer to hold the newest weights.
    const reloads = new Map(active.map((r) => [r, this.layout.params.filter((p) => this.replicas[r]!.loaded[p.index]! < this.version[p.index]!).map((p) => p.index)]));
    // Reading the newest weights back from the replica that holds them (after solo steps) is part of this step's traffic.
    const holder = this.staleHolder;
    const published = [...reloads].some(([r, list]) => list.length > 0 && r !== holder) && holder !== undefined;
    if (published) await this.freshWeights();
    const step = ++this.stepCount;
    if (this.flat) this.flat.steps = this.flat.steps.map((t) => t + 1);
    const contributors = active.filter((r) => plan.shards[r]! > 0);
    // A settled balancer with one replica taking everything reads no device times (see StepMessage.timed).
    const timed = !(solo && this.balancer.settled);
    // Buffers (running statistics) come from one replica, the first that computes (DDP's rank 0):
    // every replica loads them at the next step, and the record holds them.
    const publisher = !solo && this.buffers.size > 0 ? contributors[0] : undefined;
    const run = await new Promise<StepResult>((resolve, reject) => {
      const nb = this.layout.buckets.length;
      const r: Run = {
        step,
        lr,
        shards: plan.shards,
        contributors,
        active,
        solo,
        startAt: absoluteNow(),
        delivered: new Array<number>(nb).fill(0),
        reducing: new Array<number>(nb).fill(0),
        applying: new Array<number>(nb).fill(0),
        reducedBuckets: 0,
        appliedBuckets: 0,
        computed: new Map(),
        traffic: this.replicas.map((rep) => ({ messages: published && rep.index === holder ? 1 : 0, reloaded: 0, buckets: 0 })),
        events: new Map(),
        clipped: false,
        publisher,
        resolve,
        reject,
      };
      this.run = r;
      // A replica may have failed while the weights were being made current.
      if (this.failure) {
        reject(this.failure);
        return;
      }
      if (this.options.timeoutMs !== undefined) {
        r.timer = setTimeout(() => {
          const late = active.filter((i) => !r.computed.has(i));
          const who = this.replicas[late[0] ?? active[0]!]!;
          this.fail(new ReplicaError(`did not finish step ${step} within ${this.options.timeoutMs} ms${late.length > 1 ? ` (nor did replicas ${late.slice(1).join(', ')})` : ''}`, who.index, who.device.key));
        }, this.options.timeoutMs);
      }
      const reductions = this.flat ? this.directReductions(r, this.flat) : undefined;
      let from = 0;
      // Replicas in worker threads read their rows of one shared copy of the batch.
      const staged = active.some((i) => this.replicas[i]!.host.kind === 'thread' && plan.shards[i]! > 0) ? this.batchCopy.stage(batch) : undefined;
      for (const i of active) {
        const n = plan.shards[i]!;
        const rep = this.replicas[i]!;
        // Views: of the caller's arrays on the calling thread, of the shared copy in a thread; a process gets copies.
        const inputs = rep.host.kind === 'process' ? sliceBatch(batch, from, from + n) : viewBatch(rep.host.kind === 'thread' && staged ? staged : batch, from, from + n);
        from += n;
        const reload = reloads.get(i) ?? [];
        const shared = rep.host.kind !== 'process';
        const weights = !shared && reload.length > 0 ? gatherParams(this.layout, this.views.weights, reload) : undefined;
        const mine = reductions?.get(i);
        const publish = i === publisher ? [...this.buffers] : undefined;
        this.send(r, rep, { type: 'step', step, size: n, inputs, ...(lr !== undefined ? { lr } : {}), solo, timed, reload, ...(weights ? { weights } : {}), ...(mine ? { reductions: mine } : {}), ...(publish ? { publish } : {}) });
        r.traffic[i]!.reloaded += reload.length;
        for (const p of reload) rep.loaded[p] = this.version[p]!;
      }
    }).finally(() => {
      if (this.run?.timer) clearTimeout(this.run.timer);
      this.run = undefined;
    });
    const decision = this.balancer.observe({ shards: run.shards, computeMs: run.computeMs, wallMs: run.wallMs });
    if (decision) this.tell(decision);
    return run;
  }

  /**
   * The replica on the calling thread, where a settled solo step can call it instead of messaging
   * it: it holds the newest weights (nothing to reload) and reads no device times.
   */
  private directSolo(index: number): DirectSolo | undefined {
    const rep = this.replicas[index]!;
    const direct = rep.host.direct;
    if (!direct || !rep.alive || !this.layout.params.every((p) => rep.loaded[p.index] === this.version[p.index])) return undefined;
    return { rep, direct };
  }

  /**
   * A settled solo step on the calling thread: the step runs as the message path's solo step does
   * (same replica code, same result), without the Run's bookkeeping, the two messages and the
   * hops between them: where a caller waits for each step, the GPU idles through all of that.
   */
  private stepDirect({ rep, direct }: DirectSolo, batch: Batch, size: number, shards: number[], lr: number | undefined): Promise<StepResult> {
    const step = ++this.stepCount;
    const startAt = absoluteNow();
    const ms = this.options.timeoutMs;
    // Not async, and one handler between the replica's result and the caller's: each promise hop
    // is host time that a caller awaiting every step adds to it.
    return new Promise<StepResult>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // fail() and stopAll() reject the step in flight (a timeout, a close()); it then counts as not stepped.
      const settle = (e: SwitchyardError): void => {
        clearTimeout(timer);
        this.directStep = undefined;
        reject(e);
      };
      this.directStep = settle;
      if (ms !== undefined) timer = setTimeout(() => this.fail(new ReplicaError(`did not finish step ${step} within ${ms} ms`, rep.index, rep.device.key)), ms);
      // Two literals, not a spread: each is one allocation of a fixed shape.
      const message: StepMessage =
        lr === undefined ? { type: 'step', step, size, inputs: batch, solo: true, timed: false, reload: NOTHING_TO_RELOAD } : { type: 'step', step, size, inputs: batch, lr, solo: true, timed: false, reload: NOTHING_TO_RELOAD };
      const computed = direct.stepNow(message);
      // The step's ops are recorded and on their way: the bookkeeping that needs no value of the
      // step runs while the GPU does (a failed step fails DataParallel, so the versions may move
      // now), and so does the balancer's look at the step before.
      this.soloStepped(rep.index);
      this.observeDeferred();
      // The next step's route, from the balancer as the next step would find it (nothing else
      // moves it between two steps: it observes this step only then), worked out while the GPU
      // runs rather than while it waits for the next step's first op.
      this.nextRoute = this.routeFor(size);
      computed.then(
        (c) => {
          if (this.directStep !== settle) return;
          clearTimeout(timer);
          this.directStep = undefined;
          resolve(this.directResult(rep, step, startAt, size, shards, c));
        },
        (e: unknown) => {
          if (this.directStep !== settle) return;
          const err = this.replicaFailure(rep, errorMessage(e, 'step'));
          settle(err);
          this.fail(err);
        },
      );
    });
  }

  /**
   * The result of a direct solo step (see stepDirect); the replica now holds the newest weights.
   * The caller waits for every instruction run here, after a GPU wait that left the host's caches
   * cold: the balancer sees the step once the next step's ops are recorded (observeDeferred).
   */
  private directResult(rep: Replica, step: number, startAt: number, size: number, shards: number[], c: ComputedMessage): StepResult {
    const endAt = absoluteNow();
    const n = this.replicas.length;
    const computeMs = new Array<number>(n).fill(0);
    computeMs[rep.index] = c.computeMs;
    // As the message path counts it: one step message, nothing reloaded or handed over.
    const traffic = new Array<ReplicaTraffic>(n);
    for (let r = 0; r < n; r++) traffic[r] = { messages: r === rep.index ? 1 : 0, reloaded: 0, buckets: 0 };
    let timeline: StepTimeline | undefined;
    const row = (): ReplicaTimeline => this.timelineRow(rep.index, size, c, []);
    const result: StepResult = {
      step,
      loss: c.loss,
      // The replica made this object for this step alone.
      metrics: c.metrics,
      shards,
      computeMs,
      wallMs: endAt - startAt,
      get timeline(): StepTimeline {
        return (timeline ??= { step, startAt, endAt, replicas: [row()] });
      },
      solo: true,
      traffic,
    };
    this.observeDeferred();
    this.unobserved = { shards, computeMs, wallMs: result.wallMs };
    return result;
  }

  /** Gives the balancer a direct solo step's measurement (solo steps only run while it has settled, so a decision one step late changes nothing but when the notice comes). */
  private observeDeferred(): void {
    const o = this.unobserved;
    if (!o) return;
    this.unobserved = undefined;
    const decision = this.balancer.observe(o);
    if (decision) this.tell(decision);
  }

  /** After a solo step: every parameter has a new version, held by that replica alone. */
  private soloStepped(holder: number): void {
    const loaded = this.replicas[holder]!.loaded;
    for (const p of this.layout.params) loaded[p.index] = ++this.version[p.index]!;
    this.staleHolder = holder;
  }

  /** A replica's row of a step's timeline, from its 'computed' message. */
  private timelineRow(index: number, shard: number, c: ComputedMessage, buckets: BucketEvents[]): ReplicaTimeline {
    return {
      index,
      device: this.replicas[index]!.device.key,
      shard,
      reloadAt: c.reloadAt,
      forwardAt: c.forwardAt,
      backwardAt: c.backwardAt,
      forwardEndAt: c.forwardEndAt,
      computeEndAt: c.computeEndAt,
      ...(c.optimizerEndAt !== undefined ? { optimizerEndAt: c.optimizerEndAt } : {}),
      buckets,
    };
  }

  /** Posts a step's message to a replica, counted in the step's traffic. */
  private send(run: Run, rep: Replica, message: ToReplica, transfer: ArrayBuffer[] = []): void {
    run.traffic[rep.index]!.messages++;
    rep.host.post(message, transfer);
  }

  private receive(rep: Replica, m: FromReplica): void {
    if (m.type === 'error') {
      const err = this.replicaFailure(rep, m);
      const waiting = rep.waiting.get('ready');
      if (waiting?.length) {
        for (const w of waiting.splice(0)) w.reject(err);
        return;
      }
      this.fail(err);
      return;
    }
    const waiting = rep.waiting.get(m.type);
    if (waiting && waiting.length > 0) {
      waiting.shift()!.resolve(m);
      return;
    }
    const run = this.run;
    if (!run) return;
    try {
      switch (m.type) {
        case 'bucket':
          return this.onBucket(run, rep, m);
        case 'reduced':
          return this.onReduced(run, rep.index, m.bucket, { startAt: m.startAt, endAt: m.endAt });
        case 'applied':
          return this.onApplied(run, rep, m);
        case 'computed':
          run.computed.set(rep.index, m);
          if (run.publisher === rep.index) this.buffersPublished(rep, m);
          return this.maybeFinish(run);
        default:
          return;
      }
    } catch (e) {
      this.fail(e instanceof SwitchyardError ? e : new ReplicaError(`sent a message the coordinator could not use: ${String(e)}`, rep.index, rep.device.key, { cause: e }));
    }
  }

  /** A replica's own error as a ReplicaError, rebuilt (name, message, its stack): `err.cause.name` says what it was. */
  private replicaFailure(rep: Replica, m: ErrorMessage): ReplicaError {
    const cause = Object.assign(new Error(m.message), { name: m.name, ...(m.stack ? { stack: m.stack } : {}) });
    return new ReplicaError(`failed during '${m.during}': ${m.name}: ${m.message}`, rep.index, rep.device.key, {
      cause,
      hint: 'every replica was stopped; fix the task or the batch, then start a new DataParallel (from the last checkpoint to go on: see the README, data-parallel training)',
    });
  }

  private bucketEvents(run: Run, replica: number, bucket: number): { send?: Interval; reduce?: Interval; apply?: Interval } {
    let byBucket = run.events.get(replica);
    if (!byBucket) run.events.set(replica, (byBucket = new Map()));
    let ev = byBucket.get(bucket);
    if (!ev) byBucket.set(bucket, (ev = {}));
    return ev;
  }

  private onBucket(run: Run, rep: Replica, m: Extract<FromReplica, { type: 'bucket' }>): void {
    const b = this.layout.buckets[m.bucket]!;
    if (m.data) this.views.grads[rep.index]!.set(m.data, b.offset);
    run.traffic[rep.index]!.buckets++;
    this.bucketEvents(run, rep.index, m.bucket).send = { startAt: m.readyAt, endAt: m.data ? absoluteNow() : m.sentAt };
    // Flat mode: the reductions start themselves from the shared counters (directReductions).
    if (++run.delivered[m.bucket]! === run.contributors.length && !this.flat) this.startReduce(run, m.bucket);
  }

  /** Each contributor's weight in the join: its share of the batch. */
  private joinInputs(run: Run): ReduceMessage['inputs'] {
    const total = run.shards.reduce((a, n) => a + n, 0);
    return run.contributors.map((r) => ({ replica: r, weight: run.shards[r]! / total }));
  }

  /** A bucket's range split among the replicas in worker threads (none: the coordinator reduces it). */
  private partsOf(run: Run, bucket: number): Array<{ reducer: number; from: number; to: number }> {
    const b = this.layout.buckets[bucket]!;
    const reducers = run.active.filter((r) => this.replicas[r]!.host.kind === 'thread' && this.replicas[r]!.alive);
    if (reducers.length === 0) return [];
    // Below ~16k floats per reducer the hand-off costs more than the sum.
    const parts = Math.max(1, Math.min(reducers.length, Math.floor(b.size / 16384)));
    return Array.from({ length: parts }, (_, k) => {
      const [from, to] = chunkOf(b.offset, b.offset + b.size, k, parts);
      return { reducer: reducers[k]!, from, to };
    });
  }

  /**
   * Flat mode: every bucket's reduction, planned at the start of the step, by reducer. Each
   * reducer starts its part when the bucket's shared counter says every contributor has written
   * it: no message from the coordinator between the last gradient and the sum.
   */
  private directReductions(run: Run, flat: { readonly rule: FlatRule; readonly steps: readonly number[] }): Map<number, StepReductions> {
    const inputs = this.joinInputs(run);
    const update = { lr: run.lr ?? flat.rule.lr, steps: flat.steps };
    const byReducer = new Map<number, Array<{ bucket: number; from: number; to: number }>>();
    for (const b of this.layout.buckets) {
      const parts = this.partsOf(run, b.index);
      run.reducing[b.index] = parts.length;
      for (const { reducer, from, to } of parts) {
        let list = byReducer.get(reducer);
        if (!list) byReducer.set(reducer, (list = []));
        list.push({ bucket: b.index, from, to });
      }
    }
    // No replica has this step's message yet: none writes a counter before this.
    for (let b = 0; b < this.views.delivered.length; b++) Atomics.store(this.views.delivered, b, 0);
    return new Map([...byReducer].map(([r, parts]) => [r, { expect: run.contributors.length, inputs, update, parts }]));
  }

  /** Owners mode: splits a delivered bucket's range among the replicas in worker threads (the coordinator reduces when there are none). */
  private startReduce(run: Run, bucket: number): void {
    const b = this.layout.buckets[bucket]!;
    const inputs = this.joinInputs(run);
    const parts = this.partsOf(run, bucket);
    if (parts.length === 0) {
      const startAt = absoluteNow();
      weightedSum(this.views.joined, inputs.map((x) => ({ data: this.views.grads[x.replica]!, weight: x.weight })), b.offset, b.offset + b.size, undefined, this.views.kernels);
      run.reducing[bucket] = 1;
      this.onReduced(run, COORDINATOR, bucket, { startAt, endAt: absoluteNow() });
      return;
    }
    run.reducing[bucket] = parts.length;
    for (const { reducer, from, to } of parts) this.send(run, this.replicas[reducer]!, { type: 'reduce', step: run.step, bucket, from, to, inputs });
  }

  private onReduced(run: Run, replica: number, bucket: number, when: Interval): void {
    this.bucketEvents(run, replica, bucket).reduce = when;
    if (--run.reducing[bucket]! > 0) return;
    run.reducedBuckets++;
    if (this.flat) {
      // The reducers have updated the bucket's weights in place: every replica reloads them
      // (buffers are not updated there: they come from the publisher).
      const params = this.layout.buckets[bucket]!.params.filter((p) => !this.untrained.has(p));
      for (const p of params) this.version[p]!++;
      // The replicas take these weights at once: a replica computing on a pool thread while its
      // backward runs, one computing on its own thread once its backward is done, and the last
      // bucket's while the coordinator ends this step and sends the next (0.8 ms of an H200
      // host's 30 ms step when the next step's message carried it).
      this.reloadNow(run, params);
      run.appliedBuckets++;
      this.maybeFinish(run);
      return;
    }
    if (this.clipNorm === undefined) {
      this.startApply(run, bucket, 1);
      return;
    }
    // Clipping needs the norm of the whole joined gradient: update once every bucket is in.
    if (run.reducedBuckets < this.layout.buckets.length) return;
    const norm = Math.sqrt(sumOfSquares(this.views.joined, 0, this.layout.total));
    const scale = Math.min(1, this.clipNorm / (norm + 1e-6));
    run.clipped = scale < 1;
    for (const b of this.layout.buckets) this.startApply(run, b.index, scale);
  }

  /** The publisher's buffers are in the shared weights (or its message): every other replica loads them next step. */
  private buffersPublished(rep: Replica, m: ComputedMessage): void {
    const list = [...this.buffers];
    if (m.buffers) scatterParams(this.layout, this.views.weights, list, m.buffers);
    for (const p of list) rep.loaded[p] = ++this.version[p]!;
  }

  /** Tells the active replicas in worker threads to load `params` from the shared weights now. */
  private reloadNow(run: Run, params: readonly number[]): void {
    for (const i of run.active) {
      const rep = this.replicas[i]!;
      if (rep.host.kind !== 'thread' || !rep.alive) continue;
      this.send(run, rep, { type: 'reload', params });
      run.traffic[i]!.reloaded += params.length;
      for (const p of params) rep.loaded[p] = this.version[p]!;
    }
  }

  private startApply(run: Run, bucket: number, scale: number): void {
    const b = this.layout.buckets[bucket]!;
    const byOwner = new Map<number, number[]>();
    for (const p of b.params) {
      if (this.untrained.has(p)) continue;
      const o = this.owners[p]!;
      let list = byOwner.get(o);
      if (!list) byOwner.set(o, (list = []));
      list.push(p);
    }
    run.applying[bucket] = byOwner.size;
    // A bucket of buffers alone has nothing to apply.
    if (byOwner.size === 0) {
      run.appliedBuckets++;
      this.maybeFinish(run);
      return;
    }
    for (const [o, params] of byOwner) {
      const rep = this.replicas[o]!;
      const joined = rep.host.kind === 'process' ? gatherParams(this.layout, this.views.joined, params) : undefined;
      this.send(run, rep, { type: 'apply', step: run.step, bucket, params, ...(run.lr !== undefined ? { lr: run.lr } : {}), scale, ...(joined ? { joined } : {}) });
    }
  }

  private onApplied(run: Run, rep: Replica, m: Extract<FromReplica, { type: 'applied' }>): void {
    const b = this.layout.buckets[m.bucket]!;
    const mine = b.params.filter((p) => this.owners[p] === rep.index && !this.untrained.has(p));
    if (m.data) scatterParams(this.layout, this.views.weights, mine, m.data);
    for (const p of mine) {
      this.version[p]!++;
      rep.loaded[p] = this.version[p]!;
    }
    this.bucketEvents(run, rep.index, m.bucket).apply = { startAt: m.startAt, endAt: m.data ? absoluteNow() : m.endAt };
    if (--run.applying[m.bucket]! === 0) run.appliedBuckets++;
    this.maybeFinish(run);
  }

  private maybeFinish(run: Run): void {
    if (run.computed.size < run.active.length) return;
    if (!run.solo && run.contributors.length > 0 && run.appliedBuckets < this.layout.buckets.length) return;
    if (run.solo) this.soloStepped(run.active[0]!);
    const endAt = absoluteNow();
    const total = run.shards.reduce((a, n) => a + n, 0);
    let loss = 0;
    const metrics: Record<string, number> = {};
    for (const [r, c] of run.computed) {
      loss += (run.shards[r]! / total) * c.loss;
      for (const [k, v] of Object.entries(c.metrics)) metrics[k] = (metrics[k] ?? 0) + v;
    }
    // Built when first read: most loops never look at it, and the step's result is on the critical path.
    const build = (): StepTimeline => ({
      step: run.step,
      startAt: run.startAt,
      endAt,
      replicas: [...run.computed.entries()]
        .sort(([a], [b]) => a - b)
        .map(([r, c]) => this.timelineRow(r, run.shards[r]!, c, bucketRows(run.events.get(r))))
        .concat(
          run.events.has(COORDINATOR)
            ? [{ index: COORDINATOR, device: 'coordinator', shard: 0, reloadAt: run.startAt, forwardAt: run.startAt, backwardAt: run.startAt, forwardEndAt: run.startAt, computeEndAt: run.startAt, buckets: bucketRows(run.events.get(COORDINATOR)) }]
            : [],
        ),
    });
    let timeline: StepTimeline | undefined;
    run.resolve({
      step: run.step,
      loss,
      metrics,
      shards: run.shards,
      computeMs: this.replicas.map((r) => run.computed.get(r.index)?.computeMs ?? 0),
      wallMs: endAt - run.startAt,
      get timeline(): StepTimeline {
        return (timeline ??= build());
      },
      solo: run.solo,
      traffic: run.traffic.map((t) => ({ ...t })),
    });
  }

  // ---- balancing -----------------------------------------------------------------------------

  /** Says what the balancer decided and what it measured (it only changes shard sizes: no thread starts or ends). */
  private tell(d: Decision): void {
    const names = (rs: readonly number[]): string => rs.map((r) => `${this.replicas[r]!.device.key} (replica ${r})`).join(', ');
    const ms = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : 'unknown');
    const core = this.balancer.core;
    // How the core ran while measured alone: exactly as it runs without the candidates.
    const how = core.length === 1 && !this.flat ? 'solo: its own optimizer step, no gradient read back or joined, no weight reloaded' : 'the core replicas joined among themselves';
    const { alone } = d;
    const runs = alone.runs.length > 1 ? `the faster of ${alone.runs.map(ms).join(' (before the mix) and ')} (after it), medians of ${alone.steps} steps each` : `median of ${alone.steps} steps`;
    const without = `${ms(d.withoutMs)} for ${names(core)} alone (${how}; the others sent nothing; ${runs})`;
    const mix = `median of ${alone.steps} steps`;
    const next = `; checked again in ${this.balancer.reevaluateIn} steps`;
    switch (d.kind) {
      case 'add':
        return this.notice(`DataParallel: adding ${names(d.replicas)}: predicted ${ms(d.predictedMs)} per step with them against ${without}; the mix is measured next`);
      case 'skip':
        return this.notice(`DataParallel: ${names(core)} runs alone: ${without}; with ${names(d.replicas)} predicted ${ms(d.predictedMs)} (not ${(100 * (this.options.balance?.margin ?? 0.05)).toFixed(0)}% faster)${next}`);
      case 'keep':
        return this.notice(`DataParallel: keeping ${names(d.replicas)}: ${ms(d.mixMs)} per step with them (${mix}) against ${without} (${(d.withoutMs / d.mixMs).toFixed(2)}x)${next}`);
      case 'drop':
        return this.notice(`DataParallel: dropping ${names(d.replicas)}: ${ms(d.mixMs)} per step with them (${mix}) against ${without}; ${names(core)} runs alone${next}`);
    }
  }

  // ---- weights and state ---------------------------------------------------------------------

  private async snapshot(): Promise<ModuleRecord> {
    await this.freshWeights();
    const byId = new Map(this.layout.params.map((p) => [p.id, p]));
    const params: Record<string, ParamRecord> = {};
    // Every name of the module given to create, a tied parameter under each of its names.
    for (const [name, { id }] of Object.entries(this.frozen.params)) {
      const p = byId.get(id)!;
      params[name] = { id, shape: [...p.shape], dtype: 'float32', data: ownedFloat32(this.views.weights.subarray(p.offset, p.offset + p.size)) };
    }
    return { params };
  }

  /** Makes the shared weights current (after solo steps the newest are in one replica only). */
  private async freshWeights(): Promise<void> {
    const holder = this.staleHolder;
    if (holder === undefined) return;
    const rep = this.replicas[holder]!;
    const all = this.layout.params.map((p) => p.index);
    const m = await this.ask(rep, { type: 'publish', params: all }, 'published');
    if (m.data) scatterParams(this.layout, this.views.weights, all, m.data);
    this.staleHolder = undefined;
  }

  private async askState(rep: Replica, params: readonly number[]): Promise<OptimizerRecord> {
    const m = await this.ask(rep, { type: 'get-state', params }, 'state');
    return m.record;
  }

  private async gatherState(params: readonly number[]): Promise<OptimizerRecord> {
    if (this.flat) return flatState(this.flat.rule, this.layout, this.views.state, this.flat.steps);
    const byOwner = new Map<number, number[]>();
    for (const p of params) {
      const o = this.owners[p]!;
      let list = byOwner.get(o);
      if (!list) byOwner.set(o, (list = []));
      list.push(p);
    }
    const parts = await Promise.all([...byOwner].map(([o, ps]) => this.askState(this.replicas[o]!, ps)));
    const kind = parts[0]?.kind ?? 'unknown';
    return { kind, params: Object.assign({}, ...parts.map((s) => s.params)) };
  }

  /** A checkpoint's optimizer state split by owner, for create. */
  private splitState(record: OptimizerRecord | undefined): Map<number, OptimizerRecord> {
    const parts = new Map<number, Record<string, OptimizerRecord['params'][string]>>();
    if (!record) return new Map();
    for (const p of this.layout.params) {
      const s = record.params[p.id];
      if (!s) continue;
      const o = this.owners[p.index]!;
      let mine = parts.get(o);
      if (!mine) parts.set(o, (mine = {}));
      mine[p.id] = s;
    }
    return new Map([...parts].map(([o, params]) => [o, { kind: record.kind, params }]));
  }

  // ---- requests, failures, shutdown -----------------------------------------------------------

  private request<T extends FromReplica['type']>(rep: Replica, type: T): Promise<Extract<FromReplica, { type: T }>> {
    return new Promise((resolve, reject) => {
      let list = rep.waiting.get(type);
      if (!list) rep.waiting.set(type, (list = []));
      list.push({
        resolve: (m) => (isMessage(m, type) ? resolve(m) : reject(new ReplicaError(`answered '${m.type}' where '${type}' was expected`, rep.index, rep.device.key))),
        reject,
      });
    });
  }

  private ask<T extends FromReplica['type']>(rep: Replica, message: ToReplica, answer: T): Promise<Extract<FromReplica, { type: T }>> {
    if (this.failure) return Promise.reject(this.failure);
    const p = this.request(rep, answer);
    rep.host.post(message);
    return p;
  }

  private async withTimeout<T>(p: Promise<T>, ms: number, what: () => string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const slow = this.replicas.find((r) => r.waiting.get('ready')?.length) ?? this.replicas[0]!;
        reject(new ReplicaError(what(), slow.index, slow.device.key));
      }, ms);
    });
    try {
      return await Promise.race([p, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private exited(rep: Replica, why: string): void {
    rep.ended = true;
    const expected = !rep.alive || this.closing;
    rep.alive = false;
    if (expected) return;
    this.fail(new ReplicaError(`ended: ${why}`, rep.index, rep.device.key, { hint: 'the step failed; the other replicas were stopped. Resume from the last checkpoint (see the README, data-parallel training)' }));
  }

  /** Fails the step in flight and every waiting request, and stops all replicas (no orphans). */
  private fail(e: SwitchyardError): void {
    if (this.failure || this.closing) return;
    this.failure = e;
    const run = this.run;
    if (run) {
      if (run.timer) clearTimeout(run.timer);
      run.reject(e);
    }
    this.directStep?.(e);
    for (const r of this.replicas) {
      for (const list of r.waiting.values()) for (const w of list.splice(0)) w.reject(e);
    }
    void this.shutdown();
  }

  private shutdown(): Promise<void> {
    return (this.stopped ??= this.stopAll());
  }

  private async stopAll(): Promise<void> {
    this.closing = true;
    // A step still in flight here (queued after a close() that was not awaited) fails instead of
    // waiting for replicas that are ending.
    const run = this.run;
    if (run) {
      if (run.timer) clearTimeout(run.timer);
      run.reject(this.failure ?? closedError());
    }
    this.directStep?.(this.failure ?? closedError());
    await Promise.all(
      this.replicas.map(async (r) => {
        if (r.alive) {
          r.alive = false;
          r.host.post({ type: 'close' });
          // The grace a replica gets to end by itself; cleared so it keeps no process alive.
          let grace: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([new Promise<void>((resolve) => r.host.onExit(() => resolve())), new Promise<void>((resolve) => (grace = setTimeout(resolve, 5_000)))]);
          clearTimeout(grace);
        }
        await r.host.kill();
      }),
    );
    for (const r of this.replicas) {
      for (const list of r.waiting.values()) for (const w of list.splice(0)) w.reject(this.failure ?? closedError());
    }
  }
}

// ---- helpers ---------------------------------------------------------------------------------

function closedError(): ArgumentError {
  return new ArgumentError('this DataParallel is closed', { op: 'DataParallel', hint: 'start a new one with DataParallel.create (from a checkpoint to go on)' });
}

/** The numeric options, checked before anything starts (untyped callers included). */
function checkNumbers(options: DataParallelOptions<unknown>): void {
  const check = (name: string, v: unknown, ok: (x: number) => boolean, what: string): void => {
    if (v !== undefined && !(typeof v === 'number' && ok(v))) throw new ArgumentError(`${name} must be ${what}, got ${String(v)}`, { op: 'DataParallel' });
  };
  check('timeoutMs', options.timeoutMs, (x) => x > 0 && x <= 2 ** 31 - 1, 'a number of milliseconds in (0, 2^31)');
  check('startTimeoutMs', options.startTimeoutMs, (x) => x > 0 && x <= 2 ** 31 - 1, 'a number of milliseconds in (0, 2^31)');
  check('seed', options.seed, Number.isSafeInteger, 'an integer');
  check('startStep', options.startStep, (x) => Number.isSafeInteger(x) && x >= 0, 'an integer >= 0');
}

function bucketRows(events: Map<number, { send?: Interval; reduce?: Interval; apply?: Interval }> | undefined): BucketEvents[] {
  if (!events) return [];
  return [...events.entries()].sort(([a], [b]) => a - b).map(([bucket, e]) => ({ bucket, ...e }));
}

/**
 * The record's parameter names, a tied parameter (several names, one ParamId) once under its first
 * name: it has one gradient, one slot and one update, and counts once in a global norm.
 */
function distinctParams(record: ModuleRecord): string[] {
  const first = new Map<ParamId, string>();
  for (const [name, p] of Object.entries(record.params)) {
    const seen = first.get(p.id);
    if (seen === undefined) first.set(p.id, name);
    else if (!sameShape(record.params[seen]!.shape, p.shape)) {
      throw new ArgumentError(`parameters '${seen}' and '${name}' share ParamId ${p.id} but have shapes [${record.params[seen]!.shape.join(', ')}] and [${p.shape.join(', ')}]`, { op: 'DataParallel', shapes: [record.params[seen]!.shape, p.shape], hint: 'a tied parameter is one Param used in several places; records come from module.toRecord()' });
    }
  }
  return [...first.values()];
}
