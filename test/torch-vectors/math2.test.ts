/**
 * Switchyard against PyTorch's reference vectors for the elementwise math added after the core set
 * (group `math2`, tools/torch-vectors/groups/math2.py): lerp, addcmul, addcdiv, clamp with tensor
 * bounds and with min > max, fmax, fmin, fmod, div's rounding modes, logit, atanh, erfinv, lgamma,
 * digamma, polygamma and xlog1py, at their edges, in float32 and int32, with gradients (and
 * second-order ones: `grad_of`, as in the tensor group). Int outputs are cast
 * to float32 for the comparison.
 */
import { fromData } from '../../src/tensor/creation.js';
import { a, all, torchVectorSuite, weight, type Adapter, type Ctx, type F, type I, type Known } from './harness.js';

const f = (t: I): F => t.cast('float32');
const x0 = (x: Ctx): F => x.t['x']!;
const ab = (x: Ctx): [F, F] => [x.t['a']!, x.t['b']!];
const ints = (x: Ctx): [I, I] => [x.int['a']!, x.int['b']!];
const un = (fn: (t: F) => F): Adapter => (x) => fn(x0(x));
const bin = (fn: (p: F, q: F) => F): Adapter => (x) => fn(...ab(x));
const intBin = (fn: (p: I, q: I) => I): Adapter => (x) => f(fn(...ints(x)));
const other = (x: Ctx): number => a.num(x, 'other')!;
const mode = (x: Ctx): 'trunc' | 'floor' => x.args['rounding_mode'] as 'trunc' | 'floor';

/** The first gradient of sum(fn(xs) * w), recorded (createGraph): the harness differentiates it again. */
function gradOf(x: Ctx, xs: F[], fn: (xs: F[]) => F): F[] {
  const y = fn(xs);
  const w = fromData(x.b, weight(y.size, 7), { shape: y.shape });
  const grads = y.mul(w).sum().backward({ createGraph: true, inputs: xs });
  return xs.map((t) => t.grad(grads) ?? t.mul(0));
}
const SECOND: Readonly<Record<string, (t: F) => F>> = {
  lgamma: (t) => t.lgamma(),
  'lgamma negative': (t) => t.lgamma(),
  digamma: (t) => t.digamma(),
  'digamma negative': (t) => t.digamma(),
  'polygamma(1)': (t) => t.polygamma(1),
  atanh: (t) => t.atanh(),
  erfinv: (t) => t.erfinv(),
  logit: (t) => t.logit(),
  'logit eps=0.2': (t) => t.logit(0.2),
};
const SECOND2: Readonly<Record<string, (p: F, q: F) => F>> = {
  xlog1py: (p, q) => p.xlog1py(q),
  'fmod of cubes': (p, q) => p.pow(3).fmod(q),
  'fmax of cubes': (p, q) => p.pow(3).fmax(q),
  'lerp scalar weight': (p, q) => p.mul(p).lerp(q, 0.3),
  'lerp tensor weight': (p, q) => p.lerp(q.mul(q), q.div(3)),
  addcmul: (p, q) => p.addcmul(p, q, 0.5),
  addcdiv: (p, q) => q.addcdiv(p.mul(p), q, -2),
  'clamp tensors': (p, q) => p.mul(q).clamp(q.sub(0.5), q.add(0.5)),
};

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  grad_of: (x) => gradOf(x, [x0(x)], (t) => SECOND[x.args['fn'] as string]!(t[0]!)),
  grad_of2: (x) => gradOf(x, [x.t['a']!, x.t['b']!], (t) => SECOND2[x.args['fn'] as string]!(t[0]!, t[1]!)),
  atanh: un((t) => t.atanh()),
  erfinv: un((t) => t.erfinv()),
  logit: (x) => x0(x).logit(a.num(x, 'eps')),
  lgamma: un((t) => t.lgamma()),
  digamma: un((t) => t.digamma()),
  trigamma: un((t) => t.polygamma(1)),
  polygamma0: un((t) => t.polygamma(0)),
  fmax: bin((p, q) => p.fmax(q)),
  fmin: bin((p, q) => p.fmin(q)),
  fmax_scalar: (x) => ab(x)[0].fmax(other(x)),
  fmin_scalar: (x) => ab(x)[0].fmin(other(x)),
  int_fmax: intBin((p, q) => p.fmax(q)),
  int_fmin: intBin((p, q) => p.fmin(q)),
  xlog1py: bin((p, q) => p.xlog1py(q)),
  xlog1py_scalar: (x) => ab(x)[0].xlog1py(other(x)),
  fmod: bin((p, q) => p.fmod(q)),
  fmod_scalar: (x) => ab(x)[0].fmod(other(x)),
  int_fmod: intBin((p, q) => p.fmod(q)),
  int_fmod_scalar: (x) => f(x.int['a']!.fmod(other(x))),
  div_mode: (x) => ab(x)[0].div(ab(x)[1], mode(x)),
  div_mode_scalar: (x) => ab(x)[0].div(other(x), mode(x)),
  int_div_mode: (x) => f(ints(x)[0].div(ints(x)[1], mode(x))),
  int_div_mode_scalar: (x) => f(x.int['a']!.div(other(x), mode(x))),
  lerp_scalar: (x) => ab(x)[0].lerp(ab(x)[1], a.num(x, 'weight')!),
  lerp: (x) => ab(x)[0].lerp(ab(x)[1], x.t['w']!),
  addcmul: (x) => x0(x).addcmul(x.t['t1']!, x.t['t2']!, a.num(x, 'value', 1)),
  addcdiv: (x) => x0(x).addcdiv(x.t['t1']!, x.t['t2']!, a.num(x, 'value', 1)),
  int_addcmul: (x) => f(x.int['x']!.addcmul(x.int['t1']!, x.int['t2']!, a.num(x, 'value', 1))),
  clamp: (x) => x0(x).clamp(a.num(x, 'min') ?? null, a.num(x, 'max') ?? null),
  int_clamp: (x) => f(x.int['x']!.clamp(a.num(x, 'min'), a.num(x, 'max'))),
  clamp_tensor: (x) => x0(x).clamp(x.t['min']!, x.t['max']!),
  clamp_min_tensor: (x) => x0(x).clampMin(x.t['min']!),
  clamp_max_tensor: (x) => x0(x).clampMax(x.t['max']!),
  int_clamp_tensor: (x) => f(x.int['x']!.clamp(x.int['min']!, x.int['max']!)),
};

const KNOWN: readonly Known[] = [
  {
    group: 'math2',
    cases: /^erfinv near the ends of \[-1, 1\]$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only, at x = 0.99999994: sqrt(pi) / 2 exp(erfinv(x)^2) magnifies torch's float32 rounding of erfinv(x) (2.3e-4 relative); ours is within 2e-6 of torch's float64 gradient",
  },
];

await torchVectorSuite({ groups: ['math2'], adapters: ADAPTERS, known: KNOWN });
