/**
 * Fused elementwise programs: the attrs of a `fused` record. A program is a list of steps, each
 * an elementwise op of the table (unary, parameterised unary, binary, scalar, clamp, cast, copy,
 * where, maskFill) over the record's inputs or earlier steps, all of one output shape (inputs broadcast to
 * it). The record's outputs are the values of some steps. Scalars stay in the steps' attrs, so
 * backends pass them as kernel parameters and cache a kernel by the program's structure only.
 */
import type { DType } from './dtype.js';
import { isBinaryOp, isParamUnaryOp, isScalarOp, isUnaryOp, type BinaryOp, type ParamUnaryOp, type ScalarOp, type UnaryOp } from './elementwise.js';
import type { OpAttrs, OpRecord } from './ops.js';

/**
 * The ops a fused program may hold: every op of the elementwise kernel group, and `full` as a
 * step without operands (a constant, broadcast like a parameter).
 */
export type FusableOp = UnaryOp | ParamUnaryOp | BinaryOp | ScalarOp | 'clamp' | 'cast' | 'copy' | 'where' | 'maskFill' | 'full';

/** An op with its attrs (a record without ids and metas), discriminated by `op`. */
export type FusableCall = { [K in FusableOp]: { readonly op: K; readonly attrs: OpAttrs[K] } }[FusableOp];

/** A step's operand: one of the record's inputs, or an earlier step's value. */
export type FusedArg = { readonly input: number } | { readonly step: number };

export type FusedStep = FusableCall & {
  readonly args: readonly FusedArg[];
  /** The step's value dtype (what the op's own record would have produced). */
  readonly dtype: DType;
};

export interface FusedAttrs {
  readonly steps: readonly FusedStep[];
  /** For each record output, the step whose value it holds. */
  readonly outputs: readonly number[];
}

const FAMILY = new Map<string, boolean>();

/** Whether `op` is an elementwise op a fused program can hold (cached: this runs for every op). */
export function isFusableOp(op: string): op is FusableOp {
  let f = FAMILY.get(op);
  if (f === undefined) {
    f = op === 'clamp' || op === 'cast' || op === 'copy' || op === 'where' || op === 'maskFill' || op === 'full' || isUnaryOp(op) || isParamUnaryOp(op) || isBinaryOp(op) || isScalarOp(op);
    FAMILY.set(op, f);
  }
  return f;
}

export function isFusableRecord(r: OpRecord): r is Extract<OpRecord, { op: FusableOp }> {
  return isFusableOp(r.op);
}

export function isScalarCall(c: FusableCall): c is Extract<FusableCall, { op: ScalarOp }> {
  return isScalarOp(c.op);
}

export function isParamUnaryCall(c: FusableCall): c is Extract<FusableCall, { op: ParamUnaryOp }> {
  return isParamUnaryOp(c.op);
}

/** A record as a step of a program reading `args`. */
export function stepOf(record: Extract<OpRecord, { op: FusableOp }>, args: readonly FusedArg[]): FusedStep {
  // Named fields, not a rest pattern (this runs for every elementwise op, and rest copies are
  // slow); the union member is the record's own, chosen by `op` (as in src/ir/builder.ts).
  return { op: record.op, attrs: record.attrs, args, dtype: record.outputs[0]!.dtype } as FusedStep;
}

/** A call (op and attrs) as a step reading `args`, with the dtype its value has. */
export function stepOfCall(call: FusableCall, args: readonly FusedArg[], dtype: DType): FusedStep {
  // Named fields, as stepOf: the union member is the call's own, chosen by `op`.
  return { op: call.op, attrs: call.attrs, args, dtype } as FusedStep;
}

/**
 * The steps marked in `keep`, renumbered in order and reading only the inputs they use: a
 * program made of part of another. `stepIndex[s]` is step s's index there (-1 if not kept);
 * `inputs[j]` is the original index of its input j.
 */
export function selectSteps(steps: readonly FusedStep[], keep: readonly boolean[]): { steps: FusedStep[]; stepIndex: number[]; inputs: number[] } {
  const stepIndex = new Array<number>(steps.length).fill(-1);
  const inputIndex = new Map<number, number>();
  const inputs: number[] = [];
  const kept: FusedStep[] = [];
  steps.forEach((st, s) => {
    if (!keep[s]) return;
    const args = st.args.map((a): FusedArg => {
      if ('step' in a) return { step: stepIndex[a.step]! };
      let j = inputIndex.get(a.input);
      if (j === undefined) {
        j = inputs.length;
        inputs.push(a.input);
        inputIndex.set(a.input, j);
      }
      return { input: j };
    });
    stepIndex[s] = kept.length;
    kept.push(stepOfCall(st, args, st.dtype));
  });
  return { steps: kept, stepIndex, inputs };
}

/** The dtype of a step's first operand (which picks the int / bool variant of its expression). */
export function argDType(arg: FusedArg, inputs: readonly { readonly dtype: DType }[], steps: readonly FusedStep[]): DType {
  return 'input' in arg ? inputs[arg.input]!.dtype : steps[arg.step]!.dtype;
}

/**
 * The dtype that picks a step's expression variant: its first operand's, or its own for a
 * constant and for maskFill (whose first operand is the bool mask; its value takes x's dtype).
 */
export function stepDType(st: FusedStep, inputs: readonly { readonly dtype: DType }[], steps: readonly FusedStep[]): DType {
  const a = st.args[0];
  return a === undefined || st.op === 'maskFill' ? st.dtype : argDType(a, inputs, steps);
}

/**
 * The structure of a program, without sizes or scalar values: what a kernel cache is keyed by
 * (with the backend's own per-input read modes).
 */
export function fusedStructure(attrs: FusedAttrs, inputs: readonly { readonly dtype: DType }[]): string {
  let s = '';
  for (const st of attrs.steps) {
    s += st.op;
    for (const a of st.args) s += 'input' in a ? `,i${a.input}` : `,s${a.step}`;
    s += `:${st.dtype}:${stepDType(st, inputs, attrs.steps)};`;
  }
  s += `>${attrs.outputs.join(',')}<`;
  for (const m of inputs) s += `${m.dtype},`;
  return s;
}

/** One dispatch's share of a program that does not fit one kernel: steps [lo, hi). */
export interface FusedPart {
  readonly lo: number;
  readonly hi: number;
  /** What the part reads: record inputs and values of earlier steps. */
  readonly reads: readonly FusedArg[];
  /** The steps of the part whose values leave it (record outputs, or read by later parts). */
  readonly writes: readonly number[];
  /** The part as a program of its own: inputs are `reads`, outputs are `writes`. */
  readonly program: FusedAttrs;
}

function partOf(attrs: FusedAttrs, lo: number, hi: number, laterReads: ReadonlySet<number>): FusedPart {
  const reads: FusedArg[] = [];
  const readIndex = new Map<string, number>();
  const steps: FusedStep[] = [];
  for (let s = lo; s < hi; s++) {
    const st = attrs.steps[s]!;
    const args = st.args.map((a): FusedArg => {
      if ('step' in a && a.step >= lo) return { step: a.step - lo };
      const key = 'input' in a ? `i${a.input}` : `s${a.step}`;
      let j = readIndex.get(key);
      if (j === undefined) {
        j = reads.length;
        reads.push(a);
        readIndex.set(key, j);
      }
      return { input: j };
    });
    steps.push({ ...st, args });
  }
  const outs = new Set(attrs.outputs);
  const writes: number[] = [];
  for (let s = lo; s < hi; s++) if (outs.has(s) || laterReads.has(s)) writes.push(s);
  return { lo, hi, reads, writes, program: { steps, outputs: writes.map((s) => s - lo) } };
}

/**
 * Cuts a program into consecutive parts that each satisfy `fits` (a backend's limits on bindings
 * and parameters), greedily: each part takes as many steps as fit. A single step always forms a
 * part, even if `fits` refuses it.
 */
export function partition(attrs: FusedAttrs, fits: (part: FusedPart) => boolean): FusedPart[] {
  const n = attrs.steps.length;
  // readFrom[h]: steps read by some step at or after h (what a part ending at h must write).
  const readFrom: Array<Set<number>> = new Array<Set<number>>(n + 1);
  readFrom[n] = new Set();
  for (let h = n - 1; h >= 0; h--) {
    const s = new Set(readFrom[h + 1]);
    for (const a of attrs.steps[h]!.args) if ('step' in a) s.add(a.step);
    readFrom[h] = s;
  }
  const parts: FusedPart[] = [];
  let lo = 0;
  while (lo < n) {
    let best = partOf(attrs, lo, lo + 1, readFrom[lo + 1]!);
    for (let hi = lo + 2; hi <= n; hi++) {
      const p = partOf(attrs, lo, hi, readFrom[hi]!);
      if (!fits(p)) break;
      best = p;
    }
    parts.push(best);
    lo = best.hi;
  }
  return parts;
}
