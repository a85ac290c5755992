/**
 * The flat buffers (gradients, joined gradients, weights): parameters' ranges gathered into one
 * array for a message and scattered back, records copied for transfer, shared views.
 */
import { ArgumentError } from '../errors.js';
import type { ModuleRecord } from '../nn/record.js';
import type { Layout } from './layout.js';

/** The ranges of `params` in `src`, concatenated (what a process replica gets in a message). */
export function gatherParams(layout: Layout, src: Float32Array, params: readonly number[]): Float32Array<ArrayBuffer> {
  const out = new Float32Array(params.reduce((a, p) => a + layout.params[p]!.size, 0));
  let at = 0;
  for (const p of params) {
    const s = layout.params[p]!;
    out.set(src.subarray(s.offset, s.offset + s.size), at);
    at += s.size;
  }
  return out;
}

/** The inverse of gatherParams: `data` back into the ranges of `params` in `dst`. */
export function scatterParams(layout: Layout, dst: Float32Array, params: readonly number[], data: Float32Array): void {
  let at = 0;
  for (const p of params) {
    const s = layout.params[p]!;
    dst.set(data.subarray(at, at + s.size), s.offset);
    at += s.size;
  }
}

export function sharedBuffer(v: Float32Array): SharedArrayBuffer {
  const b = v.buffer;
  if (!(b instanceof SharedArrayBuffer)) throw new ArgumentError('internal: a shared view without a SharedArrayBuffer', { op: 'DataParallel' });
  return b;
}

/** A record whose buffers can be transferred to one replica. */
export function copyRecord(r: ModuleRecord): ModuleRecord {
  return { params: Object.fromEntries(Object.entries(r.params).map(([k, p]) => [k, { ...p, data: Float32Array.from(p.data) }])) };
}
