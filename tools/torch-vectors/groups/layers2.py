"""The 'layers2' group: layers Switchyard added after the 'layers' group named them unsupported
(its fixture is near its size limit): max-pool indices and max_unpool, Bilinear, local response
norm, power-average pools, MultiheadAttention's per-head weights / kdim / vdim / bias_kv /
zero_attn, transposed convolutions' output_size, EmbeddingBag and LSTM's proj_size."""
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F


@contextlib.contextmanager
def nondeterministic():
    # torch refuses max_unpool (its backward scatters) under use_deterministic_algorithms(True).
    torch.use_deterministic_algorithms(False)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(True)


def make(gen):
    g = gen.Group('layers2', 2e-5, 2e-5, 'max-pool indices and unpool, bilinear, local response norm, lp pools, attention options, conv-transpose output_size, embedding bags, LSTM projections')

    randomise = g.randomise

    # -------------------------------------------------------------------------------------------
    # max pools with indices (indices compared as floats), max_unpool

    x6 = g.randn(2, 3, 6, 5)
    mp2 = [(2, {}), (3, {'stride': 2, 'padding': 1}), (2, {'stride': 1}), ([3, 2], {'stride': [2, 1], 'dilation': [1, 2]}),
           (2, {'stride': 2, 'ceil_mode': True}), (3, {'stride': 2, 'padding': 1, 'ceil_mode': True})]
    for k, kw in mp2:
        g.case('max_pool2d indices k=%s %s' % (k, kw), 'max_pool2d_indices', dict(kw, kernel_size=k), [('x', x6)],
               lambda m, x, k=k, kw=kw: (lambda r: (r[0], r[1].float()))(F.max_pool2d(x, k, return_indices=True, **kw)))
    g.case('max_pool2d indices unbatched', 'max_pool2d_indices', {'kernel_size': 2, 'stride': 1}, [('x', g.randn(2, 3, 4))],
           lambda m, x: (lambda r: (r[0], r[1].float()))(F.max_pool2d(x, 2, stride=1, return_indices=True)))
    ninf = g.randn(1, 1, 4, 4)
    ninf[0, 0, 0, :2] = float('-inf')
    ninf[0, 0, 1, :2] = float('-inf')
    g.case('max_pool2d indices -inf window padded', 'max_pool2d_indices', {'kernel_size': 3, 'stride': 2, 'padding': 1}, [('x', ninf)],
           lambda m, x: (lambda r: (r[0], r[1].float()))(F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)), grad=[])
    x1 = g.randn(2, 3, 9)
    for k, kw in [(2, {}), (3, {'stride': 2, 'padding': 1}), (3, {'stride': 1, 'dilation': 2}), (2, {'stride': 2, 'ceil_mode': True})]:
        g.case('max_pool1d indices k=%s %s' % (k, kw), 'max_pool1d_indices', dict(kw, kernel_size=k), [('x', x1)],
               lambda m, x, k=k, kw=kw: (lambda r: (r[0], r[1].float()))(F.max_pool1d(x, k, return_indices=True, **kw)))
    g.case('max_pool1d indices unbatched', 'max_pool1d_indices', {'kernel_size': 3, 'stride': 2}, [('x', g.randn(2, 7))],
           lambda m, x: (lambda r: (r[0], r[1].float()))(F.max_pool1d(x, 3, stride=2, return_indices=True)))

    with nondeterministic():
        for k, kw, out in [(2, {}, [6, 5]), (2, {}, [2, 3, 6, 5]), (3, {'stride': 2, 'padding': 1}, [6, 5]), (2, {'stride': 1}, None), (3, {'stride': 1, 'padding': 1}, [6, 5])]:
            # The round trip: the gradient reaches x through the unpool and the pool.
            name = 'max_unpool2d round trip k=%s %s output_size=%s' % (k, kw, out)
            g.case(name, 'max_unpool2d_roundtrip', dict(kw, kernel_size=k, output_size=out), [('x', x6)],
                   lambda m, x, k=k, kw=kw, out=out: F.max_unpool2d(*F.max_pool2d(x, k, return_indices=True, **kw), k, output_size=out, **kw))
        xi = g.randn(2, 2, 4, 4)
        _, idx = F.max_pool2d(xi, 2, return_indices=True)
        g.case('max_unpool2d values + indices', 'max_unpool2d', {'kernel_size': 2}, [('values', g.randn(2, 2, 2, 2)), ('indices', idx)],
               lambda m, v, i: F.max_unpool2d(v, i, 2))
        _, idx = F.max_pool2d(xi[0], 2, stride=2, return_indices=True)
        g.case('max_unpool2d unbatched output_size', 'max_unpool2d', {'kernel_size': 2, 'stride': 2, 'output_size': [5, 5]}, [('values', g.randn(2, 2, 2)), ('indices', idx)],
               lambda m, v, i: F.max_unpool2d(v, i, 2, stride=2, output_size=[5, 5]))
        for k, kw, out in [(2, {}, None), (3, {'stride': 2, 'padding': 1}, None), (2, {}, [9])]:
            g.case('max_unpool1d round trip k=%s %s output_size=%s' % (k, kw, out), 'max_unpool1d_roundtrip', dict(kw, kernel_size=k, output_size=out), [('x', x1)],
                   lambda m, x, k=k, kw=kw, out=out: F.max_unpool1d(*F.max_pool1d(x, k, return_indices=True, **kw), k, output_size=out, **kw))
        _, idx = F.max_pool1d(g.randn(3, 8), 2, return_indices=True)
        g.case('max_unpool1d unbatched values + indices', 'max_unpool1d', {'kernel_size': 2}, [('values', g.randn(3, 4)), ('indices', idx)],
               lambda m, v, i: F.max_unpool1d(v, i, 2))

    # -------------------------------------------------------------------------------------------
    # bilinear

    for bias in [True, False]:
        m = randomise(nn.Bilinear(3, 4, 2, bias=bias))
        g.case('Bilinear bias=%s' % bias, 'Bilinear', {'in1_features': 3, 'in2_features': 4, 'out_features': 2, 'bias': bias}, [('x1', g.randn(5, 3)), ('x2', g.randn(5, 4))],
               lambda m, a, b: m(a, b), module=m)
    m = randomise(nn.Bilinear(2, 3, 4))
    g.case('Bilinear 3-D input', 'Bilinear', {'in1_features': 2, 'in2_features': 3, 'out_features': 4, 'bias': True}, [('x1', g.randn(2, 3, 2)), ('x2', g.randn(2, 3, 3))],
           lambda m, a, b: m(a, b), module=m)
    m = randomise(nn.Bilinear(3, 3, 1))
    g.case('Bilinear 1-D input', 'Bilinear', {'in1_features': 3, 'in2_features': 3, 'out_features': 1, 'bias': True}, [('x1', g.randn(3)), ('x2', g.randn(3))],
           lambda m, a, b: m(a, b), module=m)
    g.case('F.bilinear', 'bilinear', {}, [('x1', g.randn(4, 2)), ('x2', g.randn(4, 3)), ('weight', g.randn(5, 2, 3)), ('bias', g.randn(5))],
           lambda m, a, b, w, bb: F.bilinear(a, b, w, bb))

    # -------------------------------------------------------------------------------------------
    # local response norm

    for shape, size, kw in [([2, 5, 3, 2], 3, {}), ([2, 5, 3, 2], 2, {}), ([1, 6, 4], 4, {'alpha': 0.5, 'beta': 0.6, 'k': 2.0}), ([1, 4, 2, 2, 3], 5, {'alpha': 1.0, 'beta': 1.5}),
                            ([2, 3, 5], 1, {'alpha': 0.1}), ([1, 7, 2, 2], 7, {'alpha': 2.0, 'beta': 0.75, 'k': 0.5})]:
        g.case('local_response_norm %s size=%d %s' % (shape, size, kw), 'local_response_norm', dict(kw, size=size), [('x', g.randn(*shape))],
               lambda m, x, size=size, kw=kw: F.local_response_norm(x, size, **kw))
    g.case('LocalResponseNorm module', 'LocalResponseNorm', {'size': 3, 'alpha': 0.3}, [('x', g.randn(2, 4, 3))], lambda m, x: nn.LocalResponseNorm(3, alpha=0.3)(x))

    # -------------------------------------------------------------------------------------------
    # power-average pools (x away from 0: the 1/p power's derivative is infinite there)

    def away(*shape):
        x = g.randn(*shape)
        return x + 0.3 * torch.sign(x)

    xp = away(2, 2, 5, 6)
    for p, k, kw in [(2.0, 2, {}), (2.0, 3, {'stride': 2}), (3.0, 2, {}), (1.0, [2, 3], {'stride': [1, 2]}), (2.0, 2, {'stride': 2, 'ceil_mode': True}),
                     (3.0, 3, {'stride': 2, 'ceil_mode': True}), (1.5, 2, {})]:
        xx = xp.abs() if p == 1.5 else xp
        g.case('lp_pool2d p=%s k=%s %s' % (p, k, kw), 'lp_pool2d', dict(kw, norm_type=p, kernel_size=k), [('x', xx)],
               lambda m, x, p=p, k=k, kw=kw: F.lp_pool2d(x, p, k, **kw))
    xq = away(2, 3, 9)
    for p, k, kw in [(2.0, 2, {}), (3.0, 3, {'stride': 2}), (2.0, 2, {'stride': 2, 'ceil_mode': True}), (1.0, 4, {'stride': 3, 'ceil_mode': True})]:
        g.case('lp_pool1d p=%s k=%s %s' % (p, k, kw), 'lp_pool1d', dict(kw, norm_type=p, kernel_size=k), [('x', xq)],
               lambda m, x, p=p, k=k, kw=kw: F.lp_pool1d(x, p, k, **kw))
    g.case('lp_pool1d unbatched', 'lp_pool1d', {'norm_type': 2.0, 'kernel_size': 3}, [('x', away(2, 6))], lambda m, x: F.lp_pool1d(x, 2.0, 3))
    g.case('LPPool2d module unbatched', 'lp_pool2d', {'norm_type': 2.0, 'kernel_size': 2}, [('x', away(2, 4, 4))], lambda m, x: nn.LPPool2d(2.0, 2)(x))

    # -------------------------------------------------------------------------------------------
    # MultiheadAttention: per-head weights, kdim / vdim, add_bias_kv, add_zero_attn

    E, Hh, N, S = 4, 2, 2, 5
    q, k, v = g.randn(N, 3, E), g.randn(N, S, E), g.randn(N, S, E)
    kpm = torch.tensor([[False, True, False, False, True], [False, False, False, False, False]])
    bm = torch.tensor([[False, True, False, False, False], [False, False, False, True, False], [True, False, True, False, False]])
    fm = g.randn(3, S)
    base = {'embed_dim': E, 'num_heads': Hh, 'batch_first': True}

    def mha(name, kw, inputs, call, module, grad=None):
        # call: the forward's keyword names in torch (need_weights, average_attn_weights) plus mask inputs by name.
        args = dict(base, **kw)
        args.update(call)
        names = [n for n, _ in inputs]

        def fn(m, *ts):
            t = dict(zip(names, ts))
            out = m(t['query'], t.get('key', t['query']), t.get('value', t.get('key', t['query'])), key_padding_mask=t.get('key_padding_mask'),
                    attn_mask=t.get('attn_mask'), **call)
            return out if call.get('need_weights', True) else out[0]
        g.case(name, 'MultiheadAttention', args, inputs, fn, module=module, grad=grad)

    m = randomise(nn.MultiheadAttention(E, Hh, batch_first=True))
    mha('MHA per-head weights', {}, [('query', q), ('key', k), ('value', v)], {'need_weights': True, 'average_attn_weights': False}, m)
    mha('MHA per-head weights masks', {}, [('query', q), ('key', k), ('value', v), ('key_padding_mask', kpm), ('attn_mask', bm)], {'need_weights': True, 'average_attn_weights': False}, m)
    mha('MHA per-head weights unbatched', {}, [('query', q[0]), ('key', k[0]), ('value', v[0])], {'need_weights': True, 'average_attn_weights': False}, m)
    for kd, vd, bias in [(3, 2, True), (3, 4, False), (4, 6, True)]:
        m = randomise(nn.MultiheadAttention(E, Hh, batch_first=True, kdim=kd, vdim=vd, bias=bias))
        mha('MHA kdim=%d vdim=%d bias=%s' % (kd, vd, bias), {'kdim': kd, 'vdim': vd, 'bias': bias}, [('query', q), ('key', g.randn(N, S, kd)), ('value', g.randn(N, S, vd))],
            {'need_weights': True}, m)
    m = randomise(nn.MultiheadAttention(E, Hh, kdim=3, vdim=2))
    mha('MHA kdim vdim batch_first=False masks', {'kdim': 3, 'vdim': 2, 'batch_first': False}, [('query', q.transpose(0, 1).contiguous()), ('key', g.randn(S, N, 3)), ('value', g.randn(S, N, 2)), ('key_padding_mask', kpm), ('attn_mask', fm)],
        {'need_weights': False}, m, grad=['query', 'key', 'value', 'attn_mask'])
    for bkv, za in [(True, False), (False, True), (True, True)]:
        m = randomise(nn.MultiheadAttention(E, Hh, batch_first=True, add_bias_kv=bkv, add_zero_attn=za))
        kw = {'add_bias_kv': bkv, 'add_zero_attn': za}
        mha('MHA add_bias_kv=%s add_zero_attn=%s' % (bkv, za), kw, [('query', q), ('key', k), ('value', v)], {'need_weights': True}, m)
        mha('MHA add_bias_kv=%s add_zero_attn=%s masks per-head' % (bkv, za), kw, [('query', q), ('key', k), ('value', v), ('key_padding_mask', kpm), ('attn_mask', bm)],
            {'need_weights': True, 'average_attn_weights': False}, m)
        mha('MHA add_bias_kv=%s add_zero_attn=%s float mask self' % (bkv, za), kw, [('query', g.randn(N, 3, E)), ('attn_mask', g.randn(3, 3))], {'need_weights': False}, m)
    m = randomise(nn.MultiheadAttention(E, Hh, batch_first=True, add_bias_kv=True, add_zero_attn=True, kdim=3, vdim=5, bias=False))
    mha('MHA everything kdim=3 vdim=5 bias=False', {'add_bias_kv': True, 'add_zero_attn': True, 'kdim': 3, 'vdim': 5, 'bias': False},
        [('query', q), ('key', g.randn(N, S, 3)), ('value', g.randn(N, S, 5)), ('key_padding_mask', kpm)], {'need_weights': True}, m)

    # -------------------------------------------------------------------------------------------
    # ConvTranspose1d / 2d forward(input, output_size)

    for kw, shape, out in [({'kernel_size': 3, 'stride': 2}, [1, 2, 3, 3], [8, 8]), ({'kernel_size': 3, 'stride': 2}, [1, 2, 3, 3], [7, 8]),
                           ({'kernel_size': [3, 2], 'stride': [3, 2], 'padding': [1, 0]}, [2, 2, 2, 3], [2, 2, 6, 7]),
                           ({'kernel_size': 2, 'stride': 3, 'dilation': 2, 'groups': 2}, [1, 2, 2, 2], [7, 6]),
                           ({'kernel_size': 3, 'stride': 2, 'output_padding': 1}, [1, 2, 3, 3], [7, 7]),
                           ({'kernel_size': 3, 'stride': 2, 'bias': False}, [2, 3, 3], [2, 8, 7])]:
        m = randomise(nn.ConvTranspose2d(2, 2, **kw))
        g.case('ConvTranspose2d output_size=%s %s in=%s' % (out, kw, shape), 'ConvTranspose2d', dict(kw, in_channels=2, out_channels=2, output_size=out), [('x', g.randn(*shape))],
               lambda m, x, out=out: m(x, output_size=out), module=m)
    for kw, shape, out in [({'kernel_size': 3, 'stride': 3}, [2, 2, 4], [14]), ({'kernel_size': 3, 'stride': 3, 'padding': 1}, [2, 2, 4], [2, 2, 11]),
                           ({'kernel_size': 4, 'stride': 2, 'dilation': 2}, [2, 5], [2, 16])]:
        m = randomise(nn.ConvTranspose1d(2, 2, **kw))
        g.case('ConvTranspose1d output_size=%s %s in=%s' % (out, kw, shape), 'ConvTranspose1d', dict(kw, in_channels=2, out_channels=2, output_size=out), [('x', g.randn(*shape))],
               lambda m, x, out=out: m(x, output_size=out), module=m)

    # -------------------------------------------------------------------------------------------
    # EmbeddingBag / F.embedding_bag (an empty bag in some cases: zeros in every mode)

    ids = torch.tensor([1, 2, 4, 4, 3, 0, 2, 2, 1])
    offs = torch.tensor([0, 2, 2, 5])
    for mode in ['sum', 'mean', 'max']:
        for kw in [{}, {'padding_idx': 2}, {'include_last_offset': True}]:
            m = randomise(nn.EmbeddingBag(5, 3, mode=mode, **kw), scale=1.0)
            o = torch.tensor([0, 2, 2, 5, 9]) if kw.get('include_last_offset') else offs
            g.case('EmbeddingBag mode=%s %s' % (mode, kw), 'EmbeddingBag', dict(kw, num_embeddings=5, embedding_dim=3, mode=mode), [('indices', ids), ('offsets', o)],
                   lambda m, i, o: m(i, o), module=m)
        m = randomise(nn.EmbeddingBag(6, 2, mode=mode), scale=1.0)
        g.case('EmbeddingBag mode=%s 2-D input' % mode, 'EmbeddingBag', {'num_embeddings': 6, 'embedding_dim': 2, 'mode': mode}, [('indices', torch.tensor([[0, 5, 3], [2, 2, 1]]))],
               lambda m, i: m(i), module=m)
    m = randomise(nn.EmbeddingBag(5, 3, mode='sum', padding_idx=4), scale=1.0)
    g.case('EmbeddingBag sum per_sample_weights padding_idx=4', 'EmbeddingBag', {'num_embeddings': 5, 'embedding_dim': 3, 'mode': 'sum', 'padding_idx': 4},
           [('indices', ids), ('offsets', offs), ('per_sample_weights', g.randn(9))], lambda m, i, o, w: m(i, o, per_sample_weights=w), module=m)
    m = randomise(nn.EmbeddingBag(6, 2, mode='sum'), scale=1.0)
    g.case('EmbeddingBag sum per_sample_weights 2-D', 'EmbeddingBag', {'num_embeddings': 6, 'embedding_dim': 2, 'mode': 'sum'},
           [('indices', torch.tensor([[0, 5, 3], [2, 2, 1]])), ('per_sample_weights', g.randn(2, 3))], lambda m, i, w: m(i, per_sample_weights=w), module=m)
    for mode in ['sum', 'mean', 'max']:
        g.case('F.embedding_bag mode=%s' % mode, 'embedding_bag', {'mode': mode}, [('indices', ids), ('weight', g.randn(5, 4)), ('offsets', torch.tensor([0, 4]))],
               lambda m, i, w, o, mode=mode: F.embedding_bag(i, w, o, mode=mode))

    # -------------------------------------------------------------------------------------------
    # LSTM proj_size

    I, Hd, P, N, L = 3, 4, 2, 2, 3
    for kw, states, unbatched in [({'num_layers': 1, 'bidirectional': False, 'batch_first': True, 'bias': True}, False, False),
                                  ({'num_layers': 2, 'bidirectional': False, 'batch_first': False, 'bias': True}, True, False),
                                  ({'num_layers': 2, 'bidirectional': True, 'batch_first': True, 'bias': True}, True, False),
                                  ({'num_layers': 1, 'bidirectional': True, 'batch_first': False, 'bias': False}, False, False),
                                  ({'num_layers': 2, 'bidirectional': True, 'batch_first': True, 'bias': True}, True, True)]:
        m = randomise(nn.LSTM(I, Hd, proj_size=P, **kw))
        D = kw['num_layers'] * (2 if kw['bidirectional'] else 1)
        x = g.randn(L, I) if unbatched else (g.randn(N, L, I) if kw['batch_first'] else g.randn(L, N, I))
        args = dict(kw, input_size=I, hidden_size=Hd, proj_size=P)
        name = 'LSTM proj_size=%d %s%s%s' % (P, ' '.join('%s=%s' % e for e in kw.items()), ' h0 c0' if states else '', ' unbatched' if unbatched else '')
        if states:
            sh = (D, P) if unbatched else (D, N, P)
            sc = (D, Hd) if unbatched else (D, N, Hd)
            g.case(name, 'LSTM', args, [('input', x), ('h0', g.randn(*sh)), ('c0', g.randn(*sc))],
                   lambda m, x, h, c: (lambda o: (o[0], o[1][0], o[1][1]))(m(x, (h, c))), module=m)
        else:
            g.case(name, 'LSTM', args, [('input', x)], lambda m, x: (lambda o: (o[0], o[1][0], o[1][1]))(m(x)), module=m)

    return g
