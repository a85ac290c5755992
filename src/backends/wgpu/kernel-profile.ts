/**
 * GPU time per kernel, from timestamp queries: while profiling, every dispatch runs in a compute
 * pass of its own whose beginning and end are timestamped; after each submit the batch's
 * timestamps are read back and summed per kernel (program key). Separate passes cost a little
 * GPU time each, so totals run slightly above an unprofiled step; the ranking is what it is for.
 */
import { BufferUsage, MapMode } from './flags.js';
import type { KernelTime } from './kernel-time.js';


interface Pending {
  readonly query: GPUQuerySet;
  readonly keys: string[];
}

export class KernelProfiler {
  private readonly totals = new Map<string, { calls: number; ns: number }>();
  private open: Pending | undefined;
  private readonly readbacks = new Set<Promise<void>>();

  /** `pairs`: the most dispatches one batch holds (the context's parameter arena bounds a batch). */
  constructor(
    private readonly device: GPUDevice,
    private readonly pairs: number,
  ) {}

  /** The timestamp writes of the next dispatch's own pass. */
  timestampWrites(key: string): GPUComputePassTimestampWrites {
    this.open ??= { query: this.device.createQuerySet({ type: 'timestamp', count: 2 * this.pairs }), keys: [] };
    const k = this.open.keys.length;
    this.open.keys.push(key);
    return { querySet: this.open.query, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 };
  }

  /**
   * Called with the batch's encoder before it is finished: resolves the batch's timestamps into a
   * readable buffer. The returned function, called after the submit, reads them back.
   */
  resolve(enc: GPUCommandEncoder): (() => void) | undefined {
    const batch = this.open;
    this.open = undefined;
    if (!batch || batch.keys.length === 0) {
      batch?.query.destroy();
      return undefined;
    }
    const bytes = batch.keys.length * 16;
    const resolved = this.device.createBuffer({ size: bytes, usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC });
    const readback = this.device.createBuffer({ size: bytes, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
    enc.resolveQuerySet(batch.query, 0, 2 * batch.keys.length, resolved, 0);
    enc.copyBufferToBuffer(resolved, 0, readback, 0, bytes);
    return () => {
      const done = readback
        .mapAsync(MapMode.READ)
        .then(
          () => {
            const t = new BigUint64Array(readback.getMappedRange().slice(0));
            readback.unmap();
            batch.keys.forEach((key, k) => {
              const ns = Number(t[2 * k + 1]! - t[2 * k]!);
              const e = this.totals.get(key) ?? { calls: 0, ns: 0 };
              e.calls++;
              // A pass the driver did not time reads 0 (or wraps): counted, not timed.
              if (ns > 0 && ns < 1e12) e.ns += ns;
              this.totals.set(key, e);
            });
          },
          () => undefined, // a lost device: nothing to add
        )
        .finally(() => {
          batch.query.destroy();
          resolved.destroy();
          readback.destroy();
          this.readbacks.delete(done);
        });
      this.readbacks.add(done);
    };
  }

  /** The kernels timed so far, the costliest first, once every submitted batch has been read. */
  async report(): Promise<KernelTime[]> {
    await Promise.all([...this.readbacks]);
    return [...this.totals]
      .map(([kernel, { calls, ns }]) => ({ kernel, calls, totalMs: ns / 1e6, meanUs: calls > 0 ? ns / 1e3 / calls : 0 }))
      .sort((a, b) => b.totalMs - a.totalMs);
  }
}
