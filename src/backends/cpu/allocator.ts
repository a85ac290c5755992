/**
 * Where CPU tensor memory comes from. Everything above this interface (storage, kernels, the
 * worker pool) sees only typed arrays over shared memory: pooled SharedArrayBuffers for the JS
 * kernels, slices of one shared `WebAssembly.Memory` for the SIMD wasm kernels.
 */
import { allocTyped, bytesPerElement, typedArrayFor, type DType, type TypedArray } from '../../ir/dtype.js';
import { FreeLists } from '../../memory/free-lists.js';
import { PAGE, type WasmRuntime } from './wasm/runtime.js';

export interface Allocator {
  /** A typed array of `length` elements over shared memory (contents unspecified). */
  alloc(dtype: DType, length: number): TypedArray;
  /** Returns memory from `alloc` for reuse. */
  free(array: TypedArray): void;
  /** Bytes handed out and not yet freed; bytes parked for reuse. */
  stats(): { liveBytes: number; pooledBytes: number; liveBuffers: number };
}

/** Size classes are powers of two of at least 64 bytes; freed buffers wait in per-class free lists. */
export class SharedPoolAllocator implements Allocator {
  /** Past the bound, the buffers freed longest ago are dropped to the garbage collector. */
  private readonly free_: FreeLists<SharedArrayBuffer>;
  private liveBytes = 0;
  private liveBuffers = 0;
  /** Pooled bytes kept at most. */
  readonly maxPooledBytes: number;

  constructor(maxPooledBytes = 512 * 1024 * 1024) {
    this.maxPooledBytes = maxPooledBytes;
    this.free_ = new FreeLists<SharedArrayBuffer>(maxPooledBytes, () => undefined);
  }

  private static sizeClass(bytes: number): number {
    let c = 64;
    while (c < bytes) c *= 2;
    return c;
  }

  alloc(dtype: DType, length: number): TypedArray {
    const cls = SharedPoolAllocator.sizeClass(Math.max(1, length) * bytesPerElement(dtype));
    const sab = this.free_.take(cls) ?? new SharedArrayBuffer(cls);
    this.liveBytes += cls;
    this.liveBuffers++;
    return typedArrayFor(dtype, sab, 0, length);
  }

  free(array: TypedArray): void {
    const sab = array.buffer;
    if (!(sab instanceof SharedArrayBuffer)) return;
    const cls = sab.byteLength;
    this.liveBytes -= cls;
    this.liveBuffers--;
    this.free_.put(sab, cls);
  }

  stats(): { liveBytes: number; pooledBytes: number; liveBuffers: number } {
    return { liveBytes: this.liveBytes, pooledBytes: this.free_.bytes, liveBuffers: this.liveBuffers };
  }
}

/** Plain (non-shared) arrays, for environments without SharedArrayBuffer (browsers without cross-origin isolation). */
export class PlainAllocator implements Allocator {
  private live = 0;
  private buffers = 0;
  alloc(dtype: DType, length: number): TypedArray {
    this.live += Math.max(1, length) * bytesPerElement(dtype);
    this.buffers++;
    return allocTyped(dtype, length);
  }
  free(array: TypedArray): void {
    this.live -= Math.max(1, array.length) * array.BYTES_PER_ELEMENT;
    this.buffers--;
  }
  stats(): { liveBytes: number; pooledBytes: number; liveBuffers: number } {
    return { liveBytes: this.live, pooledBytes: 0, liveBuffers: this.buffers };
  }
}

/** Size classes of the wasm heap: four per power of two (at most 25% slack), multiples of 64 bytes. */
export function heapSizeClass(bytes: number): number {
  if (bytes <= 64) return 64;
  const p = 2 ** Math.floor(Math.log2(bytes - 1));
  const step = Math.max(64, p / 4);
  return Math.ceil(bytes / step) * step;
}

/** How much the heap grows the memory by at once (pages are committed by the OS on first touch). */
const CHUNK_BYTES = 32 * 1024 * 1024;

/**
 * Tensors in one shared `WebAssembly.Memory`, so the SIMD kernels (on this thread or a worker)
 * address them directly. Freed blocks wait in per-size-class free lists and are reused; a wasm
 * memory cannot shrink, so the heap keeps its high-water mark until the backend is dropped. Past
 * wasm32's 4 GiB, tensors go to plain SharedArrayBuffers (and their ops to the JS kernels).
 */
export class WasmHeapAllocator implements Allocator {
  private readonly free_ = new Map<number, number[]>();
  /** Live block address -> size class. */
  private readonly live = new Map<number, number>();
  private bump = 0;
  private end = 0;
  private liveBytes = 0;
  private pooledBytes = 0;
  private readonly overflow = new SharedPoolAllocator();

  constructor(readonly runtime: WasmRuntime) {}

  private carve(cls: number): number | undefined {
    if (this.bump + cls > this.end) {
      let pages = Math.ceil(Math.max(cls, CHUNK_BYTES) / PAGE);
      let at: number;
      try {
        at = this.runtime.grow(pages);
      } catch {
        // Near 4 GiB (or the OS refused): the smallest growth that fits, else give up.
        try {
          pages = Math.ceil(cls / PAGE);
          at = this.runtime.grow(pages);
        } catch {
          return undefined;
        }
      }
      // Contiguous with the current chunk (no other thread grew meanwhile): extend it.
      if (at !== this.end) this.bump = at;
      this.end = at + pages * PAGE;
    }
    const addr = this.bump;
    this.bump += cls;
    return addr;
  }

  alloc(dtype: DType, length: number): TypedArray {
    const cls = heapSizeClass(Math.max(1, length) * bytesPerElement(dtype));
    let addr = this.free_.get(cls)?.pop();
    if (addr !== undefined) this.pooledBytes -= cls;
    else addr = this.carve(cls);
    if (addr === undefined) return this.overflow.alloc(dtype, length);
    this.live.set(addr, cls);
    this.liveBytes += cls;
    return this.runtime.view(dtype, addr, length);
  }

  free(array: TypedArray): void {
    const addr = this.runtime.addressOf(array);
    const cls = addr === undefined ? undefined : this.live.get(addr);
    if (addr === undefined || cls === undefined) {
      this.overflow.free(array);
      return;
    }
    this.live.delete(addr);
    this.liveBytes -= cls;
    let list = this.free_.get(cls);
    if (!list) this.free_.set(cls, (list = []));
    list.push(addr);
    this.pooledBytes += cls;
  }

  stats(): { liveBytes: number; pooledBytes: number; liveBuffers: number } {
    const o = this.overflow.stats();
    return { liveBytes: this.liveBytes + o.liveBytes, pooledBytes: this.pooledBytes + o.pooledBytes, liveBuffers: this.live.size + o.liveBuffers };
  }
}
