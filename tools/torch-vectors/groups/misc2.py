"""Common torch ops composed from existing ones (test/torch-vectors/misc2.test.ts): addmm, baddbmm,
addbmm, addmv, addr; linalg.cross, cdist, trace, kron, rot90, fliplr, flipud, movedim, swapaxes;
searchsorted, bucketize, histc, meshgrid, cartesian_prod, triu_indices, tril_indices; logaddexp2,
sinc, deg2rad, rad2deg, heaviside, nan_to_num, signbit, isin, isclose, allclose. Edges: NaN, +-inf,
beta = 0 over NaN, ties at bucket boundaries, empty tensors, broadcasting, negative dims; gradients
where torch has them.
"""
import torch

NAN, INF = float('nan'), float('inf')


def make(gen):
    g = gen.Group('misc2', 1e-5, 1e-6, 'common torch ops composed from existing ones, at their edges')
    T = torch.tensor
    case = g.case

    # ---- the addmm family ----
    for beta, alpha in [(1, 1), (0.5, -2.0), (0, 1.5)]:
        ab = {'beta': beta, 'alpha': alpha}
        case('addmm beta=%s alpha=%s' % (beta, alpha), 'addmm', ab, [('x', g.randn(3, 4)), ('a', g.randn(3, 5)), ('b', g.randn(5, 4))], lambda m, x, a, b, be=beta, al=alpha: torch.addmm(x, a, b, beta=be, alpha=al))
        case('addmm broadcast row beta=%s' % beta, 'addmm', ab, [('x', g.randn(4)), ('a', g.randn(3, 2)), ('b', g.randn(2, 4))], lambda m, x, a, b, be=beta, al=alpha: torch.addmm(x, a, b, beta=be, alpha=al))
        case('baddbmm beta=%s alpha=%s' % (beta, alpha), 'baddbmm', ab, [('x', g.randn(2, 3, 4)), ('a', g.randn(2, 3, 5)), ('b', g.randn(2, 5, 4))], lambda m, x, a, b, be=beta, al=alpha: torch.baddbmm(x, a, b, beta=be, alpha=al))
        case('addbmm beta=%s alpha=%s' % (beta, alpha), 'addbmm', ab, [('x', g.randn(3, 4)), ('a', g.randn(2, 3, 5)), ('b', g.randn(2, 5, 4))], lambda m, x, a, b, be=beta, al=alpha: torch.addbmm(x, a, b, beta=be, alpha=al))
        case('addmv beta=%s alpha=%s' % (beta, alpha), 'addmv', ab, [('x', g.randn(3)), ('a', g.randn(3, 5)), ('b', g.randn(5))], lambda m, x, a, b, be=beta, al=alpha: torch.addmv(x, a, b, beta=be, alpha=al))
        case('addr beta=%s alpha=%s' % (beta, alpha), 'addr', ab, [('x', g.randn(3, 4)), ('a', g.randn(3)), ('b', g.randn(4))], lambda m, x, a, b, be=beta, al=alpha: torch.addr(x, a, b, beta=be, alpha=al))
    nanx = T([[NAN, INF, 1.0], [-INF, 2.0, NAN]])
    for op, fn, a, b in [('addmm', torch.addmm, g.randn(2, 4), g.randn(4, 3)), ('addr', torch.addr, g.randn(2), g.randn(3))]:
        case('%s beta=0 ignores NaN and inf' % op, op, {'beta': 0, 'alpha': 1}, [('x', nanx), ('a', a), ('b', b)], lambda m, x, a, b, f=fn: f(x, a, b, beta=0), grad=['a', 'b'])
        case('%s beta=1 spreads NaN' % op, op, {'beta': 1, 'alpha': 1}, [('x', nanx), ('a', a), ('b', b)], lambda m, x, a, b, f=fn: f(x, a, b), grad=['a', 'b'])
    case('addmm empty inner dim', 'addmm', {'beta': 2, 'alpha': 1}, [('x', g.randn(2, 3)), ('a', torch.zeros(2, 0)), ('b', torch.zeros(0, 3))], lambda m, x, a, b: torch.addmm(x, a, b, beta=2))
    case('addbmm empty batch', 'addbmm', {'beta': 1, 'alpha': 1}, [('x', g.randn(2, 3)), ('a', torch.zeros(0, 2, 4)), ('b', torch.zeros(0, 4, 3))], lambda m, x, a, b: torch.addbmm(x, a, b))

    # ---- cross, cdist, trace, kron, rot90, flips, movedim ----
    case('cross last dim', 'cross', {'dim': -1}, [('a', g.randn(4, 3)), ('b', g.randn(4, 3))], lambda m, a, b: torch.linalg.cross(a, b))
    case('cross dim=0 broadcast', 'cross', {'dim': 0}, [('a', g.randn(3, 1, 2)), ('b', g.randn(3, 4, 1))], lambda m, a, b: torch.linalg.cross(a, b, dim=0))
    case('cross dim=1 of 3', 'cross', {'dim': 1}, [('a', g.randn(2, 3, 3)), ('b', g.randn(2, 3, 3))], lambda m, a, b: torch.linalg.cross(a, b, dim=1))
    case('cross non-finite', 'cross', {'dim': -1}, [('a', T([[1.0, 0.0, 0.0], [INF, 1.0, 0.0]])), ('b', T([[0.0, 1.0, 0.0], [1.0, NAN, 2.0]]))], lambda m, a, b: torch.linalg.cross(a, b), grad=[])
    x1, x2 = g.randn(5, 3), g.randn(4, 3)
    dup = torch.cat([x1[:2], g.randn(2, 3)])  # rows 0 and 1 equal x1's: zero distances
    for p in [2.0, 1.0, INF, 3.0, 0.5, 0.0]:
        case('cdist p=%s' % p, 'cdist', {'p': 'inf' if p == INF else p}, [('x1', x1), ('x2', x2)], lambda m, a, b, q=p: torch.cdist(a, b, q))
        case('cdist p=%s zero distances' % p, 'cdist', {'p': 'inf' if p == INF else p}, [('x1', x1), ('x2', dup)], lambda m, a, b, q=p: torch.cdist(a, b, q))
    case('cdist p=inf ties', 'cdist', {'p': 'inf'}, [('x1', T([[0.0, 0.0], [2.0, 0.0]])), ('x2', T([[-1.0, -1.0], [1.0, 3.0]]))], lambda m, a, b: torch.cdist(a, b, INF))
    case('cdist batched broadcast', 'cdist', {'p': 2.0}, [('x1', g.randn(2, 1, 3, 4)), ('x2', g.randn(3, 5, 4))], lambda m, a, b: torch.cdist(a, b))
    case('cdist empty rows', 'cdist', {'p': 2.0}, [('x1', torch.zeros(0, 3)), ('x2', g.randn(2, 3))], lambda m, a, b: torch.cdist(a, b))
    case('cdist equal rows share a coordinate', 'cdist', {'p': 2.0}, [('x1', T([[1.0, 2.0], [0.0, 0.0]])), ('x2', T([[1.0, 5.0], [3.0, 2.0]]))], lambda m, a, b: torch.cdist(a, b))
    case('trace square', 'trace', {}, [('x', g.randn(4, 4))], lambda m, x: torch.trace(x))
    case('trace wide', 'trace', {}, [('x', g.randn(2, 5))], lambda m, x: torch.trace(x))
    case('trace tall', 'trace', {}, [('x', g.randn(5, 3))], lambda m, x: torch.trace(x))
    case('trace empty', 'trace', {}, [('x', torch.zeros(0, 3))], lambda m, x: torch.trace(x))
    case('trace int', 'trace_int', {}, [('x', T([[1, 2], [3, 4]]))], lambda m, x: torch.trace(x))
    case('kron 2-D', 'kron', {}, [('a', g.randn(2, 3)), ('b', g.randn(3, 2))], lambda m, a, b: torch.kron(a, b))
    case('kron ranks differ', 'kron', {}, [('a', g.randn(2)), ('b', g.randn(2, 3))], lambda m, a, b: torch.kron(a, b))
    case('kron 3-D by 1-D', 'kron', {}, [('a', g.randn(2, 1, 2)), ('b', g.randn(3))], lambda m, a, b: torch.kron(a, b))
    x234 = g.randn(2, 3, 4)
    for k, dims in [(1, [0, 1]), (2, [0, 1]), (3, [0, 1]), (-1, [0, 1]), (5, [1, 2]), (0, [0, 2]), (1, [-1, 0]), (-3, [2, -2])]:
        case('rot90 k=%d dims=%s' % (k, dims), 'rot90', {'k': k, 'dims': dims}, [('x', x234)], lambda m, x, kk=k, d=dims: torch.rot90(x, kk, d))
    case('fliplr', 'fliplr', {}, [('x', x234)], lambda m, x: torch.fliplr(x))
    case('flipud', 'flipud', {}, [('x', x234)], lambda m, x: torch.flipud(x))
    case('flipud 1-D', 'flipud', {}, [('x', g.randn(5))], lambda m, x: torch.flipud(x))
    for src, dst in [(0, 2), (-1, 0), ([0, 1], [2, 0]), ([2], [-3]), ([0, 1, 2], [1, 2, 0])]:
        case('movedim %s -> %s' % (src, dst), 'movedim', {'source': src, 'destination': dst}, [('x', x234)], lambda m, x, s=src, d=dst: torch.movedim(x, s, d))
    case('swapaxes 0, -1', 'swapaxes', {'a': 0, 'b': -1}, [('x', x234)], lambda m, x: torch.swapaxes(x, 0, -1))

    # ---- searching, counting, grids ----
    bounds = T([-1.0, 0.0, 0.0, 2.5, INF])
    vals = T([[-INF, -1.0, -0.5, 0.0], [1.0, 2.5, 3.0, INF], [NAN, -2.0, 0.0, 100.0]])
    for right in [False, True]:
        case('searchsorted 1-D right=%s' % right, 'searchsorted', {'right': right}, [('s', bounds), ('v', vals)], lambda m, s, v, r=right: torch.searchsorted(s, v, right=r))
        case('bucketize right=%s' % right, 'bucketize', {'right': right}, [('v', vals), ('s', bounds)], lambda m, v, s, r=right: torch.bucketize(v, s, right=r))
    case("searchsorted side='right'", 'searchsorted', {'side': 'right'}, [('s', bounds), ('v', vals)], lambda m, s, v: torch.searchsorted(s, v, side='right'))
    sorted2 = T([[0.0, 1.0, 1.0, 3.0], [-2.0, -2.0, 5.0, 7.0]])
    vals2 = T([[1.0, -1.0, 3.0], [-2.0, 6.0, 8.0]])
    for right in [False, True]:
        case('searchsorted 2-D right=%s' % right, 'searchsorted', {'right': right}, [('s', sorted2), ('v', vals2)], lambda m, s, v, r=right: torch.searchsorted(s, v, right=r))
    case('searchsorted empty sequence', 'searchsorted', {'right': False}, [('s', torch.zeros(0)), ('v', T([1.0, NAN]))], lambda m, s, v: torch.searchsorted(s, v))
    case('searchsorted empty values', 'searchsorted', {'right': False}, [('s', bounds), ('v', torch.zeros(0))], lambda m, s, v: torch.searchsorted(s, v))
    case('searchsorted int', 'searchsorted_int', {'right': True}, [('s', T([1, 3, 3, 7])), ('v', T([0, 3, 4, 9]))], lambda m, s, v: torch.searchsorted(s, v, right=True))
    case('searchsorted scalar value', 'searchsorted_scalar', {'value': 0.0, 'right': False}, [('s', bounds)], lambda m, s: torch.searchsorted(s, torch.tensor(0.0)))
    hx = T([-1.0, 0.0, 0.25, 0.5, 0.999, 1.0, 1.5, 2.0, NAN, INF, -INF, 1.0, 0.5])
    for bins, lo, hi in [(4, 0.0, 1.0), (3, -1.0, 2.0), (5, 0.0, 2.0), (1, 0.0, 1.0), (7, -0.3, 1.7)]:
        case('histc bins=%d [%s, %s]' % (bins, lo, hi), 'histc', {'bins': bins, 'min': lo, 'max': hi}, [('x', hx)], lambda m, x, b=bins, l=lo, h=hi: torch.histc(x, b, l, h), grad=[])
    hr = g.randn(50)
    case('histc data range', 'histc', {'bins': 10, 'min': 0, 'max': 0}, [('x', hr)], lambda m, x: torch.histc(x, 10), grad=[])
    case('histc one value', 'histc', {'bins': 4, 'min': 0, 'max': 0}, [('x', T([3.0, 3.0]))], lambda m, x: torch.histc(x, 4), grad=[])
    case('histc empty', 'histc', {'bins': 3, 'min': 0, 'max': 1}, [('x', torch.zeros(0))], lambda m, x: torch.histc(x, 3, 0, 1), grad=[])
    case('histc 2-D default bins', 'histc', {'bins': 100, 'min': -2, 'max': 2}, [('x', g.randn(4, 5))], lambda m, x: torch.histc(x, min=-2, max=2), grad=[])
    for idx in ['ij', 'xy']:
        case('meshgrid 3 %s' % idx, 'meshgrid', {'indexing': idx}, [('a', g.randn(2)), ('b', g.randn(3)), ('c', g.randn(4))], lambda m, a, b, c, i=idx: torch.meshgrid(a, b, c, indexing=i))
        case('meshgrid 2 with a scalar %s' % idx, 'meshgrid', {'indexing': idx}, [('a', T(1.5)), ('b', g.randn(3))], lambda m, a, b, i=idx: torch.meshgrid(a, b, indexing=i))
    case('meshgrid 1 xy', 'meshgrid', {'indexing': 'xy'}, [('a', g.randn(3))], lambda m, a: torch.meshgrid(a, indexing='xy'))
    case('cartesian_prod 2', 'cartesian_prod', {}, [('a', g.randn(2)), ('b', g.randn(3))], lambda m, a, b: torch.cartesian_prod(a, b))
    case('cartesian_prod 3 with an empty', 'cartesian_prod', {}, [('a', g.randn(2)), ('b', torch.zeros(0)), ('c', g.randn(2))], lambda m, a, b, c: torch.cartesian_prod(a, b, c))
    case('cartesian_prod 1', 'cartesian_prod', {}, [('a', g.randn(3))], lambda m, a: torch.cartesian_prod(a))
    for r, c, off in [(3, 3, 0), (3, 4, 1), (4, 3, -1), (3, 5, -2), (2, 2, 5), (2, 2, -5), (0, 3, 0), (4, 1, 0)]:
        case('triu_indices %d %d %d' % (r, c, off), 'triu_indices', {'row': r, 'col': c, 'offset': off}, [], lambda m, rr=r, cc=c, o=off: torch.triu_indices(rr, cc, o))
        case('tril_indices %d %d %d' % (r, c, off), 'tril_indices', {'row': r, 'col': c, 'offset': off}, [], lambda m, rr=r, cc=c, o=off: torch.tril_indices(rr, cc, o))

    def vander(x, n, inc):
        # torch 1.13's vander backward fails (an in-place cumprod): the powers written out, k x^(k-1) their gradient.
        n = x.shape[0] if n is None else n
        cols = [torch.ones_like(x) if k == 0 else x ** k for k in range(n)]
        out = torch.stack(cols, 1) if n > 0 else x.new_zeros(x.shape[0], 0)
        return out if inc else out.flip(1)

    for n, inc in [(None, False), (None, True), (2, False), (5, True), (0, False), (1, True)]:
        case('vander N=%s increasing=%s' % (n, inc), 'vander', {'N': n, 'increasing': inc}, [('x', T([2.0, 0.0, -1.5, 0.5]))], lambda m, x, nn=n, i=inc: vander(x, nn, i))
    case('vander int', 'vander_int', {'N': 3, 'increasing': False}, [('x', T([2, -3, 0]))], lambda m, x: torch.vander(x, 3))
    case('cdist p=2 large (torch multiplies matrices)', 'cdist', {'p': 2.0}, [('x1', g.randn(30, 4)), ('x2', g.randn(27, 4))], lambda m, a, b: torch.cdist(a, b), tol={'rtol': 1e-4, 'atol': 1e-5})
    case('contiguous of a transpose', 'contiguous', {}, [('x', g.randn(3, 4))], lambda m, x: x.t().contiguous())

    # ---- elementwise ----
    ew = T([-3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 2.0, 30.0, INF, -INF, NAN])
    ew2 = T([1.0, -2.0, -0.5, 0.0, -0.0, 3.0, 1.0, -INF, 29.0, INF, 0.0, 1.0])
    case('logaddexp2', 'logaddexp2', {}, [('a', g.randn(3, 4)), ('b', g.randn(4))], lambda m, a, b: torch.logaddexp2(a, b))
    case('logaddexp2 non-finite', 'logaddexp2', {}, [('a', ew), ('b', ew2)], lambda m, a, b: torch.logaddexp2(a, b), grad=[])
    case('sinc', 'sinc', {}, [('x', g.randn(10, scale=2.0))], lambda m, x: torch.sinc(x))
    case('sinc edges', 'sinc', {}, [('x', T([0.0, -0.0, 1.0, -2.0, 0.5, 1e-3, INF, NAN]))], lambda m, x: torch.sinc(x), grad=[])
    case('sinc gradient at 0', 'sinc', {}, [('x', T([0.0, 1.0, -0.5]))], lambda m, x: torch.sinc(x))
    case('deg2rad', 'deg2rad', {}, [('x', T([0.0, 90.0, -180.0, 360.0, 1e-3, INF, NAN]))], lambda m, x: torch.deg2rad(x))
    case('rad2deg', 'rad2deg', {}, [('x', T([0.0, 3.14159265, -1.0, 1e-3, INF, NAN]))], lambda m, x: torch.rad2deg(x))
    case('heaviside tensor values', 'heaviside', {}, [('x', ew), ('v', T([0.5]))], lambda m, x, v: torch.heaviside(x, v), grad=[])
    case('heaviside broadcast values', 'heaviside', {}, [('x', T([[0.0], [-1.0]])), ('v', T([0.25, 0.75, NAN]))], lambda m, x, v: torch.heaviside(x, v), grad=[])
    case('heaviside int', 'heaviside_int', {}, [('x', T([-2, 0, 3])), ('v', T([7]))], lambda m, x, v: torch.heaviside(x, v))
    case('nan_to_num defaults', 'nan_to_num', {}, [('x', ew)], lambda m, x: torch.nan_to_num(x))
    case('nan_to_num values', 'nan_to_num', {'nan': 1.5, 'posinf': 100.0, 'neginf': -7.0}, [('x', ew)], lambda m, x: torch.nan_to_num(x, 1.5, 100.0, -7.0))
    case('nan_to_num posinf only', 'nan_to_num', {'nan': 0.0, 'posinf': 9.0}, [('x', ew)], lambda m, x: torch.nan_to_num(x, posinf=9.0))
    case('signbit', 'signbit', {}, [('x', ew)], lambda m, x: torch.signbit(x))
    case('signbit int', 'signbit_int', {}, [('x', T([-3, 0, 4]))], lambda m, x: torch.signbit(x))
    case('isin', 'isin', {'invert': False}, [('x', ew), ('t', T([[1.0, -0.0], [NAN, INF]]))], lambda m, x, t: torch.isin(x, t))
    case('isin invert', 'isin', {'invert': True}, [('x', T([[1.0, 2.0], [3.0, 4.0]])), ('t', T([2.0, 4.0, 9.0]))], lambda m, x, t: torch.isin(x, t, invert=True))
    case('isin empty test', 'isin', {'invert': False}, [('x', T([1.0, 2.0])), ('t', torch.zeros(0))], lambda m, x, t: torch.isin(x, t))
    case('isin int', 'isin_int', {}, [('x', T([[1, 5], [3, 3]])), ('t', T([3, 1]))], lambda m, x, t: torch.isin(x, t))
    ca = T([1.0, 1.0, 1.0, 0.0, INF, INF, -INF, NAN, NAN, 1e-9, 100.0, 100.0])
    cb = T([1.0, 1.00001, 1.0001, 1e-8, INF, -INF, 5.0, NAN, 1.0, 0.0, 100.001, 100.01])
    for rtol, atol, en in [(1e-5, 1e-8, False), (1e-5, 1e-8, True), (1e-3, 0.0, False), (0.0, 1e-3, False)]:
        case('isclose rtol=%s atol=%s equal_nan=%s' % (rtol, atol, en), 'isclose', {'rtol': rtol, 'atol': atol, 'equal_nan': en}, [('a', ca), ('b', cb)], lambda m, a, b, r=rtol, at=atol, e=en: torch.isclose(a, b, r, at, e))
    case('isclose broadcast', 'isclose', {'rtol': 1e-5, 'atol': 1e-8, 'equal_nan': False}, [('a', T([[1.0], [2.0]])), ('b', T([1.0, 2.0, 2.00000001]))], lambda m, a, b: torch.isclose(a, b))
    for name, a, b, en in [('true', T([1.0, 2.0]), T([1.0, 2.000001]), False), ('false', T([1.0, 2.0]), T([1.0, 2.1]), False), ('NaN', T([NAN]), T([NAN]), False), ('NaN equal_nan', T([NAN]), T([NAN]), True), ('empty', torch.zeros(0), torch.zeros(0), False)]:
        case('allclose %s' % name, 'allclose', {'equal_nan': en}, [('a', a), ('b', b)], lambda m, a, b, e=en: torch.tensor(float(torch.allclose(a, b, equal_nan=e))), grad=[])
    return g
