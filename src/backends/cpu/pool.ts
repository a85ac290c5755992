/**
 * The worker pool (Piscina, imported only when a pool starts, so that inline-only use and browsers
 * never start threads). The backend starts it at creation, in the background, so the first op
 * that needs it finds its workers up. Each task gets a slot in a shared flag array that its worker
 * raises when done.
 */
import { importNodeModule, isNode } from '../../platform.js';
import type { PoolTask, WorkerSetup } from './worker.js';
import { workerFile } from './worker-file.js';

/** node:os in Node, without a static import (browsers load this module too). */
const os: typeof import('node:os') | undefined = isNode() ? await importNodeModule<typeof import('node:os')>('node:os') : undefined;

/** Cores. */
const cores: number = os
  ? typeof os.availableParallelism === 'function'
    ? os.availableParallelism()
    : os.cpus().length
  : ((globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1);

/**
 * Bytes the system can still give this process (Node: MemAvailable, which counts reclaimable
 * caches; in a container, no more than its memory limit leaves), or undefined where it cannot
 * be known (browsers).
 */
export function availableMemory(): number | undefined {
  if (!os) return undefined;
  const free = os.freemem();
  // A cgroup limit binds before the host's free memory does; without one this reads 2^64 or 0.
  const limit = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : undefined;
  if (limit === undefined || !(limit > 0) || limit >= os.totalmem()) return free;
  return Math.min(free, Math.max(0, limit - process.memoryUsage.rss()));
}

type PiscinaLike = { run(task: unknown): Promise<unknown>; destroy(): Promise<void>; readonly threads: readonly unknown[] };

const SLOTS = 4096;

export class CpuPool {
  readonly size: number;
  readonly flags: Int32Array;
  /** Per-op chunk counters for work stealing (indexed by the op's first flag slot). */
  readonly counters: Int32Array;
  /** Per-op count of finished chunks (same index): a blocked main thread waits on it. */
  readonly finished: Int32Array;
  /** Workers whose module has loaded (see close()). */
  private readonly loaded: Int32Array;
  private readonly freeSlots: number[] = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private piscina: Promise<PiscinaLike> | undefined;
  /** Set once started, so tasks are posted synchronously (a blocked main thread can then wait for them). */
  private ready: PiscinaLike | undefined;
  private closed = false;

  constructor(
    size?: number,
    private readonly setup: Omit<WorkerSetup, 'flags' | 'counters' | 'finished' | 'loaded'> = { kernels: 'js' },
  ) {
    this.size = Math.max(0, size ?? cores);
    // Shared memory only when there are workers to share it with: without cross-origin
    // isolation a page has no SharedArrayBuffer, and the CPU backend runs inline there.
    const words = (): Int32Array => (this.size > 0 ? new Int32Array(new SharedArrayBuffer(SLOTS * 4)) : new Int32Array(SLOTS));
    this.flags = words();
    this.counters = words();
    this.finished = words();
    this.loaded = this.size > 0 ? new Int32Array(new SharedArrayBuffer(4)) : new Int32Array(1);
  }

  private start(): Promise<PiscinaLike> {
    if (!this.piscina) {
      this.piscina = Promise.all([importNodeModule<typeof import('piscina')>('piscina'), workerFile()]).then(([{ Piscina }, filename]) => {
        const workerData: WorkerSetup = { ...this.setup, flags: this.flags, counters: this.counters, finished: this.finished, loaded: this.loaded };
        this.ready = new Piscina({ filename, minThreads: this.size, maxThreads: this.size, idleTimeout: 60_000, workerData }) as unknown as PiscinaLike;
        return this.ready;
      });
    }
    return this.piscina;
  }

  /** Resolves once the pool has started (its workers spawned and loading); the number of worker threads. */
  async started(): Promise<number> {
    return this.size === 0 ? 0 : (await this.start()).threads.length;
  }

  /** Starts the workers in the background under Node (a failure to start surfaces on the first task). */
  warm(): void {
    if (isNode() && this.size > 0 && !this.closed) this.start().catch(() => undefined);
  }

  /** Claims a flag slot (undefined when all are in use: the caller runs inline instead). */
  claimSlot(): number | undefined {
    const s = this.freeSlots.pop();
    if (s !== undefined) Atomics.store(this.flags, s, 0);
    return s;
  }

  releaseSlot(slot: number): void {
    this.freeSlots.push(slot);
  }

  /** Tasks handed to Piscina whose promise has not settled yet (so Piscina counts their workers busy). */
  get outstanding(): number {
    return this.running.size;
  }
  private readonly running = new Set<Promise<unknown>>();

  run(task: PoolTask): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the CPU worker pool was closed'));
    const p = this.ready ? this.ready.run(task) : this.start().then((pool) => pool.run(task));
    this.running.add(p);
    const settle = () => this.running.delete(p);
    p.then(settle, settle);
    return p;
  }

  /**
   * Blocks until the slot's task is done: 1 done, 2 failed, or 0 / 3 when it gave up. A task not
   * yet picked up by a worker may need this thread's event loop to be dispatched, so it waits
   * only `startMs` for the pickup, and `runMs` for a running task.
   */
  waitSlot(slot: number, startMs: number, runMs: number): number {
    if (Atomics.load(this.flags, slot) === 0) Atomics.wait(this.flags, slot, 0, startMs);
    if (Atomics.load(this.flags, slot) === 3) Atomics.wait(this.flags, slot, 3, runMs);
    return Atomics.load(this.flags, slot);
  }

  async close(): Promise<void> {
    this.closed = true;
    // Tasks finished under backpressure may still have replies in flight: let Piscina see them.
    await Promise.allSettled([...this.running]);
    const p = this.piscina;
    this.piscina = undefined;
    if (!p) return;
    const pool = await p;
    // A worker ended while it still loads its module aborts the whole process natively (Node's
    // require(esm) asserts): a pool closed right after it started waits for its workers to load,
    // 10 s at most (one that failed to load never counts).
    const until = performance.now() + 10_000;
    while (Atomics.load(this.loaded, 0) < pool.threads.length && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
    await pool.destroy();
  }
}
