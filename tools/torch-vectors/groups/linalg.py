"""The 'linalg' group: torch.linalg.solve_triangular, cholesky, solve, inv, det, slogdet, qr,
eigh, eigvalsh, svd, svdvals, lstsq, pinv, matrix_rank, matrix_norm (every ord), cond and trace
on well-conditioned float32 matrices: n = 1, 2, 3, 5, 8, batches and
broadcast batch dims, upper / lower, left=False, unitriangular, pivoting (a zero on the
diagonal), negative determinants; gradients wherever torch gives them. Triangular matrices are
random with a diagonal of 1.5-2.5 in magnitude; SPD ones A Aᵀ + n I; general ones random plus 2 I
(some with a zero on the diagonal so that pivoting is needed)."""
import torch


def make(gen):
    g = gen.Group('linalg', 1e-4, 1e-5, 'torch.linalg basics: solve_triangular, cholesky, solve, inv, det, slogdet, qr, eigh, eigvalsh, svd, svdvals, lstsq, pinv, matrix_rank, matrix_norm, cond, trace')
    loose = {'rtol': 1e-3, 'atol': 1e-4}

    def tri(*shape, upper=False):
        n = shape[-1]
        x = g.randn(*shape) * 0.5
        d = g.rand(*shape[:-1], lo=1.5, hi=2.5) * torch.where(g.rand(*shape[:-1]) < 0.3, -1.0, 1.0)
        x = x - torch.diag_embed(torch.diagonal(x, 0, -2, -1)) + torch.diag_embed(d)
        return x  # the other triangle is kept: the op must not read it

    def spd(*shape):
        n = shape[-1]
        x = g.randn(*shape)
        return x @ x.transpose(-2, -1) + n * torch.eye(n)

    def general(*shape, zero_diag=False):
        n = shape[-1]
        x = g.randn(*shape) + 2 * torch.eye(n) * torch.where(g.rand(*shape[:-1], 1) < 0.5, -1.0, 1.0)
        if zero_diag:
            x[..., 0, 0] = 0.0
        return x

    st = torch.linalg.solve_triangular
    for n in [1, 2, 3, 5, 8]:
        for upper in [False, True]:
            g.case('solve_triangular n=%d upper=%s' % (n, upper), 'solve_triangular', {'upper': upper}, [('a', tri(n, n)), ('b', g.randn(n, 3))],
                   lambda m, a, b, upper=upper: st(a, b, upper=upper))
    for upper in [False, True]:
        g.case('solve_triangular batch [2,3] upper=%s' % upper, 'solve_triangular', {'upper': upper}, [('a', tri(2, 3, 4, 4)), ('b', g.randn(2, 3, 4, 2))],
               lambda m, a, b, upper=upper: st(a, b, upper=upper))
        g.case('solve_triangular left=False upper=%s' % upper, 'solve_triangular', {'upper': upper, 'left': False}, [('a', tri(2, 5, 5)), ('b', g.randn(2, 3, 5))],
               lambda m, a, b, upper=upper: st(a, b, upper=upper, left=False))
        g.case('solve_triangular unitriangular upper=%s' % upper, 'solve_triangular', {'upper': upper, 'unitriangular': True}, [('a', tri(5, 5)), ('b', g.randn(5, 2))],
               lambda m, a, b, upper=upper: st(a, b, upper=upper, unitriangular=True))
        g.case('solve_triangular left=False unitriangular upper=%s' % upper, 'solve_triangular', {'upper': upper, 'left': False, 'unitriangular': True},
               [('a', tri(3, 3)), ('b', g.randn(4, 3))], lambda m, a, b, upper=upper: st(a, b, upper=upper, left=False, unitriangular=True))
    g.case('solve_triangular broadcast batch [3,1]x[4]', 'solve_triangular', {'upper': False}, [('a', tri(3, 1, 3, 3)), ('b', g.randn(4, 3, 2))],
           lambda m, a, b: st(a, b, upper=False))
    g.case('solve_triangular broadcast A unbatched', 'solve_triangular', {'upper': True}, [('a', tri(4, 4)), ('b', g.randn(2, 4, 1))],
           lambda m, a, b: st(a, b, upper=True))

    for n in [1, 2, 3, 5, 8]:
        for upper in [False, True]:
            g.case('cholesky n=%d upper=%s' % (n, upper), 'cholesky', {'upper': upper}, [('a', spd(n, n))],
                   lambda m, a, upper=upper: torch.linalg.cholesky(a, upper=upper), tol=loose if n >= 5 else None)
    g.case('cholesky batch [2,3]', 'cholesky', {'upper': False}, [('a', spd(2, 3, 4, 4))], lambda m, a: torch.linalg.cholesky(a))
    # Only the lower triangle is read (the upper one is garbage here); the gradient is torch's symmetric one.
    junk = spd(4, 4) + torch.triu(g.randn(4, 4), 1)
    g.case('cholesky reads the lower triangle', 'cholesky', {'upper': False}, [('a', junk)], lambda m, a: torch.linalg.cholesky(a))

    for n in [1, 2, 3, 5, 8]:
        g.case('solve n=%d' % n, 'solve', {}, [('a', general(n, n)), ('b', g.randn(n, 2))], lambda m, a, b: torch.linalg.solve(a, b), tol=loose if n >= 5 else None)
        g.case('inv n=%d' % n, 'inv', {}, [('a', general(n, n))], lambda m, a: torch.linalg.inv(a), tol=loose if n >= 5 else None)
        g.case('det n=%d' % n, 'det', {}, [('a', general(n, n))], lambda m, a: torch.linalg.det(a), tol=loose if n >= 5 else None)
        g.case('slogdet n=%d' % n, 'slogdet', {}, [('a', general(n, n))], lambda m, a: tuple(torch.linalg.slogdet(a)), tol=loose if n >= 5 else None)
    piv = general(2, 4, 4, zero_diag=True)
    g.case('solve pivoting (zero on the diagonal)', 'solve', {}, [('a', piv), ('b', g.randn(2, 4, 3))], lambda m, a, b: torch.linalg.solve(a, b))
    g.case('solve permutation matrix', 'solve', {}, [('a', torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [3.0, 0.0, 0.0]])), ('b', g.randn(3, 2))],
           lambda m, a, b: torch.linalg.solve(a, b))
    g.case('inv pivoting (zero on the diagonal)', 'inv', {}, [('a', piv)], lambda m, a: torch.linalg.inv(a))
    g.case('det pivoting (zero on the diagonal)', 'det', {}, [('a', piv)], lambda m, a: torch.linalg.det(a))
    g.case('slogdet pivoting (zero on the diagonal)', 'slogdet', {}, [('a', piv)], lambda m, a: tuple(torch.linalg.slogdet(a)))
    swap = torch.tensor([[0.0, 2.0], [3.0, 1.0]])
    g.case('det negative (one swap)', 'det', {}, [('a', swap)], lambda m, a: torch.linalg.det(a))
    g.case('slogdet negative (one swap)', 'slogdet', {}, [('a', swap)], lambda m, a: tuple(torch.linalg.slogdet(a)))
    g.case('det batch [3,2] mixed signs', 'det', {}, [('a', general(3, 2, 3, 3))], lambda m, a: torch.linalg.det(a))
    g.case('slogdet batch [3,2] mixed signs', 'slogdet', {}, [('a', general(3, 2, 3, 3))], lambda m, a: tuple(torch.linalg.slogdet(a)))
    g.case('det singular', 'det', {}, [('a', torch.tensor([[1.0, 2.0], [2.0, 4.0]]))], lambda m, a: torch.linalg.det(a), grad=[])
    g.case('slogdet singular', 'slogdet', {}, [('a', torch.tensor([[1.0, 2.0], [2.0, 4.0]]))], lambda m, a: tuple(torch.linalg.slogdet(a)), grad=[])
    g.case('solve batch [2,3]', 'solve', {}, [('a', general(2, 3, 4, 4)), ('b', g.randn(2, 3, 4, 2))], lambda m, a, b: torch.linalg.solve(a, b))
    g.case('solve broadcast batch [2,1]x[3]', 'solve', {}, [('a', general(2, 1, 3, 3)), ('b', g.randn(3, 3, 2))], lambda m, a, b: torch.linalg.solve(a, b))
    g.case('solve vector b', 'solve', {}, [('a', general(4, 4)), ('b', g.randn(4))], lambda m, a, b: torch.linalg.solve(a, b))
    g.case('solve batched vector b', 'solve', {}, [('a', general(2, 3, 3)), ('b', g.randn(2, 3))], lambda m, a, b: torch.linalg.solve(a, b))
    g.case('inv batch [2,3]', 'inv', {}, [('a', general(2, 3, 3, 3))], lambda m, a: torch.linalg.inv(a))

    for shape in [(1, 1), (2, 2), (3, 3), (5, 5), (8, 8), (5, 3), (2, 4, 3)]:
        name = 'x'.join(map(str, shape))
        g.case('qr reduced %s' % name, 'qr', {'mode': 'reduced'}, [('a', g.randn(*shape))], lambda m, a: tuple(torch.linalg.qr(a)),
               tol=loose if max(shape) >= 5 else None)
    g.case('qr complete 5x3', 'qr', {'mode': 'complete'}, [('a', g.randn(5, 3))], lambda m, a: tuple(torch.linalg.qr(a, mode='complete')), grad=[])
    g.case('qr reduced wide 3x5', 'qr', {'mode': 'reduced'}, [('a', g.randn(3, 5))], lambda m, a: tuple(torch.linalg.qr(a)), grad=[])
    g.case('qr upper triangular input', 'qr', {'mode': 'reduced'}, [('a', torch.triu(g.randn(3, 3)) + torch.eye(3))], lambda m, a: tuple(torch.linalg.qr(a)), grad=[])

    # eigh: eigenvector signs are arbitrary, so each column is turned to make its largest entry
    # positive (the adapter does the same); the gradients of that are sign-free too.
    def signfix(v):
        return v * torch.sign(v.gather(-2, v.abs().argmax(-2, keepdim=True)))

    def sym(*shape):
        x = g.randn(*shape)
        return x + x.transpose(-2, -1)

    def eigh_fixed(a, uplo='L'):
        l, v = torch.linalg.eigh(a, UPLO=uplo)
        return l, signfix(v)

    for n in [1, 2, 3, 5, 8]:
        g.case('eigh n=%d' % n, 'eigh', {'uplo': 'L'}, [('a', sym(n, n))], lambda m, a: eigh_fixed(a), tol=loose if n >= 5 else None)
    g.case('eigh batch [2,3]', 'eigh', {'uplo': 'L'}, [('a', sym(2, 3, 4, 4))], lambda m, a: eigh_fixed(a), tol=loose)
    # Garbage in the unread triangle: the forward must ignore it; torch's gradient is symmetric all the same.
    g.case('eigh uplo=U reads the upper triangle', 'eigh', {'uplo': 'U'}, [('a', sym(5, 5) + torch.tril(g.randn(5, 5), -1))], lambda m, a: eigh_fixed(a, 'U'), tol=loose)
    g.case('eigh uplo=L reads the lower triangle', 'eigh', {'uplo': 'L'}, [('a', sym(4, 4) + torch.triu(g.randn(4, 4), 1))], lambda m, a: eigh_fixed(a, 'L'), tol=loose)
    g.case('eigh spd 6x6', 'eigh', {'uplo': 'L'}, [('a', spd(6, 6))], lambda m, a: eigh_fixed(a), tol=loose)
    g.case('eigvalsh n=5', 'eigvalsh', {'uplo': 'L'}, [('a', sym(5, 5))], lambda m, a: torch.linalg.eigvalsh(a))
    g.case('eigvalsh batch [3]', 'eigvalsh', {'uplo': 'L'}, [('a', sym(3, 6, 6))], lambda m, a: torch.linalg.eigvalsh(a), tol=loose)
    g.case('eigvalsh uplo=U', 'eigvalsh', {'uplo': 'U'}, [('a', sym(4, 4) + torch.tril(g.randn(4, 4), -1))], lambda m, a: torch.linalg.eigvalsh(a, UPLO='U'))
    g.case('eigvalsh 16x16', 'eigvalsh', {'uplo': 'L'}, [('a', sym(16, 16))], lambda m, a: torch.linalg.eigvalsh(a), tol=loose)
    # Repeated eigenvalues: the values are well defined, the gradient of a weighted sum of them is not.
    g.case('eigvalsh repeated eigenvalues', 'eigvalsh', {'uplo': 'L'}, [('a', torch.tensor([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 3.0]]))],
           lambda m, a: torch.linalg.eigvalsh(a), grad=[])

    # svd: each singular pair (u_j, v_j) may flip sign together; fixed as eigh's by u_j's largest
    # entry. With full matrices the extra columns are any basis of the complement: their projector
    # U2 U2ᵀ (and V2 V2ᵀ) is compared instead.
    def svd_fixed(a, full):
        u, s, vh = torch.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        sg = torch.sign(u[..., :k].gather(-2, u[..., :k].abs().argmax(-2, keepdim=True)))
        out = (u[..., :k] * sg, s, vh[..., :k, :] * sg.transpose(-2, -1))
        if not full:
            return out
        u2 = u[..., k:]
        v2 = vh[..., k:, :].transpose(-2, -1)
        return out + (u2 @ u2.transpose(-2, -1), v2 @ v2.transpose(-2, -1))

    for shape in [(1, 1), (2, 2), (3, 3), (5, 5), (8, 8), (5, 3), (3, 5), (2, 4, 3), (2, 3, 4), (1, 4), (4, 1)]:
        name = 'x'.join(map(str, shape))
        g.case('svd reduced %s' % name, 'svd', {'full_matrices': False}, [('a', g.randn(*shape))], lambda m, a: svd_fixed(a, False),
               tol=loose if max(shape) >= 4 else None)
    for shape in [(5, 3), (3, 5), (4, 4), (2, 4, 2)]:
        name = 'x'.join(map(str, shape))
        g.case('svd full %s' % name, 'svd', {'full_matrices': True}, [('a', g.randn(*shape))], lambda m, a: svd_fixed(a, True), grad=[], tol=loose)
    for shape in [(1, 1), (3, 3), (6, 4), (4, 6), (3, 2, 5), (12, 12)]:
        name = 'x'.join(map(str, shape))
        g.case('svdvals %s' % name, 'svdvals', {}, [('a', g.randn(*shape))], lambda m, a: torch.linalg.svdvals(a), tol=loose if max(shape) >= 4 else None)
    # Rank 2 of 4 x 3: the zero singular value's vectors are not unique, so only the values are compared.
    low = g.randn(4, 2) @ g.randn(2, 3)
    g.case('svdvals rank-deficient 4x3', 'svdvals', {}, [('a', low)], lambda m, a: torch.linalg.svdvals(a), grad=[], tol=loose)
    g.case('svdvals graded 5x5 (1 to 1e-4)', 'svdvals', {}, [('a', torch.linalg.qr(g.randn(5, 5))[0] @ torch.diag(torch.tensor([1.0, 1e-1, 1e-2, 1e-3, 1e-4])) @ torch.linalg.qr(g.randn(5, 5))[0])],
           lambda m, a: torch.linalg.svdvals(a), tol=loose)

    # torch's float32 gelsy differs in the last bit from run to run (the BLAS's alignment-dependent
    # paths), so the reference is solved in float64 and rounded: the fixture regenerates the same.
    def ls(a, b):
        return torch.linalg.lstsq(a.double(), b.double()).solution.to(a.dtype)
    g.case('lstsq tall 5x3', 'lstsq', {}, [('a', g.randn(5, 3)), ('b', g.randn(5, 2))], lambda m, a, b: ls(a, b))
    g.case('lstsq square 4x4', 'lstsq', {}, [('a', general(4, 4)), ('b', g.randn(4, 3))], lambda m, a, b: ls(a, b))
    g.case('lstsq wide 3x5 (minimum norm)', 'lstsq', {}, [('a', g.randn(3, 5)), ('b', g.randn(3, 2))], lambda m, a, b: ls(a, b))
    # torch 1.13's lstsq backward fails for a vector B (a dim error): values only.
    g.case('lstsq vector b', 'lstsq', {}, [('a', g.randn(6, 4)), ('b', g.randn(6))], lambda m, a, b: ls(a, b), grad=[])
    g.case('lstsq batched vector b', 'lstsq', {}, [('a', g.randn(2, 5, 3)), ('b', g.randn(2, 5))], lambda m, a, b: ls(a, b), grad=[])
    g.case('lstsq broadcast batch [2,1]x[1,3]', 'lstsq', {}, [('a', g.randn(2, 1, 4, 3)), ('b', g.randn(1, 3, 4, 2))], lambda m, a, b: ls(a, b))
    g.case('lstsq 1x1', 'lstsq', {}, [('a', torch.tensor([[2.0]])), ('b', g.randn(1, 3))], lambda m, a, b: ls(a, b))

    pinv = torch.linalg.pinv
    for shape in [(1, 1), (4, 4), (5, 3), (3, 5), (2, 3, 4)]:
        name = 'x'.join(map(str, shape))
        g.case('pinv %s' % name, 'pinv', {}, [('a', g.randn(*shape) + (2 * torch.eye(shape[-1]) if shape[-1] == shape[-2] else 0))],
               lambda m, a: pinv(a), tol=loose if max(shape) >= 4 else None)
    g.case('pinv rank-deficient 4x3', 'pinv', {}, [('a', g.randn(4, 2) @ g.randn(2, 3))], lambda m, a: pinv(a), grad=[], tol=loose)
    graded = torch.linalg.qr(g.randn(4, 4))[0] @ torch.diag(torch.tensor([2.0, 1.0, 0.05, 0.001])) @ torch.linalg.qr(g.randn(4, 4))[0]
    g.case('pinv atol=0.01 drops the smallest', 'pinv', {'atol': 0.01}, [('a', graded)], lambda m, a: pinv(a, atol=0.01), tol=loose)
    g.case('pinv rtol=0.1 drops two', 'pinv', {'rtol': 0.1}, [('a', graded)], lambda m, a: pinv(a, rtol=0.1), tol=loose)
    g.case('pinv hermitian', 'pinv', {'hermitian': True}, [('a', sym(4, 4) + torch.triu(g.randn(4, 4), 1))], lambda m, a: pinv(a, hermitian=True), tol=loose)

    mr = torch.linalg.matrix_rank
    g.case('matrix_rank full 4x3', 'matrix_rank', {}, [('a', g.randn(4, 3))], lambda m, a: mr(a))
    g.case('matrix_rank deficient batch', 'matrix_rank', {}, [('a', torch.stack([g.randn(5, 2) @ g.randn(2, 4), g.randn(5, 1) @ g.randn(1, 4), torch.zeros(5, 4), g.randn(5, 4)]))],
           lambda m, a: mr(a))
    g.case('matrix_rank atol', 'matrix_rank', {'atol': 0.01}, [('a', graded)], lambda m, a: mr(a, atol=0.01))
    g.case('matrix_rank rtol', 'matrix_rank', {'rtol': 0.1}, [('a', graded)], lambda m, a: mr(a, rtol=0.1))
    g.case('matrix_rank hermitian', 'matrix_rank', {'hermitian': True}, [('a', torch.diag(torch.tensor([3.0, -2.0, 0.0, 1e-9])))], lambda m, a: mr(a, hermitian=True))

    mn = torch.linalg.matrix_norm
    g.case('matrix_norm fro', 'matrix_norm', {}, [('a', g.randn(2, 3, 4))], lambda m, a: mn(a))
    for ord in ['nuc', 2, -2, 1, -1, 'inf', '-inf']:
        o = float(ord) if ord in ('inf', '-inf') else ord
        g.case('matrix_norm ord=%s' % ord, 'matrix_norm', {'ord': ord}, [('a', g.randn(2, 3, 4))], lambda m, a, o=o: mn(a, o), tol=loose)
    g.case('matrix_norm ord=2 keepdim', 'matrix_norm', {'ord': 2, 'keepdim': True}, [('a', g.randn(5, 3))], lambda m, a: mn(a, 2, keepdim=True), tol=loose)

    cond = torch.linalg.cond
    g.case('cond default (2)', 'cond', {}, [('a', general(2, 4, 4))], lambda m, a: cond(a), tol=loose)
    g.case('cond 2 wide', 'cond', {'p': 2}, [('a', g.randn(3, 5))], lambda m, a: cond(a, 2), tol=loose)
    g.case('cond p=-2', 'cond', {'p': -2}, [('a', general(4, 4))], lambda m, a: cond(a, -2), tol=loose)
    # torch 1.13's backward of cond through inv fails (an in-place update of inv's output): values only.
    for p in ['fro', 'nuc', 1, -1, 'inf', '-inf']:
        o = float(p) if p in ('inf', '-inf') else p
        g.case('cond p=%s' % p, 'cond', {'p': p}, [('a', general(4, 4))], lambda m, a, o=o: cond(a, o), tol=loose, grad=[])
    g.case('cond singular (2)', 'cond', {}, [('a', torch.tensor([[1.0, 2.0], [2.0, 4.0]]))], lambda m, a: cond(a), grad=[])
    # LU in LAPACK's layout: pivots are int32 and 1-based, as torch's.
    lf = torch.linalg.lu_factor_ex
    for shape in [(1, 1), (3, 3), (5, 5), (5, 3), (3, 5), (2, 3, 4, 4)]:
        name = 'x'.join(map(str, shape))
        g.case('lu_factor %s' % name, 'lu_factor', {}, [('a', g.randn(*shape))], lambda m, a: tuple(lf(a)[:2]), tol=loose if max(shape) >= 5 else None)
        g.case('lu %s' % name, 'lu', {}, [('a', g.randn(*shape))], lambda m, a: tuple(torch.linalg.lu(a)), tol=loose if max(shape) >= 5 else None)
    g.case('lu_factor pivoting (zero on the diagonal)', 'lu_factor', {}, [('a', general(4, 4, zero_diag=True))], lambda m, a: tuple(lf(a)[:2]))
    g.case('lu_factor singular (factored all the same)', 'lu_factor', {}, [('a', torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]))],
           lambda m, a: tuple(lf(a)[:2]), grad=[])
    for left in [True, False]:
        for adjoint in [False, True]:
            bshape = (4, 2) if left else (2, 4)
            g.case('lu_solve left=%s adjoint=%s' % (left, adjoint), 'lu_solve', {'left': left, 'adjoint': adjoint}, [('a', general(4, 4)), ('b', g.randn(*bshape))],
                   lambda m, a, b, left=left, adjoint=adjoint: torch.linalg.lu_solve(*lf(a)[:2], b, left=left, adjoint=adjoint))
    g.case('lu_solve broadcast batch [2,1]x[3]', 'lu_solve', {}, [('a', general(2, 1, 3, 3, zero_diag=True)), ('b', g.randn(3, 3, 2))],
           lambda m, a, b: torch.linalg.lu_solve(*lf(a)[:2], b))

    # Second order (gen.grad_of: the output is the gradient of sum(f(A) * w), the recorded gradients
    # Hessian-vector products): eigh, svd and pinv put their rules on the results, in two stages.
    def svd_flat(a):
        u, s_, vh = torch.linalg.svd(a, full_matrices=False)
        sg = torch.sign(u.gather(-2, u.abs().argmax(-2, keepdim=True)))
        return torch.cat([(u * sg).reshape(-1), s_.reshape(-1), (vh * sg.transpose(-2, -1)).reshape(-1)])

    second = [
        ('eigvalsh', sym(4, 4), lambda a: torch.linalg.eigvalsh(a)),
        ('eigh', sym(4, 4), lambda a: eigh_fixed(a)[1] * eigh_fixed(a)[0].unsqueeze(-2)),
        ('svdvals', g.randn(5, 3), lambda a: torch.linalg.svdvals(a)),
        ('svd tall', g.randn(5, 3), svd_flat),
        ('svd wide', g.randn(2, 4), svd_flat),
        ('pinv', g.randn(3, 4), lambda a: torch.linalg.pinv(a)),
        # A symmetric input: for any other torch's first-order rule (pinv_backward of the whole A) is not
        # the derivative of its forward (which reads the lower triangle), and its second order is not symmetric.
        ('pinv hermitian', spd(3, 3), lambda a: torch.linalg.pinv(a, hermitian=True)),
    ]
    for name, x, fn in second:
        g.case('second order: %s' % name, 'grad_of', {'fn': name}, [('a', x)], lambda m, a, fn=fn: gen.grad_of(fn)(m, a), tol=loose)

    g.case('trace', 'trace', {}, [('a', g.randn(4, 4))], lambda m, a: torch.trace(a))
    return g
