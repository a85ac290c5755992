/**
 * Second-order gradient checks: for every case of cases.ts, on every backend, backward with
 * createGraph gives g = grad L (L = sum(f(x) * w)); M = sum_k sum(g_k * v_k) is backpropagated
 * again, which gives the Hessian of L times v. That is checked against the float64 central
 * difference of the numeric gradient along v (numericHvp), so every gradient rule is itself
 * differentiated through the tape.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from './backends.js';
import { CASES, rng, type Case } from './cases.js';
import * as R from './ref64.js';
import { firstMismatch, inputsFor, numericHvp, runCase } from './finite-diff.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

/**
 * Points where a rule's discarded `where` branch would hold inf (exp past 88.7): the second pass
 * multiplies it by a zero gradient, so it must be safe. (copysign and pow at 0: higher-order.test.ts.)
 */
const EDGES: readonly Case[] = [
  {
    name: 'elu(0.7) squared where exp overflows',
    op: 'elu',
    floats: [{ shape: [6], values: [-1.5, -0.2, 0.5, 50, 100, 3] }],
    run: ([x]) => x!.elu(0.7).square(),
    ref: ([x]) => R.map(x!, (v) => (v > 0 ? v : 0.7 * Math.expm1(v)) ** 2),
  },
];

const H = 1e-4;
const H2 = 1e-3;
const ATOL = 5e-3;
const RTOL = 5e-3;

for (const tb of backends) {
  describe(`second-order gradcheck on ${tb.name}`, () => {
    it.each([...CASES, ...EDGES].map((c, n) => [c.name, c, n] as const))('%s', async (_name, c, n) => {
      const inp = inputsFor(c, 1000 + n, Math.fround);
      const next = rng(5000 + n);
      const v = c.floats.map((s) => Array.from({ length: s.shape.reduce((a, b) => a * b, 1) }, () => Math.fround(next() * 2 - 1)));
      const { xs, is, out, w, grads } = runCase(tb, c, inp, 'float32', { createGraph: true });
      const vs = v.map((values, k) => fromData(tb.backend, Float32Array.from(values), { shape: c.floats[k]!.shape }));
      const expected = numericHvp(c, inp, v, H, H2);
      const firsts = xs.map((x) => x.grad(grads));
      // A gradient that no longer depends on any input (a linear op) is untracked: its Hessian is 0.
      const tracked = firsts.flatMap((g, k) => (g && g.requiresGrad ? [g.mul(vs[k]!).sum()] : []));
      const second = tracked.length > 0 ? tracked.reduce((a, b) => a.add(b)).backward() : undefined;
      for (let k = 0; k < xs.length; k++) {
        const g = second ? xs[k]!.grad(second) : undefined;
        const values = g ? (await g.toData()).values : new Float32Array(expected[k]!.length);
        if (g) expect(g.shape).toEqual(c.floats[k]!.shape);
        expect(firstMismatch(values, expected[k]!, ATOL, RTOL), `Hessian-vector product of input ${k}`).toBeUndefined();
      }
      second?.dispose();
      grads.dispose();
      for (const t of [...xs, ...is, ...vs, ...tracked, out, w]) t.dispose();
    });
  });
}
