/**
 * Fused elementwise programs (src/ir/fused.ts) on WebGPU: one dispatch per program. A program
 * that needs more storage bindings or parameter words than one kernel may have runs as
 * consecutive parts, the values passed between them in temporary buffers.
 */
import type { DType } from '../../../ir/dtype.js';
import { fusedStructure, partition, stepDType, type FusedArg, type FusedAttrs } from '../../../ir/fused.js';
import { numel } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { alignedStrides, type GpuStorage, type Layout } from '../storage.js';
import { PARAM_WORDS, Params, grid, type Program } from '../wgsl/common.js';
import type { WgslExpr } from '../wgsl/expressions.js';
import { FZ_VEC4S, FZ_WORKGROUP, fusedKey, fusedProgram, fusedWords, lowerSteps, type FusedMode } from '../wgsl/fused.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';
import type { KeyTrie, TrieNode } from '../key-trie.js';

interface ReadMode {
  readonly mode: FusedMode;
  readonly div: number;
  readonly mod: number;
}

const STRIDED: ReadMode = { mode: 's', div: 1, mod: 1 };

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
      } else return STRIDED;
    } else if (phase === 1) {
      if (st === mod) mod *= size;
      else if (st === 0) phase = 2;
      else return STRIDED;
    } else if (st !== 0) return STRIDED;
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

/**
 * The read mode of every input and whether the kernel runs four elements per invocation: when no
 * input is strided and each reads whole aligned vec4s ('c', 'mv') or one value for all four lanes
 * ('b', 'ms'). Any length qualifies (the last invocation stores a partial vec4).
 */
export function readPlan(inputs: readonly Layout[], shape: readonly number[]): Plan {
  const strides = inputs.map((l) => alignedStrides(l, shape));
  const reads = strides.map((s) => readMode(s, shape));
  const anyStrided = reads.some((r) => r.mode === 's');
  let vec4 = !anyStrided;
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

type Input = GpuStorage | RawStorage;

/** An operand as the generator sees it: its layout and dtype. */
export type TypedLayout = Layout & { readonly dtype: DType };

/** The program of a spec whose key is `key` (made only where no program of that key exists yet). */
function makeProgram(attrs: FusedAttrs, exprs: readonly WgslExpr[], inputs: readonly TypedLayout[], p: Plan, structure: string, key: string): Program {
  const spec = { structure, attrs, exprs, inputs: inputs.map((s) => s.dtype), modes: p.modes, rank: p.rank, vec4: p.vec4 };
  return fusedProgram(spec, fusedWords(p.modes, exprs, p.rank), key);
}

/** The program of a plan, its key made (a string: structure, expressions, modes). */
function newProgram(attrs: FusedAttrs, exprs: readonly WgslExpr[], inputs: readonly TypedLayout[], p: Plan): Program {
  const structure = fusedStructure(attrs, inputs);
  return makeProgram(attrs, exprs, inputs, p, structure, fusedKey({ structure, exprs, modes: p.modes, rank: p.rank, vec4: p.vec4 }));
}

/**
 * The trie node of a program: the walk spells what its key does (each step's op, arguments,
 * dtypes and expression; the outputs; each input's dtype and read mode; rank and vec4 form),
 * with a count before every list, and builds no string.
 */
function programNode(trie: KeyTrie<Program>, attrs: FusedAttrs, exprs: readonly WgslExpr[], inputs: readonly TypedLayout[], p: Plan): TrieNode<Program> {
  const steps = attrs.steps;
  let n = trie.start().child(steps.length);
  for (let s = 0; s < steps.length; s++) {
    const st = steps[s]!;
    n = n.child(st.op).child(st.args.length);
    for (const a of st.args) n = n.child('input' in a ? a.input : -1 - a.step);
    n = n.child(st.dtype).child(stepDType(st, inputs, steps)).child(exprs[s]!.expr);
  }
  n = n.child(attrs.outputs.length);
  for (const o of attrs.outputs) n = n.child(o);
  n = n.child(inputs.length);
  for (let k = 0; k < inputs.length; k++) n = n.child(inputs[k]!.dtype).child(p.modes[k]!);
  return n.child(p.rank).child(p.vec4);
}

/**
 * The kernel of `attrs` over inputs of these layouts and an output of `shape`, with its read plan.
 * With a context, programs come from its trie: a loop makes each kernel's key and source closure once.
 */
function programFor(attrs: FusedAttrs, exprs: readonly WgslExpr[], inputs: readonly TypedLayout[], shape: readonly number[], ctx?: GpuContext): { program: Program; plan: Plan } {
  const p = readPlan(inputs, shape);
  if (!ctx) return { program: newProgram(attrs, exprs, inputs, p), plan: p };
  const node = programNode(ctx.programTrie, attrs, exprs, inputs, p);
  return { program: node.value ?? ctx.programTrie.set(node, newProgram(attrs, exprs, inputs, p)), plan: p };
}

/**
 * The generated WGSL (and its cache key) of a program over inputs of these layouts: what the
 * `wgsl` bench prints, to read a kernel without a GPU.
 */
export function fusedSource(attrs: FusedAttrs, inputs: readonly TypedLayout[], shape: readonly number[]): { key: string; source: string } {
  const { program } = programFor(attrs, lowerSteps(attrs, inputs), inputs, shape);
  return { key: program.key, source: program.source() };
}

/** Encodes one dispatch of `attrs` (its steps lowered to `exprs`) over `inputs` into `outputs`. */
function dispatchProgram(ctx: GpuContext, attrs: FusedAttrs, exprs: readonly WgslExpr[], inputs: readonly Input[], outputs: readonly RawStorage[], shape: readonly number[]): void {
  const n = numel(shape);
  const { program, plan: p } = programFor(attrs, exprs, inputs, shape, ctx);
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
  for (const e of exprs) {
    for (const q of e.params) {
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
  params.u(0); // the zero word (wgsl/fused.ts sy_opq)
  const buffers: GPUBuffer[] = [];
  for (const s of inputs) buffers.push(s.buffer.gpu);
  for (const s of outputs) buffers.push(s.buffer.gpu);
  ctx.dispatch(program, buffers, params, grid(Math.ceil((p.vec4 ? Math.ceil(Math.ceil(n / 4) / FZ_VEC4S) : n) / FZ_WORKGROUP), ctx.maxWorkgroupsPerDim));
}

/** Whether a kernel with these bindings and steps fits: parameter words counted as if every input were strided. */
function fits(ctx: GpuContext, reads: number, writes: number, exprs: readonly WgslExpr[], rank: number): boolean {
  let words = 1 + reads * (3 + rank) + rank;
  for (const e of exprs) words += e.params.length;
  return reads + writes <= ctx.maxStorageBuffers && words <= PARAM_WORDS;
}

/**
 * Runs a program over `inputs` into `outputs` (fresh, contiguous, of `shape`): one dispatch, or
 * consecutive parts when it needs more bindings or parameter words than one kernel may have.
 */
export function runProgram(ctx: GpuContext, attrs: FusedAttrs, inputs: readonly GpuStorage[], outputs: readonly RawStorage[], shape: readonly number[]): void {
  if (numel(shape) === 0) return;
  const rank = shape.length;
  const exprs = lowerSteps(attrs, inputs);
  if (fits(ctx, inputs.length, outputs.length, exprs, rank)) {
    dispatchProgram(ctx, attrs, exprs, inputs, outputs, shape);
    return;
  }
  // Values passed between parts: the record's outputs, else temporaries.
  const values = new Map<number, RawStorage>();
  attrs.outputs.forEach((s, j) => values.set(s, outputs[j]!));
  const temps: RawStorage[] = [];
  const dtypeOf = (a: FusedArg): { dtype: DType } => ('input' in a ? inputs[a.input]! : attrs.steps[a.step]!);
  const parts = partition(attrs, (part) => fits(ctx, part.reads.length, part.writes.length, lowerSteps(part.program, part.reads.map(dtypeOf)), rank));
  for (const part of parts) {
    const ins = part.reads.map((a): Input => ('input' in a ? inputs[a.input]! : values.get(a.step)!));
    const outs = part.writes.map((s) => {
      let v = values.get(s);
      if (!v) {
        v = freshStorage(ctx, shape, attrs.steps[s]!.dtype);
        values.set(s, v);
        temps.push(v);
      }
      return v;
    });
    dispatchProgram(ctx, part.program, lowerSteps(part.program, ins), ins, outs, shape);
  }
  for (const t of temps) ctx.unref(t.buffer);
}

export const fusedKernel: GpuKernel<'fused'> = {
  run(ctx, record, inputs) {
    const outputs = record.outputs.map((m) => freshStorage(ctx, m.shape, m.dtype));
    runProgram(ctx, record.attrs, inputs, outputs, record.outputs[0]!.shape);
    return outputs;
  },
};
