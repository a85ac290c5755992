/**
 * The elementwise table: one entry per op, from which both the CPU kernels (JS expressions)
 * and the WGSL kernels are generated. `a`, `b` are the operands; helpers named in expressions
 * (`erf`, ...) are provided by each code generator's prelude.
 */
import type { Kind } from './dtype.js';

export interface UnarySpec {
  /** Kinds the op accepts. */
  readonly kinds: readonly Kind[];
  /** 'same': output dtype = input dtype; 'bool': a predicate. */
  readonly out: 'same' | 'bool';
  /** JS expression over float `a` (computed in float64, stored as float32). */
  readonly js: string;
  /** JS expression over int32 `a` (must yield an int32, e.g. with `| 0`); absent if float-only. */
  readonly jsInt?: string;
  /** WGSL expression over `a: f32` (or i32 for int, see wgslInt). */
  readonly wgsl: string;
  readonly wgslInt?: string;
}

export interface BinarySpec {
  readonly kinds: readonly Kind[];
  readonly out: 'same' | 'bool';
  readonly js: string;
  readonly jsInt?: string;
  readonly jsBool?: string;
  readonly wgsl: string;
  readonly wgslInt?: string;
  readonly wgslBool?: string;
}

// Literal tuples: the Tensor methods' types are derived from these kinds (src/ir/kinds.ts).
const F = ['float'] as const satisfies readonly Kind[];
const FI = ['float', 'int'] as const satisfies readonly Kind[];
const FIB = ['float', 'int', 'bool'] as const satisfies readonly Kind[];
const B = ['bool'] as const satisfies readonly Kind[];

export const UNARY = {
  neg: { kinds: FI, out: 'same', js: '-a', jsInt: '(-a) | 0', wgsl: '-a', wgslInt: '-a' },
  abs: { kinds: FI, out: 'same', js: 'Math.abs(a)', jsInt: 'Math.abs(a) | 0', wgsl: 'abs(a)', wgslInt: 'abs(a)' },
  exp: { kinds: F, out: 'same', js: 'Math.exp(a)', wgsl: 'exp(a)' },
  log: { kinds: F, out: 'same', js: 'Math.log(a)', wgsl: 'sy_log(a)' },
  log1p: { kinds: F, out: 'same', js: 'Math.log1p(a)', wgsl: 'sy_log1p(a)' },
  sqrt: { kinds: F, out: 'same', js: 'Math.sqrt(a)', wgsl: 'sy_sqrt(a)' },
  rsqrt: { kinds: F, out: 'same', js: '1 / Math.sqrt(a)', wgsl: '1.0 / sy_sqrt(a)' },
  sin: { kinds: F, out: 'same', js: 'Math.sin(a)', wgsl: 'sy_sin(a)' },
  cos: { kinds: F, out: 'same', js: 'Math.cos(a)', wgsl: 'sy_cos(a)' },
  tanh: { kinds: F, out: 'same', js: 'Math.tanh(a)', wgsl: 'sy_tanh(a)' },
  erf: { kinds: F, out: 'same', js: 'erf(a)', wgsl: 'sy_erf(a)' },
  sigmoid: { kinds: F, out: 'same', js: '1 / (1 + Math.exp(-a))', wgsl: 'sy_sigmoid(a)' },
  relu: { kinds: FI, out: 'same', js: 'a < 0 ? 0 : a', jsInt: 'a < 0 ? 0 : a', wgsl: 'select(select(a, 0.0, a < 0.0), a, sy_nan_b(a))', wgslInt: 'max(a, 0)' }, // NVIDIA folds the plain select into max(a, 0), losing NaN
  gelu: { kinds: F, out: 'same', js: '0.5 * a * (1 + erf(a * 0.7071067811865476))', wgsl: '0.5 * a * (1.0 + sy_erf(a * 0.7071067811865476))' },
  recip: { kinds: F, out: 'same', js: '1 / a', wgsl: '1.0 / a' },
  square: { kinds: FI, out: 'same', js: 'a * a', jsInt: 'Math.imul(a, a)', wgsl: 'a * a', wgslInt: 'a * a' },
  sign: { kinds: FI, out: 'same', js: 'a > 0 ? 1 : a < 0 ? -1 : a', jsInt: 'a > 0 ? 1 : a < 0 ? -1 : 0', wgsl: 'sy_sign(a)', wgslInt: 'sign(a)' },
  isNan: { kinds: F, out: 'bool', js: 'a !== a ? 1 : 0', wgsl: 'sy_isnan(a)' },
  isInf: { kinds: F, out: 'bool', js: 'a === Infinity || a === -Infinity ? 1 : 0', wgsl: 'sy_isinf(a)' },
  logicalNot: { kinds: B, out: 'bool', js: 'a ? 0 : 1', wgsl: 'select(1u, 0u, a != 0u)' },
} as const satisfies Record<string, UnarySpec>;

export const BINARY = {
  add: { kinds: FI, out: 'same', js: 'a + b', jsInt: '(a + b) | 0', wgsl: 'a + b', wgslInt: 'a + b' },
  sub: { kinds: FI, out: 'same', js: 'a - b', jsInt: '(a - b) | 0', wgsl: 'a - b', wgslInt: 'a - b' },
  mul: { kinds: FI, out: 'same', js: 'a * b', jsInt: 'Math.imul(a, b)', wgsl: 'a * b', wgslInt: 'a * b' },
  // Integer division floors (Python's //, torch.div(rounding_mode='floor')); x / 0 is 0 for ints.
  div: { kinds: FI, out: 'same', js: 'a / b', jsInt: 'b === 0 ? 0 : Math.floor(a / b) | 0', wgsl: 'a / b', wgslInt: 'sy_idiv(a, b)' },
  pow: { kinds: FI, out: 'same', js: 'fpow(a, b)', jsInt: 'ipow(a, b)', wgsl: 'sy_pow(a, b)', wgslInt: 'sy_ipow(a, b)' },
  // Python / torch.remainder semantics: the result takes the sign of the divisor.
  remainder: { kinds: FI, out: 'same', js: 'frem(a, b)', jsInt: 'b === 0 ? 0 : ((a % b) + b) % b | 0', wgsl: 'sy_rem(a, b)', wgslInt: 'sy_irem(a, b)' },
  maximum: { kinds: FI, out: 'same', js: 'Math.max(a, b)', jsInt: 'a > b ? a : b', wgsl: 'sy_max(a, b)', wgslInt: 'max(a, b)' },
  minimum: { kinds: FI, out: 'same', js: 'Math.min(a, b)', jsInt: 'a < b ? a : b', wgsl: 'sy_min(a, b)', wgslInt: 'min(a, b)' },
  equal: { kinds: FIB, out: 'bool', js: 'a === b ? 1 : 0', wgsl: 'select(0u, 1u, a == b)' },
  notEqual: { kinds: FIB, out: 'bool', js: 'a !== b ? 1 : 0', wgsl: 'select(1u, 0u, a == b)' },
  greater: { kinds: FI, out: 'bool', js: 'a > b ? 1 : 0', wgsl: 'select(0u, 1u, a > b)' },
  greaterEqual: { kinds: FI, out: 'bool', js: 'a >= b ? 1 : 0', wgsl: 'select(0u, 1u, a >= b)' },
  lower: { kinds: FI, out: 'bool', js: 'a < b ? 1 : 0', wgsl: 'select(0u, 1u, a < b)' },
  lowerEqual: { kinds: FI, out: 'bool', js: 'a <= b ? 1 : 0', wgsl: 'select(0u, 1u, a <= b)' },
  logicalAnd: { kinds: B, out: 'bool', js: 'a && b ? 1 : 0', wgsl: 'select(0u, 1u, a != 0u && b != 0u)' },
  logicalOr: { kinds: B, out: 'bool', js: 'a || b ? 1 : 0', wgsl: 'select(0u, 1u, a != 0u || b != 0u)' },
} as const satisfies Record<string, BinarySpec>;

export type UnaryOp = keyof typeof UNARY;
export type BinaryOp = keyof typeof BINARY;
export type ScalarOp = `${BinaryOp}Scalar`;

export const UNARY_OPS = Object.keys(UNARY) as UnaryOp[];
export const BINARY_OPS = Object.keys(BINARY) as BinaryOp[];

export function isUnaryOp(op: string): op is UnaryOp {
  return Object.prototype.hasOwnProperty.call(UNARY, op);
}
export function isBinaryOp(op: string): op is BinaryOp {
  return Object.prototype.hasOwnProperty.call(BINARY, op);
}
export function isScalarOp(op: string): op is ScalarOp {
  return op.endsWith('Scalar') && isBinaryOp(op.slice(0, -'Scalar'.length));
}
export function scalarBase(op: ScalarOp): BinaryOp {
  return op.slice(0, -'Scalar'.length) as BinaryOp;
}
