#!/usr/bin/env python3
"""Writes PyTorch reference vectors for test/torch-vectors.test.ts.

    /usr/bin/python3 tools/torch-vectors/gen.py [OUT_DIR [GROUP ...]]   (default test/fixtures/torch/, all groups)

One JSON file per group: interpolate, activations, losses, norms, misc, transformer here, later
groups one module each in groups/ (see more_groups). Each file:

    { "group", "torch": torch.__version__, "generator": 1, "tolerance": {"rtol", "atol"},
      "cases": [ { "name", "op", "args", "inputs": [ {"name", "shape", "dtype", "data", "grad"} ],
                   "outputs": [ {"shape", "data"} ], "grads": { input name or state_dict key: data },
                   "ref64": { "outputs": [...], "grads": {...} }   (small cases only)
                   "state_dict": { key: {"shape", "data"} }          (module cases)
                   "tolerance": {...}                                (when a case needs its own) } ] }

Inputs are float32 (int64 for class targets, bool for masks). Outputs and gradients come from
torch's float32 computation; `ref64` repeats it in float64 (from the same float32 inputs and
parameters) where that is small, to tell a rounding difference from a real one. The gradients are
those of sum_k sum(output_k * g_k) with g_k[i] = ((i * 37 + 11 * k + 5) % 17 - 8) / 8, a fixed
pseudo-random weight that the test computes too (so it is not stored); float inputs marked
"grad": false get none. Non-finite numbers are the strings "nan", "inf", "-inf".

Runs unchanged on torch 1.13 and 2.x (CPU, standard library only); ops a torch lacks
(F.scaled_dot_product_attention before 2.0, F.rms_norm before 2.4) are written with their
explicit definition or left out, and the file says which ("absent").
"""
import copy
import json
import math
import os
import sys
import warnings
import zlib

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
# kl_div's reduction='mean' warns that it divides by every element: the cases mean to test exactly that.
warnings.filterwarnings('ignore', message="reduction: 'mean' divides")
torch.use_deterministic_algorithms(True)

GENERATOR_VERSION = 1
SMALL = 800  # cases with at most this many output elements also store their float64 results


def num32(v):
    if math.isnan(v):
        return 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    # 9 significant digits round-trip every float32.
    r = float('%.9g' % v)
    return int(r) if r == int(r) and abs(r) < 1e15 and math.copysign(1.0, r) > 0 else r  # -0.0 stays -0.0


def num64(v):
    if math.isnan(v):
        return 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    # 12 significant digits: plenty to tell float32 rounding from a real difference.
    r = float('%.12g' % v)
    return int(r) if r == int(r) and abs(r) < 1e15 and math.copysign(1.0, r) > 0 else r


def flat(t, enc):
    t = t.detach().contiguous().reshape(-1)
    if t.dtype == torch.bool:
        return [bool(v) for v in t.tolist()]
    if t.dtype in (torch.int64, torch.int32):
        return [int(v) for v in t.tolist()]
    return [enc(v) for v in t.double().tolist()]


def gweight(shape, k, dtype):
    n = 1
    for d in shape:
        n *= d
    idx = torch.arange(n, dtype=torch.int64)
    return (((idx * 37 + 11 * k + 5) % 17 - 8).to(dtype) / 8).reshape(shape)


def grad_of(fn):
    """A second-order case: the output is the gradient of sum(f(x) * w) (create_graph), so the
    recorded gradients are Hessian-vector products; w is gweight(shape, 7), which the test computes too."""
    def run(m, *xs):
        y = fn(*xs)
        return tuple(torch.autograd.grad((y * gweight(y.shape, 7, y.dtype)).sum(), xs, create_graph=True))
    return run


class Group:
    def __init__(self, name, rtol, atol, note=''):
        self.name = name
        self.tolerance = {'rtol': rtol, 'atol': atol}
        self.note = note
        self.cases = []
        self.absent = []
        self.names = set()
        self.gen = torch.Generator().manual_seed(zlib.crc32(name.encode()))

    def randn(self, *shape, scale=1.0):
        return torch.randn(*shape, generator=self.gen) * scale

    def rand(self, *shape, lo=0.0, hi=1.0):
        return torch.rand(*shape, generator=self.gen) * (hi - lo) + lo

    def randint(self, lo, hi, shape):
        return torch.randint(lo, hi, shape, generator=self.gen)

    def randomise(self, m, scale=0.5):
        """A module's parameters redrawn from this group's stream (torch's init draws from the global one)."""
        with torch.no_grad():
            for _, p in m.named_parameters():
                p.copy_(self.randn(*p.shape, scale=scale))
        return m

    def case(self, name, op, args, inputs, fn, module=None, grad=None, tol=None):
        """inputs: list of (name, tensor); fn(module_or_None, *tensors) -> tensor or tuple of tensors.
        grad: names of the float inputs to differentiate (default: all float inputs, or none where
        every output is int or bool: argmax, comparisons, casts)."""
        assert name not in self.names, name
        if grad is None and module is None and not op.startswith('grad_of'):  # (grad_of differentiates inside: not under no_grad)
            with torch.no_grad():
                out = fn(None, *[t for _, t in inputs])
            if not any(o.dtype.is_floating_point for o in (out if isinstance(out, (tuple, list)) else [out])):
                grad = []
        self.names.add(name)
        rec = {'name': name, 'op': op, 'args': args, 'inputs': []}
        for n, t in inputs:
            is_float = t.dtype.is_floating_point
            g = is_float and (grad is None or n in grad)
            rec['inputs'].append({'name': n, 'shape': list(t.shape), 'dtype': 'float32' if is_float else ('bool' if t.dtype == torch.bool else 'int64'),
                                  'data': flat(t.float() if is_float else t, num32), 'grad': g})
        if module is not None:
            module = module.float()
            rec['state_dict'] = {k: {'shape': list(v.shape), 'data': flat(v, num32)} for k, v in module.state_dict().items()}
        outs, grads = run(inputs, fn, module, grad, torch.float32)
        rec['outputs'] = [{'shape': list(o.shape), 'data': flat(o, num32)} for o in outs]
        rec['grads'] = {k: flat(v, num32) for k, v in grads.items()}
        if sum(o.numel() for o in outs) <= SMALL:
            outs64, grads64 = run(inputs, fn, None if module is None else copy.deepcopy(module).double(), grad, torch.float64)
            rec['ref64'] = {'outputs': [flat(o, num64) for o in outs64], 'grads': {k: flat(v, num64) for k, v in grads64.items()}}
        if tol is not None:
            rec['tolerance'] = tol
        self.cases.append(rec)

    def skip(self, what, why):
        self.absent.append({'op': what, 'reason': why})

    def write(self, out_dir):
        doc = {'group': self.name, 'torch': torch.__version__, 'generator': GENERATOR_VERSION, 'tolerance': self.tolerance,
               'note': self.note, 'absent': self.absent, 'cases': self.cases}
        path = os.path.join(out_dir, self.name + '.json')
        with open(path, 'w') as f:
            json.dump(doc, f, separators=(',', ':'), allow_nan=False)
            f.write('\n')
        return path, len(self.cases), os.path.getsize(path)


def run(inputs, fn, module, grad, dtype):
    ts = []
    for n, t in inputs:
        if t.dtype.is_floating_point:
            t = t.to(dtype).detach().clone()
            if grad is None or n in grad:
                t.requires_grad_(True)
        ts.append(t)
    if module is not None:
        module = module.to(dtype)
    out = fn(module, *ts)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    loss = sum((o * gweight(o.shape, k, dtype)).sum() for k, o in enumerate(outs))
    diff = [(n, t) for (n, _), t in zip(inputs, ts) if t.requires_grad]
    params = [] if module is None else [(k, p) for k, p in module.named_parameters() if p.requires_grad]
    targets = [t for _, t in diff] + [p for _, p in params]
    got = torch.autograd.grad(loss, targets, allow_unused=True) if targets and loss.requires_grad else [None] * len(targets)
    grads = {}
    for (n, t), g in zip(diff + params, got):
        grads[n] = g if g is not None else torch.zeros_like(t)
    return [o.detach() for o in outs], {k: v.detach() for k, v in grads.items()}


# ---------------------------------------------------------------------------------------------
# interpolate, pixel_shuffle

def interpolate_group():
    g = Group('interpolate', 1e-5, 1e-5, 'F.interpolate in every mode, pixel_shuffle / pixel_unshuffle')

    def interp(name, x, **kw):
        args = {k: v for k, v in kw.items()}
        g.case(name, 'interpolate', args, [('x', x)], lambda m, x: F.interpolate(x, **kw))

    def spec_name(spec):
        return ','.join('%s=%s' % (k, v) for k, v in spec.items())

    one_d = [{'size': 8}, {'size': 3}, {'size': 5}, {'size': 1}, {'scale_factor': 1.0}, {'scale_factor': 2.0}, {'scale_factor': 1.1},
             {'scale_factor': 2.05}, {'scale_factor': 0.6}, {'scale_factor': 0.5}, {'scale_factor': 1.7},
             {'scale_factor': 0.6, 'recompute_scale_factor': True}, {'scale_factor': 2.05, 'recompute_scale_factor': True}]
    x3 = g.randn(2, 3, 5)
    for spec in one_d:
        for mode in ['nearest', 'nearest-exact', 'area']:
            interp('3d %s %s' % (mode, spec_name(spec)), x3, mode=mode, **spec)
        for ac in [False, True]:
            interp('3d linear ac=%s %s' % (ac, spec_name(spec)), x3, mode='linear', align_corners=ac, **spec)

    two_d = [{'size': [7, 4]}, {'size': [5, 6]}, {'size': 1}, {'scale_factor': 1.0}, {'scale_factor': 2.0}, {'scale_factor': 1.1},
             {'scale_factor': 2.05}, {'scale_factor': 0.6}, {'scale_factor': [1.5, 0.6]}, {'scale_factor': [2.0, 1.1]},
             {'scale_factor': 1.1, 'recompute_scale_factor': True}, {'scale_factor': [0.6, 2.05], 'recompute_scale_factor': True}]
    x4 = g.randn(1, 1, 5, 6)
    for spec in two_d:
        for mode in ['nearest', 'nearest-exact', 'area']:
            interp('4d %s %s' % (mode, spec_name(spec)), x4, mode=mode, **spec)
        for mode in ['bilinear', 'bicubic']:
            for ac in [False, True]:
                interp('4d %s ac=%s %s' % (mode, ac, spec_name(spec)), x4, mode=mode, align_corners=ac, **spec)

    three_d = [{'size': [4, 3, 7]}, {'scale_factor': 1.0}, {'scale_factor': 2.0}, {'scale_factor': 1.1}, {'scale_factor': 0.6},
               {'scale_factor': [2.05, 1.0, 0.6]}, {'scale_factor': 1.1, 'recompute_scale_factor': True}]
    x5 = g.randn(1, 2, 3, 4, 5)
    for spec in three_d:
        for mode in ['nearest', 'nearest-exact', 'area']:
            interp('5d %s %s' % (mode, spec_name(spec)), x5, mode=mode, **spec)
        for ac in [False, True]:
            interp('5d trilinear ac=%s %s' % (ac, spec_name(spec)), x5, mode='trilinear', align_corners=ac, **spec)

    # Large outputs: H + W > 128.
    xl = g.randn(1, 1, 9, 11)
    for mode, ac in [('nearest', None), ('bilinear', False), ('area', None)]:
        kw = {'mode': mode, 'size': [48, 84]}
        if ac is not None:
            kw['align_corners'] = ac
        interp('large 4d %s ac=%s 9x11->48x84' % (mode, ac), xl, **kw)
    interp('large 4d bicubic scale 6.3', xl, mode='bicubic', align_corners=True, scale_factor=6.3)
    interp('large 3d linear 5->300', g.randn(1, 2, 5), mode='linear', size=300)

    for r in [1, 2, 3]:
        x = g.randn(2, 2 * r * r, 3, 2)
        g.case('pixel_shuffle r=%d' % r, 'pixel_shuffle', {'upscale_factor': r}, [('x', x)], lambda m, x, r=r: F.pixel_shuffle(x, r))
        y = g.randn(2, 2, 3 * r, 2 * r)
        g.case('pixel_unshuffle r=%d' % r, 'pixel_unshuffle', {'downscale_factor': r}, [('x', y)], lambda m, x, r=r: F.pixel_unshuffle(x, r))
    g.case('pixel_shuffle 3-D input', 'pixel_shuffle', {'upscale_factor': 2}, [('x', g.randn(8, 2, 3))], lambda m, x: F.pixel_shuffle(x, 2))
    return g


# ---------------------------------------------------------------------------------------------
# activations

NONFINITE = [float('-inf'), -1e30, -100.0, 0.0, -0.0, 100.0, 1e30, float('inf'), float('nan')]


def activations_group():
    g = Group('activations', 1e-5, 1e-6, 'activations at random points, at their kinks, and at non-finite values')

    def act(name, op, args, fn, kinks, nonfinite=True):
        base = torch.tensor(kinks, dtype=torch.float32)
        x = torch.cat([base, g.randn(24, scale=3.0)]).reshape(-1, 4) if base.numel() % 4 == 0 else None
        if x is None:
            pad = (-base.numel()) % 4
            x = torch.cat([base, g.randn(24 + pad, scale=3.0)]).reshape(-1, 4)
        g.case(name, op, args, [('x', x)], lambda m, x: fn(x))
        if nonfinite:
            g.case(name + ' non-finite', op, args, [('x', torch.tensor(NONFINITE + [1.0, -1.0, 2.5]).reshape(3, 4))], lambda m, x: fn(x))

    k0 = [0.0, -0.0, 1e-7, -1e-7]
    act('elu', 'elu', {}, lambda x: F.elu(x), k0)
    act('elu alpha=0.5', 'elu', {'alpha': 0.5}, lambda x: F.elu(x, 0.5), k0)
    act('celu', 'celu', {}, lambda x: F.celu(x), k0)
    act('celu alpha=2', 'celu', {'alpha': 2.0}, lambda x: F.celu(x, 2.0), k0)
    act('selu', 'selu', {}, lambda x: F.selu(x), k0)
    act('logsigmoid', 'logsigmoid', {}, lambda x: F.logsigmoid(x), [0.0, -30.0, 30.0, -90.0])
    act('softsign', 'softsign', {}, lambda x: F.softsign(x), k0)
    act('tanhshrink', 'tanhshrink', {}, lambda x: F.tanhshrink(x), [0.0, 1e-3, -1e-3, 20.0])
    act('hardshrink', 'hardshrink', {}, lambda x: F.hardshrink(x), [0.5, -0.5, 0.0, 0.25])
    act('hardshrink lambd=1', 'hardshrink', {'lambd': 1.0}, lambda x: F.hardshrink(x, 1.0), [1.0, -1.0, 0.0, 0.5])
    act('softshrink', 'softshrink', {}, lambda x: F.softshrink(x), [0.5, -0.5, 0.0, 0.25])
    act('softshrink lambd=1.5', 'softshrink', {'lambd': 1.5}, lambda x: F.softshrink(x, 1.5), [1.5, -1.5, 0.0, 1.0])
    act('threshold', 'threshold', {'threshold': 0.5, 'value': -2.0}, lambda x: F.threshold(x, 0.5, -2.0), [0.5, 0.0, -0.5, 1.0])
    act('gelu', 'gelu', {'approximate': 'none'}, lambda x: F.gelu(x), k0)
    act('gelu tanh', 'gelu', {'approximate': 'tanh'}, lambda x: F.gelu(x, approximate='tanh'), k0)
    act('silu', 'silu', {}, lambda x: F.silu(x), k0)
    act('mish', 'mish', {}, lambda x: F.mish(x), [0.0, 20.0, -20.0, 25.0])
    act('hardswish', 'hardswish', {}, lambda x: F.hardswish(x), [3.0, -3.0, 0.0, 2.999])
    act('hardsigmoid', 'hardsigmoid', {}, lambda x: F.hardsigmoid(x), [3.0, -3.0, 0.0, 2.999])
    act('softplus', 'softplus', {}, lambda x: F.softplus(x), [20.0, 19.99, 20.01, 0.0])
    act('softplus beta=2 threshold=5', 'softplus', {'beta': 2.0, 'threshold': 5.0}, lambda x: F.softplus(x, 2.0, 5.0), [2.5, 2.49, 2.51, 0.0])
    act('softplus beta=0.5 threshold=3', 'softplus', {'beta': 0.5, 'threshold': 3.0}, lambda x: F.softplus(x, 0.5, 3.0), [6.0, 5.99, 6.01, 0.0])
    act('leaky_relu', 'leaky_relu', {}, lambda x: F.leaky_relu(x), k0)
    act('leaky_relu slope=0.2', 'leaky_relu', {'negative_slope': 0.2}, lambda x: F.leaky_relu(x, 0.2), k0)
    act('hardtanh', 'hardtanh', {}, lambda x: F.hardtanh(x), [1.0, -1.0, 0.0, 0.999])
    act('hardtanh -2..3', 'hardtanh', {'min_val': -2.0, 'max_val': 3.0}, lambda x: F.hardtanh(x, -2.0, 3.0), [3.0, -2.0, 0.0, 2.999])
    act('relu6', 'relu6', {}, lambda x: F.relu6(x), [6.0, 0.0, -0.0, 5.999])
    act('relu', 'relu', {}, lambda x: F.relu(x), k0)
    act('sigmoid', 'sigmoid', {}, lambda x: torch.sigmoid(x), [0.0, 88.0, -88.0, -104.0])
    act('tanh', 'tanh', {}, lambda x: torch.tanh(x), [0.0, 10.0, -10.0, 1e-4])

    for dim in [0, 1, -1]:
        x = g.randn(4, 6, scale=2.0)
        g.case('glu dim=%d' % dim, 'glu', {'dim': dim}, [('x', x)], lambda m, x, dim=dim: F.glu(x, dim))
    for dim in [0, 1]:
        x = g.randn(3, 5, scale=2.0)
        g.case('softmin dim=%d' % dim, 'softmin', {'dim': dim}, [('x', x)], lambda m, x, dim=dim: F.softmin(x, dim=dim))
        g.case('softmax dim=%d' % dim, 'softmax', {'dim': dim}, [('x', x)], lambda m, x, dim=dim: F.softmax(x, dim=dim))
        g.case('log_softmax dim=%d' % dim, 'log_softmax', {'dim': dim}, [('x', x)], lambda m, x, dim=dim: F.log_softmax(x, dim=dim))
    g.case('softmin with -inf', 'softmin', {'dim': 1}, [('x', torch.tensor([[1.0, float('inf'), 2.0], [float('-inf'), 0.0, 1.0]]))], lambda m, x: F.softmin(x, dim=1))
    kinks = torch.tensor([0.0, -0.0, 1.0, -1.0])
    for wshape in [[1], [3]]:
        x = torch.cat([kinks.repeat(6), g.randn(24)]).reshape(4, 3, 4)
        w = torch.tensor([0.25]) if wshape == [1] else torch.tensor([0.25, -0.5, 1.5])
        g.case('prelu weight %s' % wshape, 'prelu', {}, [('x', x), ('weight', w)], lambda m, x, w: F.prelu(x, w))
    return g


# ---------------------------------------------------------------------------------------------
# losses

REDUCTIONS = ['none', 'mean', 'sum']


def losses_group():
    g = Group('losses', 2e-5, 1e-6, 'every loss with every reduction')
    N, C = 4, 5

    def loss(name, op, args, inputs, fn, grad=None):
        for red in REDUCTIONS + (['batchmean'] if op == 'kl_div' else []):
            a = dict(args)
            a['reduction'] = red
            g.case('%s reduction=%s' % (name, red), op, a, inputs, lambda m, *ts, red=red: fn(red, *ts), grad=grad)

    logits = g.randn(N, C, scale=2.0)
    target = torch.tensor([1, 0, 4, 2])
    weight = torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5])
    probs = F.softmax(g.randn(N, C), dim=1)
    ig_target = torch.tensor([1, 2, 4, 2])
    loss('cross_entropy', 'cross_entropy', {}, [('input', logits), ('target', target)], lambda r, x, t: F.cross_entropy(x, t, reduction=r))
    loss('cross_entropy weight', 'cross_entropy', {}, [('input', logits), ('target', target), ('weight', weight)],
         lambda r, x, t, w: F.cross_entropy(x, t, weight=w, reduction=r), grad=['input'])
    loss('cross_entropy ignore_index=2', 'cross_entropy', {'ignore_index': 2}, [('input', logits), ('target', ig_target)],
         lambda r, x, t: F.cross_entropy(x, t, ignore_index=2, reduction=r))
    loss('cross_entropy ignore_index=-100', 'cross_entropy', {}, [('input', logits), ('target', torch.tensor([1, -100, 4, -100]))],
         lambda r, x, t: F.cross_entropy(x, t, reduction=r))
    loss('cross_entropy weight ignore_index=2', 'cross_entropy', {'ignore_index': 2}, [('input', logits), ('target', ig_target), ('weight', weight)],
         lambda r, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=2, reduction=r), grad=['input'])
    loss('cross_entropy label_smoothing=0.1', 'cross_entropy', {'label_smoothing': 0.1}, [('input', logits), ('target', target)],
         lambda r, x, t: F.cross_entropy(x, t, label_smoothing=0.1, reduction=r))
    loss('cross_entropy weight label_smoothing=0.2', 'cross_entropy', {'label_smoothing': 0.2}, [('input', logits), ('target', target), ('weight', weight)],
         lambda r, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction=r), grad=['input'])
    loss('cross_entropy weight ignore_index=2 label_smoothing=0.1', 'cross_entropy', {'ignore_index': 2, 'label_smoothing': 0.1},
         [('input', logits), ('target', ig_target), ('weight', weight)],
         lambda r, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=2, label_smoothing=0.1, reduction=r), grad=['input'])
    loss('cross_entropy probs', 'cross_entropy', {}, [('input', logits), ('target', probs)], lambda r, x, t: F.cross_entropy(x, t, reduction=r))
    loss('cross_entropy probs weight', 'cross_entropy', {}, [('input', logits), ('target', probs), ('weight', weight)],
         lambda r, x, t, w: F.cross_entropy(x, t, weight=w, reduction=r), grad=['input', 'target'])
    loss('cross_entropy probs label_smoothing=0.1', 'cross_entropy', {'label_smoothing': 0.1}, [('input', logits), ('target', probs)],
         lambda r, x, t: F.cross_entropy(x, t, label_smoothing=0.1, reduction=r))
    loss('cross_entropy probs weight label_smoothing=0.1', 'cross_entropy', {'label_smoothing': 0.1}, [('input', logits), ('target', probs), ('weight', weight)],
         lambda r, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.1, reduction=r), grad=['input', 'target'])
    x3 = g.randn(2, C, 3)
    t3 = torch.tensor([[0, 4, 2], [1, 1, 3]])
    loss('cross_entropy K-dim', 'cross_entropy', {}, [('input', x3), ('target', t3)], lambda r, x, t: F.cross_entropy(x, t, reduction=r))
    loss('cross_entropy K-dim weight ignore_index=1', 'cross_entropy', {'ignore_index': 1}, [('input', x3), ('target', t3), ('weight', weight)],
         lambda r, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=1, reduction=r), grad=['input'])

    logp = F.log_softmax(g.randn(N, C), dim=1)
    loss('nll_loss', 'nll_loss', {}, [('input', logp), ('target', target)], lambda r, x, t: F.nll_loss(x, t, reduction=r))
    loss('nll_loss weight', 'nll_loss', {}, [('input', logp), ('target', target), ('weight', weight)],
         lambda r, x, t, w: F.nll_loss(x, t, weight=w, reduction=r), grad=['input'])
    loss('nll_loss weight ignore_index=2', 'nll_loss', {'ignore_index': 2}, [('input', logp), ('target', ig_target), ('weight', weight)],
         lambda r, x, t, w: F.nll_loss(x, t, weight=w, ignore_index=2, reduction=r), grad=['input'])
    loss('nll_loss all ignored', 'nll_loss', {'ignore_index': 2}, [('input', logp), ('target', torch.tensor([2, 2, 2, 2]))],
         lambda r, x, t: F.nll_loss(x, t, ignore_index=2, reduction=r))

    p = torch.sigmoid(g.randn(N, C, scale=2.0))
    y = g.rand(N, C)
    y01 = (g.rand(N, C) > 0.5).float()
    loss('binary_cross_entropy', 'binary_cross_entropy', {}, [('input', p), ('target', y)], lambda r, x, t: F.binary_cross_entropy(x, t, reduction=r))
    loss('binary_cross_entropy hard targets', 'binary_cross_entropy', {}, [('input', p), ('target', y01)], lambda r, x, t: F.binary_cross_entropy(x, t, reduction=r))
    loss('binary_cross_entropy weight', 'binary_cross_entropy', {}, [('input', p), ('target', y), ('weight', weight)],
         lambda r, x, t, w: F.binary_cross_entropy(x, t, weight=w, reduction=r), grad=['input', 'target'])
    loss('binary_cross_entropy at 0 and 1', 'binary_cross_entropy', {}, [('input', torch.tensor([0.0, 1.0, 0.0, 1.0, 0.5])), ('target', torch.tensor([0.0, 1.0, 1.0, 0.0, 0.5]))],
         lambda r, x, t: F.binary_cross_entropy(x, t, reduction=r), grad=['target'])
    z = g.randn(N, C, scale=3.0)
    loss('binary_cross_entropy_with_logits', 'binary_cross_entropy_with_logits', {}, [('input', z), ('target', y)],
         lambda r, x, t: F.binary_cross_entropy_with_logits(x, t, reduction=r))
    loss('binary_cross_entropy_with_logits weight', 'binary_cross_entropy_with_logits', {}, [('input', z), ('target', y), ('weight', weight)],
         lambda r, x, t, w: F.binary_cross_entropy_with_logits(x, t, weight=w, reduction=r), grad=['input', 'target'])
    pw = torch.tensor([1.0, 2.0, 0.5, 3.0, 1.0])
    loss('binary_cross_entropy_with_logits pos_weight', 'binary_cross_entropy_with_logits', {}, [('input', z), ('target', y), ('pos_weight', pw)],
         lambda r, x, t, pw: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction=r), grad=['input', 'target'])
    loss('binary_cross_entropy_with_logits weight pos_weight', 'binary_cross_entropy_with_logits', {},
         [('input', z), ('target', y), ('weight', weight), ('pos_weight', pw)],
         lambda r, x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw, reduction=r), grad=['input', 'target'])
    loss('binary_cross_entropy_with_logits large logits', 'binary_cross_entropy_with_logits', {},
         [('input', torch.tensor([-200.0, 200.0, -50.0, 50.0, 0.0])), ('target', torch.tensor([1.0, 0.0, 0.0, 1.0, 0.5])), ('pos_weight', torch.tensor([2.0]))],
         lambda r, x, t, pw: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction=r), grad=['input', 'target'])

    # Regression losses: targets on a grid of quarters so that some differences sit exactly on the kinks.
    a = torch.tensor([[0.0, 0.5, 1.0, -1.0, 2.0], [0.25, -0.75, 3.0, 1.5, 0.0]]) + torch.cat([torch.zeros(2, 3), g.randn(2, 2)], dim=1)
    b = torch.tensor([[0.0, 0.0, 0.0, 0.0, 0.0], [-0.25, 0.25, 1.0, -0.5, 2.0]])
    a = torch.cat([a, g.randn(2, 5)])
    b = torch.cat([b, g.randn(2, 5)])
    loss('mse_loss', 'mse_loss', {}, [('input', a), ('target', b)], lambda r, x, t: F.mse_loss(x, t, reduction=r))
    loss('l1_loss', 'l1_loss', {}, [('input', a), ('target', b)], lambda r, x, t: F.l1_loss(x, t, reduction=r))
    for beta in [1.0, 0.5, 0.0]:
        loss('smooth_l1_loss beta=%s' % beta, 'smooth_l1_loss', {'beta': beta}, [('input', a), ('target', b)], lambda r, x, t, beta=beta: F.smooth_l1_loss(x, t, reduction=r, beta=beta))
    for delta in [1.0, 0.5, 2.0]:
        loss('huber_loss delta=%s' % delta, 'huber_loss', {'delta': delta}, [('input', a), ('target', b)], lambda r, x, t, delta=delta: F.huber_loss(x, t, reduction=r, delta=delta))
    lp = F.log_softmax(g.randn(N, C), dim=1)
    tp = F.softmax(g.randn(N, C), dim=1)
    tz = tp.clone()
    tz[0, 1] = 0.0
    loss('kl_div', 'kl_div', {}, [('input', lp), ('target', tp)], lambda r, x, t: F.kl_div(x, t, reduction=r))
    loss('kl_div zero target', 'kl_div', {}, [('input', lp), ('target', tz)], lambda r, x, t: F.kl_div(x, t, reduction=r))
    loss('kl_div log_target', 'kl_div', {'log_target': True}, [('input', lp), ('target', tp.log())], lambda r, x, t: F.kl_div(x, t, reduction=r, log_target=True))

    x1, x2 = g.randn(6), g.randn(6)
    x2[0] = x1[0]
    ypm = torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0, 1.0])
    for margin in [0.0, 0.5]:
        loss('margin_ranking_loss margin=%s' % margin, 'margin_ranking_loss', {'margin': margin}, [('input1', x1), ('input2', x2), ('target', ypm)],
             lambda r, a, b, t, margin=margin: F.margin_ranking_loss(a, b, t, margin=margin, reduction=r), grad=['input1', 'input2'])
    hx = torch.cat([torch.tensor([1.0, 0.5, -0.2]), g.randn(5).abs()]).reshape(2, 4)
    hy = torch.tensor([[1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, -1.0, -1.0]])
    for margin in [1.0, 0.5]:
        loss('hinge_embedding_loss margin=%s' % margin, 'hinge_embedding_loss', {'margin': margin}, [('input', hx), ('target', hy)],
             lambda r, x, t, margin=margin: F.hinge_embedding_loss(x, t, margin=margin, reduction=r), grad=['input'])
    loss('soft_margin_loss', 'soft_margin_loss', {}, [('input', g.randn(N, C, scale=2.0)), ('target', torch.sign(g.randn(N, C)))],
         lambda r, x, t: F.soft_margin_loss(x, t, reduction=r), grad=['input'])
    ml_t = (g.rand(N, C) > 0.5).float()
    loss('multilabel_soft_margin_loss', 'multilabel_soft_margin_loss', {}, [('input', g.randn(N, C, scale=2.0)), ('target', ml_t)],
         lambda r, x, t: F.multilabel_soft_margin_loss(x, t, reduction=r), grad=['input'])
    loss('multilabel_soft_margin_loss weight', 'multilabel_soft_margin_loss', {}, [('input', g.randn(N, C, scale=2.0)), ('target', ml_t), ('weight', weight)],
         lambda r, x, t, w: F.multilabel_soft_margin_loss(x, t, weight=w, reduction=r), grad=['input'])
    c1, c2 = g.randn(N, 6), g.randn(N, 6)
    cy = torch.tensor([1.0, -1.0, -1.0, 1.0])
    for margin in [0.0, 0.3]:
        loss('cosine_embedding_loss margin=%s' % margin, 'cosine_embedding_loss', {'margin': margin}, [('input1', c1), ('input2', c2), ('target', cy)],
             lambda r, a, b, t, margin=margin: F.cosine_embedding_loss(a, b, t, margin=margin, reduction=r), grad=['input1', 'input2'])
    an, po, ne = g.randn(N, 6), g.randn(N, 6), g.randn(N, 6)
    for margin, p, swap in [(1.0, 2.0, False), (1.0, 2.0, True), (0.5, 1.0, False), (2.0, 3.0, True), (1.0, 1.0, True)]:
        loss('triplet_margin_loss margin=%s p=%s swap=%s' % (margin, p, swap), 'triplet_margin_loss', {'margin': margin, 'p': p, 'swap': swap},
             [('anchor', an), ('positive', po), ('negative', ne)],
             lambda r, a, b, c, margin=margin, p=p, swap=swap: F.triplet_margin_loss(a, b, c, margin=margin, p=p, swap=swap, reduction=r))
    pin = g.randn(N, C)
    pt = g.randint(0, 6, (N, C)).float()
    for log_input, full in [(True, False), (True, True), (False, False), (False, True)]:
        x = pin if log_input else pin.abs() + 0.1
        loss('poisson_nll_loss log_input=%s full=%s' % (log_input, full), 'poisson_nll_loss', {'log_input': log_input, 'full': full}, [('input', x), ('target', pt)],
             lambda r, x, t, li=log_input, full=full: F.poisson_nll_loss(x, t, log_input=li, full=full, reduction=r), grad=['input'])
    gi, gt = g.randn(N, C), g.randn(N, C)
    for vname, v in [('same', g.rand(N, C, lo=0.1, hi=2.0)), ('[N,1]', g.rand(N, 1, lo=0.1, hi=2.0)), ('[N]', g.rand(N, lo=0.1, hi=2.0)), ('tiny', torch.full((N, C), 1e-9))]:
        for full in [False, True]:
            loss('gaussian_nll_loss var %s full=%s' % (vname, full), 'gaussian_nll_loss', {'full': full}, [('input', gi), ('target', gt), ('var', v)],
                 lambda r, x, t, v, full=full: F.gaussian_nll_loss(x, t, v, full=full, reduction=r))
    mi = g.randn(N, C)
    for p, margin, w in [(1, 1.0, False), (2, 1.0, False), (1, 0.5, True), (2, 2.0, True)]:
        inputs = [('input', mi), ('target', target)] + ([('weight', weight)] if w else [])
        loss('multi_margin_loss p=%d margin=%s weight=%s' % (p, margin, w), 'multi_margin_loss', {'p': p, 'margin': margin}, inputs,
             lambda r, x, t, *w, p=p, margin=margin: F.multi_margin_loss(x, t, p=p, margin=margin, weight=w[0] if w else None, reduction=r), grad=['input'])
    return g


# ---------------------------------------------------------------------------------------------
# norms, distances

def norms_group():
    g = Group('norms', 2e-5, 2e-5, 'normalisation layers, distances and vector norms')
    x = g.randn(3, 4, 5, scale=2.0)
    g.case('layer_norm [5]', 'layer_norm', {'normalized_shape': [5]}, [('x', x)], lambda m, x: F.layer_norm(x, [5]))
    g.case('layer_norm [4,5] affine', 'layer_norm', {'normalized_shape': [4, 5]}, [('x', x), ('weight', g.randn(4, 5)), ('bias', g.randn(4, 5))],
           lambda m, x, w, b: F.layer_norm(x, [4, 5], w, b))
    g.case('layer_norm [5] affine eps=0.1', 'layer_norm', {'normalized_shape': [5], 'eps': 0.1}, [('x', x), ('weight', g.randn(5)), ('bias', g.randn(5))],
           lambda m, x, w, b: F.layer_norm(x, [5], w, b, eps=0.1))
    g.case('layer_norm constant rows', 'layer_norm', {'normalized_shape': [4]}, [('x', torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0]]))],
           lambda m, x: F.layer_norm(x, [4]))
    xg = g.randn(2, 6, 3, 2, scale=2.0)
    for groups in [1, 2, 3, 6]:
        g.case('group_norm groups=%d affine' % groups, 'group_norm', {'num_groups': groups}, [('x', xg), ('weight', g.randn(6)), ('bias', g.randn(6))],
               lambda m, x, w, b, groups=groups: F.group_norm(x, groups, w, b))
    g.case('group_norm 3-D no affine', 'group_norm', {'num_groups': 2}, [('x', g.randn(2, 4, 5))], lambda m, x: F.group_norm(x, 2))
    xb = g.randn(4, 3, 5, scale=2.0) + 1.0
    rm, rv = g.randn(3), g.rand(3, lo=0.5, hi=2.0)
    for training in [True, False]:
        for affine in [True, False]:
            ins = [('x', xb), ('running_mean', rm), ('running_var', rv)] + ([('weight', g.randn(3)), ('bias', g.randn(3))] if affine else [])
            g.case('batch_norm training=%s affine=%s' % (training, affine), 'batch_norm', {'training': training, 'momentum': 0.1, 'eps': 1e-5}, ins,
                   lambda m, x, rm, rv, *wb, training=training: F.batch_norm(x, rm.clone(), rv.clone(), wb[0] if wb else None, wb[1] if wb else None, training=training),
                   grad=['x', 'weight', 'bias'])
    g.case('batch_norm 4-D training', 'batch_norm', {'training': True, 'momentum': 0.1, 'eps': 1e-5}, [('x', g.randn(2, 3, 2, 3)), ('weight', g.randn(3)), ('bias', g.randn(3))],
           lambda m, x, w, b: F.batch_norm(x, None, None, w, b, training=True))
    g.case('batch_norm 2-D training no stats', 'batch_norm', {'training': True, 'momentum': 0.1, 'eps': 1e-5}, [('x', g.randn(5, 3))],
           lambda m, x: F.batch_norm(x, None, None, training=True))
    xi = g.randn(2, 3, 6, scale=2.0)
    g.case('instance_norm', 'instance_norm', {}, [('x', xi)], lambda m, x: F.instance_norm(x))
    g.case('instance_norm affine', 'instance_norm', {}, [('x', xi), ('weight', g.randn(3)), ('bias', g.randn(3))], lambda m, x, w, b: F.instance_norm(x, weight=w, bias=b))
    g.case('instance_norm 4-D eps=0.01', 'instance_norm', {'eps': 0.01}, [('x', g.randn(2, 2, 3, 3))], lambda m, x: F.instance_norm(x, eps=0.01))
    g.case('instance_norm running stats eval', 'instance_norm', {'use_input_stats': False}, [('x', xi), ('running_mean', g.randn(3)), ('running_var', g.rand(3, lo=0.5, hi=2.0))],
           lambda m, x, rm, rv: F.instance_norm(x, rm.clone(), rv.clone(), use_input_stats=False), grad=['x'])
    if hasattr(F, 'rms_norm'):
        g.case('rms_norm [5]', 'rms_norm', {'normalized_shape': [5]}, [('x', x)], lambda m, x: F.rms_norm(x, [5]))
        g.case('rms_norm [4,5] weight eps=1e-3', 'rms_norm', {'normalized_shape': [4, 5], 'eps': 1e-3}, [('x', x), ('weight', g.randn(4, 5))],
               lambda m, x, w: F.rms_norm(x, [4, 5], w, eps=1e-3))
    else:
        g.skip('rms_norm', 'torch %s has no F.rms_norm (added in 2.4)' % torch.__version__)

    xn = g.randn(3, 4, scale=2.0)
    xn[1] = 0.0
    for p, dim in [(2.0, 1), (1.0, 1), (3.0, 0), (2.0, -1), (0.5, 1)]:
        g.case('normalize p=%s dim=%d' % (p, dim), 'normalize', {'p': p, 'dim': dim}, [('x', xn)], lambda m, x, p=p, dim=dim: F.normalize(x, p=p, dim=dim))
    g.case('normalize eps=0.5', 'normalize', {'p': 2.0, 'dim': 1, 'eps': 0.5}, [('x', g.randn(3, 4) * 0.1)], lambda m, x: F.normalize(x, eps=0.5))
    a, b = g.randn(3, 5), g.randn(3, 5)
    b[2] = 0.0
    g.case('cosine_similarity dim=1', 'cosine_similarity', {'dim': 1}, [('x1', a), ('x2', b)], lambda m, a, b: F.cosine_similarity(a, b, dim=1))
    g.case('cosine_similarity dim=0', 'cosine_similarity', {'dim': 0}, [('x1', a), ('x2', b)], lambda m, a, b: F.cosine_similarity(a, b, dim=0))
    g.case('cosine_similarity broadcast', 'cosine_similarity', {'dim': -1}, [('x1', g.randn(2, 1, 4)), ('x2', g.randn(3, 4))], lambda m, a, b: F.cosine_similarity(a, b, dim=-1))
    g.case('cosine_similarity eps=0.5', 'cosine_similarity', {'dim': 1, 'eps': 0.5}, [('x1', a * 0.1), ('x2', b)], lambda m, a, b: F.cosine_similarity(a, b, dim=1, eps=0.5))
    for p, eps, keep in [(2.0, 1e-6, False), (1.0, 1e-6, False), (3.0, 0.0, True), (2.0, 0.1, True)]:
        g.case('pairwise_distance p=%s eps=%s keepdim=%s' % (p, eps, keep), 'pairwise_distance', {'p': p, 'eps': eps, 'keepdim': keep}, [('x1', a), ('x2', b)],
               lambda m, a, b, p=p, eps=eps, keep=keep: F.pairwise_distance(a, b, p=p, eps=eps, keepdim=keep))
    v = g.randn(3, 4, scale=2.0)
    v[0, 1] = 0.0
    v[2, 3] = 0.0
    v[1, 2] = -v[1, 0]
    for ord in [0.5, 1.0, 2.0, 3.0, float('inf'), float('-inf'), 0.0]:
        o = num64(ord)
        for dim, keep in [(None, False), (1, False), (0, True), ([0, 1], False)]:
            g.case('vector_norm ord=%s dim=%s keepdim=%s' % (o, dim, keep), 'vector_norm', {'ord': o, 'dim': dim, 'keepdim': keep}, [('x', v)],
                   lambda m, x, ord=ord, dim=dim, keep=keep: torch.linalg.vector_norm(x, ord, dim=dim, keepdim=keep))
    g.case('vector_norm ord=2 zero row', 'vector_norm', {'ord': 2.0, 'dim': 1, 'keepdim': False}, [('x', torch.tensor([[0.0, 0.0], [3.0, 4.0]]))],
           lambda m, x: torch.linalg.vector_norm(x, 2.0, dim=1))
    g.case('vector_norm ord=inf ties', 'vector_norm', {'ord': 'inf', 'dim': None, 'keepdim': False}, [('x', torch.tensor([[1.0, -3.0], [3.0, 2.0]]))],
           lambda m, x: torch.linalg.vector_norm(x, float('inf')))
    # Negative orders: (sum |x|^p)^(1/p); a zero in the reduction makes the norm 0 (gradient 0 there).
    w = g.randn(3, 4, scale=2.0)
    for ord in [-1.0, -2.0, -0.5]:
        o = num64(ord)
        for dim, keep in [(None, False), (1, True)]:
            g.case('vector_norm ord=%s dim=%s keepdim=%s' % (o, dim, keep), 'vector_norm', {'ord': o, 'dim': dim, 'keepdim': keep}, [('x', w)],
                   lambda m, x, ord=ord, dim=dim, keep=keep: torch.linalg.vector_norm(x, ord, dim=dim, keepdim=keep))
        g.case('vector_norm ord=%s zeros dim=1' % o, 'vector_norm', {'ord': o, 'dim': 1, 'keepdim': False}, [('x', v)],
               lambda m, x, ord=ord: torch.linalg.vector_norm(x, ord, dim=1))
    g.case('normalize p=-1.0', 'normalize', {'p': -1.0, 'dim': 1}, [('x', w)], lambda m, x: F.normalize(x, p=-1.0, dim=1))
    g.case('pairwise_distance p=-1.0', 'pairwise_distance', {'p': -1.0, 'eps': 1e-6, 'keepdim': False}, [('x1', w), ('x2', v)],
           lambda m, a, b: F.pairwise_distance(a, b, p=-1.0, eps=1e-6))
    return g


# ---------------------------------------------------------------------------------------------
# einsum, pools, convolutions, attention

def misc_group():
    g = Group('misc', 2e-5, 2e-5, 'einsum, pooling, convolutions, attention')
    eqs = [('ij,jk->ik', [(3, 4), (4, 5)]), ('ij->ji', [(3, 4)]), ('ii->i', [(4, 4)]), ('ii', [(4, 4)]), ('ij->', [(3, 4)]),
           ('bij,bjk->bik', [(2, 3, 4), (2, 4, 5)]), ('i,j->ij', [(3,), (4,)]), ('i,i->', [(5,), (5,)]), ('...ij,...jk->...ik', [(2, 1, 3, 4), (3, 4, 2)]),
           ('bhqd,bhkd->bhqk', [(1, 2, 3, 4), (1, 2, 5, 4)]), ('ijk->kji', [(2, 3, 4)]), ('ij,ij->i', [(3, 4), (3, 4)]), ('ab,bc,cd->ad', [(2, 3), (3, 4), (4, 2)]),
           ('iij->j', [(3, 3, 2)]), ('ij,kj', [(3, 4), (2, 4)]), ('i...->...', [(3, 2, 2)])]
    for eq, shapes in eqs:
        ins = [('x%d' % i, g.randn(*s)) for i, s in enumerate(shapes)]
        g.case('einsum %s' % eq, 'einsum', {'equation': eq}, ins, lambda m, *ts, eq=eq: torch.einsum(eq, *ts))

    xa = g.randn(2, 3, 7)
    for out in [1, 3, 4, 7, 9]:
        g.case('adaptive_avg_pool1d %d' % out, 'adaptive_avg_pool1d', {'output_size': out}, [('x', xa)], lambda m, x, out=out: F.adaptive_avg_pool1d(x, out))
        g.case('adaptive_max_pool1d %d' % out, 'adaptive_max_pool1d', {'output_size': out}, [('x', xa)], lambda m, x, out=out: F.adaptive_max_pool1d(x, out))
    xa2 = g.randn(1, 2, 5, 7)
    for out in [1, [2, 3], [5, 7], [3, None], [6, 4]]:
        g.case('adaptive_avg_pool2d %s' % out, 'adaptive_avg_pool2d', {'output_size': out}, [('x', xa2)], lambda m, x, out=out: F.adaptive_avg_pool2d(x, out))
        g.case('adaptive_max_pool2d %s' % out, 'adaptive_max_pool2d', {'output_size': out}, [('x', xa2)], lambda m, x, out=out: F.adaptive_max_pool2d(x, out))
    nf = torch.tensor([[[float('inf'), 1.0, 2.0, 3.0, float('nan'), 4.0, -float('inf'), 5.0]]])
    for out in [2, 3, 5]:
        g.case('adaptive_avg_pool1d non-finite %d' % out, 'adaptive_avg_pool1d', {'output_size': out}, [('x', nf)], lambda m, x, out=out: F.adaptive_avg_pool1d(x, out))
        g.case('adaptive_max_pool1d non-finite %d' % out, 'adaptive_max_pool1d', {'output_size': out}, [('x', nf)], lambda m, x, out=out: F.adaptive_max_pool1d(x, out))
    nf2 = g.randn(1, 1, 4, 4)
    nf2[0, 0, 0, 0] = float('inf')
    nf2[0, 0, 2, 3] = float('nan')
    nf2[0, 0, 3, 1] = float('-inf')
    for out in [2, 3]:
        g.case('adaptive_avg_pool2d non-finite %d' % out, 'adaptive_avg_pool2d', {'output_size': out}, [('x', nf2)], lambda m, x, out=out: F.adaptive_avg_pool2d(x, out))
        g.case('adaptive_max_pool2d non-finite %d' % out, 'adaptive_max_pool2d', {'output_size': out}, [('x', nf2)], lambda m, x, out=out: F.adaptive_max_pool2d(x, out))

    xp = g.randn(2, 2, 7, 6)
    for k, kw in [(2, {}), (3, {'stride': 2}), (3, {'stride': 2, 'padding': 1}), (3, {'stride': 2, 'padding': 1, 'ceil_mode': True}),
                  ([3, 2], {'stride': [2, 1], 'padding': [1, 0]}), (2, {'stride': 2, 'ceil_mode': True}), (2, {'dilation': 2}), (3, {'stride': 1, 'padding': 1, 'dilation': 2})]:
        g.case('max_pool2d k=%s %s' % (k, kw), 'max_pool2d', dict(kw, kernel_size=k), [('x', xp)], lambda m, x, k=k, kw=kw: F.max_pool2d(x, k, **kw))
    for k, kw in [(2, {}), (3, {'stride': 2, 'padding': 1}), (3, {'stride': 2, 'padding': 1, 'count_include_pad': False}),
                  (3, {'stride': 2, 'padding': 1, 'ceil_mode': True}), (3, {'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False}),
                  (2, {'stride': 2, 'ceil_mode': True}), (3, {'stride': 2, 'divisor_override': 2}), ([3, 2], {'stride': [2, 1], 'padding': [1, 1], 'divisor_override': 5})]:
        g.case('avg_pool2d k=%s %s' % (k, kw), 'avg_pool2d', dict(kw, kernel_size=k), [('x', xp)], lambda m, x, k=k, kw=kw: F.avg_pool2d(x, k, **kw))
    x1 = g.randn(2, 3, 9)
    for k, kw in [(2, {}), (3, {'stride': 2, 'padding': 1}), (4, {'stride': 3, 'ceil_mode': True}), (3, {'stride': 2, 'dilation': 2})]:
        g.case('max_pool1d k=%s %s' % (k, kw), 'max_pool1d', dict(kw, kernel_size=k), [('x', x1)], lambda m, x, k=k, kw=kw: F.max_pool1d(x, k, **kw))
    for k, kw in [(2, {}), (3, {'stride': 2, 'padding': 1}), (3, {'stride': 2, 'padding': 1, 'count_include_pad': False}), (4, {'stride': 3, 'ceil_mode': True})]:
        g.case('avg_pool1d k=%s %s' % (k, kw), 'avg_pool1d', dict(kw, kernel_size=k), [('x', x1)], lambda m, x, k=k, kw=kw: F.avg_pool1d(x, k, **kw))
    mp = torch.tensor([[[[1.0, 1.0, 2.0], [float('nan'), 0.0, 2.0], [-float('inf'), 3.0, 3.0]]]])
    g.case('max_pool2d ties and nan', 'max_pool2d', {'kernel_size': 2, 'stride': 1}, [('x', mp)], lambda m, x: F.max_pool2d(x, 2, stride=1))

    for cin, cout, k, kw in [(2, 3, 3, {}), (2, 4, 3, {'stride': 2, 'padding': 1}), (4, 4, 3, {'groups': 2, 'dilation': 2, 'padding': 2}),
                             (3, 3, 2, {'groups': 3, 'stride': 3}), (2, 3, 3, {'padding': 'same'}), (2, 2, 4, {'padding': 'same', 'dilation': 2})]:
        x = g.randn(2, cin, 10)
        w = g.randn(cout, cin // kw.get('groups', 1), k)
        b = g.randn(cout)
        g.case('conv1d %d->%d k=%d %s' % (cin, cout, k, kw), 'conv1d', kw, [('x', x), ('weight', w), ('bias', b)], lambda m, x, w, b, kw=kw: F.conv1d(x, w, b, **kw))
    for cin, cout, k, kw in [(2, 3, 3, {}), (2, 4, 3, {'stride': 2, 'padding': 1}), (4, 6, [3, 2], {'groups': 2, 'stride': [1, 2], 'padding': [1, 0]}),
                             (2, 2, 3, {'dilation': 2, 'padding': 2}), (3, 3, 3, {'groups': 3}), (2, 3, 3, {'padding': 'same'}), (2, 2, 3, {'stride': 2, 'padding': [0, 2], 'dilation': [1, 2]})]:
        kk = [k, k] if isinstance(k, int) else k
        x = g.randn(1, cin, 7, 8)
        w = g.randn(cout, cin // kw.get('groups', 1), *kk)
        b = g.randn(cout)
        g.case('conv2d %d->%d k=%s %s' % (cin, cout, k, kw), 'conv2d', kw, [('x', x), ('weight', w), ('bias', b)], lambda m, x, w, b, kw=kw: F.conv2d(x, w, b, **kw))
    g.case('conv2d no bias', 'conv2d', {'padding': 1}, [('x', g.randn(2, 2, 4, 4)), ('weight', g.randn(3, 2, 3, 3))], lambda m, x, w: F.conv2d(x, w, padding=1))
    for cin, cout, k, kw in [(2, 3, 3, {}), (2, 3, 3, {'stride': 2}), (2, 3, 3, {'stride': 2, 'padding': 1, 'output_padding': 1}),
                             (4, 6, 3, {'groups': 2, 'stride': 2}), (2, 2, 3, {'dilation': 2, 'padding': 1}), (2, 2, [2, 3], {'stride': [2, 1], 'padding': [0, 1]})]:
        kk = [k, k] if isinstance(k, int) else k
        x = g.randn(1, cin, 4, 5)
        w = g.randn(cin, cout // kw.get('groups', 1), *kk)
        b = g.randn(cout)
        g.case('conv_transpose2d %d->%d k=%s %s' % (cin, cout, k, kw), 'conv_transpose2d', kw, [('x', x), ('weight', w), ('bias', b)],
               lambda m, x, w, b, kw=kw: F.conv_transpose2d(x, w, b, **kw))
    g.case('conv_transpose1d stride=2', 'conv_transpose1d', {'stride': 2, 'padding': 1}, [('x', g.randn(2, 2, 5)), ('weight', g.randn(2, 3, 4)), ('bias', g.randn(3))],
           lambda m, x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1))

    has_sdpa = hasattr(F, 'scaled_dot_product_attention')
    if not has_sdpa:
        g.skip('F.scaled_dot_product_attention', 'torch %s has none (added in 2.0): the cases use the explicit softmax(QK^T/sqrt d + mask)V' % torch.__version__)

    def sdpa(q, k, v, attn_mask=None, is_causal=False, scale=None):
        if has_sdpa and scale is None:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=is_causal)
        s = q.shape[-1] ** -0.5 if scale is None else scale
        scores = q @ k.transpose(-2, -1) * s
        L, S = q.shape[-2], k.shape[-2]
        if is_causal:
            scores = scores.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float('-inf'))
        if attn_mask is not None:
            scores = scores.masked_fill(~attn_mask, float('-inf')) if attn_mask.dtype == torch.bool else scores + attn_mask
        return torch.softmax(scores, dim=-1) @ v

    q, k, v = g.randn(2, 2, 4, 3), g.randn(2, 2, 5, 3), g.randn(2, 2, 5, 6)
    bm = torch.tensor([[True, False, True, True, False], [True, True, True, True, True], [False, False, True, False, False], [True, True, False, False, True]])
    fm = g.randn(4, 5)
    g.case('sdpa', 'scaled_dot_product_attention', {}, [('q', q), ('k', k), ('v', v)], lambda m, q, k, v: sdpa(q, k, v))
    g.case('sdpa bool mask', 'scaled_dot_product_attention', {}, [('q', q), ('k', k), ('v', v), ('attn_mask', bm)], lambda m, q, k, v, am: sdpa(q, k, v, attn_mask=am))
    g.case('sdpa float mask', 'scaled_dot_product_attention', {}, [('q', q), ('k', k), ('v', v), ('attn_mask', fm)], lambda m, q, k, v, am: sdpa(q, k, v, attn_mask=am),
           grad=['q', 'k', 'v', 'attn_mask'])
    qs = g.randn(2, 2, 5, 3)
    g.case('sdpa is_causal square', 'scaled_dot_product_attention', {'is_causal': True}, [('q', qs), ('k', k), ('v', v)], lambda m, q, k, v: sdpa(q, k, v, is_causal=True))
    g.case('sdpa is_causal L<S', 'scaled_dot_product_attention', {'is_causal': True}, [('q', q), ('k', k), ('v', v)], lambda m, q, k, v: sdpa(q, k, v, is_causal=True))
    g.case('sdpa scale=0.3', 'scaled_dot_product_attention', {'scale': 0.3}, [('q', q), ('k', k), ('v', v)], lambda m, q, k, v: sdpa(q, k, v, scale=0.3))
    return g


# ---------------------------------------------------------------------------------------------
# modules: transformer layers, LSTM, GRU

def transformer_group():
    g = Group('transformer', 1e-4, 1e-5, 'TransformerEncoderLayer, TransformerDecoderLayer (batch_first, dropout 0), LSTM and GRU (2 layers, bidirectional, batch_first)')
    E, H, FF, N, T, S = 8, 2, 16, 2, 4, 5

    randomise = g.randomise

    src = g.randn(N, T, E)
    mem = g.randn(N, S, E)
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)  # True = not allowed (nn.MultiheadAttention's convention)
    fmask = g.randn(T, T)
    kpm = torch.tensor([[False, False, False, True], [False, True, False, False]])
    mkpm = torch.tensor([[False, False, True, False, True], [False, False, False, False, False]])
    cross = torch.tensor([[False, True, False, False, False], [False, False, False, True, False], [True, False, True, False, False], [False, False, False, False, False]])
    for norm_first in [False, True]:
        for act in ['relu', 'gelu']:
            torch.manual_seed(0)
            enc = randomise(nn.TransformerEncoderLayer(E, H, FF, dropout=0.0, activation=act, batch_first=True, norm_first=norm_first))
            base = {'d_model': E, 'nhead': H, 'dim_feedforward': FF, 'activation': act, 'norm_first': norm_first, 'layer_norm_eps': 1e-5}
            nm = 'encoder norm_first=%s %s' % (norm_first, act)
            g.case(nm, 'TransformerEncoderLayer', base, [('src', src)], lambda m, s: m(s), module=enc)
            g.case(nm + ' causal mask + key padding', 'TransformerEncoderLayer', base, [('src', src), ('src_mask', causal), ('src_key_padding_mask', kpm)],
                   lambda m, s, am, kp: m(s, src_mask=am, src_key_padding_mask=kp), module=enc)
            if act == 'relu':
                g.case(nm + ' float mask', 'TransformerEncoderLayer', base, [('src', src), ('src_mask', fmask)],
                       lambda m, s, am: m(s, src_mask=am), module=enc, grad=['src'])
            dec = randomise(nn.TransformerDecoderLayer(E, H, FF, dropout=0.0, activation=act, batch_first=True, norm_first=norm_first))
            nm = 'decoder norm_first=%s %s' % (norm_first, act)
            g.case(nm, 'TransformerDecoderLayer', base, [('tgt', src), ('memory', mem)], lambda m, t, mm: m(t, mm), module=dec)
            g.case(nm + ' masks + key padding', 'TransformerDecoderLayer', base,
                   [('tgt', src), ('memory', mem), ('tgt_mask', causal), ('memory_mask', cross), ('tgt_key_padding_mask', kpm), ('memory_key_padding_mask', mkpm)],
                   lambda m, t, mm, tm, cm, tk, mk: m(t, mm, tgt_mask=tm, memory_mask=cm, tgt_key_padding_mask=tk, memory_key_padding_mask=mk), module=dec)

    I, Hd = 3, 4
    x = g.randn(N, 5, I)
    for cls, name in [(nn.LSTM, 'LSTM'), (nn.GRU, 'GRU')]:
        for layers, bidir in [(2, True), (1, False)]:
            torch.manual_seed(0)
            m = randomise(cls(I, Hd, num_layers=layers, bidirectional=bidir, batch_first=True))
            args = {'input_size': I, 'hidden_size': Hd, 'num_layers': layers, 'bidirectional': bidir, 'batch_first': True}
            nm = '%s layers=%d bidirectional=%s' % (name, layers, bidir)
            D = layers * (2 if bidir else 1)
            if name == 'LSTM':
                g.case(nm, name, args, [('input', x)], lambda m, x: (lambda o: (o[0], o[1][0], o[1][1]))(m(x)), module=m)
                g.case(nm + ' with state', name, args, [('input', x), ('h0', g.randn(D, N, Hd)), ('c0', g.randn(D, N, Hd))],
                       lambda m, x, h, c: (lambda o: (o[0], o[1][0], o[1][1]))(m(x, (h, c))), module=m)
            else:
                g.case(nm, name, args, [('input', x)], lambda m, x: m(x), module=m)
                g.case(nm + ' with state', name, args, [('input', x), ('h0', g.randn(D, N, Hd))], lambda m, x, h: m(x, h), module=m)
    return g


GROUPS = [interpolate_group, activations_group, losses_group, norms_group, misc_group, transformer_group]


def more_groups():
    """Later groups, one module each in tools/torch-vectors/groups/ (its file name is the group's):
    a module defines make(gen) -> Group, where gen is this module (Group, num32, ...)."""
    import importlib.util
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'groups')
    makers = []
    for f in sorted(os.listdir(here)) if os.path.isdir(here) else []:
        if f.endswith('.py') and not f.startswith('_'):
            spec = importlib.util.spec_from_file_location('torch_vectors_' + f[:-3], os.path.join(here, f))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            makers.append(lambda mod=mod: mod.make(sys.modules[__name__]))
    return makers


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'test', 'fixtures', 'torch')
    os.makedirs(out_dir, exist_ok=True)
    only = set(sys.argv[2:])  # group names after OUT_DIR: just those
    for make in GROUPS + more_groups():
        g = make()
        if only and g.name not in only:
            continue
        path, n, size = g.write(out_dir)
        print('%-40s %4d cases %8.1f KB' % (os.path.relpath(path), n, size / 1024))
        if size > 1024 * 1024:
            print('  warning: over 1 MB', file=sys.stderr)


if __name__ == '__main__':
    main()
