/**
 * A traced step: the op graph of one step as the placer saw it (nodes are placed ops; edges are
 * tensors one produced and another used; inputs made before the step are external, pinned to
 * their device), and its HEFT plan on predicted costs. Transfers and views are not nodes: a
 * tensor moved or reshaped still counts as its producer's output.
 */
import type { Handle } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { CostModel, PredictionSource } from './cost-model.js';
import { tensorBytes, type Footprint } from './footprint.js';
import { heft, type HeftEdge } from './heft.js';

/** A node's input: the output of another node of the step, or a tensor made before the step (its id and device). */
export type TraceInput = { readonly node: number; readonly bytes: number } | { readonly id: number; readonly device: string; readonly bytes: number };

export interface TraceNode {
  readonly op: string;
  readonly sig: string;
  readonly fp: Footprint;
  readonly inputs: TraceInput[];
}

/** Which node of the current step produced each tensor (or an alias of it). */
export class StepGraph {
  readonly nodes: TraceNode[] = [];
  private readonly producer = new Map<number, number>();

  /** A node for an op over `inputs`; returns its index. */
  add(op: string, sig: string, fp: Footprint, inputs: readonly Handle[]): number {
    this.nodes.push({ op, sig, fp, inputs: this.resolve(inputs) });
    return this.nodes.length - 1;
  }

  /** Where each input comes from: a node of this step, or a device (made before the step). */
  resolve(inputs: readonly Handle[]): TraceInput[] {
    return inputs.map((h) => {
      const node = this.producer.get(h.id);
      return node === undefined ? { id: h.id, device: h.device.key, bytes: tensorBytes(h) } : { node, bytes: tensorBytes(h) };
    });
  }

  /** Ids of the tensors made before the step that its ops used. */
  externals(): Set<number> {
    const ids = new Set<number>();
    for (const n of this.nodes) for (const x of n.inputs) if ('id' in x) ids.add(x.id);
    return ids;
  }

  produced(node: number, outputs: ReadonlyArray<{ readonly id: number }>): void {
    for (const o of outputs) this.producer.set(o.id, node);
  }

  /** A transfer or view: its output stands for its input. */
  alias(output: number, input: number): void {
    const n = this.producer.get(input);
    if (n !== undefined) this.producer.set(output, n);
  }
}

export interface Plan {
  /** The device of each node. */
  readonly devices: string[];
  /** Predicted run time of each node on its device. */
  readonly costs: number[];
  readonly sigs: string[];
  readonly makespan: number;
  /** The prediction behind each node's cost. */
  readonly sources: PredictionSource[];
}

/**
 * Places a traced step with HEFT. A node's cost on a device is the model's prediction; a device
 * with no prediction is not used for it unless no device has one (then run times are taken as
 * equal and only transfers decide). An input made before the step costs its transfer to each
 * device, unless `movedOnce(id, device)`: it is the same tensor every step (a parameter, a
 * constant input) or already has a copy there, so it moves once and its copy is kept.
 */
export function planStep(nodes: readonly TraceNode[], model: CostModel, devices: readonly Device[], movedOnce: (id: number, device: string) => boolean = () => false): Plan {
  const keys = devices.map((d) => d.key);
  const preds = nodes.map((n) => keys.map((k) => model.predict(n.fp, k)));
  const cost = preds.map((row) => {
    const anyKnown = row.some((p) => p.source !== 'none');
    return row.map((p) => (p.source !== 'none' ? p.ms : anyKnown ? Infinity : 0));
  });
  const edges: HeftEdge[] = [];
  nodes.forEach((n, t) => {
    for (const x of n.inputs) if ('node' in x) edges.push({ from: x.node, to: t, data: x.bytes });
  });
  const s = heft({
    tasks: nodes.length,
    processors: keys.length,
    cost,
    edges,
    comm: (e, p, q) => model.predictTransfer(keys[p]!, keys[q]!, e.data),
    release: (t, p) => {
      let r = 0;
      for (const x of nodes[t]!.inputs) if ('id' in x && !movedOnce(x.id, keys[p]!)) r = Math.max(r, model.predictTransfer(x.device, keys[p]!, x.bytes));
      return r;
    },
  });
  return {
    devices: s.proc.map((p) => keys[p]!),
    costs: s.proc.map((p, t) => cost[t]![p]!),
    sigs: nodes.map((n) => n.sig),
    makespan: s.makespan,
    sources: s.proc.map((p, t) => preds[t]![p]!.source),
  };
}

/** Whether two resolutions of a node's inputs have the same structure (same producers, externals anywhere). */
export function sameInputs(a: readonly TraceInput[], b: readonly TraceInput[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ('node' in x !== 'node' in y) return false;
    if ('node' in x && 'node' in y && x.node !== y.node) return false;
  }
  return true;
}
