/**
 * A repeated step recorded once and replayed (as CUDA graphs in PyTorch, graph capture in
 * onnxruntime-web). The step runs for real twice while the WebGPU device records every command
 * (the two recordings must agree: that is what makes the step repeatable);
 * each `run()` then encodes the same dispatches on the same buffers in one pass and one submit,
 * with bind groups and parameter words made at capture. No tensor API, autodiff, fusion or
 * scheduler work is left per step: that host time is what bounds a small model's step.
 *
 * What a replay repeats exactly: the ops and their scalar operands, and constants made inside the
 * step (a step whose scalars change, as a learning-rate schedule or Adam's bias correction, is
 * refused: its two recordings differ). Its
 * inputs are the tensors made before the capture: `setInput` writes new values into one (a
 * static input, as in CUDA graphs); `state` names the tensors the step replaces (parameters,
 * optimizer moments), whose new values each replay copies back to where the step reads them.
 */
import type { Backend } from '../backends/backend.js';
import { Decorator } from '../backends/decorator.js';
import { Wgpu } from '../backends/wgpu/backend.js';
import type { GpuContext } from '../backends/wgpu/context.js';
import { GpuGraph, type StateCopy } from '../backends/wgpu/graph.js';
import type { StepRecorder } from '../backends/wgpu/recorder.js';
import { gpuBytesPerElement, isContiguous, isGpuStorage, type GpuStorage } from '../backends/wgpu/storage.js';
import { ArgumentError, CaptureError, DeviceError, DTypeError } from '../errors.js';
import type { TypedArray } from '../ir/dtype.js';
import { numel } from '../ir/ops.js';
import { sameShape } from '../ir/shape.js';
import { Fusion } from '../fusion/fusion.js';
import { Tensor } from '../tensor/tensor.js';
import { tidy } from '../memory/tidy.js';

const OP = 'captureStep';
const HINT = 'see README "Captured steps"';

export interface CaptureOptions<B extends Backend> {
  /**
   * The tensors the step replaces and reads again the next step, in a fixed order: called before
   * the capture, after it, and before each replay (e.g. `() => model.params().map((p) => p.value)`).
   */
  readonly state?: () => readonly Tensor<B>[];
}

/** One recorded run of the step, with what undoing it takes. */
interface Take<B extends Backend> {
  readonly recorder: StepRecorder;
  readonly before: readonly Tensor<B>[];
  readonly beforePlaces: readonly Place[];
  readonly ownPins: GPUBuffer[];
  readonly firstId: number;
  outputs: Tensor<B>[];
  after: Tensor<B>[];
  released: boolean;
}

/** Where a tensor's values are on the GPU. */
interface Place {
  readonly buffer: GPUBuffer;
  readonly byteOffset: number;
  readonly bytes: number;
  readonly storage: GpuStorage;
}

/** The Wgpu backend under a chain of decorators, and the Fusion layers on the way. */
function chainOf(backend: Backend): { wgpu: Wgpu; fusions: Fusion<Backend>[] } {
  const fusions: Fusion<Backend>[] = [];
  let b: Backend = backend;
  while (b instanceof Decorator) {
    if (b instanceof Fusion) fusions.push(b);
    b = b.inner;
  }
  if (!(b instanceof Wgpu)) {
    throw new ArgumentError(`a step can be captured on a WebGPU backend (Wgpu, under Autodiff or Fusion), not on ${backend.name}`, { op: OP, hint: HINT });
  }
  return { wgpu: b, fusions };
}

function tensorsOf<B extends Backend>(what: string, value: unknown, backend: B): Tensor<B>[] {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.map((t, i) => {
    if (!(t instanceof Tensor) || t.backend !== backend) {
      throw new ArgumentError(`${what}${Array.isArray(value) ? ` [${i}]` : ''} must be a tensor of ${backend.name}, got ${t instanceof Tensor ? `a tensor of ${t.backend.name}` : typeof t}`, { op: OP, hint: HINT });
    }
    if (t.isDisposed) throw new CaptureError(`${what}${Array.isArray(value) ? ` [${i}]` : ''} was disposed`, { op: OP, hint: HINT });
    return t;
  });
}

export class CapturedStep<B extends Backend> {
  /** The step's outputs: the same tensors after every replay, holding the latest replay's values. */
  readonly outputs: readonly Tensor<B>[];
  /** How many times the capture ran the step (2, or 3 when its first run differed): steps taken before any replay. */
  readonly capturedRuns: number;

  /** @internal Made by captureStep. */
  constructor(
    private readonly ctx: GpuContext,
    private readonly graph: GpuGraph,
    outputs: readonly Tensor<B>[],
    private readonly stateOf: () => readonly Tensor<B>[],
    private readonly state: readonly Tensor<B>[],
    private readonly inputs: ReadonlySet<GPUBuffer>,
    private readonly placeOf: (t: Tensor<B>) => Promise<Place>,
    capturedRuns: number,
    /** Hands buffered eager work (Fusion's groups, pending ops) to the device, so a replay comes after it. */
    private readonly settle: () => Promise<void>,
  ) {
    this.outputs = outputs;
    this.capturedRuns = capturedRuns;
  }

  /** Dispatches per replay. */
  get dispatches(): number {
    return this.graph.dispatches;
  }

  /** Replays submitted so far. */
  get runs(): number {
    return this.graph.runs;
  }

  /**
   * Runs the step once more on the GPU (queued after the work before it; resolves when it is
   * submitted, not when it is done: read an output or await `sync()` for that).
   */
  async run(): Promise<void> {
    await this.settle();
    if (this.ctx.saturated) await this.ctx.drained();
    const now = this.stateOf();
    if (now.length !== this.state.length || now.some((t, i) => t !== this.state[i])) {
      throw new CaptureError('the state changed since the capture (a parameter or optimizer tensor was replaced outside the step)', {
        op: `${OP}.run`,
        hint: `capture the step again after changing its state; ${HINT}`,
      });
    }
    this.graph.run();
  }

  /**
   * Writes new values into one of the step's inputs (a tensor made before the capture that the
   * step reads: a batch), for the replays after this call. The tensor's values change in place.
   */
  async setInput(t: Tensor<B>, data: TypedArray): Promise<void> {
    const op = `${OP}.setInput`;
    if (!(t instanceof Tensor)) throw new ArgumentError('the input must be a tensor', { op });
    if (this.state.includes(t)) throw new ArgumentError('this tensor is part of the step\'s state', { op, hint: HINT });
    const place = await this.placeOf(t);
    if (!this.inputs.has(place.buffer)) throw new ArgumentError(`the step does not read this tensor (shape [${t.shape.join(', ')}])`, { op, hint: `pass a tensor the step reads, made before the capture; ${HINT}` });
    if (!isContiguous(place.storage)) throw new ArgumentError(`the input (shape [${t.shape.join(', ')}]) is a strided view`, { op, hint: `set the tensor the view was made from; ${HINT}` });
    const want = t.dtype === 'float32' ? Float32Array : t.dtype === 'int32' ? Int32Array : undefined;
    if (!want) throw new DTypeError(`inputs of dtype ${t.dtype} cannot be set (float32 and int32 can)`, { op, dtypes: [t.dtype] });
    if (!(data instanceof want) || data.length !== t.size) {
      const got = data instanceof want ? `${data.length} elements` : ArrayBuffer.isView(data) ? data.constructor.name : typeof data;
      throw new ArgumentError(`the data must be a ${want.name} of ${t.size} elements, got ${got}`, { op, shapes: [t.shape], hint: HINT });
    }
    // Work queued earlier reads the old values: handed over and submitted first, as the write runs ahead of unsubmitted work.
    await this.settle();
    this.ctx.flush();
    this.ctx.device.queue.writeBuffer(place.buffer, place.byteOffset, data.buffer, data.byteOffset, data.byteLength);
  }

  /** Waits until the replays submitted so far are done; rejects with an index error any of them hit. */
  sync(): Promise<void> {
    return this.graph.verdict();
  }

  /** Lets the step's buffers go (its outputs and state stay valid tensors). */
  dispose(): void {
    this.graph.dispose();
  }
}

/**
 * Runs `step` twice (three times when the first run differs, e.g. while an autotuner swaps in its
 * winner), recording what it does on the WebGPU device, and returns it ready to replay. The step
 * must run the same ops with the same scalars every time: no reads back to the host (toData,
 * item), no random numbers, no scalars that change from step to step (a learning-rate schedule,
 * Adam's bias correction); tensors it replaces and reads again are listed by `options.state`.
 */
export async function captureStep<B extends Backend>(backend: B, step: () => Tensor<B> | readonly Tensor<B>[], options: CaptureOptions<B> = {}): Promise<CapturedStep<B>> {
  if (typeof step !== 'function') throw new ArgumentError(`the step must be a function returning its output tensors, got ${typeof step}`, { op: OP, hint: HINT });
  if (options.state !== undefined && typeof options.state !== 'function') throw new ArgumentError('options.state must be a function returning the state tensors', { op: OP, hint: HINT });
  const { wgpu, fusions } = chainOf(backend);
  const device = wgpu.defaultDevice();
  const exec = wgpu.exec(device);
  const ctx = await exec.ready();
  const scheduler = backend.runtime.scheduler;
  const stateOf = options.state ?? ((): readonly Tensor<B>[] => []);

  const placeOf = (t: Tensor<B>): Promise<Place> =>
    scheduler.use(t.id, OP, (storage, ex) => {
      if (ex !== exec || !isGpuStorage(storage)) {
        throw new DeviceError(`a tensor of the step (shape [${t.shape.join(', ')}]) is on ${t.device.key}, not on ${device.key}`, { op: OP, devices: [t.device.key, device.key], hint: HINT });
      }
      const bpe = gpuBytesPerElement(storage.dtype);
      return { buffer: storage.buffer.gpu, byteOffset: storage.offset * bpe, bytes: numel(storage.shape) * bpe, storage };
    });

  // What is queued runs first, outside the step.
  const flushAll = async (): Promise<void> => {
    for (const f of fusions) f.flush();
    if (scheduler.pendingOps > 0) await scheduler.flush();
  };

  let ran = 0;
  const ranNote = (): string => ` (the step ran ${ran} time${ran === 1 ? '' : 's'} while recorded: its updates stand)`;
  /** Unpins a take's buffers and frees the outputs its step made (the caller never gets them). */
  const release = (t: Take<B>): void => {
    if (t.released) return;
    t.released = true;
    for (const b of [...t.recorder.buffers, ...t.ownPins]) ctx.pool.unpin(b, ctx.batchOpen);
    for (const o of t.outputs) if (o.id >= t.firstId && !t.after.includes(o) && !o.isDisposed) o.dispose();
  };

  /** One run of the step while the device records it. */
  const take = async (): Promise<Take<B>> => {
    await flushAll();
    await ctx.drained();
    const before = tensorsOf('a state tensor', stateOf(), backend);
    const beforePlaces = await Promise.all(before.map(placeOf));
    const ownPins = beforePlaces.map((p) => p.buffer);
    // Tensors the step makes have ids from here on (a refused capture frees its outputs among them).
    const firstId = backend.runtime.ids.tensor();
    const recorder = ctx.startRecording();
    const t: Take<B> = { recorder, before, beforePlaces, ownPins: [], firstId, outputs: [], after: [], released: false };
    ran++;
    try {
      // Pinned before the step runs: its old values must keep their buffers (copied back into each replay).
      for (const b of ownPins) {
        ctx.pool.pin(b);
        t.ownPins.push(b);
      }
      // Inside tidy: what the step makes and neither returns nor keeps (parameters, optimizer state) is freed, on a throw too.
      t.outputs = tensorsOf('the step\'s output', tidy(step, backend.runtime), backend);
      t.after = tensorsOf('a state tensor', stateOf(), backend);
      await flushAll();
    } catch (e) {
      release(t);
      throw e;
    } finally {
      ctx.stopRecording();
    }
    if (recorder.refusal) {
      release(t);
      throw new CaptureError(`the step cannot be replayed: ${recorder.refusal}${ranNote()}`, { op: OP, hint: HINT });
    }
    return t;
  };
  // Two runs recorded: a replay repeats one, so the two must agree (same kernels, scalars and
  // constants). A third run settles a difference that a first run alone causes (an autotuner
  // swapping in its winner); one that stays is refused.
  let last = await take();
  let agreed = false;
  for (let attempt = 0; attempt < 2 && !agreed; attempt++) {
    const previous = last;
    try {
      last = await take();
    } catch (e) {
      release(previous);
      throw e;
    }
    const mine = new Set(last.ownPins);
    const theirs = new Set(previous.ownPins);
    const diff = last.recorder.differsFrom(previous.recorder, (x, y) => mine.has(x) && theirs.has(y));
    release(previous);
    if (diff === undefined) agreed = true;
    else if (attempt === 1) {
      release(last);
      throw new CaptureError(`the step does not repeat: ${diff}${ranNote()}`, { op: OP, hint: `a replay repeats the step's ops with their scalars as captured; ${HINT}` });
    }
  }
  const { recorder, before, beforePlaces, ownPins, outputs, after } = last;
  try {
    // A first run may make state (an optimizer's moments at its first step): later runs must not.
    if (after.length !== before.length) throw new CaptureError(`options.state gave ${before.length} tensors before the step and ${after.length} after${ranNote()}`, { op: OP, hint: 'the state function must list the same tensors, in the same order, every time' });
    // Every output on the device (a DeviceError otherwise), and any error of the step's ops surfaces here.
    await Promise.all(outputs.map(placeOf));
    const copies: StateCopy[] = [];
    for (let i = 0; i < before.length; i++) {
      const a = after[i]!;
      if (a === before[i]) continue;
      const from = await placeOf(a);
      const to = beforePlaces[i]!;
      const same = a.dtype === to.storage.dtype && sameShape(a.shape, to.storage.shape);
      if (!same) throw new CaptureError(`state tensor ${i} changed its shape or dtype in the step ([${to.storage.shape.join(', ')}] ${to.storage.dtype} -> [${a.shape.join(', ')}] ${a.dtype})`, { op: OP, shapes: [to.storage.shape, a.shape], hint: HINT });
      if (!isContiguous(from.storage) || !isContiguous(to.storage) || from.byteOffset % 4 !== 0 || to.byteOffset % 4 !== 0 || from.bytes % 4 !== 0) {
        throw new CaptureError(`state tensor ${i} (shape [${a.shape.join(', ')}]) is a strided view or not word-aligned`, { op: OP, hint: `keep state in whole tensors; ${HINT}` });
      }
      if (from.bytes > 0) copies.push({ from: from.buffer, fromOffset: from.byteOffset, to: to.buffer, toOffset: to.byteOffset, bytes: from.bytes });
    }
    // An input the step freed (its tensor replaced) and that is not state: a replay would read the stale value forever.
    const declared = new Set(beforePlaces.map((p) => p.buffer));
    let stale = 0;
    for (const b of recorder.inputs) if (ctx.pool.isParked(b) && !declared.has(b)) stale++;
    if (stale > 0) {
      throw new CaptureError(`the step replaced ${stale} tensor${stale === 1 ? '' : 's'} that it reads (their old values were freed) without listing them in options.state${ranNote()}`, {
        op: OP,
        hint: `list every parameter and optimizer tensor the step updates, e.g. state: () => [...model.params().map((p) => p.value), ...]; ${HINT}`,
      });
    }
    const graph = new GpuGraph(ctx, recorder, copies, [...recorder.buffers, ...ownPins]);
    return new CapturedStep(ctx, graph, outputs, stateOf, after, recorder.inputs, placeOf, ran, flushAll);
  } catch (e) {
    release(last);
    throw e;
  }
}
