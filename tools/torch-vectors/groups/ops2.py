"""Reduction, indexing and shape ops added after the core set (test/torch-vectors/ops2.test.ts):
tile, repeat_interleave, unbind, diagonal, diag, diag_embed, outer; nansum, nanmean, count_nonzero,
median, nanmedian, mode, kthvalue, cummax, cummin, logcumsumexp, aminmax; index_add, scatter,
scatter_reduce, take, take_along_dim; nonzero, masked_select, unique. Edges: NaN, +-inf, ties,
empty dims, negative dims, keepdim; gradients where torch has them.
"""
import torch

NAN, INF = float('nan'), float('inf')


def make(gen):
    g = gen.Group('ops2', 1e-5, 1e-6, 'reductions, indexing and shape ops beyond the core set, at their edges')
    T = torch.tensor
    case = g.case

    # ---- shape ----
    x23 = g.randn(2, 3)
    for reps in [[2], [2, 3], [2, 1, 2], [0, 2], [1]]:
        case('tile %s' % reps, 'tile', {'dims': reps}, [('x', x23)], lambda m, x, r=reps: torch.tile(x, tuple(r)))
    for reps, dim in [(2, None), (3, 0), (2, 1), (2, -1), (0, 1), (1, 0)]:
        case('repeat_interleave %d dim=%s' % (reps, dim), 'repeat_interleave', {'repeats': reps, 'dim': dim}, [('x', x23)], lambda m, x, r=reps, d=dim: torch.repeat_interleave(x, r, d))
    case('repeat_interleave scalar', 'repeat_interleave', {'repeats': 3, 'dim': None}, [('x', T(1.5))], lambda m, x: torch.repeat_interleave(x, 3))
    case('repeat_interleave tensor dim=1', 'repeat_interleave_tensor', {'dim': 1}, [('x', x23), ('repeats', T([2, 0, 3]))], lambda m, x, r: torch.repeat_interleave(x, r, 1))
    case('repeat_interleave tensor dim=-2', 'repeat_interleave_tensor', {'dim': -2}, [('x', x23), ('repeats', T([0, 4]))], lambda m, x, r: torch.repeat_interleave(x, r, -2))
    case('repeat_interleave tensor one count', 'repeat_interleave_tensor', {'dim': 0}, [('x', x23), ('repeats', T([3]))], lambda m, x, r: torch.repeat_interleave(x, r, 0))
    case('repeat_interleave tensor flattened', 'repeat_interleave_tensor', {'dim': None}, [('x', x23), ('repeats', T([1, 0, 2, 1, 3, 0]))], lambda m, x, r: torch.repeat_interleave(x, r))
    x234 = g.randn(2, 3, 4)
    for dim in [0, 1, 2, -1]:
        case('unbind dim=%d' % dim, 'unbind', {'dim': dim}, [('x', x234)], lambda m, x, d=dim: torch.unbind(x, d))
    x35 = g.randn(3, 5)
    for off in [0, 1, 3, 4, 5, -1, -2, -3, -4]:
        case('diagonal 3x5 offset=%d' % off, 'diagonal', {'offset': off, 'dim1': 0, 'dim2': 1}, [('x', x35)], lambda m, x, o=off: torch.diagonal(x, o))
    for off, d1, d2 in [(0, 0, 2), (1, 2, 0), (-1, 1, 2), (0, -1, -3), (2, 1, 0)]:
        case('diagonal 2x3x4 offset=%d dims=%d,%d' % (off, d1, d2), 'diagonal', {'offset': off, 'dim1': d1, 'dim2': d2}, [('x', x234)], lambda m, x, o=off, a=d1, b=d2: torch.diagonal(x, o, a, b))
    for off in [0, 2, -1]:
        case('diag of a vector offset=%d' % off, 'diag', {'diagonal': off}, [('x', g.randn(4))], lambda m, x, o=off: torch.diag(x, o))
        case('diag of a matrix offset=%d' % off, 'diag', {'diagonal': off}, [('x', x35)], lambda m, x, o=off: torch.diag(x, o))
    case('diag of an empty vector offset=2', 'diag', {'diagonal': 2}, [('x', torch.zeros(0))], lambda m, x: torch.diag(x, 2), grad=[])
    case('diag non-finite', 'diag', {'diagonal': 0}, [('x', T([NAN, INF, -INF]))], lambda m, x: torch.diag(x))
    for off, d1, d2 in [(0, -2, -1), (1, -2, -1), (-2, -2, -1), (0, 0, 2), (1, -1, 0)]:
        case('diag_embed offset=%d dims=%d,%d' % (off, d1, d2), 'diag_embed', {'offset': off, 'dim1': d1, 'dim2': d2}, [('x', g.randn(2, 3))], lambda m, x, o=off, a=d1, b=d2: torch.diag_embed(x, o, a, b))
    case('outer', 'outer', {}, [('a', g.randn(3)), ('b', g.randn(4))], lambda m, a, b: torch.outer(a, b))
    case('outer non-finite', 'outer', {}, [('a', T([INF, 0.0, NAN])), ('b', T([1.0, -2.0]))], lambda m, a, b: torch.outer(a, b))

    # ---- reductions ----
    nanr = T([[1.0, NAN, 2.0, -INF], [NAN, NAN, NAN, NAN], [0.5, -1.0, INF, 3.0]])
    for dim, keep in [(None, False), (1, False), (0, True), (-1, True), ([0, 1], False)]:
        case('nansum dim=%s keepdim=%s' % (dim, keep), 'nansum', {'dim': dim, 'keepdim': keep}, [('x', nanr)], lambda m, x, d=dim, k=keep: torch.nansum(x) if d is None else torch.nansum(x, d, keepdim=k))
        case('nanmean dim=%s keepdim=%s' % (dim, keep), 'nanmean', {'dim': dim, 'keepdim': keep}, [('x', nanr)], lambda m, x, d=dim, k=keep: torch.nanmean(x) if d is None else torch.nanmean(x, d, keepdim=k))
    case('nansum empty dim', 'nansum', {'dim': 1, 'keepdim': False}, [('x', torch.zeros(2, 0))], lambda m, x: torch.nansum(x, 1))
    nz = T([[0.0, 1.0, -0.0, NAN], [INF, 0.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
    for dim in [None, 0, 1, -1, [0, 1]]:
        case('count_nonzero dim=%s' % dim, 'count_nonzero', {'dim': dim}, [('x', nz)], lambda m, x, d=dim: torch.count_nonzero(x, d))
    tie = T([[1.0, 3.0, 3.0, 2.0, 3.0, 1.0], [2.0, 2.0, 1.0, 1.0, 0.0, 0.0], [5.0, -1.0, INF, -INF, 0.5, 2.0], [1.0, NAN, 3.0, NAN, 0.0, 2.0]])
    for dim, keep in [(1, False), (-1, True), (0, False)]:
        case('median dim=%d keepdim=%s' % (dim, keep), 'median', {'dim': dim, 'keepdim': keep}, [('x', tie)], lambda m, x, d=dim, k=keep: tuple(torch.median(x, d, keepdim=k)))
    case('median even and odd lengths', 'median', {'dim': 1, 'keepdim': False}, [('x', g.randn(3, 7))], lambda m, x: tuple(torch.median(x, 1)))
    case('median all', 'median_all', {}, [('x', g.randn(3, 4))], lambda m, x: torch.median(x))
    case('median all with NaN', 'median_all', {}, [('x', tie)], lambda m, x: torch.median(x))
    case('median scalar', 'median', {'dim': 0, 'keepdim': False}, [('x', T(2.5))], lambda m, x: tuple(torch.median(x, 0)))
    nm = T([[1.0, NAN, 3.0, NAN, 0.0], [NAN, 2.0, 4.0, 1.0, NAN], [3.0, 1.0, 2.0, 5.0, 4.0]])
    case('nanmedian all', 'nanmedian_all', {}, [('x', nm)], lambda m, x: torch.nanmedian(x))
    case('nanmedian all ties', 'nanmedian_all', {}, [('x', T([[2.0, NAN, 2.0], [1.0, 2.0, 3.0]]))], lambda m, x: torch.nanmedian(x))
    case('nanmedian all NaN', 'nanmedian_all', {}, [('x', T([NAN, NAN, NAN]))], lambda m, x: torch.nanmedian(x))
    case('median all ties', 'median_all', {}, [('x', T([[2.0, 5.0, 2.0], [1.0, 2.0, 3.0]]))], lambda m, x: torch.median(x))
    case('median all of +inf ties', 'median_all', {}, [('x', T([INF, INF, INF, 1.0]))], lambda m, x: torch.median(x))
    case('nanmedian dim=1', 'nanmedian', {'dim': 1, 'keepdim': False}, [('x', nm)], lambda m, x: tuple(torch.nanmedian(x, 1)))
    case('nanmedian dim=0 keepdim', 'nanmedian', {'dim': 0, 'keepdim': True}, [('x', nm)], lambda m, x: tuple(torch.nanmedian(x, 0, keepdim=True)))
    md = T([[1.0, 3.0, 3.0, 2.0, 3.0, 1.0], [2.0, 2.0, 1.0, 1.0, 0.0, 0.0], [4.0, -1.0, 4.0, -1.0, 7.0, 7.0], [9.0, 8.0, 7.0, 6.0, 5.0, 4.0]])
    for dim, keep in [(1, False), (-1, True)]:
        case('mode dim=%d keepdim=%s' % (dim, keep), 'mode', {'dim': dim, 'keepdim': keep}, [('x', md)], lambda m, x, d=dim, k=keep: tuple(torch.mode(x, d, keepdim=k)))
    case('mode dim=0', 'mode', {'dim': 0, 'keepdim': False}, [('x', T([[1.0, 2.0], [1.0, 3.0], [2.0, 3.0]]))], lambda m, x: tuple(torch.mode(x, 0)))
    xk = T([[3.0, 1.0, NAN, 2.0, -INF, INF], [0.5, 0.5, 0.5, -2.0, 1.0, 0.0]])
    for k in [1, 2, 3, 5, 6]:
        case('kthvalue k=%d' % k, 'kthvalue', {'k': k, 'dim': 1, 'keepdim': False}, [('x', xk)], lambda m, x, k=k: tuple(torch.kthvalue(x, k, 1)))
    case('kthvalue dim=0 keepdim', 'kthvalue', {'k': 2, 'dim': 0, 'keepdim': True}, [('x', g.randn(4, 3))], lambda m, x: tuple(torch.kthvalue(x, 2, 0, keepdim=True)))
    cm = T([[1.0, 3.0, 3.0, NAN, 2.0, NAN, 5.0], [0.0, -1.0, -1.0, 2.0, -INF, INF, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]])
    for dim in [1, -1, 0]:
        case('cummax dim=%d' % dim, 'cummax', {'dim': dim}, [('x', cm)], lambda m, x, d=dim: tuple(torch.cummax(x, d)))
        case('cummin dim=%d' % dim, 'cummin', {'dim': dim}, [('x', cm)], lambda m, x, d=dim: tuple(torch.cummin(x, d)))
    case('cummax long line', 'cummax', {'dim': 0}, [('x', g.randn(37))], lambda m, x: tuple(torch.cummax(x, 0)))
    case('cummin rank 3', 'cummin', {'dim': 1}, [('x', g.randn(2, 9, 3))], lambda m, x: tuple(torch.cummin(x, 1)))
    case('cummax scalar', 'cummax', {'dim': 0}, [('x', T(1.5))], lambda m, x: tuple(torch.cummax(x, 0)))
    case('cummax empty dim', 'cummax', {'dim': 1}, [('x', torch.zeros(2, 0))], lambda m, x: tuple(torch.cummax(x, 1)))
    case('logcumsumexp empty dim', 'logcumsumexp', {'dim': 0}, [('x', torch.zeros(0, 3))], lambda m, x: torch.logcumsumexp(x, 0))
    for dim in [0, 1, -1]:
        case('logcumsumexp dim=%d' % dim, 'logcumsumexp', {'dim': dim}, [('x', g.randn(4, 6, scale=3.0))], lambda m, x, d=dim: torch.logcumsumexp(x, d))
    case('logcumsumexp wide range', 'logcumsumexp', {'dim': 1}, [('x', T([[-200.0, 0.0, 100.0, -100.0, 88.0, 90.0], [1e3, 1e3, -1e3, 0.0, 1e3, 5.0]]))], lambda m, x: torch.logcumsumexp(x, 1),
         tol={'rtol': 2e-3, 'atol': 1e-5})  # the gradient exp(x - out) at |x| ~ 1e3 carries 1e3 float32 epsilons (torch's own is 2.6e-5 from its float64)
    case('logcumsumexp non-finite', 'logcumsumexp', {'dim': 1}, [('x', T([[1.0, INF, 2.0, 3.0], [NAN, 1.0, 2.0, 3.0], [0.0, -INF, 1.0, 2.0]]))], lambda m, x: torch.logcumsumexp(x, 1))
    case('logcumsumexp long line', 'logcumsumexp', {'dim': 0}, [('x', g.randn(100))], lambda m, x: torch.logcumsumexp(x, 0), tol={'rtol': 1e-5, 'atol': 1e-5})
    for dim, keep in [(None, False), (1, False), (0, True)]:
        case('aminmax dim=%s keepdim=%s' % (dim, keep), 'aminmax', {'dim': dim, 'keepdim': keep}, [('x', g.randn(3, 4))], lambda m, x, d=dim, k=keep: tuple(torch.aminmax(x, dim=d, keepdim=k)), grad=[])  # torch 1.13 has no aminmax derivative

    # ---- indexing ----
    xg = g.randn(3, 4)
    for dim, idx, src in [(0, [2, 0, 2], (3, 4)), (1, [3, 3, 0], (3, 3)), (-1, [1], (3, 1)), (0, [], (0, 4))]:
        case('index_add dim=%d index=%s' % (dim, idx), 'index_add', {'dim': dim, 'alpha': 1}, [('x', xg), ('index', T(idx, dtype=torch.int64)), ('src', g.randn(*src))],
             lambda m, x, i, s, d=dim: torch.index_add(x, d, i, s))
    case('index_add alpha=-2.5', 'index_add', {'dim': 0, 'alpha': -2.5}, [('x', xg), ('index', T([1, 1])), ('src', g.randn(2, 4))], lambda m, x, i, s: torch.index_add(x, 0, i, s, alpha=-2.5))
    case('scatter dim=0', 'scatter', {'dim': 0}, [('x', xg), ('index', T([[2, 0, 1, 0], [0, 2, 0, 1]])), ('src', g.randn(2, 4))], lambda m, x, i, s: torch.scatter(x, 0, i, s))
    case('scatter dim=1 src larger', 'scatter', {'dim': 1}, [('x', xg), ('index', T([[3, 0], [1, 2], [0, 3]])), ('src', g.randn(3, 3))], lambda m, x, i, s: torch.scatter(x, 1, i, s), grad=['x'])  # torch 1.13's backward for src fails on this shape
    case('scatter dim=-1 index smaller', 'scatter', {'dim': -1}, [('x', xg), ('index', T([[2], [0]])), ('src', g.randn(2, 1))], lambda m, x, i, s: torch.scatter(x, -1, i, s))
    case('scatter non-finite src', 'scatter', {'dim': 1}, [('x', xg), ('index', T([[0, 1], [2, 3], [3, 0]])), ('src', T([[NAN, INF], [-INF, 1.0], [2.0, NAN]]))], lambda m, x, i, s: torch.scatter(x, 1, i, s))
    # Repeated indices: torch leaves the winner unspecified (its serial CPU kernel writes in order: the last wins, as ours); the src gradient is dy gathered for each
    case('scatter duplicates', 'scatter', {'dim': 1}, [('x', xg), ('index', T([[1, 1, 1], [0, 3, 0], [2, 2, 3]])), ('src', g.randn(3, 3))], lambda m, x, i, s: torch.scatter(x, 1, i, s))
    case('scatter duplicates dim=0', 'scatter', {'dim': 0}, [('x', xg), ('index', T([[0, 2, 2, 1], [0, 2, 1, 1], [1, 2, 1, 0]])), ('src', g.randn(3, 4))], lambda m, x, i, s: torch.scatter(x, 0, i, s))
    case('scatter value', 'scatter_value', {'dim': 1, 'value': -7.5}, [('x', xg), ('index', T([[0, 2], [1, 3], [3, 1]]))], lambda m, x, i: torch.scatter(x, 1, i, -7.5))
    gi = T([[3, 0, 3], [1, 1, 1], [0, 3, 2]])
    for red in ['sum', 'prod', 'mean', 'amax', 'amin']:
        for inc in [True, False]:
            case('scatter_reduce %s include_self=%s' % (red, inc), 'scatter_reduce', {'dim': 1, 'reduce': red, 'include_self': inc}, [('x', xg), ('index', gi), ('src', g.randn(3, 3))],
                 lambda m, x, i, s, r=red, c=inc: torch.scatter_reduce(x, 1, i, s, r, include_self=c))
    tsrc = T([[1.0, 1.0, 2.0], [0.5, 0.5, 0.5], [0.0, 0.0, -1.0]])
    txg = T([[1.0, 0.0, 0.5, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]])
    for red in ['amax', 'amin', 'prod']:
        for inc in [True, False]:
            case('scatter_reduce %s ties and zeros include_self=%s' % (red, inc), 'scatter_reduce', {'dim': 1, 'reduce': red, 'include_self': inc}, [('x', txg), ('index', gi), ('src', tsrc)],
                 lambda m, x, i, s, r=red, c=inc: torch.scatter_reduce(x, 1, i, s, r, include_self=c))
    case('scatter_reduce amax dim=0 index smaller', 'scatter_reduce', {'dim': 0, 'reduce': 'amax', 'include_self': True}, [('x', xg), ('index', T([[2, 0], [2, 2]])), ('src', g.randn(2, 2))],
         lambda m, x, i, s: torch.scatter_reduce(x, 0, i, s, 'amax'))
    case('scatter_reduce mean dim=0 rank 3', 'scatter_reduce', {'dim': 0, 'reduce': 'mean', 'include_self': False}, [('x', g.randn(3, 2, 2)), ('index', T([[[0, 2], [2, 2]], [[0, 0], [1, 2]]])), ('src', g.randn(2, 2, 2))],
         lambda m, x, i, s: torch.scatter_reduce(x, 0, i, s, 'mean', include_self=False))
    # int32 (int64 in torch): the same compositions on integers (fills at the int32 extremes)
    xi = T([[3, -1, 7, 3, 0, -2147483647], [5, 5, 2, 2147483647, 5, -3]])
    case('int median', 'int_op', {'fn': 'median'}, [('x', xi)], lambda m, x: tuple(torch.median(x, 1)))
    case('int kthvalue', 'int_op', {'fn': 'kthvalue'}, [('x', xi)], lambda m, x: tuple(torch.kthvalue(x, 4, 1)))
    case('int mode', 'int_op', {'fn': 'mode'}, [('x', xi)], lambda m, x: tuple(torch.mode(x, 1)))
    case('int cummax', 'int_op', {'fn': 'cummax'}, [('x', xi)], lambda m, x: tuple(torch.cummax(x, 1)))
    case('int cummin', 'int_op', {'fn': 'cummin'}, [('x', xi)], lambda m, x: tuple(torch.cummin(x, 1)))
    case('int nansum', 'int_op', {'fn': 'nansum'}, [('x', xi[:, :3].clone())], lambda m, x: torch.nansum(x, 1))
    ii = T([[1, 1, 0], [2, 0, 2]])
    for red in ['sum', 'prod', 'mean', 'amax', 'amin']:
        case('int scatter_reduce %s' % red, 'int_scatter_reduce', {'reduce': red}, [('x', xi[:, :3].clone()), ('index', ii), ('src', T([[4, -9, 2], [7, 7, -5]]))],
             lambda m, x, i, s, r=red: torch.scatter_reduce(x, 1, i, s, r, include_self=True))
    case('int index_add and scatter', 'int_index', {}, [('x', xi[:, :3].clone()), ('index', T([2, 0])), ('src', T([[4, -9], [7, 7]]))],
         lambda m, x, i, s: (torch.index_add(x, 1, i, s), torch.scatter(x, 1, i.expand(2, 2), s)))
    case('take', 'take', {}, [('x', xg), ('index', T([[0, 11], [5, 5], [-1, -12]]))], lambda m, x, i: torch.take(x, i))
    case('take scalar index', 'take', {}, [('x', xg), ('index', T(7))], lambda m, x, i: torch.take(x, i))
    case('take_along_dim dim=1', 'take_along_dim', {'dim': 1}, [('x', xg), ('index', torch.argsort(xg, 1)[:, :2].clone())], lambda m, x, i: torch.take_along_dim(x, i, 1))
    case('take_along_dim broadcast', 'take_along_dim', {'dim': 0}, [('x', g.randn(3, 1)), ('index', T([[2, 0, 1, 1]]))], lambda m, x, i: torch.take_along_dim(x, i, 0))
    case('take_along_dim no dim', 'take_along_dim', {'dim': None}, [('x', xg), ('index', T([11, 0, 3]))], lambda m, x, i: torch.take_along_dim(x, i))

    # ---- data-dependent shapes ----
    case('nonzero', 'nonzero', {}, [('x', nz)], lambda m, x: torch.nonzero(x))
    case('nonzero none', 'nonzero', {}, [('x', torch.zeros(2, 3))], lambda m, x: torch.nonzero(x))
    case('nonzero rank 3', 'nonzero', {}, [('x', (g.randn(2, 3, 4) > 0.5).float())], lambda m, x: torch.nonzero(x))
    case('nonzero as_tuple', 'nonzero_tuple', {}, [('x', nz)], lambda m, x: torch.nonzero(x, as_tuple=True))
    cond = g.randn(3, 4) > 0
    case('masked_select', 'masked_select', {}, [('x', xg), ('mask', cond)], lambda m, x, mk: torch.masked_select(x, mk))
    case('masked_select broadcast mask', 'masked_select', {}, [('x', xg), ('mask', T([True, False, True, True]))], lambda m, x, mk: torch.masked_select(x, mk))
    case('masked_select broadcast x', 'masked_select', {}, [('x', g.randn(4)), ('mask', cond)], lambda m, x, mk: torch.masked_select(x, mk))
    case('masked_select none', 'masked_select', {}, [('x', xg), ('mask', torch.zeros(3, 4, dtype=torch.bool))], lambda m, x, mk: torch.masked_select(x, mk))
    uq = T([[3.0, 1.0, 2.0], [3.0, -0.0, 1.0], [INF, -INF, 0.0]])
    case('unique', 'unique', {'return_inverse': True, 'return_counts': True}, [('x', uq)], lambda m, x: torch.unique(x, return_inverse=True, return_counts=True), grad=[])
    case('unique values only', 'unique', {'return_inverse': False, 'return_counts': False}, [('x', T([5.0, 5.0, 5.0]))], lambda m, x: torch.unique(x), grad=[])
    ud = T([[1.0, 2.0, 1.0, 0.0], [3.0, 0.0, 3.0, 0.0], [1.0, 2.0, 1.0, 0.0]])
    case('unique dim=0', 'unique', {'dim': 0, 'return_inverse': True, 'return_counts': True}, [('x', ud)], lambda m, x: torch.unique(x, dim=0, return_inverse=True, return_counts=True), grad=[])
    case('unique dim=1', 'unique', {'dim': 1, 'return_inverse': True, 'return_counts': True}, [('x', ud)], lambda m, x: torch.unique(x, dim=1, return_inverse=True, return_counts=True), grad=[])
    case('unique int', 'int_unique', {'return_inverse': True, 'return_counts': True}, [('x', T([4, -1, 4, 7, -1, 0]))], lambda m, x: torch.unique(x, return_inverse=True, return_counts=True))
    return g
