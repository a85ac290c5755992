/**
 * The op IR: one plain, serialisable record per op call. Every layer speaks it: the tensor API
 * builds records, the scheduler runs them, backends execute them, the profiler times them, and
 * later the router / fusion / remote layers forward or rewrite them. Records survive
 * `structuredClone` and JSON (no typed arrays, no functions, no class instances).
 */
import type { DType } from './dtype.js';
import type { BinaryOp, ParamUnaryAttrs, ParamUnaryOp, ScalarOp, UnaryOp } from './elementwise.js';
import type { FusedAttrs } from './fused.js';
import type { IndexCaller } from './index-caller.js';

export interface TensorMeta {
  readonly id: number;
  readonly shape: readonly number[];
  readonly dtype: DType;
}

/** A normalised slice of one dim: start inclusive, end exclusive, step >= 1 (already clamped). */
export interface SliceRange {
  readonly start: number;
  readonly end: number;
  readonly step: number;
}

export type DistributionSpec =
  | { readonly kind: 'default' }
  | { readonly kind: 'uniform'; readonly low: number; readonly high: number }
  | { readonly kind: 'normal'; readonly mean: number; readonly std: number }
  | { readonly kind: 'bernoulli'; readonly p: number };

export type ReduceOp = 'sum' | 'mean' | 'max' | 'min' | 'prod' | 'argmax' | 'argmin';
export const REDUCE_OPS: readonly ReduceOp[] = ['sum', 'mean', 'max', 'min', 'prod', 'argmax', 'argmin'];

export interface ReduceAttrs {
  /** The dim reduced, or null for a reduction over all elements (rank-0 output unless keepDims). */
  readonly dim: number | null;
  readonly keepDims: boolean;
}

/** Attributes per op. The keys of this map are the op vocabulary. */
export type OpAttrs = {
  // creation; host data travels as a reference into the runtime's blob store (records stay plain data)
  fromData: { readonly blob: number };
  full: { readonly value: number };
  arange: { readonly start: number; readonly step: number };
  random: { readonly distribution: DistributionSpec; readonly seed: number; readonly counter: number };
  // elementwise
  clamp: { readonly min: number; readonly max: number };
  where: Record<string, never>;
  /**
   * out = mask ? value : x, inputs [mask (bool), x]; the mask broadcasts to x's shape. `value` is
   * already one that x's dtype holds (coerced as `full`'s): no 0-d constant record beside it.
   */
  maskFill: { readonly value: number };
  cast: { readonly dtype: DType };
  // movement (views where the backend can)
  reshape: { readonly shape: readonly number[] };
  permute: { readonly dims: readonly number[] };
  slice: { readonly ranges: readonly SliceRange[] };
  expand: { readonly shape: readonly number[] };
  copy: Record<string, never>;
  // data movement with copies
  cat: { readonly dim: number };
  sliceAssign: { readonly ranges: readonly SliceRange[] };
  /** `caller`: the public function whose indices these are, named by an out-of-range error (src/ir/index-caller.ts). */
  gather: { readonly dim: number; readonly caller?: IndexCaller };
  scatterAdd: { readonly dim: number; readonly caller?: IndexCaller };
  indexSelect: { readonly dim: number; readonly caller?: IndexCaller };
  // reductions and friends
  softmax: { readonly dim: number };
  logSoftmax: { readonly dim: number };
  matmul: Record<string, never>;
  /** Variance along one dim (null: all elements), divided by max(0, n - correction); two passes over each row. */
  var: { readonly dim: number | null; readonly keepDims: boolean; readonly correction: number };
  // scans along a dim (inclusive)
  cumsum: { readonly dim: number };
  cumprod: { readonly dim: number };
  // copies that reorder or mask elements
  flip: { readonly dims: readonly number[] };
  /** out[..., i, ...] = x[..., (i - shift) mod n, ...] along each listed dim. */
  roll: { readonly shifts: readonly number[]; readonly dims: readonly number[] };
  /** Keeps the elements with col - row <= diagonal (tril) / >= diagonal (triu) of the last two dims; zeros elsewhere. */
  tril: { readonly diagonal: number };
  triu: { readonly diagonal: number };
  /** int32 positions that sort each line along `dim` (stable; NaN last ascending, first descending). */
  argsort: { readonly dim: number; readonly descending: boolean };
  /** The first k positions of that order: the k largest (or smallest) of each line, sorted. */
  argtopk: { readonly dim: number; readonly k: number; readonly largest: boolean };
  // cross-device transfer (the router's bridge); `to` is the destination device key
  transfer: { readonly from: string; readonly to: string };
  /** A chain of elementwise ops run as one kernel (made by the Fusion decorator; see src/ir/fused.ts). */
  fused: FusedAttrs;
} & { readonly [K in UnaryOp]: Record<string, never> } & { readonly [K in BinaryOp]: Record<string, never> } & {
  readonly [K in ScalarOp]: { readonly scalar: number };
} & { readonly [K in ReduceOp]: ReduceAttrs } & { readonly [K in ParamUnaryOp]: ParamUnaryAttrs<K> };

export type OpName = keyof OpAttrs;

/** One op call of op `N`. */
export interface OpRecordOf<N extends OpName> {
  /** Op id, unique across runtimes (see src/runtime/ids.ts). */
  readonly id: number;
  readonly op: N;
  /** The device key the op runs on: all inputs live there (a transfer's input lives on `attrs.from`). */
  readonly device: string;
  readonly inputs: readonly TensorMeta[];
  readonly outputs: readonly TensorMeta[];
  readonly attrs: OpAttrs[N];
}

/**
 * The op record: a union discriminated by `op`, so `switch (record.op)` narrows `attrs` and a
 * missing case is a compile error where a switch must be total. `OpRecord<'matmul'>` is one member.
 */
export type OpRecord<N extends OpName = OpName> = { [K in N]: OpRecordOf<K> }[N];

/** Narrowing helper: `isOp(r, 'matmul')` types `r.attrs`. */
export function isOp<N extends OpName>(record: OpRecord, op: N): record is Extract<OpRecord, { op: N }> {
  return record.op === op;
}

export function numel(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i]!;
  }
  return strides;
}
