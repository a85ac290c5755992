/**
 * A fused elementwise program (src/ir/fused.ts) as one dispatch. A program that needs more
 * storage bindings or parameter words than one kernel may have runs as consecutive parts,
 * the values passed between them in temporary buffers.
 */
import type { DType } from '../../../ir/dtype.js';
import { argDType, fusedStructure, partition, type FusedArg, type FusedAttrs, type FusedPart } from '../../../ir/fused.js';
import { numel } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { alignedStrides, type GpuStorage, type Layout } from '../storage.js';
import { PARAM_WORDS, Params, grid } from '../wgsl/common.js';
import { wgslExpression } from '../wgsl/expressions.js';
import { FZ_WORKGROUP, fusedProgram, fusedWords, paramCounts, type FusedMode } from '../wgsl/fused.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';

interface ReadMode {
  readonly mode: FusedMode;
  readonly div: number;
  readonly mod: number;
}

/**
 * How an input is read, from its strides aligned to the output shape: walking dims from the
 * last, zero strides (trailing broadcast), then a contiguous block, then zero strides (leading
 * broadcast) make index = offset + (i / div) % mod; anything else is strided.
 */
export function readMode(strides: readonly number[], shape: readonly number[]): ReadMode {
  let phase = 0;
  let div = 1;
  let mod = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    const size = shape[d]!;
    if (size === 1) continue;
    const st = strides[d]!;
    if (phase === 0) {
      if (st === 0) div *= size;
      else if (st === 1) {
        phase = 1;
        mod = size;
      } else return { mode: 's', div: 1, mod: 1 };
    } else if (phase === 1) {
      if (st === mod) mod *= size;
      else if (st === 0) phase = 2;
      else return { mode: 's', div: 1, mod: 1 };
    } else if (st !== 0) return { mode: 's', div: 1, mod: 1 };
  }
  if (phase === 0) return { mode: 'b', div: 1, mod: 1 };
  if (div === 1 && phase === 1) return { mode: 'c', div: 1, mod };
  return { mode: 'm', div, mod };
}

export interface Plan {
  readonly modes: FusedMode[];
  readonly reads: ReadMode[];
  readonly strides: number[][];
  readonly rank: number;
  readonly vec4: boolean;
}

/** The read mode of every input and whether the kernel runs four elements per invocation. */
export function readPlan(inputs: readonly Layout[], shape: readonly number[]): Plan {
  const n = numel(shape);
  const strides = inputs.map((l) => alignedStrides(l, shape));
  const reads = strides.map((s) => readMode(s, shape));
  const anyStrided = reads.some((r) => r.mode === 's');
  let vec4 = n % 4 === 0 && !anyStrided;
  const modes: FusedMode[] = reads.map((r, k) => {
    const aligned = inputs[k]!.offset % 4 === 0;
    if (!vec4) return r.mode;
    if (r.mode === 'c' && aligned) return 'c';
    if (r.mode === 'b') return 'b';
    if (r.mode === 'm' && r.div === 1 && r.mod % 4 === 0 && aligned) return 'mv';
    if (r.mode === 'm' && r.div % 4 === 0) return 'ms';
    vec4 = false;
    return r.mode;
  });
  // A later input may have ruled vec4 out: earlier inputs fall back to their scalar modes.
  return { modes: vec4 ? modes : reads.map((r) => r.mode), reads, strides, rank: anyStrided ? shape.length : 0, vec4 };
}

/** Encodes one dispatch of `attrs` over `inputs` into `outputs` (all contiguous, of `shape`). */
function dispatchProgram(ctx: GpuContext, attrs: FusedAttrs, inputs: readonly (GpuStorage | RawStorage)[], outputs: readonly RawStorage[], shape: readonly number[]): void {
  const n = numel(shape);
  const p = readPlan(inputs, shape);
  const dtypes = inputs.map((s) => s.dtype);
  const counts = paramCounts({ attrs, inputs: dtypes });
  const words = fusedWords(p.modes, counts, p.rank);
  const spec = { structure: fusedStructure(attrs, inputs), attrs, inputs: dtypes, modes: p.modes, rank: p.rank, vec4: p.vec4 };
  const params = new Params();
  params.u(n);
  inputs.forEach((s, k) => {
    params.u(s.offset);
    const m = p.modes[k]!;
    if (m === 'm' || m === 'mv' || m === 'ms') {
      params.u(p.reads[k]!.div);
      params.u(p.reads[k]!.mod);
    }
  });
  const ins = inputs.map((s) => ({ dtype: s.dtype }));
  for (const st of attrs.steps) {
    for (const q of wgslExpression(st, argDType(st.args[0]!, ins, attrs.steps)).params) {
      if (q.type === 'f32') params.f(q.value);
      else if (q.type === 'i32') params.i(q.value);
      else params.u(q.value);
    }
  }
  if (p.rank > 0) {
    params.us(shape);
    p.modes.forEach((m, k) => {
      if (m === 's') params.us(p.strides[k]!);
    });
  }
  const buffers = [...inputs.map((s) => s.buffer.gpu), ...outputs.map((s) => s.buffer.gpu)];
  ctx.dispatch(fusedProgram(spec, words), buffers, params, grid(Math.ceil((p.vec4 ? n / 4 : n) / FZ_WORKGROUP), ctx.maxWorkgroupsPerDim));
}

/** Parameter words a part needs at most (every input strided at the output's rank). */
function worstWords(part: FusedPart, inputs: readonly { readonly dtype: DType }[], attrs: FusedAttrs, rank: number): number {
  let steps = 0;
  const ins = part.reads.map((a) => ({ dtype: 'input' in a ? inputs[a.input]!.dtype : attrs.steps[a.step]!.dtype }));
  for (const st of part.program.steps) steps += wgslExpression(st, argDType(st.args[0]!, ins, part.program.steps)).params.length;
  return 1 + part.reads.length * (3 + rank) + steps + rank;
}

export const fusedKernel: GpuKernel<'fused'> = {
  run(ctx, record, inputs) {
    const shape = record.outputs[0]!.shape;
    const outputs = record.outputs.map((m) => freshStorage(ctx, m.shape, m.dtype));
    const { attrs } = record;
    const rank = shape.length;
    const fits = (reads: number, writes: number, words: number) => reads + writes <= ctx.maxStorageBuffers && words <= PARAM_WORDS;
    const whole: FusedPart = { lo: 0, hi: attrs.steps.length, reads: inputs.map((_, k) => ({ input: k })), writes: attrs.outputs, program: attrs };
    if (fits(inputs.length, outputs.length, worstWords(whole, inputs, attrs, rank))) {
      dispatchProgram(ctx, attrs, inputs, outputs, shape);
      return outputs;
    }
    // Too many bindings or words for one kernel: consecutive parts, values between them in temporaries.
    const parts = partition(attrs, (part) => fits(part.reads.length, part.writes.length, worstWords(part, inputs, attrs, rank)));
    const values = new Map<number, RawStorage>();
    attrs.outputs.forEach((s, j) => values.set(s, outputs[j]!));
    const temps: RawStorage[] = [];
    const storageOf = (a: FusedArg): GpuStorage | RawStorage => ('input' in a ? inputs[a.input]! : values.get(a.step)!);
    for (const part of parts) {
      const outs = part.writes.map((s) => {
        let v = values.get(s);
        if (!v) {
          v = freshStorage(ctx, shape, attrs.steps[s]!.dtype);
          values.set(s, v);
          temps.push(v);
        }
        return v;
      });
      dispatchProgram(ctx, part.program, part.reads.map(storageOf), outs, shape);
    }
    for (const t of temps) ctx.unref(t.buffer);
    return outputs;
  },
};
