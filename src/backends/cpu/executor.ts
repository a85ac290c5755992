/**
 * Runs op records on the CPU: views without copies, small kernels inline on the calling
 * thread, large ones split into ranges across the worker pool over shared memory.
 */
import { ArgumentError, KernelError } from '../../errors.js';
import { allocTyped, bytesPerElement, type TypedArray } from '../../ir/dtype.js';
import { indexError } from '../../ir/index-caller.js';
import { numel, type OpRecord } from '../../ir/ops.js';
import type { MemoryInfo } from '../../memory/info.js';
import type { ExecOptions, ExecResult, Executor, PendingResult } from '../../scheduler/executor.js';
import type { Allocator } from './allocator.js';
import { kernelsFor, type KernelLookup } from './kernels/index.js';
import { forEachOffset } from './kernels/strided.js';
import { availableMemory, type CpuPool } from './pool.js';
import { toWire, type CpuStorage } from './storage.js';
import { isContiguous, makeView, recordView, type View } from './view.js';

export interface CpuExecutorOptions {
  /** Ops whose estimated cost (scalar operations) is below this run inline. */
  inlineThreshold: number;
  /** The kernel table (default: the JS kernels). */
  kernels?: KernelLookup;
  /** Hand ops to a single free worker too (default: at least two, else this thread runs the op). */
  offload?: boolean;
}

const CHUNKS_PER_TASK = 4;
/** The longest a blocked main thread waits for chunks that workers are running (they never stall: no event loop needed). */
const RUN_MS = 30_000;
/** How often a blocked main thread looks for a dead worker. */
const WAIT_SLICE_MS = 2;

/**
 * Out-of-range indices fail gather / indexSelect / scatterAdd with the kernels' ArgumentError
 * before any work starts, inline or on the pool alike (a worker's error loses its class on the
 * way back).
 */
function checkIndices(record: OpRecord, inputs: readonly CpuStorage[]): void {
  if (record.op !== 'gather' && record.op !== 'indexSelect' && record.op !== 'scatterAdd') return;
  const { dim } = record.attrs;
  const size = record.inputs[0]!.shape[dim]!;
  const idx = inputs[1]!.view;
  let bad: number | undefined;
  forEachOffset(idx, (p) => {
    const i = idx.data[p]!;
    if (bad === undefined && (i < 0 || i >= size)) bad = i;
  });
  if (bad !== undefined) throw indexError(record.op, record.attrs.caller, bad, dim, size);
}

/** A view's values, row-major, into `target` from `at` (a block copy where the view is contiguous). */
function copyView(v: View, target: TypedArray, at: number): void {
  const n = numel(v.shape);
  const data = v.data;
  if (isContiguous(v)) target.set(data.subarray(v.offset, v.offset + n), at);
  else forEachOffset(v, (p, i) => (target[at + i] = data[p]!));
}

/** Allocations from this size on are checked against the memory the system has available. */
const LARGE_ALLOCATION = 256 * 1024 * 1024;

export class CpuExecutor implements Executor<CpuStorage> {
  readonly host = true;
  /** A fromData payload is copied into storage as the op runs. */
  readonly copiesPayload = true;
  private liveStorages = 0;
  /** Test hook: the next pool task's worker exits mid-task. */
  crashNextPoolTask = false;
  private readonly kernelFor: KernelLookup;

  constructor(
    private readonly allocator: Allocator,
    private readonly pool: CpuPool,
    readonly options: CpuExecutorOptions,
    readonly deviceKey: string = 'cpu',
  ) {
    this.kernelFor = options.kernels ?? kernelsFor('js');
  }

  private fresh(meta: OpRecord['outputs'][number]): CpuStorage {
    const n = numel(meta.shape);
    const bytes = n * bytesPerElement(meta.dtype);
    const refuse = (why: string, cause?: unknown): KernelError =>
      new KernelError(`could not allocate ${bytes} bytes for a ${meta.dtype} tensor of shape [${meta.shape.join(', ')}] (${this.memory().bytes} bytes already live on ${this.deviceKey}${why})`, {
        op: 'alloc',
        ...(cause !== undefined ? { cause } : {}),
        hint: 'the process is out of memory: free tensors (dispose, tidy) or split the work into smaller tensors',
      });
    // Address space is cheap and memory is not: a buffer larger than what the system can still
    // give would be granted, then filled until the operating system's out-of-memory killer ends
    // the process.
    if (bytes >= LARGE_ALLOCATION) {
      const available = availableMemory();
      if (available !== undefined && bytes > available) throw refuse(`; the system has ${available} bytes available`);
    }
    let data: TypedArray;
    try {
      data = this.allocator.alloc(meta.dtype, n);
    } catch (e) {
      // V8 throws a bare RangeError ('Array buffer allocation failed') when memory runs out.
      throw refuse('', e);
    }
    this.liveStorages++;
    return { buffer: { data, refs: 1 }, view: makeView(data, meta.shape), dtype: meta.dtype };
  }

  private viewOf(src: CpuStorage, view: View): CpuStorage {
    src.buffer.refs++;
    this.liveStorages++;
    return { buffer: src.buffer, view, dtype: src.dtype };
  }

  execute(record: OpRecord, inputs: readonly CpuStorage[], payload: TypedArray | undefined, options: ExecOptions): ExecResult<CpuStorage> | PendingResult<CpuStorage> {
    const x = inputs[0];
    switch (record.op) {
      case 'fromData': {
        const out = this.fresh(record.outputs[0]!);
        if (payload) out.buffer.data.set(payload);
        return { outputs: [out], where: 'inline' };
      }
      case 'permute':
      case 'slice':
      case 'expand':
      case 'reshape': {
        const v = recordView(record, x!.view);
        if (v) return { outputs: [this.viewOf(x!, v)], where: 'view' };
        // A reshape of a non-contiguous view: copy into the new shape (walking the input's own layout).
        const out = this.fresh(record.outputs[0]!);
        forEachOffset(x!.view, (p, i) => (out.buffer.data[i] = x!.view.data[p]!));
        return { outputs: [out], where: 'inline' };
      }
      case 'transfer':
        throw new KernelError('a transfer runs on a bridge, not on the CPU executor', { op: 'transfer', hint: 'submit transfers through the runtime scheduler' });
    }
    const kernel = this.kernelFor(record.op);
    if (!kernel) throw new KernelError(`no CPU kernel for op '${record.op}'`, { op: record.op });
    checkIndices(record, inputs);
    const outputs = record.outputs.map((m) => this.fresh(m));
    const inViews = inputs.map((s) => s.view);
    const outViews = outputs.map((s) => s.view);
    const units = kernel.units(record);
    // Never queue behind busy workers: Piscina dispatches queued tasks only from this thread's
    // event loop, which a long synchronous loop starves. Use the free workers, else run here.
    const parts = Math.min(this.pool.size - this.pool.outstanding, units);
    if (options.sync || parts < (this.options.offload ? 1 : 2) || kernel.cost(record) < this.options.inlineThreshold) {
      try {
        if (units > 0) kernel.run(record, inViews, outViews, 0, units);
      } catch (e) {
        for (const o of outputs) this.release(o);
        throw e;
      }
      return { outputs, where: 'inline' };
    }
    return this.onPool(record, inputs, outputs, units, parts);
  }

  private onPool(record: OpRecord, inputs: readonly CpuStorage[], outputs: CpuStorage[], units: number, parts: number): PendingResult<CpuStorage> {
    const kernel = this.kernelFor(record.op)!;
    const inViews = inputs.map((s) => s.view);
    const outViews = outputs.map((s) => s.view);
    const wireIn = inputs.map((s) => toWire(s.view, s.dtype));
    const wireOut = outputs.map((s) => toWire(s.view, s.dtype));
    // Work stealing: the range is cut into CHUNKS_PER_TASK chunks per task and every task takes
    // the next chunk from one shared counter, so a worker slowed by a busy core (the GPU's
    // feeder thread, another process) does less of the op instead of holding it up.
    const slots: number[] = [];
    for (let p = 0; p < parts; p++) {
      const slot = this.pool.claimSlot();
      if (slot !== undefined) slots.push(slot);
    }
    if (slots.length === 0) {
      // Out of flag slots: run it here rather than wait.
      kernel.run(record, inViews, outViews, 0, units);
      return { promise: Promise.resolve({ outputs, where: 'inline' }) };
    }
    const chunks = Math.min(units, slots.length * CHUNKS_PER_TASK);
    const counter = slots[0]!;
    // The test hook's crashing task holds chunk 0, so the op cannot finish without it.
    Atomics.store(this.pool.counters, counter, this.crashNextPoolTask ? 1 : 0);
    Atomics.store(this.pool.finished, counter, 0);
    const runs: Array<Promise<unknown>> = slots.map((slot) => {
      const crash = this.crashNextPoolTask;
      this.crashNextPoolTask = false;
      return this.pool.run({ record, inputs: wireIn, outputs: wireOut, lo: 0, hi: units, chunks, counter, slot, ...(crash ? { crash } : {}) });
    });
    const result: ExecResult<CpuStorage> = { outputs, where: 'pool' };
    // Who settled the op: the pool's promise, or this thread blocked under backpressure.
    let settledBy: 'pool' | 'sync' | 'sync-failed' | undefined;
    const failure = (cause: unknown): KernelError => {
      const message = cause instanceof Error ? cause.message : String(cause);
      // A kernel's own error (e.g. an index out of range) already names the op and a hint.
      if (message.startsWith(`${record.op}: `)) return new KernelError(message.slice(record.op.length + 2), { op: record.op, cause });
      return new KernelError(`kernel failed on a worker thread (${message})`, { op: record.op, cause, hint: 'the pool replaces a dead worker; later ops run normally' });
    };
    const done = Promise.allSettled(runs).then((settled) => {
      for (const s of slots) this.pool.releaseSlot(s);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (settledBy === 'sync') return result;
      // Every worker is done with the outputs now: free them if the op failed.
      if (failed || settledBy === 'sync-failed') for (const o of outputs) this.release(o);
      settledBy ??= 'pool';
      if (failed) throw failure(failed.reason);
      return result;
    });
    return {
      promise: done,
      // Under backpressure: this thread takes the chunks no worker has started (the first pool
      // op may have no worker yet), then waits for the running ones; a worker that died fails the op at once.
      waitSync: () => {
        if (settledBy !== undefined) return undefined;
        const { counters, finished, flags } = this.pool;
        try {
          for (let c = Atomics.add(counters, counter, 1); c < chunks; c = Atomics.add(counters, counter, 1)) {
            kernel.run(record, inViews, outViews, Math.floor((units * c) / chunks), Math.floor((units * (c + 1)) / chunks));
            Atomics.add(finished, counter, 1);
          }
          const deadline = performance.now() + RUN_MS;
          for (let seen = Atomics.load(finished, counter); seen < chunks; seen = Atomics.load(finished, counter)) {
            if (slots.some((s) => Atomics.load(flags, s) === 2)) throw new KernelError('a worker thread died while running this op', { op: record.op, hint: 'the pool replaces a dead worker; later ops run normally' });
            if (performance.now() > deadline) return undefined;
            Atomics.wait(finished, counter, seen, WAIT_SLICE_MS);
          }
        } catch (e) {
          settledBy = 'sync-failed';
          throw e instanceof KernelError ? e : failure(e);
        }
        settledBy = 'sync';
        return result;
      },
    };
  }

  async read(storage: CpuStorage): Promise<TypedArray> {
    const out = allocTyped(storage.dtype, numel(storage.view.shape));
    copyView(storage.view, out, 0);
    return out;
  }

  /** Float32 values straight into `target` from `at` (see `Executor.readInto`). */
  readInto(storage: CpuStorage, target: Float32Array, at: number): boolean {
    if (storage.dtype !== 'float32') return false;
    const n = numel(storage.view.shape);
    if (!(Number.isInteger(at) && at >= 0 && at + n <= target.length)) {
      throw new ArgumentError(`${n} values do not fit in ${target.length} from index ${at}`, { op: 'readInto', shapes: [storage.view.shape] });
    }
    copyView(storage.view, target, at);
    return true;
  }

  release(storage: CpuStorage): void {
    this.liveStorages--;
    if (--storage.buffer.refs === 0) this.allocator.free(storage.buffer.data);
  }

  memory(): MemoryInfo {
    const s = this.allocator.stats();
    return { device: this.deviceKey, tensors: this.liveStorages, bytes: s.liveBytes, pooledBytes: s.pooledBytes };
  }
}
