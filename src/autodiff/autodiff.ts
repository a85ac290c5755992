/**
 * Autodiff<B>: a decorator over any backend (Cpu, Wgpu, a Router). Every record is forwarded to
 * the inner backend unchanged; when a float op has a tracked input (and no noGrad scope is open),
 * the tape records the record and what its gradient rule needs. Reads and devices pass through.
 */
import type { Backend, Handle, TensorRef } from '../backends/backend.js';
import { Decorator, type DeviceOf } from '../backends/decorator.js';
import { ArgumentError, DTypeError, DeviceError } from '../errors.js';
import type { OpRecord } from '../ir/ops.js';
import { backward } from './backward.js';
import { gradOf } from './gradients/index.js';
import { NONE } from './gradients/rule.js';
import type { Gradients } from './gradients.js';
import { Tape, type Var } from './tape.js';
import type { AutodiffBackend, BackwardOptions } from './types.js';
import { isFloat } from '../ir/dtype.js';
import { checkArray, checkBoolean, checkKeys, checkOptions, field, show } from '../ir/validate.js';

export class Autodiff<B extends Backend> extends Decorator<B> implements AutodiffBackend<DeviceOf<B>> {
  readonly name: string;
  readonly autodiff = true as const;
  private readonly tape: Tape;

  constructor(inner: B) {
    super(inner);
    this.name = `autodiff<${inner.name}>`;
    this.tape = new Tape(inner);
  }

  override submit(record: OpRecord): void {
    this.inner.submit(record);
    if (record.inputs.length === 0 || !this.runtime.gradEnabled) return;
    const out = record.outputs[0];
    // Only float results carry gradients: int/bool outputs (argmax, comparisons, casts) cut the graph.
    if (record.outputs.length !== 1 || !isFloat(out!.dtype)) return;
    const rule = gradOf(record.op);
    if (rule === NONE) return;
    if (!this.tracksAny(record)) return;
    const outDevice = this.device(record.device);
    const inDevice = record.op === 'transfer' ? this.device(record.attrs.from) : outDevice;
    const inputs: Handle[] = new Array<Handle>(record.inputs.length);
    for (let i = 0; i < inputs.length; i++) {
      const m = record.inputs[i]!;
      inputs[i] = { id: m.id, shape: m.shape, dtype: m.dtype, device: inDevice };
    }
    this.tape.record(record, rule, inputs, { id: out!.id, shape: out!.shape, dtype: out!.dtype, device: outDevice });
  }

  /** Whether the tape tracks an input of the record (a loop: this runs for every op). */
  private tracksAny(record: OpRecord): boolean {
    for (const m of record.inputs) if (this.tape.get(m.id) !== undefined) return true;
    return false;
  }

  private device(key: string): DeviceOf<B> {
    const d = this.deviceOf(key);
    if (!d) throw new DeviceError(`autodiff<${this.inner.name}> does not know device '${key}'`, { op: 'autodiff', devices: [key] });
    return d;
  }

  /** A tracked tensor's copy is a variable of its own, which the tape forgets with it: never reuse one. */
  override replica(input: Handle, device: DeviceOf<B>): Handle | undefined {
    return this.tape.get(input.id) !== undefined ? undefined : this.inner.replica?.(input, device);
  }

  override retain(t: TensorRef): void {
    this.inner.retain(t);
    this.tape.retain(t.id);
  }

  override release(t: TensorRef): void {
    this.tape.release(t.id);
    this.inner.release(t);
  }

  requireGrad(h: Handle): void {
    if (!isFloat(h.dtype)) {
      throw new DTypeError('only float tensors can require grad', { op: 'requireGrad', dtypes: [h.dtype], hint: 'cast with .cast("float32") first' });
    }
    this.tape.leaf(h.id);
  }

  continueLeaf(from: TensorRef, to: TensorRef): boolean {
    return this.tape.continueLeaf(from.id, to.id);
  }

  requiresGrad(h: TensorRef): boolean {
    return this.tape.get(h.id) !== undefined;
  }

  backward(h: Handle, options?: BackwardOptions): Gradients {
    // Untyped callers: a typo ({ retain_graph: true }) would silently free the graph.
    checkOptions('backward', options);
    checkKeys('backward', options, ['retainGraph', 'createGraph', 'inputs']);
    for (const key of ['retainGraph', 'createGraph'] as const) {
      const v = field(options, key);
      if (v !== undefined) checkBoolean('backward', key, v);
    }
    const inputs = field(options, 'inputs');
    return backward(this.tape, this.inner, this, h, options, inputs === undefined ? undefined : this.inputVars(inputs));
  }

  /** The variables of backward's `inputs` (checked for untyped callers). */
  private inputVars(inputs: unknown): Var[] {
    const list = checkArray('backward', 'inputs', inputs);
    // torch: "grad requires non-empty inputs" (an empty list would silently compute nothing).
    if (list.length === 0) throw new ArgumentError('inputs is empty', { op: 'backward', hint: 'list the tensors whose gradients you want, or leave inputs out for every leaf' });
    const vars: Var[] = [];
    // An index loop: a sparse array's holes are entries too (map would skip them).
    for (let i = 0; i < list.length; i++) {
      const t = list[i];
      const name = `inputs[${i}]`;
      if (field(t, 'backend') !== this) throw new ArgumentError(`${name} must be a tensor of ${this.name}, got ${show(t)}`, { op: 'backward' });
      if (field(t, 'isDisposed') === true) throw new ArgumentError(`${name} was disposed`, { op: 'backward' });
      const id = field(t, 'id');
      const v = typeof id === 'number' ? this.tape.get(id) : undefined;
      if (!v) {
        const dtype = field(t, 'dtype');
        const hint = dtype === 'int32' || dtype === 'bool' ? `a ${dtype} tensor has no gradient: only float tensors can require grad` : 'call requireGrad() on it before the forward pass';
        throw new ArgumentError(`${name} (tensor #${show(id)}) does not require grad`, { op: 'backward', hint });
      }
      vars.push(v);
    }
    return vars;
  }
}
