#!/usr/bin/env python3
"""Writes PyTorch reference trajectories for the optimizers, gradient clipping and LR schedulers:
test/optim/torch-trajectories.test.ts replays them.

    /usr/bin/python3 tools/torch-vectors/optim.py [OUT_FILE]   (default test/fixtures/torch-optim/optim.json)

Kept apart from gen.py and test/fixtures/torch/ (one forward and one gradient per case there): a
case here is a sequence of steps. The file:

    { "torch": torch.__version__, "generator": 1,
      "tolerance": {"rtol", "atol"},          parameters and state after each step
      "lrTolerance": {"rtol", "atol"},        scheduler rates (float64 here and there)
      "optimizers": [ {
          "name", "optimizer": "SGD" | "Adam" | "AdamW" | "Adamax" | "RMSprop" | "Adagrad"
                     | "NAdam" | "RAdam" | "Adadelta" | "Rprop" | "ASGD",
          "rule": "torch 2.x"                   (NAdam only; absent: torch's own rule, see NADAM_2X)
          "options": { torch keyword: value },  the optimizer's defaults, torch's names (lr, betas, ...)
          "groups": [ { "params": [param index...], torch keyword: value } ]   (absent: one group);
                    group 0 sets nothing of its own (it takes "options"); the others may set
                    lr, weight_decay and the optimizer's own keywords (momentum, betas, ...)
          "scheduler": { "type", "args" }       (absent: none) stepped after each optimizer step
          "clip_norm": max_norm                 (absent: none) clip_grad_norm_ before each step
          "params": [ { "shape", "data" } ],    the starting values
          "grads": [ [ data | null per param ] per step ],   null: grad None (torch skips it)
          "steps": [ { "params": [ data per param ],
                       "state": [ { torch state name: data } per param ],   ("step" apart:)
                       "counts": [ state["step"] per param, null where torch keeps none (SGD) ],
                       "lrs": [ lr per group ] (the lr that step used) } ] } ],
      "clip": [ { "name", "fn": "clip_grad_norm_" | "clip_grad_value_",
                  "args": { max_norm, norm_type ("inf" for inf), error_if_nonfinite } | { clip_value },
                  "grads": [ { "shape", "data" } ],
                  "out": [ data ] and "norm" (clip_grad_norm_'s result), or "error": message } ],
      "schedulers": [ { "name", "type": torch class name, "args": { torch keyword: value },
                        "lrs0": [ base lr per group ],
                        "schedulers": [ { "type", "args" } ] and "milestones"   (SequentialLR)
                        "lambda": a name the test maps to the same function  (LambdaLR)
                        "metrics": [ one per epoch, "nan" for NaN ]          (ReduceLROnPlateau)
                        "lrs": [ [ lr per group ] per epoch ] } ],
      "lbfgsTolerance": {"rtol", "atol"},     LBFGS parameters and losses after each step
      "lbfgs": [ { "name", "problem": a key of LBFGS_PROBLEMS (the test rebuilds the loss),
                   "options": { torch keyword: value },
                   "steps": [ { "loss": what step(closure) returned, "params": [ data per param ],
                                "func_evals", "n_iter": torch's state after the step } ] } ] }

Epoch e's rates are the optimizer's param_groups' lr after e calls of scheduler.step() (for
ReduceLROnPlateau, step(metrics[e - 1])): what the optimizer step of epoch e uses.

Some cases record where torch and Switchyard differ on purpose: the test names them (KNOWN) and
checks that they still differ. Inputs are float32 from fixed formulas (no RNG); parameters and state are torch's float32
results, written with 9 significant digits (exact float32). Non-finite numbers are the strings
"nan", "inf", "-inf". Runs unchanged on torch 1.13 and 2.x (CPU, standard library only): the
options only some versions have (foreach, fused, differentiable, capturable on CPU) are not used.
"""
import inspect
import json
import os
import sys
import warnings

import torch

from gen import num32 as num  # 9 significant digits: every float32 round-trips

torch.set_num_threads(1)
# Schedulers stepped in a loop without a real training step warn about the call order.
warnings.filterwarnings('ignore')

GENERATOR_VERSION = 1
SHAPES = [[3], [2, 2], []]  # a vector, a matrix and a scalar
STEPS = 6




def flat(t):
    return [num(float(v)) for v in t.detach().reshape(-1).tolist()]


def size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def fill(shape, k, scale=1.0):
    """A fixed pseudo-random float32 tensor: element i of draw k."""
    vals = [((i * 37 + 11 * k + 5) % 17 - 8) / 8 * scale for i in range(size(shape))]
    return torch.tensor(vals, dtype=torch.float32).reshape(shape)


def start_params():
    return [fill(s, 100 + j, 0.75) + 0.125 for j, s in enumerate(SHAPES)]


def grad_seq(missing=False, zero=False, steps=STEPS):
    """grads[t][j]: step t, parameter j; `missing` drops the scalar's at steps 1 and 3, `zero` zeroes the matrix's at step 2."""
    out = []
    for t in range(steps):
        row = []
        for j, s in enumerate(SHAPES):
            g = fill(s, 7 * t + 3 * j, 0.5 + 0.25 * j)
            if missing and j == 2 and t in (1, 3):
                g = None
            elif zero and j == 1 and t == 2:
                g = torch.zeros(s)
            row.append(g)
        out.append(row)
    return out


OPTIMIZERS = {
    'SGD': torch.optim.SGD, 'Adam': torch.optim.Adam, 'AdamW': torch.optim.AdamW,
    'Adamax': torch.optim.Adamax, 'RMSprop': torch.optim.RMSprop, 'Adagrad': torch.optim.Adagrad,
    'NAdam': torch.optim.NAdam, 'RAdam': torch.optim.RAdam, 'Adadelta': torch.optim.Adadelta,
    'Rprop': torch.optim.Rprop, 'ASGD': torch.optim.ASGD,
}


def _nadam_2x(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr, weight_decay, momentum_decay, eps):
    """torch 2.x's _single_tensor_nadam (its default path, without the options 1.13 lacks), line for
    line: 1.13's multiplies mu_product_next by mu once too often (mu_product * mu * mu_next after
    mu_product *= mu; torch 2.0 fixed it), so its trajectories are not NAdam's (Dozat's) rule."""
    for i, param in enumerate(params):
        grad = grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        mu_product = mu_products[i]
        step_t = state_steps[i]
        step_t += 1
        step = step_t.item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1. - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
        mu_product_next = mu_product.item() * mu_next
        param.addcdiv_(grad, denom, value=(-lr * (1. - mu) / (1. - mu_product.item())))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1. - mu_product_next))


# Whether this torch's NAdam has 1.13's extra factor mu (then the "torch 2.x" cases run _nadam_2x).
# NAdam's module (torch.optim deletes the name): the "torch 2.x" cases replace its rule there.
NADAM = sys.modules[torch.optim.NAdam.__module__]
NADAM_2X = 'mu_product * mu * mu_next' in inspect.getsource(NADAM._single_tensor_nadam)


def make_scheduler(opt, spec):
    cls = getattr(torch.optim.lr_scheduler, spec['type'])
    return cls(opt, **spec['args'])


def optimizer_case(name, kind, options, groups=None, missing=False, zero=False, scheduler=None, clip_norm=None, steps=STEPS, rule=None):
    own_nadam = NADAM._single_tensor_nadam
    if rule == 'torch 2.x' and NADAM_2X:
        NADAM._single_tensor_nadam = _nadam_2x
    try:
        return _optimizer_case(name, kind, options, groups, missing, zero, scheduler, clip_norm, steps, rule)
    finally:
        NADAM._single_tensor_nadam = own_nadam


def _optimizer_case(name, kind, options, groups, missing, zero, scheduler, clip_norm, steps, rule):
    params = [p.clone().requires_grad_(True) for p in start_params()]
    if groups:
        torch_groups = [dict({'params': [params[i] for i in g['params']]}, **{k: v for k, v in g.items() if k != 'params'}) for g in groups]
    else:
        torch_groups = [{'params': params}]
    opt = OPTIMIZERS[kind](torch_groups, **options)
    sched = make_scheduler(opt, scheduler) if scheduler else None
    grads = grad_seq(missing, zero, steps)
    steps = []
    for row in grads:
        for p, g in zip(params, row):
            p.grad = None if g is None else g.clone()
        lrs = [g['lr'] for g in opt.param_groups]
        if clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(params, clip_norm)
        opt.step()
        if sched:
            sched.step()
        state = []
        counts = []
        for p in params:
            st = opt.state.get(p, {})
            state.append({k: flat(v) for k, v in st.items() if k != 'step' and torch.is_tensor(v) and v.numel() > 0})
            counts.append(int(float(st['step'])) if 'step' in st else None)
        steps.append({'params': [flat(p) for p in params], 'state': state, 'counts': counts, 'lrs': lrs})
    case = {
        'name': name, 'optimizer': kind, 'options': options,
        'params': [{'shape': s, 'data': flat(p)} for s, p in zip(SHAPES, start_params())],
        'grads': [[None if g is None else flat(g) for g in row] for row in grads],
        'steps': steps,
    }
    if rule:
        case['rule'] = rule
    if groups:
        case['groups'] = groups
    if scheduler:
        case['scheduler'] = scheduler
    if clip_norm is not None:
        case['clip_norm'] = clip_norm
    return case


def optimizer_cases():
    c = optimizer_case
    all_three = [{'params': [0, 2]}, {'params': [1], 'lr': 0.02, 'weight_decay': 0}]
    return [
        c('sgd lr', 'SGD', {'lr': 0.1}),
        c('sgd momentum', 'SGD', {'lr': 0.1, 'momentum': 0.9}),
        c('sgd momentum dampening', 'SGD', {'lr': 0.1, 'momentum': 0.9, 'dampening': 0.5}),
        c('sgd nesterov weight_decay', 'SGD', {'lr': 0.05, 'momentum': 0.8, 'nesterov': True, 'weight_decay': 0.01}),
        c('sgd weight_decay', 'SGD', {'lr': 0.1, 'weight_decay': 0.1}),
        c('sgd maximize momentum weight_decay', 'SGD', {'lr': 0.1, 'momentum': 0.5, 'weight_decay': 0.1, 'maximize': True}),
        c('sgd momentum, missing and zero grads', 'SGD', {'lr': 0.1, 'momentum': 0.9}, missing=True, zero=True),
        c('sgd groups', 'SGD', {'lr': 0.1, 'momentum': 0.9, 'weight_decay': 0.05}, groups=all_three),
        c('sgd groups + StepLR', 'SGD', {'lr': 0.1, 'momentum': 0.5}, groups=all_three, scheduler={'type': 'StepLR', 'args': {'step_size': 2, 'gamma': 0.5}}),
        c('sgd momentum + OneCycleLR (cycle_momentum, its default)', 'SGD', {'lr': 0.1, 'momentum': 0.9}, scheduler={'type': 'OneCycleLR', 'args': {'max_lr': 0.5, 'total_steps': 6}}),
        c('sgd momentum + OneCycleLR, cycle_momentum off', 'SGD', {'lr': 0.1, 'momentum': 0.9}, scheduler={'type': 'OneCycleLR', 'args': {'max_lr': 0.5, 'total_steps': 6, 'cycle_momentum': False}}),
        c('adam', 'Adam', {'lr': 0.01}),
        c('adam betas eps', 'Adam', {'lr': 0.02, 'betas': [0.8, 0.9], 'eps': 1e-3}),
        c('adam weight_decay (L2)', 'Adam', {'lr': 0.01, 'weight_decay': 0.1}),
        c('adam amsgrad', 'Adam', {'lr': 0.01, 'betas': [0.9, 0.99], 'amsgrad': True}),
        c('adam maximize weight_decay amsgrad', 'Adam', {'lr': 0.01, 'weight_decay': 0.1, 'amsgrad': True, 'maximize': True}),
        c('adam missing and zero grads', 'Adam', {'lr': 0.01}, missing=True, zero=True),
        c('adam groups', 'Adam', {'lr': 0.01, 'weight_decay': 0.05}, groups=all_three),
        c('adam groups + CosineAnnealingLR eta_min', 'Adam', {'lr': 0.01}, groups=all_three, scheduler={'type': 'CosineAnnealingLR', 'args': {'T_max': 8, 'eta_min': 0.001}}),
        c('adam groups + OneCycleLR max_lr per group, cycle_momentum off', 'Adam', {'lr': 0.1}, groups=all_three, scheduler={'type': 'OneCycleLR', 'args': {'max_lr': [0.05, 0.01], 'total_steps': 6, 'cycle_momentum': False}}),
        c('adamw', 'AdamW', {'lr': 0.01}),
        c('adamw weight_decay amsgrad', 'AdamW', {'lr': 0.01, 'weight_decay': 0.1, 'amsgrad': True}),
        c('adamw maximize', 'AdamW', {'lr': 0.01, 'weight_decay': 0.1, 'maximize': True}),
        c('adamw groups', 'AdamW', {'lr': 0.01, 'weight_decay': 0.1}, groups=all_three),
        c('adamw missing and zero grads', 'AdamW', {'lr': 0.01, 'weight_decay': 0.1}, missing=True, zero=True),
        c('adamax', 'Adamax', {}),
        c('adamax betas weight_decay', 'Adamax', {'lr': 0.01, 'betas': [0.8, 0.9], 'weight_decay': 0.05, 'eps': 1e-4}),
        c('adamax maximize', 'Adamax', {'lr': 0.01, 'maximize': True}),
        c('adamax missing and zero grads', 'Adamax', {'lr': 0.01}, missing=True, zero=True),
        c('rmsprop', 'RMSprop', {}),
        c('rmsprop alpha centered', 'RMSprop', {'lr': 0.005, 'alpha': 0.9, 'centered': True}),
        c('rmsprop momentum weight_decay', 'RMSprop', {'lr': 0.005, 'momentum': 0.8, 'weight_decay': 0.1}),
        c('rmsprop centered momentum weight_decay', 'RMSprop', {'lr': 0.005, 'alpha': 0.9, 'momentum': 0.8, 'centered': True, 'weight_decay': 0.1, 'eps': 1e-6}),
        c('rmsprop maximize', 'RMSprop', {'lr': 0.005, 'momentum': 0.5, 'maximize': True}),
        c('rmsprop missing and zero grads', 'RMSprop', {'lr': 0.005, 'momentum': 0.5}, missing=True, zero=True),
        c('adagrad', 'Adagrad', {}),
        c('adagrad lr_decay initial_accumulator_value', 'Adagrad', {'lr': 0.1, 'lr_decay': 0.5, 'initial_accumulator_value': 0.3}),
        c('adagrad weight_decay eps', 'Adagrad', {'lr': 0.1, 'weight_decay': 0.1, 'eps': 1e-3}),
        c('adagrad maximize', 'Adagrad', {'lr': 0.1, 'maximize': True}),
        c('adagrad missing and zero grads, lr_decay', 'Adagrad', {'lr': 0.1, 'lr_decay': 0.2}, missing=True, zero=True),
        c('adagrad groups', 'Adagrad', {'lr': 0.1, 'weight_decay': 0.05}, groups=all_three),
        c('sgd momentum, clip_grad_norm_ before each step, missing grads', 'SGD', {'lr': 0.1, 'momentum': 0.9}, missing=True, clip_norm=0.75),
        c('adamw clip_grad_norm_ before each step', 'AdamW', {'lr': 0.01}, clip_norm=0.5),
    ] + more_optimizer_cases()


def more_optimizer_cases():
    c = optimizer_case
    all_three = [{'params': [0, 2]}, {'params': [1], 'lr': 0.02, 'weight_decay': 0}]
    lr_only = [{'params': [0, 2]}, {'params': [1], 'lr': 0.02}]
    x = 'torch 2.x'
    # RAdam rectifies once rho_t > 5: from step 6 with these betas, so its cases run 10 steps.
    return [
        # NAdam (1.13 has no maximize): torch 2.x's rule, and 1.13's own once (a KNOWN difference).
        c('nadam', 'NAdam', {}, rule=x),
        c('nadam betas eps momentum_decay', 'NAdam', {'lr': 0.01, 'betas': [0.8, 0.9], 'eps': 1e-4, 'momentum_decay': 0.01}, rule=x),
        c('nadam weight_decay', 'NAdam', {'lr': 0.01, 'weight_decay': 0.1}, rule=x),
        c('nadam missing and zero grads', 'NAdam', {'lr': 0.01}, missing=True, zero=True, rule=x),
        c('nadam groups', 'NAdam', {'lr': 0.01, 'weight_decay': 0.05}, groups=all_three, rule=x),
        c("nadam, torch 1.13's rule", 'NAdam', {'lr': 0.01}),
        c('radam', 'RAdam', {}, steps=10),
        c('radam betas eps weight_decay', 'RAdam', {'lr': 0.01, 'betas': [0.8, 0.95], 'eps': 1e-4, 'weight_decay': 0.1}, steps=10),
        c('radam missing and zero grads', 'RAdam', {'lr': 0.01}, missing=True, zero=True, steps=10),
        c('radam groups', 'RAdam', {'lr': 0.01, 'weight_decay': 0.05}, groups=all_three, steps=10),
        c('adadelta', 'Adadelta', {}),
        c('adadelta lr rho eps weight_decay', 'Adadelta', {'lr': 0.5, 'rho': 0.8, 'eps': 1e-4, 'weight_decay': 0.1}),
        c('adadelta maximize', 'Adadelta', {'lr': 0.5, 'maximize': True}),
        c('adadelta missing and zero grads', 'Adadelta', {'lr': 0.5}, missing=True, zero=True),
        c('adadelta groups', 'Adadelta', {'lr': 0.5, 'weight_decay': 0.05}, groups=all_three),
        c('rprop', 'Rprop', {}, steps=10),
        c('rprop lr etas step_sizes (clamped)', 'Rprop', {'lr': 0.05, 'etas': [0.3, 1.5], 'step_sizes': [0.02, 0.1]}, steps=10),
        c('rprop maximize', 'Rprop', {'lr': 0.05, 'maximize': True}),
        c('rprop missing and zero grads', 'Rprop', {'lr': 0.05}, missing=True, zero=True),
        c('rprop groups (lr only sets the first step size)', 'Rprop', {'lr': 0.05}, groups=lr_only),
        c('asgd', 'ASGD', {}),
        c('asgd lr lambd alpha t0 weight_decay', 'ASGD', {'lr': 0.05, 'lambd': 0.01, 'alpha': 0.5, 't0': 2, 'weight_decay': 0.1}, steps=8),
        c('asgd maximize', 'ASGD', {'lr': 0.05, 'lambd': 0.01, 'maximize': True}),
        c('asgd missing and zero grads', 'ASGD', {'lr': 0.05, 'lambd': 0.01, 't0': 1}, missing=True, zero=True),
        c('asgd groups', 'ASGD', {'lr': 0.05, 'lambd': 0.01, 't0': 1, 'weight_decay': 0.05}, groups=all_three),
        # eta, the step size, is computed after each step from that step's lr: the next step uses it.
        c("asgd + StepLR (eta from the last step's lr)", 'ASGD', {'lr': 0.05, 'lambd': 0.1, 't0': 1}, scheduler={'type': 'StepLR', 'args': {'step_size': 2, 'gamma': 0.5}}),
    ] + group_setting_cases()


def group_setting_cases():
    """Two groups, the second with its own settings beside lr and weight_decay (torch's param_groups)."""
    c = optimizer_case

    def two(**own):
        return [{'params': [0, 2]}, dict({'params': [1]}, **own)]
    x = 'torch 2.x'
    return [
        c('sgd groups: momentum, nesterov, lr per group', 'SGD', {'lr': 0.1, 'momentum': 0.9}, groups=two(lr=0.05, momentum=0.5, nesterov=True, weight_decay=0.01)),
        c('sgd groups: no momentum in one, dampening in the other', 'SGD', {'lr': 0.1, 'momentum': 0.9, 'dampening': 0.3}, groups=two(momentum=0)),
        c('sgd groups: per-group momentum + StepLR', 'SGD', {'lr': 0.1}, groups=two(lr=0.02, momentum=0.8), scheduler={'type': 'StepLR', 'args': {'step_size': 2, 'gamma': 0.5}}),
        c('adam groups: betas, eps, amsgrad per group', 'Adam', {'lr': 0.01}, groups=two(betas=[0.8, 0.9], eps=1e-3, amsgrad=True)),
        c('adamw groups: betas, weight_decay per group + CosineAnnealingLR', 'AdamW', {'lr': 0.01, 'weight_decay': 0.1}, groups=two(lr=0.02, betas=[0.5, 0.6], weight_decay=0.5), scheduler={'type': 'CosineAnnealingLR', 'args': {'T_max': 8, 'eta_min': 0.001}}),
        c('adamax groups: betas, eps per group', 'Adamax', {'lr': 0.01}, groups=two(betas=[0.8, 0.9], eps=1e-3)),
        c('rmsprop groups: alpha, centered, momentum, eps per group', 'RMSprop', {'lr': 0.005, 'momentum': 0.5}, groups=two(alpha=0.9, centered=True, momentum=0, eps=1e-3)),
        # torch fills every group's sum with the constructor's initial_accumulator_value: not a group setting.
        c('adagrad groups: lr_decay, eps per group', 'Adagrad', {'lr': 0.1, 'initial_accumulator_value': 0.3}, groups=two(lr_decay=0.5, eps=1e-3)),
        c('nadam groups: betas, momentum_decay per group', 'NAdam', {'lr': 0.01}, groups=two(betas=[0.8, 0.9], momentum_decay=0.05), rule=x),
        c('radam groups: betas, eps per group', 'RAdam', {'lr': 0.01}, groups=two(betas=[0.8, 0.95], eps=1e-4), steps=10),
        c('adadelta groups: rho, eps per group', 'Adadelta', {'lr': 0.5}, groups=two(rho=0.5, eps=1e-3)),
        c('rprop groups: etas, step_sizes per group', 'Rprop', {'lr': 0.05}, groups=two(etas=[0.3, 1.5], step_sizes=[0.02, 0.1]), steps=10),
        c('asgd groups: lambd, alpha, t0 per group', 'ASGD', {'lr': 0.05, 'lambd': 0.01}, groups=two(lambd=0.1, alpha=0.5, t0=2), steps=8),
    ] + cycle_momentum_cases()


def cycle_momentum_cases():
    """OneCycleLR's cycle_momentum (its default): SGD's and RMSprop's momentum, the others' beta1, in every group."""
    c = optimizer_case

    def one_cycle(max_lr, total=6, **more):
        return {'type': 'OneCycleLR', 'args': dict({'max_lr': max_lr, 'total_steps': total}, **more)}
    return [
        c('adam + OneCycleLR, cycle_momentum (beta1)', 'Adam', {'lr': 0.01}, scheduler=one_cycle(0.05)),
        c('adamw amsgrad + OneCycleLR, base and max momentum', 'AdamW', {'lr': 0.01, 'amsgrad': True}, scheduler=one_cycle(0.05, base_momentum=0.7, max_momentum=0.9)),
        c('rmsprop (no momentum of its own) + OneCycleLR, cycle_momentum', 'RMSprop', {'lr': 0.005}, scheduler=one_cycle(0.01, base_momentum=0.5, max_momentum=0.8)),
        c('adamax + OneCycleLR, cycle_momentum', 'Adamax', {'lr': 0.01}, scheduler=one_cycle(0.05)),
        c('radam + OneCycleLR, cycle_momentum', 'RAdam', {'lr': 0.01}, scheduler=one_cycle(0.05, total=10), steps=10),
        c('sgd groups (momentum per group) + OneCycleLR three_phase linear, cycle_momentum in every group', 'SGD', {'lr': 0.1, 'momentum': 0.9},
          groups=[{'params': [0, 2]}, {'params': [1], 'lr': 0.05, 'momentum': 0.5}],
          scheduler=one_cycle([0.5, 0.25], total=8, pct_start=0.25, three_phase=True, anneal_strategy='linear')),
    ]


def clip_case(name, fn, args, grads):
    ps = []
    for g in grads:
        p = torch.zeros(g.shape, requires_grad=True)
        p.grad = g.clone()
        ps.append(p)
    json_args = {k: num(v) if isinstance(v, float) else v for k, v in args.items()}  # norm_type inf as "inf"
    case = {'name': name, 'fn': fn, 'args': json_args, 'grads': [{'shape': list(g.shape), 'data': flat(g)} for g in grads]}
    try:
        r = getattr(torch.nn.utils, fn)(ps, **args)
    except RuntimeError as e:
        case['error'] = str(e).split('.')[0]
        return case
    case['out'] = [flat(p.grad) for p in ps]
    if r is not None:
        case['norm'] = num(float(r))
    return case


def clip_cases():
    gs = [fill(s, 40 + j, 1.5) for j, s in enumerate(SHAPES)]
    bad = [g.clone() for g in gs]
    bad[1][0, 1] = float('inf')
    nan = [g.clone() for g in gs]
    nan[0][2] = float('nan')
    c = clip_case
    out = []
    for p in (2, 1, 3, float('inf')):
        tag = 'inf' if p == float('inf') else str(p)
        out.append(c(f'norm {tag} clips', 'clip_grad_norm_', {'max_norm': 1.0, 'norm_type': p}, gs))
        out.append(c(f'norm {tag} under max_norm', 'clip_grad_norm_', {'max_norm': 100.0, 'norm_type': p}, gs))
    out += [
        c('norm 2 one scalar gradient', 'clip_grad_norm_', {'max_norm': 0.5}, [torch.tensor(-2.0)]),
        c('norm 2 max_norm 0', 'clip_grad_norm_', {'max_norm': 0.0}, gs),
        c('norm 2 inf grad', 'clip_grad_norm_', {'max_norm': 1.0, 'error_if_nonfinite': False}, bad),
        c('norm inf inf grad', 'clip_grad_norm_', {'max_norm': 1.0, 'norm_type': float('inf'), 'error_if_nonfinite': False}, bad),
        c('norm 2 nan grad', 'clip_grad_norm_', {'max_norm': 1.0, 'error_if_nonfinite': False}, nan),
        c('norm 2 inf grad error_if_nonfinite', 'clip_grad_norm_', {'max_norm': 1.0, 'error_if_nonfinite': True}, bad),
        c('norm 2 nan grad error_if_nonfinite', 'clip_grad_norm_', {'max_norm': 1.0, 'error_if_nonfinite': True}, nan),
        c('norm 0.5', 'clip_grad_norm_', {'max_norm': 1.0, 'norm_type': 0.5}, gs),
        c('norm 2 no gradients', 'clip_grad_norm_', {'max_norm': 1.0}, []),
        c('value 0.5', 'clip_grad_value_', {'clip_value': 0.5}, gs),
        c('value 0', 'clip_grad_value_', {'clip_value': 0.0}, gs),
        c('value 0.5 nan and inf', 'clip_grad_value_', {'clip_value': 0.5}, [bad[1], nan[0]]),
    ]
    return out


EPOCHS = 25
LAMBDAS = {
    # name -> the same function as the test's table
    'decay-sawtooth': lambda e: 0.95 ** e / (1 + e % 3),
}


def sched_case(name, type_, args, lrs0=(0.1, 0.02), metrics=None, lam=None, inner=None, milestones=None, epochs=EPOCHS):
    params = [torch.zeros(1, requires_grad=True) for _ in lrs0]
    opt = torch.optim.SGD([{'params': [p], 'lr': lr} for p, lr in zip(params, lrs0)], lr=lrs0[0])
    if type_ == 'SequentialLR':
        subs = [make_scheduler(opt, s) for s in inner]
        sched = torch.optim.lr_scheduler.SequentialLR(opt, subs, milestones)
    elif type_ == 'LambdaLR':
        sched = torch.optim.lr_scheduler.LambdaLR(opt, LAMBDAS[lam])
    else:
        sched = make_scheduler(opt, {'type': type_, 'args': args})
    lrs = []
    for e in range(epochs):
        lrs.append([g['lr'] for g in opt.param_groups])
        opt.step()
        if metrics is not None:
            sched.step(metrics[e])
        else:
            sched.step()
    case = {'name': name, 'type': type_, 'args': args, 'lrs0': list(lrs0), 'lrs': lrs}
    if metrics is not None:
        case['metrics'] = [num(m) for m in metrics]
    if lam:
        case['lambda'] = lam
    if inner:
        case['schedulers'] = inner
        case['milestones'] = milestones
    return case


def scheduler_cases():
    c = sched_case
    # A loss that falls, stalls, falls again and stalls: plateaus of several lengths.
    loss = [1.0, 0.8, 0.7, 0.7, 0.71, 0.69, 0.7, 0.7, 0.5, 0.5, 0.5, 0.5, 0.5, 0.45, 0.45, 0.46, 0.45, 0.45, 0.45, 0.45, 0.3, 0.3, 0.3, 0.3, 0.3]
    acc = [1 - v for v in loss]
    out = [
        c('StepLR', 'StepLR', {'step_size': 3, 'gamma': 0.5}),
        c('MultiStepLR repeated milestone', 'MultiStepLR', {'milestones': [2, 5, 5, 9], 'gamma': 0.3}),
        c('ExponentialLR', 'ExponentialLR', {'gamma': 0.9}),
        c('ConstantLR', 'ConstantLR', {'factor': 0.5, 'total_iters': 4}),
        c('LinearLR warm-up', 'LinearLR', {'start_factor': 0.25, 'end_factor': 1.0, 'total_iters': 6}),
        c('LinearLR decay', 'LinearLR', {'start_factor': 1.0, 'end_factor': 0.1, 'total_iters': 8}),
        c('CosineAnnealingLR', 'CosineAnnealingLR', {'T_max': 24}),
        c('CosineAnnealingLR eta_min', 'CosineAnnealingLR', {'T_max': 24, 'eta_min': 0.001}),
        c('CosineAnnealingLR past T_max', 'CosineAnnealingLR', {'T_max': 10}),
        c('CosineAnnealingWarmRestarts', 'CosineAnnealingWarmRestarts', {'T_0': 5}),
        c('CosineAnnealingWarmRestarts T_mult eta_min', 'CosineAnnealingWarmRestarts', {'T_0': 3, 'T_mult': 2, 'eta_min': 0.001}),
        # OneCycleLR sets every group's lr from max_lr: one group, or a max_lr per group.
        c('OneCycleLR', 'OneCycleLR', {'max_lr': 0.5, 'total_steps': 25}, lrs0=(0.1,)),
        c('OneCycleLR linear three_phase', 'OneCycleLR', {'max_lr': 0.5, 'total_steps': 25, 'pct_start': 0.25, 'anneal_strategy': 'linear', 'three_phase': True, 'div_factor': 10, 'final_div_factor': 100}, lrs0=(0.1,)),
        c('OneCycleLR max_lr per group', 'OneCycleLR', {'max_lr': [0.5, 0.1], 'total_steps': 25}),
        c('OneCycleLR one max_lr, two groups', 'OneCycleLR', {'max_lr': 0.5, 'total_steps': 25}),
        c('LambdaLR', 'LambdaLR', {}, lam='decay-sawtooth'),
        c('ReduceLROnPlateau', 'ReduceLROnPlateau', {'patience': 1}, metrics=loss),
        c('ReduceLROnPlateau max abs cooldown', 'ReduceLROnPlateau', {'mode': 'max', 'factor': 0.5, 'patience': 1, 'threshold': 0.02, 'threshold_mode': 'abs', 'cooldown': 2}, metrics=acc),
        c('ReduceLROnPlateau min_lr', 'ReduceLROnPlateau', {'factor': 0.2, 'patience': 0, 'min_lr': 0.005}, metrics=loss, lrs0=(0.1,)),
        c('ReduceLROnPlateau min_lr, two groups', 'ReduceLROnPlateau', {'factor': 0.2, 'patience': 0, 'min_lr': 0.005}, metrics=loss),
        c('SequentialLR LinearLR then ExponentialLR', 'SequentialLR', {}, inner=[{'type': 'LinearLR', 'args': {'start_factor': 0.1, 'total_iters': 4}}, {'type': 'ExponentialLR', 'args': {'gamma': 0.9}}], milestones=[5]),
        c('SequentialLR ConstantLR, StepLR, CosineAnnealingLR', 'SequentialLR', {}, inner=[{'type': 'ConstantLR', 'args': {'factor': 0.5, 'total_iters': 3}}, {'type': 'StepLR', 'args': {'step_size': 2, 'gamma': 0.5}}, {'type': 'CosineAnnealingLR', 'args': {'T_max': 16}}], milestones=[3, 9]),
    ]
    out += [
        c('MultiStepLR milestone 0', 'MultiStepLR', {'milestones': [0, 3], 'gamma': 0.5}),
        c('ConstantLR total_iters 0', 'ConstantLR', {'factor': 0.5, 'total_iters': 0}),
        c('ReduceLROnPlateau eps skips small reductions', 'ReduceLROnPlateau', {'factor': 0.5, 'patience': 0, 'eps': 0.03}, metrics=loss, lrs0=(0.1,)),
        c('ReduceLROnPlateau max rel, nan metrics', 'ReduceLROnPlateau', {'mode': 'max', 'patience': 2, 'threshold': 0.1}, metrics=[0.1, 0.2, float('nan'), 0.21, 0.25, float('nan'), 0.3, 0.3, 0.3, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]),
        c('ReduceLROnPlateau min, negative metrics', 'ReduceLROnPlateau', {'patience': 0, 'threshold': 0.05}, metrics=[-v for v in acc]),
        c('SequentialLR ExponentialLR then LinearLR', 'SequentialLR', {}, inner=[{'type': 'ExponentialLR', 'args': {'gamma': 0.8}}, {'type': 'LinearLR', 'args': {'start_factor': 0.2, 'total_iters': 3}}], milestones=[4]),
        c('SequentialLR LinearLR, CosineAnnealingWarmRestarts, MultiStepLR', 'SequentialLR', {}, inner=[{'type': 'LinearLR', 'args': {'start_factor': 0.5, 'total_iters': 2}}, {'type': 'CosineAnnealingWarmRestarts', 'args': {'T_0': 4, 'eta_min': 0.001}}, {'type': 'MultiStepLR', 'args': {'milestones': [0, 2, 4], 'gamma': 0.5}}], milestones=[3, 12]),
    ]
    out.append(c('LinearLR to 0', 'LinearLR', {'start_factor': 0.5, 'end_factor': 0.0, 'total_iters': 7}))
    if hasattr(torch.optim.lr_scheduler, 'PolynomialLR'):
        out.append(c('PolynomialLR', 'PolynomialLR', {'total_iters': 10, 'power': 2.0}))
        out.append(c('PolynomialLR power 0.5', 'PolynomialLR', {'total_iters': 20, 'power': 0.5}))
    return out


# ---- LBFGS: a closure evaluated several times per step, on fixed problems the test rebuilds ----

def _rosenbrock(ps):
    a, b = ps
    return (10 * (b - a ** 2) ** 2 + (1 - a) ** 2).sum()


QUAD_W = [[1.0, 2.0, 0.5], [[1.5, 0.25], [3.0, 1.0]], 3.0]
QUAD_C = [[0.5, -1.0, 2.0], [[1.0, -0.5], [0.25, 2.0]], 0.5]


def _quadratic(ps):
    x, y, z = ps
    w = [torch.tensor(v, dtype=torch.float32) for v in QUAD_W]
    c = [torch.tensor(v, dtype=torch.float32) for v in QUAD_C]
    return (w[0] * (x - c[0]) ** 2).sum() + (w[1] * (y - c[1]) ** 2).sum() + w[2] * (z - c[2]) ** 2 + 0.5 * (x.sum() + y.sum() - z) ** 2


MLP_X = [[0.5, -1.0], [1.5, 0.25], [-0.75, 0.5], [1.0, 1.0]]
MLP_Y = [[0.25], [-0.5], [0.75], [0.1]]


def _mlp(ps):
    w1, b1, w2, b2 = ps
    x = torch.tensor(MLP_X, dtype=torch.float32)
    y = torch.tensor(MLP_Y, dtype=torch.float32)
    return ((torch.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2).mean()


LBFGS_PROBLEMS = {
    # name: (loss, starting values)
    'rosenbrock': (_rosenbrock, [[-1.2, 0.8, 1.5], [1.0, -0.5, 2.0]]),
    'quadratic': (_quadratic, [[0.0, 0.5, -0.5], [[0.25, 0.0], [-1.0, 0.5]], 1.5]),
    'mlp': (_mlp, [[[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], [0.05, -0.1, 0.2], [[0.7], [-0.3], [0.2]], [0.1]]),
}


def lbfgs_case(name, problem, options, steps):
    fn, start = LBFGS_PROBLEMS[problem]
    params = [torch.tensor(v, dtype=torch.float32, requires_grad=True) for v in start]
    opt = torch.optim.LBFGS(params, **options)

    def closure():
        opt.zero_grad()
        loss = fn(params)
        loss.backward()
        return loss
    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[params[0]]
        out.append({'loss': num(float(loss)), 'params': [flat(p) for p in params], 'func_evals': st['func_evals'], 'n_iter': st['n_iter']})
    return {'name': name, 'problem': problem, 'options': options, 'steps': out}


def lbfgs_cases():
    c = lbfgs_case
    sw = 'strong_wolfe'
    return [
        # Without a line search Rosenbrock's iterates jump far and float32 rounding grows (torch's own
        # float32 and float64 runs part by 1e-4 within 40 iterations): few iterations there.
        c('rosenbrock, max_iter 4', 'rosenbrock', {'max_iter': 4}, 2),
        c('rosenbrock, lr 0.5, history_size 3 (wraps), max_iter 8', 'rosenbrock', {'lr': 0.5, 'history_size': 3, 'max_iter': 8}, 2),
        c('rosenbrock, strong_wolfe', 'rosenbrock', {'line_search_fn': sw}, 3),
        c('rosenbrock, strong_wolfe, history_size 2, max_iter 6', 'rosenbrock', {'line_search_fn': sw, 'history_size': 2, 'max_iter': 6}, 4),
        c('rosenbrock, strong_wolfe, max_eval 7', 'rosenbrock', {'line_search_fn': sw, 'max_eval': 7}, 3),
        c('quadratic, tolerance_grad 1e-3 stops early', 'quadratic', {'max_iter': 50, 'tolerance_grad': 1e-3}, 3),
        c('quadratic, strong_wolfe, tolerance_grad 1e-4 stops early', 'quadratic', {'max_iter': 50, 'tolerance_grad': 1e-4, 'line_search_fn': sw}, 3),
        c('quadratic, tolerance_change 1e-2', 'quadratic', {'lr': 0.5, 'max_iter': 30, 'tolerance_change': 1e-2}, 2),
        c('mlp, lr 0.5, history_size 2, max_iter 6', 'mlp', {'lr': 0.5, 'history_size': 2, 'max_iter': 6}, 4),
        c('mlp, strong_wolfe, history_size 4, max_iter 8', 'mlp', {'line_search_fn': sw, 'history_size': 4, 'max_iter': 8}, 3),
        # A first step below 1 (lr < 1): torch's step lengths become float32 tensors in the search.
        # (Rosenbrock at lr 0.01 is too sensitive here: a cubic's discriminant near 0 flips with a
        # 1-ulp difference in the loss, whose float32 sum torch orders otherwise.)
        c('quadratic, strong_wolfe, lr 0.05, history_size 3, max_iter 5', 'quadratic', {'line_search_fn': sw, 'lr': 0.05, 'history_size': 3, 'max_iter': 5}, 3),
        c('mlp, strong_wolfe, lr 0.3, history_size 3', 'mlp', {'line_search_fn': sw, 'lr': 0.3, 'history_size': 3, 'max_iter': 10}, 3),
    ]


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, 'test', 'fixtures', 'torch-optim', 'optim.json')
    data = {
        'torch': torch.__version__, 'generator': GENERATOR_VERSION,
        'tolerance': {'rtol': 1e-5, 'atol': 1e-6},
        'lrTolerance': {'rtol': 1e-9, 'atol': 1e-12},
        'optimizers': optimizer_cases(),
        'clip': clip_cases(),
        'schedulers': scheduler_cases(),
        'lbfgsTolerance': {'rtol': 1e-4, 'atol': 1e-5},
        'lbfgs': lbfgs_cases(),
    }
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(data, f, separators=(',', ':'))
        f.write('\n')
    print(f"{path}: {len(data['optimizers'])} optimizer, {len(data['clip'])} clip, {len(data['schedulers'])} scheduler, {len(data['lbfgs'])} LBFGS cases (torch {torch.__version__})")


if __name__ == '__main__':
    main()
