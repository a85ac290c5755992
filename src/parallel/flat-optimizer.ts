/**
 * The optimizer step on ranges of the flat buffers: with CPU replicas in worker threads, each
 * replica updates the range of the weights it has just reduced, in place in shared memory, so the
 * update is spread over every replica (ZeRO-1's sharded optimizer state) and nothing waits on one
 * owner. The same formulas as Adam, AdamW and SGD (src/optim), element by element in float64,
 * stored as float32; the state (m, v, or the momentum buffer) lives in shared flat buffers.
 */
import type { Optimizer, OptimizerRecord } from '../optim/optimizer.js';
import { Adam, AdamW } from '../optim/adam.js';
import { SGD } from '../optim/sgd.js';
import type { Backend } from '../backends/backend.js';
import type { Layout } from './layout.js';
import type { FlatKernels } from './flat-kernels.js';

export type FlatRule =
  | { readonly kind: 'adam' | 'adamw'; readonly lr: number; readonly beta1: number; readonly beta2: number; readonly eps: number; readonly weightDecay: number }
  | { readonly kind: 'sgd'; readonly lr: number; readonly momentum: number; readonly dampening: number; readonly weightDecay: number; readonly nesterov: boolean };

/** Names of the state buffers of a rule, in the order of the shared state buffers. */
export function stateNames(rule: FlatRule): readonly string[] {
  if (rule.kind === 'sgd') return rule.momentum !== 0 ? ['momentum'] : [];
  return ['m', 'v'];
}

/** The flat rule of an optimizer, when there is one (Adam, AdamW without AMSGrad, SGD, without clipping or a schedule). */
export function flatRule<B extends Backend>(opt: Optimizer<B>): FlatRule | undefined {
  // Maximising negates every gradient and groups set their own settings: the tensor path does both.
  if (opt.options.clipNorm !== undefined || opt.options.scheduler !== undefined || opt.maximize || opt.groups.length > 0) return undefined;
  if (opt instanceof Adam) {
    // AMSGrad's running maximum has no flat loop: its replicas step with tensors.
    if (opt.amsgrad) return undefined;
    return { kind: opt instanceof AdamW ? 'adamw' : 'adam', lr: opt.lr, beta1: opt.beta1, beta2: opt.beta2, eps: opt.eps, weightDecay: opt.weightDecay };
  }
  if (opt instanceof SGD) return { kind: 'sgd', lr: opt.lr, momentum: opt.momentum, dampening: opt.dampening, weightDecay: opt.weightDecay, nesterov: opt.nesterov };
  return undefined;
}

export interface FlatBuffers {
  readonly weights: Float32Array;
  /** The joined gradient. */
  readonly grads: Float32Array;
  /** One per state name of the rule. */
  readonly state: readonly Float32Array[];
}

/**
 * Updates [from, to) of the weights. `steps[p]` is parameter p's update count including this
 * one (Adam's bias correction; SGD's first momentum step copies the gradient). With `kernels`,
 * plain Adam and plain SGD run in wasm SIMD where the buffers are in their memory (same bits).
 */
export function flatUpdate(rule: FlatRule, layout: Layout, buf: FlatBuffers, from: number, to: number, steps: readonly number[], lr: number, kernels?: FlatKernels, frozen?: ReadonlySet<number>): void {
  for (const slot of layout.params) {
    // A buffer (running statistics) does not train: weight decay must not touch it either.
    if (frozen?.has(slot.index)) continue;
    const lo = Math.max(from, slot.offset);
    const hi = Math.min(to, slot.offset + slot.size);
    if (lo >= hi) continue;
    const t = steps[slot.index]!;
    const { weights: w, grads: g } = buf;
    if (rule.kind === 'sgd') sgdRange(rule, w, g, buf.state[0], lo, hi, t, lr, kernels);
    else adamRange(rule, w, g, buf.state[0]!, buf.state[1]!, lo, hi, t, lr, kernels);
  }
}

// The loops below keep every array and constant in a local, and plain Adam after its first step
// gets a loop without the branches it does not need: V8 runs them about 2x faster than the same
// arithmetic read from the buffers' fields per element. The arithmetic (and its float32 rounding
// of the state) is unchanged.

/** SGD on [lo, hi) of the flat buffers (exported for tests). */
export function sgdRange(rule: Extract<FlatRule, { kind: 'sgd' }>, w: Float32Array, g: Float32Array, b: Float32Array | undefined, lo: number, hi: number, t: number, lr: number, kernels?: FlatKernels): void {
  const wd = rule.weightDecay;
  const mom = rule.momentum;
  if (mom === 0 || !b) {
    if (wd === 0 && kernels?.sgd(w, g, lo, hi, lr)) return;
    for (let i = lo; i < hi; i++) w[i] = w[i]! - lr * (wd !== 0 ? g[i]! + wd * w[i]! : g[i]!);
    return;
  }
  const damp = 1 - rule.dampening;
  const nesterov = rule.nesterov;
  for (let i = lo; i < hi; i++) {
    const d = wd !== 0 ? g[i]! + wd * w[i]! : g[i]!;
    b[i] = t === 1 ? d : mom * b[i]! + damp * d;
    const bi = b[i]!; // as stored (float32)
    w[i] = w[i]! - lr * (nesterov ? d + mom * bi : bi);
  }
}

/** Adam or AdamW on [lo, hi) of the flat buffers (exported for tests). */
export function adamRange(rule: Extract<FlatRule, { kind: 'adam' | 'adamw' }>, w: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, lo: number, hi: number, t: number, lr: number, kernels?: FlatKernels): void {
  const { beta1: b1, beta2: b2, eps, weightDecay: wd } = rule;
  const c1 = 1 - b1 ** t;
  const c2 = 1 - b2 ** t;
  const a1 = 1 - b1;
  const a2 = 1 - b2;
  const shrink = rule.kind === 'adamw' ? 1 - lr * wd : 1;
  const l2 = rule.kind === 'adam' ? wd : 0;
  if (l2 === 0 && shrink === 1 && t > 1) {
    // Plain Adam after its first step, the common case: in wasm SIMD, else the leanest JS loop.
    if (kernels?.adam(w, g, m, v, lo, hi, { b1, a1, b2, a2, c1, c2, lr, eps })) return;
    for (let i = lo; i < hi; i++) {
      const gi = g[i]!;
      // Stored as float32 between the steps, as the tensor optimizer's state.
      const mi = Math.fround(b1 * m[i]! + a1 * gi);
      const vi = Math.fround(b2 * v[i]! + a2 * gi * gi);
      m[i] = mi;
      v[i] = vi;
      w[i] = w[i]! - lr * ((mi / c1) / (Math.sqrt(vi / c2) + eps));
    }
    return;
  }
  for (let i = lo; i < hi; i++) {
    const gi = l2 !== 0 ? g[i]! + l2 * w[i]! : g[i]!;
    // The first step has no history: m and v start from the gradient alone.
    const mi = Math.fround(t === 1 ? a1 * gi : b1 * m[i]! + a1 * gi);
    const vi = Math.fround(t === 1 ? a2 * gi * gi : b2 * v[i]! + a2 * gi * gi);
    m[i] = mi;
    v[i] = vi;
    w[i] = w[i]! * shrink - lr * ((mi / c1) / (Math.sqrt(vi / c2) + eps));
  }
}

/** The flat state as an optimizer record (what Optimizer.state() gives), for the parameters updated at least once. */
export function flatState(rule: FlatRule, layout: Layout, state: readonly Float32Array[], steps: readonly number[]): OptimizerRecord {
  const names = stateNames(rule);
  const params: Record<string, OptimizerRecord['params'][string]> = {};
  for (const slot of layout.params) {
    const t = steps[slot.index]!;
    if (t === 0) continue;
    const tensors: Record<string, { shape: number[]; dtype: 'float32'; data: Float32Array<ArrayBuffer> }> = {};
    names.forEach((name, k) => {
      tensors[name] = { shape: [...slot.shape], dtype: 'float32', data: state[k]!.slice(slot.offset, slot.offset + slot.size) };
    });
    params[slot.id] = { step: t, tensors };
  }
  return { kind: rule.kind, params };
}

/** Loads an optimizer record into the flat state; returns each parameter's step count. */
export function loadFlatState(rule: FlatRule, layout: Layout, state: readonly Float32Array[], record: OptimizerRecord | undefined): number[] {
  const names = stateNames(rule);
  return layout.params.map((slot) => {
    const r = record?.params[slot.id];
    if (!r) return 0;
    names.forEach((name, k) => {
      const t = r.tensors[name];
      if (t) state[k]!.set(t.data, slot.offset);
    });
    return r.step;
  });
}
