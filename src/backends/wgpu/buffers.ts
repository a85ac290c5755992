/**
 * GPU memory by size class. Freed buffers are reused for later tensors of the same class.
 * A buffer freed while a batch is still being encoded may take kernel writes of that batch
 * at once (dispatches run in order), but not an upload: `queue.writeBuffer` runs ahead of
 * unsubmitted commands and could overwrite values the batch has yet to read.
 */
import { FreeLists } from '../../memory/free-lists.js';
import { BufferUsage } from './flags.js';

export interface GpuBuffer {
  readonly gpu: GPUBuffer;
  /** The size class (bytes actually allocated). */
  readonly size: number;
  /** Storages (tensors and views) that point into this buffer. */
  refs: number;
}

const MIN_CLASS = 256;
const POW2_UP_TO = 1 << 20;

/** Powers of two up to 1 MiB, then eighths of a power of two (at most 12.5% slack). */
export function sizeClass(bytes: number, max = Number.MAX_SAFE_INTEGER): number {
  let c: number;
  if (bytes <= MIN_CLASS) c = MIN_CLASS;
  else {
    const p = 2 ** Math.ceil(Math.log2(bytes));
    c = p <= POW2_UP_TO ? p : Math.ceil(bytes / (p / 8)) * (p / 8);
  }
  return c <= max ? c : Math.ceil(bytes / 16) * 16;
}

export class BufferPool {
  /** Freed buffers by size class; past the bound the longest-freed are destroyed (see drop). */
  private readonly free: FreeLists<GPUBuffer>;
  /** Buffers freed while a batch is open: reusable by kernels of the batch, not by uploads. */
  private readonly freedInBatch = new Set<GPUBuffer>();
  /** Freed in the open batch past the pooling bound: destroyed once the batch is submitted. */
  private doomed: GPUBuffer[] = [];
  private liveBytes = 0;
  liveBuffers = 0;
  /** Buffers a captured step replays into, with how many captured steps hold each (see pin). */
  private readonly pins = new Map<GPUBuffer, number>();
  /** Pinned buffers no storage points into any more: returned when their last pin goes. */
  private readonly parked = new Map<GPUBuffer, GpuBuffer>();
  /** Told of every buffer handed out (a step being recorded: what it made, not what it read). */
  onAcquire: ((gpu: GPUBuffer) => void) | undefined;

  constructor(
    private readonly device: GPUDevice,
    private readonly usage: number,
    /** The largest buffer one binding may cover. */
    private readonly maxClass: number,
    maxPooledBytes: number,
  ) {
    this.free = new FreeLists<GPUBuffer>(maxPooledBytes, (b) => this.drop(b));
  }

  /** Destroys a buffer the pool lets go; one freed in the open batch once the batch is submitted (its commands may use it). */
  private drop(b: GPUBuffer): void {
    if (this.freedInBatch.delete(b)) this.doomed.push(b);
    else b.destroy();
  }

  static forTensors(device: GPUDevice, maxBinding: number, maxPooledBytes = 1 << 30): BufferPool {
    return new BufferPool(device, BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST, maxBinding, maxPooledBytes);
  }

  /**
   * Buffers freed and handed out again inside the open batch. Dispatches in one batch run in
   * order, so a kernel may write such a buffer; a queue upload may not (it would run before
   * the batch's earlier readers): `upload` submits the batch first for these.
   */
  readonly reusedInBatch = new Set<GPUBuffer>();

  /**
   * The most recently freed buffer of the size class first, whether or not its batch is
   * submitted: a loop that repeats the same ops then gets the same buffers in the same roles
   * each time, so its bind groups repeat (and are cached).
   */
  acquire(bytes: number): GpuBuffer {
    const size = sizeClass(Math.max(bytes, 4), this.maxClass);
    let gpu = this.free.take(size);
    if (gpu) {
      if (this.freedInBatch.delete(gpu)) this.reusedInBatch.add(gpu);
    } else gpu = this.device.createBuffer({ size, usage: this.usage });
    this.liveBytes += size;
    this.liveBuffers++;
    this.onAcquire?.(gpu);
    return { gpu, size, refs: 1 };
  }

  /**
   * Keeps a buffer out of the pool while a captured step holds it: its replays write it (the
   * step's intermediates) or read it (its inputs and state), whether or not a storage still
   * points into it. Balanced by `unpin`.
   */
  pin(gpu: GPUBuffer): void {
    this.pins.set(gpu, (this.pins.get(gpu) ?? 0) + 1);
  }

  /** Drops one pin; a buffer whose storages are gone returns to the pool with its last pin. */
  unpin(gpu: GPUBuffer, batchOpen: boolean): void {
    const n = this.pins.get(gpu);
    if (n === undefined) return;
    if (n > 1) {
      this.pins.set(gpu, n - 1);
      return;
    }
    this.pins.delete(gpu);
    const parked = this.parked.get(gpu);
    if (parked) {
      this.parked.delete(gpu);
      this.release(parked, batchOpen);
    }
  }

  /** Whether a pinned buffer has no storage pointing into it any more (its tensors were freed). */
  isParked(gpu: GPUBuffer): boolean {
    return this.parked.has(gpu);
  }

  /** Returns a buffer no storage points into. `batchOpen`: commands that may read it are not submitted yet. */
  release(buf: GpuBuffer, batchOpen: boolean): void {
    if (this.pins.has(buf.gpu)) {
      // Still live for the captured steps that hold it (counted as live memory until unpinned).
      this.parked.set(buf.gpu, buf);
      return;
    }
    this.liveBytes -= buf.size;
    this.liveBuffers--;
    // Destroying a buffer that unsubmitted commands use would invalidate the batch (see drop).
    if (batchOpen) this.freedInBatch.add(buf.gpu);
    this.free.put(buf.gpu, buf.size);
  }

  /** Called after each submit: buffers freed during the batch may now take uploads too. */
  commit(): void {
    this.reusedInBatch.clear();
    this.freedInBatch.clear();
    const doomed = this.doomed;
    this.doomed = [];
    for (const b of doomed) b.destroy();
  }

  stats(): { liveBytes: number; pooledBytes: number } {
    return { liveBytes: this.liveBytes, pooledBytes: this.free.bytes };
  }

  /** Destroys the parked buffers (live ones belong to tensors; the device's destroy frees them). */
  clear(): void {
    this.freedInBatch.clear();
    this.free.clear();
  }
}

/** Staging buffers (MAP_READ) for readback, by size class; one mapAsync per buffer at a time. */
export class StagingPool {
  private readonly free: FreeLists<GPUBuffer>;

  constructor(
    private readonly device: GPUDevice,
    maxPooledBytes = 64 << 20,
  ) {
    this.free = new FreeLists<GPUBuffer>(maxPooledBytes, (b) => b.destroy());
  }

  acquire(bytes: number): GPUBuffer {
    const size = sizeClass(Math.max(bytes, 4));
    return this.free.take(size) ?? this.device.createBuffer({ size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
  }

  /** Takes back an unmapped staging buffer. */
  release(b: GPUBuffer): void {
    this.free.put(b, b.size);
  }

  get pooledBytes(): number {
    return this.free.bytes;
  }

  clear(): void {
    this.free.clear();
  }
}
