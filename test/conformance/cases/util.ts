/** Helpers shared by the case families: inputs on a backend, expected values, case constructors. */
import type { Backend } from '../../../src/backends/backend.js';
import type { DType } from '../../../src/ir/dtype.js';
import { fromData } from '../../../src/tensor/creation.js';
import type { Tensor } from '../../../src/tensor/tensor.js';
import type { Case, CheckCase, Expected, Tol, ValueCase } from '../harness.js';
import { size, type Arr } from '../ref.js';
import type { Rng } from '../rng.js';

export type FT = Tensor<Backend, 'float'>;
export type IT = Tensor<Backend, 'int'>;
export type BT = Tensor<Backend, 'bool'>;

export function ft(b: Backend, a: Arr): FT {
  return fromData(b, Float32Array.from(a.data), { shape: a.shape, dtype: 'float32' });
}
export function it(b: Backend, a: Arr): IT {
  return fromData(b, Int32Array.from(a.data), { shape: a.shape, dtype: 'int32' });
}
export function bt(b: Backend, a: Arr): BT {
  return fromData(b, Uint8Array.from(a.data), { shape: a.shape, dtype: 'bool' });
}

export function ex(a: Arr, dtype: DType = 'float32'): Expected {
  return { shape: a.shape, dtype, values: a.data };
}

export function randF(rng: Rng, shape: readonly number[], lo = -1, hi = 1): Arr {
  return { shape: [...shape], data: rng.floats(size(shape), lo, hi) };
}
export function randI(rng: Rng, shape: readonly number[], lo = -100, hi = 100): Arr {
  return { shape: [...shape], data: rng.ints(size(shape), lo, hi) };
}
export function randB(rng: Rng, shape: readonly number[], p = 0.5): Arr {
  return { shape: [...shape], data: rng.bools(size(shape), p) };
}
export function randWith(rng: Rng, shape: readonly number[], gen: (r: Rng) => number): Arr {
  return { shape: [...shape], data: Array.from({ length: size(shape) }, () => gen(rng)) };
}
/** Values rounded to float32 (inputs are stored as float32, so references start from those). */
export function f32(shape: readonly number[], data: readonly number[]): Arr {
  return { shape: [...shape], data: data.map((v) => Math.fround(v)) };
}

export function value(
  name: string,
  op: string,
  tol: Tol,
  build: (b: Backend) => Tensor | readonly Tensor[],
  expected: () => Expected | readonly Expected[],
): ValueCase {
  return { kind: 'value', name, op, tol, build, expected };
}

export function check(name: string, op: string, tol: Tol, fn: (b: Backend, tol: Tol) => Promise<void>): CheckCase {
  return { kind: 'check', name, op, tol, check: fn };
}

export type { Case };
