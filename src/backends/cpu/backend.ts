/**
 * The CPU backend: typed arrays in shared memory, strided views, kernels inline or on a
 * Piscina worker pool. By default the kernels are SIMD WebAssembly and tensors live in one
 * shared `WebAssembly.Memory`; `kernels: 'js'` selects the JS reference kernels. `new Cpu()`
 * starts its worker threads in the background at once (under Node), so ops never wait for them.
 */
import { CpuDevice } from '../../devices/cpu.js';
import { ArgumentError, DeviceError } from '../../errors.js';
import { checkKeys, checkOptions, show } from '../../ir/validate.js';
import { isNode } from '../../platform.js';
import type { Device } from '../../devices/device.js';
import type { MemoryInfo } from '../../memory/info.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { ExecResult, Executor } from '../../scheduler/executor.js';
import { LocalBackend } from '../local.js';
import { PlainAllocator, SharedPoolAllocator, type Allocator } from './allocator.js';
import { CpuExecutor } from './executor.js';
import { kernelsFor, type KernelChoice } from './kernels/index.js';
import { CpuPool } from './pool.js';
import type { CpuStorage } from './storage.js';
import { createWasmHeap } from './wasm/heap.js';
import { wasmSimdSupported } from './wasm/module.js';

export interface CpuOptions {
  /** Worker threads (default: the machine's cores). 0 runs everything inline. */
  threads?: number;
  /**
   * Ops estimated below this many scalar operations run inline on the calling thread
   * (default 262144, measured by `npm run bench -- cpu`'s threshold sweep: the pool starts to
   * win at an add of 262144 floats and a 128^3 matmul on a 2-core machine).
   */
  inlineThreshold?: number;
  /** Where tensor memory comes from (default: pooled SharedArrayBuffers). */
  allocator?: Allocator;
  /** The device this backend owns (default `CpuDevice.Cpu`); a second Cpu in one Router needs another, e.g. `CpuDevice.named('cpu:1')`. */
  device?: CpuDevice;
  /** The runtime whose scheduler and ids this backend uses (default: this thread's). */
  runtime?: Runtime;
  /**
   * 'wasm' (the default where WebAssembly SIMD and SharedArrayBuffer exist): SIMD WebAssembly
   * kernels, relaxed SIMD (FMA) where the engine has it, tensors in one shared WebAssembly.Memory.
   * 'js': the JS reference kernels, tensors in pooled SharedArrayBuffers.
   */
  kernels?: KernelChoice;
  /**
   * Run ops above the inline threshold on a worker even when only one is free (default false:
   * one worker is no faster than the calling thread, which then runs the op itself). For a
   * thread that must stay free while its ops run, such as a data-parallel replica handing
   * gradients over during backward.
   */
  offload?: boolean;
}

export const DEFAULT_INLINE_THRESHOLD = 262144;

/** The longest elementwise chain the CPU runs faster as one fused JS loop than as wasm passes (measured: see fusesElementwise). */
const FUSED_CPU_ELEMENTS = 2048;

export class Cpu extends LocalBackend<CpuDevice, CpuStorage> {
  readonly name = 'cpu';
  readonly pool: CpuPool;
  readonly exec: CpuExecutor;
  readonly device: CpuDevice;
  /** The kernels this backend runs. */
  readonly kernels: KernelChoice;
  /** Whether the wasm kernels use relaxed SIMD (fused multiply-add); false with the JS kernels. */
  readonly relaxedSimd: boolean;
  /** Takes the ops submitted once close() has finished (see close()). */
  private closedExec: Executor<CpuStorage> | undefined;

  constructor(options: CpuOptions = {}) {
    // `?.`: an untyped null gets checkOptions' ArgumentError below, not a TypeError here.
    super(options?.runtime);
    checkOptions('Cpu', options);
    checkKeys('Cpu', options, ['threads', 'inlineThreshold', 'allocator', 'device', 'runtime', 'kernels', 'offload']);
    if (options.device !== undefined && !(CpuDevice.is(options.device) && typeof options.device.key === 'string')) {
      throw new ArgumentError(`device must be a CPU device tag (CpuDevice.Cpu, CpuDevice.named('cpu:1')), got ${show(options.device)}`, { op: 'Cpu' });
    }
    if (options.threads !== undefined && !(Number.isInteger(options.threads) && options.threads >= 0)) {
      throw new ArgumentError(`threads must be an integer >= 0, got ${show(options.threads)}`, { op: 'Cpu', hint: '0 runs every op inline; omit it for one thread per core' });
    }
    if (options.inlineThreshold !== undefined && !(typeof options.inlineThreshold === 'number' && options.inlineThreshold >= 0)) {
      throw new ArgumentError(`inlineThreshold must be a number >= 0, got ${show(options.inlineThreshold)}`, { op: 'Cpu' });
    }
    // Worker threads need Node and SharedArrayBuffer. Elsewhere (browsers) every op runs inline,
    // on plain ArrayBuffer memory where SharedArrayBuffer is missing (no cross-origin isolation).
    const shared = typeof SharedArrayBuffer !== 'undefined';
    const simd = wasmSimdSupported();
    this.kernels = options.kernels ?? (simd ? 'wasm' : 'js');
    if (this.kernels === 'wasm' && !simd) {
      throw new ArgumentError('the wasm CPU kernels need WebAssembly SIMD and SharedArrayBuffer, which this engine lacks', {
        op: 'Cpu',
        hint: "use new Cpu({ kernels: 'js' }); in a browser, serve the page cross-origin isolated (see the README's CPU kernels section)",
      });
    }
    const heap = this.kernels === 'wasm' ? createWasmHeap() : undefined;
    this.relaxedSimd = heap?.workerSetup.relaxed === true;
    const allocator = options.allocator ?? heap?.allocator ?? (shared ? new SharedPoolAllocator() : new PlainAllocator());
    this.pool = new CpuPool(shared && isNode() ? options.threads : 0, heap?.workerSetup ?? { kernels: 'js' });
    this.device = options.device ?? CpuDevice.Cpu;
    this.exec = new CpuExecutor(allocator, this.pool, { inlineThreshold: options.inlineThreshold ?? DEFAULT_INLINE_THRESHOLD, kernels: kernelsFor(this.kernels), offload: options.offload === true }, this.device.key);
    this.runtime.memory.register(this.device.key, this.exec);
    this.pool.warm();
  }

  get threads(): number {
    return this.pool.size;
  }

  defaultDevice(): CpuDevice {
    return this.device;
  }

  protected executor(): Executor<CpuStorage> {
    return this.closedExec ?? this.exec;
  }

  owns(device: Device): device is CpuDevice {
    return CpuDevice.is(device) && device.key === this.device.key;
  }

  deviceOf(key: string): CpuDevice | undefined {
    return key === this.device.key ? this.device : undefined;
  }

  /**
   * With the JS kernels, yes: the fused loop is generated JS, which beats five JS passes a little.
   * With the wasm kernels, only for chains over at most FUSED_CPU_ELEMENTS values: the JS loop loses
   * to five SIMD wasm passes by 8x on long ones (GELU on 16M floats: 658 ms against 79 ms, H200
   * host), but each pass has a fixed cost, and a short chain is mostly that (an Adam update of 16
   * values: 3.4x faster fused, 1.5x at 2048, even at 4096, 2x slower at 32768: `npm run bench --
   * fused-optim --cpu`, BENCHMARKS.md). So Fusion, which asks
   * without a size, leaves CPU records unfused; an optimizer fuses the updates of small parameters.
   */
  fusesElementwise(_device?: string, elements?: number): boolean {
    return this.kernels === 'js' || (elements !== undefined && elements <= FUSED_CPU_ELEMENTS);
  }

  memory(): MemoryInfo {
    return this.exec.memory();
  }

  /**
   * Waits for queued work, then stops the worker threads. Ops submitted afterwards fail when they
   * run with a DeviceError, as on a closed Wgpu (small ones would otherwise still run inline and
   * large ones fail on the stopped pool); tensors computed before stay readable (host memory).
   */
  async close(): Promise<void> {
    // Ops submitted while close() waits still run (as on Wgpu): close() waits for queued work.
    await this.flush();
    this.closedExec ??= closedExecutor(this.exec, this.device.key);
    // Ops submitted during the first wait may still be pending on the open executor: the pool must outlive them.
    await this.flush();
    this.runtime.memory.unregister(this.device.key, this.exec);
    await this.pool.close();
  }
}

/** The executor of a closed Cpu: every op fails; storages made before the close read and free as before. */
function closedExecutor(exec: CpuExecutor, deviceKey: string): Executor<CpuStorage> {
  return {
    deviceKey,
    host: true,
    execute(record): ExecResult<CpuStorage> {
      throw new DeviceError(`the CPU backend ${deviceKey} was closed`, { op: record.op, devices: [deviceKey], hint: 'create a new one (new Cpu()) for further ops; tensors computed before close() can still be read' });
    },
    read: (storage) => exec.read(storage),
    readInto: (storage, target, at) => exec.readInto(storage, target, at),
    release: (storage) => exec.release(storage),
  };
}
