/**
 * A Runtime owns what was module-level state: ids, the scheduler (a lane per device), host blobs
 * on their way into records, the memory registry, grad mode and tidy scopes. Every backend belongs
 * to one runtime (the default one unless given); each worker thread has its own default runtime,
 * and their ids differ by prefix.
 */
import type { LaneInfo } from '../scheduler/lane.js';
import { Scheduler, SCHEDULER_KEYS, checkSchedulerOptions, type SchedulerOptions } from '../scheduler/scheduler.js';
import { BlobStore } from './blobs.js';
import { IdSource, threadPrefix } from './ids.js';
import { MemoryRegistry } from './memory.js';

export interface RuntimeOptions extends SchedulerOptions {
  /** The id prefix (default: this thread's id; 0 on the main thread). Runtimes that exchange records need distinct prefixes. */
  prefix?: number;
}

/** A tidy scope: the disposables created inside it. */
export interface Disposable {
  dispose(): void;
  readonly isDisposed: boolean;
}

export class Runtime {
  readonly ids: IdSource;
  readonly scheduler: Scheduler;
  readonly blobs = new BlobStore();
  readonly memory = new MemoryRegistry();
  /** Open tidy scopes, innermost last. */
  readonly scopes: Array<Set<Disposable>> = [];
  /** Open noGrad scopes. */
  noGradDepth = 0;
  /** Open autocast scopes (float16 matmuls of float32 operands, src/amp/autocast.ts). */
  autocastDepth = 0;

  constructor(options: RuntimeOptions = {}) {
    checkSchedulerOptions('Runtime', options, [...SCHEDULER_KEYS, 'prefix']);
    this.ids = new IdSource(options.prefix ?? threadPrefix());
    const { prefix: _, ...scheduling } = options;
    this.scheduler = new Scheduler(this.blobs, scheduling);
  }

  get prefix(): number {
    return this.ids.prefix;
  }

  /** One event per finished op of this runtime (what profilers and timelines read). */
  get events$(): Scheduler['events$'] {
    return this.scheduler.events$;
  }

  /** A device lane's queue depth and predicted free time. */
  lane(device: string): LaneInfo {
    return this.scheduler.lane(device);
  }

  get gradEnabled(): boolean {
    return this.noGradDepth === 0;
  }

  private static fallback: Runtime | undefined;

  /** This thread's default runtime (created on first use). */
  static get default(): Runtime {
    return (Runtime.fallback ??= new Runtime());
  }
}
