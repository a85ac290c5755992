/**
 * A chain of elementwise ops over tensors of one shape, written with tensor-like methods on
 * `ProgramValue`s and run either as one 'fused' record (one kernel on WebGPU) or op by op, with
 * the very records the tensor methods make. Optimizers write each parameter's update this way
 * (torch's `fused=True`): Adam's fourteen ops per parameter become one dispatch where the backend
 * fuses elementwise chains, and stay the CPU's wasm passes where it does not.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, ShapeError } from '../errors.js';
import type { DType, Kind } from '../ir/dtype.js';
import type { BinaryOp, ScalarOp, UnaryOp } from '../ir/elementwise.js';
import { selectSteps, stepOfCall, type FusableCall, type FusedArg, type FusedStep } from '../ir/fused.js';
import { inferOutputs } from '../ir/infer.js';
import { sameShape } from '../ir/shape.js';
import { arithScalar, checkArray, checkDType, show } from '../ir/validate.js';
import { checkTensor, Tensor } from './tensor.js';

/** The arithmetic a value offers: the scalar form for a number, the binary op for a value. */
const SCALAR_OF = { add: 'addScalar', sub: 'subScalar', mul: 'mulScalar', div: 'divScalar', maximum: 'maximumScalar', minimum: 'minimumScalar' } as const satisfies Partial<Record<BinaryOp, ScalarOp>>;
type Arith = keyof typeof SCALAR_OF;

/** One value of a program: an input or a step. Combine values of one program only. */
export class ProgramValue {
  /** @internal */
  constructor(
    /** @internal */
    readonly program: ProgramSteps,
    /** @internal */
    readonly arg: FusedArg,
    readonly dtype: DType,
    /** @internal Whether it has the program's shape (steps do; an input may broadcast to it). */
    readonly full = true,
  ) {}

  add(other: ProgramValue | number): ProgramValue {
    return this.arith('add', other);
  }
  sub(other: ProgramValue | number): ProgramValue {
    return this.arith('sub', other);
  }
  mul(other: ProgramValue | number): ProgramValue {
    return this.arith('mul', other);
  }
  div(other: ProgramValue | number): ProgramValue {
    return this.arith('div', other);
  }
  maximum(other: ProgramValue | number): ProgramValue {
    return this.arith('maximum', other);
  }
  minimum(other: ProgramValue | number): ProgramValue {
    return this.arith('minimum', other);
  }
  neg(): ProgramValue {
    return this.unary('neg');
  }
  abs(): ProgramValue {
    return this.unary('abs');
  }
  square(): ProgramValue {
    return this.unary('square');
  }
  sqrt(): ProgramValue {
    return this.unary('sqrt');
  }
  /** A copy (a value of its own, as Tensor.clone). */
  clone(): ProgramValue {
    return this.program.add({ op: 'copy', attrs: {} }, [this]);
  }
  /** This value in another dtype (Tensor.cast's rules). */
  cast(dtype: DType): ProgramValue {
    return this.program.add({ op: 'cast', attrs: { dtype: checkDType('cast', dtype) } }, [this]);
  }

  private unary(op: Extract<UnaryOp, 'neg' | 'abs' | 'square' | 'sqrt'>): ProgramValue {
    return this.program.add({ op, attrs: {} }, [this]);
  }

  private arith(op: Arith, other: ProgramValue | number): ProgramValue {
    // A number is checked and takes this value's dtype, as the tensor methods' scalars do.
    if (typeof other === 'number') return this.program.add({ op: SCALAR_OF[op], attrs: { scalar: arithScalar(op, this.dtype, other) } }, [this]);
    const o: unknown = other;
    if (!(o instanceof ProgramValue)) throw new ArgumentError(`the other operand must be a number or a value of the same program, got ${show(o)}`, { op });
    return this.program.add({ op, attrs: {} }, [this, o]);
  }
}

/** Each step's dtype by op (with a cast's target) and operand dtypes: an elementwise op's result depends on nothing else. */
const STEP_DTYPES = new Map<string, DType>();

/** The op's own rule on operands of `shape`: dtypes it refuses throw here, as its tensor method would. */
function stepDType(key: string, call: FusableCall, args: readonly ProgramValue[], shape: readonly number[]): DType {
  const known = STEP_DTYPES.get(key);
  if (known !== undefined) return known;
  const [out] = inferOutputs(call, args.map((a) => ({ shape, dtype: a.dtype })));
  if (!out || !sameShape(out.shape, shape)) throw new ShapeError(`${call.op} does not keep the program's shape`, { op: call.op, shapes: [shape] });
  STEP_DTYPES.set(key, out.dtype);
  return out.dtype;
}

/** Whether a tensor of shape `from` broadcasts to `to` unchanged (NumPy's rule, trailing dims). */
function broadcastsTo(from: readonly number[], to: readonly number[]): boolean {
  if (from.length > to.length) return false;
  for (let i = 1; i <= from.length; i++) {
    const d = from[from.length - i];
    if (d !== 1 && d !== to[to.length - i]) return false;
  }
  return true;
}

/** What values add their steps to. */
interface ProgramSteps {
  add(call: FusableCall, args: readonly ProgramValue[]): ProgramValue;
}

/**
 * A program over tensors of `shape` on one device of one backend. `input` adds a tensor, the
 * values' methods add steps (each checked as its tensor method would be), and `run` computes the
 * outputs asked for: fused into one record, or op by op.
 */
export class ElementwiseProgram<B extends Backend> {
  private readonly inputs: Array<Tensor<B, Kind>> = [];
  private readonly steps: FusedStep[] = [];
  private readonly values: ProgramValue[] = [];
  private readonly shape: readonly number[];
  private readonly backend: B;

  constructor(first: Tensor<B, Kind>) {
    checkTensor('ElementwiseProgram', 'the first input', first);
    this.backend = first.backend;
    this.shape = first.shape;
  }

  /** A tensor of the program's shape, or of one that broadcasts to it (a [1] scale over a matrix). */
  input(t: Tensor<B, Kind>): ProgramValue {
    checkTensor('fused', 'an input', t);
    const full = sameShape(t.shape, this.shape);
    if (!full && !broadcastsTo(t.shape, this.shape)) {
      throw new ShapeError(`an input of shape [${t.shape.join(', ')}] does not broadcast to the program's [${this.shape.join(', ')}]`, { op: 'fused', shapes: [this.shape, t.shape] });
    }
    const at = this.inputs.indexOf(t);
    if (at >= 0) return this.values[at]!;
    this.inputs.push(t);
    const v = new ProgramValue(this, { input: this.inputs.length - 1 }, t.dtype, full);
    this.values.push(v);
    return v;
  }

  /** @internal */
  add(call: FusableCall, args: readonly ProgramValue[]): ProgramValue {
    // Loops, not maps and spreads: an optimizer adds a dozen steps per parameter per step.
    const fargs: FusedArg[] = new Array<FusedArg>(args.length);
    // A cast's dtype is its attr's: part of the key.
    let key = call.op === 'cast' ? `cast>${call.attrs.dtype}` : call.op;
    let full = false;
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a.program !== this) throw new ArgumentError('a value of another program', { op: call.op, hint: 'combine values of one ElementwiseProgram only' });
      fargs[i] = a.arg;
      key += `,${a.dtype}`;
      full ||= a.full;
    }
    // Every step has the program's shape (what one fused kernel computes): a broadcast input is
    // combined with a full value, never used alone.
    if (!full) throw new ShapeError(`${call.op} reads only inputs of a smaller shape than the program's [${this.shape.join(', ')}]`, { op: call.op, shapes: [this.shape], hint: 'compute it as a tensor first and pass the result as an input' });
    const dtype = stepDType(key, call, args, this.shape);
    this.steps.push(stepOfCall(call, fargs, dtype));
    return new ProgramValue(this, { step: this.steps.length - 1 }, dtype);
  }

  /**
   * The tensors of `outputs` (steps of this program, each once): one 'fused' record when `fuse`,
   * else one record per step (intermediates freed). Steps no output needs are not computed.
   */
  run(outputs: readonly ProgramValue[], fuse: boolean): Array<Tensor<B, Kind>> {
    const list = checkArray('fused', 'outputs', outputs);
    const wanted = list.map((v) => {
      if (!(v instanceof ProgramValue) || v.program !== this || !('step' in v.arg) || this.steps[v.arg.step] === undefined) {
        throw new ArgumentError(`an output must be a step of this program (not an input), got ${show(v)}`, { op: 'fused', hint: 'use v.clone() to output an input as it is' });
      }
      return v.arg.step;
    });
    // Nothing asked for: nothing to run, either way.
    if (wanted.length === 0) return [];
    if (new Set(wanted).size !== wanted.length) throw new ArgumentError('the same step is listed twice as an output', { op: 'fused', hint: 'clone() it for a second tensor' });
    const live = this.liveSteps(wanted);
    return fuse ? this.runFused(wanted, live) : this.runEach(wanted, live);
  }

  /** Whether each step is needed by an output. */
  private liveSteps(wanted: readonly number[]): boolean[] {
    const live = new Array<boolean>(this.steps.length).fill(false);
    for (const s of wanted) live[s] = true;
    for (let s = this.steps.length - 1; s >= 0; s--) {
      if (!live[s]) continue;
      for (const a of this.steps[s]!.args) if ('step' in a) live[a.step] = true;
    }
    return live;
  }

  private runFused(wanted: readonly number[], live: readonly boolean[]): Array<Tensor<B, Kind>> {
    // The live steps renumbered; inputs no live step reads are dropped.
    const { steps, stepIndex, inputs: reads } = selectSteps(this.steps, live);
    const inputs = reads.map((i) => this.inputs[i]!);
    return Tensor.run(this.backend, 'fused', inputs, { steps, outputs: wanted.map((s) => stepIndex[s]!) });
  }

  private runEach(wanted: readonly number[], live: readonly boolean[]): Array<Tensor<B, Kind>> {
    const made: Array<Tensor<B, Kind> | undefined> = new Array<Tensor<B, Kind> | undefined>(this.steps.length);
    let done = false;
    try {
      this.steps.forEach((st, s) => {
        if (!live[s]) return;
        const args = st.args.map((a) => ('step' in a ? made[a.step]! : this.inputs[a.input]!));
        made[s] = Tensor.run(this.backend, st.op, args, st.attrs)[0];
      });
      done = true;
      return wanted.map((s) => made[s]!);
    } finally {
      // Intermediates now; everything made if a step threw.
      const keep = new Set(done ? wanted : []);
      made.forEach((t, s) => {
        if (t && !keep.has(s)) t.dispose();
      });
    }
  }
}
