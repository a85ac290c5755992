/**
 * The gradient-check table (test/autodiff/cases.ts) through Autodiff<Fusion<Cpu>>: the forward
 * and backward ops are fused below the tape; gradients against central finite differences of
 * the float64 reference forward, as test/autodiff/gradcheck.test.ts does for the plain backends.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { scheduler } from '../../src/runtime/default.js';
import { fromData } from '../../src/tensor/creation.js';
import { CASES, draw, rng, type F, type I } from '../autodiff/cases.js';
import * as R from '../autodiff/ref64.js';

const H = 1e-5;
const ATOL = 2e-3;
const RTOL = 2e-3;

const fusion = new Fusion(new Cpu({ threads: 0, kernels: 'js' })); // the kernels Fusion fuses on the CPU
const ad = new Autodiff(fusion);
afterAll(() => ad.close());

let fusedRecords = 0;
const sub = scheduler.events$.subscribe((e) => {
  if (e.op === 'fused') fusedRecords++;
});
afterAll(() => sub.unsubscribe());

function close(actual: ArrayLike<number>, expected: readonly number[]): string | undefined {
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (!(Math.abs(a - e) <= ATOL + RTOL * Math.abs(e))) return `element ${i}: got ${a}, expected ${e}`;
  }
  return undefined;
}

describe(`gradcheck on ${ad.name}`, () => {
  it.each(CASES.map((c, n) => [c.name, c, n] as const))('%s', async (_name, c, n) => {
    const next = rng(1000 + n);
    const floats = c.floats.map((s) => draw(s, next));
    const ints = (c.ints ?? []).map(([shape, values]) => R.arr(shape, values));
    const refOf = (fs: number[][]) => c.ref(fs.map((v, k) => R.arr(c.floats[k]!.shape, v)), ints);
    const ref = refOf(floats);
    const weights = Array.from({ length: ref.data.length }, () => Math.fround(next() * 2 - 1));
    const loss = (fs: number[][]) => refOf(fs).data.reduce((s, v, i) => s + v * weights[i]!, 0);

    const xs: F[] = floats.map((v, k) => fromData(ad, Float32Array.from(v), { shape: c.floats[k]!.shape }).requireGrad());
    const is: I[] = ints.map((a) => fromData(ad, Int32Array.from(a.data), { shape: a.shape }));
    const out = c.run(xs, is, {});
    expect(out.shape).toEqual(ref.shape);
    const w = fromData(ad, Float32Array.from(weights), { shape: ref.shape });
    const grads = out.mul(w).sum().backward();
    expect(close((await out.toData()).values, Array.from(ref.data)), 'forward').toBeUndefined();
    for (let k = 0; k < xs.length; k++) {
      const numeric = floats[k]!.map((_, j) => {
        const plus = floats.map((v) => [...v]);
        const minus = floats.map((v) => [...v]);
        plus[k]![j]! += H;
        minus[k]![j]! -= H;
        return (loss(plus) - loss(minus)) / (2 * H);
      });
      const g = xs[k]!.grad(grads);
      expect(g, `gradient of input ${k}`).toBeDefined();
      expect(close((await g!.toData()).values, numeric), `gradient of input ${k}`).toBeUndefined();
    }
    grads.dispose();
    for (const t of [...xs, ...is, out, w]) t.dispose();
  });

  it('fused some of the forward and backward ops', () => {
    expect(fusedRecords).toBeGreaterThan(20);
  });
});
