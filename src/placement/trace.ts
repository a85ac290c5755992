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
import { heft, type HeftEdge, type HeftSchedule } from './heft.js';

/**
 * A node's input: the output of another node of the step, or a tensor made before the step (its
 * id and device; `from` when the previous step's node of that index made it, as an optimizer's
 * update makes the next step's parameters).
 */
export type TraceInput = { readonly node: number; readonly bytes: number } | { readonly id: number; readonly device: string; readonly bytes: number; readonly from?: number; readonly made?: boolean };

export interface TraceNode {
  readonly op: string;
  readonly sig: string;
  readonly fp: Footprint;
  readonly inputs: TraceInput[];
  /** The inputs' shapes and dtypes (what `sig` spells), compared without building a signature. */
  readonly shapes: ReadonlyArray<{ readonly shape: readonly number[]; readonly dtype: Handle['dtype'] }>;
}

/** Which node of the current step produced each tensor (or an alias of it). */
export class StepGraph {
  readonly nodes: TraceNode[] = [];
  private readonly producer = new Map<number, number>();
  /** Tensors created (no inputs) during the step. */
  private readonly made = new Set<number>();

  /** `previous`: the step before, whose nodes may have made this step's inputs (forgotten by `link`). */
  constructor(private previous?: StepGraph) {}

  /** A node for an op over `inputs`; returns its index. */
  add(op: string, sig: string, fp: Footprint, inputs: readonly Handle[]): number {
    return this.addResolved(op, sig, fp, this.resolve(inputs), inputs);
  }

  /** A node whose inputs were resolved already (`resolve`). */
  addResolved(op: string, sig: string, fp: Footprint, inputs: TraceInput[], handles: readonly Handle[]): number {
    this.nodes.push({ op, sig, fp, inputs, shapes: handles.map((h) => ({ shape: h.shape, dtype: h.dtype })) });
    return this.nodes.length - 1;
  }

  /** Where each input comes from: a node of this step, or a device (made before the step). */
  resolve(inputs: readonly Handle[]): TraceInput[] {
    return inputs.map((h) => {
      const node = this.producer.get(h.id);
      if (node !== undefined) return { node, bytes: tensorBytes(h) };
      const from = this.previous?.producerOf(h.id);
      return { id: h.id, device: h.device.key, bytes: tensorBytes(h), ...(from !== undefined ? { from } : {}), ...(this.made.has(h.id) ? { made: true } : {}) };
    });
  }

  /** The node of this step that made tensor `id` (or what it stands for). */
  producerOf(id: number): number | undefined {
    return this.producer.get(id);
  }

  /** Marks inputs made by the previous step's nodes, then lets the previous step go (graphs do not chain). */
  link(): void {
    const previous = this.previous;
    this.previous = undefined;
    if (!previous) return;
    for (const n of this.nodes) {
      n.inputs.forEach((x, j) => {
        if (!('id' in x)) return;
        const from = previous.producerOf(x.id);
        if (from !== undefined) n.inputs[j] = { ...x, from };
      });
    }
  }

  /** Copies `other`'s links into this graph (same ops, same positions); returns how many were new. */
  adoptLinks(other: StepGraph): number {
    let added = 0;
    this.nodes.forEach((n, i) => {
      n.inputs.forEach((x, j) => {
        const y = other.nodes[i]?.inputs[j];
        if ('id' in x && y && 'id' in y && y.from !== undefined && x.from !== y.from) {
          n.inputs[j] = { ...x, from: y.from };
          added++;
        }
      });
    });
    return added;
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

  /** A tensor created inside the step. */
  created(id: number): void {
    this.made.add(id);
  }

  /** A transfer or view: its output stands for its input (a view of a tensor from before the step is made in it). */
  alias(output: number, input: number): void {
    const n = this.producer.get(input);
    if (n !== undefined) this.producer.set(output, n);
    else this.made.add(output);
  }
}

export interface PlanOptions {
  /** Whether input `id` (made before the step) moves to `device` only once: the same tensor every step, or a copy is there. */
  movedOnce?(id: number, device: string): boolean;
  /** A recent measured time of node t on `device`, taken over the model's prediction. */
  measured?(t: number, device: string): number | undefined;
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
 * Places a traced step with HEFT. A node's cost on a device is its recent measured time there
 * (after a drift) or the model's prediction; a device with no prediction is not used for it
 * unless no device has one (then run times are taken as equal and only transfers decide). An input made before the step costs its transfer to each
 * device, unless `movedOnce(id, device)`: it is the same tensor every step (a parameter, a
 * constant input) or already has a copy there, so it moves once and its copy is kept. An input
 * the previous step made (`from`) lives where this plan puts its maker, and a maker pays for
 * moving it to its users: planning repeats, with those devices taken from the last plan, until
 * the plan no longer changes (at most 4 times).
 */
export function planStep(nodes: readonly TraceNode[], model: CostModel, devices: readonly Device[], options: PlanOptions = {}): Plan {
  const movedOnce = options.movedOnce ?? (() => false);
  const keys = devices.map((d) => d.key);
  const preds = nodes.map((n) => keys.map((k) => model.predict(n.fp, k)));
  const cost = preds.map((row, t) => {
    const anyKnown = row.some((p) => p.source !== 'none');
    return row.map((p, i) => options.measured?.(t, keys[i]!) ?? (p.source !== 'none' ? p.ms : anyKnown ? Infinity : 0));
  });
  const edges: HeftEdge[] = [];
  nodes.forEach((n, t) => {
    for (const x of n.inputs) if ('node' in x) edges.push({ from: x.node, to: t, data: x.bytes });
  });
  // Carried inputs: consumers[u] lists the nodes that use, in the next step, what node u makes.
  const consumers = new Map<number, Array<{ node: number; bytes: number }>>();
  nodes.forEach((n, t) => {
    for (const x of n.inputs) {
      if (!('id' in x) || x.from === undefined) continue;
      let users = consumers.get(x.from);
      if (!users) consumers.set(x.from, (users = []));
      users.push({ node: t, bytes: x.bytes });
    }
  });
  /**
   * One HEFT run. `carried(u)`: where the tensor node u made in the previous step lives (else as
   * recorded); `force`: nodes held to one processor; `prev`: the last plan, for the penalty.
   */
  const run = (carried: (u: number) => string | undefined, force?: ReadonlyMap<number, number>, prev?: readonly string[]): HeftSchedule =>
    heft({
      tasks: nodes.length,
      processors: keys.length,
      cost: force ? cost.map((row, t) => (force.has(t) ? row.map((c, p) => (p === force.get(t) ? c : Infinity)) : row)) : cost,
      edges,
      comm: (e, p, q) => model.predictTransfer(keys[p]!, keys[q]!, e.data),
      release: (t, p) => {
        let r = 0;
        for (const x of nodes[t]!.inputs) {
          if (!('id' in x) || movedOnce(x.id, keys[p]!)) continue;
          // Made by this node in the previous step: it is wherever this node runs.
          if (x.from === t) continue;
          const from = (x.from !== undefined ? carried(x.from) : undefined) ?? x.device;
          r = Math.max(r, model.predictTransfer(from, keys[p]!, x.bytes));
        }
        return r;
      },
      // What the next step pays to bring this node's carried output to its users (where the last plan put them).
      penalty: (t, p) => {
        let c = 0;
        if (prev) for (const u of consumers.get(t) ?? []) if (u.node !== t) c += model.predictTransfer(keys[p]!, prev[u.node]!, u.bytes);
        return c;
      },
    });
  const devicesOf = (x: HeftSchedule): string[] => x.proc.map((p) => keys[p]!);
  // Greedy first: repeat with carried inputs where the last plan put their makers, until it settles.
  let s = run(() => undefined);
  for (let round = 1; round < (consumers.size > 0 ? 4 : 1); round++) {
    const prev = devicesOf(s);
    const next = run((u) => prev[u], undefined, prev);
    const same = next.proc.every((p, t) => p === s.proc[t]);
    s = next;
    if (same) break;
  }
  if (consumers.size > 0) {
    // A greedy plan can keep parameters where moving them once would pay. Compare it with keeping
    // every carried tensor's maker on one device, each plan scored in its steady state (its makers
    // held where it puts them, their outputs there at the next step's start).
    const steady = (on: (u: number) => number): HeftSchedule | undefined => {
      const force = new Map<number, number>();
      for (const u of consumers.keys()) {
        if (!Number.isFinite(cost[u]![on(u)]!)) return undefined;
        force.set(u, on(u));
      }
      return run((u) => keys[force.get(u)!], force);
    };
    const greedy = s.proc;
    let best = steady((u) => greedy[u]!) ?? s;
    for (let p = 0; p < keys.length; p++) {
      const c = steady(() => p);
      if (c && c.makespan < best.makespan - 1e-12) best = c;
    }
    s = best;
  }
  const placedOn = devicesOf(s);
  const sched = s;
  return {
    devices: placedOn,
    costs: sched.proc.map((p, t) => cost[t]![p]!),
    sigs: nodes.map((n) => n.sig),
    makespan: sched.makespan,
    sources: sched.proc.map((p, t) => preds[t]![p]!.source),
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
