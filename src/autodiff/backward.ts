/**
 * Reverse-mode accumulation over the tape: nodes reachable from the root run in reverse
 * creation order (a topological order), each in its own tidy scope so its temporaries are freed
 * at once; gradients reaching one variable are summed. What backward consumed is released.
 *
 * With `createGraph` the rules run on the autodiff backend itself instead of the inner one, with
 * the saved values as the tracked variables they were: the gradients are then functions of the
 * graph that the tape records like any forward, so they can be differentiated again.
 */
import type { Backend, Handle } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { keep, tidy } from '../memory/tidy.js';
import { full } from '../tensor/creation.js';
import { isFloat } from '../ir/dtype.js';
import { Tensor } from '../tensor/tensor.js';
import type { FloatT, GradContext } from './gradients/rule.js';
import { Gradients } from './gradients.js';
import { continued, type Node, type Tape, type Var } from './tape.js';
import type { BackwardOptions } from './types.js';

/**
 * Where the rules run: the inner backend (plain gradients), or the autodiff backend with the tape
 * that a saved value's variable is given back to (gradients that are differentiable again).
 */
interface Engine {
  readonly backend: Backend;
  readonly tape: Tape | undefined;
}

/** Wraps a handle the tape keeps alive as a tensor of the engine's backend (with its own reference). */
function borrow(engine: Engine, h: Handle, v: Var | undefined): Tensor<Backend> {
  // A saved value whose tensor the user already freed left the tape's map: its ops must still
  // reach the variable (and the node behind it) the forward recorded.
  if (engine.tape && v) engine.tape.revive(v);
  engine.backend.retain(h);
  return new Tensor(engine.backend, h);
}

/** The nodes behind `root`, latest first, each with its output variable. */
function reachable(root: Var): Array<[Node, Var]> {
  const nodes = new Map<Node, Var>();
  const stack: Var[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const node = v.node;
    if (!node || nodes.has(node)) continue;
    if (node.released) {
      throw new ArgumentError(`the graph through op '${node.op}' was already used by a backward pass`, {
        op: 'backward',
        hint: 'pass { retainGraph: true } to the first backward to run through the graph twice, or run the forward again',
      });
    }
    nodes.set(node, v);
    for (const input of node.inputs) if (input) stack.push(input);
  }
  return [...nodes].sort(([a], [b]) => b.seq - a.seq);
}

function runRule(engine: Engine, node: Node, out: Var, dy: FloatT, needs: readonly boolean[]): Array<FloatT | undefined> {
  return tidy(() => {
    const borrowed = new Set<Handle>([dy.handle]);
    const inputs = new Map<number, Tensor<Backend>>();
    const ctx: GradContext<typeof node.op> = {
      attrs: node.record.attrs,
      backend: engine.backend,
      createGraph: engine.tape !== undefined,
      dy,
      metas: node.metas,
      needs,
      input: <K extends 'float' | 'int' | 'bool'>(i: number) => {
        const h = node.savedInputs?.[i];
        if (!h) throw new ArgumentError(`gradient rule of '${node.op}' reads input ${i}, which it did not save`, { op: 'backward' });
        let t = inputs.get(i);
        if (!t) inputs.set(i, (t = borrow(engine, h, node.inputs[i])));
        borrowed.add(h);
        return t as Tensor<Backend, K>;
      },
      output: () => {
        const h = node.savedOutput;
        if (!h) throw new ArgumentError(`gradient rule of '${node.op}' reads its output, which it did not save`, { op: 'backward' });
        borrowed.add(h);
        return borrow(engine, h, out) as FloatT;
      },
    };
    const grads = node.rule.backward(ctx);
    const seen = new Set<Handle>();
    return node.inputs.map((_, i) => {
      const g = grads[i];
      if (!needs[i] || !g) return undefined;
      // A gradient that aliases dy, a saved value or another input's gradient becomes its own view.
      const own = borrowed.has(g.handle) || seen.has(g.handle) ? g.reshape(g.shape) : g;
      seen.add(own.handle);
      return own;
    });
  });
}

function accumulate(grads: Map<Var, FloatT>, v: Var, g: FloatT): void {
  const prev = grads.get(v);
  if (!prev) {
    grads.set(v, g);
    return;
  }
  grads.set(v, prev.add(g));
  prev.dispose();
  g.dispose();
}

/** The nodes of `order` (latest first) through which some variable of `targets` is reached. */
function leadingTo(order: ReadonlyArray<[Node, Var]>, targets: ReadonlySet<Var>): Set<Node> {
  const leads = new Set<Node>();
  // Earliest first: a node's input nodes are decided before it.
  for (let k = order.length - 1; k >= 0; k--) {
    const node = order[k]![0];
    if (node.inputs.some((v) => v !== undefined && (targets.has(continued(v)) || (v.node !== undefined && leads.has(v.node))))) leads.add(node);
  }
  return leads;
}

/**
 * Runs backward from `root`; gradients come back as tensors of `outer`: untracked, or with
 * `createGraph` tracked (functions of the graph, differentiable again). With `targets` (the
 * `inputs` option) only their gradients are computed and reported.
 */
export function backward(tape: Tape, inner: Backend, outer: Backend, root: Handle, options: BackwardOptions = {}, targets?: readonly Var[]): Gradients {
  const rootVar = tape.get(root.id);
  if (!rootVar) {
    throw new ArgumentError(`tensor #${root.id} does not require grad: no graph leads to it`, {
      op: 'backward',
      hint: 'call requireGrad() on the leaves first, and build the loss outside noGrad()',
    });
  }
  const order = reachable(rootVar);
  const wanted = targets ? new Set(targets) : undefined;
  const leads = wanted ? leadingTo(order, wanted) : undefined;
  const reports = (v: Var): boolean => (wanted ? wanted.has(v) : v.keepGrad);
  const needed = (v: Var | undefined): boolean => v !== undefined && (!wanted || wanted.has(continued(v)) || (v.node !== undefined && leads !== undefined && leads.has(v.node)));
  const createGraph = options.createGraph === true;
  // torch: create_graph keeps the graph unless told otherwise (the second pass runs through it).
  const retainGraph = options.retainGraph ?? createGraph;
  const engine: Engine = createGraph ? { backend: outer, tape } : { backend: inner, tape: undefined };
  const grads = new Map<Var, FloatT>();
  const kept: Array<[number, FloatT]> = [];
  // The seed has the root's float dtype (float16 losses get float16 gradients).
  grads.set(rootVar, full(engine.backend, root.shape, 1, { device: root.device, dtype: isFloat(root.dtype) ? root.dtype : 'float32' }));
  const report = (v: Var, g: FloatT): void => {
    // The container's tensor belongs to the outer backend; tidy scopes around backward do not free it.
    engine.backend.retain(g.handle);
    kept.push([v.id, keep(new Tensor(outer, g.handle) as FloatT)]);
  };
  tape.pin();
  // The gradient being propagated: out of `grads` while its node's rule runs (freed if it throws).
  let current: FloatT | undefined;
  try {
    for (const [node, out] of order) {
      const dy = grads.get(out);
      if (dy) {
        grads.delete(out);
        current = dy;
        if (reports(out)) report(out, dy);
        if (!leads || leads.has(node)) {
          const inputGrads = runRule(engine, node, out, dy, node.inputs.map(needed));
          node.inputs.forEach((v, i) => {
            const g = inputGrads[i];
            // A leaf updated in place (Tape.continueLeaf) sums into the leaf that continues it.
            if (v && g) accumulate(grads, continued(v), g);
          });
        }
        current = undefined;
        dy.dispose();
      }
      // With targets, the nodes that did not run keep what they saved (torch frees what ran).
      if (!retainGraph && (!leads || leads.has(node))) tape.releaseNode(node);
    }
    for (const [v, g] of grads) {
      if (reports(v) && !v.node) report(v, g);
      g.dispose();
    }
  } catch (e) {
    current?.dispose();
    for (const g of grads.values()) g.dispose();
    for (const [, g] of kept) g.dispose();
    throw e;
  } finally {
    tape.unpin();
  }
  return new Gradients(kept);
}
