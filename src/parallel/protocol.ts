/**
 * Messages between the coordinator (the thread that owns the DataParallel) and its replicas.
 * Plain data only: they cross worker-thread ports (where buffers transfer and SharedArrayBuffers
 * are shared) and child-process pipes (structured clone, no sharing). A replica in a worker
 * thread exchanges gradients and weights through the shared buffers; a replica in a process
 * carries them in the messages (the `data` fields).
 */
import type { ModuleRecord } from '../nn/record.js';
import type { OptimizerRecord } from '../optim/optimizer.js';
import type { ReplicaDevice } from './devices.js';
import type { FlatRule } from './flat-optimizer.js';
import type { Layout } from './layout.js';

/** One input of a batch: its first dim is the batch dim. */
export type BatchArray =
  | { readonly data: Float32Array; readonly shape: readonly number[] }
  | { readonly data: Int32Array; readonly shape: readonly number[] }
  | { readonly data: Uint8Array; readonly shape: readonly number[] };

/** A batch: named arrays that share their first dim. */
export type Batch = Readonly<Record<string, BatchArray>>;

/**
 * The buffers replicas in worker threads share with the coordinator: float32 arrays of `floats`
 * elements each, one after another in one shared memory, at 16-byte aligned byte offsets.
 */
export interface SharedBuffers {
  /** A WebAssembly.Memory where the engine has wasm SIMD (the join's kernels address it), else a SharedArrayBuffer. */
  readonly memory: WebAssembly.Memory | SharedArrayBuffer;
  readonly floats: number;
  /** One flat gradient per replica (its own shard's mean gradient). */
  readonly grads: readonly number[];
  /** The joined gradient: sum of weight_r * grads_r. */
  readonly joined: number;
  /** The current weights, written by each parameter's owner after its step (or by the reducers, flat). */
  readonly weights: number;
  /** Optimizer state for the flat update (CPU replicas only): two flat buffers. */
  readonly state?: readonly number[];
  /**
   * One Int32 counter per gradient bucket: replicas that have written the bucket's gradient
   * during the current step. Reducers wait on it (Atomics.waitAsync), so a reduction starts
   * when the last gradient lands, not a message relay through the coordinator later.
   */
  readonly delivered: SharedArrayBuffer;
}

/** How a GPU replica finds its adapter. */
export interface GpuTarget {
  /** The GPU as the machine lists it, e.g. 'NVIDIA H200' or 'llvmpipe (LLVM 15.0.6, 256 bits)'. */
  readonly name: string;
  /** Dawn's adapter name to ask for (thread replicas on a machine where names tell GPUs apart); unset: the default adapter. */
  readonly dawnName?: string;
}

export interface InitMessage {
  readonly type: 'init';
  readonly index: number;
  readonly device: ReplicaDevice;
  readonly gpu?: GpuTarget;
  /** Worker threads of a 'cpu' replica's pool. */
  readonly cpuThreads: number;
  /** Pool threads of a 'cpu:worker' replica: 1, or 0 (it computes on its own thread). */
  readonly workerPoolThreads: 0 | 1;
  /** URL of the task module. */
  readonly task: string;
  readonly options: unknown;
  readonly layout: Layout;
  /** Initial weights, every parameter (trainable or not). */
  readonly record: ModuleRecord;
  readonly shared?: SharedBuffers;
  readonly optimizer?: OptimizerRecord;
  readonly seed: number;
}

export interface StepMessage {
  readonly type: 'step';
  readonly step: number;
  /** Samples in this replica's shard (0: it only reloads weights). */
  readonly size: number;
  readonly inputs: Batch;
  /** Unset: the optimizer's own rate. */
  readonly lr?: number;
  /** Alone and owner of every parameter: step the optimizer locally, export nothing. */
  readonly solo: boolean;
  /**
   * Time the step's ops on the device (from the scheduler's events) for the balancer. Unset on
   * solo steps once the balancer has settled: watching every op's completion cost the H200's
   * step 0.45-0.6 ms (4.8 against 5.2 ms at batch 256), and nothing reads the figure then.
   */
  readonly timed: boolean;
  /** Parameters (module indices) whose weights changed elsewhere since this replica loaded them. */
  readonly reload: readonly number[];
  /** Process replicas: the reloaded weights, concatenated in `reload` order. */
  readonly weights?: Float32Array;
  /** The reductions this replica runs during the step, each once its bucket is delivered (flat mode). */
  readonly reductions?: StepReductions;
  /**
   * The buffers (parameters that do not train: running statistics) this replica hands over after
   * its forward pass, for every replica to load at the next step (PyTorch DDP's broadcast_buffers):
   * into the shared weights, or (a process) in its 'computed' message.
   */
  readonly publish?: readonly number[];
}

/** A replica's part of a step's reductions, started by the `delivered` counters, not by messages. */
export interface StepReductions {
  /** Replicas that write each bucket (the counter's value once all have). */
  readonly expect: number;
  readonly inputs: ReduceMessage['inputs'];
  readonly update: NonNullable<ReduceMessage['update']>;
  /** Ranges of the flat buffers, by bucket. */
  readonly parts: ReadonlyArray<{ readonly bucket: number; readonly from: number; readonly to: number }>;
}

export interface ReduceMessage {
  readonly type: 'reduce';
  readonly step: number;
  readonly bucket: number;
  readonly from: number;
  readonly to: number;
  readonly inputs: ReadonlyArray<{ readonly replica: number; readonly weight: number }>;
  /** Flat mode: the reducer also steps the optimizer on its range, at `lr`; `steps` per parameter, this update included. */
  readonly update?: { readonly lr: number; readonly steps: readonly number[] };
}

export interface ApplyMessage {
  readonly type: 'apply';
  readonly step: number;
  readonly bucket: number;
  /** Parameters (module indices) this replica owns in the bucket. */
  readonly params: readonly number[];
  readonly lr?: number;
  /** Gradient-clipping factor (1 without clipping). */
  readonly scale: number;
  /** Process replicas: the joined gradients of `params`, concatenated. */
  readonly joined?: Float32Array;
}

export type ToReplica =
  | InitMessage
  | StepMessage
  | ReduceMessage
  | ApplyMessage
  | { readonly type: 'publish'; readonly params: readonly number[] }
  /** Shared memory: these parameters' new weights are in the shared buffer; take them now (mid-step), not at the next step. */
  | { readonly type: 'reload'; readonly params: readonly number[] }
  | { readonly type: 'get-state'; readonly params: readonly number[] }
  | { readonly type: 'set-state'; readonly record: OptimizerRecord }
  | { readonly type: 'close' };

export interface ReadyMessage {
  readonly type: 'ready';
  /** The backend and adapter, e.g. 'autodiff<cpu> (pool of 4)' or 'autodiff<wgpu> on NVIDIA H200'. */
  readonly describe: string;
  /** The adapter Dawn opened (GPU replicas). */
  readonly adapter?: { readonly vendor: string; readonly device: string; readonly description: string };
  /** The optimizer's clipNorm: the coordinator clips on the global norm. */
  readonly clipNorm?: number;
  readonly optimizerKind: string;
  /** The optimizer as a flat rule, when it has one and the replica shares memory with the coordinator. */
  readonly flat?: FlatRule;
  /** Parameters (module indices) that do not train: buffers and frozen weights. No update touches them. */
  readonly frozen: readonly number[];
  /** Of those, the buffers (nn.Buffer: running statistics), which forward passes change: published each step. */
  readonly buffers: readonly number[];
}

export interface ComputedMessage {
  readonly type: 'computed';
  readonly step: number;
  readonly loss: number;
  readonly metrics: Readonly<Record<string, number>>;
  /** Absolute times (ms since the epoch, fractional). */
  readonly reloadAt: number;
  readonly forwardAt: number;
  /** When backward() was called: the forward pass is queued (not necessarily done). */
  readonly backwardAt: number;
  /** When the device finished the forward pass's last op (from the scheduler's events). */
  readonly forwardEndAt: number;
  /** When the last forward or backward op finished on the device (from the scheduler's events). */
  readonly computeEndAt: number;
  /** Device-side span of the step's forward and backward ops, ms. */
  readonly computeMs: number;
  /** Solo steps: when the local optimizer step finished. */
  readonly optimizerEndAt?: number;
  /** A process replica's published buffers (StepMessage.publish), concatenated. */
  readonly buffers?: Float32Array;
}

/** A replica's failure: its error's name, message and stack, and what it was doing. */
export interface ErrorMessage {
  readonly type: 'error';
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly during: string;
}

/** Any thrown value as an error message. */
export function errorMessage(e: unknown, during: string): ErrorMessage {
  const err = e instanceof Error ? e : new Error(String(e));
  return { type: 'error', name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}), during };
}

export type FromReplica =
  | ReadyMessage
  | ComputedMessage
  | { readonly type: 'bucket'; readonly step: number; readonly bucket: number; readonly readyAt: number; readonly sentAt: number; readonly data?: Float32Array }
  | { readonly type: 'reduced'; readonly step: number; readonly bucket: number; readonly startAt: number; readonly endAt: number }
  | { readonly type: 'applied'; readonly step: number; readonly bucket: number; readonly startAt: number; readonly endAt: number; readonly data?: Float32Array }
  | { readonly type: 'published'; readonly data?: Float32Array }
  | { readonly type: 'state'; readonly record: OptimizerRecord }
  | { readonly type: 'state-set' }
  | ErrorMessage;

/** Now, in ms since the epoch, comparable across threads and processes. */
export function absoluteNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Narrows a replica's message by its type. */
export function isMessage<T extends FromReplica['type']>(m: FromReplica, type: T): m is Extract<FromReplica, { type: T }> {
  return m.type === type;
}

/** The ArrayBuffers behind `arrays` (to transfer; shared buffers are never in the list). */
export function transferList(arrays: Iterable<{ readonly buffer: ArrayBufferLike }>): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const a of arrays) if (a.buffer instanceof ArrayBuffer && !out.includes(a.buffer)) out.push(a.buffer);
  return out;
}
