/**
 * The tape: one node per recorded op, linked to the nodes of its inputs. Nothing global holds a
 * node: a tensor's handle leads to its variable (a WeakMap entry), the variable to its node,
 * and the node to its inputs' variables. So a graph lives exactly as long as some tensor of it
 * does; its saved tensors are released when backward consumes a node, or by a finaliser when
 * the node becomes unreachable.
 */
import type { Backend, Handle } from '../backends/backend.js';
import type { OpAttrs, OpName } from '../ir/ops.js';
import type { GradRule } from './gradients/rule.js';

/** A tensor the graph tracks: a leaf (no node) or an op output. */
export interface Var {
  readonly id: number;
  readonly node: Node | undefined;
  /** Report this variable's gradient (true for leaves; set on outputs by requireGrad). */
  keepGrad: boolean;
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
    readonly op: OpName,
    readonly attrs: OpAttrs[OpName],
    readonly rule: GradRule<OpName>,
    /** The inputs' variables (undefined for inputs the graph does not track); cleared once consumed. */
    public inputs: Array<Var | undefined>,
    /** Every input's metadata (shape, dtype, device), without its storage. */
    readonly metas: readonly Handle[],
  ) {}
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
  private readonly vars = new WeakMap<Handle, Var>();

  constructor(private readonly inner: Backend) {}

  get(h: Handle): Var | undefined {
    return this.vars.get(h);
  }

  leaf(h: Handle): void {
    const v = this.vars.get(h);
    if (v) v.keepGrad = true;
    else this.vars.set(h, { id: h.id, node: undefined, keepGrad: true });
  }

  /** Records `op` if one of its inputs is tracked; `rule` says what to keep for backward. */
  record(op: OpName, inputs: readonly Handle[], attrs: OpAttrs[OpName], rule: GradRule<OpName>, output: Handle): void {
    let tracked = false;
    const vars = inputs.map((h) => {
      const v = this.vars.get(h);
      if (v) tracked = true;
      return v;
    });
    if (!tracked) return;
    const metas = inputs.map(({ id, shape, dtype, device }) => ({ id, shape, dtype, device }));
    const node = new Node(op, attrs, rule, vars, metas);
    const handles: Handle[] = [];
    const keep = (h: Handle): Handle => {
      this.inner.retain(h);
      // The finaliser's copy: holding the handle itself (a WeakMap key) would keep the graph alive.
      handles.push({ id: h.id, shape: h.shape, dtype: h.dtype, device: h.device });
      return h;
    };
    if (rule.saveInputs) {
      node.savedInputs = inputs.map(() => undefined);
      for (const i of rule.saveInputs) node.savedInputs[i] = keep(inputs[i]!);
    }
    if (rule.saveOutput) node.savedOutput = keep(output);
    if (handles.length > 0) finalizer.register(node, { backend: this.inner, handles }, node);
    this.vars.set(output, { id: output.id, node, keepGrad: false });
  }

  /** Drops what a node saved: after backward used it, unless the graph is retained. */
  release(node: Node): void {
    if (node.released) return;
    node.released = true;
    finalizer.unregister(node);
    for (const h of node.savedInputs ?? []) if (h) this.inner.release(h);
    if (node.savedOutput) this.inner.release(node.savedOutput);
    node.savedInputs = undefined;
    node.savedOutput = undefined;
    node.inputs = [];
  }
}
