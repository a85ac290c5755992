"""The 'fold' group: F.unfold (im2col) and F.fold (col2im) with kernel, dilation, padding and
stride as numbers or pairs, batched and unbatched, overlapping blocks, strides past the kernel
(pixels no block covers), padding wider than the kernel; nn.Unfold / nn.Fold; fold(unfold(x));
channel_shuffle and ChannelShuffle (values; the gradient from its definition, torch 1.13 having none); pixel_unshuffle with extra leading dims and PixelUnshuffle.
Values and the gradients of the inputs."""
import torch.nn as nn
import torch.nn.functional as F


def make(gen):
    g = gen.Group('fold', 1e-6, 1e-6, 'unfold / fold, channel_shuffle, pixel_unshuffle: functional and modules')

    # -------------------------------------------------------------------------------------------
    # unfold: (kernel, options, input shape)

    unfold = [
        (2, {}, (2, 3, 4, 5)),
        ([2, 3], {}, (1, 2, 4, 5)),
        (3, {'padding': 1}, (1, 2, 4, 4)),
        ([3, 2], {'padding': [2, 0], 'stride': [2, 1]}, (2, 2, 5, 4)),
        (2, {'dilation': 2}, (1, 2, 5, 5)),
        ([2, 2], {'dilation': [1, 3], 'stride': 2, 'padding': [1, 2]}, (1, 3, 5, 6)),
        (2, {'stride': 3}, (1, 2, 7, 8)),                          # stride > kernel: pixels no block reads
        (1, {}, (2, 3, 2, 3)),                                     # 1x1: a reshape
        ([4, 5], {}, (1, 2, 4, 5)),                                # kernel = input: one block
        (2, {'padding': 3}, (1, 1, 2, 3)),                         # padding wider than the kernel: all-zero blocks
        (3, {'stride': [1, 2], 'dilation': [2, 1], 'padding': [2, 1]}, (1, 2, 4, 6)),
    ]
    for k, kw, shape in unfold:
        g.case('unfold k=%s %s in=%s' % (k, kw, list(shape)), 'unfold', dict(kw, kernel_size=k), [('x', g.randn(*shape))],
               lambda m, x, k=k, kw=kw: F.unfold(x, k, **kw))
    g.case('unfold unbatched', 'unfold', {'kernel_size': [2, 3], 'stride': [1, 2], 'padding': 1}, [('x', g.randn(3, 4, 5))],
           lambda m, x: F.unfold(x, (2, 3), stride=(1, 2), padding=1))

    # -------------------------------------------------------------------------------------------
    # fold: (output size, kernel, options, N, C); L follows from the rest.

    def blocks(size, k, kw):
        def pair(v):
            return list(v) if isinstance(v, (list, tuple)) else [v, v]
        s, kk, d, p, st = pair(size), pair(k), pair(kw.get('dilation', 1)), pair(kw.get('padding', 0)), pair(kw.get('stride', 1))
        n = 1
        for i in range(2):
            n *= (s[i] + 2 * p[i] - d[i] * (kk[i] - 1) - 1) // st[i] + 1
        return n, kk[0] * kk[1]

    fold = [
        ([4, 5], 2, {}, 2, 3),                                     # overlapping: sums
        ([4, 5], [2, 3], {}, 1, 2),
        (4, 3, {'padding': 1}, 1, 2),
        ([5, 4], [3, 2], {'padding': [2, 0], 'stride': [2, 1]}, 2, 2),
        (5, 2, {'dilation': 2}, 1, 2),
        ([5, 6], 2, {'dilation': [1, 3], 'stride': 2, 'padding': [1, 2]}, 1, 3),
        ([7, 8], 2, {'stride': 3}, 1, 2),                          # gaps: zeros where no block lands
        ([2, 3], 1, {}, 2, 3),
        ([4, 5], [4, 5], {}, 1, 2),
        ([2, 3], 2, {'padding': 3}, 1, 1),                         # blocks wholly in the padding: dropped
        ([4, 6], 3, {'stride': [1, 2], 'dilation': [2, 1], 'padding': [2, 1]}, 1, 2),
        ([6, 6], 2, {'stride': 2}, 2, 2),                          # tiles: the inverse of unfold
    ]
    for size, k, kw, n, c in fold:
        L, K = blocks(size, k, kw)
        g.case('fold out=%s k=%s %s N=%d C=%d' % (size, k, kw, n, c), 'fold', dict(kw, output_size=size, kernel_size=k), [('x', g.randn(n, c * K, L))],
               lambda m, x, size=size, k=k, kw=kw: F.fold(x, size, k, **kw))
    L, K = blocks([4, 5], [2, 3], {'stride': [1, 2], 'padding': 1})
    g.case('fold unbatched', 'fold', {'output_size': [4, 5], 'kernel_size': [2, 3], 'stride': [1, 2], 'padding': 1}, [('x', g.randn(3 * K, L))],
           lambda m, x: F.fold(x, (4, 5), (2, 3), stride=(1, 2), padding=1))
    g.case('fold of unfold', 'fold_unfold', {'output_size': [5, 6], 'kernel_size': 3, 'stride': 2, 'padding': 1, 'dilation': [1, 2]}, [('x', g.randn(2, 2, 5, 6))],
           lambda m, x: F.fold(F.unfold(x, 3, stride=2, padding=1, dilation=(1, 2)), (5, 6), 3, stride=2, padding=1, dilation=(1, 2)))

    # modules
    g.case('Unfold module', 'Unfold', {'kernel_size': [3, 2], 'dilation': [1, 2], 'padding': [1, 0], 'stride': 2}, [('x', g.randn(2, 2, 5, 6))], lambda m, x: m(x),
           module=nn.Unfold((3, 2), dilation=(1, 2), padding=(1, 0), stride=2))
    L, K = blocks([5, 6], [3, 2], {'dilation': [1, 2], 'padding': [1, 0], 'stride': 2})
    g.case('Fold module', 'Fold', {'output_size': [5, 6], 'kernel_size': [3, 2], 'dilation': [1, 2], 'padding': [1, 0], 'stride': 2}, [('x', g.randn(2, 2 * K, L))],
           lambda m, x: m(x), module=nn.Fold((5, 6), (3, 2), dilation=(1, 2), padding=(1, 0), stride=2))

    # -------------------------------------------------------------------------------------------
    # channel_shuffle, pixel_unshuffle

    for shape, groups in [((2, 6, 3), 2), ((1, 6, 2, 2), 3), ((2, 8, 2, 1, 2), 4), ((1, 4, 3), 1), ((1, 5, 2), 5)]:
        g.case('channel_shuffle in=%s groups=%d' % (list(shape), groups), 'channel_shuffle', {'groups': groups}, [('x', g.randn(*shape))],
               lambda m, x, groups=groups: F.channel_shuffle(x, groups), grad=[])
    # torch 1.13 has no derivative for channel_shuffle: the gradient cases run its definition (ATen's math_channel_shuffle).
    for shape, groups in [((2, 6, 3), 2), ((2, 8, 2, 1, 2), 4)]:
        g.case('channel_shuffle gradient in=%s groups=%d' % (list(shape), groups), 'channel_shuffle', {'groups': groups}, [('x', g.randn(*shape))],
               lambda m, x, groups=groups: x.reshape(x.shape[0], groups, x.shape[1] // groups, *x.shape[2:]).transpose(1, 2).reshape(x.shape))
    g.case('ChannelShuffle module', 'ChannelShuffle', {'groups': 3}, [('x', g.randn(2, 9, 2, 2))], lambda m, x: m(x), module=nn.ChannelShuffle(3), grad=[])
    g.case('pixel_unshuffle 5-D input', 'pixel_unshuffle', {'downscale_factor': 2}, [('x', g.randn(2, 1, 2, 4, 6))], lambda m, x: F.pixel_unshuffle(x, 2))
    g.case('pixel_unshuffle unbatched r=3', 'pixel_unshuffle', {'downscale_factor': 3}, [('x', g.randn(2, 3, 6))], lambda m, x: F.pixel_unshuffle(x, 3))
    g.case('PixelUnshuffle module', 'PixelUnshuffle', {'downscale_factor': 2}, [('x', g.randn(1, 3, 4, 2))], lambda m, x: m(x), module=nn.PixelUnshuffle(2))
    return g
