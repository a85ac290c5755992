"""The core tensor ops: elementwise math at its edges, reductions, ordering and indexing, shape ops.

Each case is small and aims at an edge (NaN, +-inf, -0, ties, empty dims, broadcasting, negative
dims, keepdim); gradients are recorded where torch differentiates. Op names are torch's; the test
file (test/torch-vectors/tensor.test.ts) maps each to Switchyard's API or names it unsupported.
"""
import torch
import torch.nn.functional as F

NAN, INF = float('nan'), float('inf')
# The edge row every unary op sees (20 values: reshaped 4 x 5; tiny and huge ones have cases of their own).
EDGES = [-INF, -100.0, -2.5, -1.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.5, 3.0, 100.0, INF, NAN, -0.75, 0.25, 0.999, -0.999]


def make(gen):
    g = gen.Group('tensor', 1e-5, 1e-6, 'core tensor ops: elementwise math and its edges, reductions, ordering and indexing, shape ops')
    T = torch.tensor
    edges = T(EDGES).reshape(4, 5)

    # ---- unary, on random points of the domain (gradients) and on the edge row ----
    def unary(op, fn, lo=-3.0, hi=3.0, edge=True, grad_edges=True, tol=None):
        x = g.rand(2, 5, lo=lo, hi=hi)
        g.case(op, op, {}, [('x', x)], lambda m, x: fn(x), tol=tol)
        if edge:
            g.case(op + ' edges', op, {}, [('x', edges)], lambda m, x: fn(x), grad=None if grad_edges else [], tol=tol)

    unary('exp', torch.exp)
    unary('expm1', torch.expm1)
    unary('exp2', torch.exp2)
    unary('log', torch.log, 0.01, 5.0)
    unary('log1p', torch.log1p, -0.99, 5.0)
    unary('log2', torch.log2, 0.01, 5.0)
    unary('log10', torch.log10, 0.01, 5.0)
    unary('sqrt', torch.sqrt, 0.01, 5.0)
    unary('rsqrt', torch.rsqrt, 0.01, 5.0)
    unary('abs', torch.abs)
    unary('sign', torch.sign)
    unary('neg', torch.neg)
    unary('reciprocal', torch.reciprocal, 0.1, 3.0)
    unary('square', torch.square)
    unary('relu', torch.relu)
    unary('floor', torch.floor)
    unary('ceil', torch.ceil)
    unary('round', torch.round)
    unary('trunc', torch.trunc)
    unary('frac', torch.frac)
    unary('sin', torch.sin)
    unary('cos', torch.cos)
    unary('tan', torch.tan, -1.4, 1.4)
    unary('asin', torch.asin, -0.99, 0.99)
    unary('acos', torch.acos, -0.99, 0.99)
    unary('atan', torch.atan)
    unary('sinh', torch.sinh)
    unary('cosh', torch.cosh)
    unary('tanh', torch.tanh)
    unary('asinh', torch.asinh)
    unary('acosh', torch.acosh, 1.01, 5.0)
    unary('atanh', torch.atanh, -0.99, 0.99)
    unary('erf', torch.erf)
    unary('erfinv', torch.erfinv, -0.99, 0.99)
    unary('sigmoid', torch.sigmoid)
    unary('logit', torch.logit, 0.01, 0.99)
    unary('lgamma', torch.lgamma, 0.1, 5.0)
    unary('digamma', torch.digamma, 0.1, 5.0)
    unary('isnan', torch.isnan, edge=True)
    unary('isinf', torch.isinf, edge=True)
    ties = T([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 0.49999997, -0.49999997, 4.5, 1e8 + 1])
    g.case('round half to even', 'round', {}, [('x', ties)], lambda m, x: torch.round(x))
    for d in [1, 2, -1]:
        g.case('round decimals=%d' % d, 'round', {'decimals': d}, [('x', T([1.25, 1.35, -2.675, 123.456, 0.05, -0.15, 15.0, NAN]))], lambda m, x, d=d: torch.round(x, decimals=d))
    g.case('abs -0 and inf', 'abs', {}, [('x', T([-0.0, 0.0, -INF, NAN]))], lambda m, x: torch.abs(x))
    g.case('sqrt of -0, 0, negative', 'sqrt', {}, [('x', T([-0.0, 0.0, -1.0, 4.0]))], lambda m, x: torch.sqrt(x))
    g.case('log of 0, -0, negative', 'log', {}, [('x', T([0.0, -0.0, -1.0, 1.0]))], lambda m, x: torch.log(x))

    # ---- binary ----
    a = g.randn(3, 4, scale=2.0)
    b = g.randn(3, 4, scale=2.0)
    bb = g.randn(4, scale=2.0)
    for op, fn in [('add', torch.add), ('sub', torch.sub), ('mul', torch.mul), ('div', torch.div), ('atan2', torch.atan2), ('hypot', torch.hypot),
                   ('maximum', torch.maximum), ('minimum', torch.minimum), ('copysign', torch.copysign), ('logaddexp', torch.logaddexp)]:
        g.case(op, op, {}, [('a', a), ('b', b)], lambda m, x, y, fn=fn: fn(x, y))
        g.case(op + ' broadcast [3,4]x[4]', op, {}, [('a', a), ('b', bb)], lambda m, x, y, fn=fn: fn(x, y))
        g.case(op + ' broadcast [3,1]x[1,4]', op, {}, [('a', a[:, :1].clone()), ('b', bb.reshape(1, 4))], lambda m, x, y, fn=fn: fn(x, y))
    ea = T([NAN, 1.0, NAN, INF, -INF, INF, 0.0, -0.0, 0.0, -0.0, 2.0, -3.0, 1.0, 1.0])
    eb = T([1.0, NAN, NAN, INF, INF, -INF, 0.0, 0.0, -0.0, -0.0, 2.0, -3.0, INF, -INF])
    for op, fn in [('add', torch.add), ('sub', torch.sub), ('mul', torch.mul), ('div', torch.div), ('atan2', torch.atan2), ('hypot', torch.hypot),
                   ('maximum', torch.maximum), ('minimum', torch.minimum), ('copysign', torch.copysign), ('logaddexp', torch.logaddexp),
                   ('xlogy', torch.xlogy), ('pow', torch.pow), ('remainder', torch.remainder), ('fmod', torch.fmod), ('fmax', torch.fmax), ('fmin', torch.fmin)]:
        g.case(op + ' edges', op, {}, [('a', ea), ('b', eb)], lambda m, x, y, fn=fn: fn(x, y))
    g.case('maximum ties', 'maximum', {}, [('a', T([1.0, 2.0, -0.0])), ('b', T([1.0, 3.0, 0.0]))], lambda m, x, y: torch.maximum(x, y))
    g.case('minimum ties', 'minimum', {}, [('a', T([1.0, 2.0, -0.0])), ('b', T([1.0, 3.0, 0.0]))], lambda m, x, y: torch.minimum(x, y))
    pa = T([-2.0, -2.0, -8.0, 0.0, 0.0, 0.0, 2.0, 1.0, -1.0, -1.0, 3.0, 0.5, -0.0, INF, -INF, NAN, 1.0, 4.0])
    pb = T([2.0, 3.0, 1.0 / 3.0, 0.0, -1.0, 2.0, -1.0, NAN, INF, 0.5, 0.0, -2.0, -1.0, -1.0, 3.0, 0.0, INF, 0.5])
    g.case('pow edges: negative base, 0^0, 0^-1', 'pow', {}, [('a', pa), ('b', pb)], lambda m, x, y: torch.pow(x, y))
    g.case('pow random positive base', 'pow', {}, [('a', g.rand(3, 4, lo=0.1, hi=3.0)), ('b', g.randn(3, 4))], lambda m, x, y: torch.pow(x, y))
    g.case('pow integral exponents negative base', 'pow', {}, [('a', g.randn(3, 4, scale=2.0)), ('b', T([[0.0, 1.0, 2.0, 3.0], [-1.0, -2.0, 4.0, 5.0], [2.0, 2.0, 3.0, 3.0]]))],
           lambda m, x, y: torch.pow(x, y))
    g.case('pow scalar exponent 2', 'pow_scalar', {'exponent': 2.0}, [('a', T([-3.0, -0.0, 0.0, 1.5, NAN, -INF]))], lambda m, x: torch.pow(x, 2.0))
    g.case('pow scalar exponent 0.5', 'pow_scalar', {'exponent': 0.5}, [('a', T([-3.0, 0.0, 0.25, 4.0, INF]))], lambda m, x: torch.pow(x, 0.5))
    g.case('pow scalar exponent -1', 'pow_scalar', {'exponent': -1.0}, [('a', T([-2.0, 0.0, 0.5, 4.0]))], lambda m, x: torch.pow(x, -1.0))
    g.case('pow scalar exponent 0', 'pow_scalar', {'exponent': 0.0}, [('a', T([-2.0, 0.0, NAN, INF]))], lambda m, x: torch.pow(x, 0.0))
    g.case('pow scalar exponent 3', 'pow_scalar', {'exponent': 3.0}, [('a', T([-2.0, 0.0, -0.5, 1.5]))], lambda m, x: torch.pow(x, 3.0))
    ra = T([5.0, -5.0, 5.0, -5.0, 5.5, -5.5, 0.0, -0.0, 3.0, 1e10, INF, 1.0])
    rb = T([3.0, 3.0, -3.0, -3.0, 2.0, 2.0, 3.0, -3.0, 0.0, 3.0, 2.0, INF])
    g.case('remainder signs', 'remainder', {}, [('a', ra), ('b', rb)], lambda m, x, y: torch.remainder(x, y))
    g.case('fmod signs', 'fmod', {}, [('a', ra), ('b', rb)], lambda m, x, y: torch.fmod(x, y))
    g.case('remainder scalar -1.5', 'remainder_scalar', {'other': -1.5}, [('a', g.randn(3, 4, scale=3.0))], lambda m, x: torch.remainder(x, -1.5))
    g.case('div scalar', 'div_scalar', {'other': 3.0}, [('a', g.randn(3, 4))], lambda m, x: torch.div(x, 3.0))
    g.case('add scalar', 'add_scalar', {'other': -0.5}, [('a', g.randn(3, 4))], lambda m, x: torch.add(x, -0.5))
    g.case('rsub scalar', 'rsub_scalar', {'other': 2.0}, [('a', g.randn(3, 4))], lambda m, x: 2.0 - x)
    for mode in ['floor', 'trunc']:
        g.case('div rounding_mode=%s float' % mode, 'div_mode', {'rounding_mode': mode}, [('a', ra), ('b', rb)], lambda m, x, y, mode=mode: torch.div(x, y, rounding_mode=mode))
    ia = T([7, -7, 7, -7, 0, 1, -1, 2147483, 6, -6])  # int32 arithmetic wraps (ours), int64 does not: no overflow here
    ib = T([2, 2, -2, -2, 3, 3, 3, 2, -3, 4])
    g.case('int div floor', 'int_div_floor', {}, [('a', ia), ('b', ib)], lambda m, x, y: torch.div(x, y, rounding_mode='floor'))
    g.case('int div (true division)', 'int_div', {}, [('a', ia), ('b', ib)], lambda m, x, y: torch.div(x, y))
    g.case('int div trunc', 'int_div_trunc', {}, [('a', ia), ('b', ib)], lambda m, x, y: torch.div(x, y, rounding_mode='trunc'))
    g.case('int remainder', 'int_remainder', {}, [('a', ia), ('b', ib)], lambda m, x, y: torch.remainder(x, y))
    g.case('int fmod', 'int_fmod', {}, [('a', ia), ('b', ib)], lambda m, x, y: torch.fmod(x, y))
    g.case('int pow', 'int_pow', {}, [('a', T([2, -2, 3, 0, 1, -1, 5])), ('b', T([10, 3, 0, 0, 7, 5, 2]))], lambda m, x, y: torch.pow(x, y))
    g.case('int mul add sub', 'int_arith', {}, [('a', ia), ('b', ib)], lambda m, x, y: (x * y, x + y, x - y))
    g.case('int abs neg sign', 'int_unary', {}, [('a', T([-3, 0, 4, -2147483647]))], lambda m, x: (torch.abs(x), torch.neg(x), torch.sign(x)))
    g.case('int maximum minimum', 'int_minmax', {}, [('a', ia), ('b', ib)], lambda m, x, y: (torch.maximum(x, y), torch.minimum(x, y)))
    g.case('int clamp', 'int_clamp', {'min': -2, 'max': 3}, [('a', ia)], lambda m, x: torch.clamp(x, -2, 3))

    # comparisons with NaN, ±0, inf
    ca = T([NAN, 1.0, NAN, -0.0, INF, -INF, 1.0, 2.0])
    cb = T([1.0, NAN, NAN, 0.0, INF, INF, 1.0, 1.0])
    for op in ['eq', 'ne', 'gt', 'ge', 'lt', 'le']:
        g.case('%s with NaN' % op, op, {}, [('a', ca), ('b', cb)], lambda m, x, y, op=op: getattr(torch, op)(x, y))
    g.case('gt broadcast', 'gt', {}, [('a', g.randn(3, 1)), ('b', g.randn(4))], lambda m, x, y: torch.gt(x, y))
    g.case('logical ops', 'logical', {}, [('a', T([True, True, False, False])), ('b', T([True, False, True, False]))],
           lambda m, x, y: (torch.logical_and(x, y), torch.logical_or(x, y), torch.logical_not(x)))

    # clamp
    cx = T([-INF, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, INF, NAN])
    # min > max (torch: every element becomes max) has its cases in the math2 group.
    for lo, hi in [(-1.0, 1.0), (-1.0, None), (None, 0.5), (0.5, 0.5)]:
        g.case('clamp min=%s max=%s' % (lo, hi), 'clamp', {'min': lo, 'max': hi}, [('x', cx)], lambda m, x, lo=lo, hi=hi: torch.clamp(x, lo, hi))
    g.case('clamp random', 'clamp', {'min': -0.5, 'max': 0.7}, [('x', g.randn(3, 4))], lambda m, x: torch.clamp(x, -0.5, 0.7))
    g.case('clamp at the bounds (gradient)', 'clamp', {'min': -1.0, 'max': 1.0}, [('x', T([-1.0, 1.0, -1.0000001, 0.9999999]))], lambda m, x: torch.clamp(x, -1.0, 1.0))
    g.case('clamp tensor bounds', 'clamp_tensor', {}, [('x', cx), ('min', T([-1.0] * 5 + [0.6] * 5)), ('max', T([1.0] * 5 + [0.2] * 5))],
           lambda m, x, lo, hi: torch.clamp(x, lo, hi), grad=['x'])

    # where, masked_fill, lerp, addcmul, addcdiv
    cond = T([[True, False, True, False], [False, False, True, True], [True, True, True, False]])
    g.case('where', 'where', {}, [('cond', cond), ('a', a), ('b', b)], lambda m, c, x, y: torch.where(c, x, y))
    g.case('where broadcast', 'where', {}, [('cond', T([True, False, True, False])), ('a', g.randn(3, 1)), ('b', g.randn(4))], lambda m, c, x, y: torch.where(c, x, y))
    g.case('where with NaN in the unselected branch', 'where', {}, [('cond', T([True, False, True])), ('a', T([1.0, NAN, INF])), ('b', T([NAN, 2.0, 3.0]))],
           lambda m, c, x, y: torch.where(c, x, y))
    g.case('where scalar other', 'where_scalar', {'other': -1.5}, [('cond', cond), ('a', a)], lambda m, c, x: torch.where(c, x, torch.tensor(-1.5)))
    g.case('masked_fill', 'masked_fill', {'value': -2.0}, [('x', a), ('mask', cond)], lambda m, x, mk: x.masked_fill(mk, -2.0))
    g.case('masked_fill broadcast mask with NaN', 'masked_fill', {'value': 'nan'}, [('x', T([[NAN, 1.0, 2.0], [3.0, NAN, 5.0]])), ('mask', T([True, False, True]))],
           lambda m, x, mk: x.masked_fill(mk, NAN))
    g.case('masked_fill -inf', 'masked_fill', {'value': '-inf'}, [('x', a), ('mask', cond)], lambda m, x, mk: x.masked_fill(mk, -INF))
    g.case('lerp', 'lerp', {}, [('a', a), ('b', b), ('w', g.rand(3, 4))], lambda m, x, y, w: torch.lerp(x, y, w))
    g.case('addcmul', 'addcmul', {'value': 0.5}, [('x', a), ('t1', b), ('t2', g.randn(3, 4))], lambda m, x, y, z: torch.addcmul(x, y, z, value=0.5))
    g.case('addcdiv', 'addcdiv', {'value': 0.5}, [('x', a), ('t1', b), ('t2', g.rand(3, 4, lo=0.5, hi=2.0))], lambda m, x, y, z: torch.addcdiv(x, y, z, value=0.5))

    # ---- reductions ----
    x3 = g.randn(2, 3, 4)
    for op, fn in [('sum', torch.sum), ('mean', torch.mean), ('prod', torch.prod), ('amax', torch.amax), ('amin', torch.amin)]:
        g.case('%s all' % op, op, {'dim': None, 'keepdim': False}, [('x', x3)], lambda m, x, fn=fn: fn(x))
        for dim in [0, -1, 1]:
            for keep in [False, True]:
                g.case('%s dim=%d keepdim=%s' % (op, dim, keep), op, {'dim': dim, 'keepdim': keep}, [('x', x3)], lambda m, x, fn=fn, dim=dim, keep=keep: fn(x, dim, keepdim=keep))
        if op != 'prod':
            g.case('%s dims=[0,2]' % op, op, {'dim': [0, 2], 'keepdim': False}, [('x', x3)], lambda m, x, fn=fn: fn(x, [0, 2]))
            g.case('%s dims=[-1,0] keepdim' % op, op, {'dim': [-1, 0], 'keepdim': True}, [('x', x3)], lambda m, x, fn=fn: fn(x, [-1, 0], keepdim=True))
    nanr = T([[1.0, NAN, 3.0], [INF, 1.0, -INF], [2.0, 2.0, 1.0], [-INF, -INF, -INF]])
    for op, fn in [('sum', torch.sum), ('mean', torch.mean), ('prod', torch.prod), ('amax', torch.amax), ('amin', torch.amin)]:
        g.case('%s non-finite rows' % op, op, {'dim': 1, 'keepdim': False}, [('x', nanr)], lambda m, x, fn=fn: fn(x, 1))
    tie = T([[1.0, 3.0, 3.0, 2.0], [0.0, 0.0, 0.0, 0.0], [-1.0, 5.0, 2.0, 5.0]])
    g.case('amax ties share the gradient', 'amax', {'dim': 1, 'keepdim': False}, [('x', tie)], lambda m, x: torch.amax(x, 1))
    g.case('amin ties share the gradient', 'amin', {'dim': 1, 'keepdim': False}, [('x', tie)], lambda m, x: torch.amin(x, 1))
    g.case('amax all ties', 'amax', {'dim': None, 'keepdim': False}, [('x', tie)], lambda m, x: torch.amax(x))
    g.case('max all ties', 'max_all', {}, [('x', tie)], lambda m, x: torch.max(x))
    g.case('prod with zeros', 'prod', {'dim': 1, 'keepdim': False}, [('x', T([[2.0, 0.0, 3.0, 4.0], [0.0, 0.0, 5.0, 1.0], [1.5, 2.0, -1.0, 0.5]]))], lambda m, x: torch.prod(x, 1))
    g.case('prod all with one zero', 'prod', {'dim': None, 'keepdim': False}, [('x', T([[2.0, 0.0], [3.0, -1.5]]))], lambda m, x: torch.prod(x))
    e0 = torch.zeros(0, 3)
    g.case('sum empty dim', 'sum', {'dim': 0, 'keepdim': False}, [('x', e0)], lambda m, x: torch.sum(x, 0))
    g.case('prod empty dim', 'prod', {'dim': 0, 'keepdim': False}, [('x', e0)], lambda m, x: torch.prod(x, 0))
    g.case('mean empty dim', 'mean', {'dim': 0, 'keepdim': False}, [('x', e0)], lambda m, x: torch.mean(x, 0))
    g.case('sum over a size-0 tensor keeps the other dims', 'sum', {'dim': 1, 'keepdim': True}, [('x', e0)], lambda m, x: torch.sum(x, 1, keepdim=True))
    for op, fn in [('max_dim', torch.max), ('min_dim', torch.min)]:
        for dim, keep in [(1, False), (0, True), (-1, True)]:
            g.case('%s dim=%d keepdim=%s' % (op, dim, keep), op, {'dim': dim, 'keepdim': keep}, [('x', tie)], lambda m, x, fn=fn, dim=dim, keep=keep: tuple(fn(x, dim, keepdim=keep)))
        g.case('%s with NaN' % op, op, {'dim': 1, 'keepdim': False}, [('x', T([[1.0, NAN, 3.0, NAN], [INF, 1.0, -INF, 2.0]]))], lambda m, x, fn=fn: tuple(fn(x, 1)))
    for op, fn in [('argmax', torch.argmax), ('argmin', torch.argmin)]:
        g.case('%s ties -> first' % op, op, {'dim': 1, 'keepdim': False}, [('x', tie)], lambda m, x, fn=fn: fn(x, 1))
        g.case('%s all (flat index)' % op, op, {'dim': None, 'keepdim': False}, [('x', tie)], lambda m, x, fn=fn: fn(x))
        g.case('%s dim=0 keepdim' % op, op, {'dim': 0, 'keepdim': True}, [('x', tie)], lambda m, x, fn=fn: fn(x, 0, keepdim=True))
        g.case('%s NaN' % op, op, {'dim': 1, 'keepdim': False}, [('x', T([[1.0, NAN, 3.0, NAN], [INF, 1.0, -INF, INF], [-0.0, 0.0, -0.0, 0.0]]))], lambda m, x, fn=fn: fn(x, 1))
    xv = g.randn(3, 5)
    for op, fn in [('var', torch.var), ('std', torch.std)]:
        for corr in [0, 1, 2]:
            g.case('%s dim=1 correction=%d' % (op, corr), op, {'dim': 1, 'correction': corr, 'keepdim': False}, [('x', xv)], lambda m, x, fn=fn, c=corr: fn(x, 1, correction=c))
        g.case('%s all' % op, op, {'dim': None, 'correction': 1, 'keepdim': False}, [('x', xv)], lambda m, x, fn=fn: fn(x))
        g.case('%s dim=0 keepdim' % op, op, {'dim': 0, 'correction': 1, 'keepdim': True}, [('x', xv)], lambda m, x, fn=fn: fn(x, 0, keepdim=True))
        g.case('%s dims=[0,1] correction=0' % op, op, {'dim': [0, 1], 'correction': 0, 'keepdim': False}, [('x', x3[:, :, :2].clone())], lambda m, x, fn=fn: fn(x, [0, 1], correction=0))
        g.case('%s N=1 correction=1' % op, op, {'dim': 1, 'correction': 1, 'keepdim': False}, [('x', g.randn(3, 1))], lambda m, x, fn=fn: fn(x, 1))
        g.case('%s N=1 correction=0' % op, op, {'dim': 1, 'correction': 0, 'keepdim': False}, [('x', g.randn(3, 1))], lambda m, x, fn=fn: fn(x, 1, correction=0))
        g.case('%s constant rows' % op, op, {'dim': 1, 'correction': 1, 'keepdim': False}, [('x', T([[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]))], lambda m, x, fn=fn: fn(x, 1))
        g.case('%s non-finite' % op, op, {'dim': 1, 'correction': 1, 'keepdim': False}, [('x', T([[1.0, NAN, 2.0], [INF, 1.0, 2.0], [1e20, 1.0, -1e20]]))], lambda m, x, fn=fn: fn(x, 1))
        g.case('%s large offset' % op, op, {'dim': 1, 'correction': 1, 'keepdim': False}, [('x', T([[10000.0, 10001.0, 10002.0, 10003.0], [1e6 + 1, 1e6 + 2, 1e6 + 3, 1e6 + 4]]))], lambda m, x, fn=fn: fn(x, 1))
    lse = T([[1.0, 2.0, 3.0], [-INF, -INF, -INF], [INF, 1.0, 2.0], [-INF, 0.0, 1.0], [1000.0, 1000.0, -1000.0], [NAN, 1.0, 2.0]])
    # torch's float32 gradient of the [1000, 1000, -1000] row is off by 1.5e-5 (its float64 one is -0.5 exactly, as ours).
    g.case('logsumexp rows with -inf, inf, NaN', 'logsumexp', {'dim': 1, 'keepdim': False}, [('x', lse)], lambda m, x: torch.logsumexp(x, 1),
           tol={'rtol': 1e-4, 'atol': 1e-6})
    g.case('logsumexp random dim=0 keepdim', 'logsumexp', {'dim': 0, 'keepdim': True}, [('x', x3)], lambda m, x: torch.logsumexp(x, 0, keepdim=True))
    g.case('logsumexp dims=[1,2]', 'logsumexp', {'dim': [1, 2], 'keepdim': False}, [('x', x3)], lambda m, x: torch.logsumexp(x, [1, 2]))
    g.case('logsumexp empty dim', 'logsumexp', {'dim': 0, 'keepdim': False}, [('x', e0)], lambda m, x: torch.logsumexp(x, 0))
    nz = T([[0.0, 1.0, -2.0, 0.0], [0.0, -0.0, 0.0, 0.0], [NAN, 0.0, INF, 3.0]])
    for ordv in [0.5, 1.0, 3.0, -INF]:
        g.case('vector_norm ord=%s dim=1 with zeros' % ordv, 'vector_norm', {'ord': gen.num32(ordv), 'dim': 1, 'keepdim': False}, [('x', nz[:2].clone())], lambda m, x, o=ordv: torch.linalg.vector_norm(x, o, dim=1))
    for ordv in [INF, 0.0, 1.0, 4.0]:
        g.case('vector_norm ord=%s non-finite' % ordv, 'vector_norm', {'ord': gen.num32(ordv), 'dim': 1, 'keepdim': False}, [('x', nz)],
               lambda m, x, o=ordv: torch.linalg.vector_norm(x, o, dim=1))
    g.case('vector_norm ord=2 empty dim', 'vector_norm', {'ord': 2.0, 'dim': 0, 'keepdim': False}, [('x', e0)], lambda m, x: torch.linalg.vector_norm(x, 2, dim=0))
    g.case('vector_norm ord=2 dims=[0,2] rank 3', 'vector_norm', {'ord': 2.0, 'dim': [0, 2], 'keepdim': True}, [('x', x3)], lambda m, x: torch.linalg.vector_norm(x, 2, dim=[0, 2], keepdim=True))
    g.case('vector_norm ord=2 non-finite', 'vector_norm', {'ord': 2.0, 'dim': 1, 'keepdim': True}, [('x', nz)], lambda m, x: torch.linalg.vector_norm(x, 2, dim=1, keepdim=True))
    for op, fn in [('all', torch.all), ('any', torch.any)]:
        g.case('%s dim=1' % op, op, {'dim': 1, 'keepdim': False}, [('x', nz)], lambda m, x, fn=fn: fn(x, 1))
        g.case('%s all elements' % op, op, {'dim': None, 'keepdim': False}, [('x', nz)], lambda m, x, fn=fn: fn(x))
        g.case('%s bool dim=0 keepdim' % op, op, {'dim': 0, 'keepdim': True}, [('x', cond)], lambda m, x, fn=fn: fn(x, 0, keepdim=True))
        g.case('%s empty dim' % op, op, {'dim': 0, 'keepdim': False}, [('x', e0)], lambda m, x, fn=fn: fn(x, 0))
    g.case('count_nonzero dim=1', 'count_nonzero', {'dim': 1}, [('x', nz)], lambda m, x: torch.count_nonzero(x, 1))
    g.case('median dim=1', 'median', {'dim': 1}, [('x', tie)], lambda m, x: tuple(torch.median(x, 1)))
    g.case('mode dim=1', 'mode', {'dim': 1}, [('x', tie)], lambda m, x: tuple(torch.mode(x, 1)))
    g.case('nanmean', 'nanmean', {'dim': 1}, [('x', nanr)], lambda m, x: torch.nanmean(x, 1))
    g.case('nansum', 'nansum', {'dim': 1}, [('x', nanr)], lambda m, x: torch.nansum(x, 1))

    # scans
    for dim in [0, 1, -1]:
        g.case('cumsum dim=%d' % dim, 'cumsum', {'dim': dim}, [('x', g.randn(3, 4))], lambda m, x, d=dim: torch.cumsum(x, d))
        g.case('cumprod dim=%d' % dim, 'cumprod', {'dim': dim}, [('x', g.randn(3, 4))], lambda m, x, d=dim: torch.cumprod(x, d))
    zp = T([[2.0, 0.0, 3.0, 4.0, 0.5], [0.0, 0.0, 5.0, 1.0, 2.0], [1.5, 2.0, -1.0, 0.5, 0.0], [1.0, 2.0, 3.0, 4.0, 5.0]])
    g.case('cumprod with zeros (gradient)', 'cumprod', {'dim': 1}, [('x', zp)], lambda m, x: torch.cumprod(x, 1))
    g.case('cumprod with zeros dim=0', 'cumprod', {'dim': 0}, [('x', zp)], lambda m, x: torch.cumprod(x, 0))
    g.case('cumsum non-finite', 'cumsum', {'dim': 1}, [('x', T([[1.0, INF, -INF, 2.0], [NAN, 1.0, 2.0, 3.0]]))], lambda m, x: torch.cumsum(x, 1))
    g.case('cumprod non-finite', 'cumprod', {'dim': 1}, [('x', T([[1.0, INF, 0.0, 2.0], [2.0, NAN, 2.0, 3.0]]))], lambda m, x: torch.cumprod(x, 1))
    g.case('int cumsum', 'int_cumsum', {'dim': 1}, [('x', T([[1, -2, 3], [2147483, 1, 0]]))], lambda m, x: torch.cumsum(x, 1))
    g.case('cummax', 'cummax', {'dim': 1}, [('x', tie)], lambda m, x: tuple(torch.cummax(x, 1)))
    g.case('cummin', 'cummin', {'dim': 1}, [('x', tie)], lambda m, x: tuple(torch.cummin(x, 1)))
    g.case('logcumsumexp', 'logcumsumexp', {'dim': 1}, [('x', lse[:5].clone())], lambda m, x: torch.logcumsumexp(x, 1))

    # ---- ordering & indexing ----
    sx = T([[3.0, 1.0, NAN, 2.0, 1.0, -INF, INF, -0.0, 0.0, 1.0], [5.0, 5.0, 5.0, -1.0, NAN, NAN, 0.0, 2.0, -3.0, 5.0]])
    for desc in [False, True]:
        g.case('sort stable descending=%s NaN' % desc, 'sort', {'dim': 1, 'descending': desc}, [('x', sx)], lambda m, x, d=desc: tuple(torch.sort(x, dim=1, descending=d, stable=True)))
        g.case('argsort stable descending=%s' % desc, 'argsort', {'dim': 1, 'descending': desc}, [('x', sx)], lambda m, x, d=desc: torch.sort(x, dim=1, descending=d, stable=True)[1])
        g.case('sort dim=0 descending=%s' % desc, 'sort', {'dim': 0, 'descending': desc}, [('x', g.randn(5, 3))], lambda m, x, d=desc: tuple(torch.sort(x, dim=0, descending=d, stable=True)))
    g.case('sort rank-3 dim=1', 'sort', {'dim': 1, 'descending': False}, [('x', g.randn(2, 6, 3))], lambda m, x: tuple(torch.sort(x, dim=1, stable=True)))
    g.case('int sort', 'int_sort', {'dim': 0, 'descending': True}, [('x', T([3, -1, 7, 3, 0, -2147483647]))], lambda m, x: tuple(torch.sort(x, dim=0, descending=True, stable=True)))
    xt = g.randn(3, 7)
    for k, largest in [(1, True), (3, True), (3, False), (7, True), (0, True)]:
        g.case('topk k=%d largest=%s' % (k, largest), 'topk', {'k': k, 'dim': -1, 'largest': largest}, [('x', xt)], lambda m, x, k=k, l=largest: tuple(torch.topk(x, k, -1, largest=l)))
    g.case('topk dim=0', 'topk', {'k': 2, 'dim': 0, 'largest': True}, [('x', xt)], lambda m, x: tuple(torch.topk(x, 2, 0)))
    g.case('topk NaN and inf', 'topk', {'k': 3, 'dim': 1, 'largest': True}, [('x', T([[1.0, NAN, INF, 2.0, -INF], [0.0, -1.0, NAN, NAN, 3.0]]))], lambda m, x: tuple(torch.topk(x, 3, 1)))
    g.case('topk smallest NaN and -inf', 'topk', {'k': 3, 'dim': 1, 'largest': False}, [('x', T([[1.0, NAN, INF, 2.0, -INF], [0.0, -1.0, NAN, NAN, 3.0]]))], lambda m, x: tuple(torch.topk(x, 3, 1, largest=False)))
    g.case('topk ties', 'topk', {'k': 2, 'dim': 1, 'largest': True}, [('x', T([[1.0, 3.0, 3.0, 2.0, 3.0], [0.0, 0.0, 0.0, 0.0, 0.0]]))], lambda m, x: tuple(torch.topk(x, 2, 1)))
    g.case('kthvalue', 'kthvalue', {'k': 2, 'dim': 1}, [('x', xt)], lambda m, x: tuple(torch.kthvalue(x, 2, 1)))
    xg = g.randn(3, 4)
    gi0 = T([[0, 1, 2, 0], [2, 2, 1, 0]])
    gi1 = T([[3, 0], [1, 1], [0, 3]])
    g.case('gather dim=0', 'gather', {'dim': 0}, [('x', xg), ('index', gi0)], lambda m, x, i: torch.gather(x, 0, i))
    g.case('gather dim=1 repeated indices', 'gather', {'dim': 1}, [('x', xg), ('index', gi1)], lambda m, x, i: torch.gather(x, 1, i))
    g.case('gather dim=-1 index smaller in dim 0', 'gather', {'dim': -1}, [('x', xg), ('index', gi1[:2].clone())], lambda m, x, i: torch.gather(x, -1, i))
    g.case('take_along_dim', 'gather', {'dim': 1}, [('x', xg), ('index', torch.argsort(xg, 1))], lambda m, x, i: torch.take_along_dim(x, i, 1))
    g.case('scatter_add dim=0', 'scatter_add', {'dim': 0}, [('x', xg), ('index', gi0), ('src', g.randn(2, 4))], lambda m, x, i, s: torch.scatter_add(x, 0, i, s))
    g.case('scatter_add dim=1 duplicates', 'scatter_add', {'dim': 1}, [('x', xg), ('index', gi1), ('src', g.randn(3, 2))], lambda m, x, i, s: torch.scatter_add(x, 1, i, s))
    g.case('scatter_add src larger than index', 'scatter_add', {'dim': 1}, [('x', xg), ('index', gi1), ('src', g.randn(3, 3))], lambda m, x, i, s: torch.scatter_add(x, 1, i, s),
           grad=['x'])  # torch 1.13's backward for src fails on this shape
    g.case('scatter dim=1', 'scatter', {'dim': 1}, [('x', xg), ('index', T([[3, 0], [1, 2], [0, 3]])), ('src', g.randn(3, 2))], lambda m, x, i, s: torch.scatter(x, 1, i, s))
    g.case('scatter_reduce amax', 'scatter_reduce', {'dim': 1, 'reduce': 'amax'}, [('x', xg), ('index', gi1), ('src', g.randn(3, 2))],
           lambda m, x, i, s: torch.scatter_reduce(x, 1, i, s, 'amax'))
    for dim in [0, 1, -1]:
        g.case('index_select dim=%d' % dim, 'index_select', {'dim': dim}, [('x', xg), ('index', T([2, 0, 2]))], lambda m, x, i, d=dim: torch.index_select(x, d, i))
    g.case('index_select empty index', 'index_select', {'dim': 0}, [('x', xg), ('index', torch.zeros(0, dtype=torch.int64))], lambda m, x, i: torch.index_select(x, 0, i))
    g.case('index_add', 'index_add', {'dim': 0}, [('x', xg), ('index', T([2, 0, 2])), ('src', g.randn(3, 4))], lambda m, x, i, s: torch.index_add(x, 0, i, s))
    g.case('masked_select', 'masked_select', {}, [('x', a), ('mask', cond)], lambda m, x, mk: torch.masked_select(x, mk))
    g.case('take', 'take', {}, [('x', xg), ('index', T([0, 11, 5, 5]))], lambda m, x, i: torch.take(x, i))
    g.case('nonzero', 'nonzero', {}, [('x', nz)], lambda m, x: torch.nonzero(x), grad=[])
    g.case('unique', 'unique', {}, [('x', T([3.0, 1.0, 2.0, 3.0, 1.0]))], lambda m, x: torch.unique(x), grad=[])
    xf = g.randn(2, 3, 4)
    for dims in [[0], [2], [-1, 0], [0, 1, 2]]:
        g.case('flip dims=%s' % dims, 'flip', {'dims': dims}, [('x', xf)], lambda m, x, d=dims: torch.flip(x, d))
    for shifts, dims in [(1, 2), (-1, 2), (5, 1), ([1, -2], [0, 2]), (3, None), (-7, None), (0, 0), (24, None)]:
        g.case('roll shifts=%s dims=%s' % (shifts, dims), 'roll', {'shifts': shifts, 'dims': dims}, [('x', xf)], lambda m, x, s=shifts, d=dims: torch.roll(x, s, d))
    xm = g.randn(2, 3, 5)
    for d in [0, 1, -1, 2, -2, 5, -5, 10, -10]:
        g.case('tril diagonal=%d' % d, 'tril', {'diagonal': d}, [('x', xm)], lambda m, x, d=d: torch.tril(x, d))
        g.case('triu diagonal=%d' % d, 'triu', {'diagonal': d}, [('x', xm)], lambda m, x, d=d: torch.triu(x, d))
    g.case('diag of a vector', 'diag', {'diagonal': 0}, [('x', g.randn(3))], lambda m, x: torch.diag(x))
    g.case('diagonal offset=1', 'diagonal', {'offset': 1}, [('x', g.randn(3, 4))], lambda m, x: torch.diagonal(x, 1))
    for nc in [5, 6]:  # num_classes=-1 (inferred from the data) is not expressible: ours is lazy and needs the count up front
        g.case('one_hot num_classes=%d' % nc, 'one_hot', {'num_classes': nc}, [('index', T([[0, 2], [4, 1]]))], lambda m, i, nc=nc: F.one_hot(i, nc))

    # ---- shape ops ----
    c1, c2 = g.randn(2, 3), g.randn(2, 1)
    g.case('cat dim=1 uneven', 'cat', {'dim': 1}, [('a', c1), ('b', c2)], lambda m, x, y: torch.cat([x, y], 1))
    g.case('cat dim=-2', 'cat', {'dim': -2}, [('a', c1), ('b', g.randn(1, 3))], lambda m, x, y: torch.cat([x, y], -2))
    g.case('cat with an empty tensor', 'cat', {'dim': 0}, [('a', c1), ('b', torch.zeros(0, 3))], lambda m, x, y: torch.cat([x, y], 0))
    for dim in [0, 1, 2, -1]:
        g.case('stack dim=%d' % dim, 'stack', {'dim': dim}, [('a', c1), ('b', g.randn(2, 3)), ('c', g.randn(2, 3))], lambda m, *ts, d=dim: torch.stack(ts, d))
    xs = g.randn(7, 3)
    g.case('split size=3', 'split', {'size': 3, 'dim': 0}, [('x', xs)], lambda m, x: torch.split(x, 3, 0))
    g.case('split sizes=[1,0,6]', 'split', {'size': [1, 0, 6], 'dim': 0}, [('x', xs)], lambda m, x: torch.split(x, [1, 0, 6], 0))
    g.case('split dim=-1 size=2', 'split', {'size': 2, 'dim': -1}, [('x', xs)], lambda m, x: torch.split(x, 2, -1))
    for n in [2, 3, 4, 5]:
        g.case('chunk %d of 7' % n, 'chunk', {'chunks': n, 'dim': 0}, [('x', xs)], lambda m, x, n=n: torch.chunk(x, n, 0))
    g.case('chunk 4 of 6 (3 pieces)', 'chunk', {'chunks': 4, 'dim': 0}, [('x', g.randn(6, 2))], lambda m, x: torch.chunk(x, 4, 0))
    g.case('unbind dim=1', 'unbind', {'dim': 1}, [('x', xs)], lambda m, x: torch.unbind(x, 1))
    xe = g.randn(3, 1)
    g.case('expand', 'expand', {'shape': [2, 3, 4]}, [('x', xe)], lambda m, x: x.expand(2, 3, 4))
    g.case('expand -1', 'expand', {'shape': [-1, 5]}, [('x', xe)], lambda m, x: x.expand(-1, 5))
    g.case('repeat', 'repeat', {'sizes': [2, 1, 3]}, [('x', g.randn(2, 2))], lambda m, x: x.repeat(2, 1, 3))
    g.case('repeat zero', 'repeat', {'sizes': [0, 2]}, [('x', g.randn(2, 2))], lambda m, x: x.repeat(0, 2))
    g.case('tile fewer dims', 'tile', {'dims': [2]}, [('x', g.randn(2, 3))], lambda m, x: torch.tile(x, (2,)))
    g.case('permute', 'permute', {'dims': [2, 0, 1]}, [('x', xf)], lambda m, x: x.permute(2, 0, 1))
    g.case('permute negative dims', 'permute', {'dims': [-1, -3, -2]}, [('x', xf)], lambda m, x: x.permute(-1, -3, -2))
    g.case('transpose 0 2', 'transpose', {'dim0': 0, 'dim1': 2}, [('x', xf)], lambda m, x: x.transpose(0, 2))
    g.case('transpose -1 -2', 'transpose', {'dim0': -1, 'dim1': -2}, [('x', xf)], lambda m, x: x.transpose(-1, -2))
    xq = g.randn(2, 1, 3, 1)
    g.case('squeeze all', 'squeeze', {'dim': None}, [('x', xq)], lambda m, x: x.squeeze())
    g.case('squeeze dim=1', 'squeeze', {'dim': 1}, [('x', xq)], lambda m, x: x.squeeze(1))
    g.case('squeeze dim=0 (not 1: no-op)', 'squeeze', {'dim': 0}, [('x', xq)], lambda m, x: x.squeeze(0))
    g.case('squeeze dim=-1', 'squeeze', {'dim': -1}, [('x', xq)], lambda m, x: x.squeeze(-1))
    for d in [0, 2, -1, -4]:
        g.case('unsqueeze dim=%d' % d, 'unsqueeze', {'dim': d}, [('x', g.randn(2, 3, 2))], lambda m, x, d=d: x.unsqueeze(d))
    g.case('flatten 1..2', 'flatten', {'start_dim': 1, 'end_dim': 2}, [('x', g.randn(2, 3, 2, 2))], lambda m, x: torch.flatten(x, 1, 2))
    g.case('reshape -1', 'reshape', {'shape': [3, -1]}, [('x', xf)], lambda m, x: x.reshape(3, -1))
    g.case('reshape of a transposed tensor', 'reshape_t', {'shape': [12, 2]}, [('x', xf)], lambda m, x: x.transpose(0, 2).reshape(12, 2))
    for dim, start, length in [(0, 1, 1), (2, 1, 3), (-1, -3, 2), (1, 3, 0)]:
        g.case('narrow dim=%d start=%d length=%d' % (dim, start, length), 'narrow', {'dim': dim, 'start': start, 'length': length}, [('x', xf)],
               lambda m, x, d=dim, s=start, n=length: torch.narrow(x, d, s, n))
    xl = g.randn(9, 8)
    g.case('slice steps', 'slice', {'ranges': [[1, 8, 3], [0, 8, 2]]}, [('x', xl)], lambda m, x: x[1:8:3, 0:8:2])
    g.case('slice negative bounds', 'slice', {'ranges': [[-4, None, 1], [None, -5, 1]]}, [('x', xl)], lambda m, x: x[-4:, :-5])
    g.case('slice step past the end', 'slice', {'ranges': [[2, 100, 4], [7, 8, 5]]}, [('x', xl)], lambda m, x: x[2:100:4, 7:8:5])
    g.case('slice empty', 'slice', {'ranges': [[5, 2, 1], [None, None, 1]]}, [('x', xl)], lambda m, x: x[5:2, :])
    g.case('index a row (rank drops)', 'select', {'dim': 0, 'index': -2}, [('x', xl)], lambda m, x: x[-2])
    g.case('repeat_interleave', 'repeat_interleave', {'repeats': 2, 'dim': 0}, [('x', g.randn(2, 3))], lambda m, x: torch.repeat_interleave(x, 2, 0))
    xpd = g.randn(1, 2, 3, 4)
    for pads, mode, value in [([1, 2], 'constant', 0.0), ([1, 2, 0, 1], 'constant', -1.5), ([-1, 1, 1, -2], 'constant', 0.0), ([0, 0, 0, 0, 1, 1], 'constant', NAN),
                              ([2, 3], 'reflect', 0.0), ([1, 2, 2, 1], 'reflect', 0.0), ([3, 3], 'reflect', 0.0),
                              ([2, 3], 'replicate', 0.0), ([1, 2, 2, 1], 'replicate', 0.0), ([5, 0], 'replicate', 0.0),
                              ([2, 3], 'circular', 0.0), ([1, 2, 2, 1], 'circular', 0.0), ([4, 4], 'circular', 0.0)]:
        # torch 1.13 pads the last len(pads) / 2 dims of a 3-D (N, C, W) or 4-D input in the non-constant modes.
        xin = xpd if mode == 'constant' or len(pads) == 4 else xpd[0]
        g.case('pad %s %s value=%s' % (pads, mode, value), 'pad', {'pad': pads, 'mode': mode, 'value': gen.num32(value)}, [('x', xin)],
               lambda m, x, p=pads, md=mode, v=value: F.pad(x, p, md, v) if md == 'constant' else F.pad(x, p, md))
    for sa, sb in [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((4,), (2, 4, 3)), ((2, 5, 4), (4,)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2)), ((1, 3, 4), (2, 4, 2)),
                   ((3, 0), (0, 2)), ((0, 3), (3, 2))]:
        g.case('matmul %s x %s' % (list(sa), list(sb)), 'matmul', {}, [('a', g.randn(*sa)), ('b', g.randn(*sb))], lambda m, x, y: torch.matmul(x, y))
    g.case('matmul non-finite', 'matmul', {}, [('a', T([[1.0, INF], [0.0, NAN], [1.0, 2.0]])), ('b', T([[0.0, 1.0], [1.0, 0.0]]))], lambda m, x, y: torch.matmul(x, y))
    g.case('bmm', 'bmm', {}, [('a', g.randn(2, 3, 4)), ('b', g.randn(2, 4, 2))], lambda m, x, y: torch.bmm(x, y))
    g.case('outer', 'outer', {}, [('a', g.randn(3)), ('b', g.randn(4))], lambda m, x, y: torch.outer(x, y))
    g.case('dot', 'dot', {}, [('a', g.randn(5)), ('b', g.randn(5))], lambda m, x, y: torch.dot(x, y))
    for start, end, steps in [(0.0, 1.0, 5), (-1.0, 1.0, 1), (3.0, -2.0, 6), (0.0, 1.0, 0), (0.1, 0.7, 7)]:
        g.case('linspace %s %s %d' % (start, end, steps), 'linspace', {'start': start, 'end': end, 'steps': steps}, [],
               lambda m, s=start, e=end, n=steps: torch.linspace(s, e, n))
    for start, end, step in [(0, 5, 1), (1, 10, 3), (5, 0, -2), (0.0, 1.0, 0.25), (0.0, 1.0, 0.3), (-1.5, 1.0, 0.5)]:
        g.case('arange %s %s %s' % (start, end, step), 'arange', {'start': start, 'end': end, 'step': step}, [],
               lambda m, s=start, e=end, st=step: torch.arange(s, e, st))
    for start, end, steps in [(0.0, 10.0, 4), (-5.0, 5.0, 4), (0.0, 10.0, 7), (3.0, -4.0, 6)]:
        g.case('linspace int %s %s %d' % (start, end, steps), 'linspace_int', {'start': start, 'end': end, 'steps': steps}, [],
               lambda m, s=start, e=end, n=steps: torch.linspace(s, e, n, dtype=torch.int64))
    g.case('eye 3x4', 'eye', {'n': 3, 'm': 4}, [], lambda m: torch.eye(3, 4))
    # softmax at its edges (the activations group has random rows)
    g.case('softmax rows with -inf', 'softmax', {'dim': 1}, [('x', T([[1.0, -INF, 2.0], [-INF, -INF, 0.0], [1000.0, 1000.0, -1000.0]]))], lambda m, x: torch.softmax(x, 1))
    g.case('log_softmax rows with -inf', 'log_softmax', {'dim': 1}, [('x', T([[1.0, -INF, 2.0], [-INF, -INF, 0.0], [1000.0, 1000.0, -1000.0]]))], lambda m, x: torch.log_softmax(x, 1))
    g.case('softmax all -inf row', 'softmax', {'dim': 1}, [('x', T([[-INF, -INF], [0.0, 1.0]]))], lambda m, x: torch.softmax(x, 1))
    # casts
    g.case('float to int truncates', 'cast_int', {}, [('x', T([-2.7, -0.5, 0.0, 0.9, 2.5, 1e9]))], lambda m, x: x.to(torch.int64))
    g.case('float to bool', 'cast_bool', {}, [('x', T([-2.7, -0.0, 0.0, NAN, INF]))], lambda m, x: x.to(torch.bool))

    # ---- tiny arguments: relative precision (atol 1e-37: below it torch's vectorised kernels may flush subnormals to 0) ----
    tiny = T([1e-10, -1e-10, 1e-20, -3e-8, 1e-5, -1e-5, 1e-38, -1e-38])
    for op, fn in [('expm1', torch.expm1), ('log1p', torch.log1p), ('sinh', torch.sinh), ('asinh', torch.asinh), ('tanh', torch.tanh), ('erf', torch.erf),
                   ('sin', torch.sin), ('tan', torch.tan), ('atan', torch.atan), ('asin', torch.asin), ('atanh', torch.atanh), ('sign', torch.sign)]:
        g.case(op + ' tiny arguments', op, {}, [('x', tiny)], lambda m, x, fn=fn: fn(x), tol={'rtol': 2e-5, 'atol': 1e-37})
    big = T([1e3, -1e4, 1e5, 12345.678, -1e6, 3.0e7, 1.5707964, -4.712389])
    for op, fn in [('sin', torch.sin), ('cos', torch.cos), ('tan', torch.tan)]:
        g.case(op + ' large arguments', op, {}, [('x', big)], lambda m, x, fn=fn: fn(x), tol={'rtol': 1e-4, 'atol': 1e-5})
    near = T([88.7, 88.72, 88.73, 89.0, -87.3, -88.0, -103.0, -104.0, 709.0, -745.0])
    for op, fn in [('exp', torch.exp), ('expm1', torch.expm1), ('exp2', torch.exp2), ('sinh', torch.sinh), ('cosh', torch.cosh), ('sigmoid', torch.sigmoid), ('tanh', torch.tanh)]:
        g.case(op + ' near overflow', op, {}, [('x', near)], lambda m, x, fn=fn: fn(x), tol={'rtol': 2e-5, 'atol': 1e-37})
    logs = T([1e-45, 1e-38, 1e-30, 0.9999999, 1.0000001, 3e38, 1.0, 2.0, 0.5, 1024.0])
    for op, fn in [('log', torch.log), ('log2', torch.log2), ('log10', torch.log10), ('log1p', torch.log1p), ('sqrt', torch.sqrt), ('rsqrt', torch.rsqrt),
                   ('reciprocal', torch.reciprocal)]:
        g.case(op + ' wide range', op, {}, [('x', logs)], lambda m, x, fn=fn: fn(x), tol={'rtol': 2e-5, 'atol': 1e-37})
    g.case('hypot no overflow', 'hypot', {}, [('a', T([1e30, 3e38, 1e-30, 0.0, 3.0])), ('b', T([1e30, 3e38, 1e-30, 0.0, 4.0]))], lambda m, x, y: torch.hypot(x, y),
           tol={'rtol': 2e-5, 'atol': 1e-37})
    g.case('logaddexp far apart', 'logaddexp', {}, [('a', T([1e4, -1e4, 0.0, 100.0, -100.0])), ('b', T([-1e4, -1e4, 1e-7, 100.0, -200.0]))], lambda m, x, y: torch.logaddexp(x, y),
           tol={'rtol': 2e-5, 'atol': 1e-37})

    # ---- integer reductions and scans ----
    ix = T([[3, -1, 7, 3], [0, 5, 5, -2], [2, 2, 2, 2]])
    g.case('int sum dim=1', 'int_reduce', {'fn': 'sum', 'dim': 1}, [('x', ix)], lambda m, x: torch.sum(x, 1))
    g.case('int prod dim=0', 'int_reduce', {'fn': 'prod', 'dim': 0}, [('x', ix)], lambda m, x: torch.prod(x, 0))
    g.case('int amax dim=1', 'int_reduce', {'fn': 'amax', 'dim': 1}, [('x', ix)], lambda m, x: torch.amax(x, 1))
    g.case('int amin dim=0', 'int_reduce', {'fn': 'amin', 'dim': 0}, [('x', ix)], lambda m, x: torch.amin(x, 0))
    g.case('int argmax dim=1 ties', 'int_reduce', {'fn': 'argmax', 'dim': 1}, [('x', ix)], lambda m, x: torch.argmax(x, 1))
    g.case('int argmin dim=1 ties', 'int_reduce', {'fn': 'argmin', 'dim': 1}, [('x', ix)], lambda m, x: torch.argmin(x, 1))
    g.case('int cumprod dim=1', 'int_reduce', {'fn': 'cumprod', 'dim': 1}, [('x', ix)], lambda m, x: torch.cumprod(x, 1))
    g.case('int max_dim', 'int_max_dim', {'dim': 1}, [('x', ix)], lambda m, x: tuple(torch.max(x, 1)))
    g.case('int topk', 'int_topk', {'k': 2}, [('x', ix)], lambda m, x: tuple(torch.topk(x, 2, 1)[0:1]))
    g.case('int where', 'int_where', {}, [('cond', cond), ('a', ix), ('b', -ix)], lambda m, c, x, y: torch.where(c, x, y))
    g.case('int flip roll tril', 'int_layout', {}, [('x', ix)], lambda m, x: (torch.flip(x, [1]), torch.roll(x, 1, 0), torch.tril(x, -1)))
    g.case('int and bool shape ops', 'int_shape', {}, [('x', ix), ('mask', cond)],
           lambda m, x, mk: (torch.cat([x, -x], 1), F.pad(x, [1, 2], 'constant', -7), x.repeat(2, 1), torch.index_select(mk, 1, torch.tensor([3, 0])),
                             torch.stack([mk, ~mk], 0), x.t().contiguous(), x.masked_fill(mk, 9), torch.roll(mk, 1, 1), torch.cumsum(x, 0)))
    g.case('int gather', 'int_gather', {'dim': 1}, [('x', ix), ('index', T([[3, 0], [1, 1], [0, 3]]))], lambda m, x, i: torch.gather(x, 1, i))

    # ---- more reduction edges ----
    g.case('amax with NaN (gradient)', 'amax', {'dim': 1, 'keepdim': False}, [('x', T([[1.0, NAN, 3.0], [2.0, 2.0, NAN], [1.0, 2.0, 3.0]]))], lambda m, x: torch.amax(x, 1))
    g.case('amin with NaN (gradient)', 'amin', {'dim': 1, 'keepdim': False}, [('x', T([[1.0, NAN, 3.0], [2.0, 2.0, NAN], [1.0, 2.0, 3.0]]))], lambda m, x: torch.amin(x, 1))
    g.case('max_dim -0 and 0 tie', 'max_dim', {'dim': 1, 'keepdim': False}, [('x', T([[-0.0, 0.0, -1.0], [0.0, -0.0, -1.0]]))], lambda m, x: tuple(torch.max(x, 1)))
    g.case('prod dims=[0,2]', 'prod_dims', {'dim': [0, 2]}, [('x', x3)], lambda m, x: torch.prod(torch.prod(x, 2), 0))
    g.case('prod two zeros in a row', 'prod', {'dim': 1, 'keepdim': False}, [('x', T([[0.0, 2.0, 0.0, 3.0], [0.0, 1.0, 1.0, 1.0]]))], lambda m, x: torch.prod(x, 1))
    g.case('amax over a size-0 dim of another', 'amax', {'dim': 1, 'keepdim': False}, [('x', e0)], lambda m, x: torch.amax(x, 1))
    g.case('argmax over dim 1 of an empty tensor', 'argmax', {'dim': 1, 'keepdim': False}, [('x', e0)], lambda m, x: torch.argmax(x, 1))
    g.case('var empty dim', 'var', {'dim': 0, 'correction': 1, 'keepdim': False}, [('x', e0)], lambda m, x: torch.var(x, 0))
    g.case('std empty dim correction=0', 'std', {'dim': 0, 'correction': 0, 'keepdim': True}, [('x', e0)], lambda m, x: torch.std(x, 0, correction=0, keepdim=True))
    g.case('cumprod empty', 'cumprod', {'dim': 0}, [('x', e0)], lambda m, x: torch.cumprod(x, 0))
    g.case('cumsum empty', 'cumsum', {'dim': 1}, [('x', e0)], lambda m, x: torch.cumsum(x, 1))
    g.case('sort empty', 'sort', {'dim': 0, 'descending': False}, [('x', e0)], lambda m, x: tuple(torch.sort(x, dim=0, stable=True)))
    g.case('var keepdim dims=[0,2] correction=2', 'var', {'dim': [0, 2], 'correction': 2, 'keepdim': True}, [('x', x3)], lambda m, x: torch.var(x, [0, 2], correction=2, keepdim=True))
    g.case('var correction larger than N', 'var', {'dim': 1, 'correction': 4, 'keepdim': False}, [('x', g.randn(2, 3))], lambda m, x: torch.var(x, 1, correction=4))
    g.case('mean dims=[] (all)', 'mean', {'dim': [], 'keepdim': False}, [('x', x3)], lambda m, x: torch.mean(x, []))
    g.case('sum dims=[] keepdim (all)', 'sum', {'dim': [], 'keepdim': True}, [('x', x3)], lambda m, x: torch.sum(x, [], keepdim=True))
    g.case('scalar sum dim=0', 'sum', {'dim': 0, 'keepdim': False}, [('x', T(2.5))], lambda m, x: torch.sum(x, 0))
    g.case('scalar cumsum', 'cumsum', {'dim': 0}, [('x', T(2.5))], lambda m, x: torch.cumsum(x, 0))
    g.case('scalar softmax', 'softmax', {'dim': 0}, [('x', T(2.5))], lambda m, x: torch.softmax(x, 0))
    g.case('scalar argmax', 'argmax', {'dim': None, 'keepdim': False}, [('x', T(2.5))], lambda m, x: torch.argmax(x))

    # ---- large rows: several workgroups / blocks per row ----
    big_row = g.randn(2, 300, scale=3.0)
    big_row[0, 177] = NAN
    big_row[1, 20] = big_row[1, 280] = 50.0
    tl = {'rtol': 1e-4, 'atol': 1e-5}
    for op, fn in [('sum', torch.sum), ('amax', torch.amax), ('amin', torch.amin), ('logsumexp', torch.logsumexp)]:
        g.case('%s rows of 300' % op, op, {'dim': 1, 'keepdim': False}, [('x', big_row)], lambda m, x, fn=fn: fn(x, 1), tol=tl)
    g.case('argmax rows of 300 (NaN, tie far apart)', 'argmax', {'dim': 1, 'keepdim': False}, [('x', big_row)], lambda m, x: torch.argmax(x, 1))
    g.case('max_dim rows of 300', 'max_dim', {'dim': 1, 'keepdim': False}, [('x', big_row)], lambda m, x: tuple(torch.max(x, 1)))
    g.case('var rows of 300', 'var', {'dim': 1, 'correction': 1, 'keepdim': False}, [('x', big_row)], lambda m, x: torch.var(x, 1), tol=tl)
    g.case('softmax rows of 130', 'softmax', {'dim': 1}, [('x', g.randint(-48, 48, (1, 130)).float() / 16)], lambda m, x: torch.softmax(x, 1), tol=tl)
    # Over everything, past one workgroup's 4096 values (two chunks); values k / 2 keep the file small.
    flat = g.randint(-50, 50, (4200,)).float() / 2
    flat[4150] = NAN
    tied = g.randint(-50, 50, (4200,)).float() / 2
    tied[300] = tied[4120] = 30.0
    g.case('reductions over 4200 values (NaN and a tie in different chunks)', 'big_all', {}, [('flat', flat), ('tied', tied)],
           lambda m, f, t: (torch.sum(t), torch.amax(f), torch.amax(t), torch.argmax(t), torch.argmin(f), torch.mean(t), torch.var(t), torch.logsumexp(t, 0)), tol=tl, grad=[])
    g.case('amax dim=0 of 300 rows', 'amax', {'dim': 0, 'keepdim': False}, [('x', big_row.t().contiguous())], lambda m, x: torch.amax(x, 0), tol=tl)
    g.case('cumsum rows of 260', 'cumsum', {'dim': 1}, [('x', g.randint(-32, 32, (1, 260)).float() / 16)], lambda m, x: torch.cumsum(x, 1), tol={'rtol': 1e-4, 'atol': 1e-4})
    g.case('cumprod rows of 140 near 1', 'cumprod', {'dim': 1}, [('x', g.rand(1, 140, lo=0.98, hi=1.02))], lambda m, x: torch.cumprod(x, 1), tol=tl)
    srt = torch.cat([g.randint(-20, 20, (1, 600)).float(), torch.full((1, 3), NAN), torch.tensor([[INF, -INF, -0.0]])], 1)
    srt = srt[:, torch.randperm(603, generator=g.gen)]
    for desc in [False, True]:
        g.case('sort rows of 603 with duplicates and NaN descending=%s' % desc, 'sort', {'dim': 1, 'descending': desc}, [('x', srt)],
               lambda m, x, d=desc: tuple(torch.sort(x, dim=1, descending=d, stable=True)))
    # Distinct values k / 8 (no ties: torch's tie order is unspecified), short in the file.
    xk = (torch.randperm(300, generator=g.gen).float() / 8 - 19).reshape(1, 300)
    for k, largest in [(1, True), (50, True), (200, False)]:
        g.case('topk rows of 300 k=%d largest=%s' % (k, largest), 'topk', {'k': k, 'dim': -1, 'largest': largest}, [('x', xk)],
               lambda m, x, k=k, l=largest: tuple(torch.topk(x, k, -1, largest=l)))
    g.case('sort dim=0 of 200 x 2', 'sort', {'dim': 0, 'descending': True}, [('x', g.randint(-50, 50, (200, 2)).float() / 8)], lambda m, x: tuple(torch.sort(x, dim=0, descending=True, stable=True)))
    for sa, sb in [((3, 16), (16, 33)), ((2, 2, 129), (129, 2)), ((1, 130), (130, 1))]:
        # Values k / 8: short in the file, and the products and sums are exact in float32.
        qa, qb = g.randint(-16, 16, sa).float() / 8, g.randint(-16, 16, sb).float() / 8
        g.case('matmul %s x %s' % (list(sa), list(sb)), 'matmul', {}, [('a', qa), ('b', qb)], lambda m, x, y: torch.matmul(x, y), tol=tl)

    # ---- on views: the op applied to a transposed / strided / expanded input ----
    xw = g.randn(4, 6)

    def view(kind, x):
        if kind == 'transpose':
            return x.transpose(0, 1)
        if kind == 'step':
            return x[:, 1::2]
        return x[:, :1].expand(4, 5)

    on = [('sum', {'dim': 0, 'keepdim': False}, lambda v: torch.sum(v, 0)), ('amax', {'dim': 1, 'keepdim': True}, lambda v: torch.amax(v, 1, keepdim=True)),
          ('argmax', {'dim': 0, 'keepdim': False}, lambda v: torch.argmax(v, 0)), ('cumsum', {'dim': 0}, lambda v: torch.cumsum(v, 0)),
          ('cumprod', {'dim': 1}, lambda v: torch.cumprod(v, 1)), ('sort', {'dim': 1, 'descending': False}, lambda v: tuple(torch.sort(v, dim=1, stable=True))),
          ('topk', {'k': 2, 'dim': 0, 'largest': True}, lambda v: tuple(torch.topk(v, 2, 0))), ('var', {'dim': 1, 'correction': 1, 'keepdim': False}, lambda v: torch.var(v, 1)),
          ('logsumexp', {'dim': 0, 'keepdim': False}, lambda v: torch.logsumexp(v, 0)), ('softmax', {'dim': 0}, lambda v: torch.softmax(v, 0)),
          ('exp', {}, torch.exp), ('flip', {'dims': [0]}, lambda v: torch.flip(v, [0])), ('roll', {'shifts': 1, 'dims': 1}, lambda v: torch.roll(v, 1, 1)),
          ('tril', {'diagonal': 0}, torch.tril), ('pad', {'pad': [1, 1], 'mode': 'reflect', 'value': 0}, lambda v: F.pad(v[None], [1, 1], 'reflect')[0]),
          ('prod', {'dim': 0, 'keepdim': False}, lambda v: torch.prod(v, 0)), ('max_dim', {'dim': 1, 'keepdim': False}, lambda v: tuple(torch.max(v, 1))),
          ('index_select', {'dim': 1, 'index_list': [2, 0, 2]}, lambda v: torch.index_select(v, 1, torch.tensor([2, 0, 2]))),
          ('gather', {'dim': 0, 'index_rows': [[1, 0, 2], [0, 2, 1]]}, lambda v: torch.gather(v, 0, torch.tensor([[1, 0, 2], [0, 2, 1]]))),
          ('matmul_self_t', {}, lambda v: torch.matmul(v, v.transpose(0, 1)))]
    for kind in ['transpose', 'step', 'expand']:
        for op, args, fn in on:
            if kind == 'expand' and op in ('sort', 'topk', 'argmax', 'max_dim'):
                continue  # ties everywhere: torch's order is unspecified for topk
            a2 = dict(args, view=kind, then=op)
            g.case('%s of a %s view' % (op, kind), 'on_view', a2, [('x', xw)], lambda m, x, fn=fn, kind=kind: fn(view(kind, x)))
    g.case('add of two transposed views', 'add_views', {}, [('a', g.randn(3, 4)), ('b', g.randn(4, 3))], lambda m, x, y: x.transpose(0, 1) * 2 + y)

    # ---- tensor-scalar ops (their own kernels and gradient rules) at edge scalars ----
    sx12 = T([-INF, -2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, -0.75])
    scalars = [2.5, 0.0, -0.0, INF, -INF, NAN]  # 2.5 against the edge row covers the ordinary signs
    fns = {'add': torch.add, 'sub': torch.sub, 'mul': torch.mul, 'div': torch.div, 'pow': torch.pow, 'remainder': torch.remainder,
           'maximum': lambda x, s: torch.maximum(x, torch.tensor(s)), 'minimum': lambda x, s: torch.minimum(x, torch.tensor(s)),
           'atan2': lambda x, s: torch.atan2(x, torch.tensor(s)), 'hypot': lambda x, s: torch.hypot(x, torch.tensor(s)),
           'copysign': torch.copysign, 'logaddexp': lambda x, s: torch.logaddexp(x, torch.tensor(s)), 'xlogy': torch.xlogy,
           'eq': torch.eq, 'ne': torch.ne, 'gt': torch.gt, 'ge': torch.ge, 'lt': torch.lt, 'le': torch.le}
    for op, fn in fns.items():
        for sv in scalars if op in ('div', 'pow', 'atan2', 'copysign') else [v for v in scalars if not (v == 0 and str(v) == '-0.0')]:
            g.case('%s with scalar %s' % (op, sv), 'scalar_op', {'fn': op, 'scalar': gen.num32(sv)}, [('x', sx12)], lambda m, x, fn=fn, sv=sv: fn(x, sv))
    ix8 = T([-3, -1, 0, 1, 2, 3, 2147483647, -2147483648])
    for op in ['eq', 'ne', 'gt', 'ge', 'lt', 'le']:
        for sv in [2.0, 2.5, -0.5, 1e10, -1e10, NAN, INF]:
            g.case('int %s scalar %s' % (op, sv), 'int_scalar_cmp', {'fn': op, 'scalar': gen.num32(sv)}, [('x', ix8)], lambda m, x, op=op, sv=sv: getattr(torch, op)(x, sv))
    for op, sv in [('add', 5), ('sub', -3), ('mul', -2), ('div', 2), ('div', -2), ('remainder', 3), ('remainder', -3), ('pow', 2), ('maximum', 1), ('minimum', 1)]:
        fn = {'div': lambda x, s: torch.div(x, s, rounding_mode='floor'), 'maximum': lambda x, s: torch.clamp(x, min=s), 'minimum': lambda x, s: torch.clamp(x, max=s)}.get(op, getattr(torch, op))
        g.case('int %s scalar %s' % (op, sv), 'int_scalar_op', {'fn': op, 'scalar': sv}, [('x', T([-7, -3, -1, 0, 1, 2, 5, 7]))], lambda m, x, fn=fn, sv=sv: fn(x, sv))

    # ---- small shape edges ----
    g.case('add [0,3] + [1,3]', 'add', {}, [('a', torch.zeros(0, 3)), ('b', g.randn(1, 3))], lambda m, x, y: x + y)
    g.case('softmax of [0,3] dim=1', 'softmax', {'dim': 1}, [('x', torch.zeros(0, 3))], lambda m, x: torch.softmax(x, 1))
    g.case('softmax with +inf', 'softmax', {'dim': 1}, [('x', T([[INF, 1.0, 2.0], [INF, INF, 0.0], [NAN, 1.0, 2.0]]))], lambda m, x: torch.softmax(x, 1))
    g.case('log_softmax with +inf', 'log_softmax', {'dim': 1}, [('x', T([[INF, 1.0, 2.0], [-INF, 1.0, 2.0]]))], lambda m, x: torch.log_softmax(x, 1))
    x43 = g.randn(2, 3, 4)
    for dim in [-2, 0, 2]:
        g.case('cumsum rank 3 dim=%d' % dim, 'cumsum', {'dim': dim}, [('x', x43)], lambda m, x, d=dim: torch.cumsum(x, d))
        g.case('cumprod rank 3 dim=%d' % dim, 'cumprod', {'dim': dim}, [('x', x43)], lambda m, x, d=dim: torch.cumprod(x, d))
        g.case('argsort rank 3 dim=%d' % dim, 'argsort', {'dim': dim, 'descending': True}, [('x', x43)], lambda m, x, d=dim: torch.sort(x, dim=d, descending=True, stable=True)[1])
        g.case('topk rank 3 dim=%d' % dim, 'topk', {'k': 2, 'dim': dim, 'largest': False}, [('x', x43)], lambda m, x, d=dim: tuple(torch.topk(x, 2, d, largest=False)))
        g.case('logsumexp rank 3 dim=%d' % dim, 'logsumexp', {'dim': dim, 'keepdim': False}, [('x', x43)], lambda m, x, d=dim: torch.logsumexp(x, d))
        g.case('softmax rank 3 dim=%d' % dim, 'softmax', {'dim': dim}, [('x', x43)], lambda m, x, d=dim: torch.softmax(x, d))
    g.case('gather index longer than the dim', 'gather', {'dim': 1}, [('x', xg), ('index', T([[3, 0, 1, 1, 2, 3], [0, 0, 0, 0, 0, 0]]))], lambda m, x, i: torch.gather(x, 1, i))
    g.case('gather rank 3 dim=1', 'gather', {'dim': 1}, [('x', x43), ('index', T([[[2, 0, 1, 1]], [[0, 1, 2, 2]]]))], lambda m, x, i: torch.gather(x, 1, i))
    g.case('scatter_add rank 3 dim=-1', 'scatter_add', {'dim': -1}, [('x', x43), ('index', T([[[3, 3], [0, 1], [2, 2]], [[1, 0], [0, 0], [3, 1]]])), ('src', g.randn(2, 3, 2))],
           lambda m, x, i, s: torch.scatter_add(x, -1, i, s))
    g.case('index_select rank 3 dim=1', 'index_select', {'dim': 1}, [('x', x43), ('index', T([2, 2, 0, 1]))], lambda m, x, i: torch.index_select(x, 1, i))
    g.case('chunk 5 of 3', 'chunk', {'chunks': 5, 'dim': 1}, [('x', g.randn(2, 3))], lambda m, x: torch.chunk(x, 5, 1))
    g.case('split size larger than the dim', 'split', {'size': 5, 'dim': 1}, [('x', g.randn(2, 3))], lambda m, x: torch.split(x, 5, 1))
    g.case('stack rank-0', 'stack', {'dim': 0}, [('a', T(1.5)), ('b', T(-2.0))], lambda m, x, y: torch.stack([x, y], 0))
    g.case('argmax keepdim without dim', 'argmax', {'dim': None, 'keepdim': True}, [('x', tie)], lambda m, x: torch.argmax(x, keepdim=True))
    g.case('repeat a scalar', 'repeat', {'sizes': [2, 3]}, [('x', T(1.5))], lambda m, x: x.repeat(2, 3))
    g.case('var of a scalar', 'var', {'dim': None, 'correction': 1, 'keepdim': False}, [('x', T(1.5))], lambda m, x: torch.var(x))
    g.case('matmul empty vectors', 'matmul', {}, [('a', torch.zeros(0)), ('b', torch.zeros(0))], lambda m, x, y: torch.matmul(x, y))
    g.case('pad 1-D constant', 'pad', {'pad': [2, 1], 'mode': 'constant', 'value': 3.0}, [('x', g.randn(4))], lambda m, x: F.pad(x, [2, 1], 'constant', 3.0))
    g.case('pad replicate wider than the input', 'pad', {'pad': [5, 6, 3, 0], 'mode': 'replicate', 'value': 0.0}, [('x', g.randn(1, 1, 2, 3))], lambda m, x: F.pad(x, [5, 6, 3, 0], 'replicate'))
    g.case('pad reflect 3 dims', 'pad', {'pad': [1, 1, 2, 0, 0, 1], 'mode': 'reflect', 'value': 0.0}, [('x', g.randn(1, 1, 3, 3, 4))], lambda m, x: F.pad(x, [1, 1, 2, 0, 0, 1], 'reflect'))
    g.case('pad circular 3 dims', 'pad', {'pad': [1, 2, 0, 1, 1, 1], 'mode': 'circular', 'value': 0.0}, [('x', g.randn(1, 1, 2, 3, 4))], lambda m, x: F.pad(x, [1, 2, 0, 1, 1, 1], 'circular'))
    g.case('flip a size-1 dim', 'flip', {'dims': [1]}, [('x', g.randn(3, 1))], lambda m, x: torch.flip(x, [1]))
    g.case('roll negative dim', 'roll', {'shifts': -4, 'dims': -2}, [('x', x43)], lambda m, x: torch.roll(x, -4, -2))
    g.case('tril of a rank-4 batch', 'tril', {'diagonal': -1}, [('x', g.randn(2, 2, 3, 3))], lambda m, x: torch.tril(x, -1))
    g.case('expand new leading dims and a -1', 'expand', {'shape': [2, -1, 3]}, [('x', g.randn(4, 1))], lambda m, x: x.expand(2, -1, 3))
    g.case('linspace steps=2', 'linspace', {'start': 1.0, 'end': -1.0, 'steps': 2}, [], lambda m: torch.linspace(1.0, -1.0, 2))
    g.case('arange negative float step', 'arange', {'start': 1.0, 'end': -1.0, 'step': -0.3}, [], lambda m: torch.arange(1.0, -1.0, -0.3))
    g.case('eye 4x2', 'eye', {'n': 4, 'm': 2}, [], lambda m: torch.eye(4, 2))

    # ---- long strided rows: the reductions, scans and sorts of a transposed [200, 3] (rows of 200, stride 3) ----
    # Distinct values k / 16 but for a tie in column 0 and a NaN in column 2 (topk reads columns 1 and 2: no ties there).
    xs3 = (torch.randperm(600, generator=g.gen).float() / 16 - 19).reshape(200, 3)
    xs3[150, 2] = NAN
    xs3[10, 0] = xs3[190, 0] = 30.0

    def long_strided(x):
        v = x.t()
        srt = torch.sort(v, dim=1, stable=True)
        tk = torch.topk(v[1:], 5, 1)
        return (v.sum(1), v.amax(1), torch.argmax(v, 1), torch.argmin(v, 1), v.mean(1), v.var(1), torch.logsumexp(v, 1), torch.cumsum(v, 1),
                srt[0], srt[1], tk[0], tk[1], torch.matmul(v[:2], x[:, :2]))
    g.case('long strided rows', 'long_strided', {}, [('x', xs3)], lambda m, x: long_strided(x), grad=[], tol={'rtol': 1e-4, 'atol': 1e-4})

    # ---- wide ranges: large magnitudes where naive formulas overflow (asinh, acosh, hypot-like) ----
    wide = T([1e10, -1e10, 1e20, -1e20, 1e30, -3e38, 3e38, 12.5, -40.0, 0.3])
    for op, fn in [('asinh', torch.asinh), ('atan', torch.atan), ('tanh', torch.tanh), ('sigmoid', torch.sigmoid), ('erf', torch.erf), ('expm1', torch.expm1),
                   ('abs', torch.abs), ('square', torch.square), ('reciprocal', torch.reciprocal), ('rsqrt', torch.rsqrt), ('sign', torch.sign)]:
        # sigmoid's and tanh's gradients at 12.5 are y (1 - y) with 1 - y cancelling: float32 results differ by ~1% (torch's from its own float64 too).
        loose = op in ('sigmoid', 'tanh')
        g.case(op + ' wide', op, {}, [('x', wide)], lambda m, x, fn=fn: fn(x), tol={'rtol': 2e-2 if loose else 2e-5, 'atol': 1e-37})
    g.case('acosh wide', 'acosh', {}, [('x', T([1.0, 1.0000001, 1.5, 1e10, 1e20, 1e30, 3e38, INF]))], lambda m, x: torch.acosh(x), tol={'rtol': 2e-5, 'atol': 1e-37})
    g.case('log1p near -1', 'log1p', {}, [('x', T([-0.9999999, -0.99, -0.5, -1e-30, 1e-30]))], lambda m, x: torch.log1p(x), tol={'rtol': 2e-5, 'atol': 1e-37})
    g.case('pow wide', 'pow', {}, [('a', T([10.0, 10.0, 2.0, 2.0, 0.5, 1e-20, 1e20, -1e20, 3.0, 1.0001])), ('b', T([38.0, -38.0, 127.0, -149.0, 100.0, 2.0, 0.5, 3.0, 80.0, 1e5]))],
           lambda m, x, y: torch.pow(x, y), tol={'rtol': 2e-5, 'atol': 1e-37})
    g.case('atan2 wide', 'atan2', {}, [('a', T([1e30, 1e-30, -1e30, 3e38, 1e-38, 1.0])), ('b', T([1e-30, 1e30, -1e-30, 3e38, -1e-38, -1e30]))],
           lambda m, x, y: torch.atan2(x, y), tol={'rtol': 2e-5, 'atol': 1e-37})

    # ---- second order: the output is the gradient of sum(f(x) * w) (create_graph), so the recorded
    # gradients are Hessian-vector products; w is gen.gweight(shape, 7), which the test computes too ----
    grad_of = gen.grad_of

    xu = g.rand(2, 3, lo=0.2, hi=0.9)
    xn = g.randn(2, 3)
    second = [('exp', xn, torch.exp), ('log', xu, torch.log), ('sqrt', xu, torch.sqrt), ('rsqrt', xu, torch.rsqrt), ('sin', xn, torch.sin), ('cos', xn, torch.cos),
              ('tan', xu, torch.tan), ('tanh', xn, torch.tanh), ('sigmoid', xn, torch.sigmoid), ('erf', xn, torch.erf), ('atan', xn, torch.atan), ('asin', xu, torch.asin),
              ('acos', xu, torch.acos), ('asinh', xn, torch.asinh), ('acosh', xu + 1.0, torch.acosh), ('sinh', xn, torch.sinh), ('cosh', xn, torch.cosh),
              ('expm1', xn, torch.expm1), ('log1p', xu, torch.log1p), ('log2', xu, torch.log2), ('log10', xu, torch.log10), ('exp2', xn, torch.exp2),
              ('reciprocal', xu, torch.reciprocal), ('square', xn, torch.square), ('pow_scalar 3', xn, lambda x: torch.pow(x, 3.0)),
              ('pow_scalar 0.5', xu, lambda x: torch.pow(x, 0.5)), ('pow_scalar -1.5', xu, lambda x: torch.pow(x, -1.5)),
              ('gelu', xn, F.gelu), ('silu', xn, F.silu), ('softplus', xn, F.softplus), ('elu', xn, F.elu), ('mish', xn, F.mish),
              ('softmax', xn, lambda x: torch.softmax(x, 1)), ('log_softmax', xn, lambda x: torch.log_softmax(x, 1)), ('logsumexp', xn, lambda x: torch.logsumexp(x, 1)),
              ('var', xn, lambda x: torch.var(x, 1)), ('std', xn, lambda x: torch.std(x, 1)), ('norm', xn, lambda x: torch.linalg.vector_norm(x, 2, dim=1)),
              ('norm p=3', xn, lambda x: torch.linalg.vector_norm(x, 3, dim=1)), ('prod', xn, lambda x: torch.prod(x, 1)), ('cumprod', xn, lambda x: torch.cumprod(x, 1)),
              ('mean of squares', xn, lambda x: torch.mean(x * x, 1)), ('sort of cubes', xn, lambda x: torch.sort(x ** 3, dim=1, stable=True)[0]),
              ('max_dim of cubes', xn, lambda x: torch.max(x ** 3, 1)[0]), ('amax of cubes', xn, lambda x: torch.amax(x ** 3, 1)),
              ('gather of cubes', xn, lambda x: torch.gather(x ** 3, 1, torch.tensor([[2, 0], [1, 1]]))),
              ('cumsum of cubes', xn, lambda x: torch.cumsum(x ** 3, 1)), ('matmul self', xn, lambda x: x @ x.t())]
    for name, x, fn in second:
        g.case('second order: %s' % name, 'grad_of', {'fn': name}, [('x', x)], lambda m, x, fn=fn: grad_of(fn)(m, x))
    ya = g.rand(2, 3, lo=0.3, hi=2.0)
    yb = g.rand(2, 3, lo=0.3, hi=2.0)
    for name, fn in [('mul', torch.mul), ('div', torch.div), ('pow', torch.pow), ('atan2', torch.atan2), ('hypot', torch.hypot), ('logaddexp', torch.logaddexp),
                     ('xlogy', torch.xlogy), ('maximum of cubes', lambda p, q: torch.maximum(p ** 3, q)), ('where', lambda p, q: torch.where(p > 1.0, p * q, q * q)),
                     ('matmul', lambda p, q: p @ q.t())]:
        g.case('second order: %s' % name, 'grad_of2', {'fn': name}, [('a', ya), ('b', yb)], lambda m, p, q, fn=fn: grad_of(fn)(m, p, q))

    # ---- float16 (the ops torch 1.13 runs in half on the CPU): inputs rounded to half, results read back as float32 ----
    # Values k / 32 and k / 16, exact in half (and short in the file); their sums are not, past 2048 / 32.
    hx = g.randint(-512, 512, (2, 160)).float() / 32
    hy = g.randint(8, 48, (2, 160)).float() / 16
    hc = T([65519.0, 65520.0, 70000.0, -65520.0, 1e-8, 3e-8, 6e-8, 1.00048828125, 1.0009765625, 2049.0, 2051.0, NAN, INF, -0.0])
    bx, by = hx[:, :50].contiguous(), hy[:, :50].contiguous()
    half = [('cast', [('x', hc)], lambda x: x), ('sum', [('x', hx)], lambda x: x.sum(1)), ('mean', [('x', hx)], lambda x: x.mean(1)),
            ('sum all', [('x', hx)], lambda x: x.sum()), ('amax', [('x', hx)], lambda x: x.amax(1)), ('argmax', [('x', hx)], lambda x: x.argmax(1)),
            ('var', [('x', hx)], lambda x: x.var(1)), ('norm', [('x', hx)], lambda x: torch.linalg.vector_norm(x, 2, dim=1)),
            ('sort', [('x', hx[:, :40].contiguous())], lambda x: torch.sort(x, dim=1, stable=True)[0]),
            ('add', [('x', bx), ('y', by)], lambda x, y: x + y), ('div', [('x', bx), ('y', by)], lambda x, y: x / y),
            ('pow', [('x', by), ('y', bx)], lambda x, y: x ** (y / 4)), ('remainder', [('x', bx), ('y', by)], lambda x, y: torch.remainder(x, y)),
            ('maximum', [('x', bx), ('y', by)], lambda x, y: torch.maximum(x, y))]
    for name, ins, fn in half:
        g.case('float16 %s' % name, 'half', {'fn': name}, ins, lambda m, *ts, fn=fn: fn(*[t.half() for t in ts]).float(), grad=[], tol={'rtol': 1e-3, 'atol': 1e-5})

    # ---- slice assignment (a copy with a region replaced): y = x.clone(); y[ranges] = v ----
    def assign(ranges):
        def run(m, x, v):
            y = x.clone()
            y[tuple(slice(*r) for r in ranges)] = v
            return y
        return run
    xa6 = g.randn(5, 6)
    for ranges, vshape in [([[1, 3, 1], [0, 6, 2]], (2, 3)), ([[-2, None, 1], [None, -4, 1]], (2, 2)), ([[0, 5, 3], [1, 6, 4]], (2, 2)), ([[None, None, 1], [None, None, 1]], (5, 6))]:
        g.case('slice assign %s' % ranges, 'slice_assign', {'ranges': ranges}, [('x', xa6), ('v', g.randn(*vshape))], assign(ranges))

    # ---- NaN and infinities through the composite rules' gradients ----
    nzr = T([[NAN, 0.0, 2.0, 3.0], [INF, 0.0, 2.0, 1.0], [INF, 2.0, -1.0, 0.5], [NAN, 1.0, 2.0, 3.0]])
    g.case('prod NaN, inf and zeros (gradient)', 'prod', {'dim': 1, 'keepdim': False}, [('x', nzr)], lambda m, x: torch.prod(x, 1))
    g.case('cumprod NaN, inf and zeros (gradient)', 'cumprod', {'dim': 1}, [('x', nzr)], lambda m, x: torch.cumprod(x, 1))
    g.case('logsumexp dims=[0,1] with NaN', 'logsumexp', {'dim': [0, 1], 'keepdim': False}, [('x', nzr[3:].clone())], lambda m, x: torch.logsumexp(x, [0, 1]))
    g.case('var with inf (gradient)', 'var', {'dim': 1, 'correction': 1, 'keepdim': False}, [('x', nzr[1:3].clone())], lambda m, x: torch.var(x, 1))
    g.case('softmax with NaN (gradient)', 'softmax', {'dim': 1}, [('x', nzr[3:].clone())], lambda m, x: torch.softmax(x, 1))
    g.case('max_dim with inf ties (gradient)', 'max_dim', {'dim': 1, 'keepdim': False}, [('x', T([[INF, 1.0, INF], [-INF, -INF, -INF]]))], lambda m, x: tuple(torch.max(x, 1)))
    g.case('amax with inf ties (gradient)', 'amax', {'dim': 1, 'keepdim': False}, [('x', T([[INF, 1.0, INF], [-INF, -INF, -INF]]))], lambda m, x: torch.amax(x, 1))
    g.case('sort with inf and NaN (gradient)', 'sort', {'dim': 1, 'descending': False}, [('x', nzr)], lambda m, x: tuple(torch.sort(x, dim=1, stable=True)))

    # ---- exact results: log2 of powers of two, exp2 of integers, exp(0) and friends (torch's are exact; ours by construction) ----
    # rtol 3e-8: under half a float32 ulp (>= 6e-8 relative), over the file's 9-digit rounding (<= 5e-9).
    exact = {'rtol': 3e-8, 'atol': 0}
    g.case('log2 of powers of two (exact)', 'log2', {}, [('x', T([2.0 ** k for k in [-149, -126, -20, -1, 0, 1, 10, 64, 127]]))], lambda m, x: torch.log2(x), tol=exact, grad=[])
    g.case('exp2 of integers (exact)', 'exp2', {}, [('x', T([-149.0, -126.0, -20.0, -1.0, 0.0, 1.0, 10.0, 64.0, 127.0]))], lambda m, x: torch.exp2(x), tol=exact, grad=[])
    g.case('exp(0), log(1), expm1(0), log1p(0) (exact)', 'exact_ids', {}, [('x', T([0.0, 1.0]))], lambda m, x: (torch.exp(x[:1]), torch.log(x[1:]), torch.expm1(x[:1]), torch.log1p(x[:1])),
           tol=exact, grad=[])

    # add, sub and mul are correctly rounded everywhere (WGSL requires it; its division and sqrt may be off by ulps on real GPUs, so not here).
    ra_, rb_ = g.randn(48, scale=10.0), g.randn(48, scale=10.0)
    for op, fn in [('add', torch.add), ('sub', torch.sub), ('mul', torch.mul)]:
        g.case('%s correctly rounded' % op, op, {}, [('a', ra_), ('b', rb_)], lambda m, x, y, fn=fn: fn(x, y), tol=exact, grad=[])
    return g
