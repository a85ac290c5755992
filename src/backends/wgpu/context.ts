/**
 * One GPUDevice and everything that feeds it: pipelines cached by generated source, dispatches
 * batched into one command encoder (one compute pass) and submitted at flush points (the batch
 * size, the end of the current JS turn, which reads wait for), a uniform arena for the dispatches'
 * parameters, error scopes per batch, index-check flags, buffer pools and readback.
 */
import { DeviceError, KernelError, type SwitchyardError } from '../../errors.js';
import type { MemoryInfo } from '../../memory/info.js';
import { BufferPool, StagingPool, type GpuBuffer } from './buffers.js';
import { Fault } from './faults.js';
import { chooseFeatures, type GpuFeatures } from './features.js';
import { Autotuner, type AutotuneOption } from './autotune.js';
import { classifyAdapter } from './adapter.js';
import { KernelProfiler } from './kernel-profile.js';
import { StepRecorder } from './recorder.js';
import { KeyTrie } from './key-trie.js';
import type { KernelTime } from './kernel-time.js';
import { BufferUsage, MapMode, ShaderStage } from './flags.js';
import { clock } from '../../scheduler/clock.js';
import { PARAM_BYTES, PARAM_WORDS, type Params, type Program } from './wgsl/common.js';

export interface ContextOptions {
  /** Dispatches per submit. */
  readonly batchSize: number;
  readonly deviceKey: string;
  /** Kernel autotuning (default on, cached per adapter). */
  readonly autotune?: AutotuneOption;
}

/** Limits the kernels ask for: the adapter's best, not WebGPU's low defaults. */
const LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupStorageSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupsPerDimension',
  'maxUniformBufferBindingSize',
] as const;

const ARENA_SLOTS = 512;
/**
 * Batches submitted and not yet settled before new ops wait for the GPU: a synchronous loop
 * gives Dawn no turn to retire work, and unbounded submissions exhaust it (a crash near 65k ops).
 */
const MAX_INFLIGHT_BATCHES = 32;
/**
 * A kernel of at least this many flops (about 25 us on an H200 at 40 TFLOP/s) is heavy: a batch
 * holding one goes to the GPU after 1, 2, 4, ... dispatches (doubling while earlier batches run, up
 * to the batch size), so the GPU starts at once and stays fed while the host encodes the rest. A
 * loop of 1000 x 500 x 3000 matmuls (90 us of GPU and about 24 us of host time each) otherwise
 * left the GPU idle while the first 128 were encoded: 30.8 TFLOP/s through the API against 33.8 by
 * GPU time. Light kernels keep the plain rule (with a small first batch for every batch, the MLP
 * step at batch 256 measured 3.89 against 3.52 ms).
 */
export const HEAVY_FLOPS = 1e9;
export const FLAG_SLOTS = 256;
/**
 * Bind groups kept for reuse. Creating one is the costliest call of a dispatch (about 100 µs
 * through Dawn's Node bindings on a small machine); a loop reuses the same pooled buffers, so
 * the same groups recur. Past the bound the cache starts empty again.
 */
const BIND_GROUP_CACHE = 4096;

/** Programs kept by key (each holds its generator's inputs, so the bound keeps memory flat). */
const PROGRAM_CACHE = 4096;
/** Trial pipelines kept for the op path: a few tuning buckets' worth of variants. */
const TRIED_PIPELINES = 64;

/** Deletes the `count` oldest entries of a map (its insertion order). */
function dropOldest<K, V>(map: Map<K, V>, count: number): void {
  for (const k of map.keys()) {
    map.delete(k);
    if (--count <= 0) break;
  }
}

interface Pipeline {
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
  /** The layout's number, part of a bind group's cache key. */
  readonly layoutId: number;
}

export class GpuContext {
  readonly pool: BufferPool;
  readonly staging: StagingPool;
  readonly maxWorkgroupsPerDim: number;
  readonly maxBinding: number;
  /** Storage buffers one kernel may bind (a fused kernel with more is split). */
  readonly maxStorageBuffers: number;
  /** Whether the device has 'shader-f16' (requested wherever the adapter offers it): float16 tensors need it. */
  readonly float16: boolean;
  /** The adapter's name for messages. */
  get adapterName(): string {
    const i = this.adapterInfo;
    return i.description || `${i.vendor} ${i.architecture}`.trim() || 'unknown';
  }
  /** Dispatches encoded since the device was created (tests and benchmarks count kernels with it). */
  dispatchCount = 0;
  /** Command buffers submitted since the device was created (tests count submits per step with it). */
  submitCount = 0;
  /** Set once the device is lost (not by close()); every later op and read fails with it. */
  lost: KernelError | undefined;
  private closing = false;
  private readonly layouts = new Map<string, { layout: GPUBindGroupLayout; id: number }>();
  private readonly bindGroups = new KeyTrie<GPUBindGroup>(BIND_GROUP_CACHE);
  /** Bind groups created so far (a loop that repeats its ops should stop adding them). */
  bindGroupsCreated = 0;
  private readonly bufferIds = new WeakMap<GPUBuffer, number>();
  private nextBufferId = 0;
  /** The parameter slot's offset, one array reused by every dispatch (Dawn's Node bindings take a plain array faster than a typed one). */
  private readonly dynamicOffset: number[] = [0];
  /** Pipelines by generated source (keys that generate one source share it) and by program key. */
  private readonly pipelines = new Map<string, Pipeline>();
  private readonly byKey = new Map<string, Pipeline>();
  /** Pipelines the autotuner compiled for its trials, by source, until an op uses one (bounded). */
  private readonly tried = new Map<string, Pipeline>();
  /** Trial compiles under way, by source. */
  private readonly compiling = new Map<string, Promise<void>>();
  /** Programs by key, for kernels whose program objects are costly to make per dispatch (reductions). */
  private readonly programs = new Map<string, Program>();
  /** Programs found by a walk over their structure, without a key string per dispatch (fused elementwise kernels). */
  readonly programTrie = new KeyTrie<Program>(PROGRAM_CACHE);
  private readonly arena: GPUBuffer;
  private readonly arenaData = new Uint32Array(ARENA_SLOTS * PARAM_WORDS);
  private slot = 0;
  /** Per index-checking op: [bad, index] as u32 pairs, cleared at the start of each batch that uses them. */
  readonly flags: GPUBuffer;
  private flagFaults: Array<{ fault: Fault; error: (index: number) => SwitchyardError }> = [];
  private encoder: GPUCommandEncoder | undefined;
  private pass: GPUComputePassEncoder | undefined;
  /** The pipeline the open pass has set (undefined when no pass is open). */
  private passPipeline: GPUComputePipeline | undefined;
  private batchFault: Fault | undefined;
  private dispatches = 0;
  private flushQueued = false;
  /** Reads whose copies are in the open batch, waiting for its submit to map their staging buffers. */
  private submitWaiters: Array<() => void> = [];
  private opFaults: Fault[] = [];
  /** Set while kernels are being timed (startKernelProfile). */
  private profiler: KernelProfiler | undefined;
  /** Submitted batches whose verdict is not in yet. */
  private inflightBatches = 0;
  /** The open batch holds a heavy kernel (see HEAVY_FLOPS); such a batch is submitted after `heavyLimit` dispatches. */
  private heavyInBatch = false;
  private heavyLimit = 1;
  private drainWaiters: Array<() => void> = [];
  /** Settles when the open batch's work is done on the GPU, with when it was submitted (made on demand, for op timing). */
  private batchDone: { promise: Promise<number | undefined>; resolve: (submittedAt: number | undefined) => void; reject: (e: unknown) => void } | undefined;
  private readonly unsettled = new Set<Fault>();
  /** Set while a step is being captured (src/capture): every command is also recorded. */
  private recorder: StepRecorder | undefined;

  private constructor(
    readonly device: GPUDevice,
    readonly adapterInfo: GPUAdapterInfo,
    private readonly options: ContextOptions,
    /** Optional features the device was created with. */
    readonly features: GpuFeatures,
    /** Tuned kernel variants per shape bucket. */
    readonly tuner: Autotuner,
  ) {
    const limits = device.limits;
    this.float16 = device.features.has('shader-f16');
    this.maxWorkgroupsPerDim = limits.maxComputeWorkgroupsPerDimension;
    this.maxBinding = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
    this.maxStorageBuffers = limits.maxStorageBuffersPerShaderStage;
    this.pool = BufferPool.forTensors(device, this.maxBinding);
    this.staging = new StagingPool(device);
    this.arena = device.createBuffer({ size: ARENA_SLOTS * PARAM_BYTES, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
    this.flags = device.createBuffer({ size: FLAG_SLOTS * 8, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST });
    void device.lost.then((info) => {
      if (this.closing) return;
      this.lost = new KernelError(`the GPU device was lost (${info.reason}${info.message ? `: ${info.message}` : ''})`, {
        op: 'device',
        hint: 'tensors on the lost device cannot be read; create a new backend to continue',
      });
      for (const f of this.unsettled) f.fail(this.lost);
      this.unsettled.clear();
    });
    device.onuncapturederror = (ev: GPUUncapturedErrorEvent) => {
      // Batches run inside error scopes, so this is rare: blame the newest unsettled batch.
      const err = new KernelError(`uncaptured GPU error: ${ev.error.message}`, { op: 'device' });
      const last = [...this.unsettled].pop();
      if (last) last.fail(err);
    };
  }

  static async create(adapter: GPUAdapter, options: ContextOptions): Promise<GpuContext> {
    const requiredLimits: Record<string, number> = {};
    // Only limits this adapter reports (browsers differ); asking for a missing one is a TypeError.
    for (const k of LIMITS) {
      const v = k in adapter.limits ? adapter.limits[k] : undefined;
      if (typeof v === 'number') requiredLimits[k] = v;
    }
    const { request, features } = chooseFeatures(adapter);
    const device = await adapter.requestDevice({ requiredLimits, requiredFeatures: request, label: `switchyard ${options.deviceKey}` });
    const i = adapter.info;
    // A software adapter's timings follow the CPU's load: tuned only when asked explicitly.
    const autotune = options.autotune ?? classifyAdapter(i) !== 'cpu';
    const tuner = await Autotuner.open(autotune, `${i.vendor} ${i.architecture} ${i.device} ${i.description}`);
    return new GpuContext(device, adapter.info, options, features, tuner);
  }

  // ---- batches ---------------------------------------------------------------------------

  private track(f: Fault): Fault {
    this.unsettled.add(f);
    void f.done.then(() => this.unsettled.delete(f));
    return f;
  }

  private openBatch(): GPUCommandEncoder {
    if (this.encoder) return this.encoder;
    this.device.pushErrorScope('validation');
    this.device.pushErrorScope('out-of-memory');
    this.encoder = this.device.createCommandEncoder();
    this.batchFault = this.track(new Fault());
    return this.encoder;
  }

  /** The current op puts work in the open batch: its outputs carry the batch's verdict. */
  private touch(): void {
    const f = this.batchFault;
    if (f && !this.opFaults.includes(f)) this.opFaults.push(f);
  }

  /** Compute pipelines compiled so far (one per distinct generated source). */
  get pipelineCount(): number {
    return this.pipelines.size;
  }
  /** Pipelines compiled synchronously for ops (the autotuner compiles its trials off the thread). */
  opCompiles = 0;

  get batchOpen(): boolean {
    return this.encoder !== undefined;
  }

  /** Starts an op: the faults of every batch it touches go to its outputs. */
  beginOp(): void {
    if (this.lost) throw this.lost;
    this.opFaults = [];
  }

  /** Marks the open batch as holding a kernel of at least HEAVY_FLOPS flops. */
  heavy(): void {
    this.heavyInBatch = true;
  }

  /** Ends an op; returns the faults its outputs carry and queues a flush. */
  endOp(): Fault[] {
    const faults = this.opFaults;
    this.opFaults = [];
    if (this.inflightBatches === 0) this.heavyLimit = 1;
    const size = this.heavyInBatch ? Math.min(this.heavyLimit, this.options.batchSize) : this.options.batchSize;
    if (this.dispatches >= size) {
      if (this.heavyInBatch) this.heavyLimit *= 2;
      this.flush();
    } else this.flushSoon();
    return faults;
  }

  /** Queues a flush of the open batch at the end of the current JS turn. */
  private flushSoon(): void {
    if (!this.encoder || this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  /** Resolves once the open batch (if any) is submitted. */
  private submitted(): Promise<void> {
    if (!this.encoder) return Promise.resolve();
    this.flushSoon();
    return new Promise((resolve) => this.submitWaiters.push(resolve));
  }

  private computePass(): GPUComputePassEncoder {
    const enc = this.openBatch();
    this.touch();
    this.pass ??= enc.beginComputePass();
    return this.pass;
  }

  /** The command encoder outside any compute pass (for copies and clears). */
  commands(): GPUCommandEncoder {
    const enc = this.openBatch();
    this.touch();
    if (this.pass) {
      this.pass.end();
      this.pass = undefined;
      this.passPipeline = undefined;
    }
    return enc;
  }

  /**
   * A flag slot for an op that checks indices; the fault fails with `error(index)` if the kernel
   * sets it. Call it right before the op's checking dispatch.
   */
  indexCheck(error: (index: number) => SwitchyardError): number {
    // The checking dispatch must land in the batch that reads the flag back: keep an arena slot for it.
    if (this.flagFaults.length >= FLAG_SLOTS || this.slot >= ARENA_SLOTS - 1) this.flush();
    if (this.flagFaults.length === 0) this.commands().clearBuffer(this.flags);
    const fault = this.track(new Fault());
    this.opFaults.push(fault);
    this.flagFaults.push({ fault, error });
    this.recorder?.check(this.flagFaults.length - 1, error);
    return this.flagFaults.length - 1;
  }

  /** A program kept by `keepProgram` under this key, if any. */
  cachedProgram(key: string): Program | undefined {
    return this.programs.get(key);
  }

  /** Keeps a program for later `cachedProgram` calls (bounded: past the bound the oldest quarter goes); returns it. */
  keepProgram(program: Program): Program {
    if (this.programs.size >= PROGRAM_CACHE) dropOldest(this.programs, PROGRAM_CACHE / 4);
    this.programs.set(program.key, program);
    return program;
  }

  private pipeline(program: Program): Pipeline {
    // By key first: the sources are long strings, not worth hashing on every dispatch.
    let p = this.byKey.get(program.key);
    if (p) return p;
    const source = program.source();
    p = this.pipelines.get(source);
    if (p) {
      this.byKey.set(program.key, p);
      return p;
    }
    // A kernel the autotuner compiled for its trials (off this thread) is not compiled again.
    p = this.tried.get(source);
    if (p) this.tried.delete(source);
    else {
      const layout = this.layoutFor(program);
      this.openBatch(); // compile errors land in the batch's error scope
      const module = this.device.createShaderModule({ code: source, label: program.key });
      this.opCompiles++;
      const pipeline = this.device.createComputePipeline(this.pipelineDescriptor(program, module, layout.layout));
      p = { pipeline, layout: layout.layout, layoutId: layout.id };
    }
    this.pipelines.set(source, p);
    this.byKey.set(program.key, p);
    return p;
  }

  /** The bind group layout of a program's bindings (storage buffers, then the parameter slot). */
  private layoutFor(program: Program): { layout: GPUBindGroupLayout; id: number } {
    const sig = program.bindings.join(',');
    let layout = this.layouts.get(sig);
    if (!layout) {
      const entries: GPUBindGroupLayoutEntry[] = program.bindings.map((k, i) => ({
        binding: i,
        visibility: ShaderStage.COMPUTE,
        buffer: { type: k === 'read' ? 'read-only-storage' : 'storage' },
      }));
      // The parameter slot is a dynamic offset, so a bind group depends on the buffers only (and is cached).
      entries.push({ binding: program.bindings.length, visibility: ShaderStage.COMPUTE, buffer: { type: 'uniform', hasDynamicOffset: true } });
      layout = { layout: this.device.createBindGroupLayout({ entries }), id: this.layouts.size };
      this.layouts.set(sig, layout);
    }
    return layout;
  }

  /** The one pipeline a program compiles to, on the op path and for the autotuner's trials alike. */
  private pipelineDescriptor(program: Program, module: GPUShaderModule, layout: GPUBindGroupLayout): GPUComputePipelineDescriptor {
    return { layout: this.device.createPipelineLayout({ bindGroupLayouts: [layout] }), compute: { module, entryPoint: 'main' }, label: program.key };
  }

  /**
   * Runs device calls inside their own error scopes, synchronously (so an op batch's scopes, a
   * stack shared with this device, are never popped out of order); `failed` says whether they
   * threw or raised a validation or out-of-memory error.
   */
  private scoped<T>(fn: () => T): { value: T | undefined; failed: Promise<boolean> } {
    const device = this.device;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let value: T | undefined;
    let threw = false;
    try {
      value = fn();
    } catch {
      threw = true;
    }
    const v = device.popErrorScope();
    const m = device.popErrorScope();
    return { value, failed: Promise.all([v, m]).then(([a, b]) => threw || a !== null || b !== null, () => true) };
  }

  /** Encodes one dispatch; `buffers` match the program's bindings. */
  dispatch(program: Program, buffers: readonly GPUBuffer[], params: Params, groups: readonly [number, number, number]): void {
    if (params.length > PARAM_WORDS) {
      throw new KernelError(`a kernel needs ${params.length} parameter words (the limit is ${PARAM_WORDS})`, { op: program.key.split('|')[0] ?? 'kernel', hint: 'reduce the tensor rank (reshape merges dims)' });
    }
    if (this.slot >= ARENA_SLOTS) this.flush();
    const p = this.pipeline(program);
    const pass = this.profiler ? this.timedPass(this.profiler, program.key) : this.computePass();
    this.dynamicOffset[0] = this.slot * PARAM_BYTES;
    this.arenaData.set(params.words, this.slot * PARAM_WORDS);
    this.slot++;
    // A pass keeps its pipeline between dispatches: set it only when it changes (each call crosses into Dawn).
    if (this.passPipeline !== p.pipeline) {
      pass.setPipeline(p.pipeline);
      this.passPipeline = p.pipeline;
    }
    pass.setBindGroup(0, this.bindGroup(p, buffers), this.dynamicOffset);
    pass.dispatchWorkgroups(groups[0], groups[1], groups[2]);
    this.recorder?.dispatch(p.pipeline, p.layout, buffers, params.words, groups);
    if (this.profiler) {
      pass.end();
      this.pass = undefined;
      this.passPipeline = undefined;
    }
    this.dispatches++;
    this.dispatchCount++;
  }

  /** While profiling: a pass of the dispatch's own, timestamped at its beginning and end. */
  private timedPass(profiler: KernelProfiler, key: string): GPUComputePassEncoder {
    const enc = this.commands();
    return enc.beginComputePass({ timestampWrites: profiler.timestampWrites(key) });
  }

  /**
   * Starts timing every kernel (GPU timestamps, one pass per dispatch); `stopKernelProfile`
   * returns the table. Needs the adapter's 'timestamp-query' feature.
   */
  startKernelProfile(): void {
    if (this.recorder) throw new KernelError('kernels cannot be profiled while a step is being captured', { op: 'profileKernels', hint: 'profile before or after captureStep' });
    if (!this.features.timestamps) {
      throw new DeviceError(`kernel profiling needs GPU timestamps, which this adapter (${this.adapterInfo.description || this.adapterInfo.vendor}) does not offer ('timestamp-query')`, {
        op: 'profileKernels',
        devices: [this.options.deviceKey],
        hint: 'time ops with scheduler.events$ instead (see the README section on events)',
      });
    }
    this.flush();
    this.profiler ??= new KernelProfiler(this.device, ARENA_SLOTS);
  }

  /** Stops timing kernels; the kernels timed since the start, the costliest first. */
  async stopKernelProfile(): Promise<KernelTime[]> {
    const profiler = this.profiler;
    if (!profiler) return [];
    this.flush();
    this.profiler = undefined;
    return profiler.report();
  }

  /** The bind group of `buffers` (and the parameter arena) for a pipeline's layout, made once. */
  private bindGroup(p: Pipeline, buffers: readonly GPUBuffer[]): GPUBindGroup {
    // Found by the layout's number and each buffer's number: a walk of Map lookups, no key string.
    let node = this.bindGroups.start().child(p.layoutId).child(buffers.length);
    for (const b of buffers) {
      let id = this.bufferIds.get(b);
      if (id === undefined) {
        id = this.nextBufferId++;
        this.bufferIds.set(b, id);
      }
      node = node.child(id);
    }
    const cached = node.value;
    if (cached) return cached;
    const entries: GPUBindGroupEntry[] = buffers.map((b, i) => ({ binding: i, resource: { buffer: b } }));
    entries.push({ binding: buffers.length, resource: { buffer: this.arena, offset: 0, size: PARAM_BYTES } });
    const group = this.device.createBindGroup({ layout: p.layout, entries });
    this.bindGroupsCreated++;
    return this.bindGroups.set(node, group);
  }

  /** Host data into a buffer (ordered before the open batch's commands: the buffer must be fresh). */
  upload(buffer: GPUBuffer, data: ArrayBufferView): void {
    this.recorder?.upload(buffer, data);
    if (this.pool.reusedInBatch.has(buffer)) this.flush();
    this.openBatch();
    this.touch();
    this.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  }

  /** Whether new work should wait: too many batches are in flight. */
  get saturated(): boolean {
    return this.inflightBatches >= MAX_INFLIGHT_BATCHES;
  }

  /** Resolves once the batches in flight are down to half the bound. */
  drained(): Promise<void> {
    if (!this.saturated) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private batchSettled(): void {
    this.inflightBatches--;
    if (this.inflightBatches <= MAX_INFLIGHT_BATCHES / 2 && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Resolves when the GPU has finished all work submitted so far and the open batch (after it is
   * submitted): the true completion time of the ops encoded until now. It resolves to when the
   * open batch was submitted (scheduler clock): the GPU could not start it earlier, however early
   * its ops were encoded (undefined when no batch was open).
   */
  workDone(): Promise<number | undefined> {
    if (!this.encoder) return this.device.queue.onSubmittedWorkDone().then(() => undefined);
    if (!this.batchDone) {
      let resolve!: (submittedAt: number | undefined) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<number | undefined>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.batchDone = { promise, resolve, reject };
    }
    return this.batchDone.promise;
  }

  /** Submits the open batch; its verdict (error scopes, index flags) settles asynchronously. */
  flush(): void {
    try {
      this.submitBatch();
    } finally {
      // Also when the submit failed: the reads waiting for it then fail with its batch, not hang.
      const waiters = this.submitWaiters;
      if (waiters.length > 0) {
        this.submitWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  private submitBatch(): void {
    const enc = this.encoder;
    if (!enc) return;
    if (this.pass) {
      this.pass.end();
      this.pass = undefined;
      this.passPipeline = undefined;
    }
    const checks = this.flagFaults;
    let flagStage: GPUBuffer | undefined;
    if (checks.length > 0) {
      flagStage = this.staging.acquire(checks.length * 8);
      enc.copyBufferToBuffer(this.flags, 0, flagStage, 0, checks.length * 8);
    }
    const timings = this.profiler?.resolve(enc);
    // A submit that throws fails this batch's fault (its ops' outputs and its reads carry it) and
    // leaves the context ready for the next batch: it may run in a microtask, where a throw would
    // end the process.
    let submitError: unknown;
    try {
      if (this.slot > 0) this.device.queue.writeBuffer(this.arena, 0, this.arenaData.buffer, 0, this.slot * PARAM_BYTES);
      this.device.queue.submit([enc.finish()]);
      timings?.();
    } catch (e) {
      submitError = e ?? new Error('submit failed');
    }
    this.submitCount++;
    const waiting = this.batchDone;
    this.batchDone = undefined;
    if (waiting) {
      // Read only when ops are timed (someone asked for the batch's completion).
      const submittedAt = clock.now();
      this.device.queue.onSubmittedWorkDone().then(() => waiting.resolve(submittedAt), waiting.reject);
    }
    const fault = this.batchFault!;
    if (submitError !== undefined) {
      const why = submitError instanceof Error ? submitError.message || submitError.name : String(submitError);
      fault.fail(this.lost ?? new KernelError(`submitting a batch of kernels failed: ${why}`, { op: 'dispatch', cause: submitError, hint: 'a bug in the WebGPU backend or the driver: please report it with the op' }));
    }
    this.encoder = undefined;
    this.batchFault = undefined;
    this.flagFaults = [];
    this.slot = 0;
    this.dispatches = 0;
    this.heavyInBatch = false;
    this.pool.commit();
    const oom = this.device.popErrorScope();
    const validation = this.device.popErrorScope();
    this.inflightBatches++;
    void fault.done.then(() => this.batchSettled());
    Promise.all([oom, validation]).then(
      (errors) => {
        const e = errors.find((x) => x !== null);
        if (e) fault.fail(new KernelError(`GPU error in a batch of kernels: ${e.message}`, { op: 'dispatch', cause: e, hint: 'a bug in the WebGPU backend: please report it with the op' }));
        else fault.ok();
      },
      (e: unknown) => fault.fail(this.lost ?? new KernelError(`GPU error scope failed: ${String(e)}`, { op: 'dispatch', cause: e })),
    );
    if (flagStage) void this.settleChecks(flagStage, checks);
  }

  private async settleChecks(stage: GPUBuffer, checks: ReadonlyArray<{ fault: Fault; error: (index: number) => SwitchyardError }>): Promise<void> {
    const bytes = checks.length * 8;
    try {
      await stage.mapAsync(MapMode.READ, 0, bytes);
    } catch (e) {
      const err = this.lost ?? new KernelError(`reading index checks failed: ${String(e)}`, { op: 'indexCheck', cause: e });
      for (const c of checks) c.fault.fail(err);
      return;
    }
    const words = new Int32Array(stage.getMappedRange(0, bytes).slice(0));
    stage.unmap();
    this.staging.release(stage);
    checks.forEach((c, i) => {
      if (words[2 * i] !== 0) c.fault.fail(c.error(words[2 * i + 1]!));
      else c.fault.ok();
    });
  }

  // ---- captured steps --------------------------------------------------------------------

  /** The recorder of the step being captured, if any. */
  get recording(): StepRecorder | undefined {
    return this.recorder;
  }

  /** Starts recording every command (after submitting what is queued); see src/capture. */
  startRecording(): StepRecorder {
    if (this.recorder) throw new KernelError('a step is already being captured on this device', { op: 'captureStep', devices: [this.options.deviceKey], hint: 'capture one step at a time' });
    if (this.profiler) throw new KernelError('a step cannot be captured while kernels are profiled', { op: 'captureStep', hint: 'call stopKernelProfile first' });
    this.flush();
    const recorder = new StepRecorder(this.flags, (b) => this.pool.pin(b));
    this.recorder = recorder;
    this.pool.onAcquire = (b) => recorder.acquired(b);
    return recorder;
  }

  /** Stops recording (submitting the step's last batch). */
  stopRecording(): void {
    this.flush();
    this.recorder = undefined;
    this.pool.onAcquire = undefined;
  }

  /** The device's key ('wgpu', 'wgpu:1') for messages. */
  get deviceKey(): string {
    return this.options.deviceKey;
  }

  /** Whether destroy() ran (the backend was closed). */
  get closed(): boolean {
    return this.closing;
  }

  /** Submits a replay's commands after everything queued before it; the in-flight bound counts it as a batch. */
  submitReplay(commands: GPUCommandBuffer, dispatches: number): void {
    if (this.lost) throw this.lost;
    this.flush();
    this.device.queue.submit([commands]);
    this.submitCount++;
    this.dispatchCount += dispatches;
    this.inflightBatches++;
    this.device.queue.onSubmittedWorkDone().then(
      () => this.batchSettled(),
      () => this.batchSettled(),
    );
  }

  // ---- memory ----------------------------------------------------------------------------

  alloc(bytes: number): GpuBuffer {
    if (bytes > this.maxBinding) {
      throw new KernelError(`a tensor of ${bytes} bytes exceeds this adapter's largest storage binding (${this.maxBinding} bytes)`, {
        op: 'alloc',
        hint: 'split the tensor (chunk / narrow), or use an adapter with a larger maxStorageBufferBindingSize',
      });
    }
    return this.pool.acquire(bytes);
  }

  /** Drops one storage's reference; the buffer returns to the pool at zero. */
  unref(buf: GpuBuffer): void {
    if (--buf.refs === 0) this.pool.release(buf, this.batchOpen);
  }

  /** Copies `bytes` from a buffer to the host (flushes the open batch). */
  async readBuffer(buffer: GPUBuffer, byteOffset: number, bytes: number): Promise<ArrayBuffer> {
    if (this.lost) throw this.lost;
    // A read inside a captured step: its value could steer the step, which a replay cannot follow.
    this.recorder?.refuse('it reads a tensor back to the host (toData, item, ...) while it runs');
    const stage = this.staging.acquire(bytes);
    this.commands().copyBufferToBuffer(buffer, byteOffset, stage, 0, bytes);
    const batch = this.batchFault;
    // The copy is ordered now; the submit comes at the end of this JS turn, so the reads asked for
    // together (a loss, a metric and a weight after a step) share one submit instead of one each.
    await this.submitted();
    try {
      await stage.mapAsync(MapMode.READ, 0, bytes);
    } catch (e) {
      stage.destroy();
      const why = e instanceof Error ? e.message || e.name : String(e);
      throw this.lost ?? new KernelError(`reading a GPU buffer failed: ${why}`, { op: 'toData', cause: e, hint: 'an AbortError means the device was destroyed while the read was pending' });
    }
    // The mapped range is detached by unmap: copy first.
    const copy = stage.getMappedRange(0, bytes).slice(0);
    stage.unmap();
    this.staging.release(stage);
    // A batch that failed as a whole (a submit that threw, a validation error, which voids every
    // command in it) did not run the copy either: the staging bytes are not the tensor's.
    if (batch) {
      await batch.done;
      if (batch.error) throw batch.error;
    }
    return copy;
  }

  memory(tensors: number): MemoryInfo {
    const s = this.pool.stats();
    return { device: this.options.deviceKey, tensors, bytes: s.liveBytes, pooledBytes: s.pooledBytes + this.staging.pooledBytes };
  }

  /**
   * Compiles `program` for the autotuner's trials, off the JavaScript thread: the pipeline is the
   * op path's own (same layout), so the winner is not compiled again when an op first runs it. A
   * synchronous compile took about 0.4 s per kernel on an H200 and stalled every op meanwhile;
   * asynchronous ones also run side by side (the tuner starts a bucket's variants at once).
   * Resolves when done (failures leave nothing: the trial then measures nothing).
   */
  compileForTrial(program: Program): Promise<void> {
    if (this.closing || this.lost) return Promise.resolve();
    const source = program.source();
    if (this.pipelines.has(source) || this.tried.has(source)) return Promise.resolve();
    const running = this.compiling.get(source);
    if (running) return running;
    const layout = this.layoutFor(program);
    const made = this.scoped(() => this.device.createShaderModule({ code: source, label: `${program.key} (autotune)` }));
    const done = (async (): Promise<void> => {
      try {
        const module = made.value;
        if (!module || (await made.failed)) return;
        const pipeline = await this.device.createComputePipelineAsync(this.pipelineDescriptor(program, module, layout.layout));
        if (this.closing || this.lost) return;
        if (this.tried.size >= TRIED_PIPELINES) dropOldest(this.tried, TRIED_PIPELINES / 4);
        this.tried.set(source, { pipeline, layout: layout.layout, layoutId: layout.id });
      } catch {
        // Does not compile here: the trial measures nothing.
      } finally {
        this.compiling.delete(source);
      }
    })();
    this.compiling.set(source, done);
    return done;
  }

  /**
   * Times `program` outside the op stream, on fresh buffers of `sizes` bytes: milliseconds per
   * dispatch (GPU timestamps where the device has them), or undefined where it does not compile
   * or run. For the autotuner: its failures never reach an op. Each group of device calls runs
   * synchronously inside its own error scopes, so an op batch's scopes (a stack shared with
   * this device) are never popped out of order.
   */
  async timeProgram(program: Program, sizes: readonly number[], params: Params, groups: readonly [number, number, number]): Promise<number | undefined> {
    if (this.closing || this.lost) return undefined;
    const device = this.device;
    await this.compileForTrial(program);
    const source = program.source();
    const chosen = this.pipelines.get(source) ?? this.tried.get(source);
    if (!chosen || this.closing || this.lost) return undefined;
    const made = this.scoped(() => {
      const buffers = sizes.map((size) => device.createBuffer({ size: Math.max(16, Math.ceil(size / 4) * 4), usage: BufferUsage.STORAGE }));
      const uniform = device.createBuffer({ size: PARAM_BYTES, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
      const words = new Uint32Array(PARAM_WORDS);
      words.set(params.words.slice(0, PARAM_WORDS));
      device.queue.writeBuffer(uniform, 0, words);
      const query = this.features.timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
      const resolved = query ? device.createBuffer({ size: 16, usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC }) : undefined;
      const readback = query ? device.createBuffer({ size: 16, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST }) : undefined;
      const bind = device.createBindGroup({
        layout: chosen.layout,
        entries: [...buffers.map((buffer, binding) => ({ binding, resource: { buffer } })), { binding: buffers.length, resource: { buffer: uniform, offset: 0, size: PARAM_BYTES } }],
      });
      return { buffers, uniform, query, resolved, readback, pipeline: chosen.pipeline, bind };
    });
    const r = made.value;
    const destroy = (): void => {
      if (!r) return;
      for (const b of r.buffers) b.destroy();
      r.uniform.destroy();
      r.query?.destroy();
      r.resolved?.destroy();
      r.readback?.destroy();
    };
    if (!r || (await made.failed)) {
      destroy();
      return undefined;
    }
    const run = async (reps: number): Promise<number | undefined> => {
      if (this.closing) return undefined;
      const submitted = this.scoped(() => {
        const enc = device.createCommandEncoder();
        const pass = enc.beginComputePass(r.query ? { timestampWrites: { querySet: r.query, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } } : {});
        pass.setPipeline(r.pipeline);
        pass.setBindGroup(0, r.bind, [0]);
        for (let i = 0; i < reps; i++) pass.dispatchWorkgroups(groups[0], groups[1], groups[2]);
        pass.end();
        if (r.query && r.resolved && r.readback) {
          enc.resolveQuerySet(r.query, 0, 2, r.resolved, 0);
          enc.copyBufferToBuffer(r.resolved, 0, r.readback, 0, 16);
        }
        device.queue.submit([enc.finish()]);
      });
      const t0 = performance.now();
      await device.queue.onSubmittedWorkDone();
      const wall = performance.now() - t0;
      if (await submitted.failed) return undefined;
      if (!r.readback) return wall / reps;
      await r.readback.mapAsync(MapMode.READ);
      const t = new BigUint64Array(r.readback.getMappedRange().slice(0));
      r.readback.unmap();
      const ns = Number(t[1]! - t[0]!);
      return ns > 0 ? ns / 1e6 / reps : wall / reps;
    };
    try {
      if ((await run(1)) === undefined) return undefined; // compile, warm up
      const once = await run(1);
      if (once === undefined) return undefined;
      return await run(Math.max(1, Math.min(20, Math.ceil(2 / Math.max(once, 1e-3)))));
    } catch {
      return undefined;
    } finally {
      destroy();
    }
  }

  /** Submits what is queued and destroys the device (its buffers go with it). */
  destroy(): void {
    if (this.closing) return;
    this.tuner.close();
    this.flush();
    this.closing = true;
    this.pool.clear();
    this.staging.clear();
    this.device.destroy();
  }

  /** Test hook: destroys the device as a driver reset would, without marking it closed. */
  simulateLoss(): void {
    this.device.destroy();
  }
}
