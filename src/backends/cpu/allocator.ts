/**
 * Where CPU tensor memory comes from. Everything above this interface (storage, kernels, the
 * worker pool) sees only typed arrays over shared memory, so a later SIMD WebAssembly path can
 * hand out slices of one shared `WebAssembly.Memory` without touching any op.
 */
import { allocTyped, bytesPerElement, typedArrayFor, type DType, type TypedArray } from '../../ir/dtype.js';

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
  private readonly free_ = new Map<number, SharedArrayBuffer[]>();
  private liveBytes = 0;
  private pooledBytes = 0;
  private liveBuffers = 0;
  /** Pooled bytes above this are dropped to the garbage collector. */
  readonly maxPooledBytes: number;

  constructor(maxPooledBytes = 512 * 1024 * 1024) {
    this.maxPooledBytes = maxPooledBytes;
  }

  private static sizeClass(bytes: number): number {
    let c = 64;
    while (c < bytes) c *= 2;
    return c;
  }

  alloc(dtype: DType, length: number): TypedArray {
    const cls = SharedPoolAllocator.sizeClass(Math.max(1, length) * bytesPerElement(dtype));
    const list = this.free_.get(cls);
    let sab = list?.pop();
    if (sab) this.pooledBytes -= cls;
    else sab = new SharedArrayBuffer(cls);
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
    if (this.pooledBytes + cls > this.maxPooledBytes) return;
    let list = this.free_.get(cls);
    if (!list) this.free_.set(cls, (list = []));
    list.push(sab);
    this.pooledBytes += cls;
  }

  stats(): { liveBytes: number; pooledBytes: number; liveBuffers: number } {
    return { liveBytes: this.liveBytes, pooledBytes: this.pooledBytes, liveBuffers: this.liveBuffers };
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
