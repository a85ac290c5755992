/**
 * Gradient checks in float16: every case of cases.ts with float16 inputs and weights. The
 * gradients must be float16; they are compared with central finite differences of the float64
 * reference forward on the float16-rounded inputs. Each forward and backward op rounds its
 * result to float16 (2^-11 relative), and a gradient passes through a few of them, so the
 * tolerance is ten float16 steps: |g - numeric| <= 1e-2 + 1e-2 |numeric|.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { roundHalf } from '../../src/ir/half.js';
import { testBackends } from './backends.js';
import { firstMismatch, inputsFor, numericGrads, runCase } from './finite-diff.js';
import { CASES } from './cases.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const H = 1e-5;
const TOL = 1e-2;


for (const tb of backends) {
  describe(`float16 gradcheck on ${tb.name}`, () => {
    it.each(CASES.map((c, n) => [c.name, c, n] as const))('%s', async (_name, c, n) => {
      const inp = inputsFor(c, 5000 + n, roundHalf);
      const { xs, is, out, ref, w, grads } = runCase(tb, c, inp, 'float16');
      expect(out.shape).toEqual(ref.shape);
      const numeric = numericGrads(c, inp, H);
      for (let k = 0; k < xs.length; k++) {
        const g = xs[k]!.grad(grads);
        expect(g, `gradient of input ${k}`).toBeDefined();
        expect(g!.dtype).toBe('float16');
        const { values } = await g!.toData();
        expect(firstMismatch(values, numeric[k]!, TOL, TOL), `gradient of input ${k}`).toBeUndefined();
      }
      grads.dispose();
      for (const t of [...xs, ...is, out, w]) t.dispose();
    });
  });
}
