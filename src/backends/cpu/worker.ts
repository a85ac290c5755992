/**
 * A Piscina worker: runs a range of one kernel over views of shared memory (no copies), then
 * raises its completion flag so a main thread blocked under backpressure can wake.
 */
import { typedArrayFor } from '../../ir/dtype.js';
import type { OpRecord } from '../../ir/ops.js';
import { kernelFor } from './kernels/index.js';
import type { WireView } from './storage.js';
import type { View } from './view.js';

export interface PoolTask {
  readonly record: OpRecord;
  readonly inputs: readonly WireView[];
  readonly outputs: readonly WireView[];
  /** The op's whole range of units, cut into `chunks` equal chunks. */
  readonly lo: number;
  readonly hi: number;
  readonly chunks: number;
  /** Index into `counters`: the next chunk to take, shared by every task of the op. */
  readonly counter: number;
  readonly counters: Int32Array;
  /** Finished chunks per op (same index as `counter`). */
  readonly finished: Int32Array;
  readonly flags: Int32Array;
  readonly slot: number;
  /** Test hook: the worker exits mid-task (holding chunk 0, reserved for it), as a crashing kernel would. */
  readonly crash?: boolean;
}

function fromWire(w: WireView): View {
  return { data: typedArrayFor(w.dtype, w.buffer, w.byteOffset, w.length), shape: w.shape, stride: w.stride, offset: w.offset };
}

/** The task running now: if this thread exits mid-task, its flag says so (a blocked main thread must not wait for it). */
let current: PoolTask | undefined;
process.once('exit', () => {
  if (!current) return;
  Atomics.store(current.flags, current.slot, 2);
  Atomics.notify(current.flags, current.slot);
  Atomics.notify(current.finished, current.counter);
});

export default function runTask(task: PoolTask): number {
  // Running: from here on the task finishes without the main thread's event loop.
  current = task;
  Atomics.store(task.flags, task.slot, 3);
  Atomics.notify(task.flags, task.slot);
  try {
    // Test hook: dies holding chunk 0, which the executor reserved for this task.
    if (task.crash) process.exit(70);
    const kernel = kernelFor(task.record.op);
    if (!kernel) throw new Error(`no CPU kernel for ${task.record.op}`);
    const ins = task.inputs.map(fromWire);
    const outs = task.outputs.map(fromWire);
    const span = task.hi - task.lo;
    let done = 0;
    for (let c = Atomics.add(task.counters, task.counter, 1); c < task.chunks; c = Atomics.add(task.counters, task.counter, 1)) {
      const lo = task.lo + Math.floor((span * c) / task.chunks);
      const hi = task.lo + Math.floor((span * (c + 1)) / task.chunks);
      kernel.run(task.record, ins, outs, lo, hi);
      done += hi - lo;
      Atomics.add(task.finished, task.counter, 1);
      Atomics.notify(task.finished, task.counter);
    }
    Atomics.store(task.flags, task.slot, 1);
    return done;
  } catch (e) {
    Atomics.store(task.flags, task.slot, 2);
    throw e;
  } finally {
    current = undefined;
    Atomics.notify(task.flags, task.slot);
  }
}
