/**
 * A Piscina worker: runs a range of one kernel over views of shared memory (no copies), then
 * raises its completion flag so a main thread blocked under backpressure can wake. With wasm
 * kernels it instantiates the backend's compiled kernel module on the backend's shared memory
 * (both arrive in `workerData`), so its kernels address the same tensors as the main thread.
 */
import './wasm/globals.js';
import { workerData } from 'node:worker_threads';
import { typedArrayFor } from '../../ir/dtype.js';
import type { OpRecord } from '../../ir/ops.js';
import { kernelsFor, type KernelChoice } from './kernels/index.js';
import type { WireView } from './storage.js';
import type { View } from './view.js';
import { WasmRuntime } from './wasm/runtime.js';

export interface PoolTask {
  readonly record: OpRecord;
  readonly inputs: readonly WireView[];
  readonly outputs: readonly WireView[];
  /** The op's whole range of units, cut into `chunks` equal chunks. */
  readonly lo: number;
  readonly hi: number;
  readonly chunks: number;
  /** Index into the pool's `counters`: the next chunk to take, shared by every task of the op. */
  readonly counter: number;
  /** Index into the pool's `flags`: this task's completion flag. */
  readonly slot: number;
  /** Test hook: the worker exits mid-task (holding chunk 0, reserved for it), as a crashing kernel would. */
  readonly crash?: boolean;
}

/** What every worker of a pool starts with (sent once, not with every task). */
export interface WorkerSetup {
  readonly kernels: KernelChoice;
  /** Per-task completion flags, per-op chunk counters and finished-chunk counts, shared with the pool. */
  readonly flags: Int32Array;
  readonly counters: Int32Array;
  readonly finished: Int32Array;
  /** Workers whose module has loaded (one word): the pool waits for them all before it ends them. */
  readonly loaded: Int32Array;
  /** With wasm kernels: the backend's memory and its compiled kernel module. */
  readonly memory?: WebAssembly.Memory;
  readonly module?: WebAssembly.Module;
  readonly relaxed?: boolean;
}

const setup = workerData as WorkerSetup;
const { flags, counters, finished } = setup;
const kernelFor = kernelsFor(setup.kernels);
const runtime = setup.memory && setup.module ? new WasmRuntime(setup.memory, { module: setup.module, relaxed: setup.relaxed ?? false }) : undefined;

function fromWire(w: WireView): View {
  let data;
  if (w.buffer) data = typedArrayFor(w.dtype, w.buffer, w.byteOffset, w.length);
  else if (runtime) data = runtime.view(w.dtype, w.byteOffset, w.length);
  else throw new Error('a tensor in wasm memory reached a worker without that memory');
  return { data, shape: w.shape, stride: w.stride, offset: w.offset };
}

/** The task running now: if this thread exits mid-task, its flag says so (a blocked main thread must not wait for it). */
let current: PoolTask | undefined;
process.once('exit', () => {
  if (!current) return;
  Atomics.store(flags, current.slot, 2);
  Atomics.notify(flags, current.slot);
  Atomics.notify(finished, current.counter);
});

export default function runTask(task: PoolTask): number {
  // Running: from here on the task finishes without the main thread's event loop.
  current = task;
  Atomics.store(flags, task.slot, 3);
  Atomics.notify(flags, task.slot);
  try {
    // Test hook: dies holding chunk 0, which the executor reserved for this task.
    if (task.crash) process.exit(70);
    const kernel = kernelFor(task.record.op);
    if (!kernel) throw new Error(`no CPU kernel for ${task.record.op}`);
    const ins = task.inputs.map(fromWire);
    const outs = task.outputs.map(fromWire);
    const span = task.hi - task.lo;
    let done = 0;
    for (let c = Atomics.add(counters, task.counter, 1); c < task.chunks; c = Atomics.add(counters, task.counter, 1)) {
      const lo = task.lo + Math.floor((span * c) / task.chunks);
      const hi = task.lo + Math.floor((span * (c + 1)) / task.chunks);
      kernel.run(task.record, ins, outs, lo, hi);
      done += hi - lo;
      Atomics.add(finished, task.counter, 1);
      Atomics.notify(finished, task.counter);
    }
    Atomics.store(flags, task.slot, 1);
    return done;
  } catch (e) {
    Atomics.store(flags, task.slot, 2);
    throw e;
  } finally {
    current = undefined;
    Atomics.notify(flags, task.slot);
  }
}

// Loaded: from then on the pool may end this thread (ending one mid-load aborted the process).
// Counted in a microtask, so after the synchronous require() that loads this module has returned.
queueMicrotask(() => Atomics.add(setup.loaded, 0, 1));
