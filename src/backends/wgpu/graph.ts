/**
 * A recorded step replayed on its device: the same dispatches on the same buffers, encoded in
 * one compute pass and one submit, with bind groups and parameter words made once (no program
 * lookup, no per-dispatch parameter upload, no scheduler). What makes it repeatable:
 * - every buffer it touches is pinned (kept out of the pool), so nothing else ever writes one;
 * - a state tensor the step replaced (a parameter its optimizer stepped) is copied back into the
 *   buffer the step reads it from, at the end of each replay;
 * - its index checks write flags of their own, never cleared, read by `verdict()`.
 */
import { ArgumentError, DeviceError, KernelError, type SwitchyardError } from '../../errors.js';
import type { GpuContext } from './context.js';
import { FLAG_SLOTS } from './context.js';
import { BufferUsage, MapMode } from './flags.js';
import type { RecordedCheck, StepRecorder } from './recorder.js';
import { PARAM_BYTES, PARAM_WORDS } from './wgsl/common.js';

/** A copy appended to each replay: a state tensor's new value into the buffer the step reads. */
export interface StateCopy {
  readonly from: GPUBuffer;
  readonly fromOffset: number;
  readonly to: GPUBuffer;
  readonly toOffset: number;
  readonly bytes: number;
}

interface Step {
  readonly pipeline: GPUComputePipeline;
  readonly group: GPUBindGroup;
  readonly offset: number[];
  readonly groups: readonly [number, number, number];
}

export class GpuGraph {
  private readonly steps: Step[];
  private readonly params: GPUBuffer;
  private readonly flags: GPUBuffer | undefined;
  private readonly checks: readonly RecordedCheck[];
  private disposed = false;
  /** Replays submitted. */
  runs = 0;

  /**
   * Takes over `pinned`: the recorder's pins and the capture's own (each buffer once per pin),
   * released by dispose().
   */
  constructor(
    private readonly ctx: GpuContext,
    recording: StepRecorder,
    private readonly copies: readonly StateCopy[],
    private readonly pinned: readonly GPUBuffer[],
  ) {
    const device = ctx.device;
    const n = recording.dispatches.length;
    this.params = device.createBuffer({ size: Math.max(1, n) * PARAM_BYTES, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
    const words = new Uint32Array(Math.max(1, n) * PARAM_WORDS);
    recording.dispatches.forEach((d, i) => words.set(d.params, i * PARAM_WORDS));
    device.queue.writeBuffer(this.params, 0, words);
    this.checks = recording.checks;
    this.flags = recording.checks.length > 0 ? device.createBuffer({ size: FLAG_SLOTS * 8, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST }) : undefined;
    // One bind group per distinct (layout, buffers): a step's dispatches share few.
    const groups = new Map<GPUBindGroupLayout, Map<string, GPUBindGroup>>();
    const ids = new Map<GPUBuffer, number>();
    const idOf = (b: GPUBuffer): number => {
      let id = ids.get(b);
      if (id === undefined) ids.set(b, (id = ids.size));
      return id;
    };
    this.steps = recording.dispatches.map((d, i) => {
      const buffers = d.buffers.map((b) => (b === recording.flags ? this.flags! : b));
      let byLayout = groups.get(d.layout);
      if (!byLayout) groups.set(d.layout, (byLayout = new Map()));
      const key = buffers.map(idOf).join(',');
      let group = byLayout.get(key);
      if (!group) {
        const entries: GPUBindGroupEntry[] = buffers.map((buffer, binding) => ({ binding, resource: { buffer } }));
        entries.push({ binding: buffers.length, resource: { buffer: this.params, offset: 0, size: PARAM_BYTES } });
        group = device.createBindGroup({ layout: d.layout, entries });
        byLayout.set(key, group);
      }
      return { pipeline: d.pipeline, group, offset: [i * PARAM_BYTES], groups: d.groups };
    });
    // The step ran once while recorded: its new state goes where the first replay reads it.
    if (copies.length > 0) {
      const enc = device.createCommandEncoder();
      this.copyBack(enc);
      ctx.submitReplay(enc.finish(), 0);
    }
  }

  /** The state's new values to where the step reads them. */
  private copyBack(enc: GPUCommandEncoder): void {
    for (const c of this.copies) enc.copyBufferToBuffer(c.from, c.fromOffset, c.to, c.toOffset, c.bytes);
  }

  /** Dispatches per replay. */
  get dispatches(): number {
    return this.steps.length;
  }

  /** Encodes and submits one replay (after the work queued before it). */
  run(): void {
    if (this.disposed) throw new KernelError('this captured step was disposed', { op: 'captureStep.run', hint: 'capture the step again' });
    if (this.ctx.lost) throw this.ctx.lost;
    if (this.ctx.closed) throw new DeviceError('the WebGPU device of this captured step was closed', { op: 'captureStep.run', devices: [this.ctx.deviceKey], hint: 'capture the step again on an open backend' });
    const enc = this.ctx.device.createCommandEncoder();
    if (this.steps.length > 0) {
      const pass = enc.beginComputePass();
      let pipeline: GPUComputePipeline | undefined;
      for (const s of this.steps) {
        if (s.pipeline !== pipeline) {
          pass.setPipeline(s.pipeline);
          pipeline = s.pipeline;
        }
        pass.setBindGroup(0, s.group, s.offset);
        pass.dispatchWorkgroups(s.groups[0], s.groups[1], s.groups[2]);
      }
      pass.end();
    }
    this.copyBack(enc);
    this.ctx.submitReplay(enc.finish(), this.steps.length);
    this.runs++;
  }

  /**
   * Waits for the replays submitted so far; rejects with the first index error any of them hit
   * since the last verdict (out-of-range indices: the flags are sticky until read here).
   */
  async verdict(): Promise<void> {
    const ctx = this.ctx;
    if (this.disposed) throw new KernelError('this captured step was disposed', { op: 'captureStep.sync', hint: 'capture the step again' });
    if (!this.flags) {
      await ctx.device.queue.onSubmittedWorkDone();
      if (ctx.lost) throw ctx.lost;
      return;
    }
    const bytes = FLAG_SLOTS * 8;
    const stage = ctx.staging.acquire(bytes);
    const enc = ctx.device.createCommandEncoder();
    enc.copyBufferToBuffer(this.flags, 0, stage, 0, bytes);
    enc.clearBuffer(this.flags, 0, bytes);
    ctx.submitReplay(enc.finish(), 0);
    try {
      await stage.mapAsync(MapMode.READ, 0, bytes);
    } catch (e) {
      stage.destroy();
      throw ctx.lost ?? new KernelError(`reading a captured step's index checks failed: ${String(e)}`, { op: 'captureStep', cause: e });
    }
    const words = new Int32Array(stage.getMappedRange(0, bytes).slice(0));
    stage.unmap();
    ctx.staging.release(stage);
    // Slots restart with each batch the step spanned when it was recorded: several checks may share one.
    let error: SwitchyardError | undefined;
    for (const c of this.checks) {
      if (words[2 * c.slot] === 0) continue;
      const sharing = this.checks.filter((o) => o.slot === c.slot);
      const found = c.error(words[2 * c.slot + 1]!);
      error = sharing.length === 1 ? found : new ArgumentError(`an index check of the captured step failed, in one of ${sharing.length} ops: ${sharing.map((o) => o.error(words[2 * c.slot + 1]!).message).join('; or ')}`, { op: 'captureStep.sync', hint: 'check the indices (labels, positions) given to the step' });
      break;
    }
    if (error) throw error;
  }

  /** Unpins its buffers (those no tensor holds return to the pool) and frees its own. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const b of this.pinned) this.ctx.pool.unpin(b, this.ctx.batchOpen);
    // Replays still in flight may use them: destroyed once the queue is past them.
    const own = [this.params, ...(this.flags ? [this.flags] : [])];
    void this.ctx.device.queue.onSubmittedWorkDone().then(
      () => own.forEach((b) => b.destroy()),
      () => undefined,
    );
  }
}
