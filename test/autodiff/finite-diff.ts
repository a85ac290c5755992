/**
 * The gradient checks' numeric side: inputs drawn for a case, L = sum(ref(x) * w) in float64,
 * central finite differences of L, and the tolerance test. `round` maps each drawn value to the
 * dtype under test (Math.fround for float32, roundHalf for float16).
 */
import type { BackwardOptions } from '../../src/autodiff/types.js';
import type { Device } from '../../src/devices/device.js';
import { fromData } from '../../src/tensor/creation.js';
import type { TestBackend } from './backends.js';
import { draw, rng, type Case, type F, type I } from './cases.js';
import * as R from './ref64.js';

export interface Inputs {
  floats: number[][];
  ints: R.Arr[];
  weights: number[];
}

export function inputsFor(c: Case, seed: number, round: (v: number) => number): Inputs {
  const next = rng(seed);
  const floats = c.floats.map((s) => draw(s, next).map(round));
  const ints = (c.ints ?? []).map(([shape, values]) => R.arr(shape, values));
  const out = c.ref(
    floats.map((v, k) => R.arr(c.floats[k]!.shape, v)),
    ints,
  );
  const weights = Array.from({ length: out.data.length }, () => round(next() * 2 - 1));
  return { floats, ints, weights };
}

/** L(x) = sum(ref(x) * w) in float64. */
export function loss64(c: Case, floats: number[][], inp: Inputs): number {
  const out = c.ref(
    floats.map((v, k) => R.arr(c.floats[k]!.shape, v)),
    inp.ints,
  );
  let s = 0;
  for (let i = 0; i < out.data.length; i++) s += out.data[i]! * inp.weights[i]!;
  return s;
}

export function numericGrads(c: Case, inp: Inputs, h: number): number[][] {
  return inp.floats.map((values, k) =>
    values.map((_, j) => {
      const plus = inp.floats.map((v) => [...v]);
      const minus = inp.floats.map((v) => [...v]);
      plus[k]![j]! += h;
      minus[k]![j]! -= h;
      return (loss64(c, plus, inp) - loss64(c, minus, inp)) / (2 * h);
    }),
  );
}

/**
 * The Hessian of L times the direction `v` (one array per input), in float64: the central
 * difference of the numeric gradient along v, (grad L(x + h2 v) - grad L(x - h2 v)) / (2 h2).
 */
export function numericHvp(c: Case, inp: Inputs, v: readonly number[][], h: number, h2: number): number[][] {
  const shifted = (sign: number): Inputs => ({ ...inp, floats: inp.floats.map((x, k) => x.map((e, j) => e + sign * h2 * v[k]![j]!)) });
  const plus = numericGrads(c, shifted(1), h);
  const minus = numericGrads(c, shifted(-1), h);
  return plus.map((g, k) => g.map((e, j) => (e - minus[k]![j]!) / (2 * h2)));
}

/** The first element outside atol + rtol |expected|, described, or undefined. */
export function firstMismatch(actual: ArrayLike<number>, expected: readonly number[], atol: number, rtol: number): string | undefined {
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) return `element ${i}: got ${a}, expected ${e}`;
  }
  return undefined;
}

/**
 * The case's forward on a backend, inputs `requireGrad`, with L = sum(out * w) backpropagated;
 * the float64 reference output beside it. The caller checks and disposes.
 */
export function runCase(tb: TestBackend, c: Case, inp: Inputs, dtype: 'float32' | 'float16', options?: BackwardOptions) {
  const b = tb.backend;
  const other: Device | undefined = tb.other;
  const xs: F[] = inp.floats.map((v, k) => fromData(b, Float32Array.from(v), { shape: c.floats[k]!.shape, dtype }).requireGrad());
  const is: I[] = inp.ints.map((a) => fromData(b, Int32Array.from(a.data), { shape: a.shape }));
  const out = c.run(xs, is, { other });
  const ref = c.ref(
    inp.floats.map((v, k) => R.arr(c.floats[k]!.shape, v)),
    inp.ints,
  );
  // The output's dtype: a cast to float32 sends a float32 gradient back through the cast.
  const w = fromData(b, Float32Array.from(inp.weights), { shape: ref.shape, dtype: out.dtype });
  const grads = out.mul(w).sum().backward(options);
  return { xs, is, out, ref, w, grads };
}
