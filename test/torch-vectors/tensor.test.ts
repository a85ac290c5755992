/**
 * Switchyard against PyTorch's reference vectors for the core tensor ops (group `tensor`,
 * tools/torch-vectors/groups/tensor.py): elementwise math at its edges (and its tensor-scalar
 * forms), reductions, scans, ordering and indexing, shape ops, on views and on rows longer than a
 * workgroup, in int32 and float16 where torch has them, and second-order gradients (`grad_of`: the
 * output is a recorded first gradient, so the harness compares Hessian-vector products). Op names
 * in the fixture are torch's; the adapters map each to our API. Int and bool outputs are cast to
 * float32 for the comparison (the harness compares numbers).
 */
import { arange, eye, fromData, linspace } from '../../src/tensor/creation.js';
import type { SliceSpec } from '../../src/ir/shape.js';
import { Tensor } from '../../src/tensor/tensor.js';
import * as NF from '../../src/nn/functional/index.js';
import { a, all, torchVectorSuite, weight, type Adapter, type Bool, type Ctx, type F, type I, type Json, type Known } from './harness.js';

const f = (t: I | Bool): F => t.cast('float32');
const x0 = (x: Ctx): F => x.t['x']!;
const ab = (x: Ctx): [F, F] => [x.t['a']!, x.t['b']!];
const un = (fn: (t: F) => F): Adapter => (x) => fn(x0(x));
const bin = (fn: (p: F, q: F) => F): Adapter => (x) => fn(...ab(x));
/** A comparison: its bool result as 0 / 1. */
const cmp = (fn: (p: F, q: F) => Bool): Adapter => (x) => f(fn(...ab(x)));
const ints = (x: Ctx): [I, I] => [x.int['a']!, x.int['b']!];
/** A reduction's dim arg: null (all), a dim, or a list. */
const dims = (x: Ctx): number | number[] | undefined => (x.args['dim'] === null || x.args['dim'] === undefined ? undefined : (x.args['dim'] as number | number[]));
const keep = (x: Ctx): boolean => (x.args['keepdim'] as boolean | undefined) ?? false;
const pair = (r: { values: F; indices: I }): F[] => [r.values, f(r.indices)];
/** The case's [start, end, step] triples (null for an open end) as our slice specs. */
const ranges = (x: Ctx): SliceSpec[] =>
  (x.args['ranges'] as Array<Array<number | null>>).map(([start, end, step]) => ({ ...(start === null ? {} : { start }), ...(end === null ? {} : { end }), step: step! }));
const seq = (v: Json): number[] => (typeof v === 'number' ? [v] : (v as number[]));

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  // unary
  exp: un((t) => t.exp()),
  expm1: un((t) => t.expm1()),
  exp2: un((t) => t.exp2()),
  log: un((t) => t.log()),
  log1p: un((t) => t.log1p()),
  log2: un((t) => t.log2()),
  log10: un((t) => t.log10()),
  sqrt: un((t) => t.sqrt()),
  rsqrt: un((t) => t.rsqrt()),
  abs: un((t) => t.abs()),
  sign: un((t) => t.sign()),
  neg: un((t) => t.neg()),
  reciprocal: un((t) => t.recip()),
  square: un((t) => t.square()),
  relu: un((t) => t.relu()),
  floor: un((t) => t.floor()),
  ceil: un((t) => t.ceil()),
  round: (x) => x0(x).round(a.num(x, 'decimals', 0)),
  trunc: un((t) => t.trunc()),
  frac: un((t) => t.frac()),
  sin: un((t) => t.sin()),
  cos: un((t) => t.cos()),
  tan: un((t) => t.tan()),
  asin: un((t) => t.asin()),
  acos: un((t) => t.acos()),
  atan: un((t) => t.atan()),
  sinh: un((t) => t.sinh()),
  cosh: un((t) => t.cosh()),
  tanh: un((t) => t.tanh()),
  asinh: un((t) => t.asinh()),
  acosh: un((t) => t.acosh()),
  erf: un((t) => t.erf()),
  atanh: un((t) => t.atanh()),
  erfinv: un((t) => t.erfinv()),
  logit: un((t) => t.logit()),
  lgamma: un((t) => t.lgamma()),
  digamma: un((t) => t.digamma()),
  sigmoid: un((t) => t.sigmoid()),
  isnan: (x) => f(x0(x).isNan()),
  isinf: (x) => f(x0(x).isInf()),
  // binary
  add: bin((p, q) => p.add(q)),
  sub: bin((p, q) => p.sub(q)),
  mul: bin((p, q) => p.mul(q)),
  div: bin((p, q) => p.div(q)),
  atan2: bin((p, q) => p.atan2(q)),
  hypot: bin((p, q) => p.hypot(q)),
  maximum: bin((p, q) => p.maximum(q)),
  minimum: bin((p, q) => p.minimum(q)),
  copysign: bin((p, q) => p.copysign(q)),
  logaddexp: bin((p, q) => p.logaddexp(q)),
  xlogy: bin((p, q) => p.xlogy(q)),
  pow: bin((p, q) => p.pow(q)),
  remainder: bin((p, q) => p.remainder(q)),
  pow_scalar: (x) => x.t['a']!.pow(a.num(x, 'exponent')!),
  remainder_scalar: (x) => x.t['a']!.remainder(a.num(x, 'other')!),
  div_scalar: (x) => x.t['a']!.div(a.num(x, 'other')!),
  add_scalar: (x) => x.t['a']!.add(a.num(x, 'other')!),
  rsub_scalar: (x) => x.t['a']!.neg().add(a.num(x, 'other')!),
  int_div: (x) => f(ints(x)[0].div(ints(x)[1])),
  int_div_floor: (x) => f(ints(x)[0].div(ints(x)[1])),
  int_remainder: (x) => f(ints(x)[0].remainder(ints(x)[1])),
  int_fmod: (x) => f(ints(x)[0].fmod(ints(x)[1])),
  int_div_trunc: (x) => f(ints(x)[0].div(ints(x)[1], 'trunc')),
  fmod: bin((p, q) => p.fmod(q)),
  fmax: bin((p, q) => p.fmax(q)),
  fmin: bin((p, q) => p.fmin(q)),
  div_mode: (x) => ab(x)[0].div(ab(x)[1], x.args['rounding_mode'] as 'trunc' | 'floor'),
  clamp_tensor: (x) => x0(x).clamp(x.t['min']!, x.t['max']!),
  lerp: (x) => ab(x)[0].lerp(ab(x)[1], x.t['w']!),
  addcmul: (x) => x0(x).addcmul(x.t['t1']!, x.t['t2']!, a.num(x, 'value', 1)),
  addcdiv: (x) => x0(x).addcdiv(x.t['t1']!, x.t['t2']!, a.num(x, 'value', 1)),
  int_pow: (x) => f(ints(x)[0].pow(ints(x)[1])),
  int_arith: (x) => {
    const [p, q] = ints(x);
    return [f(p.mul(q)), f(p.add(q)), f(p.sub(q))];
  },
  int_unary: (x) => {
    const p = x.int['a']!;
    return [f(p.abs()), f(p.neg()), f(p.sign())];
  },
  int_minmax: (x) => {
    const [p, q] = ints(x);
    return [f(p.maximum(q)), f(p.minimum(q))];
  },
  int_clamp: (x) => f(x.int['a']!.clamp(a.num(x, 'min'), a.num(x, 'max'))),
  eq: cmp((p, q) => p.equal(q)),
  ne: cmp((p, q) => p.notEqual(q)),
  gt: cmp((p, q) => p.greater(q)),
  ge: cmp((p, q) => p.greaterEqual(q)),
  lt: cmp((p, q) => p.lower(q)),
  le: cmp((p, q) => p.lowerEqual(q)),
  logical: (x) => {
    const p = x.bool['a']!;
    const q = x.bool['b']!;
    return [f(p.logicalAnd(q)), f(p.logicalOr(q)), f(p.logicalNot())];
  },
  clamp: (x) => x0(x).clamp(a.num(x, 'min') ?? null, a.num(x, 'max') ?? null),
  where: (x) => x.t['a']!.where(x.bool['cond']!, x.t['b']!),
  where_scalar: (x) => x.t['a']!.where(x.bool['cond']!, a.num(x, 'other')!),
  masked_fill: (x) => x0(x).maskFill(x.bool['mask']!, a.num(x, 'value')!),
  // reductions
  sum: (x) => x0(x).sum(dims(x), keep(x)),
  mean: (x) => x0(x).mean(dims(x), keep(x)),
  prod: (x) => x0(x).prod(dims(x), keep(x)),
  amax: (x) => x0(x).max(dims(x), keep(x)),
  amin: (x) => x0(x).min(dims(x), keep(x)),
  max_all: (x) => x0(x).max(),
  max_dim: (x) => pair(x0(x).maxWithIndices(a.num(x, 'dim')!, keep(x))),
  min_dim: (x) => pair(x0(x).minWithIndices(a.num(x, 'dim')!, keep(x))),
  argmax: (x) => f(x0(x).argmax(a.num(x, 'dim') ?? null, keep(x))),
  argmin: (x) => f(x0(x).argmin(a.num(x, 'dim') ?? null, keep(x))),
  var: (x) => x0(x).var(dims(x), { correction: a.num(x, 'correction')!, keepDims: keep(x) }),
  std: (x) => x0(x).std(dims(x), { correction: a.num(x, 'correction')!, keepDims: keep(x) }),
  logsumexp: (x) => x0(x).logsumexp(dims(x) ?? null, keep(x)),
  vector_norm: (x) => x0(x).norm(a.num(x, 'ord', 2), dims(x), keep(x)),
  all: (x) => f((x.t['x'] ?? x.bool['x']!).all(dims(x), keep(x))),
  any: (x) => f((x.t['x'] ?? x.bool['x']!).any(dims(x), keep(x))),
  cumsum: (x) => x0(x).cumsum(a.num(x, 'dim')!),
  cumprod: (x) => x0(x).cumprod(a.num(x, 'dim')!),
  int_cumsum: (x) => f(x.int['x']!.cumsum(a.num(x, 'dim')!)),
  // ordering & indexing
  sort: (x) => pair(x0(x).sort(a.num(x, 'dim')!, a.bool(x, 'descending')!)),
  argsort: (x) => f(x0(x).argsort(a.num(x, 'dim')!, a.bool(x, 'descending')!)),
  int_sort: (x) => {
    const r = x.int['x']!.sort(a.num(x, 'dim')!, a.bool(x, 'descending')!);
    return [f(r.values), f(r.indices)];
  },
  topk: (x) => pair(x0(x).topk(a.num(x, 'k')!, a.num(x, 'dim')!, a.bool(x, 'largest')!)),
  gather: (x) => x0(x).gather(a.num(x, 'dim')!, x.int['index']!),
  scatter_add: (x) => x0(x).scatterAdd(a.num(x, 'dim')!, x.int['index']!, x.t['src']!),
  index_select: (x) => x0(x).indexSelect(a.num(x, 'dim')!, x.int['index']!),
  flip: (x) => x0(x).flip(x.args['dims'] as number[]),
  roll: (x) => x0(x).roll(seq(x.args['shifts']!), x.args['dims'] === null ? undefined : seq(x.args['dims']!)),
  tril: (x) => x0(x).tril(a.num(x, 'diagonal')),
  triu: (x) => x0(x).triu(a.num(x, 'diagonal')),
  one_hot: (x) => f(x.int['index']!.oneHot(a.num(x, 'num_classes')!)),
  // shape ops
  cat: (x) => Tensor.cat(x.list as F[], a.num(x, 'dim')!),
  stack: (x) => Tensor.stack(x.list as F[], a.num(x, 'dim')!),
  split: (x) => x0(x).split(x.args['size'] as number | number[], a.num(x, 'dim')!),
  chunk: (x) => x0(x).chunk(a.num(x, 'chunks')!, a.num(x, 'dim')!),
  expand: (x) => x0(x).expand(x.args['shape'] as number[]),
  repeat: (x) => x0(x).repeat(x.args['sizes'] as number[]),
  permute: (x) => x0(x).permute(x.args['dims'] as number[]),
  transpose: (x) => x0(x).swapDims(a.num(x, 'dim0')!, a.num(x, 'dim1')!),
  squeeze: (x) => x0(x).squeeze(a.num(x, 'dim')),
  unsqueeze: (x) => x0(x).unsqueeze(a.num(x, 'dim')!),
  flatten: (x) => x0(x).flatten(a.num(x, 'start_dim')!, a.num(x, 'end_dim')!),
  reshape: (x) => x0(x).reshape(x.args['shape'] as number[]),
  reshape_t: (x) => x0(x).swapDims(0, 2).reshape(x.args['shape'] as number[]),
  narrow: (x) => x0(x).narrow(a.num(x, 'dim')!, a.num(x, 'start')!, a.num(x, 'length')!),
  slice: (x) => x0(x).slice(ranges(x)),
  select: (x) => {
    const t = x0(x);
    const d = a.num(x, 'dim')!;
    return t.narrow(d, a.num(x, 'index')!, 1).squeeze(d);
  },
  pad: (x) => x0(x).pad(x.args['pad'] as number[], x.args['mode'] as 'constant', a.num(x, 'value', 0)),
  matmul: bin((p, q) => p.matmul(q)),
  bmm: bin((p, q) => p.matmul(q)),
  dot: bin((p, q) => p.matmul(q)),
  linspace: (x) => linspace(x.b, a.num(x, 'start')!, a.num(x, 'end')!, a.num(x, 'steps')!),
  // float32 throughout: torch's int64 aranges compare as the same numbers.
  arange: (x) => arange(x.b, a.num(x, 'start')!, a.num(x, 'end')!, a.num(x, 'step')!, { dtype: 'float32' }),
  linspace_int: (x) => f(linspace(x.b, a.num(x, 'start')!, a.num(x, 'end')!, a.num(x, 'steps')!, { dtype: 'int32' })),
  eye: (x) => eye(x.b, a.num(x, 'n')!, a.num(x, 'm')!),
  softmax: (x) => x0(x).softmax(a.num(x, 'dim')!),
  log_softmax: (x) => x0(x).logSoftmax(a.num(x, 'dim')!),
  cast_int: (x) => f(x0(x).cast('int32')),
  // integer reductions and layout
  int_reduce: (x) => {
    const t = x.int['x']!;
    const d = a.num(x, 'dim')!;
    const fn = x.args['fn'] as string;
    if (fn === 'argmax' || fn === 'argmin') return f(fn === 'argmax' ? t.argmax(d) : t.argmin(d));
    return f(fn === 'sum' ? t.sum(d) : fn === 'prod' ? t.prod(d) : fn === 'amax' ? t.max(d) : fn === 'amin' ? t.min(d) : t.cumprod(d));
  },
  int_max_dim: (x) => {
    const r = x.int['x']!.maxWithIndices(a.num(x, 'dim')!);
    return [f(r.values), f(r.indices)];
  },
  int_topk: (x) => f(x.int['x']!.topk(a.num(x, 'k')!, 1).values),
  int_where: (x) => f(x.int['a']!.where(x.bool['cond']!, x.int['b']!)),
  int_layout: (x) => {
    const t = x.int['x']!;
    return [f(t.flip([1])), f(t.roll(1, 0)), f(t.tril(-1))];
  },
  int_shape: (x) => {
    const t = x.int['x']!;
    const mk = x.bool['mask']!;
    const idx = fromData(x.b, Int32Array.from([3, 0]));
    return [
      f(Tensor.cat([t, t.neg()], 1)),
      f(t.pad([1, 2], 'constant', -7)),
      f(t.repeat([2, 1])),
      f(mk.indexSelect(1, idx)),
      f(Tensor.stack([mk, mk.logicalNot()], 0)),
      f(t.transpose().clone()),
      f(t.maskFill(mk, 9)),
      f(mk.roll(1, 1)),
      f(t.cumsum(0)),
    ];
  },
  exact_ids: (x) => {
    const t = x0(x);
    const zero = t.narrow(0, 0, 1);
    return [zero.exp(), t.narrow(0, 1, 1).log(), zero.expm1(), zero.log1p()];
  },
  int_gather: (x) => f(x.int['x']!.gather(a.num(x, 'dim')!, x.int['index']!)),
  prod_dims: (x) => x0(x).prod(x.args['dim'] as number[]),
  big_all: (x) => {
    const fl = x.t['flat']!;
    const t = x.t['tied']!;
    return [t.sum(), fl.max(), t.max(), f(t.argmax()), f(fl.argmin()), t.mean(), t.var(), t.logsumexp(0)];
  },
  // The op `then` on a view of x (transposed, strided or expanded), as the fixture built it.
  on_view: (x) => {
    const t = x0(x);
    const kind = x.args['view'] as 'transpose' | 'step' | 'expand';
    const v = kind === 'transpose' ? t.swapDims(0, 1) : kind === 'step' ? t.slice([null, { start: 1, step: 2 }]) : t.slice([null, [0, 1]]).expand([4, 5]);
    const then = x.args['then'] as string;
    if (then === 'index_select') return v.indexSelect(a.num(x, 'dim')!, fromData(x.b, Int32Array.from(x.args['index_list'] as number[])));
    if (then === 'gather') return v.gather(a.num(x, 'dim')!, fromData(x.b, Int32Array.from((x.args['index_rows'] as number[][]).flat()), { shape: [2, 3] }));
    if (then === 'matmul_self_t') return v.matmul(v.transpose());
    if (then === 'pad') return v.unsqueeze(0).pad(x.args['pad'] as number[], 'reflect').squeeze(0);
    return ADAPTERS[then]!({ ...x, t: { ...x.t, x: v } });
  },
  // tensor-scalar ops: the number goes to our scalar overloads (their own kernels and gradients)
  scalar_op: (x) => {
    const t = x0(x);
    const s = a.num(x, 'scalar')!;
    switch (x.args['fn'] as string) {
      case 'add': return t.add(s);
      case 'sub': return t.sub(s);
      case 'mul': return t.mul(s);
      case 'div': return t.div(s);
      case 'pow': return t.pow(s);
      case 'remainder': return t.remainder(s);
      case 'maximum': return t.maximum(s);
      case 'minimum': return t.minimum(s);
      case 'atan2': return t.atan2(s);
      case 'hypot': return t.hypot(s);
      case 'copysign': return t.copysign(s);
      case 'logaddexp': return t.logaddexp(s);
      case 'xlogy': return t.xlogy(s);
      case 'eq': return f(t.equal(s));
      case 'ne': return f(t.notEqual(s));
      case 'gt': return f(t.greater(s));
      case 'ge': return f(t.greaterEqual(s));
      case 'lt': return f(t.lower(s));
      case 'le': return f(t.lowerEqual(s));
    }
    throw new Error(`no scalar op ${String(x.args['fn'])}`);
  },
  int_scalar_cmp: (x) => {
    const t = x.int['x']!;
    const s = a.num(x, 'scalar')!;
    const fn = x.args['fn'] as string;
    return f(fn === 'eq' ? t.equal(s) : fn === 'ne' ? t.notEqual(s) : fn === 'gt' ? t.greater(s) : fn === 'ge' ? t.greaterEqual(s) : fn === 'lt' ? t.lower(s) : t.lowerEqual(s));
  },
  int_scalar_op: (x) => {
    const t = x.int['x']!;
    const s = a.num(x, 'scalar')!;
    const fn = x.args['fn'] as string;
    const r = fn === 'add' ? t.add(s) : fn === 'sub' ? t.sub(s) : fn === 'mul' ? t.mul(s) : fn === 'div' ? t.div(s) : fn === 'remainder' ? t.remainder(s) : fn === 'pow' ? t.pow(s) : fn === 'maximum' ? t.maximum(s) : t.minimum(s);
    return f(r);
  },
  long_strided: (x) => {
    const t = x0(x);
    const v = t.transpose();
    const srt = v.sort(1);
    const v2 = v.narrow(0, 0, 2);
    const tk = v.narrow(0, 1, 2).topk(5, 1);
    return [v.sum(1), v.max(1), f(v.argmax(1)), f(v.argmin(1)), v.mean(1), v.var(1), v.logsumexp(1), v.cumsum(1), srt.values, f(srt.indices), tk.values, f(tk.indices), v2.matmul(t.narrow(1, 0, 2))];
  },
  // second order: the output is the first gradient, recorded (createGraph), so the harness's backward is a Hessian-vector product
  grad_of: (x) => gradOf(x, [x0(x)], (t) => SECOND[x.args['fn'] as string]!(t[0]!)),
  grad_of2: (x) => gradOf(x, [x.t['a']!, x.t['b']!], (t) => SECOND2[x.args['fn'] as string]!(t[0]!, t[1]!)),
  // float16: inputs cast to half, results cast back to float32
  half: (x) => {
    const [p, q] = [x.t['x']!.cast('float16'), x.t['y']?.cast('float16')];
    const fn = x.args['fn'] as string;
    const two = (): F => {
      if (!q) throw new Error(`float16 ${fn} needs y`);
      return fn === 'add' ? p.add(q) : fn === 'div' ? p.div(q) : fn === 'pow' ? p.pow(q.div(4)) : fn === 'remainder' ? p.remainder(q) : p.maximum(q);
    };
    const r =
      fn === 'cast' ? p : fn === 'sum' ? p.sum(1) : fn === 'mean' ? p.mean(1) : fn === 'sum all' ? p.sum() : fn === 'amax' ? p.max(1) : fn === 'argmax' ? f(p.argmax(1)) : fn === 'var' ? p.var(1) : fn === 'norm' ? p.norm(2, 1) : fn === 'sort' ? p.sort(1).values : two();
    return r.cast('float32');
  },
  slice_assign: (x) => x0(x).sliceAssign(ranges(x), x.t['v']!),
  add_views: (x) => x.t['a']!.swapDims(0, 1).mul(2).add(x.t['b']!),
  cast_bool: (x) => f(x0(x).cast('bool')),
  // reductions, scans, indexing and shape ops beyond the core set (their edges: the ops2 group)
  count_nonzero: (x) => f(x0(x).countNonzero(dims(x))),
  median: (x) => pair(x0(x).medianWithIndices(a.num(x, 'dim')!)),
  mode: (x) => pair(x0(x).mode(a.num(x, 'dim')!)),
  nanmean: (x) => x0(x).nanmean(dims(x)),
  nansum: (x) => x0(x).nansum(dims(x)),
  cummax: (x) => pair(x0(x).cummax(a.num(x, 'dim')!)),
  cummin: (x) => pair(x0(x).cummin(a.num(x, 'dim')!)),
  logcumsumexp: (x) => x0(x).logcumsumexp(a.num(x, 'dim')!),
  kthvalue: (x) => pair(x0(x).kthvalue(a.num(x, 'k')!, a.num(x, 'dim')!)),
  scatter: (x) => x0(x).scatter(a.num(x, 'dim')!, x.int['index']!, x.t['src']!),
  scatter_reduce: (x) => x0(x).scatterReduce(a.num(x, 'dim')!, x.int['index']!, x.t['src']!, x.args['reduce'] as 'amax'),
  index_add: (x) => x0(x).indexAdd(a.num(x, 'dim')!, x.int['index']!, x.t['src']!),
  masked_select: (x) => x0(x).maskedSelect(x.bool['mask']!),
  take: (x) => x0(x).take(x.int['index']!),
  nonzero: async (x) => f(await x0(x).nonzero()),
  unique: async (x) => (await x0(x).unique()).values,
  diag: (x) => x0(x).diag(a.num(x, 'diagonal')!),
  diagonal: (x) => x0(x).diagonal(a.num(x, 'offset')!),
  unbind: (x) => x0(x).unbind(a.num(x, 'dim')!),
  tile: (x) => x0(x).tile(x.args['dims'] as number[]),
  repeat_interleave: (x) => x0(x).repeatInterleave(a.num(x, 'repeats')!, a.num(x, 'dim')),
  outer: bin((p, q) => p.outer(q)),
};

/** The gradients of sum(fn(xs) * w) (w: gweight k = 7) with respect to xs, as tracked tensors. */
function gradOf(x: Ctx, xs: F[], fn: (xs: F[]) => F): F[] {
  const y = fn(xs);
  const w = fromData(x.b, weight(y.size, 7), { shape: y.shape });
  const grads = y.mul(w).sum().backward({ createGraph: true, inputs: xs });
  return xs.map((t) => t.grad(grads) ?? t.mul(0));
}

const cube = (t: F): F => t.pow(3);
const SECOND: Readonly<Record<string, (t: F) => F>> = {
  exp: (t) => t.exp(),
  log: (t) => t.log(),
  sqrt: (t) => t.sqrt(),
  rsqrt: (t) => t.rsqrt(),
  sin: (t) => t.sin(),
  cos: (t) => t.cos(),
  tan: (t) => t.tan(),
  tanh: (t) => t.tanh(),
  sigmoid: (t) => t.sigmoid(),
  erf: (t) => t.erf(),
  atan: (t) => t.atan(),
  asin: (t) => t.asin(),
  acos: (t) => t.acos(),
  asinh: (t) => t.asinh(),
  acosh: (t) => t.acosh(),
  sinh: (t) => t.sinh(),
  cosh: (t) => t.cosh(),
  expm1: (t) => t.expm1(),
  log1p: (t) => t.log1p(),
  log2: (t) => t.log2(),
  log10: (t) => t.log10(),
  exp2: (t) => t.exp2(),
  reciprocal: (t) => t.recip(),
  square: (t) => t.square(),
  'pow_scalar 3': (t) => t.pow(3),
  'pow_scalar 0.5': (t) => t.pow(0.5),
  'pow_scalar -1.5': (t) => t.pow(-1.5),
  gelu: (t) => NF.gelu(t),
  silu: (t) => NF.silu(t),
  softplus: (t) => NF.softplus(t),
  elu: (t) => NF.elu(t),
  mish: (t) => NF.mish(t),
  softmax: (t) => t.softmax(1),
  log_softmax: (t) => t.logSoftmax(1),
  logsumexp: (t) => t.logsumexp(1),
  var: (t) => t.var(1),
  std: (t) => t.std(1),
  norm: (t) => t.norm(2, 1),
  'norm p=3': (t) => t.norm(3, 1),
  prod: (t) => t.prod(1),
  cumprod: (t) => t.cumprod(1),
  'mean of squares': (t) => t.mul(t).mean(1),
  'sort of cubes': (t) => cube(t).sort(1).values,
  'max_dim of cubes': (t) => cube(t).maxWithIndices(1).values,
  'amax of cubes': (t) => cube(t).max(1),
  'gather of cubes': (t) => cube(t).gather(1, fromData(t.backend, Int32Array.from([2, 0, 1, 1]), { shape: [2, 2] })),
  'cumsum of cubes': (t) => cube(t).cumsum(1),
  'matmul self': (t) => t.matmul(t.transpose()),
};
const SECOND2: Readonly<Record<string, (p: F, q: F) => F>> = {
  mul: (p, q) => p.mul(q),
  div: (p, q) => p.div(q),
  pow: (p, q) => p.pow(q),
  atan2: (p, q) => p.atan2(q),
  hypot: (p, q) => p.hypot(q),
  logaddexp: (p, q) => p.logaddexp(q),
  xlogy: (p, q) => p.xlogy(q),
  'maximum of cubes': (p, q) => cube(p).maximum(q),
  where: (p, q) => p.mul(q).where(p.greater(1), q.mul(q)),
  matmul: (p, q) => p.matmul(q.transpose()),
};

const UNSUPPORTED: Readonly<Record<string, string>> = {
};

const KNOWN: readonly Known[] = [
  {
    group: 'tensor',
    cases: /^logcumsumexp$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only: at a +inf element torch's backward takes exp(inf - inf) = NaN, ours the limit; elsewhere torch's float32 gradient is 2e-5 off its own float64 one, which ours matches (as in ops2's 'logcumsumexp non-finite')",
  },
  {
    group: 'tensor',
    cases: /^float16 norm$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "torch 1.13's CPU half vector_norm accumulates in half (115.5625 where the exact 2-norm is 115.784); ours accumulates in float32 and rounds once (115.8125, the nearest half), as torch's half sum and mean do",
  },
  {
    group: 'tensor',
    cases: /^prod non-finite rows$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only, at an infinite or NaN element: torch's prod backward is result / x when its input holds no zero (inf / inf, NaN / NaN: NaN) and the product of the others when it does ('prod NaN, inf and zeros' agrees with ours); ours is always the product of the others",
  },
  {
    group: 'tensor',
    cases: /^vector_norm ord=4\.0 non-finite$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'ours',
    why: "gradient only, at a zero entry of a line whose norm is NaN: ours masks zero entries to 0 (README: 0 at zero entries), torch's x |x|^(p-2) / norm^(p-1) is 0 / NaN there",
  },
  {
    group: 'tensor',
    cases: /^int div \(true division\)$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'ours',
    why: "int32 div floors (Python's //; README, the op set): dtypes are never promoted here, so int / int stays int; torch.div promotes to float (7 / 2 = 3.5). Cast to float32 first for true division",
  },
  {
    group: 'tensor',
    cases: /^var of a scalar$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only, of a NaN forward (one element, correction 1): torch's is -inf for a rank-0 input but NaN for a [3, 1] input over dim 1 ('var N=1 correction=1'); ours is NaN for both",
  },
  {
    group: 'tensor',
    cases: /^xlogy with scalar nan$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only, at x = 0: torch's scalar-other formula gives 0 there for a NaN scalar, its tensor-other one NaN (xlogy(dy, NaN)); ours is the tensor form's for both",
  },
  {
    group: 'tensor',
    cases: /^(sign edges|abs edges|abs -0 and inf|vector_norm ord=1\.0 non-finite)$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'ours',
    why: "sign(NaN) is NaN here (numpy's; README: 'sign(NaN) is NaN'), so abs's gradient sign(x) dy (and the 1-norm's) is NaN at NaN too; torch's sign(NaN) is 0 ((0 < x) - (x < 0)), and so is its abs gradient there",
  },
  {
    group: 'tensor',
    cases: /^remainder (signs|edges)$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'ours',
    why: "gradient only, the divisor's where it is 0 or infinite: ours is -(a - y) / b (0 / 0 or inf / inf: NaN), torch's -div(a, b, rounding_mode='floor') (-inf at b = 0, where its forward is NaN; 1 at (1, -inf))",
  },
  {
    group: 'tensor',
    cases: /^std non-finite$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "std of [1e20, 1, -1e20]: torch's CPU kernel takes the root of its float64 accumulator (1e20) though its var of the same row is inf in float32 ('var non-finite' agrees); ours is sqrt of that float32 var, inf",
  },
  {
    group: 'tensor',
    cases: /^topk (ties|NaN and inf)$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "indices only, among equal values (ties, or several NaN): torch's order is unspecified (its CPU partial sort gives later positions first); ours is stable, the first position first",
  },
  {
    group: 'tensor',
    cases: /^log1p wide range$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "torch's float32 CPU log1p(3e38) is inf (1 + x overflows in its vectorised kernel); ours is 88.5968, as torch's own float64 result",
  },
  {
    group: 'tensor',
    cases: /^var correction larger than N$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only: with correction > N, torch's forward divides by max(0, N - correction) = 0 (inf) but its backward by N - correction < 0 (finite); ours is the derivative of the forward (inf, NaN)",
  },
];

await torchVectorSuite({ groups: ['tensor'], adapters: ADAPTERS, unsupported: UNSUPPORTED, known: KNOWN });
