/**
 * Runs op records on the CPU: views without copies, small kernels inline on the calling
 * thread, large ones split into ranges across the worker pool over shared memory.
 */
import { KernelError } from '../../errors.js';
import { allocTyped, type TypedArray } from '../../ir/dtype.js';
import { numel, type OpAttrs, type OpRecord } from '../../ir/ops.js';
import type { MemoryInfo } from '../../memory/info.js';
import type { ExecOptions, ExecResult, Executor, PendingResult } from '../../scheduler/executor.js';
import type { Allocator } from './allocator.js';
import { kernelsFor, type KernelLookup } from './kernels/index.js';
import { forEachOffset } from './kernels/strided.js';
import type { CpuPool } from './pool.js';
import { toWire, type CpuStorage } from './storage.js';
import { expandView, isContiguous, makeView, permuteView, reshapeView, sliceView, type View } from './view.js';

export interface CpuExecutorOptions {
  /** Ops whose estimated cost (scalar operations) is below this run inline. */
  inlineThreshold: number;
  /** The kernel table (default: the JS kernels). */
  kernels?: KernelLookup;
}

/** How long a blocked main thread waits for a worker to pick up / finish a task (caller-runs backpressure). */
const PICKUP_MS = 50;
const CHUNKS_PER_TASK = 4;
const RUN_MS = 30_000;

export class CpuExecutor implements Executor<CpuStorage> {
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
    const data = this.allocator.alloc(meta.dtype, n);
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
        return { outputs: [this.viewOf(x!, permuteView(x!.view, (record.attrs as OpAttrs['permute']).dims))], where: 'view' };
      case 'slice':
        return { outputs: [this.viewOf(x!, sliceView(x!.view, (record.attrs as OpAttrs['slice']).ranges))], where: 'view' };
      case 'expand':
        return { outputs: [this.viewOf(x!, expandView(x!.view, record.outputs[0]!.shape))], where: 'view' };
      case 'reshape': {
        const v = reshapeView(x!.view, record.outputs[0]!.shape);
        if (v) return { outputs: [this.viewOf(x!, v)], where: 'view' };
        // Not contiguous: copy into the new shape (the copy kernel walks the input's own layout).
        const out = this.fresh(record.outputs[0]!);
        forEachOffset(x!.view, (p, i) => (out.buffer.data[i] = x!.view.data[p]!));
        return { outputs: [out], where: 'inline' };
      }
      case 'transfer':
        throw new KernelError('the CPU backend cannot run transfers itself', { op: 'transfer', hint: 'transfers between devices go through a Router' });
    }
    const kernel = this.kernelFor(record.op);
    if (!kernel) throw new KernelError(`no CPU kernel for op '${record.op}'`, { op: record.op });
    const outputs = record.outputs.map((m) => this.fresh(m));
    const inViews = inputs.map((s) => s.view);
    const outViews = outputs.map((s) => s.view);
    const units = kernel.units(record);
    // Never queue behind busy workers: Piscina dispatches queued tasks only from this thread's
    // event loop, which a long synchronous loop starves. Use the free workers, else run here.
    const parts = Math.min(this.pool.size - this.pool.outstanding, units);
    if (options.sync || parts < 2 || kernel.cost(record) < this.options.inlineThreshold) {
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
      this.kernelFor(record.op)!.run(record, inputs.map((s) => s.view), outputs.map((s) => s.view), 0, units);
      return { promise: Promise.resolve({ outputs, where: 'inline' }) };
    }
    const chunks = Math.min(units, slots.length * CHUNKS_PER_TASK);
    const counter = slots[0]!;
    Atomics.store(this.pool.counters, counter, 0);
    const runs: Array<Promise<unknown>> = slots.map((slot) => {
      const crash = this.crashNextPoolTask;
      this.crashNextPoolTask = false;
      return this.pool.run({ record, inputs: wireIn, outputs: wireOut, lo: 0, hi: units, chunks, counter, slot, ...(crash ? { crash } : {}) });
    });
    const result: ExecResult<CpuStorage> = { outputs, where: 'pool' };
    const done = Promise.allSettled(runs).then((settled) => {
      for (const s of slots) this.pool.releaseSlot(s);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) {
        for (const o of outputs) this.release(o);
        const cause: unknown = failed.reason;
        const message = cause instanceof Error ? cause.message : String(cause);
        // A kernel's own error (e.g. an index out of range) already names the op and a hint.
        if (message.startsWith(`${record.op}: `)) throw new KernelError(message.slice(record.op.length + 2), { op: record.op, cause });
        throw new KernelError(`kernel failed on a worker thread (${message})`, { op: record.op, cause, hint: 'the pool replaces a dead worker; later ops run normally' });
      }
      return result;
    });
    return {
      promise: done,
      waitSync: () => {
        for (const s of slots) {
          const state = this.pool.waitSlot(s, PICKUP_MS, RUN_MS);
          if (state !== 1) return undefined; // failed or still running: let the promise report it
        }
        return result;
      },
    };
  }

  async read(storage: CpuStorage): Promise<TypedArray> {
    const v = storage.view;
    const n = numel(v.shape);
    if (isContiguous(v)) return v.data.slice(v.offset, v.offset + n);
    const out = allocTyped(storage.dtype, n);
    forEachOffset(v, (p, i) => (out[i] = v.data[p]!));
    return out;
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
