/** Checking a global batch and cutting it into shards. */
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import type { Batch, BatchArray } from './protocol.js';

/** The batch size, after checking that every input is a typed array of its shape and all share dim 0. */
export function checkBatch(batch: Batch): number {
  const entries = Object.entries(batch ?? {});
  if (entries.length === 0) throw new ArgumentError('the batch has no inputs', { op: 'DataParallel.step', hint: 'pass named arrays, e.g. { x: { data, shape: [n, 784] }, y: { data, shape: [n] } }' });
  let size: number | undefined;
  for (const [name, a] of entries) {
    const data: unknown = a?.data;
    if (!(data instanceof Float32Array || data instanceof Int32Array || data instanceof Uint8Array)) {
      throw new DTypeError(`input '${name}' must hold a Float32Array, Int32Array or Uint8Array`, { op: 'DataParallel.step', dtypes: [Object.prototype.toString.call(data)] });
    }
    const shape = a.shape;
    // Loops, not some/reduce: this runs on every step, before the step's first op.
    let count = 1;
    let wellFormed = Array.isArray(shape) && shape.length > 0;
    for (let i = 0; wellFormed && i < shape.length; i++) {
      const d = shape[i] ?? -1;
      wellFormed = Number.isInteger(d) && d >= 0;
      count *= d;
    }
    if (!wellFormed) {
      throw new ShapeError(`input '${name}' needs a shape with a batch dim first`, { op: 'DataParallel.step', shapes: [Array.isArray(shape) ? shape : []] });
    }
    if (count !== data.length) throw new ShapeError(`input '${name}' holds ${data.length} values for its shape`, { op: 'DataParallel.step', shapes: [shape] });
    if (size === undefined) size = shape[0]!;
    else if (shape[0] !== size) {
      throw new ShapeError(`inputs disagree on the batch size: '${entries[0]![0]}' has ${size}, '${name}' ${shape[0]}`, { op: 'DataParallel.step', shapes: [entries[0]![1].shape, shape] });
    }
  }
  if (!size) throw new ArgumentError('the batch is empty', { op: 'DataParallel.step' });
  return size;
}

/** Rows [from, to) of every input: views of the caller's arrays, or copies of their own. */
function rowsOf(batch: Batch, from: number, to: number, copy: boolean): Batch {
  const out: Record<string, BatchArray> = {};
  for (const [name, a] of Object.entries(batch)) {
    const row = a.shape.slice(1).reduce((x, y) => x * y, 1);
    const shape = [to - from, ...a.shape.slice(1)];
    const [lo, hi] = [from * row, to * row];
    // One branch per element type: a union's subarray/slice signatures are not callable as one.
    if (a.data instanceof Float32Array) out[name] = { data: copy ? a.data.slice(lo, hi) : a.data.subarray(lo, hi), shape };
    else if (a.data instanceof Int32Array) out[name] = { data: copy ? a.data.slice(lo, hi) : a.data.subarray(lo, hi), shape };
    else out[name] = { data: copy ? a.data.slice(lo, hi) : a.data.subarray(lo, hi), shape };
  }
  return out;
}

/** Rows [from, to) of every input, as views of the caller's arrays (for a replica on the calling thread). */
export function viewBatch(batch: Batch, from: number, to: number): Batch {
  return rowsOf(batch, from, to, false);
}

/** Rows [from, to) of every input, copied into buffers of their own (to be transferred). */
export function sliceBatch(batch: Batch, from: number, to: number): Batch {
  return rowsOf(batch, from, to, true);
}

/**
 * The global batch copied into shared memory that the replicas in worker threads read in place:
 * one copy per step into buffers kept from step to step, where per-replica slices each took a
 * fresh buffer (a page fault per 4 KiB on first touch) and a transfer. A step's replicas have made their input
 * tensors (copies) before the step ends, so the next step may overwrite the buffers. A batch whose
 * arrays are in SharedArrayBuffers already is not copied at all.
 */
export class SharedBatch {
  private readonly buffers = new Map<string, SharedArrayBuffer>();

  stage(batch: Batch): Batch {
    // Arrays in shared memory already (a loader that fills SharedArrayBuffers): read in place.
    if (Object.values(batch).every((a) => a.data.buffer instanceof SharedArrayBuffer)) return batch;
    const out: Record<string, BatchArray> = {};
    for (const [name, a] of Object.entries(batch)) {
      let sab = this.buffers.get(name);
      if (!sab || sab.byteLength < a.data.byteLength) {
        sab = new SharedArrayBuffer(Math.max(16, a.data.byteLength));
        this.buffers.set(name, sab);
      }
      // One branch per element type (see rowsOf).
      if (a.data instanceof Float32Array) {
        const v = new Float32Array(sab, 0, a.data.length);
        v.set(a.data);
        out[name] = { data: v, shape: a.shape };
      } else if (a.data instanceof Int32Array) {
        const v = new Int32Array(sab, 0, a.data.length);
        v.set(a.data);
        out[name] = { data: v, shape: a.shape };
      } else {
        const v = new Uint8Array(sab, 0, a.data.length);
        v.set(a.data);
        out[name] = { data: v, shape: a.shape };
      }
    }
    return out;
  }
}
