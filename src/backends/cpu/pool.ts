/**
 * The worker pool (Piscina, loaded lazily so that inline-only use and browsers never start
 * threads). Each task gets a slot in a shared flag array that its worker raises when done.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { PoolTask } from './worker.js';

type PiscinaLike = { run(task: unknown): Promise<unknown>; destroy(): Promise<void>; readonly threads: readonly unknown[] };

const SLOTS = 4096;

export class CpuPool {
  readonly size: number;
  readonly flags = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private readonly freeSlots: number[] = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private piscina: Promise<PiscinaLike> | undefined;
  private closed = false;

  constructor(size?: number) {
    this.size = Math.max(0, size ?? (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length));
  }

  private start(): Promise<PiscinaLike> {
    if (!this.piscina) {
      this.piscina = import('piscina').then(({ Piscina }) => {
        const url = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
        // Running from TypeScript sources (tests, tsx): workers load the same sources through tsx.
        const execArgv = url.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [];
        return new Piscina({ filename: fileURLToPath(url), minThreads: this.size, maxThreads: this.size, idleTimeout: 60_000, execArgv }) as unknown as PiscinaLike;
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

  run(task: Omit<PoolTask, 'flags'>): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the CPU worker pool was closed'));
    return this.start().then((p) => p.run({ ...task, flags: this.flags }));
  }

  /** 1 done, 2 failed, 0 still running (after waiting up to `timeoutMs`). */
  waitSlot(slot: number, timeoutMs: number): number {
    if (Atomics.load(this.flags, slot) === 0) Atomics.wait(this.flags, slot, 0, timeoutMs);
    return Atomics.load(this.flags, slot);
  }

  async close(): Promise<void> {
    this.closed = true;
    const p = this.piscina;
    this.piscina = undefined;
    if (p) await (await p).destroy();
  }
}
