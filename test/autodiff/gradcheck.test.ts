/**
 * Gradient checks: for every case of cases.ts, on every backend, the analytic gradient of
 * L = sum(f(x) * w) (w fixed and random) against central finite differences of the float64
 * reference forward.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GRADS } from '../../src/autodiff/gradients/index.js';
import { NONE } from '../../src/autodiff/gradients/rule.js';
import type { OpName } from '../../src/ir/ops.js';
import { testBackends } from './backends.js';
import { firstMismatch, inputsFor, numericGrads, runCase } from './finite-diff.js';
import { CASES } from './cases.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const H = 1e-5;
const ATOL = 2e-3;
const RTOL = 2e-3;


describe('gradient table coverage', () => {
  it('every op with a gradient rule has a gradient-check case', () => {
    const ruled = (Object.keys(GRADS) as OpName[]).filter((op) => GRADS[op] !== NONE);
    const checked = new Set(CASES.map((c) => c.op));
    expect(ruled.filter((op) => !checked.has(op))).toEqual([]);
  });
});

for (const tb of backends) {
  describe(`gradcheck on ${tb.name}`, () => {
    it.each(CASES.map((c, n) => [c.name, c, n] as const))('%s', async (_name, c, n) => {
      const inp = inputsFor(c, 1000 + n, Math.fround);
      const { xs, is, out, ref, w, grads } = runCase(tb, c, inp, 'float32');
      expect(out.shape).toEqual(ref.shape);
      const forward = (await out.toData()).values;
      expect(firstMismatch(forward, Array.from(ref.data), ATOL, RTOL), 'forward').toBeUndefined();
      const numeric = numericGrads(c, inp, H);
      for (let k = 0; k < xs.length; k++) {
        const g = xs[k]!.grad(grads);
        expect(g, `gradient of input ${k}`).toBeDefined();
        expect(g!.shape).toEqual(c.floats[k]!.shape);
        const { values } = await g!.toData();
        expect(firstMismatch(values, numeric[k]!, ATOL, RTOL), `gradient of input ${k}`).toBeUndefined();
      }
      grads.dispose();
      for (const t of [...xs, ...is, out, w]) t.dispose();
    });
  });
}
