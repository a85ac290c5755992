/**
 * The tape: one node per recorded op record, linked to the variables of its inputs. Variables
 * are keyed by tensor id (the tape speaks the record's language, so it can be inspected and
 * serialised); a variable leaves the map when the tensor it tracks is released, and a node lives
 * as long as some variable downstream of it does. A node's saved tensors are released when
 * backward consumes it, or as soon as nothing can reach it any more (its output's tensor is gone
 * and no live node reads it: counted, as torch's reference counts free a graph at once), with a
 * finaliser as the backstop for tensors that were never disposed.
 */
import type { Backend, Handle } from '../backends/backend.js';
import type { OpRecord } from '../ir/ops.js';
import type { GradRule } from './gradients/rule.js';

/** A tensor the graph tracks: a leaf (no node) or an op output. */
export interface Var {
  readonly id: number;
  readonly node: Node | undefined;
  /** Report this variable's gradient (true for leaves; set on outputs by requireGrad). */
  keepGrad: boolean;
  /** References held through the autodiff backend (the Tensor's own, plus retains). */
  refs: number;
  /** Unreleased nodes that read this variable (once per input slot). */
  uses: number;
  /** The leaf that took this one's place (Tape.continueLeaf): its gradient goes there. */
  next?: Var;
}

/** The variable a leaf's gradient goes to: the last of the leaves that continued it. */
export function continued(v: Var): Var {
  let last = v;
  while (last.next) last = last.next;
  // Shortens the chain for the next reader (a weight renormed at each of many forwards).
  if (v.next && v.next !== last) v.next = last;
  return last;
}

let nextSeq = 0;

/** One recorded op. Nodes are created after their inputs' nodes, so `seq` orders them topologically. */
export class Node {
  readonly seq = nextSeq++;
  /** Saved forward values, or undefined once released. */
  savedInputs: Array<Handle | undefined> | undefined;
  savedOutput: Handle | undefined;
  released = false;

  constructor(
    /** The op's record as it was submitted. */
    readonly record: OpRecord,
    readonly rule: GradRule<OpRecord['op']>,
    /** The inputs' variables (undefined for inputs the graph does not track); cleared once consumed. */
    public inputs: Array<Var | undefined>,
    /** Every input's metadata (shape, dtype, device), without its storage. */
    readonly metas: readonly Handle[],
  ) {}

  get op(): OpRecord['op'] {
    return this.record.op;
  }
}

interface Saved {
  backend: Backend;
  handles: Handle[];
}

// A node never backpropagated frees its saved tensors once the graph is garbage.
const finalizer = new FinalizationRegistry<Saved>(({ backend, handles }) => {
  for (const h of handles) backend.release(h);
});

export class Tape {
  private readonly vars = new Map<number, Var>();
  /** While backward runs, nodes it will still visit must not be freed: candidates wait here. */
  private pins = 0;
  private pending: Var[] = [];

  constructor(private readonly inner: Backend) {}

  get(id: number): Var | undefined {
    return this.vars.get(id);
  }

  /** Variables tracked now (for inspection and tests). */
  get size(): number {
    return this.vars.size;
  }

  leaf(id: number): void {
    const v = this.vars.get(id);
    if (v) v.keepGrad = true;
    else this.vars.set(id, { id, node: undefined, keepGrad: true, refs: 1, uses: 0 });
  }

  /**
   * Leaf `to` takes the place of leaf `from`, as an in-place update of a tensor would in torch
   * (Embedding's max_norm renorms its table so within a forward pass): nodes recorded against
   * `from` send their gradient to `to`, which is reported as one sum. False, and nothing changes,
   * when `from` is not a tracked leaf or `to` is tracked already.
   */
  continueLeaf(from: number, to: number): boolean {
    const v = this.vars.get(from);
    if (!v || v.node || this.vars.has(to)) return false;
    const w: Var = { id: to, node: undefined, keepGrad: v.keepGrad, refs: 1, uses: 0 };
    v.next = w;
    this.vars.set(to, w);
    return true;
  }

  /**
   * Puts a variable that left the map (its tensor was freed) back while backward with
   * createGraph reads its saved value; the borrowed tensor's retain and release count it out again.
   */
  revive(v: Var): void {
    if (this.vars.has(v.id)) return;
    v.refs = 0;
    this.vars.set(v.id, v);
  }

  retain(id: number): void {
    const v = this.vars.get(id);
    if (v) v.refs++;
  }

  /** The tensor lost one owner; its variable goes with the last (nodes downstream still hold it). */
  release(id: number): void {
    const v = this.vars.get(id);
    if (v && --v.refs <= 0) {
      this.vars.delete(id);
      if (v.uses === 0) this.drop(v);
    }
  }

  /** Holds back the freeing of unreachable nodes (backward visits nodes whose outputs are gone). */
  pin(): void {
    this.pins++;
  }

  unpin(): void {
    if (--this.pins > 0) return;
    const pending = this.pending;
    this.pending = [];
    for (const v of pending) this.drop(v);
  }

  /** Frees `v`'s node, and the nodes behind it, where nothing can reach them any more. */
  private drop(v: Var): void {
    if (this.pins > 0) {
      this.pending.push(v);
      return;
    }
    const stack = [v];
    while (stack.length > 0) {
      const u = stack.pop()!;
      const node = u.node;
      if (!node || node.released || u.uses > 0 || this.vars.get(u.id) === u) continue;
      for (const input of this.free(node)) if (input.uses === 0) stack.push(input);
    }
  }

  /** Records `record` if one of its inputs is tracked; `rule` says what to keep for backward. */
  record(record: OpRecord, rule: GradRule<OpRecord['op']>, inputs: readonly Handle[], output: Handle): void {
    let tracked = false;
    const vars = record.inputs.map((m) => {
      const v = this.vars.get(m.id);
      if (v) tracked = true;
      return v;
    });
    if (!tracked) return;
    for (const v of vars) if (v) v.uses++;
    const node = new Node(record, rule, vars, inputs);
    const handles: Handle[] = [];
    const keep = (h: Handle): Handle => {
      this.inner.retain(h);
      handles.push(h);
      return h;
    };
    if (rule.saveInputs) {
      node.savedInputs = inputs.map(() => undefined);
      for (const i of rule.saveInputs) node.savedInputs[i] = keep(inputs[i]!);
    }
    if (rule.saveOutput) node.savedOutput = keep(output);
    if (handles.length > 0) finalizer.register(node, { backend: this.inner, handles }, node);
    this.vars.set(output.id, { id: output.id, node, keepGrad: false, refs: 1, uses: 0 });
  }

  /** Drops what a node saved: after backward used it, unless the graph is retained. */
  releaseNode(node: Node): void {
    for (const input of this.free(node)) if (input.uses === 0) this.drop(input);
  }

  /** Releases what `node` saved and its hold on its inputs; returns the inputs it let go of. */
  private free(node: Node): Var[] {
    if (node.released) return [];
    node.released = true;
    finalizer.unregister(node);
    for (const h of node.savedInputs ?? []) if (h) this.inner.release(h);
    if (node.savedOutput) this.inner.release(node.savedOutput);
    node.savedInputs = undefined;
    node.savedOutput = undefined;
    const inputs: Var[] = [];
    for (const v of node.inputs) {
      if (!v) continue;
      v.uses--;
      inputs.push(v);
    }
    node.inputs = [];
    return inputs;
  }
}
