/**
 * A group of buffered elementwise records of one device and one output shape: the fused program
 * being built. Each record is a step; its inputs are earlier steps or the group's external
 * inputs (tensors that already exist below, broadcast to the group's shape). At flush the group
 * becomes one record (a few where some steps read a result that may fail at run time: build):
 * only the steps whose tensors still have owners are outputs, and only what they need is computed.
 */
import type { TensorRef } from '../backends/backend.js';
import { selectSteps, stepOf, type FusableOp, type FusedArg, type FusedStep } from '../ir/fused.js';
import type { OpRecord, TensorMeta } from '../ir/ops.js';

export type FusableRecord = Extract<OpRecord, { op: FusableOp }>;

export class Group {
  /** External inputs, each held (retained below) until the group is flushed. */
  readonly inputs: TensorMeta[] = [];
  readonly refs: TensorRef[] = [];
  private readonly inputIndex = new Map<number, number>();
  readonly steps: FusedStep[] = [];
  /**
   * The record of each step (a group that computes one op forwards it unchanged); undefined for
   * a constant copied in (`constant`), whose tensor is not this group's.
   */
  readonly records: Array<FusableRecord | undefined> = [];
  private readonly constants = new Map<number, number>();
  /** The step of each tensor a record step computes. */
  private readonly byTensor = new Map<number, number>();
  /** Owners of each step's tensor: the Tensor object, plus retains (an autodiff tape). */
  readonly owners: number[] = [];

  constructor(
    readonly key: string,
    readonly device: string,
  ) {}

  get size(): number {
    return this.steps.length;
  }

  /** The argument for an external input; `hold` is called once per new input. */
  input(meta: TensorMeta, ref: TensorRef, hold: (ref: TensorRef) => void): FusedArg {
    let k = this.inputIndex.get(meta.id);
    if (k === undefined) {
      hold(ref);
      k = this.inputs.length;
      this.inputs.push(meta);
      this.refs.push(ref);
      this.inputIndex.set(meta.id, k);
    }
    return { input: k };
  }

  /** Adds a record as the next step; returns its index. */
  add(record: FusableRecord, args: readonly FusedArg[]): number {
    this.steps.push(stepOf(record, args));
    this.records.push(record);
    this.owners.push(1);
    this.byTensor.set(record.outputs[0]!.id, this.steps.length - 1);
    return this.steps.length - 1;
  }

  /**
   * A `full` record held outside any group, as a step of this one (once per tensor): its value is
   * computed where it is used, never stored. Returns the step.
   */
  constant(record: Extract<OpRecord, { op: 'full' }>): number {
    const id = record.outputs[0]!.id;
    let s = this.constants.get(id);
    if (s === undefined) {
      this.steps.push(stepOf(record, []));
      this.records.push(undefined);
      this.owners.push(0);
      s = this.steps.length - 1;
      this.constants.set(id, s);
    }
    return s;
  }

  /** The tensors this group's own steps compute (constants copied in are not among them). */
  *tensors(): Iterable<TensorMeta> {
    for (const r of this.records) if (r) yield r.outputs[0]!;
  }

  /** The step's output meta (a step of a record, not a copied constant). */
  output(step: number): TensorMeta {
    return this.records[step]!.outputs[0]!;
  }

  /** The step that computes tensor `id` (a step of a record). */
  stepOfTensor(id: number): number {
    return this.byTensor.get(id)!;
  }

  /**
   * What to submit at flush: nothing when no step's tensor has an owner; else the steps the
   * owned ones need, as records: the original record where a record holds one op, else a 'fused'
   * record (id from `opId`). Steps that depend on an input that may fail at run time (`fallible`:
   * an index checked by its kernel) go in records of their own, one per independent part (parts
   * joined by a step's result or a shared input), so that such a failure fails only the tensors
   * computed from it, as the unfused ops would; all the other steps make one record.
   */
  build(opId: () => number, fallible: (inputId: number) => boolean = () => false): Array<{ readonly record: OpRecord; readonly fallible: boolean }> {
    const n = this.steps.length;
    const needed = new Array<boolean>(n).fill(false);
    let live = 0;
    for (let s = 0; s < n; s++) {
      if (this.owners[s]! > 0) {
        needed[s] = true;
        live++;
      }
    }
    if (live === 0) return [];
    for (let s = n - 1; s >= 0; s--) {
      if (!needed[s]) continue;
      for (const a of this.steps[s]!.args) if ('step' in a) needed[a.step] = true;
    }
    // The common case (no fallible input): one record, without working out the parts.
    if (!this.inputs.some((m) => fallible(m.id))) return [{ record: this.buildPart(needed, opId), fallible: false }];
    // Parts: steps joined through their arguments (copied-in constants, computed where used, join nothing).
    const root = Array.from({ length: n }, (_, i) => i);
    const find = (i: number): number => {
      while (root[i] !== i) i = root[i] = root[root[i]!]!;
      return i;
    };
    const byInput = new Map<number, number>();
    for (let s = 0; s < n; s++) {
      if (!needed[s] || !this.records[s]) continue;
      for (const a of this.steps[s]!.args) {
        const other = 'step' in a ? (this.records[a.step] ? a.step : undefined) : byInput.get(a.input);
        if (!('step' in a) && other === undefined) byInput.set(a.input, s);
        if (other !== undefined) root[find(s)] = find(other);
      }
    }
    const risky = new Set<number>();
    for (let s = 0; s < n; s++) {
      if (!needed[s] || !this.records[s]) continue;
      for (const a of this.steps[s]!.args) if (!('step' in a) && fallible(this.inputs[a.input]!.id)) risky.add(find(s));
    }
    // One part for every safe step (the fused kernel as before), one per risky component.
    const SAFE = -1;
    const parts = new Map<number, boolean[]>();
    for (let s = 0; s < n; s++) {
      if (!needed[s] || !this.records[s]) continue;
      const r = find(s);
      const key = risky.has(r) ? r : SAFE;
      let part = parts.get(key);
      if (!part) parts.set(key, (part = new Array<boolean>(n).fill(false)));
      part[s] = true;
      for (const a of this.steps[s]!.args) if ('step' in a && !this.records[a.step]) part[a.step] = true;
    }
    return [...parts].map(([key, part]) => ({ record: this.buildPart(part, opId), fallible: key !== SAFE }));
  }

  /** One record of the steps marked in `part` (in step order). */
  private buildPart(part: readonly boolean[], opId: () => number): OpRecord {
    const n = this.steps.length;
    let count = 0;
    for (let s = 0; s < n; s++) if (part[s]) count++;
    if (count === 1) return this.records[part.indexOf(true)]!;
    const { steps, stepIndex, inputs: reads } = selectSteps(this.steps, part);
    const inputs = reads.map((i) => this.inputs[i]!);
    const outputs: number[] = [];
    const metas: TensorMeta[] = [];
    for (let s = 0; s < n; s++) {
      if (part[s] && this.owners[s]! > 0) {
        outputs.push(stepIndex[s]!);
        metas.push(this.output(s));
      }
    }
    return { id: opId(), op: 'fused', device: this.device, inputs, outputs: metas, attrs: { steps, outputs } };
  }
}
