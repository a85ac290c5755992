/**
 * What a captured step encodes, command by command, as the GPU context runs it once for real
 * (src/capture): each dispatch's pipeline, buffers, parameter words and grid, which buffers the
 * step only reads (its inputs and state) and which it writes, and its index checks.
 */
import type { SwitchyardError } from '../../errors.js';
import type { BindingKind } from './wgsl/common.js';

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
  /** Buffers whose first use in the step is a read: made before it (inputs, weights, state). */
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

  dispatch(pipeline: GPUComputePipeline, layout: GPUBindGroupLayout, kinds: readonly BindingKind[], buffers: readonly GPUBuffer[], words: readonly number[], groups: readonly [number, number, number]): void {
    buffers.forEach((b, i) => {
      if (b !== this.flags && this.touch(b) && kinds[i] === 'read') this.inputs.add(b);
    });
    this.dispatches.push({ pipeline, layout, buffers: [...buffers], params: Uint32Array.from(words), groups: [groups[0], groups[1], groups[2]] });
  }

  /** An upload into a fresh buffer: written by the step. */
  upload(buffer: GPUBuffer, data: ArrayBufferView): void {
    this.touch(buffer);
    this.uploads.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
  }

  /**
   * Where this recording of the step differs from another one (undefined if nowhere): the ops,
   * their scalar parameters, grids and constants must repeat for a replay to be the step. The
   * buffers may differ (each recording gets its own).
   */
  differsFrom(other: StepRecorder): string | undefined {
    if (this.dispatches.length !== other.dispatches.length) return `${other.dispatches.length} kernels the first time, ${this.dispatches.length} the next`;
    for (let i = 0; i < this.dispatches.length; i++) {
      const a = this.dispatches[i]!;
      const b = other.dispatches[i]!;
      if (a.pipeline !== b.pipeline) return `kernel ${i} is another kernel the second time`;
      if (a.groups.some((g, k) => g !== b.groups[k]) || a.params.length !== b.params.length || a.params.some((w, k) => w !== b.params[k])) {
        return `kernel ${i} got other scalar parameters the second time (a learning-rate schedule, Adam's bias correction, a step counter)`;
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
