/**
 * The scheduler: ops return at once; each op waits for its inputs' producers, then runs on
 * its device's executor. Executors that finish synchronously (small CPU ops, GPU encoding)
 * complete in the same turn; those that return promises (the worker pool) run concurrently.
 * A failed op fails everything downstream with the original error; unrelated ops go on.
 *
 * Backpressure: past `highWaterMark` pending ops, a submit runs ready work on the caller's
 * thread (caller-runs) and blocks on in-flight pool work where the executor can, so a loop
 * that enqueues without reading stays bounded.
 */
import { Subject, type Observable } from 'rxjs';
import { ArgumentError, DisposedError, KernelError, SwitchyardError } from '../errors.js';
import type { TypedArray } from '../ir/dtype.js';
import { checkInteger, checkKeys, checkOptions, field, show } from '../ir/validate.js';
import { bytesPerElement } from '../ir/dtype.js';
import { numel, type OpRecord, type TensorMeta } from '../ir/ops.js';
import type { BlobStore } from '../runtime/blobs.js';
import { Bridge } from './bridge.js';
import type { Channel } from './channel.js';
import { clock } from './clock.js';
import type { OpEvent } from './events.js';
import { isPending, type ExecOptions, type ExecResult, type Executor, type PendingResult } from './executor.js';
import { guarded } from './guarded.js';
import { Lane, type LaneInfo } from './lane.js';

type State = 'pending' | 'ready' | 'failed';

interface Slot {
  readonly meta: TensorMeta;
  readonly executor: Executor<unknown>;
  state: State;
  storage: unknown;
  error: unknown;
  /** Owners outside the scheduler: the Tensor object (1 at creation), plus retain() calls (autodiff tapes, routers). */
  refs: number;
  /** Pending ops and reads that still need this slot's storage. */
  uses: number;
  waiters: PendingOp[];
  readers: Array<() => void>;
}

interface PendingOp {
  readonly record: OpRecord;
  readonly executor: Executor<unknown>;
  readonly inputs: Slot[];
  readonly outputs: Slot[];
  readonly payload: TypedArray | undefined;
  readonly lane: Lane;
  /** The lane's depth when this op was submitted. */
  readonly depth: number;
  /** Events were observed at submit: the op's times are read. */
  readonly timed: boolean;
  readonly queuedAt: number;
  missing: number;
  startAt: number;
  /** Set while running asynchronously; cleared once settled (by the promise or by waitSync). */
  running?: PendingResult<unknown> | undefined;
  /** waitSync gave up on it once: do not block on it again. */
  unwaitable?: boolean;
}

function metaBytes(metas: readonly TensorMeta[]): number {
  let b = 0;
  for (const m of metas) b += numel(m.shape) * bytesPerElement(m.dtype);
  return b;
}

export interface SchedulerOptions {
  highWaterMark?: number;
  /** How transfers carry their bytes (default: in-process). */
  channel?: Channel;
}

/** The option keys of a Scheduler. */
export const SCHEDULER_KEYS: readonly string[] = ['highWaterMark', 'channel'];

/**
 * Scheduler options, also checked by Runtime (with its own keys): a highWaterMark of NaN, a
 * string or a fraction made backpressure never (or always) start, silently.
 */
export function checkSchedulerOptions(op: string, options: unknown, keys: readonly string[]): void {
  checkOptions(op, options);
  checkKeys(op, options, keys);
  const hwm = field(options, 'highWaterMark');
  if (hwm !== undefined) checkInteger(op, 'highWaterMark', hwm, 1);
  const channel = field(options, 'channel');
  if (channel !== undefined && typeof field(channel, 'send') !== 'function') throw new ArgumentError(`channel must be a Channel (an object with send(data)), got ${show(channel)}`, { op });
}

/** The four option sets an executor can get, made once (an object per op adds up). */
const EXEC_OPTIONS: readonly ExecOptions[] = [
  { sync: false, timing: false },
  { sync: false, timing: true },
  { sync: true, timing: false },
  { sync: true, timing: true },
];

function execOptions(sync: boolean, timing: boolean): ExecOptions {
  return EXEC_OPTIONS[(sync ? 2 : 0) + (timing ? 1 : 0)]!;
}

/** Blobs for records built by hand (tests): none. */
const noBlobs = { take: (id: number): TypedArray => { throw new KernelError(`no blob store for blob #${id}`, { op: 'fromData' }); }, recycle: (): void => undefined };

export class Scheduler {
  private readonly slots = new Map<number, Slot>();
  private readonly eventsSubject = new Subject<OpEvent>();
  private readonly readyQueue: PendingOp[] = [];
  private draining = false;
  /** True while relieving backpressure: everything that becomes ready runs on this thread. */
  private relieving = false;
  private pending = 0;
  /** Running asynchronously and able to block this thread until done (pool work): what backpressure waits on. */
  private readonly inflight = new Set<PendingOp>();
  private readonly lanes = new Map<string, Lane>();
  private readonly bridges = new WeakMap<Executor<unknown>, WeakMap<Executor<unknown>, Bridge>>();
  private readonly blobs: Pick<BlobStore, 'take' | 'recycle'>;
  private readonly channel: Channel | undefined;
  readonly highWaterMark: number;

  /** One event per finished (or failed) op. A subscriber that throws is unsubscribed and reported as a warning (guarded.ts). */
  readonly events$: Observable<OpEvent> = guarded(this.eventsSubject, 'events$');

  constructor(blobs?: Pick<BlobStore, 'take' | 'recycle'>, options: SchedulerOptions = {}) {
    checkSchedulerOptions('Scheduler', options, SCHEDULER_KEYS);
    this.blobs = blobs ?? noBlobs;
    this.highWaterMark = options.highWaterMark ?? 4096;
    this.channel = options.channel;
  }

  /** A device's lane: queue depth and predicted free time. */
  lane(device: string): LaneInfo {
    // Untyped callers: any other key would create a lane no op ever uses (and list it in laneInfos()).
    if (typeof device !== 'string' || device === '') throw new ArgumentError(`the device must be a device key such as 'cpu' or 'wgpu:discrete:0', got ${show(device)}`, { op: 'lane', hint: 'pass t.device.key' });
    return this.laneOf(device);
  }

  /** Every lane used so far. */
  laneInfos(): LaneInfo[] {
    return [...this.lanes.values()];
  }

  private laneOf(device: string): Lane {
    let l = this.lanes.get(device);
    if (!l) this.lanes.set(device, (l = new Lane(device)));
    return l;
  }

  /** The bridge that moves a storage of `from` to `to`. */
  private bridge(from: Executor<unknown>, to: Executor<unknown>): Bridge {
    let byTo = this.bridges.get(from);
    if (!byTo) this.bridges.set(from, (byTo = new WeakMap()));
    let b = byTo.get(to);
    if (!b) byTo.set(to, (b = new Bridge(from, to, this.channel)));
    return b;
  }

  /** Ops submitted and not yet finished. */
  get pendingOps(): number {
    return this.pending;
  }

  get liveSlots(): number {
    return this.slots.size;
  }

  /**
   * Queues a record on `executor` (the executor of `record.device`). A 'fromData' record's blob is
   * taken from the runtime's store; a 'transfer' runs on the bridge from its input's executor.
   */
  submit<S>(record: OpRecord, executor: Executor<S>): void {
    let exec = executor as Executor<unknown>;
    const metas = record.inputs;
    const inputs: Slot[] = new Array<Slot>(metas.length);
    for (let i = 0; i < metas.length; i++) {
      const s = this.slots.get(metas[i]!.id);
      if (!s) throw new DisposedError(`input tensor #${metas[i]!.id} was already freed`, { op: record.op, hint: 'do not use a tensor after dispose() or after its tidy() scope ended' });
      inputs[i] = s;
    }
    let payload: TypedArray | undefined;
    if (record.op === 'fromData') payload = this.blobs.take(record.attrs.blob);
    else if (record.op === 'transfer') exec = this.bridge(inputs[0]!.executor, exec);
    const outMetas = record.outputs;
    const outputs: Slot[] = new Array<Slot>(outMetas.length);
    for (let i = 0; i < outMetas.length; i++) {
      const meta = outMetas[i]!;
      const slot: Slot = { meta, executor: exec, state: 'pending', storage: undefined, error: undefined, refs: 1, uses: 0, waiters: [], readers: [] };
      this.slots.set(meta.id, slot);
      outputs[i] = slot;
    }
    // Times are read only while someone watches events (they cost a clock read each).
    const timed = this.eventsSubject.observed;
    const now = timed ? clock.now() : 0;
    const lane = this.laneOf(record.device);
    const depth = lane.enter(record.op, now);
    const op: PendingOp = { record, executor: exec, inputs, outputs, payload, lane, depth, timed, queuedAt: now, missing: 0, startAt: 0 };
    this.pending++;
    let failed: unknown;
    for (const s of inputs) {
      s.uses++;
      if (s.state === 'pending') {
        op.missing++;
        s.waiters.push(op);
      } else if (s.state === 'failed' && failed === undefined) failed = s.error;
    }
    if (failed !== undefined) {
      // Still wait for nothing: the op can never run.
      this.fail(op, failed, false);
      return;
    }
    if (op.missing === 0) this.readyQueue.push(op);
    this.drain();
    if (this.pending > this.highWaterMark) this.relieve();
  }

  /** Caller-runs backpressure: block on in-flight work until the backlog is below half the mark. */
  private relieve(): void {
    if (this.relieving) return;
    this.relieving = true;
    try {
      while (this.pending > this.highWaterMark / 2 && this.inflight.size > 0) {
        let progressed = false;
        for (const op of this.inflight) {
          const running = op.running;
          if (!running?.waitSync || op.unwaitable) {
            this.inflight.delete(op);
            continue;
          }
          let result: ExecResult<unknown> | undefined;
          try {
            result = running.waitSync();
          } catch (e) {
            this.settle(op);
            this.fail(op, e, true);
            progressed = true;
            break;
          }
          if (result === undefined) {
            op.unwaitable = true;
            continue;
          }
          this.settle(op);
          this.complete(op, result);
          progressed = true;
          break;
        }
        this.drain();
        if (!progressed) return;
      }
    } finally {
      this.relieving = false;
    }
  }

  private settle(op: PendingOp): void {
    op.running = undefined;
    this.inflight.delete(op);
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      let op: PendingOp | undefined;
      while ((op = this.readyQueue.shift()) !== undefined) this.start(op);
    } finally {
      this.draining = false;
    }
  }

  private start(op: PendingOp): void {
    if (op.timed) op.startAt = clock.now();
    let result: ExecResult<unknown> | PendingResult<unknown>;
    try {
      const n = op.inputs.length;
      const storages: unknown[] = new Array<unknown>(n);
      for (let i = 0; i < n; i++) storages[i] = op.inputs[i]!.storage;
      result = op.executor.execute(op.record, storages, op.payload, execOptions(this.relieving || this.pending > this.highWaterMark, this.eventsSubject.observed));
    } catch (e) {
      this.fail(op, e, true);
      return;
    }
    if (isPending(result)) {
      const running = result;
      op.running = running;
      if (running.waitSync) this.inflight.add(op);
      running.promise.then(
        (r) => {
          if (op.running !== running) return; // already settled by waitSync
          this.settle(op);
          this.complete(op, r);
          this.drain();
        },
        (e: unknown) => {
          if (op.running !== running) return;
          this.settle(op);
          this.fail(op, e, true);
          this.drain();
        },
      );
    } else {
      this.complete(op, result);
    }
  }

  private complete(op: PendingOp, result: ExecResult<unknown>): void {
    this.pending--;
    if (op.payload && op.executor.copiesPayload) this.blobs.recycle(op.payload, op.record.outputs[0]!.dtype);
    for (let i = 0; i < op.outputs.length; i++) {
      const slot = op.outputs[i]!;
      slot.state = 'ready';
      slot.storage = result.outputs[i];
    }
    const done = result.done;
    if (done) {
      // Ran ahead: the outputs are usable now; the lane and the event wait for the device.
      done.then(
        (submitAt) => this.finish(op, result.where, undefined, typeof submitAt === 'number' ? submitAt : undefined),
        (e: unknown) => this.finish(op, result.where, e),
      );
    } else this.finish(op, result.where);
    for (const s of op.inputs) this.unuse(s);
    for (const slot of op.outputs) {
      for (const w of slot.waiters) {
        if (w.missing > 0 && --w.missing === 0) this.readyQueue.push(w);
      }
      slot.waiters = [];
      const readers = slot.readers;
      slot.readers = [];
      for (const r of readers) r();
      this.maybeFree(slot);
    }
  }

  private fail(op: PendingOp, error: unknown, ran: boolean): void {
    const err = error instanceof SwitchyardError ? error : new KernelError(error instanceof Error ? error.message : String(error), { op: op.record.op, cause: error });
    this.pending--;
    this.finish(op, ran ? 'failed' : 'skipped', err);
    for (const s of op.inputs) {
      // Detach from inputs that are still pending, so their completion does not restart us.
      const idx = s.waiters.indexOf(op);
      if (idx >= 0) s.waiters.splice(idx, 1);
      this.unuse(s);
    }
    // Propagate iteratively: a long chain of dependents must not overflow the stack.
    const stack: Array<[Slot, unknown]> = op.outputs.map((s) => [s, err]);
    let item: [Slot, unknown] | undefined;
    while ((item = stack.pop()) !== undefined) {
      const [slot, e] = item;
      slot.state = 'failed';
      slot.error = e;
      const readers = slot.readers;
      slot.readers = [];
      for (const r of readers) r();
      const waiters = slot.waiters;
      slot.waiters = [];
      for (const w of waiters) {
        if (w.missing === -1) continue; // already failed through another input
        w.missing = -1;
        this.pending--;
        this.finish(w, 'skipped', e);
        for (const s of w.inputs) {
          const idx = s.waiters.indexOf(w);
          if (idx >= 0) s.waiters.splice(idx, 1);
          this.unuse(s);
        }
        for (const o of w.outputs) stack.push([o, e]);
      }
      this.maybeFree(slot);
    }
  }

  /** The op is done on its device (or failed): leaves its lane and emits its event. */
  private finish(op: PendingOp, where: string, error?: unknown, submitAt?: number): void {
    const now = op.timed || this.eventsSubject.observed ? clock.now() : 0;
    op.lane.leave(op.record.op, error === undefined && op.startAt > 0 ? now - op.startAt : undefined);
    if (!this.eventsSubject.observed) return;
    const ev: OpEvent = {
      record: op.record,
      opId: op.record.id,
      op: op.record.op,
      device: op.record.device,
      inputBytes: metaBytes(op.record.inputs),
      outputBytes: metaBytes(op.record.outputs),
      queueDepth: op.depth,
      queuedAt: op.queuedAt,
      startAt: op.startAt || now,
      ...(submitAt !== undefined ? { submitAt } : {}),
      endAt: now,
      where,
      ...(error !== undefined ? { error: error instanceof Error ? error.message : String(error) } : {}),
    };
    this.eventsSubject.next(ev);
  }

  private unuse(s: Slot): void {
    s.uses--;
    this.maybeFree(s);
  }

  private maybeFree(s: Slot): void {
    if (s.refs > 0 || s.uses > 0 || s.state === 'pending') return;
    this.slots.delete(s.meta.id);
    if (s.state === 'ready' && s.storage !== undefined) {
      const storage = s.storage;
      s.storage = undefined;
      s.executor.release(storage);
    }
  }

  /** Drops one owner's reference; the storage is freed once no owner and no pending op needs it. */
  release(id: number): void {
    const s = this.slots.get(id);
    if (!s || s.refs <= 0) return;
    s.refs--;
    this.maybeFree(s);
  }

  /** Adds an owner (balanced by one release), e.g. an autodiff tape keeping a forward value for backward. */
  retain(id: number): void {
    const s = this.slots.get(id);
    if (!s || s.refs <= 0) throw new DisposedError(`tensor #${id} was already freed`, { op: 'retain' });
    s.refs++;
  }

  has(id: number): boolean {
    const s = this.slots.get(id);
    return s !== undefined && s.refs > 0;
  }

  /** Waits for a tensor, then runs `fn` on its storage while keeping it alive. Rejects with the producer's error. */
  async use<T>(id: number, op: string, fn: (storage: unknown, executor: Executor<unknown>) => Promise<T> | T): Promise<T> {
    const s = this.slots.get(id);
    if (!s) throw new DisposedError(`tensor #${id} was already freed`, { op, hint: 'do not use a tensor after dispose() or after its tidy() scope ended' });
    s.uses++;
    try {
      if (s.state === 'pending') await new Promise<void>((resolve) => s.readers.push(resolve));
      if (s.state === 'failed') throw s.error;
      return await fn(s.storage, s.executor);
    } finally {
      this.unuse(s);
    }
  }

  /** The storage of a ready tensor, or undefined while it is pending (used by synchronous fast paths). */
  peek(id: number): unknown {
    const s = this.slots.get(id);
    return s && s.state === 'ready' ? s.storage : undefined;
  }

  /** Resolves when every op submitted so far has finished (successfully or not). */
  async flush(): Promise<void> {
    const ids = [...this.slots.values()].filter((s) => s.state === 'pending').map((s) => s.meta.id);
    await Promise.all(ids.map((id) => this.use(id, 'flush', () => undefined).catch(() => undefined)));
  }
}
