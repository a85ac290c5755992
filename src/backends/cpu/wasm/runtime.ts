/**
 * One thread's instance of the kernel module on one shared `WebAssembly.Memory`. The memory holds
 * the CPU backend's tensors; typed arrays over it are registered here, so a kernel given views
 * finds the instance (and the byte addresses) from the arrays alone. Each runtime owns a scratch
 * region for packed matmul panels, taken with `memory.grow` (which hands every caller a disjoint
 * range, so threads need no coordination).
 */
import './globals.js';
import { bytesPerElement, typedArrayFor, type DType, type TypedArray } from '../../../ir/dtype.js';
import { MATMUL_SCRATCH } from './matmul-gen.js';
import type { KernelModule } from './module.js';

export const PAGE = 65536;
/** wasm32's limit: 65536 pages, 4 GiB. */
export const MAX_PAGES = 65536;

type Fn = (...args: number[]) => void;

export interface KernelExports {
  readonly mm_packA: Fn;
  readonly mm_packB: Fn;
  readonly mm_macro: Fn;
  readonly sm_rows: Fn;
  /** Reductions and elementwise functions by export name (`rd_sum_rows`, `ew|float32>float32|Math.exp(a)`, ...). */
  readonly byName: ReadonlyMap<string, Fn>;
}

const registry = new WeakMap<ArrayBufferLike, WasmRuntime>();

/** The runtime whose memory `data` lives in (on this thread), if any. */
export function runtimeOf(data: TypedArray): WasmRuntime | undefined {
  return registry.get(data.buffer);
}

export class WasmRuntime {
  readonly exports: KernelExports;
  /** Byte address of this thread's scratch region (MATMUL_SCRATCH bytes, 16-aligned). */
  readonly scratch: number;
  private buf: ArrayBufferLike;

  constructor(
    readonly memory: WebAssembly.Memory,
    readonly kernels: KernelModule,
  ) {
    const instance = new WebAssembly.Instance(kernels.module, { env: { memory } });
    const byName = new Map<string, Fn>();
    for (const [name, value] of Object.entries(instance.exports)) if (typeof value === 'function') byName.set(name, value as Fn);
    const get = (n: string): Fn => {
      const fn = byName.get(n);
      if (!fn) throw new Error(`the CPU kernel module has no export ${n}`);
      return fn;
    };
    this.exports = { mm_packA: get('mm_packA'), mm_packB: get('mm_packB'), mm_macro: get('mm_macro'), sm_rows: get('sm_rows'), byName };
    this.scratch = this.grow(Math.ceil(MATMUL_SCRATCH / PAGE));
    this.buf = this.refresh();
  }

  /** Grows the memory by `pages`; returns the byte address of the new range (throws RangeError past 4 GiB). */
  grow(pages: number): number {
    const old = this.memory.grow(pages);
    return old * PAGE;
  }

  private refresh(): ArrayBufferLike {
    this.buf = this.memory.buffer;
    registry.set(this.buf, this);
    return this.buf;
  }

  /** A typed array of `length` elements at byte address `addr`. */
  view(dtype: DType, addr: number, length: number): TypedArray {
    const end = addr + length * bytesPerElement(dtype);
    const buf = end <= this.buf.byteLength ? this.buf : this.refresh();
    return typedArrayFor(dtype, buf, addr, length);
  }

  /** The byte address of `data` in this memory, or undefined when it lives elsewhere. */
  addressOf(data: TypedArray): number | undefined {
    return registry.get(data.buffer) === this ? data.byteOffset : undefined;
  }
}
