"""The 'math2' group: the elementwise math added after the core set (lerp, addcmul, addcdiv, clamp
with tensor bounds and with min > max, fmax, fmin, fmod, div's rounding modes, logit, atanh,
erfinv, lgamma, digamma, polygamma(1), xlog1py) at their edges: NaN, +-inf, -0, 0, 1, poles, tiny and huge
arguments, negative operands, ties, broadcasting, int32 where torch takes ints. Gradients wherever
torch differentiates (rounding divisions: zeros)."""
import torch

NAN, INF = float('nan'), float('inf')


def make(gen):
    g = gen.Group('math2', 1e-5, 1e-6, 'lerp, addcmul, addcdiv, clamp with tensors, fmax, fmin, fmod, rounding division, logit, atanh, erfinv, lgamma, digamma, polygamma')
    T = torch.tensor
    I = lambda v: torch.tensor(v, dtype=torch.int64)

    # ---- unary special functions: random points of the domain and edge rows, with gradients ----
    edges = T([-INF, -100.0, -2.5, -1.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.5, 3.0, 100.0, INF, NAN])
    unit = T([-1.0, -0.99999994, -0.999, -0.5, -1e-10, -0.0, 0.0, 1e-30, 1e-5, 0.25, 0.5, 0.9, 0.999, 0.99999994, 1.0, 1.0000001, -1.5, NAN])
    for op, fn, lo, hi in [('atanh', torch.atanh, -0.999, 0.999), ('erfinv', torch.erfinv, -0.999, 0.999), ('logit', torch.logit, 0.001, 0.999),
                           ('lgamma', torch.lgamma, -6.0, 12.0), ('digamma', torch.digamma, -6.0, 12.0)]:
        g.case(op + ' random', op, {}, [('x', g.rand(3, 7, lo=lo, hi=hi))], lambda m, x, fn=fn: fn(x))
        g.case(op + ' edges', op, {}, [('x', edges)], lambda m, x, fn=fn: fn(x))
        if op in ('atanh', 'erfinv', 'logit'):
            g.case(op + ' near the ends of [-1, 1]', op, {}, [('x', unit)], lambda m, x, fn=fn: fn(x))
    for eps in [0.1, 0.25, 1e-6, -1.0, 0.7]:
        g.case('logit eps=%g' % eps, 'logit', {'eps': eps}, [('x', T([-1.0, 0.0, 0.05, 0.1, 0.3, 0.5, 0.9, 0.95, 1.0, 2.0, 1e-7, INF]))],
               lambda m, x, eps=eps: torch.logit(x, eps))
    gam = T([-100.5, -3.5, -2.000001, -1.9999999, -0.999, -1e-3, -1e-30, 1e-30, 1e-3, 0.1, 0.9999999, 1.0000001, 1.4616321, 1.9999999, 2.0000002, 4.5, 10.0, 35.0, 171.6, 1e6, 1e10, 3e38])
    for op, fn in [('lgamma', torch.lgamma), ('digamma', torch.digamma)]:
        g.case(op + ' poles, zeros, tiny and huge', op, {}, [('x', gam)], lambda m, x, fn=fn: fn(x), tol={'rtol': 2e-5, 'atol': 2e-6})
    # polygamma(1) (digamma's derivative); its gradient is polygamma(2) (ours is composed, so not at the edges).
    g.case('polygamma(1) random', 'trigamma', {}, [('x', g.rand(3, 7, lo=-6.0, hi=12.0))], lambda m, x: torch.polygamma(1, x), grad=[])
    g.case('polygamma(1) edges', 'trigamma', {}, [('x', edges)], lambda m, x: torch.polygamma(1, x), grad=[])
    g.case('polygamma(1) with its gradient', 'trigamma', {}, [('x', T([0.2, 0.5, 1.0, 1.5, 2.75, 6.0, 11.5, 40.0, -0.5, -1.5, -2.3, -3.7, -5.25]))], lambda m, x: torch.polygamma(1, x),
           tol={'rtol': 2e-5, 'atol': 1e-5})
    g.case('polygamma(0) is digamma', 'polygamma0', {}, [('x', g.rand(2, 5, lo=0.1, hi=8.0))], lambda m, x: torch.polygamma(0, x))
    g.case('erfinv tiny', 'erfinv', {}, [('x', T([1e-38, -1e-20, 3e-8, -1e-5]))], lambda m, x: torch.erfinv(x), tol={'rtol': 2e-5, 'atol': 1e-37})
    g.case('atanh tiny', 'atanh', {}, [('x', T([1e-38, -1e-20, 3e-8, -1e-5]))], lambda m, x: torch.atanh(x), tol={'rtol': 2e-5, 'atol': 1e-37})

    # ---- fmax / fmin ----
    fa = T([NAN, 1.0, NAN, INF, -INF, 0.0, -0.0, 2.0, -3.0, 5.0, NAN, -1.0])
    fb = T([1.0, NAN, NAN, -INF, INF, -0.0, 0.0, 2.0, -3.0, -5.0, -INF, INF])
    for op, fn in [('fmax', torch.fmax), ('fmin', torch.fmin)]:
        g.case(op + ' NaN, inf, ties', op, {}, [('a', fa), ('b', fb)], lambda m, x, y, fn=fn: fn(x, y))
        g.case(op + ' broadcast [3,4]x[4]', op, {}, [('a', g.randn(3, 4)), ('b', T([0.0, NAN, -0.5, 1.0]))], lambda m, x, y, fn=fn: fn(x, y))
        g.case(op + ' broadcast [3,1]x[1,4]', op, {}, [('a', g.randn(3, 1)), ('b', g.randn(1, 4))], lambda m, x, y, fn=fn: fn(x, y))
        g.case(op + ' scalar', op + '_scalar', {'other': 0.25}, [('a', T([NAN, -1.0, 0.25, 3.0, INF]))], lambda m, x, fn=fn: fn(x, T(0.25)))
        g.case(op + ' NaN scalar', op + '_scalar', {'other': 'nan'}, [('a', T([NAN, -1.0, 0.25, INF]))], lambda m, x, fn=fn: fn(x, T(NAN)))
        g.case(op + ' int32', 'int_' + op, {}, [('a', I([3, -7, 0, 2147483647, -2147483647])), ('b', I([-3, 5, 0, -1, 2]))], lambda m, x, y, fn=fn: fn(x, y))

    # ---- xlog1py ----
    xa = T([0.0, 0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 3.0, NAN, 0.5, -0.0, INF, 1e-30])
    xb = T([-1.0, -2.0, NAN, INF, -1.0, 0.5, 1e-8, -1.5, 1.0, 1e30, 3.0, 0.0, -0.5])
    g.case('xlog1py edges', 'xlog1py', {}, [('a', xa), ('b', xb)], lambda m, x, y: torch.special.xlog1py(x, y))
    g.case('xlog1py random broadcast [3,4]x[4]', 'xlog1py', {}, [('a', g.randn(3, 4)), ('b', g.rand(4, lo=-0.9, hi=3.0))], lambda m, x, y: torch.special.xlog1py(x, y))
    for sv in [2.5, -1.0, -0.5]:
        g.case('xlog1py scalar %g' % sv, 'xlog1py_scalar', {'other': sv}, [('a', T([0.0, -0.0, 1.0, -2.0, NAN, INF]))], lambda m, x, sv=sv: torch.special.xlog1py(x, sv))

    # ---- fmod (C fmod: the sign of the dividend) ----
    ma = T([5.0, -5.0, 5.0, -5.0, 5.5, -5.5, 0.0, -0.0, 3.0, 1e10, INF, 1.0, -1.0, NAN, 2.0, 1e-30, 7.0, -0.5])
    mb = T([3.0, 3.0, -3.0, -3.0, 2.0, 2.0, 3.0, -3.0, 0.0, 3.0, 2.0, INF, -INF, 1.0, NAN, 3.0, 1e-30, 0.25])
    g.case('fmod signs and edges', 'fmod', {}, [('a', ma), ('b', mb)], lambda m, x, y: torch.fmod(x, y))
    g.case('fmod random', 'fmod', {}, [('a', g.randn(3, 4, scale=10.0)), ('b', g.rand(3, 4, lo=0.5, hi=3.0) * T([[1.0, -1.0, 1.0, -1.0]]))], lambda m, x, y: torch.fmod(x, y))
    g.case('fmod broadcast [3,4]x[4]', 'fmod', {}, [('a', g.randn(3, 4, scale=5.0)), ('b', T([1.5, -2.0, 0.7, -0.3]))], lambda m, x, y: torch.fmod(x, y))
    g.case('fmod scalar -1.5', 'fmod_scalar', {'other': -1.5}, [('a', T([-4.0, -1.5, -0.0, 0.0, 1.0, 4.5, 7.25, INF, NAN]))], lambda m, x: torch.fmod(x, -1.5))
    ia = I([7, -7, 7, -7, 0, 1, -1, 2147483647, -2147483647, 6, -6, 5])
    ib = I([2, 2, -2, -2, 3, 3, 3, 2, 10, -3, 4, 1])
    g.case('int32 fmod', 'int_fmod', {}, [('a', ia), ('b', ib)], lambda m, x, y: torch.fmod(x, y))
    g.case('int32 fmod scalar', 'int_fmod_scalar', {'other': -3}, [('a', ia)], lambda m, x: torch.fmod(x, -3))

    # ---- div with rounding modes ----
    da = T([7.0, -7.0, 7.0, -7.0, 0.0, -0.0, 0.0, 5.0, -5.0, 1e10, INF, -INF, 7.0, -7.0, 0.0, NAN, 1.0, 6.0, -6.0, 0.3, -0.3, 3e38, 1e-30, 2.5])
    db = T([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, -3.0, INF, INF, 3.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0, NAN, 3.0, 3.0, 0.1, 0.1, 1e-30, 3e38, -0.0])
    for mode in ['trunc', 'floor']:
        g.case('div %s edges' % mode, 'div_mode', {'rounding_mode': mode}, [('a', da), ('b', db)], lambda m, x, y, mode=mode: torch.div(x, y, rounding_mode=mode))
        g.case('div %s random' % mode, 'div_mode', {'rounding_mode': mode}, [('a', g.randn(3, 4, scale=10.0)), ('b', g.randn(4))], lambda m, x, y, mode=mode: torch.div(x, y, rounding_mode=mode))
        g.case('div %s scalar -0.75' % mode, 'div_mode_scalar', {'rounding_mode': mode, 'other': -0.75}, [('a', T([-3.0, -0.75, -0.0, 0.5, 1.5, 3.0, INF, NAN]))],
               lambda m, x, mode=mode: torch.div(x, -0.75, rounding_mode=mode))
        g.case('int32 div %s' % mode, 'int_div_mode', {'rounding_mode': mode}, [('a', ia), ('b', ib)], lambda m, x, y, mode=mode: torch.div(x, y, rounding_mode=mode))
        g.case('int32 div %s scalar' % mode, 'int_div_mode_scalar', {'rounding_mode': mode, 'other': -4}, [('a', ia)], lambda m, x, mode=mode: torch.div(x, -4, rounding_mode=mode))

    # ---- lerp ----
    s, e = g.randn(3, 4), g.randn(3, 4)
    for w in [0.0, 0.3, 0.4999, 0.5, 0.7, 1.0, -0.5, 1.5]:
        g.case('lerp scalar weight %g' % w, 'lerp_scalar', {'weight': w}, [('a', s), ('b', e)], lambda m, x, y, w=w: torch.lerp(x, y, w))
    g.case('lerp tensor weight', 'lerp', {}, [('a', s), ('b', e), ('w', g.rand(3, 4, lo=-0.5, hi=1.5))], lambda m, x, y, w: torch.lerp(x, y, w))
    g.case('lerp broadcast [3,4] [4] [3,1]', 'lerp', {}, [('a', g.randn(3, 4)), ('b', g.randn(4)), ('w', g.rand(3, 1))], lambda m, x, y, w: torch.lerp(x, y, w))
    g.case('lerp broadcast weight [2,3,4]', 'lerp', {}, [('a', g.randn(4)), ('b', g.randn(3, 1)), ('w', g.rand(2, 3, 4))], lambda m, x, y, w: torch.lerp(x, y, w))
    g.case('lerp edges', 'lerp', {}, [('a', T([0.0, 1.0, INF, 1.0, -INF, NAN, 1e38, -1e38, 1.0, 2.0])), ('b', T([1.0, INF, 1.0, 1.0, INF, 0.0, -1e38, 1e38, 1.0, 2.0])),
                                      ('w', T([0.5, 0.0, 1.0, NAN, 0.5, 0.25, 0.5, 0.75, 0.3, 0.9]))], lambda m, x, y, w: torch.lerp(x, y, w))
    g.case('lerp exact ends', 'lerp', {}, [('a', T([0.1, -3.7, 1e-20, 12345.678])), ('b', T([0.7, 2.9, -1e-20, -0.001])), ('w', T([1.0, 1.0, 0.0, 1.0]))],
           lambda m, x, y, w: torch.lerp(x, y, w))

    # ---- addcmul / addcdiv ----
    x, t1, t2 = g.randn(3, 4), g.randn(3, 4), g.randn(3, 4)
    for v in [1.0, 0.5, -2.0, 0.0]:
        g.case('addcmul value=%g' % v, 'addcmul', {'value': v}, [('x', x), ('t1', t1), ('t2', t2)], lambda m, a, b, c, v=v: torch.addcmul(a, b, c, value=v))
        g.case('addcdiv value=%g' % v, 'addcdiv', {'value': v}, [('x', x), ('t1', t1), ('t2', g.rand(3, 4, lo=0.5, hi=2.0))], lambda m, a, b, c, v=v: torch.addcdiv(a, b, c, value=v))
    g.case('addcmul broadcast', 'addcmul', {'value': 0.5}, [('x', g.randn(4)), ('t1', g.randn(3, 1)), ('t2', g.randn(1, 4))], lambda m, a, b, c: torch.addcmul(a, b, c, value=0.5))
    g.case('addcdiv broadcast', 'addcdiv', {'value': 0.5}, [('x', g.randn(3, 1)), ('t1', g.randn(4)), ('t2', g.rand(3, 4, lo=0.5, hi=2.0))], lambda m, a, b, c: torch.addcdiv(a, b, c, value=0.5))
    ex = T([1.0, INF, NAN, 0.0, -0.0, 1.0])
    e1 = T([2.0, 1.0, 1.0, INF, 0.0, 1e30])
    e2 = T([0.0, -1.0, 1.0, 0.0, -0.0, 1e30])
    g.case('addcmul edges', 'addcmul', {'value': 1.0}, [('x', ex), ('t1', e1), ('t2', e2)], lambda m, a, b, c: torch.addcmul(a, b, c))
    g.case('addcdiv edges (division by zero)', 'addcdiv', {'value': 1.0}, [('x', ex), ('t1', e1), ('t2', e2)], lambda m, a, b, c: torch.addcdiv(a, b, c))
    g.case('int32 addcmul value=2', 'int_addcmul', {'value': 2}, [('x', I([1, -2, 3, 0])), ('t1', I([4, 5, -6, 7])), ('t2', I([-1, 2, 3, 0]))],
           lambda m, a, b, c: torch.addcmul(a, b, c, value=2))

    # ---- clamp: min > max with numbers, tensor bounds ----
    cx = T([-INF, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, INF, NAN])
    for lo, hi in [(2.0, 1.0), (0.5, -0.5), (1.0, 1.0)]:
        g.case('clamp min=%g > max=%g' % (lo, hi), 'clamp', {'min': lo, 'max': hi}, [('x', cx)], lambda m, x, lo=lo, hi=hi: torch.clamp(x, lo, hi))
    g.case('int32 clamp min > max', 'int_clamp', {'min': 3, 'max': 1}, [('x', I([-5, 0, 1, 2, 3, 9]))], lambda m, x: torch.clamp(x, 3, 1))
    xs = T([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 0.7, 0.2, 0.4, 0.6, 0.1])
    los = T([-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 0.6, 0.6, 0.6, 0.6, 0.6])
    his = T([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.2, 0.2, 0.2, 0.6, 0.6])
    g.case('clamp tensors: ties, min > max, min == max', 'clamp_tensor', {}, [('x', xs), ('min', los), ('max', his)], lambda m, x, lo, hi: torch.clamp(x, lo, hi))
    g.case('clamp tensors: NaN bounds', 'clamp_tensor', {}, [('x', T([1.0, 1.0, 0.5, 3.0, -3.0])), ('min', T([NAN, 0.0, NAN, 0.0, 0.0])), ('max', T([2.0, NAN, NAN, 2.0, 2.0]))],
           lambda m, x, lo, hi: torch.clamp(x, lo, hi))
    g.case('clamp tensors broadcast [3,4] [4] [3,1]', 'clamp_tensor', {}, [('x', g.randn(3, 4)), ('min', g.randn(4, scale=0.5) - 0.5), ('max', g.randn(3, 1, scale=0.5) + 0.5)],
           lambda m, x, lo, hi: torch.clamp(x, lo, hi))
    g.case('clamp tensor min only', 'clamp_min_tensor', {}, [('x', T([-1.0, 0.0, 0.5, 2.0, NAN, INF])), ('min', T([0.0, 0.0, 0.5, 1.0, 0.0, NAN]))], lambda m, x, lo: torch.clamp(x, min=lo))
    g.case('clamp tensor max only', 'clamp_max_tensor', {}, [('x', T([-1.0, 0.0, 0.5, 2.0, NAN, -INF])), ('max', T([0.0, 0.0, 0.5, 1.0, 0.0, NAN]))], lambda m, x, hi: torch.clamp(x, max=hi))
    g.case('clamp tensor bounds wider than x [4] [2,4]', 'clamp_tensor', {}, [('x', g.randn(4)), ('min', g.randn(2, 4, scale=0.3) - 0.3), ('max', g.randn(2, 1, scale=0.3) + 0.3)],
           lambda m, x, lo, hi: torch.clamp(x, lo, hi))
    g.case('int32 clamp tensors', 'int_clamp_tensor', {}, [('x', I([-5, 0, 2, 7, 3])), ('min', I([-1, 1, 1, 1, 4])), ('max', I([1, 5, 5, 5, 2]))], lambda m, x, lo, hi: torch.clamp(x, lo, hi))
    # ---- second order: the output is the gradient of sum(f(x) * w) (create_graph), so the recorded
    # gradients are Hessian-vector products (as the tensor group's; w is gen.gweight(shape, 7)) ----
    grad_of = gen.grad_of

    xs = g.rand(2, 3, lo=0.3, hi=4.0)
    xneg = T([[-0.5, -1.5, -2.25], [-3.7, -0.2, -4.6]])
    xu = g.rand(2, 3, lo=-0.8, hi=0.8)
    xp = g.rand(2, 3, lo=0.1, hi=0.9)
    for name, x, fn in [('lgamma', xs, torch.lgamma), ('lgamma negative', xneg, torch.lgamma), ('digamma', xs, torch.digamma), ('digamma negative', xneg, torch.digamma),
                        ('polygamma(1)', xs, lambda t: torch.polygamma(1, t)), ('atanh', xu, torch.atanh), ('erfinv', xu, torch.erfinv), ('logit', xp, torch.logit),
                        ('logit eps=0.2', xp, lambda t: torch.logit(t, 0.2))]:
        g.case('second order: %s' % name, 'grad_of', {'fn': name}, [('x', x)], lambda m, x, fn=fn: grad_of(fn)(m, x), tol={'rtol': 2e-5, 'atol': 2e-6})
    ya = g.rand(2, 3, lo=0.3, hi=2.0)
    yb = g.rand(2, 3, lo=0.3, hi=2.0)
    for name, fn in [('xlog1py', torch.special.xlog1py), ('fmod of cubes', lambda p, q: torch.fmod(p ** 3, q)), ('fmax of cubes', lambda p, q: torch.fmax(p ** 3, q)),
                     ('lerp scalar weight', lambda p, q: torch.lerp(p * p, q, 0.3)), ('lerp tensor weight', lambda p, q: torch.lerp(p, q * q, q / 3)),
                     ('addcmul', lambda p, q: torch.addcmul(p, p, q, value=0.5)), ('addcdiv', lambda p, q: torch.addcdiv(q, p * p, q, value=-2.0)),
                     ('clamp tensors', lambda p, q: torch.clamp(p * q, q - 0.5, q + 0.5))]:
        g.case('second order: %s' % name, 'grad_of2', {'fn': name}, [('a', ya), ('b', yb)], lambda m, p, q, fn=fn: grad_of(fn)(m, p, q), tol={'rtol': 2e-5, 'atol': 2e-6})

    # NaN inputs where a mask decides the gradient: torch's max gradient where x is NaN and max < min, logit(eps)'s NaN gradient.
    g.case('clamp tensors: NaN x with max < min', 'clamp_tensor', {}, [('x', T([NAN, NAN, 0.5])), ('min', T([0.6, 0.0, 0.6])), ('max', T([0.2, 1.0, 0.2]))],
           lambda m, x, lo, hi: torch.clamp(x, lo, hi))
    g.case('logit eps=0.1 at NaN', 'logit', {'eps': 0.1}, [('x', T([NAN, 0.5, 0.05]))], lambda m, x: torch.logit(x, 0.1))
    return g
