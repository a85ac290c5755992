/**
 * The optimizer step on ranges of the flat buffers against float64 references written from the
 * PyTorch formulas (Adam with L2 decay, AdamW, SGD with momentum, dampening, Nesterov and decay),
 * updated in pieces (as several replicas do) over three steps; and the state as a record.
 */
import { describe, expect, test } from 'vitest';
import type { ParamId } from '../../src/nn/param.js';
import { flatState, flatUpdate, loadFlatState, type FlatRule } from '../../src/parallel/flat-optimizer.js';
import { planLayout } from '../../src/parallel/layout.js';

const layout = planLayout([
  { name: 'w', id: 'p-w' as ParamId, shape: [3, 4] },
  { name: 'b', id: 'p-b' as ParamId, shape: [4] },
]);
const N = layout.total;

function values(seed: number): number[] {
  return Array.from({ length: N }, (_, i) => Math.sin(seed * 7.1 + i * 1.3) * (1 + (i % 3)));
}

/** One element's trajectory in float64: PyTorch's update rules. */
function reference(rule: FlatRule, w0: number, grads: readonly number[], lr: number): number {
  let w = w0;
  let m = 0;
  let v = 0;
  let buf = 0;
  grads.forEach((g0, k) => {
    const t = k + 1;
    if (rule.kind === 'sgd') {
      let d = g0 + rule.weightDecay * w;
      if (rule.momentum !== 0) {
        buf = t === 1 ? d : rule.momentum * buf + (1 - rule.dampening) * d;
        d = rule.nesterov ? d + rule.momentum * buf : buf;
      }
      w -= lr * d;
      return;
    }
    let g = g0;
    if (rule.kind === 'adamw') w *= 1 - lr * rule.weightDecay;
    else g += rule.weightDecay * w;
    m = rule.beta1 * m + (1 - rule.beta1) * g;
    v = rule.beta2 * v + (1 - rule.beta2) * g * g;
    const mHat = m / (1 - rule.beta1 ** t);
    const vHat = v / (1 - rule.beta2 ** t);
    w -= (lr * mHat) / (Math.sqrt(vHat) + rule.eps);
  });
  return w;
}

const rules: FlatRule[] = [
  { kind: 'adam', lr: 0.001, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 },
  { kind: 'adam', lr: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1 },
  { kind: 'adamw', lr: 0.01, beta1: 0.8, beta2: 0.99, eps: 1e-8, weightDecay: 0.05 },
  { kind: 'sgd', lr: 0.1, momentum: 0.9, dampening: 0.2, weightDecay: 0.01, nesterov: true },
  { kind: 'sgd', lr: 0.1, momentum: 0, dampening: 0, weightDecay: 0, nesterov: false },
];

describe('the flat optimizer step', () => {
  test.each(rules.map((r) => [`${r.kind}${r.kind === 'sgd' && r.momentum ? ' with momentum' : ''}${r.weightDecay ? ' with decay' : ''}`, r] as const))('%s: three steps, each in three ranges, match the float64 reference', (_, rule) => {
    const w0 = values(1);
    const grads = [values(2), values(3), values(4)];
    const weights = Float32Array.from(w0);
    const joined = new Float32Array(N);
    const state = [new Float32Array(N), new Float32Array(N)];
    grads.forEach((g, k) => {
      joined.set(g);
      // Ranges that cut through a parameter, as reducers' chunks do.
      for (const [from, to] of [[0, 5], [5, 13], [13, N]] as const) flatUpdate(rule, layout, { weights, grads: joined, state }, from, to, [k + 1, k + 1], rule.lr);
    });
    for (let i = 0; i < N; i++) {
      const want = reference(rule, Math.fround(w0[i]!), grads.map((g) => Math.fround(g[i]!)), rule.lr);
      expect(Math.abs(weights[i]! - want), `element ${i}`).toBeLessThanOrEqual(1e-6 + 1e-5 * Math.abs(want));
    }
  });

  test('the state as a record (one entry per parameter, by ParamId), and back', () => {
    const rule = rules[0]!;
    const state = [Float32Array.from(values(5)), Float32Array.from(values(6))];
    const record = flatState(rule, layout, state, [3, 3]);
    expect(record.kind).toBe('adam');
    expect(Object.keys(record.params).sort()).toEqual(['p-b', 'p-w']);
    const w = record.params['p-w']!;
    expect(w.step).toBe(3);
    expect(w.tensors['m']!.shape).toEqual([3, 4]);
    const slot = layout.params[0]!;
    expect([...w.tensors['v']!.data]).toEqual([...state[1]!.subarray(slot.offset, slot.offset + slot.size)]);
    const back = [new Float32Array(N), new Float32Array(N)];
    expect(loadFlatState(rule, layout, back, record)).toEqual([3, 3]);
    expect([...back[0]!]).toEqual([...state[0]!]);
    expect([...back[1]!]).toEqual([...state[1]!]);
    // Parameters never updated have no entry; a missing record starts from step 0.
    expect(Object.keys(flatState(rule, layout, state, [0, 2]).params)).toEqual(['p-b']);
    expect(loadFlatState(rule, layout, back, undefined)).toEqual([0, 0]);
  });
});
