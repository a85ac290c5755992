/**
 * Kernel autotuning: the first time a kernel family meets a shape bucket, the variants that
 * could run it are timed on the GPU (in the background, on scratch buffers, by timestamp
 * queries where the device has them) and the fastest is kept for every later call in that
 * bucket; until then the built-in heuristic choice runs. Winners live in memory (one table per
 * adapter in a thread, shared by its devices) and, in Node,
 * in a JSON file per adapter in the user's cache directory (in a browser, in IndexedDB), read
 * when the device starts.
 * Buckets are powers of two per dimension, so a training loop tunes once and odd sizes share
 * their neighbours' results.
 */
import { importNodeModule, isNode } from '../../platform.js';

/**
 * `false` turns tuning off (the heuristic choices run: fastest start); `file` overrides the
 * cache file in Node (null: memory only, in Node and in browsers).
 */
export type AutotuneOption = boolean | { readonly file?: string | null };

/** Total wall time one bucket may spend on trials, beyond which the measured variants decide. */
const BUCKET_BUDGET_MS = 500;

/** The power-of-two bucket of a size (at least 16). */
export function sizeBucket(n: number): number {
  let b = 16;
  while (b < n) b *= 2;
  return b;
}

/** A persisted table: bucket key -> winning variant key. */
export interface TuneStore {
  load(): Promise<Record<string, string>>;
  save(entries: Record<string, string>): Promise<void>;
}

/** The cache file of an adapter: $XDG_CACHE_HOME (or ~/.cache)/switchyard/autotune-<adapter>.json. */
export async function defaultCacheFile(adapter: string): Promise<string | undefined> {
  if (!isNode()) return undefined;
  const os = await importNodeModule<typeof import('node:os')>('node:os');
  const path = await importNodeModule<typeof import('node:path')>('node:path');
  const base = process.env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache');
  const name = adapter.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^-|-$/g, '').slice(0, 100) || 'adapter';
  return path.join(base, 'switchyard', `autotune-${name}.json`);
}

/** The string entries of a stored table (anything else in it is ignored). */
function stringEntries(parsed: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof parsed === 'object' && parsed !== null) {
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** A JSON file store; a missing or unreadable file is an empty table, a failed write is ignored (tuning is an optimisation). */
export function fileStore(file: string): TuneStore {
  return {
    async load() {
      try {
        const fs = await importNodeModule<typeof import('node:fs/promises')>('node:fs/promises');
        return stringEntries(JSON.parse(await fs.readFile(file, 'utf8')));
      } catch {
        return {};
      }
    },
    async save(entries) {
      try {
        const fs = await importNodeModule<typeof import('node:fs/promises')>('node:fs/promises');
        const path = await importNodeModule<typeof import('node:path')>('node:path');
        await fs.mkdir(path.dirname(file), { recursive: true });
        // Write then rename, so a reader never sees half a file.
        const tmp = `${file}.${process.pid}.tmp`;
        await fs.writeFile(tmp, JSON.stringify(entries, null, 1));
        await fs.rename(tmp, file);
      } catch {
        // A read-only home directory only costs a re-tune next time.
      }
    },
  };
}

/** The IndexedDB database and object store of the tables in a browser (one record per adapter). */
export const TUNE_DATABASE = 'switchyard';
export const TUNE_OBJECT_STORE = 'autotune';

function settle<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

function openTuneDatabase(factory: IDBFactory): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(TUNE_DATABASE, 1);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(TUNE_OBJECT_STORE)) request.result.createObjectStore(TUNE_OBJECT_STORE);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB open failed'));
    // Another tab holds an older version open: tune in memory rather than wait.
    request.onblocked = () => reject(new Error('IndexedDB open blocked'));
  });
}

/**
 * An IndexedDB store (browsers): the table of `adapter` is one record. As with the file store,
 * storage that fails (a private window, a quota) is an empty table and an ignored write.
 */
export function indexedDbStore(factory: IDBFactory, adapter: string): TuneStore {
  const withDb = async <T>(use: (db: IDBDatabase) => Promise<T>): Promise<T> => {
    const db = await openTuneDatabase(factory);
    try {
      return await use(db);
    } finally {
      db.close();
    }
  };
  return {
    async load() {
      try {
        return await withDb(async (db) => stringEntries(await settle(db.transaction(TUNE_OBJECT_STORE, 'readonly').objectStore(TUNE_OBJECT_STORE).get(adapter))));
      } catch {
        return {};
      }
    },
    async save(entries) {
      try {
        await withDb(
          (db) =>
            new Promise<void>((resolve, reject) => {
              const tx = db.transaction(TUNE_OBJECT_STORE, 'readwrite');
              tx.objectStore(TUNE_OBJECT_STORE).put({ ...entries }, adapter);
              tx.oncomplete = () => resolve();
              tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed'));
              tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted'));
            }),
        );
      } catch {
        // Only costs a re-tune next time.
      }
    },
  };
}

/** Where an adapter's table is kept by default: a cache file in Node, IndexedDB in a browser that has it. */
async function defaultStore(adapter: string): Promise<TuneStore | undefined> {
  if (isNode()) {
    const file = await defaultCacheFile(adapter);
    return file === undefined ? undefined : fileStore(file);
  }
  try {
    return typeof indexedDB === 'undefined' ? undefined : indexedDbStore(indexedDB, adapter);
  } catch {
    // Some sandboxed pages throw on the mere access to indexedDB: keep the table in memory.
    return undefined;
  }
}

/** How one variant is timed: milliseconds per run, or undefined where it cannot run here. */
export type Trial<T> = (variant: T) => Promise<number | undefined>;
/** Gets a variant ready to be timed (its kernel compiled); resolves when it is. */
export type Prepare<T> = (variant: T) => Promise<void>;

/**
 * One adapter's winners, shared by every device opened on it in this thread (two devices on one
 * GPU, such as a DataParallel replica on the calling thread beside the user's own backend): a
 * bucket is tuned once and both run the same kernel. Tuned apart, each device's trials could pick
 * a different winner among variants a few percent apart, by the noise of its own timings, and the
 * same work ran different kernels on the two.
 */
class TuneTable {
  readonly best = new Map<string, string>();
  /** Buckets being tuned now, by the job that settles them (on the device that started it). */
  readonly tuning = new Map<string, Promise<void>>();
  saving: Promise<void> = Promise.resolve();

  constructor(readonly store?: TuneStore) {}

  /** Stored entries join the table; winners already in memory stay (they are what runs here). */
  merge(entries: Record<string, string>): void {
    for (const [k, v] of Object.entries(entries)) if (!this.best.has(k)) this.best.set(k, v);
  }

  save(): void {
    const store = this.store;
    if (!store) return;
    const snapshot = Object.fromEntries(this.best);
    this.saving = this.saving.then(() => store.save(snapshot));
  }
}

/** The shared tables of this thread, by store (an adapter's default store, or a file given). */
const tables = new Map<string, TuneTable>();

export class Autotuner {
  /** Buckets this tuner asked for while they were untuned (its idle() waits for them, whoever tunes them). */
  private readonly asked = new Set<string>();
  /** Buckets this tuner has tuned itself (each once: a winner it cannot run is not tuned again). */
  private readonly started = new Set<string>();
  private jobs: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly table: TuneTable;

  /** A tuner with its own table (`open` gives one shared with the other devices on the adapter). */
  constructor(
    readonly enabled: boolean,
    store?: TuneStore,
    initial: Record<string, string> = {},
    table?: TuneTable,
  ) {
    this.table = table ?? new TuneTable(store);
    this.table.merge(initial);
  }

  /**
   * The tuner of a device on `adapter`: with the default store or a file, its table is shared by
   * every device opened on the same store in this thread, and the stored winners join it (those
   * another thread or process saved since included); with `file: null`, a table of its own.
   */
  static async open(option: AutotuneOption | undefined, adapter: string): Promise<Autotuner> {
    if (option === false) return new Autotuner(false);
    const requested = typeof option === 'object' ? option.file : undefined;
    if (requested === null) return new Autotuner(true);
    const key = requested !== undefined ? `file ${requested}` : `adapter ${adapter}`;
    let table = tables.get(key);
    if (!table) {
      const store = requested !== undefined ? fileStore(requested) : await defaultStore(adapter);
      // Another open may have made it while the store was found.
      table = tables.get(key) ?? new TuneTable(store);
      tables.set(key, table);
    }
    if (table.store) table.merge(await table.store.load());
    return new Autotuner(true, undefined, {}, table);
  }

  /** The tuned variant key of a bucket, if any. */
  lookup(bucket: string): string | undefined {
    return this.table.best.get(bucket);
  }

  /**
   * The variant to run now for `bucket`: the tuned one, else `fallback` (and, the first time,
   * tuning starts in the background, unless another device on this adapter is tuning it).
   * Variants are named by `key`.
   */
  choose<T>(bucket: string, variants: readonly T[], key: (v: T) => string, fallback: T, trial: Trial<T>, prepare?: Prepare<T>): T {
    const tuned = this.table.best.get(bucket);
    if (tuned !== undefined) {
      const v = variants.find((x) => key(x) === tuned);
      if (v !== undefined) return v;
    }
    if (this.enabled && variants.length > 1) {
      this.asked.add(bucket);
      // A device that closes mid-trial keeps nothing, and the bucket is free to tune again.
      if (!this.started.has(bucket) && !this.table.tuning.has(bucket)) {
        this.started.add(bucket);
        const job = this.jobs.then(() => this.tune(bucket, variants, key, fallback, trial, prepare));
        this.jobs = job;
        this.table.tuning.set(bucket, job);
      }
    }
    return fallback;
  }

  private async tune<T>(bucket: string, variants: readonly T[], key: (v: T) => string, fallback: T, trial: Trial<T>, prepare?: Prepare<T>): Promise<void> {
    try {
      await this.measure(bucket, variants, key, fallback, trial, prepare);
    } finally {
      this.table.tuning.delete(bucket);
    }
  }

  private async measure<T>(bucket: string, variants: readonly T[], key: (v: T) => string, fallback: T, trial: Trial<T>, prepare?: Prepare<T>): Promise<void> {
    let bestKey = key(fallback);
    let bestMs = Infinity;
    // The fallback first: if the budget runs out, the measured ones still decide fairly.
    const order = [fallback, ...variants.filter((v) => key(v) !== key(fallback))];
    // Every variant's kernel compiles first, side by side: the budget is for measuring (a compile
    // can take longer than the whole budget, and would leave most variants untried).
    if (prepare) await Promise.all(order.map((v) => prepare(v).catch(() => undefined)));
    // Two passes, the second in reverse order, each variant keeping its best time: a GPU that
    // idled before the trials runs the first ones at low clocks (an H200 measured 675 against
    // 1980 MHz, and a kernel at 0.4x its speed) and raises them while the trials run.
    const measured = new Map<string, number>();
    const t0 = performance.now();
    const timeOne = async (v: T): Promise<void> => {
      let ms: number | undefined;
      try {
        ms = await trial(v);
      } catch {
        ms = undefined;
      }
      if (ms === undefined || !Number.isFinite(ms)) return;
      const k = key(v);
      measured.set(k, Math.min(ms, measured.get(k) ?? Infinity));
    };
    const over = (): boolean => this.closed || performance.now() - t0 > BUCKET_BUDGET_MS;
    for (const v of order) {
      if (over()) break;
      await timeOne(v);
    }
    // Only what ran the first time is timed again (a variant that failed stays out).
    for (const v of [...order].reverse()) {
      if (over()) break;
      if (measured.has(key(v))) await timeOne(v);
    }
    for (const [k, ms] of measured) {
      if (ms < bestMs) {
        bestMs = ms;
        bestKey = k;
      }
    }
    if (this.closed) return;
    this.table.best.set(bucket, bestKey);
    this.table.save();
  }

  /**
   * Resolves when the tuning of every bucket this device asked for is done (its own jobs and those
   * another device on the adapter runs), and the table saved.
   */
  async idle(): Promise<void> {
    for (;;) {
      const waits = [this.jobs, ...[...this.asked].flatMap((b) => this.table.tuning.get(b) ?? [])];
      const jobs = this.jobs;
      await Promise.all(waits);
      if (jobs === this.jobs && [...this.asked].every((b) => !this.table.tuning.has(b))) break;
    }
    await this.table.saving;
  }

  /** The tuned table (bucket -> variant), shared with the other devices on this adapter. */
  entries(): Record<string, string> {
    return Object.fromEntries(this.table.best);
  }

  /** Stops starting trials (the device is going away). */
  close(): void {
    this.closed = true;
  }
}
