/**
 * What a captured step encodes, command by command, each time the GPU context runs it while it is
 * recorded (src/capture): each dispatch's pipeline, buffers, parameter words and grid, the bytes
 * of its uploads, which buffers it made and which it did not (its inputs and state), and its
 * index checks.
 */
import type { SwitchyardError } from '../../errors.js';

export interface RecordedDispatch {
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
  readonly buffers: readonly GPUBuffer[];
  readonly params: Uint32Array;
  readonly groups: readonly [number, number, number];
}

export interface RecordedCheck {
  /** The index-check flag slot the dispatch writes. */
  readonly slot: number;
  readonly error: (index: number) => SwitchyardError;
}

export class StepRecorder {
  readonly dispatches: RecordedDispatch[] = [];
  readonly checks: RecordedCheck[] = [];
  /** The bytes of each upload (constants made inside the step), in order. */
  readonly uploads: Uint8Array[] = [];
  /** Every buffer the step touches (each pinned once, by this recorder). */
  readonly buffers = new Set<GPUBuffer>();
  /** Buffers the step made (handed out by the pool while it was recorded). */
  readonly made = new Set<GPUBuffer>();
  /** Buffers the step uses and did not make: its inputs, weights and state. */
  readonly inputs = new Set<GPUBuffer>();
  /** Why the step cannot be replayed, if something it did rules that out. */
  refusal: string | undefined;

  constructor(
    /** The context's index-check flags, which the replay swaps for its own. */
    readonly flags: GPUBuffer,
    /**
     * Pins a buffer at its first use: one the step frees (a parameter's old value) is then not
     * handed to a later op of the same step, so each buffer keeps one role in every replay.
     */
    private readonly pin: (b: GPUBuffer) => void,
  ) {}

  private touch(b: GPUBuffer): boolean {
    if (this.buffers.has(b)) return false;
    this.buffers.add(b);
    this.pin(b);
    return true;
  }

  dispatch(pipeline: GPUComputePipeline, layout: GPUBindGroupLayout, buffers: readonly GPUBuffer[], words: readonly number[], groups: readonly [number, number, number]): void {
    for (const b of buffers) if (b !== this.flags && this.touch(b) && !this.made.has(b)) this.inputs.add(b);
    this.dispatches.push({ pipeline, layout, buffers: [...buffers], params: Uint32Array.from(words), groups: [groups[0], groups[1], groups[2]] });
  }

  /** A buffer the pool hands out while the step is recorded. */
  acquired(buffer: GPUBuffer): void {
    this.made.add(buffer);
  }

  /** An upload into a fresh buffer: written by the step. */
  upload(buffer: GPUBuffer, data: ArrayBufferView): void {
    this.touch(buffer);
    this.uploads.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
  }

  /**
   * Where this recording of the step differs from another one (undefined if nowhere): the ops,
   * their scalar parameters, grids and constants must repeat for a replay to be the step. The
   * buffers the step makes may differ, one for one; an input must be the same buffer unless it
   * is state (`sameState`: both the state's buffer in their recordings).
   */
  differsFrom(other: StepRecorder, sameState: (mine: GPUBuffer, theirs: GPUBuffer) => boolean): string | undefined {
    if (this.dispatches.length !== other.dispatches.length) return `${other.dispatches.length} kernels the first time, ${this.dispatches.length} the next`;
    // Buffers correspond one to one; an input that is not state must be the very same buffer.
    const pairs = new Map<GPUBuffer, GPUBuffer>();
    const back = new Map<GPUBuffer, GPUBuffer>();
    for (let i = 0; i < this.dispatches.length; i++) {
      const a = this.dispatches[i]!;
      const b = other.dispatches[i]!;
      const name = `kernel ${i} (${a.pipeline.label || 'unnamed'})`;
      if (a.pipeline !== b.pipeline) return `${name} is another kernel the second time (${b.pipeline.label || 'unnamed'})`;
      if (a.groups.some((g, k) => g !== b.groups[k]) || a.params.length !== b.params.length || a.params.some((w, k) => w !== b.params[k])) {
        return `${name} got other scalar parameters the second time (a learning-rate schedule, Adam's bias correction, a step counter)`;
      }
      for (let k = 0; k < a.buffers.length; k++) {
        const x = a.buffers[k]!;
        const y = b.buffers[k]!;
        if ((pairs.get(x) ?? y) !== y || (back.get(y) ?? x) !== x) return `${name} reads or writes other tensors the second time`;
        pairs.set(x, y);
        back.set(y, x);
        if (this.inputs.has(x) && x !== y && !sameState(x, y)) return `${name} reads another input the second time: a tensor the step replaces that options.state does not list (parameters, optimizer state), or a batch chosen inside the step (pass inputs made before the capture and change them with setInput)`;
      }
    }
    if (this.checks.length !== other.checks.length || this.checks.some((c, i) => c.slot !== other.checks[i]!.slot)) return 'its index checks differ between two runs';
    if (this.uploads.length !== other.uploads.length || this.uploads.some((u, i) => !sameBytes(u, other.uploads[i]!))) return 'it makes constants from host data that differ from one run to the next';
    return undefined;
  }


  check(slot: number, error: (index: number) => SwitchyardError): void {
    this.checks.push({ slot, error });
  }

  refuse(why: string): void {
    this.refusal ??= why;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
