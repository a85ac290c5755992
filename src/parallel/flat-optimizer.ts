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

export type FlatRule =
  | { readonly kind: 'adam' | 'adamw'; readonly lr: number; readonly beta1: number; readonly beta2: number; readonly eps: number; readonly weightDecay: number }
  | { readonly kind: 'sgd'; readonly lr: number; readonly momentum: number; readonly dampening: number; readonly weightDecay: number; readonly nesterov: boolean };

/** Names of the state buffers of a rule, in the order of the shared state buffers. */
export function stateNames(rule: FlatRule): readonly string[] {
  if (rule.kind === 'sgd') return rule.momentum !== 0 ? ['momentum'] : [];
  return ['m', 'v'];
}

/** The flat rule of an optimizer, when there is one (Adam, AdamW, SGD, without clipping or a schedule). */
export function flatRule<B extends Backend>(opt: Optimizer<B>): FlatRule | undefined {
  if (opt.options.clipNorm !== undefined || opt.options.scheduler !== undefined) return undefined;
  if (opt instanceof Adam) {
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
 * one (Adam's bias correction; SGD's first momentum step copies the gradient).
 */
export function flatUpdate(rule: FlatRule, layout: Layout, buf: FlatBuffers, from: number, to: number, steps: readonly number[], lr: number): void {
  for (const slot of layout.params) {
    const lo = Math.max(from, slot.offset);
    const hi = Math.min(to, slot.offset + slot.size);
    if (lo >= hi) continue;
    const t = steps[slot.index]!;
    const { weights: w, grads: g } = buf;
    if (rule.kind === 'sgd') {
      const wd = rule.weightDecay;
      const mom = rule.momentum;
      const b = buf.state[0];
      for (let i = lo; i < hi; i++) {
        let d = wd !== 0 ? g[i]! + wd * w[i]! : g[i]!;
        if (mom !== 0 && b) {
          const next = t === 1 ? d : mom * b[i]! + (1 - rule.dampening) * d;
          b[i] = next;
          d = rule.nesterov ? d + mom * b[i]! : b[i]!;
        }
        w[i] = w[i]! - lr * d;
      }
      continue;
    }
    const { beta1: b1, beta2: b2, eps, weightDecay: wd } = rule;
    const m = buf.state[0]!;
    const v = buf.state[1]!;
    const c1 = 1 - b1 ** t;
    const c2 = 1 - b2 ** t;
    const shrink = rule.kind === 'adamw' ? 1 - lr * wd : 1;
    const l2 = rule.kind === 'adam' ? wd : 0;
    for (let i = lo; i < hi; i++) {
      const gi = l2 !== 0 ? g[i]! + l2 * w[i]! : g[i]!;
      // Stored as float32 between the steps, as the tensor optimizer's state.
      m[i] = t === 1 ? (1 - b1) * gi : b1 * m[i]! + (1 - b1) * gi;
      v[i] = t === 1 ? (1 - b2) * gi * gi : b2 * v[i]! + (1 - b2) * gi * gi;
      w[i] = w[i]! * shrink - lr * ((m[i]! / c1) / (Math.sqrt(v[i]! / c2) + eps));
    }
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
