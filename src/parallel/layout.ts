/**
 * Where each trainable parameter lives in the flat gradient, joined-gradient and weight buffers,
 * and which bucket carries it. Parameters are laid out in reverse module order, so that a bucket
 * is one contiguous range and the first bucket holds the last layers: the gradients backward
 * produces first (as PyTorch DDP's buckets).
 */
import { ArgumentError } from '../errors.js';
import type { ParamId } from '../nn/param.js';

/** PyTorch DDP's defaults: 25 MiB buckets, the first one 1 MiB so that it leaves early. */
export const DEFAULT_BUCKET_BYTES = 25 * 1024 * 1024;
export const DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024;

export interface ParamInfo {
  readonly name: string;
  readonly id: ParamId;
  readonly shape: readonly number[];
}

export interface ParamSlot extends ParamInfo {
  /** Position in module order (the order of `module.namedParams()`). */
  readonly index: number;
  readonly size: number;
  /** First float of this parameter in the flat buffers. */
  readonly offset: number;
  readonly bucket: number;
}

export interface Bucket {
  readonly index: number;
  readonly offset: number;
  /** Floats. */
  readonly size: number;
  /** Parameter indices (module order), in the order backward produces them (last first). */
  readonly params: readonly number[];
}

export interface Layout {
  readonly params: readonly ParamSlot[];
  readonly buckets: readonly Bucket[];
  /** Floats in a flat buffer. */
  readonly total: number;
}

export interface BucketOptions {
  /** Bucket size cap in bytes (default 25 MiB). A parameter larger than the cap gets a bucket of its own. */
  bucketBytes?: number;
  /** Cap of the first bucket (default 1 MiB, or bucketBytes when that is smaller). */
  firstBucketBytes?: number;
}

function checkBytes(name: string, v: number | undefined): void {
  if (v !== undefined && !(Number.isFinite(v) && v >= 4)) {
    throw new ArgumentError(`${name} must be a number of bytes >= 4, got ${String(v)}`, { op: 'DataParallel', hint: 'the default is 25 MiB (26214400), as PyTorch DDP' });
  }
}

/** Lays out `params` (module order) into buckets filled in reverse order, each at most its cap unless one parameter exceeds it. */
export function planLayout(params: readonly ParamInfo[], options: BucketOptions = {}): Layout {
  checkBytes('bucketBytes', options.bucketBytes);
  checkBytes('firstBucketBytes', options.firstBucketBytes);
  const cap = Math.floor((options.bucketBytes ?? DEFAULT_BUCKET_BYTES) / 4);
  const firstCap = Math.floor(Math.min(options.firstBucketBytes ?? DEFAULT_FIRST_BUCKET_BYTES, options.bucketBytes ?? DEFAULT_BUCKET_BYTES) / 4);
  const slots: ParamSlot[] = new Array<ParamSlot>(params.length);
  const buckets: Bucket[] = [];
  let offset = 0;
  let open: { offset: number; size: number; params: number[] } | undefined;
  const close = (): void => {
    if (open) buckets.push({ index: buckets.length, offset: open.offset, size: open.size, params: open.params });
    open = undefined;
  };
  for (let i = params.length - 1; i >= 0; i--) {
    const p = params[i]!;
    const size = p.shape.reduce((a, b) => a * b, 1);
    const limit = buckets.length === 0 ? firstCap : cap;
    if (open && open.size + size > limit) close();
    open ??= { offset, size: 0, params: [] };
    open.params.push(i);
    open.size += size;
    slots[i] = { name: p.name, id: p.id, shape: [...p.shape], index: i, size, offset, bucket: buckets.length };
    offset += size;
  }
  close();
  return { params: slots, buckets, total: offset };
}

/**
 * Which replica steps each parameter. 'main': the first active replica (Burn's OptimMainDevice:
 * the main device is the first of the list). 'sharded': parameter i on replica (i + k) mod n for
 * the smallest k that lands on an active replica (Burn's OptimSharded), so a parameter keeps its
 * owner, and its optimizer state, for as long as that replica takes part.
 */
export function assignOwners(paramCount: number, replicas: number, active: readonly number[], strategy: 'main' | 'sharded'): number[] {
  if (active.length === 0) throw new ArgumentError('no active replica to own the parameters', { op: 'DataParallel' });
  const on = new Set(active);
  const first = Math.min(...active);
  return Array.from({ length: paramCount }, (_, i) => {
    if (strategy === 'main') return first;
    for (let k = 0; k < replicas; k++) {
      const r = (i + k) % replicas;
      if (on.has(r)) return r;
    }
    return first;
  });
}
