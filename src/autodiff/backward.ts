/**
 * Reverse-mode accumulation over the tape: nodes reachable from the root run in reverse
 * creation order (a topological order), each in its own tidy scope so its temporaries are freed
 * at once; gradients reaching one variable are summed. What backward consumed is released.
 */
import type { Backend, Handle } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { keep, tidy } from '../memory/tidy.js';
import { full } from '../tensor/creation.js';
import { isFloat } from '../ir/dtype.js';
import { Tensor } from '../tensor/tensor.js';
import type { FloatT, GradContext } from './gradients/rule.js';
import { Gradients } from './gradients.js';
import type { Node, Tape, Var } from './tape.js';
import type { BackwardOptions } from './types.js';

/** Wraps a handle the tape keeps alive as a tensor of the inner backend (with its own reference). */
function borrow(inner: Backend, h: Handle): Tensor<Backend> {
  inner.retain(h);
  return new Tensor(inner, h);
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

function runRule(inner: Backend, node: Node, dy: FloatT): Array<FloatT | undefined> {
  return tidy(() => {
    const borrowed = new Set<Handle>([dy.handle]);
    const inputs = new Map<number, Tensor<Backend>>();
    const ctx: GradContext<typeof node.op> = {
      attrs: node.record.attrs,
      backend: inner,
      dy,
      metas: node.metas,
      needs: node.inputs.map((v) => v !== undefined),
      input: <K extends 'float' | 'int' | 'bool'>(i: number) => {
        const h = node.savedInputs?.[i];
        if (!h) throw new ArgumentError(`gradient rule of '${node.op}' reads input ${i}, which it did not save`, { op: 'backward' });
        let t = inputs.get(i);
        if (!t) inputs.set(i, (t = borrow(inner, h)));
        borrowed.add(h);
        return t as Tensor<Backend, K>;
      },
      output: () => {
        const h = node.savedOutput;
        if (!h) throw new ArgumentError(`gradient rule of '${node.op}' reads its output, which it did not save`, { op: 'backward' });
        borrowed.add(h);
        return borrow(inner, h) as FloatT;
      },
    };
    const grads = node.rule.backward(ctx);
    const seen = new Set<Handle>();
    return node.inputs.map((v, i) => {
      const g = grads[i];
      if (!v || !g) return undefined;
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

/** Runs backward from `root`; gradients come back as tensors of `outer` (untracked). */
export function backward(tape: Tape, inner: Backend, outer: Backend, root: Handle, options: BackwardOptions = {}): Gradients {
  const rootVar = tape.get(root.id);
  if (!rootVar) {
    throw new ArgumentError(`tensor #${root.id} does not require grad: no graph leads to it`, {
      op: 'backward',
      hint: 'call requireGrad() on the leaves first, and build the loss outside noGrad()',
    });
  }
  const order = reachable(rootVar);
  const grads = new Map<Var, FloatT>();
  const kept: Array<[number, FloatT]> = [];
  // The seed has the root's float dtype (float16 losses get float16 gradients).
  grads.set(rootVar, full(inner, root.shape, 1, { device: root.device, dtype: isFloat(root.dtype) ? root.dtype : 'float32' }));
  const report = (v: Var, g: FloatT): void => {
    // The container's tensor belongs to the outer backend; tidy scopes around backward do not free it.
    inner.retain(g.handle);
    kept.push([v.id, keep(new Tensor(outer, g.handle) as FloatT)]);
  };
  try {
    for (const [node, out] of order) {
      const dy = grads.get(out);
      if (dy) {
        grads.delete(out);
        if (out.keepGrad) report(out, dy);
        const inputGrads = runRule(inner, node, dy);
        node.inputs.forEach((v, i) => {
          const g = inputGrads[i];
          if (v && g) accumulate(grads, v, g);
        });
        dy.dispose();
      }
      if (!options.retainGraph) tape.releaseNode(node);
    }
    for (const [v, g] of grads) {
      if (v.keepGrad && !v.node) report(v, g);
      g.dispose();
    }
  } catch (e) {
    for (const g of grads.values()) g.dispose();
    for (const [, g] of kept) g.dispose();
    throw e;
  }
  return new Gradients(kept);
}
