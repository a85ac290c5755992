/**
 * Runs op records on one WebGPU device. The adapter and device are requested lazily, on the
 * first op: until they exist, ops return a PendingResult; afterwards encoding is synchronous
 * and ops return their result directly, so dependent ops need not wait a turn.
 */
import { DeviceError, KernelError, SwitchyardError } from '../../errors.js';
import type { WgpuDevice } from '../../devices/wgpu.js';
import { allocTyped, type TypedArray } from '../../ir/dtype.js';
import { numel, type OpName, type OpRecord } from '../../ir/ops.js';
import type { MemoryInfo } from '../../memory/info.js';
import type { ExecOptions, ExecResult, Executor, PendingResult } from '../../scheduler/executor.js';
import { INSTALL_HINT, type RequestAdapter } from './adapter.js';
import { GpuContext } from './context.js';
import { checkFaults, inheritFaults, type Fault } from './faults.js';
import { contiguousCopy } from './kernels/copy.js';
import { reshapeHalf, requireFloat16, runWidened, touchesFloat16, widenHalf } from './kernels/half.js';
import { encodeHalves } from '../../ir/half.js';
import { kernelTable, type KernelOp, type KernelTable } from './kernels/index.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernels/kernel.js';
import type { MatmulConfig } from './kernels/matmul.js';
import { viewLayout } from '../../ir/layout.js';
import type { AutotuneOption } from './autotune.js';
import { isContiguous, type GpuStorage, type Layout } from './storage.js';

export interface WgpuExecutorOptions {
  readonly requestAdapter: RequestAdapter;
  readonly batchSize: number;
  readonly matmul: MatmulConfig;
  readonly autotune?: AutotuneOption;
}

/** float16 patterns padded to whole 4-byte words (an odd count gets a zero beside its last element). */
function wholeWords(data: TypedArray): TypedArray {
  if (data.byteLength % 4 === 0) return data;
  const out = new Uint16Array(data.length + 1);
  out.set(data);
  return out;
}

/** Whether every output of the record has no elements (nothing to dispatch). */
function allEmpty(record: OpRecord): boolean {
  for (const m of record.outputs) if (numel(m.shape) !== 0) return false;
  return true;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class WgpuExecutor implements Executor<GpuStorage> {
  readonly deviceKey: string;
  readonly host = false;
  /** A fromData payload is copied as the op runs (into storage; by `writeBuffer`). */
  readonly copiesPayload = true;
  private ctx: GpuContext | undefined;
  private init: Promise<GpuContext> | undefined;
  private initError: SwitchyardError | undefined;
  private closed = false;
  private live = 0;
  /** The last timed op's completion promise, its batch's and its faults: ops of one batch with the same faults share it. */
  private lastDone: { work: Promise<number | undefined>; own: readonly Fault[]; done: Promise<number | undefined> } | undefined;
  private readonly kernels: KernelTable;

  constructor(
    readonly device: WgpuDevice,
    private readonly options: WgpuExecutorOptions,
  ) {
    this.deviceKey = device.key;
    this.kernels = kernelTable(options.matmul);
  }

  /** Checks what the device supports, where it is known already (float16 needs 'shader-f16'). */
  check(record: OpRecord): void {
    if (this.ctx && touchesFloat16(record)) requireFloat16(this.ctx, record);
  }

  /** The device's context, requesting adapter and device on first use. */
  ready(): Promise<GpuContext> {
    if (this.ctx) return Promise.resolve(this.ctx);
    if (this.closed) return Promise.reject(this.closedError());
    this.init ??= this.start().then(
      (ctx) => {
        if (this.closed) {
          ctx.destroy();
          throw this.closedError();
        }
        this.ctx = ctx;
        return ctx;
      },
      (e: unknown) => {
        this.initError = e instanceof SwitchyardError ? e : new DeviceError(message(e), { op: 'init', devices: [this.deviceKey], hint: INSTALL_HINT });
        throw this.initError;
      },
    );
    return this.init;
  }

  /** The context if initialised (tests, benchmarks). */
  get context(): GpuContext | undefined {
    return this.ctx;
  }

  private closedError(): DeviceError {
    return new DeviceError(`the WebGPU device ${this.deviceKey} was closed`, { op: 'init', devices: [this.deviceKey], hint: 'create a new Wgpu backend' });
  }

  private async start(): Promise<GpuContext> {
    let adapter: GPUAdapter | null;
    try {
      adapter = await this.options.requestAdapter(this.device);
    } catch (e) {
      throw new DeviceError(`WebGPU is not available for ${this.deviceKey} (${message(e)})`, { op: 'init', devices: [this.deviceKey], hint: INSTALL_HINT });
    }
    if (!adapter) throw new DeviceError(`no WebGPU adapter matches ${this.deviceKey}`, { op: 'init', devices: [this.deviceKey], hint: INSTALL_HINT });
    try {
      return await GpuContext.create(adapter, { batchSize: this.options.batchSize, deviceKey: this.deviceKey, ...(this.options.autotune === undefined ? {} : { autotune: this.options.autotune }) });
    } catch (e) {
      throw new DeviceError(`the adapter for ${this.deviceKey} refused a device (${message(e)})`, { op: 'init', devices: [this.deviceKey], hint: 'the adapter may lack the limits the kernels request' });
    }
  }

  execute(record: OpRecord, inputs: readonly GpuStorage[], payload: TypedArray | undefined, options: ExecOptions): ExecResult<GpuStorage> | PendingResult<GpuStorage> {
    const ctx = this.ctx;
    if (ctx) {
      if (!ctx.saturated) return this.run(ctx, record, inputs, payload, options.timing);
      // The GPU is far behind: queue here until it catches up (in submission order).
      return { promise: ctx.drained().then(() => this.run(ctx, record, inputs, payload, options.timing)) };
    }
    if (this.initError) throw this.initError;
    if (this.closed) throw this.closedError();
    return { promise: this.ready().then((ctx) => this.run(ctx, record, inputs, payload, options.timing)) };
  }

  private run(ctx: GpuContext, record: OpRecord, inputs: readonly GpuStorage[], payload: TypedArray | undefined, timing: boolean): ExecResult<GpuStorage> {
    if (this.closed) throw this.closedError();
    ctx.beginOp();
    let raw: RawStorage[];
    try {
      raw = this.encode(ctx, record, inputs, payload);
    } catch (e) {
      ctx.endOp(); // still queues the flush of what the batch holds
      throw e;
    }
    // Asked for before endOp, which may submit the batch.
    const work = timing ? ctx.workDone() : undefined;
    const own = ctx.endOp();
    // Every output carries the same faults; the fields are named (an object spread per op is slow).
    const faults = inheritFaults(inputs, own);
    const outputs: GpuStorage[] = new Array<GpuStorage>(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const r = raw[i]!;
      outputs[i] = { buffer: r.buffer, dtype: r.dtype, shape: r.shape, strides: r.strides, offset: r.offset, faults };
    }
    this.live += outputs.length;
    if (!work) return { outputs, where: 'gpu' };
    // Ran ahead: done when the GPU has finished the batch (reporting when the batch was submitted);
    // a late verdict (validation, index check) rejects it.
    return { outputs, where: 'gpu', done: this.doneOf(work, own) };
  }

  /**
   * One promise per batch and fault list rather than per op: while events$ is watched every op
   * chained its own (an async function per op), part of the 0.4-0.9 ms an events$ subscriber
   * cost the MLP step on the H200.
   */
  private doneOf(work: Promise<number | undefined>, own: readonly Fault[]): Promise<number | undefined> {
    const last = this.lastDone;
    if (last && last.work === work && last.own.length === own.length && last.own.every((f, i) => f === own[i])) return last.done;
    const done = work.then(async (submittedAt) => (await checkFaults(own), submittedAt));
    this.lastDone = { work, own, done };
    return done;
  }

  private view(x: GpuStorage, layout: Layout): RawStorage {
    x.buffer.refs++;
    return { buffer: x.buffer, dtype: x.dtype, shape: layout.shape, strides: layout.strides, offset: layout.offset };
  }

  private encode(ctx: GpuContext, record: OpRecord, inputs: readonly GpuStorage[], payload: TypedArray | undefined): RawStorage[] {
    // A replay would draw the same numbers every step.
    if (record.op === 'random') ctx.recording?.refuse('it draws random numbers (a replay would repeat the same draws)');
    const half = touchesFloat16(record);
    if (half) requireFloat16(ctx, record);
    const x = inputs[0];
    switch (record.op) {
      case 'fromData': {
        const meta = record.outputs[0]!;
        const out = freshStorage(ctx, meta.shape, meta.dtype);
        if (payload && payload.length > 0) ctx.upload(out.buffer.gpu, meta.dtype === 'bool' ? Uint32Array.from(payload) : meta.dtype === 'float16' ? wholeWords(payload) : payload);
        return [out];
      }
      case 'permute':
      case 'slice':
      case 'expand':
      case 'reshape': {
        const v = viewLayout(record, x!);
        // A reshape of a non-contiguous layout needs a copy.
        if (v) return [this.view(x!, v)];
        return [half ? reshapeHalf(ctx, x!, record.outputs[0]!.shape) : contiguousCopy(ctx, x!, record.outputs[0]!.shape)];
      }
      case 'transfer':
        throw new KernelError('a transfer runs on a bridge, not on the WebGPU executor', { op: 'transfer', hint: 'submit transfers through the runtime scheduler' });
    }
    if (allEmpty(record)) return record.outputs.map((m) => freshStorage(ctx, m.shape, m.dtype));
    const kernel = (this.kernels as unknown as Record<KernelOp, GpuKernel<OpName>>)[record.op as KernelOp];
    // A float16 record runs its f32 kernel on widened copies, unless the kernel handles float16 itself.
    if (half && !kernel?.float16?.(ctx, record)) return runWidened(ctx, record, inputs, (r, wide) => this.encode(ctx, r, wide, payload));
    if (!kernel) throw new KernelError(`no WebGPU kernel for op '${record.op}'`, { op: record.op });
    return kernel.run(ctx, record, inputs);
  }

  async read(storage: GpuStorage): Promise<TypedArray> {
    // With the device open, the copy is encoded within the call: into the batch of the ops just
    // recorded, which then goes to the GPU once, at the end of the turn, with the read in it.
    const ctx = this.ctx ?? (await this.ready());
    const n = numel(storage.shape);
    if (n === 0) {
      await checkFaults(storage.faults);
      return allocTyped(storage.dtype, 0);
    }
    let src: RawStorage = storage;
    let temp: RawStorage | undefined;
    let copyFaults: ReturnType<GpuContext['endOp']> = [];
    // float16 reads back through an f32 copy: element offsets of f16 need not be whole words.
    const half = storage.dtype === 'float16';
    if (half || !isContiguous(storage)) {
      ctx.beginOp();
      try {
        src = temp = half ? widenHalf(ctx, storage) : contiguousCopy(ctx, storage);
      } finally {
        copyFaults = ctx.endOp();
      }
    }
    let bytes: ArrayBuffer;
    try {
      bytes = await ctx.readBuffer(src.buffer.gpu, src.offset * 4, n * 4);
    } finally {
      if (temp) ctx.unref(temp.buffer);
    }
    await checkFaults(storage.faults);
    await checkFaults(copyFaults);
    switch (storage.dtype) {
      case 'float32':
        return new Float32Array(bytes);
      case 'int32':
        return new Int32Array(bytes);
      case 'bool':
        return Uint8Array.from(new Uint32Array(bytes));
      case 'float16': {
        const out = new Uint16Array(n);
        encodeHalves(new Float32Array(bytes), 0, n, out);
        return out;
      }
    }
  }

  release(storage: GpuStorage): void {
    this.live--;
    this.ctx?.unref(storage.buffer);
  }

  memory(): MemoryInfo {
    return this.ctx ? this.ctx.memory(this.live) : { device: this.deviceKey, tensors: this.live, bytes: 0, pooledBytes: 0 };
  }

  /** Submits queued work and destroys the device. */
  close(): void {
    this.closed = true;
    this.ctx?.destroy();
    this.ctx = undefined;
  }
}
