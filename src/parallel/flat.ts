/**
 * The flat buffers (gradients, joined gradients, weights): parameters' ranges gathered into one
 * array for a message and scattered back, records copied for transfer, the shared memory.
 */
import type { ModuleRecord } from '../nn/record.js';
import type { Layout } from './layout.js';
import type { SharedBuffers } from './protocol.js';
import { FlatKernels, flatKernelsSupported } from './flat-kernels.js';

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

const PAGE = 65536;
/** wasm32 addresses 4 GiB. */
const MAX_PAGES = 65536;

/** The shared buffers' views, and the join's wasm kernels on their memory where it is one. */
export interface SharedViews {
  readonly grads: Float32Array[];
  readonly joined: Float32Array;
  readonly weights: Float32Array;
  readonly state: Float32Array[];
  readonly kernels: FlatKernels | undefined;
  /** Per bucket: replicas that have written its gradient this step. */
  readonly delivered: Int32Array;
}

/**
 * Allocates the shared flat buffers (one gradient per replica, the joined gradient, the weights
 * and `states` optimizer state buffers of `floats` each) in one memory: a WebAssembly.Memory of
 * fixed size where the join's wasm kernels can run (they address only their own memory), else a
 * SharedArrayBuffer.
 */
export function allocateShared(replicas: number, floats: number, states: number, buckets: number): SharedBuffers {
  const stride = Math.ceil((floats * 4) / 16) * 16;
  const count = replicas + 2 + states;
  const offset = (k: number): number => k * stride;
  const bytes = count * stride;
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  let memory: WebAssembly.Memory | SharedArrayBuffer | undefined;
  if (pages <= MAX_PAGES && flatKernelsSupported()) {
    try {
      memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    } catch {
      // Refused (address space): the buffers stay plain shared memory and the join in JS.
    }
  }
  memory ??= new SharedArrayBuffer(bytes);
  return {
    memory,
    floats,
    grads: Array.from({ length: replicas }, (_, r) => offset(r)),
    joined: offset(replicas),
    weights: offset(replicas + 1),
    ...(states > 0 ? { state: Array.from({ length: states }, (_, k) => offset(replicas + 2 + k)) } : {}),
    delivered: new SharedArrayBuffer(Math.max(1, buckets) * 4),
  };
}

/** Views of the shared buffers (and the kernels, on a WebAssembly.Memory). */
export function sharedViews(s: SharedBuffers): SharedViews {
  // One buffer object for every view: the kernels check that a view's buffer is theirs.
  const buffer = s.memory instanceof SharedArrayBuffer ? s.memory : s.memory.buffer;
  const view = (at: number): Float32Array => new Float32Array(buffer, at, s.floats);
  return {
    grads: s.grads.map(view),
    joined: view(s.joined),
    weights: view(s.weights),
    state: (s.state ?? []).map(view),
    kernels: s.memory instanceof SharedArrayBuffer ? undefined : FlatKernels.on(s.memory),
    delivered: new Int32Array(s.delivered),
  };
}

/** A record whose buffers can be transferred to one replica. */
export function copyRecord(r: ModuleRecord): ModuleRecord {
  return { params: Object.fromEntries(Object.entries(r.params).map(([k, p]) => [k, { ...p, data: Float32Array.from(p.data) }])) };
}
