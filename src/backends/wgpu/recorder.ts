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
  upload(buffer: GPUBuffer): void {
    this.touch(buffer);
  }

  check(slot: number, error: (index: number) => SwitchyardError): void {
    this.checks.push({ slot, error });
  }

  refuse(why: string): void {
    this.refusal ??= why;
  }
}
