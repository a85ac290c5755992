/**
 * The gradient-check table: one or more cases per differentiable op, each with the library call
 * and an independent float64 forward (ref64.ts). Inputs are drawn away from kinks (`avoid`).
 */
import type { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import type { Device } from '../../src/devices/device.js';
import type { OpName } from '../../src/ir/ops.js';
import { fromData } from '../../src/tensor/creation.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { OPS_CASES } from './cases-ops.js';
import * as R from './ref64.js';

export type AD = Autodiff<Backend>;
export type F = Tensor<AD, 'float'>;
export type I = Tensor<AD, 'int'>;

/** A float input: uniform in [lo, hi], at least `margin` from every `avoid` value; or fixed values. */
export interface FloatSpec {
  readonly shape: readonly number[];
  readonly lo?: number;
  readonly hi?: number;
  readonly avoid?: readonly number[];
  readonly margin?: number;
  readonly values?: readonly number[];
}

export interface Case {
  readonly name: string;
  /** The op whose gradient rule the case checks. */
  readonly op: OpName;
  readonly floats: readonly FloatSpec[];
  /** Fixed int32 inputs (indices), as [shape, values]. */
  readonly ints?: ReadonlyArray<readonly [readonly number[], readonly number[]]>;
  run(x: F[], i: I[], env: { other?: Device | undefined }): F;
  ref(x: R.Arr[], i: R.Arr[]): R.Arr;
}

const S = [2, 3];
const full = (shape: readonly number[]) => shape.map((d) => ({ start: 0, end: d, step: 1 }));

function unary(op: OpName, f: (x: number) => number, spec: Partial<FloatSpec> = {}, call?: (x: F) => F): Case {
  return {
    name: op,
    op,
    floats: [{ shape: S, lo: -2, hi: 2, ...spec }],
    run: ([x]) => (call ? call(x!) : (x!.unary(op as never) as F)),
    ref: ([x]) => R.map(x!, f),
  };
}

function binary(op: OpName, f: (a: number, b: number) => number, a: FloatSpec, b: FloatSpec, label = ''): Case {
  return {
    name: `${op}${label}`,
    op,
    floats: [a, b],
    run: ([x, y]) => x!.binary(op as never, y!) as F,
    ref: ([x, y]) => R.zip(x!, y!, f),
  };
}

function scalar(op: OpName, s: number, f: (x: number) => number, spec: Partial<FloatSpec> = {}): Case {
  const base = op.slice(0, -'Scalar'.length);
  return {
    name: `${op}(${s})`,
    op,
    floats: [{ shape: S, lo: -2, hi: 2, ...spec }],
    run: ([x]) => x!.binary(base as never, s) as F,
    ref: ([x]) => R.map(x!, f),
  };
}

function reduction(op: 'sum' | 'mean' | 'max' | 'min' | 'prod', dim: number | null, keepDims: boolean, spec: Partial<FloatSpec> = {}): Case {
  return {
    name: `${op}(dim ${dim}${keepDims ? ', keepDims' : ''})`,
    op,
    floats: [{ shape: [3, 4], lo: -2, hi: 2, ...spec }],
    run: ([x]) => (op === 'mean' ? x!.mean(dim, keepDims) : x![op](dim, keepDims)),
    ref: ([x]) => R.reduce(x!, op, dim, keepDims),
  };
}

const pyMod = (a: number, b: number) => a - Math.floor(a / b) * b;
const gelu = (x: number) => 0.5 * x * (1 + R.erf(x / Math.SQRT2));

export const CASES: readonly Case[] = [
  // ---- unary
  unary('neg', (x) => -x),
  unary('abs', Math.abs, { avoid: [0] }),
  unary('exp', Math.exp),
  unary('log', Math.log, { lo: 0.2, hi: 3 }),
  unary('log1p', Math.log1p, { lo: -0.5, hi: 2 }),
  unary('sqrt', Math.sqrt, { lo: 0.2, hi: 3 }),
  unary('rsqrt', (x) => 1 / Math.sqrt(x), { lo: 0.2, hi: 3 }),
  unary('sin', Math.sin, { lo: -3, hi: 3 }),
  unary('cos', Math.cos, { lo: -3, hi: 3 }),
  unary('tanh', Math.tanh),
  unary('erf', R.erf),
  unary('sigmoid', (x) => 1 / (1 + Math.exp(-x)), { lo: -3, hi: 3 }),
  unary('relu', (x) => Math.max(0, x), { avoid: [0] }),
  unary('gelu', gelu, { lo: -3, hi: 3 }),
  unary('recip', (x) => 1 / x, { avoid: [0], margin: 0.3 }),
  unary('square', (x) => x * x),
  unary('sign', Math.sign, { avoid: [0] }),
  // ---- binary, with broadcasting
  binary('add', (a, b) => a + b, { shape: S }, { shape: [3] }, ' [2,3] + [3]'),
  binary('add', (a, b) => a + b, { shape: [2, 1] }, { shape: [1, 3] }, ' [2,1] + [1,3]'),
  binary('sub', (a, b) => a - b, { shape: S }, { shape: [2, 1] }, ' [2,3] - [2,1]'),
  binary('mul', (a, b) => a * b, { shape: S }, { shape: [3] }, ' [2,3] * [3]'),
  binary('mul', (a, b) => a * b, { shape: [4, 1, 3] }, { shape: [2, 1] }, ' [4,1,3] * [2,1]'),
  binary('div', (a, b) => a / b, { shape: S }, { shape: [3], lo: 0.5, hi: 2 }, ' [2,3] / [3]'),
  binary('div', (a, b) => a / b, { shape: [1] }, { shape: S, lo: -2, hi: -0.5 }, ' [1] / [2,3]'),
  binary('pow', (a, b) => a ** b, { shape: S, lo: 0.5, hi: 2 }, { shape: S, lo: -1.5, hi: 2 }),
  binary('pow', (a, b) => a ** b, { shape: S, lo: 0.5, hi: 2 }, { shape: [3], lo: -1.5, hi: 2 }, ' [2,3] ** [3]'),
  binary('remainder', pyMod, { shape: S, lo: 2.3, hi: 2.9 }, { shape: S, lo: 1.6, hi: 2 }),
  binary('remainder', pyMod, { shape: S, lo: -2.9, hi: -2.3 }, { shape: [3], lo: 1.6, hi: 2 }, ' negative [2,3] % [3]'),
  binary('maximum', Math.max, { shape: S }, { shape: S }),
  binary('minimum', Math.min, { shape: S }, { shape: [3] }, ' [2,3], [3]'),
  // ---- with a scalar
  scalar('addScalar', 1.5, (x) => x + 1.5),
  scalar('subScalar', 0.5, (x) => x - 0.5),
  scalar('mulScalar', -2.5, (x) => x * -2.5),
  scalar('divScalar', 3, (x) => x / 3),
  scalar('powScalar', 2.5, (x) => x ** 2.5, { lo: 0.3, hi: 2 }),
  scalar('powScalar', 3, (x) => x ** 3),
  scalar('powScalar', -1.5, (x) => x ** -1.5, { lo: 0.5, hi: 2 }),
  scalar('remainderScalar', 1.5, (x) => pyMod(x, 1.5), { lo: 1.6, hi: 2.9 }),
  scalar('maximumScalar', 0.25, (x) => Math.max(x, 0.25), { avoid: [0.25] }),
  scalar('minimumScalar', -0.5, (x) => Math.min(x, -0.5), { avoid: [-0.5] }),
  // ---- reductions
  reduction('sum', null, false),
  reduction('sum', 1, true),
  reduction('sum', 0, false),
  reduction('mean', null, false),
  reduction('mean', 1, false),
  reduction('mean', 0, true),
  reduction('max', 1, false),
  reduction('max', null, false),
  reduction('min', 0, true),
  reduction('min', null, true),
  reduction('prod', 1, false, { lo: 0.5, hi: 1.5 }),
  reduction('prod', null, false, { lo: 0.7, hi: 1.4 }),
  // zeros: one zero in the first row, two in the second, none in the third
  { ...reduction('prod', 1, false, { values: [1.5, 0, -2, 0.5, 0, 3, 0, 2, 1.25, -0.5, 2, 0.75] }), name: 'prod(dim 1) with zeros' },
  { ...reduction('prod', null, false, { values: [1.5, 0, -2, 0.5, 1.1, 3, 0.9, 2, 1.25, -0.5, 2, 0.75] }), name: 'prod(all) with one zero' },
  // ---- movement
  { name: 'reshape', op: 'reshape', floats: [{ shape: S }], run: ([x]) => x!.reshape([3, 2]).mul(x!.reshape([3, 2])), ref: ([x]) => R.zip(R.reshape(x!, [3, 2]), R.reshape(x!, [3, 2]), (a, b) => a * b) },
  { name: 'reshape (flatten, unsqueeze)', op: 'reshape', floats: [{ shape: [2, 3, 2] }], run: ([x]) => x!.flatten().unsqueeze(0), ref: ([x]) => R.reshape(x!, [1, 12]) },
  { name: 'permute', op: 'permute', floats: [{ shape: [2, 3, 4] }], run: ([x]) => x!.permute([2, 0, 1]).exp(), ref: ([x]) => R.map(R.permute(x!, [2, 0, 1]), Math.exp) },
  { name: 'permute (transpose) then matmul', op: 'permute', floats: [{ shape: [3, 2] }, { shape: [3, 4] }], run: ([a, b]) => a!.transpose().matmul(b!), ref: ([a, b]) => R.matmul(R.permute(a!, [1, 0]), b!) },
  {
    name: 'slice (offsets, step 2)',
    op: 'slice',
    floats: [{ shape: [4, 5] }],
    run: ([x]) => x!.slice([[1, 3], { start: 0, end: 5, step: 2 }]).exp(),
    ref: ([x]) => R.map(R.slice(x!, [{ start: 1, end: 3, step: 1 }, { start: 0, end: 5, step: 2 }]), Math.exp),
  },
  {
    name: 'slice (narrow, overlapping reads)',
    op: 'slice',
    floats: [{ shape: [3, 4] }],
    run: ([x]) => x!.narrow(1, 0, 3).mul(x!.narrow(1, 1, 3)),
    ref: ([x]) => R.zip(R.slice(x!, [{ start: 0, end: 3, step: 1 }, { start: 0, end: 3, step: 1 }]), R.slice(x!, [{ start: 0, end: 3, step: 1 }, { start: 1, end: 4, step: 1 }]), (a, b) => a * b),
  },
  { name: 'expand', op: 'expand', floats: [{ shape: [2, 1, 3] }], run: ([x]) => x!.expand([4, 2, 5, 3]).sin(), ref: ([x]) => R.map(R.expand(x!, [4, 2, 5, 3]), Math.sin) },
  { name: 'copy (clone)', op: 'copy', floats: [{ shape: S }], run: ([x]) => x!.clone().square(), ref: ([x]) => R.map(x!, (v) => v * v) },
  {
    name: 'transfer (there and back)',
    op: 'transfer',
    floats: [{ shape: S }],
    run: ([x], _, env) => x!.toDevice(env.other ?? x!.device).exp().toDevice(x!.device),
    ref: ([x]) => R.map(x!, Math.exp),
  },
  // ---- joining and indexing
  { name: 'cat (dim 1)', op: 'cat', floats: [{ shape: [2, 2] }, { shape: [2, 3] }], run: ([a, b]) => Tensor.cat([a!, b!], 1).exp(), ref: ([a, b]) => R.map(R.cat([a!, b!], 1), Math.exp) },
  { name: 'cat (one input twice)', op: 'cat', floats: [{ shape: [2, 2] }, { shape: [1, 2] }], run: ([a, b]) => Tensor.cat([a!, b!, a!], 0).square(), ref: ([a, b]) => R.map(R.cat([a!, b!, a!], 0), (v) => v * v) },
  {
    name: 'stack',
    op: 'cat',
    floats: [{ shape: [3] }, { shape: [3] }],
    run: ([a, b]) => Tensor.stack([a!, b!], 1).mul(Tensor.stack([b!, a!], 1)),
    ref: ([a, b]) => R.zip(R.cat([R.reshape(a!, [3, 1]), R.reshape(b!, [3, 1])], 1), R.cat([R.reshape(b!, [3, 1]), R.reshape(a!, [3, 1])], 1), (p, q) => p * q),
  },
  {
    name: 'sliceAssign',
    op: 'sliceAssign',
    floats: [{ shape: [3, 4] }, { shape: [2, 2] }],
    run: ([x, v]) => x!.sliceAssign([[1, 3], { start: 0, end: 4, step: 2 }], v!).exp(),
    ref: ([x, v]) => R.map(R.sliceAssign(x!, [{ start: 1, end: 3, step: 1 }, { start: 0, end: 4, step: 2 }], v!), Math.exp),
  },
  {
    name: 'gather (dim 1, repeated indices)',
    op: 'gather',
    floats: [{ shape: [3, 4] }],
    ints: [[[3, 2], [0, 3, 1, 1, 2, 0]]],
    run: ([x], [i]) => x!.gather(1, i!).exp(),
    ref: ([x], [i]) => R.map(R.gather(x!, 1, i!), Math.exp),
  },
  {
    name: 'gather (dim 0)',
    op: 'gather',
    floats: [{ shape: [3, 2] }],
    ints: [[[2, 2], [2, 0, 2, 1]]],
    run: ([x], [i]) => x!.gather(0, i!).square(),
    ref: ([x], [i]) => R.map(R.gather(x!, 0, i!), (v) => v * v),
  },
  {
    name: 'scatterAdd (dim 0)',
    op: 'scatterAdd',
    floats: [{ shape: [3, 2] }, { shape: [4, 2] }],
    ints: [[[4, 2], [0, 2, 2, 2, 1, 0, 0, 1]]],
    run: ([x, s], [i]) => x!.scatterAdd(0, i!, s!).square(),
    ref: ([x, s], [i]) => R.map(R.scatterAdd(x!, 0, i!, s!), (v) => v * v),
  },
  {
    name: 'indexSelect (dim 0)',
    op: 'indexSelect',
    floats: [{ shape: [4, 3] }],
    ints: [[[3], [2, 0, 2]]],
    run: ([x], [i]) => x!.indexSelect(0, i!).exp(),
    ref: ([x], [i]) => R.map(R.indexSelect(x!, 0, i!), Math.exp),
  },
  {
    name: 'indexSelect (dim 1)',
    op: 'indexSelect',
    floats: [{ shape: [2, 4] }],
    ints: [[[5], [3, 3, 0, 1, 3]]],
    run: ([x], [i]) => x!.indexSelect(1, i!).square(),
    ref: ([x], [i]) => R.map(R.indexSelect(x!, 1, i!), (v) => v * v),
  },
  // ---- softmax, matmul
  { name: 'softmax (dim -1)', op: 'softmax', floats: [{ shape: [3, 4] }], run: ([x]) => x!.softmax(-1), ref: ([x]) => R.softmax(x!, 1) },
  { name: 'softmax (dim 0)', op: 'softmax', floats: [{ shape: [3, 4] }], run: ([x]) => x!.softmax(0), ref: ([x]) => R.softmax(x!, 0) },
  { name: 'logSoftmax (dim 1)', op: 'logSoftmax', floats: [{ shape: [3, 4] }], run: ([x]) => x!.logSoftmax(1), ref: ([x]) => R.softmax(x!, 1, true) },
  { name: 'matmul [2,3] @ [3,4]', op: 'matmul', floats: [{ shape: [2, 3] }, { shape: [3, 4] }], run: ([a, b]) => a!.matmul(b!), ref: ([a, b]) => R.matmul(a!, b!) },
  { name: 'matmul batched [2,2,3] @ [3,4]', op: 'matmul', floats: [{ shape: [2, 2, 3] }, { shape: [3, 4] }], run: ([a, b]) => a!.matmul(b!), ref: ([a, b]) => R.matmul(a!, b!) },
  { name: 'matmul broadcast [1,2,3] @ [2,3,2]', op: 'matmul', floats: [{ shape: [1, 2, 3] }, { shape: [2, 3, 2] }], run: ([a, b]) => a!.matmul(b!), ref: ([a, b]) => R.matmul(a!, b!) },
  {
    name: 'matmul vector @ matrix @ vector',
    op: 'matmul',
    floats: [{ shape: [3] }, { shape: [3, 2] }, { shape: [2] }],
    run: ([u, m, v]) => u!.matmul(m!).mul(v!),
    ref: ([u, m, v]) => R.zip(R.reshape(R.matmul(R.reshape(u!, [1, 3]), m!), [2]), v!, (a, b) => a * b),
  },
  // ---- selection and casts
  { name: 'clamp', op: 'clamp', floats: [{ shape: [3, 4], avoid: [-0.5, 0.7] }], run: ([x]) => x!.clamp(-0.5, 0.7), ref: ([x]) => R.map(x!, (v) => Math.min(0.7, Math.max(-0.5, v))) },
  { name: 'clampMin', op: 'clamp', floats: [{ shape: [3, 4], avoid: [0] }], run: ([x]) => x!.clampMin(0).mul(x!), ref: ([x]) => R.map(x!, (v) => Math.max(0, v) * v) },
  {
    name: 'where (broadcast)',
    op: 'where',
    floats: [{ shape: S }, { shape: [3] }],
    run: ([x, y]) => x!.where(fromData(x!.backend, [[true, false, true], [false, false, true]]), y!).exp(),
    ref: ([x, y]) => R.map(R.where(R.arr([2, 3], [1, 0, 1, 0, 0, 1]), x!, y!), Math.exp),
  },
  {
    name: 'maskFill',
    op: 'maskFill',
    floats: [{ shape: S }],
    run: ([x]) => x!.maskFill(fromData(x!.backend, [false, true, false]), 0.5).square(),
    ref: ([x]) => R.map(R.where(R.arr([3], [0, 1, 0]), R.arr([], [0.5]), x!), (v) => v * v),
  },
  {
    name: 'maskFill (mask [2,1,1] on [2,3,2], value -inf, then exp)',
    op: 'maskFill',
    floats: [{ shape: [2, 3, 2] }],
    run: ([x]) => x!.maskFill(fromData(x!.backend, [true, false], { shape: [2, 1, 1] }), -Infinity).exp(),
    ref: ([x]) => R.map(R.where(R.arr([2, 1, 1], [1, 0]), R.arr([], [-Infinity]), x!), Math.exp),
  },
  { name: 'cast float32 -> float32', op: 'cast', floats: [{ shape: S }], run: ([x]) => x!.cast('float32').exp(), ref: ([x]) => R.map(x!, Math.exp) },
  ...OPS_CASES,
];

/** A seeded generator (mulberry32), so every run checks the same inputs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values for a spec, rounded to float32 so the library and the reference see the same numbers. */
export function draw(spec: FloatSpec, next: () => number): number[] {
  if (spec.values) return spec.values.map(Math.fround);
  const lo = spec.lo ?? -2;
  const hi = spec.hi ?? 2;
  const margin = spec.margin ?? 0.1;
  return Array.from({ length: R.size(spec.shape) }, () => {
    for (;;) {
      const v = Math.fround(lo + (hi - lo) * next());
      if (!(spec.avoid ?? []).some((a) => Math.abs(v - a) < margin)) return v;
    }
  });
}
