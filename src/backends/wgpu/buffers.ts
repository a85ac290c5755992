/**
 * GPU memory by size class. Freed buffers are reused for later tensors of the same class.
 * Buffers freed while a batch is still being encoded wait until that batch is submitted:
 * `queue.writeBuffer` runs ahead of unsubmitted commands, so handing such a buffer to a
 * `fromData` at once could overwrite values the batch has yet to read.
 */
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
  private readonly free = new Map<number, GPUBuffer[]>();
  private waiting: GpuBuffer[] = [];
  private liveBytes = 0;
  private pooledBytes = 0;
  private waitingBytes = 0;
  liveBuffers = 0;

  constructor(
    private readonly device: GPUDevice,
    private readonly usage: number,
    /** The largest buffer one binding may cover. */
    private readonly maxClass: number,
    private readonly maxPooledBytes: number,
  ) {}

  static forTensors(device: GPUDevice, maxBinding: number, maxPooledBytes = 1 << 30): BufferPool {
    return new BufferPool(device, BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST, maxBinding, maxPooledBytes);
  }

  /**
   * Buffers freed and handed out again inside the open batch. Dispatches in one batch run in
   * order, so a kernel may write such a buffer; a queue upload may not (it would run before
   * the batch's earlier readers): `upload` submits the batch first for these.
   */
  readonly reusedInBatch = new Set<GPUBuffer>();

  acquire(bytes: number): GpuBuffer {
    const size = sizeClass(Math.max(bytes, 4), this.maxClass);
    const list = this.free.get(size);
    let gpu = list?.pop();
    if (gpu) this.pooledBytes -= size;
    else {
      // Reuse within the batch (a loop of large ops would otherwise create a buffer per op).
      const w = this.waiting.findIndex((b) => b.size === size);
      if (w >= 0) {
        gpu = this.waiting[w]!.gpu;
        this.waiting.splice(w, 1);
        this.waitingBytes -= size;
        this.reusedInBatch.add(gpu);
      } else gpu = this.device.createBuffer({ size, usage: this.usage });
    }
    this.liveBytes += size;
    this.liveBuffers++;
    return { gpu, size, refs: 1 };
  }

  /** Returns a buffer no storage points into. `batchOpen`: commands that may read it are not submitted yet. */
  release(buf: GpuBuffer, batchOpen: boolean): void {
    this.liveBytes -= buf.size;
    this.liveBuffers--;
    if (batchOpen) {
      this.waiting.push(buf);
      this.waitingBytes += buf.size;
    } else this.park(buf.gpu, buf.size);
  }

  /** Called after each submit: buffers freed during the batch become reusable. */
  commit(): void {
    this.reusedInBatch.clear();
    const w = this.waiting;
    this.waiting = [];
    this.waitingBytes = 0;
    for (const b of w) this.park(b.gpu, b.size);
  }

  private park(gpu: GPUBuffer, size: number): void {
    if (this.pooledBytes + size > this.maxPooledBytes) {
      gpu.destroy();
      return;
    }
    let list = this.free.get(size);
    if (!list) this.free.set(size, (list = []));
    list.push(gpu);
    this.pooledBytes += size;
  }

  stats(): { liveBytes: number; pooledBytes: number } {
    return { liveBytes: this.liveBytes, pooledBytes: this.pooledBytes + this.waitingBytes };
  }

  /** Destroys the parked buffers (live ones belong to tensors; the device's destroy frees them). */
  clear(): void {
    for (const list of this.free.values()) for (const b of list) b.destroy();
    this.free.clear();
    this.pooledBytes = 0;
  }
}

/** Staging buffers (MAP_READ) for readback, by size class; one mapAsync per buffer at a time. */
export class StagingPool {
  private readonly free = new Map<number, GPUBuffer[]>();
  private pooled = 0;

  constructor(
    private readonly device: GPUDevice,
    private readonly maxPooledBytes = 64 << 20,
  ) {}

  acquire(bytes: number): GPUBuffer {
    const size = sizeClass(Math.max(bytes, 4));
    const b = this.free.get(size)?.pop();
    if (b) {
      this.pooled -= size;
      return b;
    }
    return this.device.createBuffer({ size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
  }

  /** Takes back an unmapped staging buffer. */
  release(b: GPUBuffer): void {
    if (this.pooled + b.size > this.maxPooledBytes) {
      b.destroy();
      return;
    }
    let list = this.free.get(b.size);
    if (!list) this.free.set(b.size, (list = []));
    list.push(b);
    this.pooled += b.size;
  }

  get pooledBytes(): number {
    return this.pooled;
  }

  clear(): void {
    for (const list of this.free.values()) for (const b of list) b.destroy();
    this.free.clear();
    this.pooled = 0;
  }
}
