/**
 * The worker pool (Piscina, loaded lazily so that inline-only use and browsers never start
 * threads). Each task gets a slot in a shared flag array that its worker raises when done.
 */
import { importNodeModule, isNode } from '../../platform.js';
import type { PoolTask } from './worker.js';

/** Cores, without a static import of node:os (browsers load this module too). */
const cores: number = await (async () => {
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
  if (!isNode()) return nav?.hardwareConcurrency ?? 1;
  const os = await importNodeModule<typeof import('node:os')>('node:os');
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
})();

type PiscinaLike = { run(task: unknown): Promise<unknown>; destroy(): Promise<void>; readonly threads: readonly unknown[] };

const SLOTS = 4096;

export class CpuPool {
  readonly size: number;
  readonly flags: Int32Array;
  /** Per-op chunk counters for work stealing (indexed by the op's first flag slot). */
  readonly counters: Int32Array;
  /** Per-op count of finished chunks (same index): a blocked main thread waits on it. */
  readonly finished: Int32Array;
  private readonly freeSlots: number[] = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private piscina: Promise<PiscinaLike> | undefined;
  /** Set once started, so tasks are posted synchronously (a blocked main thread can then wait for them). */
  private ready: PiscinaLike | undefined;
  private closed = false;

  constructor(size?: number) {
    this.size = Math.max(0, size ?? cores);
    // Shared memory only when there are workers to share it with: without cross-origin
    // isolation a page has no SharedArrayBuffer, and the CPU backend runs inline there.
    const words = (): Int32Array => (this.size > 0 ? new Int32Array(new SharedArrayBuffer(SLOTS * 4)) : new Int32Array(SLOTS));
    this.flags = words();
    this.counters = words();
    this.finished = words();
  }

  private start(): Promise<PiscinaLike> {
    if (!this.piscina) {
      this.piscina = Promise.all([importNodeModule<typeof import('piscina')>('piscina'), importNodeModule<typeof import('node:url')>('node:url')]).then(([{ Piscina }, { fileURLToPath }]) => {
        const url = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
        // Running from TypeScript sources (tests, tsx): workers load the same sources through tsx.
        const execArgv = url.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [];
        this.ready = new Piscina({ filename: fileURLToPath(url), minThreads: this.size, maxThreads: this.size, idleTimeout: 60_000, execArgv }) as unknown as PiscinaLike;
        return this.ready;
      });
    }
    return this.piscina;
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

  run(task: Omit<PoolTask, 'flags' | 'counters' | 'finished'>): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the CPU worker pool was closed'));
    const full: PoolTask = { ...task, flags: this.flags, counters: this.counters, finished: this.finished };
    const p = this.ready ? this.ready.run(full) : this.start().then((pool) => pool.run(full));
    this.running.add(p);
    const settle = () => this.running.delete(p);
    p.then(settle, settle);
    return p;
  }

  async close(): Promise<void> {
    this.closed = true;
    // Tasks finished under backpressure may still have replies in flight: let Piscina see them.
    await Promise.allSettled([...this.running]);
    const p = this.piscina;
    this.piscina = undefined;
    if (p) await (await p).destroy();
  }
}
