"""The 'layers3d' group: 3-D (volumetric) convolutions and pools, functional and as modules (state
dicts, padding modes), at the edges the 2-D ones are tested at: groups, dilation, 'same' with even
kernels, stride > kernel, kernel = input, output padding, ceil mode with the last window in the
padding, count_include_pad, divisor_override, non-divisible adaptive sizes, non-finite values and
ties, unbatched [C, D, H, W] inputs. Gradients of the inputs and the parameters."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make(gen):
    g = gen.Group('layers3d', 2e-5, 2e-5, '3-D convolutions and pools, functional and modules, at edge shapes and options')

    randomise = g.randomise

    # -------------------------------------------------------------------------------------------
    # conv3d

    conv = [
        (2, 3, [3, 3, 3], {'padding': 1}, (4, 5, 6)),
        (2, 4, [3, 3, 3], {'groups': 2, 'padding': 1}, (4, 4, 5)),
        (2, 4, [3, 2, 3], {'groups': 2, 'padding': [1, 0, 1], 'stride': 2}, (5, 4, 6)),
        (3, 3, [3, 3, 3], {'groups': 3, 'dilation': [2, 1, 1], 'padding': [2, 1, 0]}, (5, 4, 4)),   # depthwise
        (3, 6, [2, 2, 2], {'groups': 3, 'stride': [2, 3, 1], 'padding': 1, 'dilation': [1, 2, 2]}, (5, 6, 4)),   # multiplier 2
        (2, 2, [2, 2, 2], {'stride': [3, 4, 3]}, (7, 8, 7)),                # stride > kernel
        (2, 3, [2, 3, 4], {'padding': 'same'}, (4, 5, 6)),                  # even kernels: odd pad at the end
        (2, 2, [3, 2, 3], {'padding': 'same', 'dilation': [1, 2, 2]}, (4, 5, 5)),
        (2, 3, [3, 3, 3], {'padding': 'valid'}, (4, 5, 3)),
        (2, 3, [1, 1, 1], {}, (3, 4, 5)),                                   # 1x1x1
        (2, 3, [1, 1, 1], {'stride': 2}, (5, 4, 5)),
        (2, 3, [3, 4, 5], {}, (3, 4, 5)),                                   # kernel = input
        (2, 3, [3, 4, 5], {'padding': [1, 0, 2]}, (3, 4, 5)),
        (2, 2, [1, 3, 1], {'padding': [0, 2, 0], 'stride': [1, 2, 1]}, (3, 7, 4)),
    ]
    for i, (cin, cout, k, kw, (dd, hh, ww)) in enumerate(conv):
        x = g.randn(2 if i == 0 else 1, cin, dd, hh, ww)  # one batch of 2, the rest 1: a small fixture
        w = g.randn(cout, cin // kw.get('groups', 1), *k)
        b = g.randn(cout)
        g.case('conv3d %d->%d k=%s in=%dx%dx%d %s' % (cin, cout, k, dd, hh, ww, kw), 'conv3d', kw, [('x', x), ('weight', w), ('bias', b)],
               lambda m, x, w, b, kw=kw: F.conv3d(x, w, b, **kw))
    g.case('conv3d no bias unbatched stride 2', 'conv3d', {'stride': 2}, [('x', g.randn(2, 5, 4, 5)), ('weight', g.randn(3, 2, 2, 2, 2))], lambda m, x, w: F.conv3d(x, w, stride=2))
    g.case('conv3d unbatched groups padding same', 'conv3d', {'padding': 'same', 'groups': 2}, [('x', g.randn(4, 3, 4, 3)), ('weight', g.randn(2, 2, 3, 2, 3)), ('bias', g.randn(2))],
           lambda m, x, w, b: F.conv3d(x, w, b, padding='same', groups=2))
    g.case('conv3d batch 3 with inf', 'conv3d', {'padding': 1}, [('x', torch.tensor([1.0, float('inf'), 2.0]).repeat(3 * 2 * 3 * 3 * 3 // 3).reshape(3, 2, 3, 3, 3) * g.rand(3, 2, 3, 3, 3)),
                                                                 ('weight', g.randn(1, 2, 2, 2, 2)), ('bias', g.randn(1))],
           lambda m, x, w, b: F.conv3d(x, w, b, padding=1), grad=['bias'])

    # -------------------------------------------------------------------------------------------
    # conv_transpose3d

    ct = [
        (2, 3, [3, 3, 3], {}),
        (4, 6, [3, 2, 2], {'groups': 2, 'stride': [2, 3, 2], 'output_padding': [1, 2, 0]}),
        (3, 3, [3, 3, 3], {'groups': 3, 'dilation': 2, 'padding': 1}),                 # depthwise
        (2, 3, [2, 3, 2], {'dilation': [3, 1, 2], 'output_padding': [2, 0, 1]}),        # output_padding < dilation, stride 1
        (2, 3, [3, 3, 3], {'stride': 2, 'padding': [1, 2, 0], 'output_padding': [0, 1, 1]}),
        (2, 2, [1, 1, 1], {'stride': 3}),
        (2, 3, [2, 2, 2], {'stride': [4, 3, 3]}),                                       # stride > kernel: gaps
        (4, 4, [3, 3, 2], {'groups': 2, 'stride': 2, 'padding': 1, 'dilation': [2, 1, 1], 'output_padding': [1, 1, 0]}),
    ]
    for cin, cout, k, kw in ct:
        x = g.randn(1, cin, 3, 2, 3)
        w = g.randn(cin, cout // kw.get('groups', 1), *k)
        b = g.randn(cout)
        g.case('conv_transpose3d %d->%d k=%s %s' % (cin, cout, k, kw), 'conv_transpose3d', kw, [('x', x), ('weight', w), ('bias', b)],
               lambda m, x, w, b, kw=kw: F.conv_transpose3d(x, w, b, **kw))
    g.case('conv_transpose3d no bias batch 2', 'conv_transpose3d', {'stride': 2, 'padding': 1}, [('x', g.randn(2, 2, 2, 3, 2)), ('weight', g.randn(2, 2, 3, 3, 3))],
           lambda m, x, w: F.conv_transpose3d(x, w, stride=2, padding=1))
    g.case('conv_transpose3d unbatched groups', 'conv_transpose3d', {'stride': [2, 1, 2], 'padding': 1, 'groups': 2}, [('x', g.randn(2, 2, 3, 2)), ('weight', g.randn(2, 2, 3, 3, 3)), ('bias', g.randn(4))],
           lambda m, x, w, b: F.conv_transpose3d(x, w, b, stride=[2, 1, 2], padding=1, groups=2))

    # -------------------------------------------------------------------------------------------
    # modules (state dicts), padding_mode

    for mode in ['zeros', 'reflect', 'replicate', 'circular']:
        for bias in [True, False] if mode in ('zeros', 'circular') else [True]:
            m = randomise(nn.Conv3d(2, 3, (3, 2, 3), stride=(1, 2, 1), padding=(2, 1, 1), padding_mode=mode, bias=bias))
            args = {'in_channels': 2, 'out_channels': 3, 'kernel_size': [3, 2, 3], 'stride': [1, 2, 1], 'padding': [2, 1, 1], 'padding_mode': mode, 'bias': bias}
            g.case('Conv3d padding_mode=%s bias=%s' % (mode, bias), 'Conv3d', args, [('x', g.randn(1, 2, 3, 4, 5))], lambda m, x: m(x), module=m)
    for mode in ['reflect', 'circular', 'replicate']:
        m = randomise(nn.Conv3d(2, 2, (2, 3, 4), padding='same', padding_mode=mode, dilation=(1, 1, 1)))
        args = {'in_channels': 2, 'out_channels': 2, 'kernel_size': [2, 3, 4], 'padding': 'same', 'padding_mode': mode, 'bias': True}
        g.case('Conv3d padding=same even kernel padding_mode=%s' % mode, 'Conv3d', args, [('x', g.randn(1, 2, 3, 4, 5))], lambda m, x: m(x), module=m)
    m = randomise(nn.Conv3d(4, 2, 3, padding=2, dilation=2, groups=2, padding_mode='reflect'))
    g.case('Conv3d reflect groups=2 dilation=2 unbatched', 'Conv3d', {'in_channels': 4, 'out_channels': 2, 'kernel_size': [3, 3, 3], 'padding': [2, 2, 2], 'dilation': [2, 2, 2], 'groups': 2,
                                                                      'padding_mode': 'reflect', 'bias': True},
           [('x', g.randn(4, 3, 4, 3))], lambda m, x: m(x), module=m)
    m = randomise(nn.Conv3d(3, 3, 3, groups=3, bias=False))
    g.case('Conv3d depthwise no bias unbatched', 'Conv3d', {'in_channels': 3, 'out_channels': 3, 'kernel_size': [3, 3, 3], 'groups': 3, 'bias': False},
           [('x', g.randn(3, 4, 5, 4))], lambda m, x: m(x), module=m)
    m = randomise(nn.ConvTranspose3d(4, 2, (3, 2, 2), stride=2, padding=(1, 0, 1), output_padding=(1, 0, 1), groups=2, dilation=(1, 2, 1)))
    g.case('ConvTranspose3d groups=2', 'ConvTranspose3d', {'in_channels': 4, 'out_channels': 2, 'kernel_size': [3, 2, 2], 'stride': [2, 2, 2], 'padding': [1, 0, 1],
                                                          'output_padding': [1, 0, 1], 'groups': 2, 'dilation': [1, 2, 1], 'bias': True},
           [('x', g.randn(2, 4, 2, 3, 2))], lambda m, x: m(x), module=m)
    m = randomise(nn.ConvTranspose3d(2, 3, 3, stride=2, bias=False))
    g.case('ConvTranspose3d no bias unbatched', 'ConvTranspose3d', {'in_channels': 2, 'out_channels': 3, 'kernel_size': [3, 3, 3], 'stride': [2, 2, 2], 'bias': False},
           [('x', g.randn(2, 2, 3, 2))], lambda m, x: m(x), module=m)

    # -------------------------------------------------------------------------------------------
    # max_pool3d / avg_pool3d

    x5 = g.randn(1, 2, 5, 4, 6)
    mp = [
        (2, {}),                                                               # tiles (no gather)
        (2, {'stride': 2, 'padding': 1, 'ceil_mode': True}),                   # the last window would start in the padding: dropped
        (3, {'stride': 2, 'padding': 1, 'ceil_mode': True}),
        ([2, 3, 2], {'stride': [3, 2, 2], 'padding': [1, 1, 0], 'ceil_mode': True}),
        (3, {'stride': 3, 'ceil_mode': True}),
        (2, {'stride': 3}),                                                    # stride > kernel
        (3, {'stride': 1, 'padding': 1}),
        (2, {'stride': 1, 'dilation': [2, 1, 3]}),
        (3, {'stride': 2, 'padding': 1, 'dilation': 2, 'ceil_mode': True}),
        ([5, 4, 6], {}),                                                       # kernel = input
        (1, {'stride': 2}),
        ([2, 2, 3], {}),                                                       # tiles, a remainder cropped
    ]
    for k, kw in mp:
        g.case('max_pool3d k=%s %s' % (k, kw), 'max_pool3d', dict(kw, kernel_size=k), [('x', x5)], lambda m, x, k=k, kw=kw: F.max_pool3d(x, k, **kw))
    g.case('max_pool3d unbatched', 'max_pool3d', {'kernel_size': 2, 'stride': 1}, [('x', g.randn(2, 3, 3, 4))], lambda m, x: F.max_pool3d(x, 2, stride=1))
    g.case('max_pool3d unbatched tiled', 'max_pool3d', {'kernel_size': 2}, [('x', g.randn(2, 4, 3, 4))], lambda m, x: F.max_pool3d(x, 2))
    ap = [
        (2, {}),                                                               # tiles
        (2, {'stride': 2, 'padding': 1, 'ceil_mode': True}),
        (2, {'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False}),
        (3, {'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': True}),
        ([2, 3, 2], {'stride': [3, 2, 2], 'padding': [1, 1, 1], 'ceil_mode': True, 'count_include_pad': False}),
        (3, {'stride': 3, 'ceil_mode': True}),
        (3, {'stride': 3, 'ceil_mode': True, 'divisor_override': 4}),
        (3, {'stride': 2, 'padding': 1, 'count_include_pad': False, 'divisor_override': 2}),
        (2, {'divisor_override': 3}),                                          # tiles, but the override divides
        (2, {'stride': 3}),
        ([5, 4, 6], {}),
        ([1, 2, 1], {'stride': [2, 1, 1], 'padding': [0, 1, 0], 'count_include_pad': False}),
    ]
    for k, kw in ap:
        g.case('avg_pool3d k=%s %s' % (k, kw), 'avg_pool3d', dict(kw, kernel_size=k), [('x', x5)], lambda m, x, k=k, kw=kw: F.avg_pool3d(x, k, **kw))
    g.case('avg_pool3d unbatched', 'avg_pool3d', {'kernel_size': 2, 'stride': 1, 'padding': 1}, [('x', g.randn(2, 3, 3, 2))], lambda m, x: F.avg_pool3d(x, 2, stride=1, padding=1))
    g.case('avg_pool3d stride>kernel ceil pad no-count', 'avg_pool3d', {'kernel_size': 2, 'stride': 3, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False},
           [('x', g.randn(1, 1, 6, 5, 7))], lambda m, x: F.avg_pool3d(x, 2, stride=3, padding=1, ceil_mode=True, count_include_pad=False))
    g.case('max_pool3d stride>kernel ceil', 'max_pool3d', {'kernel_size': 2, 'stride': 3, 'ceil_mode': True}, [('x', g.randn(1, 1, 6, 5, 7))],
           lambda m, x: F.max_pool3d(x, 2, stride=3, ceil_mode=True))

    # -------------------------------------------------------------------------------------------
    # adaptive pools

    xa = g.randn(1, 2, 5, 4, 3)
    for out in [[2, 3, 2], [3, 3, 2], [5, 4, 3], [7, 6, 4], [1, 1, 1], [4, None, 2], [None, 3, None], 3]:
        g.case('adaptive_avg_pool3d %s' % out, 'adaptive_avg_pool3d', {'output_size': out}, [('x', xa)], lambda m, x, out=out: F.adaptive_avg_pool3d(x, out))
        g.case('adaptive_max_pool3d %s' % out, 'adaptive_max_pool3d', {'output_size': out}, [('x', xa)], lambda m, x, out=out: F.adaptive_max_pool3d(x, out))
    g.case('adaptive_avg_pool3d unbatched', 'adaptive_avg_pool3d', {'output_size': [2, 3, 2]}, [('x', g.randn(2, 3, 5, 4))], lambda m, x: F.adaptive_avg_pool3d(x, [2, 3, 2]))
    g.case('adaptive_max_pool3d unbatched', 'adaptive_max_pool3d', {'output_size': [2, 3, 2]}, [('x', g.randn(2, 3, 5, 4))], lambda m, x: F.adaptive_max_pool3d(x, [2, 3, 2]))

    # -------------------------------------------------------------------------------------------
    # non-finite values, ties; pool modules

    nf = torch.tensor([1.0, float('nan'), 2.0, -1.0, 0.5, float('inf'), 0.0, -2.0, 3.0, 1.0, -float('inf'), -float('inf'), 4.0, 2.0, 0.0, 1.0,
                       -float('inf'), 2.0, -1.0, 0.25, 5.0, -3.0, 1.5, 0.75, -0.5, 2.5, 1.25]).reshape(1, 1, 3, 3, 3)
    for ks, kw in [(2, {}), (2, {'stride': 1}), (3, {'stride': 2, 'padding': 1, 'ceil_mode': True}), (2, {'stride': 2, 'padding': 1})]:
        g.case('max_pool3d non-finite k=%s %s' % (ks, kw), 'max_pool3d', dict(kw, kernel_size=ks), [('x', nf)], lambda m, x, ks=ks, kw=kw: F.max_pool3d(x, ks, **kw))
        g.case('avg_pool3d non-finite k=%s %s' % (ks, kw), 'avg_pool3d', dict(kw, kernel_size=ks), [('x', nf)], lambda m, x, ks=ks, kw=kw: F.avg_pool3d(x, ks, **kw))
    # Without a gradient to route the pools take another path (a plain maximum): the same values.
    g.case('max_pool3d non-finite no grad', 'max_pool3d', {'kernel_size': 2, 'stride': 1, 'padding': 1}, [('x', nf)], lambda m, x: F.max_pool3d(x, 2, stride=1, padding=1), grad=[])
    g.case('max_pool3d non-finite tiled no grad', 'max_pool3d', {'kernel_size': 2}, [('x', nf)], lambda m, x: F.max_pool3d(x, 2), grad=[])
    g.case('adaptive_max_pool3d non-finite no grad', 'adaptive_max_pool3d', {'output_size': [2, 2, 3]}, [('x', nf)], lambda m, x: F.adaptive_max_pool3d(x, [2, 2, 3]), grad=[])
    g.case('adaptive_max_pool3d non-finite', 'adaptive_max_pool3d', {'output_size': [2, 2, 3]}, [('x', nf)], lambda m, x: F.adaptive_max_pool3d(x, [2, 2, 3]))
    g.case('adaptive_avg_pool3d non-finite', 'adaptive_avg_pool3d', {'output_size': [2, 2, 3]}, [('x', nf)], lambda m, x: F.adaptive_avg_pool3d(x, [2, 2, 3]))
    # Two NaNs in one window: torch's CPU kernels route the gradient to the last (val > max || isnan(val)), ours to the first.
    nan2 = torch.tensor([1.0, float('nan'), 2.0, float('nan'), 0.0, 0.5, -1.0, 0.25]).reshape(1, 1, 2, 2, 2)
    g.case('max_pool3d two NaNs in a window', 'max_pool3d', {'kernel_size': 2}, [('x', nan2)], lambda m, x: F.max_pool3d(x, 2))
    g.case('adaptive_max_pool3d two NaNs in a window', 'adaptive_max_pool3d', {'output_size': 1}, [('x', nan2)], lambda m, x: F.adaptive_max_pool3d(x, 1))
    ninf = torch.full((1, 1, 3, 3, 3), float('-inf'))
    ninf[0, 0, 2, 2, 2] = 1.0
    g.case('max_pool3d -inf windows padded', 'max_pool3d', {'kernel_size': 3, 'stride': 2, 'padding': 1}, [('x', ninf)], lambda m, x: F.max_pool3d(x, 3, stride=2, padding=1))
    g.case('max_pool3d -inf windows padded ceil', 'max_pool3d', {'kernel_size': 2, 'stride': 2, 'padding': 1, 'ceil_mode': True}, [('x', ninf)],
           lambda m, x: F.max_pool3d(x, 2, stride=2, padding=1, ceil_mode=True))
    ties = torch.tensor([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]]).repeat(3, 1, 1).reshape(1, 1, 3, 4, 4)
    ties[0, 0, 1] += 1.0
    g.case('max_pool3d ties tiled', 'max_pool3d', {'kernel_size': 2}, [('x', ties)], lambda m, x: F.max_pool3d(x, 2))
    g.case('max_pool3d ties overlapping', 'max_pool3d', {'kernel_size': 2, 'stride': 1}, [('x', ties)], lambda m, x: F.max_pool3d(x, 2, stride=1))
    g.case('max_pool3d ties padded dilated', 'max_pool3d', {'kernel_size': 3, 'stride': 1, 'padding': 1, 'dilation': 2}, [('x', ties)], lambda m, x: F.max_pool3d(x, 3, stride=1, padding=1, dilation=2))
    g.case('adaptive_max_pool3d ties', 'adaptive_max_pool3d', {'output_size': [2, 3, 3]}, [('x', ties)], lambda m, x: F.adaptive_max_pool3d(x, [2, 3, 3]))

    xm = g.randn(2, 2, 4, 5, 3)
    g.case('MaxPool3d module', 'MaxPool3d', {'kernel_size': [2, 3, 2], 'stride': [1, 2, 1], 'padding': [1, 1, 0], 'ceil_mode': True}, [('x', xm)], lambda m, x: m(x),
           module=nn.MaxPool3d((2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0), ceil_mode=True))
    g.case('AvgPool3d module', 'AvgPool3d', {'kernel_size': [2, 3, 2], 'stride': [1, 2, 1], 'padding': [1, 1, 0], 'ceil_mode': True, 'count_include_pad': False}, [('x', xm)],
           lambda m, x: m(x), module=nn.AvgPool3d((2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0), ceil_mode=True, count_include_pad=False))
    g.case('AdaptiveAvgPool3d module', 'AdaptiveAvgPool3d', {'output_size': [3, None, 2]}, [('x', xm)], lambda m, x: m(x), module=nn.AdaptiveAvgPool3d((3, None, 2)))
    g.case('AdaptiveMaxPool3d module', 'AdaptiveMaxPool3d', {'output_size': [3, 2, None]}, [('x', xm)], lambda m, x: m(x), module=nn.AdaptiveMaxPool3d((3, 2, None)))
    return g
