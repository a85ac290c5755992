/**
 * Regressions found by the torch vectors (test/torch-vectors.test.ts): values and gradients as
 * torch 1.13 gives them, on every test backend.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { hardtanh, relu6 } from '../../src/nn/functional/index.js';
import { crossEntropy, nllLoss } from '../../src/nn/index.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { testBackends } from '../autodiff/backends.js';

type F = Tensor<Autodiff<Backend>, 'float'>;

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

/** The values of f(x) and the gradient of sum(f(x) * w). */
async function valueAndGrad(b: Autodiff<Backend>, f: (x: F) => F, x: number[], w: number[]): Promise<[number[], number[]]> {
  const t = fromData(b, x).requireGrad();
  const y = f(t);
  const g = y.mul(fromData(b, w)).sum().backward();
  const out: [number[], number[]] = [Array.from((await y.toData()).values), Array.from((await t.grad(g)!.toData()).values)];
  g.dispose();
  return out;
}

for (const tb of backends) {
  describe(`torch-vector regressions on ${tb.name}`, () => {
    const b = tb.backend;

    it('hardtanh and relu6 pass the gradient through a NaN input (torch: 0 only at or beyond the bounds)', async () => {
      const w = [0.5, 2, 3, 4, 5];
      expect(await valueAndGrad(b, (x) => hardtanh(x, -2, 3), [NaN, 1, -2, 3, 7], w)).toEqual([[NaN, 1, -2, 3, 3], [0.5, 2, 0, 0, 0]]);
      expect(await valueAndGrad(b, (x) => relu6(x), [NaN, 1, 0, 6, -1], w)).toEqual([[NaN, 1, 0, 6, 0], [0.5, 2, 0, 0, 0]]);
    });

    it('a mean nll_loss / cross_entropy whose targets are all ignored is NaN with gradient 0 (torch), not NaN', async () => {
      const target = fromData(b, Int32Array.from([2, 2]));
      for (const f of [(x: F) => nllLoss(x, target, { ignoreIndex: 2 }), (x: F) => crossEntropy(x, target, { ignoreIndex: 2 })]) {
        const x = fromData(b, [[-1, -2, -0.5], [-0.3, -1.5, -2]]).requireGrad();
        const y = f(x);
        const g = y.backward();
        expect(Array.from((await y.toData()).values)).toEqual([NaN]);
        expect(Array.from((await x.grad(g)!.toData()).values, (v) => v + 0)).toEqual([0, 0, 0, 0, 0, 0]);
        g.dispose();
      }
    });
  });
}
