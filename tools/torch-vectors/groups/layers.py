"""The 'layers' group: convolutions, pooling, embedding, recurrent layers, multi-head attention,
linear / bilinear and a few normalisation modules, at edge shapes and options beyond misc.json and
transformer.json. Ops Switchyard lacks get their own op name (conv3d, lp_pool2d, RNN, ...) so that
the test file can name them unsupported."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make(gen):
    g = gen.Group('layers', 2e-5, 2e-5, 'convolutions, pools, embedding, recurrent layers, attention, linear, batch-norm running statistics at edge shapes and options')

    randomise = g.randomise

    # -------------------------------------------------------------------------------------------
    # functional convolutions

    conv1d = [
        (2, 4, 3, {'groups': 2}, 10),                         # 2 output channels per group
        (3, 6, 3, {'groups': 3, 'padding': 1}, 10),           # depthwise with multiplier 2
        (2, 3, 3, {'dilation': 3}, 10),
        (2, 3, 2, {'stride': 4}, 11),                         # stride > kernel
        (2, 3, 3, {'padding': 'valid'}, 7),
        (2, 3, 4, {'padding': 'same'}, 7),                    # even kernel: odd pad at the end
        (2, 3, 3, {'padding': 'same', 'dilation': 3}, 7),
        (2, 3, 1, {}, 6),                                     # 1x1
        (2, 3, 1, {'stride': 2}, 7),
        (2, 3, 6, {}, 6),                                     # kernel = input
        (2, 3, 6, {'padding': 2}, 6),
        (2, 2, 3, {'stride': 3, 'padding': 2, 'dilation': 2}, 9),
    ]
    for cin, cout, k, kw, length in conv1d:
        x = g.randn(1, cin, length)
        w = g.randn(cout, cin // kw.get('groups', 1), k)
        b = g.randn(cout)
        g.case('conv1d %d->%d k=%d L=%d %s' % (cin, cout, k, length, kw), 'conv1d', kw, [('x', x), ('weight', w), ('bias', b)],
               lambda m, x, w, b, kw=kw: F.conv1d(x, w, b, **kw))
    g.case('conv1d no bias unbatched', 'conv1d', {'padding': 1}, [('x', g.randn(3, 5)), ('weight', g.randn(2, 3, 3))], lambda m, x, w: F.conv1d(x, w, padding=1))

    conv2d = [
        (2, 4, [3, 3], {'groups': 2, 'padding': 1}, (6, 5)),
        (2, 4, [3, 3], {'groups': 2, 'padding': 1, 'stride': 2}, (6, 5)),
        (3, 3, [3, 3], {'groups': 3, 'dilation': [2, 1], 'padding': [2, 1]}, (6, 5)),   # depthwise
        (2, 4, [2, 2], {'groups': 2, 'stride': [3, 4]}, (7, 9)),   # stride > kernel
        (2, 3, [4, 2], {'padding': 'same'}, (5, 6)),               # even kernels
        (2, 3, [3, 4], {'padding': 'same', 'dilation': [1, 2]}, (5, 6)),
        (2, 3, [3, 3], {'padding': 'valid'}, (5, 6)),
        (2, 3, [1, 1], {}, (4, 5)),
        (2, 3, [1, 1], {'stride': 2}, (5, 5)),
        (2, 3, [5, 6], {}, (5, 6)),                                 # kernel = input
        (2, 3, [5, 6], {'padding': [1, 0]}, (5, 6)),
        (2, 3, [1, 3], {'padding': [0, 2], 'stride': [1, 2]}, (4, 7)),
        (4, 4, [3, 3], {'groups': 4, 'stride': 2, 'padding': 1, 'dilation': 2}, (7, 7)),
    ]
    for cin, cout, k, kw, (hh, ww) in conv2d:
        x = g.randn(1, cin, hh, ww)
        w = g.randn(cout, cin // kw.get('groups', 1), *k)
        b = g.randn(cout)
        g.case('conv2d %d->%d k=%s in=%dx%d %s' % (cin, cout, k, hh, ww, kw), 'conv2d', kw, [('x', x), ('weight', w), ('bias', b)],
               lambda m, x, w, b, kw=kw: F.conv2d(x, w, b, **kw))
    g.case('conv2d no bias unbatched stride 2', 'conv2d', {'stride': 2}, [('x', g.randn(2, 5, 5)), ('weight', g.randn(3, 2, 2, 2))], lambda m, x, w: F.conv2d(x, w, stride=2))

    g.case('conv3d', 'conv3d', {'padding': 1}, [('x', g.randn(1, 1, 3, 3, 3)), ('weight', g.randn(1, 1, 3, 3, 3)), ('bias', g.randn(1))],
           lambda m, x, w, b: F.conv3d(x, w, b, padding=1))
    g.case('conv_transpose3d', 'conv_transpose3d', {'stride': 2}, [('x', g.randn(1, 2, 2, 2, 3)), ('weight', g.randn(2, 2, 2, 2, 2))],
           lambda m, x, w: F.conv_transpose3d(x, w, stride=2))

    ct1 = [
        (2, 4, 3, {'groups': 2}),
        (4, 4, 3, {'groups': 4, 'stride': 2}),                        # depthwise
        (2, 3, 3, {'dilation': 2}),
        (2, 3, 3, {'dilation': 2, 'stride': 2, 'output_padding': 1}),
        (2, 3, 2, {'dilation': 3, 'output_padding': 2}),                # output_padding < dilation, stride 1
        (2, 3, 3, {'stride': 3, 'padding': 1, 'output_padding': 2}),
        (2, 3, 2, {'stride': 4}),                                       # stride > kernel: gaps
        (2, 3, 1, {}),
        (4, 6, 3, {'groups': 2, 'stride': 2, 'padding': 2, 'dilation': 2, 'output_padding': 1}),
    ]
    for cin, cout, k, kw in ct1:
        x = g.randn(1, cin, 5)
        w = g.randn(cin, cout // kw.get('groups', 1), k)
        b = g.randn(cout)
        g.case('conv_transpose1d %d->%d k=%d %s' % (cin, cout, k, kw), 'conv_transpose1d', kw, [('x', x), ('weight', w), ('bias', b)],
               lambda m, x, w, b, kw=kw: F.conv_transpose1d(x, w, b, **kw))
    g.case('conv_transpose1d no bias unbatched', 'conv_transpose1d', {'stride': 2}, [('x', g.randn(2, 4)), ('weight', g.randn(2, 3, 3))],
           lambda m, x, w: F.conv_transpose1d(x, w, stride=2))
    ct2 = [
        (4, 6, [3, 2], {'groups': 2, 'stride': [2, 3], 'output_padding': [1, 2]}),
        (3, 3, [3, 3], {'groups': 3, 'dilation': 2, 'padding': 1}),
        (2, 3, [2, 3], {'dilation': [3, 1], 'output_padding': [2, 0]}),
        (2, 3, [3, 3], {'stride': 2, 'padding': [1, 2], 'output_padding': [0, 1]}),
        (2, 2, [1, 1], {'stride': 3}),
        (2, 3, [2, 2], {'stride': [4, 3]}),
        (4, 4, [3, 3], {'groups': 2, 'stride': 2, 'padding': 1, 'dilation': [2, 1], 'output_padding': [1, 1]}),
    ]
    for cin, cout, k, kw in ct2:
        x = g.randn(1, cin, 3, 3)
        w = g.randn(cin, cout // kw.get('groups', 1), *k)
        b = g.randn(cout)
        g.case('conv_transpose2d %d->%d k=%s %s' % (cin, cout, k, kw), 'conv_transpose2d', kw, [('x', x), ('weight', w), ('bias', b)],
               lambda m, x, w, b, kw=kw: F.conv_transpose2d(x, w, b, **kw))
    g.case('conv_transpose2d no bias', 'conv_transpose2d', {'stride': 2, 'padding': 1}, [('x', g.randn(1, 2, 3, 3)), ('weight', g.randn(2, 2, 3, 3))],
           lambda m, x, w: F.conv_transpose2d(x, w, stride=2, padding=1))

    # -------------------------------------------------------------------------------------------
    # convolution modules (state dicts), padding_mode

    for mode in ['zeros', 'reflect', 'replicate', 'circular']:
        for bias in [True, False] if mode in ('zeros', 'circular') else [True]:
            m = randomise(nn.Conv2d(2, 3, (3, 2), stride=(1, 2), padding=(2, 1), padding_mode=mode, bias=bias))
            args = {'in_channels': 2, 'out_channels': 3, 'kernel_size': [3, 2], 'stride': [1, 2], 'padding': [2, 1], 'padding_mode': mode, 'bias': bias}
            g.case('Conv2d padding_mode=%s bias=%s' % (mode, bias), 'Conv2d', args, [('x', g.randn(1, 2, 4, 5))], lambda m, x: m(x), module=m)
        m = randomise(nn.Conv1d(4, 2, 3, padding=2, dilation=2, groups=2, padding_mode=mode))
        args = {'in_channels': 4, 'out_channels': 2, 'kernel_size': 3, 'padding': 2, 'dilation': 2, 'groups': 2, 'padding_mode': mode, 'bias': True}
        g.case('Conv1d padding_mode=%s groups=2' % mode, 'Conv1d', args, [('x', g.randn(1, 4, 6))], lambda m, x: m(x), module=m)
    for mode in ['reflect', 'circular']:
        m = randomise(nn.Conv2d(2, 2, 3, padding='same', padding_mode=mode))
        args = {'in_channels': 2, 'out_channels': 2, 'kernel_size': [3, 3], 'padding': 'same', 'padding_mode': mode, 'bias': True}
        g.case('Conv2d padding=same padding_mode=%s' % mode, 'Conv2d', args, [('x', g.randn(1, 2, 4, 4))], lambda m, x: m(x), module=m)
        m = randomise(nn.Conv1d(2, 2, 4, padding='same', padding_mode=mode))
        args = {'in_channels': 2, 'out_channels': 2, 'kernel_size': 4, 'padding': 'same', 'padding_mode': mode, 'bias': True}
        g.case('Conv1d padding=same k=4 padding_mode=%s' % mode, 'Conv1d', args, [('x', g.randn(1, 2, 6))], lambda m, x: m(x), module=m)
    m = randomise(nn.Conv2d(3, 3, 3, groups=3, bias=False))
    g.case('Conv2d depthwise no bias unbatched', 'Conv2d', {'in_channels': 3, 'out_channels': 3, 'kernel_size': [3, 3], 'groups': 3, 'bias': False},
           [('x', g.randn(3, 5, 4))], lambda m, x: m(x), module=m)
    m = randomise(nn.ConvTranspose2d(4, 2, (3, 2), stride=2, padding=(1, 0), output_padding=(1, 0), groups=2, dilation=(1, 2)))
    g.case('ConvTranspose2d groups=2', 'ConvTranspose2d', {'in_channels': 4, 'out_channels': 2, 'kernel_size': [3, 2], 'stride': [2, 2], 'padding': [1, 0], 'output_padding': [1, 0], 'groups': 2, 'dilation': [1, 2], 'bias': True},
           [('x', g.randn(2, 4, 3, 3))], lambda m, x: m(x), module=m)
    m = randomise(nn.ConvTranspose1d(2, 3, 3, stride=2, bias=False))
    g.case('ConvTranspose1d no bias', 'ConvTranspose1d', {'in_channels': 2, 'out_channels': 3, 'kernel_size': 3, 'stride': 2, 'bias': False},
           [('x', g.randn(2, 2, 4))], lambda m, x: m(x), module=m)

    # -------------------------------------------------------------------------------------------
    # pooling

    x6 = g.randn(1, 2, 5, 6)
    mp2 = [
        (2, {'stride': 2, 'padding': 1, 'ceil_mode': True}),          # the last window would start in the padding: dropped
        (3, {'stride': 2, 'padding': 1, 'ceil_mode': True}),
        ([2, 3], {'stride': [3, 2], 'padding': [1, 1], 'ceil_mode': True}),
        (3, {'stride': 3, 'ceil_mode': True}),
        (2, {'stride': 3}),                                            # stride > kernel
        (3, {'stride': 1, 'padding': 1}),
        (2, {'stride': 1, 'dilation': [2, 3]}),
        (3, {'stride': 2, 'padding': 1, 'dilation': 2, 'ceil_mode': True}),
        ([5, 6], {}),                                                  # kernel = input
        (1, {'stride': 2}),
    ]
    for k, kw in mp2:
        g.case('max_pool2d k=%s %s' % (k, kw), 'max_pool2d', dict(kw, kernel_size=k), [('x', x6)], lambda m, x, k=k, kw=kw: F.max_pool2d(x, k, **kw))
    g.case('max_pool2d unbatched', 'max_pool2d', {'kernel_size': 2, 'stride': 1}, [('x', g.randn(2, 3, 3))], lambda m, x: F.max_pool2d(x, 2, stride=1))
    g.case('max_pool2d return_indices', 'max_pool2d_with_indices', {'kernel_size': 2}, [('x', x6)],
           lambda m, x: F.max_pool2d(x, 2, return_indices=True)[0])
    ap2 = [
        (2, {'stride': 2, 'padding': 1, 'ceil_mode': True}),
        (2, {'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False}),
        (3, {'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': True}),
        ([2, 3], {'stride': [3, 2], 'padding': [1, 1], 'ceil_mode': True, 'count_include_pad': False}),
        (3, {'stride': 3, 'ceil_mode': True}),
        (3, {'stride': 3, 'ceil_mode': True, 'divisor_override': 4}),
        (3, {'stride': 2, 'padding': 1, 'count_include_pad': False, 'divisor_override': 2}),
        (2, {'stride': 3}),
        ([5, 6], {}),
        ([1, 2], {'stride': [2, 1], 'padding': [0, 1], 'count_include_pad': False}),
    ]
    for k, kw in ap2:
        g.case('avg_pool2d k=%s %s' % (k, kw), 'avg_pool2d', dict(kw, kernel_size=k), [('x', x6)], lambda m, x, k=k, kw=kw: F.avg_pool2d(x, k, **kw))
    g.case('avg_pool2d unbatched', 'avg_pool2d', {'kernel_size': 2, 'stride': 1, 'padding': 1}, [('x', g.randn(2, 3, 3))], lambda m, x: F.avg_pool2d(x, 2, stride=1, padding=1))
    x1 = g.randn(2, 2, 7)
    for k, kw in [(2, {'stride': 2, 'padding': 1, 'ceil_mode': True}), (3, {'stride': 2, 'padding': 1, 'ceil_mode': True}), (2, {'stride': 4}),
                  (3, {'stride': 2, 'padding': 1, 'dilation': 2, 'ceil_mode': True}), (7, {}), (4, {'stride': 3, 'padding': 2, 'ceil_mode': True})]:
        g.case('max_pool1d k=%s %s' % (k, kw), 'max_pool1d', dict(kw, kernel_size=k), [('x', x1)], lambda m, x, k=k, kw=kw: F.max_pool1d(x, k, **kw))
    for k, kw in [(2, {'stride': 2, 'padding': 1, 'ceil_mode': True}), (2, {'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False}),
                  (4, {'stride': 3, 'padding': 2, 'ceil_mode': True}), (4, {'stride': 3, 'padding': 2, 'ceil_mode': True, 'count_include_pad': False}), (2, {'stride': 4}), (7, {})]:
        g.case('avg_pool1d k=%s %s' % (k, kw), 'avg_pool1d', dict(kw, kernel_size=k), [('x', x1)], lambda m, x, k=k, kw=kw: F.avg_pool1d(x, k, **kw))
    g.case('max_pool1d unbatched', 'max_pool1d', {'kernel_size': 3, 'stride': 2, 'padding': 1}, [('x', g.randn(3, 6))], lambda m, x: F.max_pool1d(x, 3, stride=2, padding=1))
    g.case('avg_pool1d unbatched', 'avg_pool1d', {'kernel_size': 3, 'stride': 2, 'padding': 1}, [('x', g.randn(3, 6))], lambda m, x: F.avg_pool1d(x, 3, stride=2, padding=1))
    x3 = g.randn(1, 1, 4, 4, 4)
    g.case('max_pool3d', 'max_pool3d', {'kernel_size': 2, 'stride': 2, 'ceil_mode': True}, [('x', x3)], lambda m, x: F.max_pool3d(x, 2, stride=2, ceil_mode=True))
    g.case('avg_pool3d', 'avg_pool3d', {'kernel_size': 3, 'stride': 2, 'padding': 1}, [('x', x3)], lambda m, x: F.avg_pool3d(x, 3, stride=2, padding=1))
    g.case('adaptive_avg_pool3d', 'adaptive_avg_pool3d', {'output_size': [3, 2, 3]}, [('x', x3)], lambda m, x: F.adaptive_avg_pool3d(x, [3, 2, 3]))
    g.case('adaptive_max_pool3d', 'adaptive_max_pool3d', {'output_size': [3, 2, 4]}, [('x', x3)], lambda m, x: F.adaptive_max_pool3d(x, [3, 2, 4]))
    g.case('lp_pool2d p=2', 'lp_pool2d', {'norm_type': 2.0, 'kernel_size': 2}, [('x', x6)], lambda m, x: F.lp_pool2d(x, 2.0, 2))
    g.case('lp_pool1d p=3', 'lp_pool1d', {'norm_type': 3.0, 'kernel_size': 3, 'stride': 2}, [('x', x1)], lambda m, x: F.lp_pool1d(x, 3.0, 3, stride=2))
    xa = g.randn(1, 2, 7, 5)
    for out in [[4, 3], [3, 5], [7, 2], [10, 8], [1, 4], [5, None]]:
        g.case('adaptive_avg_pool2d %s' % out, 'adaptive_avg_pool2d', {'output_size': out}, [('x', xa)], lambda m, x, out=out: F.adaptive_avg_pool2d(x, out))
        g.case('adaptive_max_pool2d %s' % out, 'adaptive_max_pool2d', {'output_size': out}, [('x', xa)], lambda m, x, out=out: F.adaptive_max_pool2d(x, out))
    g.case('adaptive_avg_pool2d unbatched', 'adaptive_avg_pool2d', {'output_size': [2, 3]}, [('x', g.randn(2, 5, 4))], lambda m, x: F.adaptive_avg_pool2d(x, [2, 3]))
    g.case('adaptive_max_pool2d unbatched', 'adaptive_max_pool2d', {'output_size': [2, 3]}, [('x', g.randn(2, 5, 4))], lambda m, x: F.adaptive_max_pool2d(x, [2, 3]))
    g.case('adaptive_avg_pool1d unbatched 3', 'adaptive_avg_pool1d', {'output_size': 3}, [('x', g.randn(2, 8))], lambda m, x: F.adaptive_avg_pool1d(x, 3))
    g.case('adaptive_max_pool1d unbatched 3', 'adaptive_max_pool1d', {'output_size': 3}, [('x', g.randn(2, 8))], lambda m, x: F.adaptive_max_pool1d(x, 3))
    for out in [5, 11, 16]:
        xl = g.randn(1, 2, 11)
        g.case('adaptive_avg_pool1d 11->%d' % out, 'adaptive_avg_pool1d', {'output_size': out}, [('x', xl)], lambda m, x, out=out: F.adaptive_avg_pool1d(x, out))
        g.case('adaptive_max_pool1d 11->%d' % out, 'adaptive_max_pool1d', {'output_size': out}, [('x', xl)], lambda m, x, out=out: F.adaptive_max_pool1d(x, out))

    # -------------------------------------------------------------------------------------------
    # embedding

    ids = torch.tensor([[1, 3, 0, 3], [4, 1, 1, 2]])
    for pad in [None, 1, -1]:
        m = randomise(nn.Embedding(5, 3, padding_idx=pad), scale=1.0)
        g.case('Embedding padding_idx=%s' % pad, 'Embedding', {'num_embeddings': 5, 'embedding_dim': 3, 'padding_idx': pad}, [('indices', ids)], lambda m, i: m(i), module=m)
    g.case('Embedding padding_idx=4 (index 4 used)', 'Embedding', {'num_embeddings': 5, 'embedding_dim': 3, 'padding_idx': 4}, [('indices', ids)],
           lambda m, i: m(i), module=randomise(nn.Embedding(5, 3, padding_idx=4), scale=1.0))
    g.case('Embedding 1-D indices', 'Embedding', {'num_embeddings': 5, 'embedding_dim': 3}, [('indices', torch.tensor([0, 0, 4, 2, 0]))],
           lambda m, i: m(i), module=randomise(nn.Embedding(5, 3), scale=1.0))
    # max_norm renormalises the rows a lookup reads, in the table: the table after the lookup is the second output.
    for kw in [{'max_norm': 1.0}, {'max_norm': 1.5, 'norm_type': 1.0}, {'max_norm': 0.8, 'padding_idx': 3}]:
        m = randomise(nn.Embedding(5, 3, **kw), scale=1.0)
        g.case('Embedding %s' % ' '.join('%s=%s' % e for e in kw.items()), 'Embedding', dict(kw, num_embeddings=5, embedding_dim=3), [('indices', ids)],
               lambda m, i: (m(i), m.weight.detach().clone()), module=m)
    g.case('EmbeddingBag mean', 'EmbeddingBag', {'num_embeddings': 5, 'embedding_dim': 3, 'mode': 'mean'}, [('indices', torch.tensor([1, 2, 4, 4, 3])), ('offsets', torch.tensor([0, 2]))],
           lambda m, i, o: m(i, o), module=randomise(nn.EmbeddingBag(5, 3, mode='mean'), scale=1.0))

    # -------------------------------------------------------------------------------------------
    # recurrent layers

    I, Hd, N, L = 3, 2, 2, 4
    for name, cls in [('LSTM', nn.LSTM), ('GRU', nn.GRU)]:
        variants = [
            ({'num_layers': 1, 'bidirectional': False, 'batch_first': False, 'bias': True}, L),
            ({'num_layers': 2, 'bidirectional': True, 'batch_first': False, 'bias': True}, L),
            ({'num_layers': 3, 'bidirectional': False, 'batch_first': True, 'bias': True}, L),
            ({'num_layers': 2, 'bidirectional': True, 'batch_first': True, 'bias': False}, L),
            ({'num_layers': 2, 'bidirectional': True, 'batch_first': True, 'bias': True}, 1),
            ({'num_layers': 1, 'bidirectional': False, 'batch_first': False, 'bias': False}, 1),
        ]
        for kw, length in variants:
            m = randomise(cls(I, Hd, dropout=0.0, **kw))
            args = dict(kw, input_size=I, hidden_size=Hd, dropout=0.0)
            D = kw['num_layers'] * (2 if kw['bidirectional'] else 1)
            x = g.randn(N, length, I) if kw['batch_first'] else g.randn(length, N, I)
            nm = '%s %s L=%d' % (name, ' '.join('%s=%s' % kv for kv in kw.items()), length)
            if name == 'LSTM':
                g.case(nm, name, args, [('input', x), ('h0', g.randn(D, N, Hd)), ('c0', g.randn(D, N, Hd))],
                       lambda m, x, h, c: (lambda o: (o[0], o[1][0], o[1][1]))(m(x, (h, c))), module=m)
            else:
                g.case(nm, name, args, [('input', x), ('h0', g.randn(D, N, Hd))], lambda m, x, h: m(x, h), module=m)
    m = randomise(nn.LSTM(I, Hd, proj_size=1, batch_first=True))
    g.case('LSTM proj_size=1', 'LSTM_proj', {'input_size': I, 'hidden_size': Hd, 'proj_size': 1, 'batch_first': True}, [('input', g.randn(N, L, I))],
           lambda m, x: (lambda o: (o[0], o[1][0], o[1][1]))(m(x)), module=m)
    for nl in ['tanh', 'relu']:
        for kw in [{'num_layers': 1, 'bidirectional': False, 'batch_first': True, 'bias': True}, {'num_layers': 2, 'bidirectional': True, 'batch_first': False, 'bias': False}]:
            m = randomise(nn.RNN(I, Hd, nonlinearity=nl, **kw))
            args = dict(kw, input_size=I, hidden_size=Hd, nonlinearity=nl)
            D = kw['num_layers'] * (2 if kw['bidirectional'] else 1)
            x = g.randn(N, L, I) if kw['batch_first'] else g.randn(L, N, I)
            g.case('RNN %s %s' % (nl, ' '.join('%s=%s' % kv for kv in kw.items())), 'RNN', args, [('input', x), ('h0', g.randn(D, N, Hd))],
                   lambda m, x, h: m(x, h), module=m)

    for name, cls in [('LSTM', nn.LSTM), ('GRU', nn.GRU), ('RNN', nn.RNN)]:
        for bf in [True, False]:
            m = randomise(cls(I, Hd, num_layers=1, bidirectional=True, batch_first=bf))
            args = {'num_layers': 1, 'bidirectional': True, 'batch_first': bf, 'bias': True, 'input_size': I, 'hidden_size': Hd, 'dropout': 0.0}
            x, h0 = g.randn(L, I), g.randn(2, Hd)
            if name == 'LSTM':
                g.case('%s unbatched batch_first=%s' % (name, bf), name, args, [('input', x), ('h0', h0), ('c0', g.randn(2, Hd))],
                       lambda m, x, h, c: (lambda o: (o[0], o[1][0], o[1][1]))(m(x, (h, c))), module=m)
            else:
                g.case('%s unbatched batch_first=%s' % (name, bf), name, args, [('input', x), ('h0', h0)], lambda m, x, h: m(x, h), module=m)

    # -------------------------------------------------------------------------------------------
    # multi-head attention

    E, Hh, S = 4, 2, 5
    q, k, v = g.randn(N, 4, E), g.randn(N, S, E), g.randn(N, S, E)
    kpm = torch.tensor([[False, True, False, False, True], [False, False, False, False, False]])
    bm = torch.tensor([[False, True, False, False, False], [False, False, False, True, False], [True, False, True, False, False], [False, False, False, False, True]])
    fm3 = g.randn(N * Hh, 4, S)
    base = {'embed_dim': E, 'num_heads': Hh, 'batch_first': True}
    for bias in [True, False]:
        m = randomise(nn.MultiheadAttention(E, Hh, batch_first=True, bias=bias))
        a = dict(base, bias=bias)
        sfx = '' if bias else ' bias=False'
        if not bias:
            g.case('MultiheadAttention cross' + sfx, 'MultiheadAttention', a, [('query', q), ('key', k), ('value', v)],
                   lambda m, q, k, v: m(q, k, v, need_weights=False)[0], module=m)
            continue
        g.case('MultiheadAttention cross weights' + sfx, 'MultiheadAttention', dict(a, need_weights=True), [('query', q), ('key', k), ('value', v)],
               lambda m, q, k, v: m(q, k, v), module=m)
        g.case('MultiheadAttention key_padding_mask + bool mask' + sfx, 'MultiheadAttention', dict(a, need_weights=True),
               [('query', q), ('key', k), ('value', v), ('key_padding_mask', kpm), ('attn_mask', bm)],
               lambda m, q, k, v, kp, am: m(q, k, v, key_padding_mask=kp, attn_mask=am), module=m)
    m = randomise(nn.MultiheadAttention(E, Hh, batch_first=True))
    g.case('MultiheadAttention 3-D float mask + key_padding_mask', 'MultiheadAttention', dict(base, need_weights=True),
           [('query', q), ('key', k), ('value', v), ('attn_mask', fm3), ('key_padding_mask', kpm)],
           lambda m, q, k, v, am, kp: m(q, k, v, attn_mask=am, key_padding_mask=kp), module=m, grad=['query', 'key', 'value', 'attn_mask'])
    qs = g.randn(N, S, E)
    g.case('MultiheadAttention self key_padding_mask', 'MultiheadAttention', base, [('query', qs), ('key_padding_mask', kpm)],
           lambda m, x, kp: m(x, x, x, key_padding_mask=kp, need_weights=False)[0], module=m)
    g.case('MultiheadAttention per-head weights', 'MultiheadAttention_per_head', dict(base, average_attn_weights=False), [('query', q), ('key', k), ('value', v)],
           lambda m, q, k, v: m(q, k, v, average_attn_weights=False), module=m)
    mf = randomise(nn.MultiheadAttention(E, Hh))
    g.case('MultiheadAttention batch_first=False', 'MultiheadAttention', dict(base, batch_first=False), [('query', q.transpose(0, 1).contiguous()), ('key', k.transpose(0, 1).contiguous()), ('value', v.transpose(0, 1).contiguous())],
           lambda m, q, k, v: m(q, k, v, need_weights=False)[0], module=mf)
    mk = randomise(nn.MultiheadAttention(E, Hh, batch_first=True, kdim=3, vdim=2))
    g.case('MultiheadAttention kdim=3 vdim=2', 'MultiheadAttention_kvdim', dict(base, kdim=3, vdim=2), [('query', q), ('key', g.randn(N, S, 3)), ('value', g.randn(N, S, 2))],
           lambda m, q, k, v: m(q, k, v, need_weights=False)[0], module=mk)
    mb = randomise(nn.MultiheadAttention(E, Hh, batch_first=True, add_bias_kv=True, add_zero_attn=True))
    g.case('MultiheadAttention add_bias_kv add_zero_attn', 'MultiheadAttention_bias_kv', dict(base, add_bias_kv=True, add_zero_attn=True), [('query', q), ('key', k), ('value', v)],
           lambda m, q, k, v: m(q, k, v, need_weights=False)[0], module=mb)

    # -------------------------------------------------------------------------------------------
    # linear, bilinear

    for bias in [True, False]:
        m = randomise(nn.Linear(4, 3, bias=bias))
        g.case('Linear bias=%s' % bias, 'Linear', {'in_features': 4, 'out_features': 3, 'bias': bias}, [('x', g.randn(2, 3, 4))], lambda m, x: m(x), module=m)
    m = randomise(nn.Linear(4, 3))
    g.case('Linear 1-D input', 'Linear', {'in_features': 4, 'out_features': 3, 'bias': True}, [('x', g.randn(4))], lambda m, x: m(x), module=m)
    g.case('F.linear', 'linear', {}, [('x', g.randn(3, 4)), ('weight', g.randn(2, 4)), ('bias', g.randn(2))], lambda m, x, w, b: F.linear(x, w, b))
    g.case('Bilinear', 'Bilinear', {'in1_features': 3, 'in2_features': 4, 'out_features': 2}, [('x1', g.randn(5, 3)), ('x2', g.randn(5, 4))],
           lambda m, a, b: m(a, b), module=randomise(nn.Bilinear(3, 4, 2)))

    # -------------------------------------------------------------------------------------------
    # normalisation modules: LocalResponseNorm, BatchNorm running statistics

    g.case('LocalResponseNorm size=3', 'LocalResponseNorm', {'size': 3}, [('x', g.randn(2, 5, 3, 2))], lambda m, x: F.local_response_norm(x, 3))

    def bn_run(steps):
        # The output of the last forward, then the running statistics (restored afterwards, so the
        # float64 repeat starts from the same state).
        def fn(m, x):
            saved = {k: v.clone() for k, v in m.named_buffers()}
            y = None
            for i in range(steps):
                y = m(x if i == 0 else x * (1 + i) - 0.5 * i)
            outs = (y,) + tuple(b.clone() for b in [m.running_mean, m.running_var] if b is not None)
            for k, v in saved.items():
                setattr(m, k, v)  # not in place: the backward still reads the tensors the forward saw
            return outs
        return fn

    for cls, name, shape in [(nn.BatchNorm1d, 'BatchNorm1d', (4, 3)), (nn.BatchNorm1d, 'BatchNorm1d', (4, 3, 5)), (nn.BatchNorm2d, 'BatchNorm2d', (2, 3, 2, 3))]:
        for momentum, steps, affine, track in [(0.1, 1, True, True), (0.5, 2, True, True), (None, 3, True, True), (0.1, 1, False, True), (0.1, 1, True, False)]:
            m = cls(3, momentum=momentum, affine=affine, track_running_stats=track)
            if affine:
                randomise(m)
            with torch.no_grad():
                if track:
                    m.running_mean.copy_(g.randn(3))
                    m.running_var.copy_(g.rand(3, lo=0.5, hi=2.0))
            args = {'num_features': 3, 'momentum': momentum, 'affine': affine, 'track_running_stats': track, 'steps': steps, 'training': True}
            g.case('%s %s momentum=%s steps=%d affine=%s track=%s' % (name, list(shape), momentum, steps, affine, track), name, args,
                   [('x', g.randn(*shape, scale=2.0) + 1.0)], bn_run(steps), module=m)
        m = randomise(cls(3))
        with torch.no_grad():
            m.running_mean.copy_(g.randn(3))
            m.running_var.copy_(g.rand(3, lo=0.5, hi=2.0))
        m.eval()
        g.case('%s %s eval' % (name, list(shape)), name, {'num_features': 3, 'momentum': 0.1, 'affine': True, 'track_running_stats': True, 'steps': 1, 'training': False},
               [('x', g.randn(*shape))], bn_run(1), module=m)
    m = nn.BatchNorm1d(3, momentum=None)
    with torch.no_grad():
        m.num_batches_tracked.fill_(4)  # a loaded counter: the cumulative average continues from it
        m.running_mean.copy_(g.randn(3))
    g.case('BatchNorm1d momentum=None num_batches_tracked=4', 'BatchNorm1d', {'num_features': 3, 'momentum': None, 'affine': True, 'track_running_stats': True, 'steps': 2, 'training': True},
           [('x', g.randn(4, 3))], bn_run(2), module=m)
    m = nn.BatchNorm2d(3, track_running_stats=False)
    m.eval()
    g.case('BatchNorm2d eval track=False', 'BatchNorm2d', {'num_features': 3, 'momentum': 0.1, 'affine': True, 'track_running_stats': False, 'steps': 1, 'training': False},
           [('x', g.randn(2, 3, 2, 2))], bn_run(1), module=randomise(m))
    m = randomise(nn.ConvTranspose2d(2, 2, 3, stride=2))
    g.case('ConvTranspose2d output_size', 'ConvTranspose2d_output_size', {'in_channels': 2, 'out_channels': 2, 'kernel_size': [3, 3], 'stride': [2, 2], 'output_size': [8, 8]},
           [('x', g.randn(1, 2, 3, 3))], lambda m, x: m(x, output_size=[8, 8]), module=m)

    # -------------------------------------------------------------------------------------------
    # non-finite values, empty batches, fully masked rows

    nf = torch.tensor([[[[1.0, float('nan'), 2.0, -1.0, 0.5], [float('inf'), 0.0, -2.0, 3.0, 1.0], [-float('inf'), -float('inf'), 4.0, float('nan'), 2.0],
                         [0.0, 1.0, -float('inf'), 2.0, -1.0]]]])
    for ks, kw in [(2, {}), (2, {'stride': 1}), (3, {'stride': 2, 'padding': 1, 'ceil_mode': True}), (2, {'stride': 2, 'padding': 1})]:
        g.case('max_pool2d non-finite k=%s %s' % (ks, kw), 'max_pool2d', dict(kw, kernel_size=ks), [('x', nf)], lambda m, x, ks=ks, kw=kw: F.max_pool2d(x, ks, **kw))
        g.case('avg_pool2d non-finite k=%s %s' % (ks, kw), 'avg_pool2d', dict(kw, kernel_size=ks), [('x', nf)], lambda m, x, ks=ks, kw=kw: F.avg_pool2d(x, ks, **kw))
    # Without a gradient to route the pools take another path (a plain maximum): the same values.
    g.case('max_pool2d non-finite no grad', 'max_pool2d', {'kernel_size': 2, 'stride': 1, 'padding': 1}, [('x', nf)], lambda m, x: F.max_pool2d(x, 2, stride=1, padding=1), grad=[])
    g.case('max_pool2d non-finite tiled no grad', 'max_pool2d', {'kernel_size': 2}, [('x', nf)], lambda m, x: F.max_pool2d(x, 2), grad=[])
    g.case('adaptive_max_pool2d non-finite no grad', 'adaptive_max_pool2d', {'output_size': [3, 2]}, [('x', nf)], lambda m, x: F.adaptive_max_pool2d(x, [3, 2]), grad=[])
    g.case('conv_transpose2d unbatched', 'conv_transpose2d', {'stride': 2, 'padding': 1, 'groups': 2}, [('x', g.randn(2, 3, 2)), ('weight', g.randn(2, 2, 3, 3)), ('bias', g.randn(4))],
           lambda m, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, groups=2))
    ninf = torch.full((1, 1, 3, 3), float('-inf'))
    ninf[0, 0, 2, 2] = 1.0
    g.case('max_pool2d -inf windows padded', 'max_pool2d', {'kernel_size': 3, 'stride': 2, 'padding': 1}, [('x', ninf)], lambda m, x: F.max_pool2d(x, 3, stride=2, padding=1))
    g.case('max_pool1d -inf windows padded ceil', 'max_pool1d', {'kernel_size': 2, 'stride': 2, 'padding': 1, 'ceil_mode': True},
           [('x', torch.tensor([[[-float('inf'), -float('inf'), 1.0, -float('inf'), -float('inf')]]]))], lambda m, x: F.max_pool1d(x, 2, stride=2, padding=1, ceil_mode=True))
    ties = torch.tensor([[[[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]]]])
    g.case('max_pool2d ties overlapping', 'max_pool2d', {'kernel_size': 2, 'stride': 1}, [('x', ties)], lambda m, x: F.max_pool2d(x, 2, stride=1))
    g.case('max_pool2d ties padded dilated', 'max_pool2d', {'kernel_size': 3, 'stride': 1, 'padding': 1, 'dilation': 2}, [('x', ties)], lambda m, x: F.max_pool2d(x, 3, stride=1, padding=1, dilation=2))
    g.case('adaptive_max_pool2d ties', 'adaptive_max_pool2d', {'output_size': [3, 3]}, [('x', ties)], lambda m, x: F.adaptive_max_pool2d(x, [3, 3]))
    g.case('adaptive_max_pool2d non-finite', 'adaptive_max_pool2d', {'output_size': [3, 2]}, [('x', nf)], lambda m, x: F.adaptive_max_pool2d(x, [3, 2]))
    g.case('adaptive_avg_pool2d non-finite', 'adaptive_avg_pool2d', {'output_size': [3, 2]}, [('x', nf)], lambda m, x: F.adaptive_avg_pool2d(x, [3, 2]))
    g.case('avg_pool1d stride>kernel ceil', 'avg_pool1d', {'kernel_size': 2, 'stride': 3, 'ceil_mode': True}, [('x', g.randn(1, 2, 7))], lambda m, x: F.avg_pool1d(x, 2, stride=3, ceil_mode=True))
    g.case('max_pool1d stride>kernel ceil', 'max_pool1d', {'kernel_size': 2, 'stride': 3, 'ceil_mode': True}, [('x', g.randn(1, 2, 7))], lambda m, x: F.max_pool1d(x, 2, stride=3, ceil_mode=True))
    g.case('avg_pool2d stride>kernel ceil pad no-count', 'avg_pool2d', {'kernel_size': 2, 'stride': 3, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False},
           [('x', g.randn(1, 1, 6, 7))], lambda m, x: F.avg_pool2d(x, 2, stride=3, padding=1, ceil_mode=True, count_include_pad=False))
    g.case('conv2d non-finite input', 'conv2d', {'padding': 1}, [('x', nf), ('weight', g.randn(2, 1, 2, 2)), ('bias', g.randn(2))], lambda m, x, w, b: F.conv2d(x, w, b, padding=1), grad=['weight', 'bias'])
    g.case('conv_transpose2d padding>kernel', 'conv_transpose2d', {'stride': 3, 'padding': 2}, [('x', g.randn(1, 2, 3, 3)), ('weight', g.randn(2, 2, 2, 3)), ('bias', g.randn(2))],
           lambda m, x, w, b: F.conv_transpose2d(x, w, b, stride=3, padding=2))
    g.case('conv_transpose1d padding>kernel', 'conv_transpose1d', {'stride': 4, 'padding': 3, 'output_padding': 3}, [('x', g.randn(1, 2, 4)), ('weight', g.randn(2, 2, 2)), ('bias', g.randn(2))],
           lambda m, x, w, b: F.conv_transpose1d(x, w, b, stride=4, padding=3, output_padding=3))

    empty = g.randn(0, 2, 5, 4)
    g.case('conv2d empty batch', 'conv2d', {'padding': 1}, [('x', empty), ('weight', g.randn(3, 2, 3, 3)), ('bias', g.randn(3))], lambda m, x, w, b: F.conv2d(x, w, b, padding=1))
    g.case('conv_transpose2d empty batch', 'conv_transpose2d', {'stride': 2}, [('x', empty), ('weight', g.randn(2, 3, 2, 2)), ('bias', g.randn(3))], lambda m, x, w, b: F.conv_transpose2d(x, w, b, stride=2))
    g.case('max_pool2d empty batch', 'max_pool2d', {'kernel_size': 2}, [('x', empty)], lambda m, x: F.max_pool2d(x, 2))
    g.case('avg_pool2d empty batch', 'avg_pool2d', {'kernel_size': 2, 'padding': 1}, [('x', empty)], lambda m, x: F.avg_pool2d(x, 2, padding=1))
    g.case('adaptive_avg_pool2d empty batch', 'adaptive_avg_pool2d', {'output_size': [2, 3]}, [('x', empty)], lambda m, x: F.adaptive_avg_pool2d(x, [2, 3]))
    g.case('adaptive_max_pool2d empty batch', 'adaptive_max_pool2d', {'output_size': [2, 3]}, [('x', empty)], lambda m, x: F.adaptive_max_pool2d(x, [2, 3]))
    m = randomise(nn.Linear(4, 3))
    g.case('Linear empty batch', 'Linear', {'in_features': 4, 'out_features': 3, 'bias': True}, [('x', g.randn(0, 4))], lambda m, x: m(x), module=m)
    m = randomise(nn.Linear(0, 3))
    g.case('Linear in_features=0', 'Linear', {'in_features': 0, 'out_features': 3, 'bias': True}, [('x', g.randn(2, 0))], lambda m, x: m(x), module=m)
    m = randomise(nn.GRU(3, 2, batch_first=True))
    g.case('GRU empty batch', 'GRU', {'input_size': 3, 'hidden_size': 2, 'num_layers': 1, 'bidirectional': False, 'batch_first': True, 'bias': True, 'dropout': 0.0},
           [('input', g.randn(0, 4, 3))], lambda m, x: m(x), module=m)
    m = randomise(nn.Embedding(4, 2))
    g.case('Embedding empty indices', 'Embedding', {'num_embeddings': 4, 'embedding_dim': 2}, [('indices', torch.zeros(2, 0, dtype=torch.int64))], lambda m, i: m(i), module=m)
    g.case('Embedding scalar index', 'Embedding', {'num_embeddings': 4, 'embedding_dim': 2}, [('indices', torch.tensor(3))], lambda m, i: m(i), module=m)

    m = randomise(nn.MultiheadAttention(E, Hh, batch_first=True))
    allpad = torch.tensor([[True, True, True, True, True], [False, True, False, True, False]])
    g.case('MultiheadAttention fully padded row', 'MultiheadAttention', dict(base, need_weights=True), [('query', q), ('key', k), ('value', v), ('key_padding_mask', allpad)],
           lambda m, q, k, v, kp: m(q, k, v, key_padding_mask=kp), module=m)
    rowmask = torch.zeros(4, S, dtype=torch.bool)
    rowmask[2] = True
    g.case('MultiheadAttention fully masked query', 'MultiheadAttention', dict(base, need_weights=True), [('query', q), ('key', k), ('value', v), ('attn_mask', rowmask)],
           lambda m, q, k, v, am: m(q, k, v, attn_mask=am), module=m)
    bm3 = g.rand(N * Hh, 4, S) > 0.6
    bm3[..., 0] = False
    g.case('MultiheadAttention 3-D bool mask', 'MultiheadAttention', dict(base, need_weights=True), [('query', q), ('key', k), ('value', v), ('attn_mask', bm3)],
           lambda m, q, k, v, am: m(q, k, v, attn_mask=am), module=m)
    g.case('MultiheadAttention L=S=1', 'MultiheadAttention', dict(base, need_weights=True), [('query', g.randn(N, 1, E)), ('key', g.randn(N, 1, E)), ('value', g.randn(N, 1, E))],
           lambda m, q, k, v: m(q, k, v), module=m)
    g.case('MultiheadAttention is_causal', 'MultiheadAttention', dict(base, is_causal=True), [('query', qs), ('attn_mask', torch.ones(S, S, dtype=torch.bool).triu(1))],
           lambda m, x, am: m(x, x, x, attn_mask=am, need_weights=False)[0], module=m)
    fkpm = g.randn(N, S)
    g.case('MultiheadAttention float key_padding_mask', 'MultiheadAttention', dict(base, need_weights=True), [('query', q), ('key', k), ('value', v), ('key_padding_mask', fkpm)],
           lambda m, q, k, v, kp: m(q, k, v, key_padding_mask=kp), module=m)
    for bf in [True, False]:
        mu = randomise(nn.MultiheadAttention(E, Hh, batch_first=bf))
        g.case('MultiheadAttention unbatched batch_first=%s' % bf, 'MultiheadAttention', dict(base, batch_first=bf, need_weights=True),
               [('query', q[0]), ('key', k[0]), ('value', v[0]), ('key_padding_mask', kpm[0]), ('attn_mask', g.randn(Hh, 4, S))],
               lambda m, q, k, v, kp, am: m(q, k, v, key_padding_mask=kp, attn_mask=am), module=mu)
    m1 = randomise(nn.MultiheadAttention(E, 1, batch_first=True))
    g.case('MultiheadAttention one head', 'MultiheadAttention', dict(base, num_heads=1, need_weights=True), [('query', q), ('key', k), ('value', v)], lambda m, q, k, v: m(q, k, v), module=m1)

    # -------------------------------------------------------------------------------------------
    # medium sizes: past the small-case paths (tiled matmuls, long gathers, long sequences)

    xm = g.randn(1, 3, 13, 12)
    g.case('conv2d medium', 'conv2d', {'padding': 1, 'stride': [1, 2]}, [('x', xm), ('weight', g.randn(5, 3, 3, 3)), ('bias', g.randn(5))],
           lambda m, x, w, b: F.conv2d(x, w, b, padding=1, stride=[1, 2]))
    g.case('conv_transpose2d medium', 'conv_transpose2d', {'stride': 2, 'padding': 1, 'output_padding': 1}, [('x', g.randn(1, 4, 6, 5)), ('weight', g.randn(4, 3, 3, 3)), ('bias', g.randn(3))],
           lambda m, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1))
    g.case('max_pool2d medium', 'max_pool2d', {'kernel_size': 3, 'stride': 2, 'padding': 1, 'ceil_mode': True}, [('x', xm)], lambda m, x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True))
    g.case('avg_pool2d medium', 'avg_pool2d', {'kernel_size': 3, 'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False}, [('x', xm)],
           lambda m, x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False))
    g.case('adaptive_max_pool2d medium', 'adaptive_max_pool2d', {'output_size': [5, 4]}, [('x', xm)], lambda m, x: F.adaptive_max_pool2d(x, [5, 4]))
    m = randomise(nn.LSTM(3, 4, batch_first=True), scale=0.3)
    g.case('LSTM medium L=24', 'LSTM', {'input_size': 3, 'hidden_size': 4, 'num_layers': 1, 'bidirectional': False, 'batch_first': True, 'bias': True, 'dropout': 0.0},
           [('input', g.randn(1, 24, 3))], lambda m, x: (lambda o: (o[0], o[1][0], o[1][1]))(m(x)), module=m, tol={'rtol': 1e-4, 'atol': 1e-5})

    # -------------------------------------------------------------------------------------------
    # more normalisation modules: InstanceNorm running statistics, LayerNorm, GroupNorm

    def in_run(m, x):
        saved = {k: v.clone() for k, v in m.named_buffers()}
        y = m(x)
        outs = (y,) + tuple(b.clone() for b in [m.running_mean, m.running_var] if b is not None)
        for k, v in saved.items():
            setattr(m, k, v)
        return outs

    for cls, name, shape in [(nn.InstanceNorm1d, 'InstanceNorm1d', (2, 3, 5)), (nn.InstanceNorm2d, 'InstanceNorm2d', (2, 3, 2, 3)), (nn.InstanceNorm1d, 'InstanceNorm1d', (3, 4))]:
        for affine, track, training, momentum in [(True, True, True, 0.1), (False, True, True, 0.3), (True, True, False, 0.1), (True, False, True, 0.1), (True, False, False, 0.1)]:
            m = cls(3, affine=affine, track_running_stats=track, momentum=momentum)
            if affine:
                randomise(m)
            with torch.no_grad():
                if track:
                    m.running_mean.copy_(g.randn(3))
                    m.running_var.copy_(g.rand(3, lo=0.5, hi=2.0))
            m.train(training)
            args = {'num_features': 3, 'affine': affine, 'track_running_stats': track, 'momentum': momentum, 'training': training}
            g.case('%s %s affine=%s track=%s training=%s momentum=%s' % (name, list(shape), affine, track, training, momentum), name, args, [('x', g.randn(*shape, scale=2.0))], in_run, module=m)
    for shape, affine, eps in [([4], True, 1e-5), ([3, 4], True, 1e-3), ([4], False, 1e-5)]:
        m = nn.LayerNorm(shape, eps=eps, elementwise_affine=affine)
        if affine:
            randomise(m)
        g.case('LayerNorm %s affine=%s eps=%s' % (shape, affine, eps), 'LayerNorm', {'normalized_shape': shape, 'elementwise_affine': affine, 'eps': eps}, [('x', g.randn(2, 3, 4, scale=2.0))], lambda m, x: m(x), module=m)
    for groups, affine in [(2, True), (4, False), (1, True)]:
        m = nn.GroupNorm(groups, 4, affine=affine)
        if affine:
            randomise(m)
        g.case('GroupNorm groups=%d affine=%s' % (groups, affine), 'GroupNorm', {'num_groups': groups, 'num_channels': 4, 'affine': affine}, [('x', g.randn(2, 4, 3, scale=2.0))], lambda m, x: m(x), module=m)
    return g
