/**
 * The WebGPU backend: WGSL kernels for the whole op set on any WebGPU adapter (Dawn in Node,
 * `navigator.gpu` in browsers). `new Wgpu()` requests nothing until the first op runs;
 * `await Wgpu.create()` initialises the default device at once, so a missing adapter fails
 * there with a DeviceError that says what to install.
 */
import type { TensorRef } from '../backend.js';
import type { TypedArray } from '../../ir/dtype.js';
import type { Device } from '../../devices/device.js';
import { WgpuDevice } from '../../devices/wgpu.js';
import { ArgumentError } from '../../errors.js';
import { checkInteger, checkKeys, checkOptions, show } from '../../ir/validate.js';
import type { MemoryInfo } from '../../memory/info.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { Executor } from '../../scheduler/executor.js';
import { parseInnerDevice } from '../../router/parse.js';
import { LocalBackend } from '../local.js';
import { defaultAdapterSource, type AdapterSource, type RequestAdapter } from './adapter.js';
import { WgpuExecutor } from './executor.js';
import type { KernelTime } from './kernel-time.js';
import type { MatmulKind, MatmulTile } from './wgsl/matmul.js';
import { MATMUL_PRECISIONS, type MatmulPrecision } from './precision.js';
import type { OpRecord } from '../../ir/ops.js';

export interface WgpuOptions {
  /** The device `zeros(wgpu, ...)` and friends use when none is given (default WgpuDevice.Default). */
  device?: WgpuDevice;
  /**
   * @internal Where adapters come from (default: navigator.gpu, or Dawn in Node). Tests inject
   * one here; kept out of the published types so they need no WebGPU type declarations.
   */
  requestAdapter?: RequestAdapter;
  /** Dispatches per command buffer before a submit (default 128). */
  batchSize?: number;
  /** 'naive' runs the 16 x 16 baseline matmul (for benchmarks). */
  matmul?: MatmulKind;
  /** A fixed matmul tile; by default one is chosen per problem size. */
  matmulTile?: MatmulTile;
  /**
   * float32 matmul precision (default 'highest': f32 arithmetic). 'high' and 'medium' let
   * float32 matmuls run on the GPU's tensor cores where the adapter offers them (README, section
   * "Matmul precision and tensor cores"); elsewhere they compute in f32.
   */
  matmulPrecision?: MatmulPrecision;
  /**
   * Kernel autotuning (default: on for hardware GPUs, off for software adapters such as
   * lavapipe, whose timings follow the CPU's load): the first matmul of each shape bucket times the kernel
   * variants in the background and later ones use the fastest; winners are cached per adapter in
   * ~/.cache/switchyard (or $XDG_CACHE_HOME). `false` keeps the built-in choices (no trials: the
   * fastest start); `{ file }` names the cache file, `{ file: null }` keeps it in memory.
   */
  autotune?: boolean | { readonly file?: string | null };
  /** The runtime whose scheduler and ids this backend uses (default: this thread's). */
  runtime?: Runtime;
}

/** The adapter behind a device, as `GPUAdapterInfo` describes it (a plain copy). */
export interface AdapterInfo {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
}

// The storage type stays opaque (unknown) in the class's declared types, so the published
// declarations never name WebGPU types and type-check without @webgpu/types or the DOM lib.
export class Wgpu extends LocalBackend<WgpuDevice, unknown> {
  readonly name = 'wgpu';
  private readonly executors = new Map<string, WgpuExecutor>();
  /** Set by close(): devices met afterwards start closed. */
  private closed = false;
  /** Reads asked for and not settled: close() lets them finish before it destroys the devices. */
  private readonly reading = new Set<Promise<TypedArray>>();
  private readonly source: AdapterSource | undefined;
  private readonly requestAdapter: RequestAdapter;
  private readonly defaultDev: WgpuDevice;
  private readonly batchSize: number;
  private readonly matmulKind: MatmulKind;
  private readonly tile: MatmulTile | undefined;
  private readonly precision: MatmulPrecision;
  private readonly autotune: boolean | { readonly file?: string | null } | undefined;

  constructor(options: WgpuOptions = {}) {
    // `?.`: an untyped null gets checkOptions' ArgumentError below, not a TypeError here.
    super(options?.runtime);
    checkOptions('Wgpu', options);
    checkKeys('Wgpu', options, ['device', 'requestAdapter', 'batchSize', 'matmul', 'matmulTile', 'matmulPrecision', 'autotune', 'runtime']);
    if (options.device !== undefined && !WgpuDevice.is(options.device)) {
      throw new ArgumentError(`device must be a WgpuDevice tag (WgpuDevice.Default, DiscreteGpu(i), ...), got ${show(options.device)}`, { op: 'Wgpu' });
    }
    if (options.batchSize !== undefined) checkInteger('Wgpu', 'batchSize', options.batchSize, 1);
    if (options.matmul !== undefined && options.matmul !== 'tiled' && options.matmul !== 'naive') {
      throw new ArgumentError(`matmul must be 'tiled' or 'naive', got ${show(options.matmul)}`, { op: 'Wgpu' });
    }
    if (options.matmulTile !== undefined) checkMatmulTile(options.matmulTile);
    if (options.matmulPrecision !== undefined && !MATMUL_PRECISIONS.includes(options.matmulPrecision)) {
      throw new ArgumentError(`matmulPrecision must be one of ${MATMUL_PRECISIONS.map((p) => `'${p}'`).join(', ')}, got ${show(options.matmulPrecision)}`, { op: 'Wgpu' });
    }
    this.defaultDev = options.device ?? WgpuDevice.Default;
    if (options.requestAdapter) this.requestAdapter = options.requestAdapter;
    else {
      this.source = defaultAdapterSource();
      this.requestAdapter = this.source.requestAdapter;
    }
    this.batchSize = options.batchSize ?? 128;
    this.matmulKind = options.matmul ?? 'tiled';
    this.tile = options.matmulTile;
    this.precision = options.matmulPrecision ?? 'highest';
    if (options.autotune !== undefined && typeof options.autotune !== 'boolean') {
      const file: unknown = typeof options.autotune === 'object' && options.autotune !== null ? options.autotune.file : 0;
      if (file !== undefined && file !== null && typeof file !== 'string') {
        throw new ArgumentError(`autotune must be true, false or { file: string | null }, got ${show(options.autotune)}`, { op: 'Wgpu' });
      }
    }
    this.autotune = options.autotune;
  }

  /** A backend whose default device is ready (rejects with a DeviceError when there is no adapter). */
  static async create(options: WgpuOptions = {}): Promise<Wgpu> {
    const w = new Wgpu(options);
    try {
      await w.init();
    } catch (e) {
      await w.close();
      throw e;
    }
    return w;
  }

  /** Initialises a device now (otherwise its first op does). */
  async init(device: WgpuDevice = this.defaultDev): Promise<void> {
    await this.exec(device).ready();
  }

  /** The adapter behind an initialised device: vendor, architecture, description. */
  async adapterInfo(device: WgpuDevice = this.defaultDev): Promise<AdapterInfo> {
    const { vendor, architecture, device: name, description } = (await this.exec(device).ready()).adapterInfo;
    return { vendor, architecture, device: name, description };
  }

  /** Optional GPU features of an initialised device: f16 shaders, tensor cores through subgroup matrices, GPU timestamps (kernel profiling). */
  async features(device: WgpuDevice = this.defaultDev): Promise<{ readonly f16: boolean; readonly tensorCores: boolean; readonly timestamps: boolean }> {
    const { f16, tensorCores, timestamps } = (await this.exec(device).ready()).features;
    return { f16, tensorCores, timestamps };
  }

  /**
   * Waits for the kernel trials started so far and returns the tuned table of a device (shape
   * bucket -> variant). Benchmarks call it after a warm-up so that timed runs use the winners.
   */
  async autotuned(device: WgpuDevice = this.defaultDev): Promise<Record<string, string>> {
    const ctx = await this.exec(device).ready();
    await ctx.tuner.idle();
    return ctx.tuner.entries();
  }

  /**
   * Starts timing every kernel a device runs, with GPU timestamps (each dispatch in a pass of its
   * own, so totals run slightly above unprofiled time); `stopKernelProfile` returns the table.
   * Throws a DeviceError where the adapter has no 'timestamp-query'.
   */
  async startKernelProfile(device: WgpuDevice = this.defaultDev): Promise<void> {
    (await this.exec(device).ready()).startKernelProfile();
  }

  /** Stops timing kernels: per kernel (program key), its calls and GPU time, the costliest first. */
  async stopKernelProfile(device: WgpuDevice = this.defaultDev): Promise<KernelTime[]> {
    return (await this.exec(device).ready()).stopKernelProfile();
  }

  defaultDevice(): WgpuDevice {
    return this.defaultDev;
  }

  /** @internal The executor of a device (tests and benchmarks reach the GPU context through it). */
  exec(device: WgpuDevice): WgpuExecutor {
    let e = this.executors.get(device.key);
    if (!e) {
      e = new WgpuExecutor(device, { requestAdapter: this.requestAdapter, batchSize: this.batchSize, matmul: { kind: this.matmulKind, tile: this.tile, precision: this.precision }, ...(this.autotune === undefined ? {} : { autotune: this.autotune }) });
      this.executors.set(device.key, e);
      this.runtime.memory.register(device.key, e);
      // A device first met after close(): closed too, so its ops fail instead of opening a GPU no close() would release.
      if (this.closed) e.close();
    }
    return e;
  }

  override read(t: TensorRef): Promise<TypedArray> {
    const p = super.read(t);
    this.reading.add(p);
    const done = (): void => {
      this.reading.delete(p);
    };
    p.then(done, done);
    return p;
  }

  /** A float16 op on a device without 'shader-f16' fails here, at the call, once the device is up (before, at its first op). */
  override submit(record: OpRecord): void {
    const device = this.deviceOf(record.device);
    if (device) this.exec(device).check(record);
    super.submit(record);
  }

  protected executor(device: WgpuDevice): Executor<unknown> {
    return this.exec(device);
  }

  owns(device: Device): device is WgpuDevice {
    return WgpuDevice.is(device);
  }

  deviceOf(key: string): WgpuDevice | undefined {
    const known = this.executors.get(key);
    if (known) return known.device;
    const d = key === this.defaultDev.key ? this.defaultDev : parseInnerDevice('wgpu', key);
    return d && WgpuDevice.is(d) && d.key === key ? d : undefined;
  }

  memory(device: WgpuDevice = this.defaultDev): MemoryInfo {
    return this.exec(device).memory();
  }

  /**
   * Waits for queued work and the reads already asked for, then releases every device, so a Node
   * process can exit by itself. Later calls fail with a DeviceError (the device was closed).
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    // Counted from the call (the read itself starts once its op has run): no timer involved.
    while (this.reading.size > 0) await Promise.allSettled([...this.reading]);
    for (const e of this.executors.values()) {
      e.close();
      this.runtime.memory.unregister(e.deviceKey, e);
    }
    this.source?.release();
  }
}

/** A fixed tile's fields: positive integers (an untyped caller's typo otherwise reaches the shader compiler). */
function checkMatmulTile(tile: unknown): void {
  if (typeof tile !== 'object' || tile === null) throw new ArgumentError(`matmulTile must be an object { wx, wy, tm, tn, bk }, got ${show(tile)}`, { op: 'Wgpu' });
  const field = (k: string): unknown => Reflect.get(tile, k);
  for (const k of ['wx', 'wy', 'tm', 'tn', 'bk']) checkInteger('Wgpu', `matmulTile.${k}`, field(k), 1, 256);
  if (field('splitK') !== undefined) checkInteger('Wgpu', 'matmulTile.splitK', field('splitK'), 1, 64);
  if (field('program') !== undefined && field('program') !== 'vec4') throw new ArgumentError(`matmulTile.program must be 'vec4' or absent, got ${show(field('program'))}`, { op: 'Wgpu' });
}
