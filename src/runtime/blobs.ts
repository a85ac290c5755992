/**
 * Host data on its way into a 'fromData' record: the record carries a blob number (records stay
 * plain, serialisable data) and the executor takes the bytes from here exactly once.
 *
 * Large blobs are reused: an executor that copies a payload before it returns hands it back
 * (`recycle`), and the next `alloc` of that dtype and length takes it. A fresh large typed array
 * costs a page fault per 4 KiB on first write (a 2.7 MB upload took ~2 ms more that way than into
 * a warm array): weights uploaded every step pay it every step.
 */
import { ArgumentError } from '../errors.js';
import { allocTyped, type DType, type TypedArray } from '../ir/dtype.js';

/** Blobs below this many bytes are not kept (small allocations are cheap). */
const MIN_POOLED_BYTES = 64 * 1024;
/** At most this many bytes of blobs are kept for reuse. */
const POOL_BYTES = 32 * 1024 * 1024;

export class BlobStore {
  private readonly blobs = new Map<number, TypedArray>();
  private next = 1;
  /** Reusable arrays by dtype and length, oldest first. */
  private readonly free = new Map<string, TypedArray[]>();
  private freeBytes = 0;

  put(data: TypedArray): number {
    const id = this.next++;
    this.blobs.set(id, data);
    return id;
  }

  /** Removes and returns a blob. */
  take(id: number): TypedArray {
    const data = this.blobs.get(id);
    if (data === undefined) throw new ArgumentError(`blob #${id} is unknown or was already used`, { op: 'fromData', hint: 'a fromData record runs once; build a new one to upload again' });
    this.blobs.delete(id);
    return data;
  }

  /** Drops a blob whose record was never submitted. */
  drop(id: number): void {
    this.blobs.delete(id);
  }

  get size(): number {
    return this.blobs.size;
  }

  /** An array for a new blob of `length` values of `dtype` (its contents are not cleared). */
  alloc(dtype: DType, length: number): TypedArray {
    const list = this.free.get(`${dtype}:${length}`);
    const reused = list?.pop();
    if (reused) {
      this.freeBytes -= reused.byteLength;
      return reused;
    }
    return allocTyped(dtype, length);
  }

  /** Takes back a payload its executor has copied (nothing else may hold it). */
  recycle(data: TypedArray, dtype: DType): void {
    if (data.byteLength < MIN_POOLED_BYTES || data.byteLength > POOL_BYTES || data.byteOffset !== 0 || data.byteLength !== data.buffer.byteLength) return;
    while (this.freeBytes + data.byteLength > POOL_BYTES) this.evictOne();
    const key = `${dtype}:${data.length}`;
    let list = this.free.get(key);
    if (!list) this.free.set(key, (list = []));
    list.push(data);
    this.freeBytes += data.byteLength;
  }

  /** Bytes held for reuse. */
  get pooledBytes(): number {
    return this.freeBytes;
  }

  private evictOne(): void {
    for (const [key, list] of this.free) {
      const gone = list.shift();
      if (list.length === 0) this.free.delete(key);
      if (gone) {
        this.freeBytes -= gone.byteLength;
        return;
      }
    }
    this.freeBytes = 0;
  }
}
