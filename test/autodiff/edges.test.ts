/**
 * Gradients at the points where finite differences cannot look (kinks, ties, zeros), against
 * the values PyTorch's derivative formulas give there, on every test backend.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from './backends.js';
import type { F } from './cases.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

interface Edge {
  readonly name: string;
  readonly inputs: ReadonlyArray<readonly number[]>;
  readonly f: (xs: F[]) => F;
  /** d sum(f) / d input, per input, from torch's formulas. */
  readonly want: ReadonlyArray<readonly number[]>;
  /** Compare relative to the value (huge or tiny gradients), not to 5 decimals. */
  readonly relative?: boolean;
}

const E = Math.E;
const EDGES: readonly Edge[] = [
  { name: 'leakyRelu at 0 and -0 takes the slope', inputs: [[0, -0, 1, -1]], f: ([x]) => x!.leakyRelu(0.1), want: [[0.1, 0.1, 1, 0.1]] },
  { name: 'elu at 0 takes alpha', inputs: [[0, -1, 2]], f: ([x]) => x!.elu(0.7), want: [[0.7, 0.7 / E, 1]] },
  { name: 'floor, ceil, round, trunc are flat (also at their jumps)', inputs: [[0.5, 1, -2.5]], f: ([x]) => x!.floor().add(x!.ceil()).add(x!.round()).add(x!.trunc()), want: [[0, 0, 0]] },
  { name: 'frac has slope 1 at integers', inputs: [[0, 2, -1.5]], f: ([x]) => x!.frac(), want: [[1, 1, 1]] },
  { name: 'silu at 0 is 1/2', inputs: [[0]], f: ([x]) => x!.silu(), want: [[0.5]] },
  { name: 'softplus at 0, at the threshold and past it', inputs: [[0, 20, 21]], f: ([x]) => x!.softplus(), want: [[0.5, 1 / (1 + Math.exp(-20)), 1]] },
  { name: 'copysign at a zero magnitude is 0; nothing flows to the sign', inputs: [[0, 2, -3], [-1, -1, 4]], f: ([a, b]) => a!.copysign(b!), want: [[0, -1, -1], [0, 0, 0]] },
  // x log y is smooth in x: at x = 0 its slope is still log y (torch 1.13: 0.6931 at (0, 2)); only where y <= 0 is it pinned to 0.
  { name: 'xlogy at x = 0 is log y for x where y > 0, 0 where y <= 0; x / y for y', inputs: [[0, 1, 0], [2, 2, -1]], f: ([a, b]) => a!.xlogy(b!), want: [[Math.log(2), Math.log(2), 0], [0, 0.5, 0]] },
  { name: 'xlogy with a scalar at x = 0: log s for s > 0, 0 for s <= 0', inputs: [[0, -0]], f: ([x]) => x!.xlogy(2.5).add(x!.xlogy(0)).add(x!.xlogy(-1)), want: [[Math.log(2.5), Math.log(2.5)]] },
  { name: 'atan2 on the positive x axis', inputs: [[0], [1]], f: ([y, x]) => y!.atan2(x!), want: [[1], [0]] },
  { name: 'tan, asin, expm1 at 0 and exp2 at 0', inputs: [[0]], f: ([x]) => x!.tan().add(x!.asin()).add(x!.expm1()).add(x!.exp2()), want: [[3 + Math.LN2]] },
  { name: 'max over two dims shares a tie evenly among all maxima (torch.amax)', inputs: [[3, 3, 3, 1]], f: ([x]) => x!.reshape([2, 2]).max([0, 1]), want: [[1 / 3, 1 / 3, 1 / 3, 0]] },
  { name: 'maxWithIndices sends the gradient to the first maximum only', inputs: [[3, 3, 1]], f: ([x]) => x!.maxWithIndices(0).values, want: [[1, 0, 0]] },
  { name: 'sort passes each gradient to its element, ties included', inputs: [[2, 1, 2]], f: ([x]) => x!.sort(0).values.mul(fromData(x!.backend, [1, 2, 3])), want: [[2, 1, 3]] },
  { name: 'cumprod with a zero: the zero gets the products around it, later elements 0', inputs: [[2, 0, 3]], f: ([x]) => x!.cumprod(0), want: [[1, 2 + 6, 0]] },
  { name: 'var of one element with correction 0 is 0', inputs: [[5]], f: ([x]) => x!.var(0, { correction: 0 }), want: [[0]] },
  // torch's std_backward: 0 where the std is 0 (sqrt'(0) * 0 would be NaN and spread).
  { name: 'std of a constant row is flat, the other row is not', inputs: [[3, 3, 1, 2]], f: ([x]) => x!.reshape([2, 2]).std(1), want: [[0, 0, -Math.SQRT1_2, Math.SQRT1_2]] },
  { name: 'std of one element with correction 0 is flat', inputs: [[4]], f: ([x]) => x!.std(0, { correction: 0 }), want: [[0]] },
  // Flat ops give zeros even where the incoming gradient is infinite (not inf * 0 = NaN).
  { name: 'floor, round, sign and pow(x, 0) stay flat under an infinite incoming gradient', inputs: [[0.5, 0.2, 0, 2]], f: ([x]) => x!.floor().add(x!.round()).add(x!.sign().abs()).add(x!.pow(0).sub(1)).sqrt(), want: [[0, 0, 0, 0]] },
  // torch: where(a == b, g / 2, g) masked where a loses; NaN compares false, so both keep g.
  { name: 'maximum and minimum with NaN pass the whole gradient to both inputs', inputs: [[NaN, 1, NaN, 2], [1, NaN, NaN, 2]], f: ([a, b]) => a!.maximum(b!).add(a!.minimum(b!)), want: [[2, 2, 2, 1], [2, 2, 2, 1]] },
  { name: 'maximum with a scalar at NaN passes the gradient', inputs: [[NaN, -1, 0]], f: ([x]) => x!.maximum(0), want: [[1, 0, 0.5]] },
  { name: 'relu and elu at NaN pass the gradient (torch tests x <= 0)', inputs: [[NaN]], f: ([x]) => x!.relu().add(x!.elu()), want: [[2]] },
  // -dy (a / b) / b: b^2 would overflow or underflow in float32 here.
  { name: 'div with respect to a huge or tiny denominator', inputs: [[1e-20, 1e30], [1e-25, 1e25]], f: ([a, b]) => a!.div(b!), want: [[1e25, 1e-25], [-1e30, -1e-20]], relative: true },
];

for (const tb of backends) {
  describe(`gradients at kinks on ${tb.name}`, () => {
    it.each(EDGES.map((e) => [e.name, e] as const))('%s', async (_name, e) => {
      const xs = e.inputs.map((v) => fromData(tb.backend, Float32Array.from(v)).requireGrad());
      const out = e.f(xs);
      const grads = out.sum().backward();
      for (let k = 0; k < xs.length; k++) {
        const g = xs[k]!.grad(grads);
        expect(g, `gradient of input ${k}`).toBeDefined();
        const got = Array.from((await g!.toData()).values);
        got.forEach((v, i) => {
          const want = e.want[k]![i]!;
          if (e.relative) expect(Math.abs(v - want), `input ${k} element ${i}: ${v} vs ${want}`).toBeLessThanOrEqual(1e-6 * Math.abs(want));
          else expect(v, `input ${k} element ${i}`).toBeCloseTo(want, 5);
        });
      }
      grads.dispose();
    });
  });
}

// Products with an infinite or NaN factor: the gradient is the product of the other factors
// (torch's prod_safe_zeros_backward; its result / x would be inf / inf), and cumprod's at its first
// zero factors the infinite prefix out of the sum: inf * (1 - 2), not inf - 2 inf.
for (const tb of backends) {
  describe(`products with non-finite factors on ${tb.name}`, () => {
    it('prod: each element gets the product of the others', async () => {
      const x = fromData(tb.backend, Float32Array.from([Infinity, 2, -1])).requireGrad();
      const grads = x.prod(0).backward();
      expect(Array.from((await x.grad(grads)!.toData()).values)).toEqual([-2, -Infinity, Infinity]);
      grads.dispose();
    });
    it('prod: a NaN element gets the finite product of the others', async () => {
      const x = fromData(tb.backend, Float32Array.from([NaN, 2, 3])).requireGrad();
      const grads = x.prod(0).backward();
      expect(Array.from((await x.grad(grads)!.toData()).values)[0]).toBe(6);
      grads.dispose();
    });
    it('cumprod: the first zero after an infinite prefix, under gradients of both signs', async () => {
      const x = fromData(tb.backend, Float32Array.from([Infinity, 0, 2])).requireGrad();
      const grads = x.cumprod(0).mul(fromData(tb.backend, [0, 1, -1])).sum().backward();
      const g = Array.from((await x.grad(grads)!.toData()).values);
      // d/dx_1 = x_0 (dy_1 + dy_2 x_2) = inf * (1 - 2); x_2 follows the zero: 0.
      expect(g.slice(1)).toEqual([-Infinity, 0]);
      grads.dispose();
    });
    it("cumprod's createGraph gradient refuses tables past its budget with a ShapeError (an out-of-memory failure otherwise)", () => {
      // [1, 12000]: its [12000, 12000] table would be 144M elements.
      const x = fromData(tb.backend, new Float32Array(12000).fill(1), { shape: [1, 12000] }).requireGrad();
      const y = x.cumprod(1).sum();
      const live = tb.backend.memory().tensors;
      expect(() => y.backward({ createGraph: true })).toThrow(/^cumprod: cumprod's gradient with createGraph builds \[1, 12000, 12000\] tables \(144000000 elements\), past the budget/);
      // The failed backward freed what it had made (the gradient it was propagating included).
      expect(tb.backend.memory().tensors).toBe(live);
      // Without createGraph: the O(n) form.
      const grads = x.cumprod(1).sum().backward();
      expect(x.grad(grads)!.shape).toEqual([1, 12000]);
      grads.dispose();
    });
  });
}
