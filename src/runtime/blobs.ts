/**
 * Host data on its way into a 'fromData' record: the record carries a blob number (records stay
 * plain, serialisable data) and the executor takes the bytes from here exactly once.
 */
import { ArgumentError } from '../errors.js';
import type { TypedArray } from '../ir/dtype.js';

export class BlobStore {
  private readonly blobs = new Map<number, TypedArray>();
  private next = 1;

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
}
