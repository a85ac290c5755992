/**
 * Gradient checks: for every case of cases.ts, on every backend, the analytic gradient of
 * L = sum(f(x) * w) (w fixed and random) against central finite differences of the float64
 * reference forward.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GRADS } from '../../src/autodiff/gradients/index.js';
import { NONE } from '../../src/autodiff/gradients/rule.js';
import type { OpName } from '../../src/ir/ops.js';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from './backends.js';
import { CASES, draw, rng, type Case, type F, type I } from './cases.js';
import * as R from './ref64.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const H = 1e-5;
const ATOL = 2e-3;
const RTOL = 2e-3;

interface Inputs {
  floats: number[][];
  ints: R.Arr[];
  weights: number[];
}

function inputsFor(c: Case, seed: number): Inputs {
  const next = rng(seed);
  const floats = c.floats.map((s) => draw(s, next));
  const ints = (c.ints ?? []).map(([shape, values]) => R.arr(shape, values));
  const out = c.ref(
    floats.map((v, k) => R.arr(c.floats[k]!.shape, v)),
    ints,
  );
  const weights = Array.from({ length: out.data.length }, () => Math.fround(next() * 2 - 1));
  return { floats, ints, weights };
}

/** L(x) = sum(ref(x) * w) in float64. */
function loss64(c: Case, floats: number[][], inp: Inputs): number {
  const out = c.ref(
    floats.map((v, k) => R.arr(c.floats[k]!.shape, v)),
    inp.ints,
  );
  let s = 0;
  for (let i = 0; i < out.data.length; i++) s += out.data[i]! * inp.weights[i]!;
  return s;
}

function numericGrads(c: Case, inp: Inputs): number[][] {
  return inp.floats.map((values, k) =>
    values.map((_, j) => {
      const plus = inp.floats.map((v) => [...v]);
      const minus = inp.floats.map((v) => [...v]);
      plus[k]![j]! += H;
      minus[k]![j]! -= H;
      return (loss64(c, plus, inp) - loss64(c, minus, inp)) / (2 * H);
    }),
  );
}

function close(actual: ArrayLike<number>, expected: readonly number[]): string | undefined {
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (!(Math.abs(a - e) <= ATOL + RTOL * Math.abs(e))) return `element ${i}: got ${a}, expected ${e}`;
  }
  return undefined;
}

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
      const b = tb.backend;
      const inp = inputsFor(c, 1000 + n);
      const xs: F[] = inp.floats.map((v, k) => fromData(b, Float32Array.from(v), { shape: c.floats[k]!.shape }).requireGrad());
      const is: I[] = inp.ints.map((a) => fromData(b, Int32Array.from(a.data), { shape: a.shape }));
      const out = c.run(xs, is, { other: tb.other });
      const ref = c.ref(
        inp.floats.map((v, k) => R.arr(c.floats[k]!.shape, v)),
        inp.ints,
      );
      expect(out.shape).toEqual(ref.shape);
      const w = fromData(b, Float32Array.from(inp.weights), { shape: ref.shape });
      const grads = out.mul(w).sum().backward();
      const forward = (await out.toData()).values;
      expect(close(forward, Array.from(ref.data)), 'forward').toBeUndefined();
      const numeric = numericGrads(c, inp);
      for (let k = 0; k < xs.length; k++) {
        const g = xs[k]!.grad(grads);
        expect(g, `gradient of input ${k}`).toBeDefined();
        expect(g!.shape).toEqual(c.floats[k]!.shape);
        const { values } = await g!.toData();
        expect(close(values, numeric[k]!), `gradient of input ${k}`).toBeUndefined();
      }
      grads.dispose();
      for (const t of [...xs, ...is, out, w]) t.dispose();
    });
  });
}
