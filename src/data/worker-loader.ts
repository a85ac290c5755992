/**
 * A DataLoader whose dataset lives on a worker thread (Node's worker_threads): the worker
 * imports a module, calls its exported factory to build the dataset, and collates batches there
 * (with the module's `collate` export, else defaultCollate), `prefetch` batches ahead of the
 * training loop. Batches cross as structured clones with their host tensors' buffers transferred.
 */
import { ArgumentError, KernelError } from '../errors.js';
import { checkInteger, field, show } from '../ir/validate.js';
import type { BatchSource } from './loader.js';
import { batchCount, checkPlan, planBatches, type PlanOptions } from './plan.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

export interface WorkerDataLoaderOptions extends PlanOptions {
  /** The dataset module (a URL or an absolute path), e.g. new URL('./digits.js', import.meta.url). */
  module: string | URL;
  /** The factory it exports, called with `args` (default 'dataset'). */
  export?: string;
  /** Passed to the factory (structured-cloneable). */
  args?: unknown;
  /** Batches requested ahead of the one in use: an integer >= 0 (default 2). */
  prefetch?: number;
}

interface WorkerLike {
  postMessage(m: ToWorker, transfer?: ArrayBuffer[]): void;
  on(event: 'message', f: (m: FromWorker) => void): void;
  on(event: 'error', f: (e: Error) => void): void;
  on(event: 'exit', f: (code: number) => void): void;
  readonly threadId: number;
  ref(): void;
  unref(): void;
  terminate(): Promise<number>;
}

export class WorkerDataLoader<Batch> implements BatchSource<Batch> {
  epoch = 0;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (b: Batch) => void; reject: (e: Error) => void }>();
  /** Why every request fails from now on: the worker died, or close() stopped it. */
  private failure: Error | undefined;

  private constructor(
    private readonly worker: WorkerLike,
    /** Samples in the worker's dataset. */
    readonly datasetLength: number,
    readonly options: WorkerDataLoaderOptions,
  ) {
    worker.on('message', (m) => {
      if (m.type === 'ready') return;
      const w = m.id === undefined ? undefined : this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id!);
      if (this.waiting.size === 0) worker.unref();
      if (m.type === 'batch') w.resolve(m.batch as Batch);
      else w.reject(new ArgumentError(`the dataset failed on the worker: ${m.message}`, { op: 'WorkerDataLoader' }));
    });
    // Read now: a thread that has exited reports -1.
    const thread = worker.threadId;
    worker.on('error', (e) => {
      this.fail(new KernelError(`the data worker (thread ${thread}) crashed: ${e.message}`, { op: 'WorkerDataLoader', cause: e, hint: 'see the cause; create a new WorkerDataLoader to go on' }));
    });
    // process.exit in the dataset, or a crash: without this, pending requests would wait forever.
    worker.on('exit', (code) => {
      this.fail(new KernelError(`DataLoader worker (thread ${thread}) exited unexpectedly with exit code ${code}`, { op: 'WorkerDataLoader', hint: 'the dataset module ended its thread (process.exit, an uncaught error, out of memory); create a new WorkerDataLoader to go on' }));
    });
  }

  /** Rejects every pending request and every later one with `e` (the first failure wins). */
  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
  }

  /** Starts the worker and waits for its dataset. */
  static async create<Batch>(options: WorkerDataLoaderOptions): Promise<WorkerDataLoader<Batch>> {
    checkPlan('WorkerDataLoader', options, ['module', 'export', 'args', 'prefetch']);
    const exportName = field(options, 'export');
    if (exportName !== undefined && typeof exportName !== 'string') throw new ArgumentError(`export must be the factory's name, got ${show(exportName)}`, { op: 'WorkerDataLoader' });
    const prefetch = field(options, 'prefetch');
    if (prefetch !== undefined) checkInteger('WorkerDataLoader', 'prefetch', prefetch, 0);
    // Checked here: a worker started for a module that cannot be named would fail later and less clearly.
    const module = field(options, 'module');
    if (!(module instanceof URL) && (typeof module !== 'string' || module === ''))
      throw new ArgumentError(`options.module must be the dataset module's URL or absolute path, got ${show(module)}`, { op: 'WorkerDataLoader', hint: "e.g. new URL('./dataset.js', import.meta.url); see the README's data loading section" });
    const [{ Worker }, { fileURLToPath, pathToFileURL }] = await Promise.all([import('node:worker_threads'), import('node:url')]);
    const fromSources = import.meta.url.endsWith('.ts');
    const url = new URL(fromSources ? './worker.ts' : './worker.js', import.meta.url);
    // From sources, the entry is a one-line script that imports the TypeScript worker after registering tsx's hooks.
    const worker: WorkerLike = fromSources
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true })
      : new Worker(fileURLToPath(url));
    const spec = options.module instanceof URL ? options.module.href : options.module.startsWith('file:') ? options.module : pathToFileURL(options.module).href;
    const thread = worker.threadId;
    const length = await new Promise<number>((resolve, reject) => {
      worker.on('message', (m) => {
        if (m.type === 'ready') resolve(m.length);
        else if (m.type === 'error' && m.id === undefined) reject(new ArgumentError(`the dataset module could not start: ${m.message}`, { op: 'WorkerDataLoader', hint: 'the module must export a function returning { length, get(i) }' }));
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new KernelError(`DataLoader worker (thread ${thread}) exited unexpectedly with exit code ${code} while building the dataset`, { op: 'WorkerDataLoader', hint: 'the dataset factory ended its thread (process.exit, an uncaught error)' })));
      try {
        worker.postMessage({ type: 'init', module: spec, exportName: options.export ?? 'dataset', args: options.args });
      } catch (e) {
        // A DataCloneError: a function or class instance in args.
        reject(new ArgumentError(`args must be structured-cloneable (plain data): ${e instanceof Error ? e.message : String(e)}`, { op: 'WorkerDataLoader', hint: 'pass plain data and build the rest in the factory' }));
      }
    }).catch(async (e: unknown) => {
      await worker.terminate();
      throw e;
    });
    worker.unref();
    return new WorkerDataLoader<Batch>(worker, length, options);
  }

  get length(): number {
    return batchCount(this.datasetLength, this.options);
  }

  private request(indices: Int32Array): Promise<Batch> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const copy = Int32Array.from(indices);
    const p = new Promise<Batch>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ type: 'batch', id, indices: copy }, [copy.buffer]);
    });
    // A prefetched request may fail (close(), a dead worker) before the loop awaits it: not an unhandled rejection.
    p.catch(() => undefined);
    return p;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Batch> {
    const plan = planBatches(this.datasetLength, this.epoch++, this.options);
    const ahead = this.options.prefetch ?? 2;
    const inFlight: Array<Promise<Batch>> = [];
    let sent = 0;
    const fill = () => {
      while (sent < plan.length && inFlight.length <= ahead) inFlight.push(this.request(plan[sent++]!));
    };
    // Unconsumed requests must not reject unobserved when the loop stops early.
    const settleRest = () => inFlight.forEach((p) => p.catch(() => undefined));
    try {
      fill();
      while (inFlight.length > 0) {
        const batch = await inFlight.shift()!;
        fill();
        yield batch;
      }
    } finally {
      settleRest();
    }
  }

  /** Stops the worker: requests pending or made later reject (a loop over the loader ends with that error). */
  async close(): Promise<void> {
    // Set before terminating, so that the exit that follows does not read as a crash.
    this.fail(new ArgumentError('the loader is closed', { op: 'WorkerDataLoader', hint: 'create a new WorkerDataLoader to load more batches' }));
    await this.worker.terminate();
  }
}
