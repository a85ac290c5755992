/**
 * When a graph's saved values go: at once when nothing can reach the graph any more (torch frees
 * by reference counts), not at some later garbage collection; and never while a live tensor can
 * still backpropagate through them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { tidy } from '../../src/memory/tidy.js';
import { scheduler } from '../../src/runtime/default.js';
import { fromData } from '../../src/tensor/creation.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());

describe('graph lifetime', () => {
  it('forward passes that are never backpropagated free their saved values as their outputs go', async () => {
    const w = fromData(ad, new Float32Array(16).fill(0.1), { shape: [4, 4] }).requireGrad();
    const before = scheduler.liveSlots;
    for (let i = 0; i < 50; i++) {
      // tanh saves its output and each matmul its inputs: all of it is garbage once `out` goes.
      const out = tidy(() => fromData(ad, new Float32Array(16).fill(1), { shape: [4, 4] }).matmul(w).tanh().matmul(w).sum());
      await out.item();
      out.dispose();
      expect(scheduler.liveSlots).toBe(before);
    }
  });

  it('a retained graph goes with its root; an intermediate kept alive keeps the graph behind it', async () => {
    const x = fromData(ad, [0.5, -1, 2]).requireGrad();
    const before = scheduler.liveSlots;
    const h = x.exp(); // kept: the graph from h back to x must stay usable
    const loss = tidy(() => h.mul(x).sin().sum());
    loss.backward({ retainGraph: true }).dispose();
    loss.dispose();
    // The nodes after h are gone; exp's saved output (h itself) is what remains besides h.
    expect(scheduler.liveSlots).toBe(before + 1);
    const total = h.sum();
    const g = total.backward();
    expect(Array.from((await x.grad(g)!.toData()).values)).toEqual([0.5, -1, 2].map((v) => Math.fround(Math.exp(v))));
    for (const t of [g, total, h]) t.dispose();
    expect(scheduler.liveSlots).toBe(before);
  });

  it('a tensor disposed in the middle of a chain does not cut the graph behind a live output', async () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const a = x.square();
    const b = a.mul(3);
    a.dispose();
    const g = b.sum().backward();
    expect(Array.from((await x.grad(g)!.toData()).values)).toEqual([6, 12]);
  });

  it('continueLeaf: a leaf replaced as by an in-place write gets the old graph\'s gradient; the old values stay what the graph saved', async () => {
    const before = scheduler.liveSlots;
    const x = fromData(ad, [1, 2, 3]);
    const w0 = fromData(ad, [0.5, -1, 2]).requireGrad();
    const a = tidy(() => w0.mul(x).mul(w0).sum()); // saves w0's values
    const w1 = fromData(ad, [10, 20, 30]);
    expect(ad.continueLeaf(a, w1)).toBe(false); // an op output is no leaf
    expect(ad.continueLeaf(x, w1)).toBe(false); // x is not tracked
    expect(ad.continueLeaf(w0, w0)).toBe(false); // w0 is tracked already
    expect(ad.continueLeaf(w0, w1)).toBe(true);
    expect(w1.requiresGrad).toBe(true);
    w0.dispose();
    const loss = tidy(() => a.add(w1.mul(w1).sum()));
    const g = loss.backward();
    // d/dw0 of sum(w0 * x * w0) at the old values (2 * w0 * x) plus d/dw1 of sum(w1^2).
    expect(Array.from((await w1.grad(g)!.toData()).values)).toEqual([2 * 0.5 * 1 + 20, 2 * -1 * 2 + 40, 2 * 2 * 3 + 60]);
    expect(g.size).toBe(1);
    for (const t of [g, loss, a, x, w1]) t.dispose();
    expect(scheduler.liveSlots).toBe(before);
  });
});
