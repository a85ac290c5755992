/**
 * The elementwise table: one entry per op, from which both the CPU kernels (JS expressions)
 * and the WGSL kernels are generated. `a`, `b` are the operands; helpers named in expressions
 * (`erf`, ...) are provided by each code generator's prelude.
 */
import type { Kind } from './dtype.js';
import type { OpRecord } from './ops.js';

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
  exp: { kinds: F, out: 'same', js: 'Math.exp(a)', wgsl: 'sy_exp(a)' },
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
  // Rounding: ints pass through. round is half to even (torch.round; WGSL's round() is specified so).
  floor: { kinds: FI, out: 'same', js: 'Math.floor(a)', jsInt: 'a', wgsl: 'floor(a)', wgslInt: 'a' },
  ceil: { kinds: FI, out: 'same', js: 'Math.ceil(a)', jsInt: 'a', wgsl: 'ceil(a)', wgslInt: 'a' },
  round: { kinds: FI, out: 'same', js: 'rint(a)', jsInt: 'a', wgsl: 'round(a)', wgslInt: 'a' },
  trunc: { kinds: FI, out: 'same', js: 'Math.trunc(a)', jsInt: 'a', wgsl: 'trunc(a)', wgslInt: 'a' },
  // x - trunc(x), as torch.frac (so frac(inf) is NaN).
  frac: { kinds: F, out: 'same', js: 'a - Math.trunc(a)', wgsl: 'a - trunc(a)' },
  tan: { kinds: F, out: 'same', js: 'Math.tan(a)', wgsl: 'sy_tan(a)' },
  asin: { kinds: F, out: 'same', js: 'Math.asin(a)', wgsl: 'sy_asin(a)' },
  acos: { kinds: F, out: 'same', js: 'Math.acos(a)', wgsl: 'sy_acos(a)' },
  atan: { kinds: F, out: 'same', js: 'Math.atan(a)', wgsl: 'sy_atan(a)' },
  sinh: { kinds: F, out: 'same', js: 'Math.sinh(a)', wgsl: 'sy_sinh(a)' },
  cosh: { kinds: F, out: 'same', js: 'Math.cosh(a)', wgsl: 'sy_cosh(a)' },
  asinh: { kinds: F, out: 'same', js: 'Math.asinh(a)', wgsl: 'sy_asinh(a)' },
  acosh: { kinds: F, out: 'same', js: 'Math.acosh(a)', wgsl: 'sy_acosh(a)' },
  exp2: { kinds: F, out: 'same', js: 'Math.pow(2, a)', wgsl: 'sy_exp2(a)' },
  expm1: { kinds: F, out: 'same', js: 'Math.expm1(a)', wgsl: 'sy_expm1(a)' },
  log2: { kinds: F, out: 'same', js: 'Math.log2(a)', wgsl: 'sy_log2(a)' },
  log10: { kinds: F, out: 'same', js: 'Math.log10(a)', wgsl: 'sy_log(a) * 0.4342944819032518' },
  // x * sigmoid(x) as torch computes it, x / (1 + exp(-x)): silu(-inf) is NaN there too.
  silu: { kinds: F, out: 'same', js: 'a / (1 + Math.exp(-a))', wgsl: 'a * sy_sigmoid(a)' },
  // Special functions at torch's edges: atanh(±1) is ±inf; logit is log(x / (1 - x)) (NaN outside
  // [0, 1]); lgamma is +inf at the poles; digamma is NaN at negative integers, -inf at 0 and +inf
  // at -0; trigamma (polygamma(1, x), digamma's derivative) follows torch's float algorithm.
  atanh: { kinds: F, out: 'same', js: 'Math.atanh(a)', wgsl: 'sy_atanh(a)' },
  logit: { kinds: F, out: 'same', js: 'Math.log(a / (1 - a))', wgsl: 'sy_logit(a)' },
  erfinv: { kinds: F, out: 'same', js: 'erfinv(a)', wgsl: 'sy_erfinv(a)' },
  lgamma: { kinds: F, out: 'same', js: 'lgamma(a)', wgsl: 'sy_lgamma(a)' },
  digamma: { kinds: F, out: 'same', js: 'digamma(a)', wgsl: 'sy_digamma(a)' },
  trigamma: { kinds: F, out: 'same', js: 'trigamma(a)', wgsl: 'sy_trigamma(a)' },
} as const satisfies Record<string, UnarySpec>;

/**
 * Unary float ops with parameters (attrs named by `params`, read by the expressions as p0, p1),
 * so an activation with a slope or threshold is still one generated kernel.
 */
export interface ParamUnarySpec {
  readonly params: readonly string[];
  readonly js: string;
  readonly wgsl: string;
}

export const UNARY_PARAM = {
  // torch.nn.functional.leaky_relu: x > 0 ? x : x * slope (NaN stays NaN).
  leakyRelu: { params: ['slope'], js: 'a > 0 ? a : a * p0', wgsl: 'select(a * p0, a, a > 0.0)' },
  // torch.nn.functional.elu: x > 0 ? x : alpha * (exp(x) - 1).
  elu: { params: ['alpha'], js: 'a > 0 ? a : p0 * Math.expm1(a)', wgsl: 'select(p0 * sy_expm1(a), a, a > 0.0)' },
  // torch.nn.functional.softplus: linear above the threshold (on x * beta), log1p(exp(x * beta)) / beta below.
  softplus: { params: ['beta', 'threshold'], js: 'a * p0 > p1 ? a : Math.log1p(Math.exp(a * p0)) / p0', wgsl: 'select(sy_log1p(sy_exp(a * p0)) / p0, a, a * p0 > p1)' },
} as const satisfies Record<string, ParamUnarySpec>;

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
  // C99 atan2 / hypot (hypot(inf, NaN) is inf), as torch.
  atan2: { kinds: F, out: 'same', js: 'Math.atan2(a, b)', wgsl: 'sy_atan2(a, b)' },
  hypot: { kinds: F, out: 'same', js: 'Math.hypot(a, b)', wgsl: 'sy_hypot(a, b)' },
  // |a| with the sign of b (-0 counts as negative).
  copysign: { kinds: F, out: 'same', js: 'copysign(a, b)', wgsl: 'sy_copysign(a, b)' },
  // log(exp(a) + exp(b)) without overflow; logaddexp(-inf, -inf) is -inf.
  logaddexp: { kinds: F, out: 'same', js: 'logaddexp(a, b)', wgsl: 'sy_logaddexp(a, b)' },
  // a * log(b), 0 where a == 0 unless b is NaN (torch.xlogy).
  xlogy: { kinds: F, out: 'same', js: 'b !== b ? NaN : a === 0 ? 0 : a * Math.log(b)', wgsl: 'sy_xlogy(a, b)' },
  // a * log1p(b), 0 where a == 0 unless b is NaN (torch.special.xlog1py).
  xlog1py: { kinds: F, out: 'same', js: 'b !== b ? NaN : a === 0 ? 0 : a * Math.log1p(b)', wgsl: 'sy_xlog1py(a, b)' },
  // torch.fmax / fmin: a NaN loses to a number (two NaNs give NaN); on ties (0 and -0) the first operand.
  fmax: { kinds: FI, out: 'same', js: 'b !== b ? a : a !== a ? b : a < b ? b : a', jsInt: 'a < b ? b : a', wgsl: 'sy_fmax(a, b)', wgslInt: 'max(a, b)' },
  fmin: { kinds: FI, out: 'same', js: 'b !== b ? a : a !== a ? b : a > b ? b : a', jsInt: 'a > b ? b : a', wgsl: 'sy_fmin(a, b)', wgslInt: 'min(a, b)' },
  // C fmod: the result has the sign of the dividend (JS's % is exactly that); int x % 0 is 0.
  fmod: { kinds: FI, out: 'same', js: 'a % b', jsInt: 'b === 0 ? 0 : (a % b) | 0', wgsl: 'sy_cfmod(a, b)', wgslInt: 'sy_ifmod(a, b)' },
  // torch.div(rounding_mode='trunc' | 'floor'). The float quotient is rounded to float32 before
  // truncating, as torch's; floor is torch's fmod-based floor division (so inf // x is NaN). Int x / 0 is 0.
  divTrunc: { kinds: FI, out: 'same', js: 'Math.trunc(Math.fround(a / b))', jsInt: 'b === 0 ? 0 : (a / b) | 0', wgsl: 'sy_divtrunc(a, b)', wgslInt: 'sy_itdiv(a, b)' },
  divFloor: { kinds: FI, out: 'same', js: 'divFloor(a, b)', jsInt: 'b === 0 ? 0 : Math.floor(a / b) | 0', wgsl: 'sy_divfloor(a, b)', wgslInt: 'sy_idiv(a, b)' },
} as const satisfies Record<string, BinarySpec>;

export type UnaryOp = keyof typeof UNARY;
export type ParamUnaryOp = keyof typeof UNARY_PARAM;
/** The attrs of a parameterised unary op: one number per name in its `params`. */
export type ParamUnaryAttrs<K extends ParamUnaryOp> = { readonly [P in (typeof UNARY_PARAM)[K]['params'][number]]: number };
export type BinaryOp = keyof typeof BINARY;
export type ScalarOp = `${BinaryOp}Scalar`;

export const UNARY_OPS = Object.keys(UNARY) as UnaryOp[];
export const BINARY_OPS = Object.keys(BINARY) as BinaryOp[];
export const PARAM_UNARY_OPS = Object.keys(UNARY_PARAM) as ParamUnaryOp[];

// Sets: these checks run for every op (shape inference, kernels), so they are one hash lookup each.
const UNARY_SET: ReadonlySet<string> = new Set(Object.keys(UNARY));
const PARAM_SET: ReadonlySet<string> = new Set(Object.keys(UNARY_PARAM));
const BINARY_SET: ReadonlySet<string> = new Set(Object.keys(BINARY));
const SCALAR_SET: ReadonlySet<string> = new Set(Object.keys(BINARY).map((op) => `${op}Scalar`));

export function isUnaryOp(op: string): op is UnaryOp {
  return UNARY_SET.has(op);
}
export function isParamUnaryOp(op: string): op is ParamUnaryOp {
  return PARAM_SET.has(op);
}
/** The values p0, p1 of a parameterised unary op's attrs, in the order of its `params`. */
export function paramValues(op: ParamUnaryOp, attrs: { readonly [K in ParamUnaryOp]: ParamUnaryAttrs<K> }[ParamUnaryOp]): [number, number] {
  const named: Readonly<Record<string, number>> = attrs;
  const names: readonly string[] = UNARY_PARAM[op].params;
  return [named[names[0] ?? ''] ?? 0, named[names[1] ?? ''] ?? 0];
}
export function isBinaryOp(op: string): op is BinaryOp {
  return BINARY_SET.has(op);
}
export function isScalarOp(op: string): op is ScalarOp {
  return SCALAR_SET.has(op);
}
/** A binary expression with the scalar parameter p0 in place of `b` (memoised: kernels ask per op). */
const scalarForms = new Map<string, string>();
export function asScalarExpr(binaryExpr: string): string {
  let e = scalarForms.get(binaryExpr);
  if (e === undefined) scalarForms.set(binaryExpr, (e = binaryExpr.replace(/\bb\b/g, 'p0')));
  return e;
}

/** Record-level guards: narrow a record (and so its attrs) by its op's family. */
export function isScalarRecord(r: OpRecord): r is OpRecord<ScalarOp> {
  return isScalarOp(r.op);
}
export function isParamUnaryRecord(r: OpRecord): r is OpRecord<ParamUnaryOp> {
  return isParamUnaryOp(r.op);
}
export function scalarBase(op: ScalarOp): BinaryOp {
  return op.slice(0, -'Scalar'.length) as BinaryOp;
}
