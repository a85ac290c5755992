/**
 * Runs a function of float tensors on a backend and checks it against a float64 reference: the
 * forward values, and the gradient of sum(f(x) * w) (w fixed, random) with respect to every input
 * against central finite differences of the reference.
 */
import { expect } from 'vitest';
import type { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { mismatch, nd, numericGrads, randn, rng, type Nd } from './conv-ref.js';

export type AD = Autodiff<Backend>;
export type F = Tensor<AD, 'float'>;

export interface FnCase {
  readonly name: string;
  /** Shapes of the float inputs (drawn uniform in [-1, 1] unless `values` gives them). */
  readonly shapes: ReadonlyArray<readonly number[]>;
  readonly values?: ReadonlyArray<readonly number[] | undefined>;
  run(xs: F[]): F;
  ref(xs: Nd[]): Nd;
  /** Skip the gradient check (default: checked). */
  readonly noGrad?: boolean;
  readonly atol?: number;
}

export async function checkCase(b: AD, c: FnCase, seed: number): Promise<void> {
  const next = rng(seed);
  const inputs = c.shapes.map((s, k) => (c.values?.[k] ? nd(s, c.values[k]!.map(Math.fround)) : randn(s, next)));
  const xs = inputs.map((t) => {
    const x = fromData(b, Float32Array.from(t.data), { shape: t.shape });
    return c.noGrad ? x : x.requireGrad();
  });
  const out = c.run(xs);
  const ref = c.ref(inputs);
  expect(out.shape, 'shape').toEqual(ref.shape);
  const atol = c.atol ?? 1e-4;
  expect(mismatch((await out.toData()).values, ref.data, atol, 1e-4), 'forward').toBeUndefined();
  if (!c.noGrad) {
    const weights = Array.from({ length: ref.data.length }, () => Math.fround(next() * 2 - 1));
    const w = fromData(b, Float32Array.from(weights), { shape: ref.shape });
    const grads = out.mul(w).sum().backward();
    const numeric = numericGrads(inputs, c.ref, weights);
    for (let k = 0; k < xs.length; k++) {
      const g = xs[k]!.grad(grads);
      expect(g, `gradient of input ${k}`).toBeDefined();
      expect(g!.shape).toEqual([...c.shapes[k]!]);
      expect(mismatch((await g!.toData()).values, numeric[k]!, 2e-3, 2e-3), `gradient of input ${k}`).toBeUndefined();
    }
    grads.dispose();
    w.dispose();
  }
  for (const t of [...xs, out]) t.dispose();
}
