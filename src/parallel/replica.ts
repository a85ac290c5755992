/**
 * One replica: a model on its own device, in its own worker thread (or process), with its own
 * Runtime and backend. Per step it reloads the weights other replicas changed, runs forward and
 * backward on its shard, and hands its gradients over bucket by bucket, in the order backward
 * produces them, while the rest of backward still runs. It also reduces ranges of buckets (CPU
 * replicas sum in place in shared memory) and steps the optimizer for the parameters it owns.
 */
import { Autodiff } from '../autodiff/autodiff.js';
import { noGrad } from '../autodiff/grad-mode.js';
import type { Backend } from '../backends/backend.js';
import { Cpu } from '../backends/cpu/backend.js';
import { ArgumentError, DeviceError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import type { Module } from '../nn/module.js';
import { Buffer, type Param } from '../nn/param.js';
import { refuseLBFGS } from '../optim/lbfgs.js';
import type { Optimizer, OptimizerRecord } from '../optim/optimizer.js';
import { ParamGrads } from '../optim/param-grads.js';
import { Runtime } from '../runtime/runtime.js';
import { clock } from '../scheduler/clock.js';
import { fromData } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import type { Layout } from './layout.js';
import { absoluteNow, errorMessage, type ApplyMessage, type ComputedMessage, type FromReplica, type InitMessage, type ReduceMessage, type StepMessage, type StepReductions, type ToReplica } from './protocol.js';
import { weightedSum } from './reduce.js';
import { sharedViews, type SharedViews } from './flat.js';
import { flatRule, flatUpdate, type FlatRule } from './flat-optimizer.js';
import { Shard, type LossResult, type ParallelTask, type ReplicaBackend, type ReplicaContext } from './task.js';
import { importNodeModule } from '../platform.js';

/**
 * The task module. One written in TypeScript (the caller run with `npx tsx train.ts`) loads in a
 * replica's worker thread or child process only through tsx's loader, which the caller's does not
 * reach there: it is registered first (a failed import cannot be retried: Node keeps the failure).
 */
async function importTask(href: string): Promise<unknown> {
  const typescript = /\.[mc]?ts$/.test(new URL(href).pathname);
  if (typescript && !import.meta.url.endsWith('.ts') && (await inReplicaThreadOrProcess())) {
    let register: (() => unknown) | undefined;
    try {
      register = (await importNodeModule<{ register: () => unknown }>('tsx/esm/api')).register;
    } catch {
      register = undefined;
    }
    if (!register) {
      throw new ArgumentError(`the task ${href} is TypeScript, and tsx (the loader that runs it in a replica's thread) is not installed`, { op: 'DataParallel', hint: 'npm install --save-dev tsx, or compile the task to JavaScript' });
    }
    register();
  }
  return import(/* @vite-ignore */ href);
}

/** A worker thread or a forked child (not the caller's own thread, whose loader is the caller's). */
async function inReplicaThreadOrProcess(): Promise<boolean> {
  const { isMainThread } = await importNodeModule<typeof import('node:worker_threads')>('node:worker_threads');
  return !isMainThread || typeof process.send === 'function';
}

/** How a replica talks to its coordinator: a worker thread's port or a child process's IPC channel. */
export interface CoordinatorLink {
  /** Whether shared memory reaches the coordinator (worker threads). */
  readonly shared: boolean;
  post(message: FromReplica, transfer?: ArrayBuffer[]): void;
  /** Ends this thread or process. */
  exit(code: number): void;
}

type Closable = ReplicaBackend & { close(): Promise<void> };

/** Floats a reduction sums and updates between two turns of the event loop (about 0.1 ms). */
const REDUCE_SLICE = 32768;

function isTask(v: unknown): v is ParallelTask {
  if (v === null || typeof v !== 'object') return false;
  const t = v as Partial<Record<'model' | 'loss' | 'optimizer', unknown>>;
  return typeof t.model === 'function' && typeof t.loss === 'function' && typeof t.optimizer === 'function';
}

/** The shard's loss and metrics, from what the task's loss function returned. */
function lossParts(out: LossResult): { loss: Tensor<ReplicaBackend, 'float'>; metrics: ReadonlyArray<[string, Tensor<ReplicaBackend>]> } {
  const parts = out instanceof Tensor ? { loss: out, metrics: [] } : { loss: out.loss, metrics: Object.entries(out.metrics ?? {}) };
  if (!(parts.loss instanceof Tensor) || parts.loss.size !== 1) {
    throw new ArgumentError("the task's loss must return a scalar tensor (the shard's mean loss) or { loss, metrics }", { op: 'DataParallel' });
  }
  for (const [name, t] of parts.metrics) {
    if (!(t instanceof Tensor) || t.size !== 1) throw new ArgumentError(`metric '${name}' must be a scalar tensor`, { op: 'DataParallel', hint: 'reduce it with sum() in the loss function' });
  }
  return parts;
}

export class Replica {
  private index = -1;
  private task!: ParallelTask;
  private ctx!: ReplicaContext;
  private backend!: Closable;
  private model!: Module<ReplicaBackend>;
  /** The model's parameters in layout order (the layout's `index`). */
  private params: Array<Param<ReplicaBackend>> = [];
  private optimizer!: Optimizer<ReplicaBackend>;
  private layout!: Layout;
  private views: SharedViews | undefined;
  private flat: FlatRule | undefined;
  /** Parameters (module indices) that do not train: no update touches them (see StepMessage.publish). */
  private frozen: ReadonlySet<number> = new Set();
  private readonly scratch = new Float64Array(4096);
  /** Serialises the messages that change the model (steps, reloads, state). */
  private chain: Promise<void> = Promise.resolve();
  /** A message on the chain failed: nothing after it runs here but 'close'. */
  private failed = false;
  /** Resolves once the current step has reloaded the weights others changed. */
  private reloaded: Promise<void> = Promise.resolve();
  private reloadDone: () => void = () => undefined;
  /**
   * A GPU replica's wait for its autotuner, until the first step has waited for it: the kernel
   * trials that step's matmuls start would otherwise stall later steps, and the balancer's timings.
   */
  private untuned: (() => Promise<unknown>) | undefined;

  constructor(private readonly link: CoordinatorLink) {}

  /** Handles one message; failures go back to the coordinator as 'error' messages. */
  receive(message: ToReplica): void {
    const run = async (): Promise<void> => {
      switch (message.type) {
        case 'init':
          return this.init(message);
        case 'step':
          return this.step(message);
        case 'reduce':
          return this.reduce(message);
        case 'apply':
          return this.apply(message);
        case 'publish':
          return this.publish(message.params);
        case 'reload':
          return this.reload(message.params);
        case 'get-state':
          return this.getState(message.params);
        case 'set-state':
          return this.setState(message.record);
        case 'close':
          return this.close();
      }
    };
    // Reductions (shared memory only) and optimizer updates (the parameters of a bucket whose
    // gradients are joined) run while the step still waits on later buckets: that is the overlap.
    // An update waits for the step's reload; everything else runs in arrival order.
    let task: Promise<void>;
    if (message.type === 'reduce' || message.type === 'reload') task = run();
    else if (message.type === 'apply') task = this.reloaded.then(run);
    else if (message.type === 'close') {
      // After a failure too: the coordinator waits for this replica to end.
      task = this.chain = this.chain.then(run, run);
    } else {
      if (message.type === 'step') this.reloaded = new Promise((resolve) => (this.reloadDone = resolve));
      task = this.chain = this.chain.then(run);
      task.catch(() => (this.failed = true));
    }
    task.catch((e: unknown) => this.report(e, message.type));
  }

  /** A failure, back to the coordinator (which fails the step, naming this replica). */
  private report(e: unknown, during: string): void {
    this.link.post(errorMessage(e, during));
  }

  private async init(m: InitMessage): Promise<void> {
    this.index = m.index;
    this.layout = m.layout;
    const mod = (await importTask(m.task)) as { default?: unknown; task?: unknown };
    const task = mod.default ?? mod.task;
    if (!isTask(task)) {
      throw new ArgumentError(`${m.task} does not export a task (default export with model, loss and optimizer)`, { op: 'DataParallel', hint: 'export default defineTask({ model, loss, optimizer })' });
    }
    this.task = task;
    const { inner, describe, adapter, tuned } = await this.makeBackend(m);
    this.untuned = tuned;
    const backend = new Autodiff(inner);
    backend.seed(m.seed);
    this.backend = backend;
    const device = backend.defaultDevice();
    this.ctx = { backend, device, options: m.options, replica: { index: m.index, device: m.device.key } };
    this.model = task.model(this.ctx);
    // Strict: the record and the model have the same parameter names (and shapes).
    this.model.fromRecord(m.record);
    const byName = new Map(this.model.namedParams());
    this.params = m.layout.params.map((slot) => {
      const p = byName.get(slot.name);
      if (!p) throw new ArgumentError(`the task's model has no parameter '${slot.name}'`, { op: 'DataParallel', hint: 'the task must build the same architecture as the module given to DataParallel.create' });
      return p;
    });
    const made = task.optimizer(this.ctx);
    refuseLBFGS('DataParallel', made);
    this.optimizer = made;
    if (m.optimizer) this.optimizer.loadState(m.optimizer, this.model);
    if (m.shared) {
      this.views = sharedViews(m.shared);
      if (m.shared.state) this.flat = flatRule(this.optimizer);
    }
    const clipNorm = this.optimizer.options.clipNorm;
    const flat = this.flat;
    this.frozen = new Set(this.params.flatMap((p, i) => (p.trainable ? [] : [i])));
    const buffers = this.params.flatMap((p, i) => (p instanceof Buffer ? [i] : []));
    this.link.post({ type: 'ready', describe, ...(adapter ? { adapter } : {}), ...(clipNorm !== undefined ? { clipNorm } : {}), optimizerKind: this.optimizer.kind, ...(flat ? { flat } : {}), frozen: [...this.frozen], buffers });
  }

  private async makeBackend(m: InitMessage): Promise<{
    inner: Backend & { close(): Promise<void> };
    describe: string;
    adapter?: { vendor: string; device: string; description: string };
    tuned?: () => Promise<unknown>;
  }> {
    if (m.device.kind === 'cpu' || m.device.kind === 'cpu:worker') {
      // 'cpu:worker' computes its large ops on one pool thread: offloaded, they leave this thread
      // free to hand gradients over while backward runs (inline, backward would block it to the
      // end); where the cores are too few for two threads per replica, it computes inline.
      const threads = m.device.kind === 'cpu' ? m.cpuThreads : m.workerPoolThreads;
      if (threads === 0) return { inner: new Cpu({ threads: 0, runtime: Runtime.default }), describe: 'autodiff<cpu>, on its own thread' };
      const cpu = new Cpu({ threads, offload: true, runtime: Runtime.default });
      return { inner: cpu, describe: `autodiff<cpu>, ${threads} pool thread${threads === 1 ? '' : 's'}` };
    }
    const { Wgpu } = await import('../backends/wgpu/backend.js');
    const { WgpuDevice } = await import('../devices/wgpu.js');
    const device = m.gpu?.dawnName ? WgpuDevice.byName(m.gpu.dawnName) : WgpuDevice.Default;
    const gpu = await Wgpu.create({ device });
    const adapter = await gpu.adapterInfo();
    if (m.gpu && !sameGpu(m.gpu.name, adapter)) {
      await gpu.close();
      throw new DeviceError(`${m.device.key} should be ${m.gpu.name}, but Dawn opened '${adapter.device}' (${adapter.description})`, {
        op: 'DataParallel',
        devices: [m.device.key],
        hint: "the GPU could not be pinned; see the README's data-parallel section on choosing GPUs",
      });
    }
    return { inner: gpu, describe: `autodiff<wgpu> on ${adapter.device || adapter.description}`, adapter, tuned: () => gpu.autotuned() };
  }

  /**
   * Loads new weights into the model: a step's message lists what changed since this replica last
   * loaded (a process replica gets the values with it), a 'reload' message what the reducers have
   * just updated in shared memory. Ops already recorded keep the values they were given.
   */
  private reload(list: readonly number[], weights?: Float32Array): void {
    if (list.length === 0) return;
    let at = 0;
    noGrad(() => {
      for (const i of list) {
        const slot = this.layout.params[i]!;
        const p = this.params[i]!;
        let src: Float32Array;
        if (weights) {
          src = weights.subarray(at, at + slot.size);
          at += slot.size;
        } else if (this.views) src = this.views.weights.subarray(slot.offset, slot.offset + slot.size);
        else throw new ArgumentError('a reload without weights', { op: 'DataParallel' });
        p.set(fromData(this.backend, src, { shape: slot.shape, device: this.ctx.device }));
      }
    });
  }

  private async step(m: StepMessage): Promise<void> {
    this.link.post(await this.compute(m));
  }

  /**
   * A solo step called by a coordinator on the same thread, without the two messages: it calls
   * this only between its own requests, when nothing else is queued here, so the step starts now
   * (its ops are recorded before the call returns).
   */
  stepNow(m: StepMessage): Promise<ComputedMessage> {
    const p = this.compute(m);
    // As after a failed message: a failed step leaves the chain rejected, so nothing queued after
    // it runs here but 'close' (see close()). The coordinator handles p; this handler marks the
    // failure, and keeps the chain's rejection from counting as unhandled.
    const chained = p.then(() => undefined);
    chained.catch(() => (this.failed = true));
    this.chain = chained;
    return p;
  }

  /** Forward and backward of one shard, then (solo) the optimizer step or (joined) the gradients handed over. */
  private async compute(m: StepMessage): Promise<ComputedMessage> {
    const reloadAt = absoluteNow();
    try {
      this.reload(m.reload, m.weights);
    } finally {
      this.reloadDone();
    }
    if (m.reductions) this.reduceWhenDelivered(m.step, m.reductions);
    const forwardAt = absoluteNow();
    if (m.size === 0) return { type: 'computed', step: m.step, loss: 0, metrics: {}, reloadAt, forwardAt, backwardAt: forwardAt, forwardEndAt: forwardAt, computeEndAt: forwardAt, computeMs: 0 };
    // The device-side span of this step's forward and backward ops, from the scheduler's events.
    const runtime = this.backend.runtime;
    const windowStart = clock.now();
    let backwardFrom = Infinity;
    let windowEnd = Infinity;
    let first = Infinity;
    let last = -Infinity;
    let forwardLast = -Infinity;
    const sub = m.timed
      ? runtime.events$.subscribe((e) => {
          if (e.queuedAt < windowStart || e.queuedAt > windowEnd) return;
          if (e.startAt < first) first = e.startAt;
          if (e.endAt > last) last = e.endAt;
          if (e.queuedAt < backwardFrom && e.endAt > forwardLast) forwardLast = e.endAt;
        })
      : undefined;
    try {
      const shard = new Shard(this.backend, this.ctx.device, m.inputs, m.size);
      const { loss, metrics } = tidy(() => lossParts(this.task.loss(this.model, shard, this.ctx)));
      const backwardAt = absoluteNow();
      backwardFrom = clock.now();
      const grads = loss.backward();
      windowEnd = clock.now();
      shard.dispose();
      const pg = ParamGrads.from(grads, this.model);
      grads.dispose();
      const read = (): Promise<[number, number[]]> => {
        const p = Promise.all([loss.item(), Promise.all(metrics.map(([, t]) => t.item()))]);
        // Awaited below; marked handled now so that a failure of the wait before it (a lost
        // device) fails the step alone instead of also rejecting unobserved.
        p.catch(() => undefined);
        return p;
      };
      let values: Promise<[number, number[]]>;
      let optimizerEndAt: number | undefined;
      let buffers: Float32Array<ArrayBuffer> | undefined;
      if (m.solo) {
        this.optimizer.step(this.model, pg, m.lr ?? this.optimizer.lr);
        pg.dispose();
        // The step is done when its last op has run. A GPU queue runs in order, so a small read
        // after the update says so; the CPU runs small ops at once and large ones on its pool, so
        // a read of the smallest parameter resolved while backward's largest matmul still ran
        // (the rest spilled into the next step's start): there every op submitted is waited for.
        const done = this.ctx.device.backend === 'cpu' ? this.backend.runtime.scheduler.flush() : this.smallest()?.value.toData();
        // The loss and metrics are read once the update is recorded, in the order a loop
        // without DataParallel reads them (the bench's plain step, which solo is compared with).
        values = read();
        await done;
        optimizerEndAt = absoluteNow();
      } else {
        // The loss and metrics are read while the gradients are handed over (one wait, not three).
        values = read();
        // Buffers after the forward pass that updated them; awaited below, marked handled now (as read()).
        const published = m.publish ? this.writeWeights(m.publish) : undefined;
        published?.catch(() => undefined);
        await this.sendBuckets(m.step, pg);
        pg.dispose();
        buffers = await published;
      }
      const [lossValue, metricList] = await values;
      loss.dispose();
      const untuned = this.untuned;
      if (untuned) {
        this.untuned = undefined;
        await untuned();
      }
      const metricValues: Record<string, number> = {};
      metrics.forEach(([name, t], i) => {
        metricValues[name] = metricList[i]!;
        t.dispose();
      });
      const originShift = performance.timeOrigin;
      return {
        type: 'computed',
        step: m.step,
        loss: lossValue,
        metrics: metricValues,
        reloadAt,
        forwardAt,
        backwardAt,
        forwardEndAt: Number.isFinite(forwardLast) ? Math.max(forwardLast + originShift, backwardAt) : backwardAt,
        // Untimed: the host's view, the step done when the read after the update resolved.
        computeEndAt: Number.isFinite(last) ? last + originShift : (optimizerEndAt ?? absoluteNow()),
        computeMs: Number.isFinite(last) ? last - first : 0,
        ...(optimizerEndAt !== undefined ? { optimizerEndAt } : {}),
        ...(buffers ? { buffers } : {}),
      };
    } finally {
      sub?.unsubscribe();
    }
  }

  /** The parameter with the fewest values (a cheap read to wait on). */
  private smallest(): Param<ReplicaBackend> | undefined {
    let best: Param<ReplicaBackend> | undefined;
    for (const p of this.params) if (!best || p.value.size < best.value.size) best = p;
    return best;
  }

  /**
   * A gradient's values into `target` from `at`: straight out of the replica's memory where its
   * executor can (CPU), else through a read. Resolves to when the gradient was there to copy (the
   * hand-over starts then).
   */
  private async copyOut(g: Tensor<ReplicaBackend>, target: Float32Array, at: number): Promise<number> {
    let readyAt = 0;
    const copied =
      g.dtype === 'float32' &&
      (await this.backend.runtime.scheduler.use(g.id, 'toData', (storage, ex) => {
        readyAt = absoluteNow();
        return ex.readInto?.(storage, target, at) ?? false;
      }));
    if (copied) return readyAt;
    const { values } = await g.toData();
    readyAt = absoluteNow();
    target.set(values, at);
    return readyAt;
  }

  /** Hands gradients over bucket by bucket, each as soon as backward has produced all of it. */
  private async sendBuckets(step: number, pg: ParamGrads<ReplicaBackend>): Promise<void> {
    const views = this.views;
    const own = views?.grads[this.index];
    if (views && own) {
      // Every copy is issued now, into this replica's flat gradient in shared memory; each runs
      // when the op that makes that gradient finishes, and each bucket goes as soon as its
      // copies are done (the coordinator takes buckets in any order).
      await Promise.all(
        this.layout.buckets.map(async (b) => {
          const ready = await Promise.all(
            b.params.map((i) => {
              const slot = this.layout.params[i]!;
              const g = pg.get(this.params[i]!.id);
              const into = own.subarray(slot.offset, slot.offset + slot.size);
              if (!g) {
                into.fill(0); // not reached by backward: zero
                return undefined;
              }
              if (g.size !== slot.size) throw new ArgumentError(`the gradient of '${slot.name}' has ${g.size} values, its parameter ${slot.size}`, { op: 'DataParallel', shapes: [g.shape, slot.shape] });
              return this.copyOut(g, into, 0);
            }),
          );
          const sentAt = absoluteNow();
          // Flat mode's reducers start from these counters (the coordinator resets them each
          // step); seq-cst, so the copies above are visible to a reducer that reads the new count.
          if (this.flat) {
            Atomics.add(views.delivered, b.index, 1);
            Atomics.notify(views.delivered, b.index);
          }
          // The hand-over runs from when the bucket's last gradient was there to be copied.
          const times = ready.filter((t): t is number => t !== undefined);
          this.link.post({ type: 'bucket', step, bucket: b.index, readyAt: times.length > 0 ? Math.min(sentAt, Math.max(...times)) : sentAt, sentAt });
        }),
      );
      return;
    }
    // Every read is issued now; each resolves when the op that makes that gradient finishes.
    const reads = this.layout.buckets.map((b) =>
      Promise.all(b.params.map((i) => pg.get(this.params[i]!.id)?.toData())),
    );
    for (const b of this.layout.buckets) {
      const values = await reads[b.index]!;
      const readyAt = absoluteNow();
      const data = new Float32Array(b.size);
      b.params.forEach((i, k) => {
        const slot = this.layout.params[i]!;
        const v = values[k];
        if (v) data.set(v.values, slot.offset - b.offset);
      });
      this.link.post({ type: 'bucket', step, bucket: b.index, readyAt, sentAt: absoluteNow(), data }, [data.buffer]);
    }
  }

  /** Runs each of this replica's reductions once every contributor has written that bucket. */
  private reduceWhenDelivered(step: number, plan: StepReductions): void {
    if (!this.views) throw new ArgumentError('only replicas in worker threads reduce', { op: 'DataParallel' });
    const delivered = this.views.delivered;
    for (const part of plan.parts) {
      const run = async (): Promise<void> => {
        for (let seen = Atomics.load(delivered, part.bucket); seen < plan.expect; seen = Atomics.load(delivered, part.bucket)) {
          await Atomics.waitAsync(delivered, part.bucket, seen).value;
        }
        await this.reduce({ type: 'reduce', step, bucket: part.bucket, from: part.from, to: part.to, inputs: plan.inputs, update: plan.update });
      };
      run().catch((e: unknown) => this.report(e, 'reduce'));
    }
  }

  private async reduce(m: ReduceMessage): Promise<void> {
    const views = this.views;
    if (!views) throw new ArgumentError('only replicas in worker threads reduce', { op: 'DataParallel' });
    const flat = this.flat;
    if (m.update && !flat) throw new ArgumentError('a flat update on a replica without a flat optimizer rule', { op: 'DataParallel' });
    const inputs = m.inputs.map((x) => ({ data: views.grads[x.replica]!, weight: x.weight }));
    const startAt = absoluteNow();
    // In slices, letting this thread's event loop run between them: the replica's own compute
    // (ops it hands its pool thread, the ones it runs here) must not wait for a whole reduction.
    // On the H200's host, 4 replicas' pool threads idled 1.7 ms a step this way against 2.0 ms.
    for (let a = m.from; a < m.to; a += REDUCE_SLICE) {
      const b = Math.min(m.to, a + REDUCE_SLICE);
      if (a > m.from) await new Promise((resume) => setImmediate(resume));
      weightedSum(views.joined, inputs, a, b, this.scratch, views.kernels);
      if (m.update && flat) flatUpdate(flat, this.layout, { weights: views.weights, grads: views.joined, state: views.state }, a, b, m.update.steps, m.update.lr, views.kernels, this.frozen);
    }
    this.link.post({ type: 'reduced', step: m.step, bucket: m.bucket, startAt, endAt: absoluteNow() });
  }

  /** Steps the optimizer for the parameters of a bucket this replica owns, then publishes their new values. */
  private async apply(m: ApplyMessage): Promise<void> {
    const startAt = absoluteNow();
    const pg = new ParamGrads<ReplicaBackend>();
    let at = 0;
    noGrad(() => {
      for (const i of m.params) {
        const slot = this.layout.params[i]!;
        let src: Float32Array;
        if (m.joined) {
          src = m.joined.subarray(at, at + slot.size);
          at += slot.size;
        } else src = this.views!.joined.subarray(slot.offset, slot.offset + slot.size);
        const g = fromData(this.backend, src, { shape: slot.shape, device: this.ctx.device });
        pg.set(this.params[i]!.id, m.scale === 1 ? g : tidy(() => g.mul(m.scale)));
        if (m.scale !== 1) g.dispose();
      }
    });
    this.optimizer.step(this.model, pg, m.lr ?? this.optimizer.lr, { clip: false });
    pg.dispose();
    const data = await this.writeWeights(m.params);
    this.link.post({ type: 'applied', step: m.step, bucket: m.bucket, startAt, endAt: absoluteNow(), ...(data ? { data } : {}) }, data ? [data.buffer] : []);
  }

  /** Writes the current values of `params` to the shared weights, or returns them concatenated (process replicas). */
  private async writeWeights(params: readonly number[]): Promise<Float32Array<ArrayBuffer> | undefined> {
    const values = await Promise.all(params.map((i) => this.params[i]!.value.toData()));
    if (this.views) {
      params.forEach((i, k) => this.views!.weights.set(values[k]!.values, this.layout.params[i]!.offset));
      return undefined;
    }
    const data = new Float32Array(params.reduce((a, i) => a + this.layout.params[i]!.size, 0));
    let at = 0;
    params.forEach((i, k) => {
      data.set(values[k]!.values, at);
      at += this.layout.params[i]!.size;
    });
    return data;
  }

  private async publish(params: readonly number[]): Promise<void> {
    const data = await this.writeWeights(params);
    this.link.post({ type: 'published', ...(data ? { data } : {}) }, data ? [data.buffer] : []);
  }

  private async getState(params: readonly number[]): Promise<void> {
    const all = await this.optimizer.state();
    const ids = new Set(params.map((i) => this.params[i]!.id as string));
    const record: OptimizerRecord = { kind: all.kind, params: Object.fromEntries(Object.entries(all.params).filter(([id]) => ids.has(id))) };
    this.link.post({ type: 'state', record });
  }

  /** Adds the states in `record` to this replica's optimizer (keeping the others). */
  private async setState(record: OptimizerRecord): Promise<void> {
    const mine = await this.optimizer.state();
    this.optimizer.loadState({ kind: record.kind, params: { ...mine.params, ...record.params } }, this.model);
    this.link.post({ type: 'state-set' });
  }

  private async close(): Promise<void> {
    try {
      this.model?.dispose();
      this.optimizer?.clear();
      // After a failed step, what it left queued is waited for first (a failure of its own
      // changes nothing here: the step has failed already).
      if (this.failed && this.ctx) await this.backend.runtime.scheduler.flush().catch(() => undefined);
      await this.backend?.close();
    } finally {
      this.link.exit(0);
    }
  }
}

/**
 * Whether Dawn's adapter is the GPU the machine listed under `name`. Dawn's `device` is the
 * Vulkan device name in a slug ('llvmpipe-llvm-15-0-6-256-bits-' for 'llvmpipe (LLVM 15.0.6, 256
 * bits)'): compared by letters and digits. Where an adapter reports no device name, its vendor
 * must at least begin the listed name.
 */
export function sameGpu(name: string, adapter: { vendor?: string; device: string; description: string }): boolean {
  const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const want = norm(name);
  if (want === '') return true;
  const device = norm(adapter.device);
  if (device !== '') return device.includes(want) || want.includes(device);
  const vendor = norm(adapter.vendor ?? '') || norm(adapter.description.split(/[\s:]/)[0] ?? '');
  return vendor !== '' && want.startsWith(vendor);
}
