/**
 * The fuzzer's vocabulary: every public op (Tensor methods, the static joins, the creation
 * functions) with generators for its arguments. Arguments are mostly related to the receiver
 * (same dtype, broadcastable shapes, dims in range), so many calls succeed and reach the
 * kernels, and sometimes wild: NaN, fractions, huge numbers, strings, objects, disposed tensors,
 * tensors of another backend or device, what an untyped JavaScript caller can pass.
 */
import fc from 'fast-check';
import type { DType } from '../../src/ir/dtype.js';

export type Mode = 'ok' | 'disposed' | 'foreign' | 'otherDevice';

/** A tensor the runner makes before the call (values follow from `seed`). */
export interface TensorSpec {
  readonly t: 'tensor';
  readonly shape: number[];
  readonly dtype: DType;
  readonly mode: Mode;
  readonly seed: number;
  /** For index tensors: values in [lo, hi]. */
  readonly range?: readonly [number, number];
}

export type ArgSpec = TensorSpec | { readonly t: 'value'; readonly v: unknown } | { readonly t: 'tensors'; readonly items: TensorSpec[] } | { readonly t: 'device'; readonly which: 'own' | 'other' | 'junk' };

/** One call: `receiver.op(...args)`, `Tensor.op(...args)` or `op(backend, ...args)`. */
export interface Call {
  readonly kind: 'method' | 'static' | 'create';
  readonly op: string;
  readonly receiver: TensorSpec | undefined;
  readonly args: ArgSpec[];
}

const DTYPES: readonly DType[] = ['float32', 'float16', 'int32', 'bool'];
const dtypeArb = fc.constantFrom(...DTYPES);

/** What untyped callers pass: every JavaScript kind, and the numbers that break naive checks. */
export const wild = fc.oneof(
  fc.constantFrom<unknown>(NaN, Infinity, -Infinity, 0.5, -1.5, 1e308, 2 ** 53, -(2 ** 31) - 1, 2 ** 32, -0, 1e-300),
  fc.constantFrom<unknown>('1', '', 'float64', null, undefined, true, false, {}, [], [1, 'a'], [[1], [2, 3]], 10n, new Date(0)),
  fc.constantFrom<unknown>(() => 1, Symbol('s'), Object.create(null), { valueOf: () => 3 }, { toString: () => { throw new Error('toString'); } }),
  fc.double(),
  fc.integer({ min: -100, max: 100 }),
);

const value = (v: unknown): ArgSpec => ({ t: 'value', v });
const wildArg: fc.Arbitrary<ArgSpec> = wild.map(value);

function modeArb(): fc.Arbitrary<Mode> {
  return fc.oneof({ weight: 20, arbitrary: fc.constant<Mode>('ok') }, { weight: 1, arbitrary: fc.constantFrom<Mode>('disposed', 'foreign', 'otherDevice') });
}

const shapeArb = fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 4 });

/** A shape related to `s`: itself, some dims set to 1, a suffix (broadcastable), or any small shape. */
function relatedShape(s: readonly number[]): fc.Arbitrary<number[]> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant<number[]>([...s]) },
    { weight: 2, arbitrary: fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((ones) => s.map((d, i) => (ones[i] ? 1 : d))) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: s.length }).map((k) => s.slice(k)) },
    { weight: 1, arbitrary: shapeArb },
  );
}

function tensorArb(shape: fc.Arbitrary<number[]>, dtype: fc.Arbitrary<DType>, range?: readonly [number, number]): fc.Arbitrary<TensorSpec> {
  return fc.record({ shape, dtype, mode: modeArb(), seed: fc.integer({ min: 0, max: 1000 }) }).map((r) => ({ t: 'tensor' as const, ...r, ...(range ? { range } : {}) }));
}

function relatedTensor(s: readonly number[], d: DType): fc.Arbitrary<TensorSpec> {
  return tensorArb(relatedShape(s), fc.oneof({ weight: 5, arbitrary: fc.constant(d) }, { weight: 1, arbitrary: dtypeArb }));
}

/** A dim for rank r: mostly in range (negative too), sometimes just out of it, sometimes wild. */
function dimArb(r: number): fc.Arbitrary<ArgSpec> {
  return fc.oneof({ weight: 6, arbitrary: fc.integer({ min: -r - 1, max: r }).map(value) }, { weight: 1, arbitrary: wildArg });
}

const numberArb: fc.Arbitrary<ArgSpec> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: -5, max: 5 }).map(value) },
  { weight: 2, arbitrary: fc.constantFrom(0.5, -2.25, NaN, Infinity, -Infinity, 1e10).map(value) },
  { weight: 1, arbitrary: wildArg },
);

const boolArb: fc.Arbitrary<ArgSpec> = fc.oneof({ weight: 6, arbitrary: fc.boolean().map(value) }, { weight: 1, arbitrary: wildArg });

function numel(s: readonly number[]): number {
  return s.reduce((a, b) => a * b, 1);
}

/** Reshape / expand targets for shape `s`. */
function targetShapeArb(s: readonly number[]): fc.Arbitrary<ArgSpec> {
  const n = numel(s);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(value([n])) },
    { weight: 2, arbitrary: fc.constant(value([...s].reverse())) },
    { weight: 2, arbitrary: fc.constant(value(s.length > 0 ? [-1, ...s.slice(1)] : [1])) },
    { weight: 2, arbitrary: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: s.length, maxLength: s.length + 2 }).map((extra) => value([...extra.slice(s.length), ...s.map((d, i) => (d === 1 ? (extra[i] ?? 1) : d))])) },
    { weight: 1, arbitrary: fc.array(fc.integer({ min: -2, max: 5 }), { maxLength: 5 }).map(value) },
    { weight: 1, arbitrary: fc.array(wild, { maxLength: 3 }).map(value) },
    { weight: 1, arbitrary: wildArg },
  );
}

/** Per-dim slice specs for shape `s`. */
function slicesArb(s: readonly number[]): fc.Arbitrary<ArgSpec> {
  const bound = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: -6, max: 6 }) }, { weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: wild });
  const one = fc.oneof(
    { weight: 2, arbitrary: fc.constant<unknown>(null) },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 5 }) },
    { weight: 4, arbitrary: fc.tuple(bound, bound) },
    { weight: 2, arbitrary: fc.record({ start: bound, end: bound, step: fc.oneof(fc.integer({ min: -1, max: 3 }), wild) }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: wild },
  );
  return fc.oneof({ weight: 8, arbitrary: fc.array(one, { maxLength: s.length + 1 }).map(value) }, { weight: 1, arbitrary: wildArg });
}

/** An int32 index tensor for dim-indexing ops on shape `s` (values a little past the valid range at times). */
function indexTensor(s: readonly number[], oneD: boolean): fc.Arbitrary<ArgSpec> {
  const extent = Math.max(1, ...s);
  const shape = oneD ? fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 1 }) : fc.oneof({ weight: 3, arbitrary: fc.constant<number[]>([...s]) }, { weight: 2, arbitrary: fc.constant<number[]>(s.map((d) => Math.min(d, 1))) }, { weight: 1, arbitrary: shapeArb });
  const dtype = fc.oneof({ weight: 8, arbitrary: fc.constant<DType>('int32') }, { weight: 1, arbitrary: dtypeArb });
  return fc.oneof(
    { weight: 4, arbitrary: tensorArb(shape, dtype, [0, extent - 1]) },
    { weight: 1, arbitrary: tensorArb(shape, dtype, [-1, extent + 1]) },
    { weight: 1, arbitrary: wildArg },
  );
}

function deviceArb(): fc.Arbitrary<ArgSpec> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant<ArgSpec>({ t: 'device', which: 'own' }) }, { weight: 2, arbitrary: fc.constant<ArgSpec>({ t: 'device', which: 'other' }) }, { weight: 1, arbitrary: fc.constant<ArgSpec>({ t: 'device', which: 'junk' }) });
}

type ArgsFor = (s: readonly number[], d: DType) => Array<fc.Arbitrary<ArgSpec>>;

const operand: ArgsFor = (s, d) => [fc.oneof({ weight: 4, arbitrary: relatedTensor(s, d) }, { weight: 3, arbitrary: numberArb })];
const none: ArgsFor = () => [];
const reduce: ArgsFor = (s) => [fc.oneof(dimArb(s.length), fc.constant(value(null)), fc.constant(value(undefined))), boolArb];
const oneDim: ArgsFor = (s) => [dimArb(s.length)];
const boolLike = (s: readonly number[]): fc.Arbitrary<ArgSpec> => fc.oneof({ weight: 6, arbitrary: tensorArb(relatedShape(s), fc.constant<DType>('bool')) }, { weight: 1, arbitrary: tensorArb(relatedShape(s), dtypeArb) }, { weight: 1, arbitrary: wildArg });

/** The { beta, alpha } options of the addmm family. */
const scalesArb: fc.Arbitrary<ArgSpec> = fc.oneof(fc.record({ beta: fc.oneof(fc.constantFrom(0, 1, 0.5), wild), alpha: fc.oneof(fc.constantFrom(1, -2), wild) }, { requiredKeys: [] }).map(value), wildArg);

/** Every Tensor method that takes arguments we generate (reads included: they are public calls too). */
export const METHODS: Record<string, ArgsFor> = {
  add: operand, sub: operand, mul: operand,
  div: (s, d) => [operand(s, d)[0]!, fc.oneof(fc.constantFrom('trunc', 'floor', null, undefined).map(value), fc.constantFrom('round', 'TRUNC').map(value), wildArg)],
  pow: operand, remainder: operand, maximum: operand, minimum: operand,
  equal: operand, notEqual: operand, greater: operand, greaterEqual: operand, lower: operand, lowerEqual: operand,
  logicalAnd: operand, logicalOr: operand, logicalNot: none,
  where: (s, d) => [boolLike(s), operand(s, d)[0]!],
  maskFill: (s) => [boolLike(s), numberArb],
  neg: none, abs: none, exp: none, log: none, log1p: none, sqrt: none, rsqrt: none, sin: none, cos: none, tanh: none, erf: none,
  sigmoid: none, relu: none, gelu: none, recip: none, square: none, sign: none, isNan: none, isInf: none,
  clamp: (s, d) => [fc.oneof(numberArb, fc.constant(value(null)), relatedTensor(s, d)), fc.oneof(numberArb, fc.constant(value(undefined)), relatedTensor(s, d))],
  clampMin: (s, d) => [fc.oneof(numberArb, relatedTensor(s, d))], clampMax: (s, d) => [fc.oneof(numberArb, relatedTensor(s, d))],
  unary: () => [fc.oneof(fc.constantFrom('exp', 'relu', 'logicalNot', 'isNan', 'neg').map(value), fc.constantFrom('matmul', 'nope', '__proto__', 'add').map(value), wildArg)],
  binary: (s, d) => [fc.oneof(fc.constantFrom('add', 'equal', 'logicalOr', 'pow').map(value), fc.constantFrom('where', 'nope', 'toString').map(value), wildArg), operand(s, d)[0]!],
  cast: () => [fc.oneof({ weight: 4, arbitrary: dtypeArb.map(value) }, { weight: 1, arbitrary: fc.constantFrom('float64', 'int64', 'uint8').map(value) }, { weight: 1, arbitrary: wildArg })],
  clone: none, detach: none,
  toDevice: () => [deviceArb()],
  sum: reduce, mean: reduce, max: reduce, min: reduce, prod: reduce, argmax: reduce, argmin: reduce,
  softmax: oneDim, logSoftmax: oneDim,
  matmul: (s, d) => [
    fc.oneof(
      { weight: 3, arbitrary: tensorArb(fc.constant(s.length >= 2 ? [...s.slice(0, -2), s[s.length - 1]!, 2] : s.length === 1 ? [s[0]!] : []), fc.constant(d)) },
      { weight: 2, arbitrary: relatedTensor(s, d) },
      { weight: 1, arbitrary: wildArg },
    ),
  ],
  reshape: (s) => [targetShapeArb(s)],
  flatten: (s) => [dimArb(s.length), dimArb(s.length)],
  squeeze: (s) => [fc.oneof(dimArb(s.length), fc.constant(value(undefined)))],
  unsqueeze: (s) => [dimArb(s.length + 1)],
  permute: (s) => [fc.oneof({ weight: 3, arbitrary: fc.shuffledSubarray([...s.keys()], { minLength: s.length, maxLength: s.length }).map(value) }, { weight: 1, arbitrary: fc.array(fc.integer({ min: -3, max: 4 }), { maxLength: 5 }).map(value) }, { weight: 1, arbitrary: wildArg })],
  transpose: none,
  swapDims: (s) => [dimArb(s.length), dimArb(s.length)],
  expand: (s) => [targetShapeArb(s)],
  slice: (s) => [slicesArb(s)],
  sliceAssign: (s, d) => [slicesArb(s), relatedTensor(s, d)],
  narrow: (s) => [dimArb(s.length), numberArb, numberArb],
  split: (s) => [fc.oneof(fc.integer({ min: 0, max: 4 }).map(value), fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }).map(value), wildArg), dimArb(s.length)],
  chunk: (s) => [fc.oneof(fc.integer({ min: 0, max: 5 }).map(value), wildArg), dimArb(s.length)],
  repeat: (s) => [fc.oneof({ weight: 4, arbitrary: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: s.length, maxLength: s.length + 2 }).map(value) }, { weight: 1, arbitrary: fc.array(wild, { maxLength: 4 }).map(value) }, { weight: 1, arbitrary: wildArg })],
  gather: (s) => [dimArb(s.length), indexTensor(s, false)],
  scatterAdd: (s, d) => [dimArb(s.length), indexTensor(s, false), relatedTensor(s, d)],
  indexSelect: (s) => [dimArb(s.length), indexTensor(s, true)],
  item: none, toData: none, toArray: none, format: none,
  // the ops added with the extended op set
  floor: none, ceil: none, trunc: none, frac: none, tan: none, asin: none, acos: none, atan: none, sinh: none, cosh: none, asinh: none, acosh: none,
  exp2: none, expm1: none, log2: none, log10: none, silu: none,
  round: () => [fc.oneof(fc.integer({ min: -3, max: 3 }).map(value), wildArg)],
  softplus: () => [numberArb, numberArb], leakyRelu: () => [numberArb], elu: () => [numberArb],
  atan2: operand, hypot: operand, copysign: operand, logaddexp: operand, xlogy: operand,
  // lerp, addcmul, addcdiv, fmax, fmin, fmod, rounding division, special functions
  fmax: operand, fmin: operand, fmod: operand, xlog1py: operand,
  lerp: (s, d) => [relatedTensor(s, d), operand(s, d)[0]!],
  addcmul: (s, d) => [relatedTensor(s, d), relatedTensor(s, d), numberArb],
  addcdiv: (s, d) => [relatedTensor(s, d), relatedTensor(s, d), numberArb],
  atanh: none, erfinv: none, lgamma: none, digamma: none, trigamma: none,
  logit: () => [fc.oneof(numberArb, fc.constant(value(undefined)))],
  polygamma: () => [fc.oneof(fc.integer({ min: -1, max: 3 }).map(value), wildArg)],
  var: (s) => [fc.oneof(dimArb(s.length), fc.constant(value(undefined)), fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 }).map(value)), fc.oneof(fc.record({ correction: fc.oneof(fc.integer({ min: -1, max: 2 }), wild), keepDims: fc.boolean() }, { requiredKeys: [] }).map(value), wildArg)],
  std: (s) => [fc.oneof(dimArb(s.length), fc.constant(value(undefined))), fc.oneof(fc.record({ correction: fc.integer({ min: 0, max: 2 }) }).map(value), wildArg)],
  logsumexp: (s) => [fc.oneof(dimArb(s.length), fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 }).map(value)), boolArb],
  any: reduce, all: reduce,
  maxWithIndices: (s) => [dimArb(s.length), boolArb], minWithIndices: (s) => [dimArb(s.length), boolArb],
  cumsum: oneDim, cumprod: oneDim,
  flip: (s) => [fc.oneof(dimArb(s.length), fc.array(fc.integer({ min: -4, max: 4 }), { maxLength: 3 }).map(value))],
  roll: (s) => [fc.oneof(fc.integer({ min: -5, max: 5 }).map(value), fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 3 }).map(value), wildArg), fc.oneof(dimArb(s.length), fc.constant(value(undefined)), fc.array(fc.integer({ min: -4, max: 4 }), { maxLength: 3 }).map(value))],
  tril: () => [fc.oneof(fc.integer({ min: -3, max: 3 }).map(value), wildArg)], triu: () => [fc.oneof(fc.integer({ min: -3, max: 3 }).map(value), wildArg)],
  sort: (s) => [dimArb(s.length), boolArb],
  topk: (s) => [fc.oneof(fc.integer({ min: -1, max: 5 }).map(value), wildArg), dimArb(s.length), boolArb],
  pad: () => [fc.oneof(fc.array(fc.integer({ min: -2, max: 3 }), { maxLength: 6 }).map(value), wildArg), fc.oneof(fc.constantFrom('constant', 'reflect', 'replicate', 'circular').map(value), fc.constantFrom('wrap', '', 'CONSTANT').map(value), wildArg), numberArb],
  oneHot: () => [fc.oneof(fc.integer({ min: -1, max: 6 }).map(value), wildArg)],
  norm: (s) => [fc.oneof(fc.constantFrom(2, 1, 0, 3, 0.5, Infinity, -Infinity, -1).map(value), numberArb), fc.oneof(dimArb(s.length), fc.constant(value(null)), fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 }).map(value)), boolArb],
  // reductions, indexing and shape ops beyond the core set (the async ones resolve to tensors the runner reads and frees)
  tile: (s) => [fc.oneof({ weight: 4, arbitrary: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: s.length + 1 }).map(value) }, { weight: 1, arbitrary: fc.array(wild, { maxLength: 3 }).map(value) }, { weight: 1, arbitrary: wildArg })],
  repeatInterleave: (s) => [fc.oneof(fc.integer({ min: 0, max: 3 }).map(value), wildArg), fc.oneof(dimArb(s.length), fc.constant(value(undefined)))],
  repeatInterleaveAsync: (s) => [indexTensor(s, true), fc.oneof(dimArb(s.length), fc.constant(value(undefined)))],
  unbind: oneDim,
  diagonal: (s) => [fc.oneof(fc.integer({ min: -4, max: 4 }).map(value), wildArg), dimArb(s.length), dimArb(s.length)],
  diagEmbed: (s) => [fc.oneof(fc.integer({ min: -3, max: 3 }).map(value), wildArg), dimArb(s.length + 1), dimArb(s.length + 1)],
  diag: () => [fc.oneof(fc.integer({ min: -3, max: 3 }).map(value), wildArg)],
  outer: operand,
  nansum: reduce, nanmean: reduce,
  countNonzero: (s) => [fc.oneof(dimArb(s.length), fc.constant(value(undefined)), fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 }).map(value))],
  median: none, nanmedian: none,
  medianWithIndices: (s) => [dimArb(s.length), boolArb], nanmedianWithIndices: (s) => [dimArb(s.length), boolArb], mode: (s) => [dimArb(s.length), boolArb],
  kthvalue: (s) => [fc.oneof(fc.integer({ min: 0, max: 5 }).map(value), wildArg), dimArb(s.length), boolArb],
  cummax: oneDim, cummin: oneDim, logcumsumexp: oneDim,
  aminmax: (s) => [fc.oneof(dimArb(s.length), fc.constant(value(null))), boolArb],
  indexAdd: (s, d) => [dimArb(s.length), indexTensor(s, true), relatedTensor(s, d), numberArb],
  scatter: (s, d) => [dimArb(s.length), indexTensor(s, false), fc.oneof(relatedTensor(s, d), numberArb)],
  scatterReduce: (s, d) => [dimArb(s.length), indexTensor(s, false), relatedTensor(s, d), fc.oneof(fc.constantFrom('sum', 'prod', 'mean', 'amax', 'amin').map(value), wildArg), boolArb],
  take: (s) => [indexTensor(s, false)],
  takeAlongDim: (s) => [indexTensor(s, false), fc.oneof(dimArb(s.length), fc.constant(value(undefined)))],
  nonzero: none, nonzeroTuple: none,
  maskedSelect: (s) => [boolLike(s)],
  unique: (s) => [fc.oneof(fc.record({ returnInverse: fc.boolean(), returnCounts: fc.boolean(), dim: fc.oneof(fc.integer({ min: -s.length - 1, max: s.length }), fc.constant(undefined)) }, { requiredKeys: [] }).map(value), wildArg)],
  // common torch ops composed from existing ones (src/tensor/misc-ops.ts)
  addmm: (s, d) => [relatedTensor(s, d), relatedTensor(s, d), scalesArb], baddbmm: (s, d) => [relatedTensor(s, d), relatedTensor(s, d), scalesArb],
  addbmm: (s, d) => [relatedTensor(s, d), relatedTensor(s, d), scalesArb], addmv: (s, d) => [relatedTensor(s, d), relatedTensor(s, d), scalesArb],
  addr: (s, d) => [relatedTensor(s, d), relatedTensor(s, d), scalesArb],
  cross: (s, d) => [relatedTensor(s, d), dimArb(s.length)],
  cdist: (s, d) => [relatedTensor(s, d), fc.oneof(fc.constantFrom(0, 1, 2, 3, 0.5, Infinity, -1).map(value), numberArb)],
  trace: none, kron: (s, d) => [relatedTensor(s, d)],
  rot90: (s) => [fc.oneof(fc.integer({ min: -5, max: 5 }).map(value), wildArg), fc.oneof(fc.array(fc.integer({ min: -s.length - 1, max: s.length }), { maxLength: 3 }).map(value), wildArg)],
  fliplr: none, flipud: none,
  movedim: (s) => [fc.oneof(dimArb(s.length), fc.array(fc.integer({ min: -s.length, max: s.length }), { maxLength: 3 }).map(value)), fc.oneof(dimArb(s.length), fc.array(fc.integer({ min: -s.length, max: s.length }), { maxLength: 3 }).map(value))],
  swapaxes: (s) => [dimArb(s.length), dimArb(s.length)],
  searchsorted: (s, d) => [operand(s, d)[0]!, fc.oneof(fc.record({ right: fc.oneof(fc.boolean(), wild), side: fc.oneof(fc.constantFrom('left', 'right'), wild) }, { requiredKeys: [] }).map(value), wildArg)],
  bucketize: (s, d) => [relatedTensor(s, d), fc.oneof(fc.record({ right: fc.oneof(fc.boolean(), wild) }, { requiredKeys: [] }).map(value), wildArg)],
  histc: () => [fc.oneof(fc.integer({ min: 0, max: 5 }).map(value), wildArg), numberArb, numberArb],
  logaddexp2: operand, sinc: none, deg2rad: none, rad2deg: none,
  heaviside: operand,
  nanToNum: () => [numberArb, fc.oneof(numberArb, fc.constant(value(null))), fc.oneof(numberArb, fc.constant(value(undefined)))],
  signbit: none, contiguous: none,
  vander: () => [fc.oneof(fc.integer({ min: -1, max: 5 }).map(value), fc.constant(value(null)), wildArg), boolArb],
  isin: (s, d) => [operand(s, d)[0]!, boolArb],
  isclose: (s, d) => [operand(s, d)[0]!, fc.oneof(fc.record({ rtol: fc.oneof(fc.double(), wild), atol: fc.oneof(fc.double(), wild), equalNan: fc.oneof(fc.boolean(), wild) }, { requiredKeys: [] }).map(value), wildArg)],
  allclose: (s, d) => [operand(s, d)[0]!, fc.oneof(fc.record({ equalNan: fc.boolean() }, { requiredKeys: [] }).map(value), wildArg)],
};

const tensorsArb = (s: readonly number[], d: DType): fc.Arbitrary<ArgSpec> =>
  fc.oneof({ weight: 5, arbitrary: fc.array(relatedTensor(s, d), { maxLength: 3 }).map((items): ArgSpec => ({ t: 'tensors', items })) }, { weight: 1, arbitrary: wildArg });

export const STATICS: Record<string, ArgsFor> = {
  cat: (s, d) => [tensorsArb(s, d), dimArb(s.length)],
  stack: (s, d) => [tensorsArb(s, d), dimArb(s.length + 1)],
  where: (s, d) => [boolLike(s), relatedTensor(s, d), operand(s, d)[0]!],
  fullLike: (s, d) => [fc.oneof({ weight: 5, arbitrary: relatedTensor(s, d) }, { weight: 1, arbitrary: wildArg }), numberArb],
  einsum: (s, d) => [
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('ij,jk->ik', 'ij,jk', 'ii', 'ii->i', '...i,...i', '...,...->...', 'i', 'ij', 'ijk->kji', 'i,j', 'ij,ij->', 'iij', 'i...', ',').map(value) },
      { weight: 1, arbitrary: fc.constantFrom('ij#', '->', 'i.j', 'ij->kk', 'ij->i,j', '......', '').map(value) },
      { weight: 1, arbitrary: wildArg },
    ),
    tensorsArb(s, d),
  ],
};

const shapeArg: fc.Arbitrary<ArgSpec> = fc.oneof({ weight: 6, arbitrary: shapeArb.map(value) }, { weight: 1, arbitrary: fc.array(wild, { maxLength: 3 }).map(value) }, { weight: 1, arbitrary: fc.constantFrom([2 ** 20, 2 ** 20], [2 ** 53], [1e308], new Array(13).fill(1)).map(value) }, { weight: 1, arbitrary: wildArg });
const optionsArb: fc.Arbitrary<ArgSpec> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(value(undefined)) },
  { weight: 3, arbitrary: fc.record({ dtype: fc.oneof(dtypeArb, fc.constant(undefined)) }).map(value) },
  { weight: 1, arbitrary: fc.record({ dtype: wild, shape: wild }, { requiredKeys: [] }).map(value) },
  { weight: 1, arbitrary: wildArg },
);
const nested = fc.letrec((tie) => ({
  leaf: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: -3, max: 3 }) }, { weight: 1, arbitrary: fc.boolean() }, { weight: 1, arbitrary: wild }),
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), fc.array(tie('node'), { maxLength: 3 })),
})).node;
const dataArb: fc.Arbitrary<ArgSpec> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 2, maxLength: 2 }), { maxLength: 3 }).map(value) },
  { weight: 2, arbitrary: nested.map(value) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Float32Array.from([1, 2]), Int32Array.from([3]), Uint8Array.from([1, 0]), Float64Array.from([0.5]), new BigInt64Array(2), new DataView(new ArrayBuffer(4))).map(value) },
  { weight: 1, arbitrary: wildArg },
);

export const CREATORS: Record<string, () => Array<fc.Arbitrary<ArgSpec>>> = {
  fromData: () => [dataArb, optionsArb],
  full: () => [shapeArg, numberArb, optionsArb],
  zeros: () => [shapeArg, optionsArb],
  ones: () => [shapeArg, optionsArb],
  arange: () => [numberArb, fc.oneof(numberArb, fc.constant(value(undefined))), fc.oneof(numberArb, fc.constant(value(undefined))), optionsArb],
  random: () => [shapeArg, fc.oneof(fc.constantFrom<unknown>(undefined, { kind: 'default' }, { kind: 'uniform', low: 0, high: 1 }, { kind: 'normal', mean: 0, std: 1 }, { kind: 'bernoulli', p: 0.5 }, { kind: 'normal', mean: NaN, std: 1 }, { kind: 'other' }).map(value), wildArg)],
};

/**
 * Whether a call is an arange of more than 2^24 elements (1e10 is among the numbers drawn): legal
 * up to 2^32 - 1 elements, but gigabytes that the harness would fill and copy in every run.
 */
function hugeArange(call: Call): boolean {
  if (call.kind !== 'create' || call.op !== 'arange') return false;
  const num = (a: ArgSpec | undefined, fallback: number): number | undefined => {
    if (a === undefined || (a.t === 'value' && a.v === undefined)) return fallback;
    return a.t === 'value' && typeof a.v === 'number' ? a.v : undefined;
  };
  const first = num(call.args[0], NaN);
  const second = num(call.args[1], NaN);
  const step = num(call.args[2], 1);
  const [start, end] = Number.isNaN(second ?? 0) ? [0, first] : [first, second];
  if (start === undefined || end === undefined || step === undefined || !Number.isFinite(start) || !Number.isFinite(end) || !Number.isFinite(step) || step === 0) return false;
  return Math.ceil((end - start) / step) > 2 ** 24;
}

/** A whole call: an op, a receiver shape and dtype, and arguments drawn for them. */
export const callArb: fc.Arbitrary<Call> = fc
  .record({ shape: shapeArb, dtype: dtypeArb, mode: modeArb(), seed: fc.integer({ min: 0, max: 1000 }) })
  .chain(({ shape, dtype, mode, seed }) => {
    const receiver: TensorSpec = { t: 'tensor', shape, dtype, mode, seed };
    const pick = <T extends Record<string, unknown>>(table: T) => fc.constantFrom(...(Object.keys(table) as Array<keyof T & string>));
    // A quarter of the calls leave the last argument out (defaults are part of the API too).
    const withArgs = (args: Array<fc.Arbitrary<ArgSpec>>) => (args.length === 0 ? fc.constant<ArgSpec[]>([]) : fc.tuple(fc.tuple(...args), fc.integer({ min: 0, max: 3 })).map(([all, k]) => (k === 0 ? all.slice(0, -1) : all)));
    return fc.oneof(
      { weight: 12, arbitrary: pick(METHODS).chain((op) => withArgs(METHODS[op]!(shape, dtype)).map((args): Call => ({ kind: 'method', op, receiver, args }))) },
      { weight: 2, arbitrary: pick(STATICS).chain((op) => withArgs(STATICS[op]!(shape, dtype)).map((args): Call => ({ kind: 'static', op, receiver: undefined, args }))) },
      { weight: 3, arbitrary: pick(CREATORS).chain((op) => withArgs(CREATORS[op]!()).map((args): Call => ({ kind: 'create', op, receiver: undefined, args }))) },
    );
  })
  .filter((call) => !hugeArange(call));
