/**
 * Gradients and updates at edges, against float64 references from PyTorch's formulas: the
 * binary cross-entropies at a logit of exactly 0 and at probabilities of exactly 0 and 1; a
 * parameter tied into two places is stepped once and counted once; LayerNorm refuses an input
 * whose last dim is not its own; optimizer state of another kind is a typed error.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError } from '../../src/errors.js';
import * as nn from '../../src/nn/index.js';
import * as optim from '../../src/optim/index.js';
import { Adam, ParamGrads, SGD } from '../../src/optim/index.js';
import { loadModule } from '../../src/record/module.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());

async function values(t: Tensor<typeof ad> | undefined): Promise<number[]> {
  if (!t) throw new Error('no gradient');
  return Array.from((await t.toData()).values);
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

describe('binary cross-entropy gradients', () => {
  test('with logits: sigmoid(x) - y everywhere, a logit of exactly 0 included', async () => {
    const xs = [0, 0, -0, 1e-3, -2.5, 30, -30];
    const ys = [1, 0, 0.3, 1, 0, 1, 1];
    const x = fromData(ad, xs).requireGrad();
    const grads = nn.binaryCrossEntropyWithLogits(x, fromData(ad, ys), { reduction: 'sum' }).backward();
    const got = await values(x.grad(grads));
    xs.forEach((v, i) => expect(got[i]!, `x = ${v}, y = ${ys[i]}`).toBeCloseTo(sigmoid(v) - ys[i]!, 6));
    // With posWeight w: d/dx = (1 - y) sigmoid(x) - w y sigmoid(-x).
    const w = 3;
    const x2 = fromData(ad, [0, 2]).requireGrad();
    const g2 = nn.binaryCrossEntropyWithLogits(x2, fromData(ad, [1, 0.5]), { reduction: 'sum', posWeight: fromData(ad, [w]) }).backward();
    const got2 = await values(x2.grad(g2));
    [0, 2].forEach((v, i) => {
      const y = [1, 0.5][i]!;
      expect(got2[i]!).toBeCloseTo((1 - y) * sigmoid(v) - w * y * sigmoid(-v), 6);
    });
    // The values stay right at large |x|: softplus(-x) + (1 - y) x.
    const big = nn.binaryCrossEntropyWithLogits(fromData(ad, [1e4, -1e4]), fromData(ad, [0, 0]), { reduction: 'none' });
    expect(await values(big)).toEqual([1e4, 0]);
  });

  test('on probabilities: finite at p = 0 and 1 exactly, (p - y) / (p (1 - p)) inside', async () => {
    const z = fromData(ad, [20, -20, 5, -1]).requireGrad(); // sigmoid(20) is 1 and sigmoid(-20) 2e-9 in float32
    const ys = [1, 0, 1, 0.25];
    const p = z.sigmoid();
    const grads = nn.binaryCrossEntropy(p, fromData(ad, ys), { reduction: 'sum' }).backward();
    const got = await values(z.grad(grads));
    expect(got.every(Number.isFinite)).toBe(true);
    // d/dz = (p - y) through the sigmoid, where p is inside (0, 1) in float32.
    [5, -1].forEach((v, k) => expect(got[k + 2]!).toBeCloseTo(sigmoid(v) - ys[k + 2]!, 5));
    const q = fromData(ad, [0, 1, 0.5]).requireGrad();
    const gq = nn.binaryCrossEntropy(q, fromData(ad, [1, 0, 0.5]), { reduction: 'sum' }).backward();
    const gotQ = await values(q.grad(gq));
    expect(gotQ.every(Number.isFinite)).toBe(true);
    expect(gotQ[2]!).toBeCloseTo(0, 6);
    // The loss there is torch's: log clamped at -100.
    expect(await values(nn.binaryCrossEntropy(fromData(ad, [0, 1]), fromData(ad, [1, 0]), { reduction: 'none' }))).toEqual([100, 100]);
  });
});

describe('a parameter in two places', () => {
  class Tied extends nn.Module<typeof ad> {
    readonly emb = new nn.Param(fromData(ad, [1, 2, 3]));
    readonly out = this.emb;
  }

  test('is stepped once and counted once', async () => {
    const m = new Tied();
    expect(m.params()).toHaveLength(1);
    expect(m.numParams()).toBe(3);
    const loss = m.emb.value.sum();
    const grads = ParamGrads.from(loss.backward(), m);
    new SGD<typeof ad>({ lr: 0.1 }).step(m, grads);
    const got = await values(m.emb.value);
    [0.9, 1.9, 2.9].forEach((v, i) => expect(got[i]!).toBeCloseTo(v, 6));
  });

  test('stays one parameter in a clone and a fork (torch deepcopy keeps ties)', async () => {
    const lin = new nn.Linear(ad, 2, 2);
    const model = new nn.Sequential<typeof ad>(lin, new nn.Relu(), lin);
    for (const copy of [model.clone(), model.fork(ad.defaultDevice())]) {
      const named = copy.namedParams();
      expect(named.map(([n]) => n)).toEqual(['layers.0.weight', 'layers.0.bias', 'layers.2.weight', 'layers.2.bias']);
      expect(named[0]![1]).toBe(named[2]![1]);
      expect(named[0]![1]).not.toBe(lin.weight);
      expect(named[0]![1].id).toBe(lin.weight.id);
      expect(copy.params()).toHaveLength(2);
      copy.dispose();
    }
    model.dispose();
  });

  test('a Linear used twice in a Sequential: one update with the summed gradient', async () => {
    const lin = new nn.Linear(ad, 2, 2);
    const model = new nn.Sequential<typeof ad>(lin, new nn.Relu(), lin);
    expect(model.params()).toHaveLength(2);
    expect(model.numParams()).toBe(6);
    const w0 = await values(lin.weight.value);
    const loss = model.forward(fromData(ad, [[1, 2]])).sum();
    const grads = ParamGrads.from(loss.backward(), model);
    const g = await values(grads.get(lin.weight.id));
    new SGD<typeof ad>({ lr: 0.5 }).step(model, grads);
    const w1 = await values(lin.weight.value);
    w0.forEach((v, i) => expect(w1[i]!).toBeCloseTo(v - 0.5 * g[i]!, 6));
  });
});

test('LayerNorm refuses an input whose last dim is not its size', () => {
  const ln = new nn.LayerNorm(ad, 5);
  expect(() => ln.forward(fromData(ad, [[1, 2]]).transpose())).toThrow(ShapeError);
  expect(() => ln.forward(fromData(ad, [[1, 2, 3]]))).toThrow(/LayerNorm: the input's last dim must be 5/);
  expect(() => new nn.LayerNorm(ad, 1).forward(fromData(ad, [[1, 2, 3]]))).toThrow(ShapeError);
});

test('optimizer state of another kind is an ArgumentError naming both', async () => {
  const m = new nn.Linear(ad, 2, 2);
  const state = await new SGD<typeof ad>({ lr: 0.1 }).state();
  const adam = new Adam<typeof ad>({ lr: 0.1 });
  expect(() => adam.loadState(state, m)).toThrow(ArgumentError);
  expect(() => adam.loadState(state, m)).toThrow(new RegExp(`optimizer state of kind '${state.kind}' cannot load into ${adam.kind}`));
});

/** Calls a constructor the way untyped JavaScript may: the arguments go through `unknown` on purpose. */
function construct(ctor: unknown, ...args: unknown[]): unknown {
  if (typeof ctor !== 'function') throw new Error('not a constructor');
  return Reflect.construct(ctor, args);
}

test('bad optimizer and scheduler settings are ArgumentErrors naming the setting', () => {
  const cases: Array<[unknown, unknown[], RegExp]> = [
    [SGD, [], /^SGD: lr must be a finite number, got undefined/],
    [SGD, [null], /^SGD: options must be an object/],
    [SGD, [{ lr: Infinity }], /^SGD: lr must be/],
    [SGD, [{ lr: Number.NaN }], /^SGD: lr must be/],
    [SGD, [{ lr: 0.1, momentum: -0.5 }], /^SGD: momentum must be/],
    [SGD, [{ lr: 0.1, nesterov: true }], /^SGD: Nesterov momentum needs momentum > 0 and dampening 0/],
    [Adam, [{ betas: [1.5, 0.9] }], /^Adam: betas\[0\] must be a number in \[0, 1\)/],
    [Adam, [{ eps: -1 }], /^Adam: eps must be/],
    [optim.ExponentialLR, [0], /^ExponentialLR: gamma must be a finite number > 0/],
    [optim.CosineLR, [], /^CosineLR: options must be an object/],
    [optim.OneCycleLR, [{ totalSteps: 10 }], /^OneCycleLR: maxLr must be a finite number > 0/],
  ];
  for (const [ctor, args, message] of cases) {
    expect(() => construct(ctor, ...args), `${String((ctor as { name?: string }).name)}(${JSON.stringify(args)})`).toThrow(ArgumentError);
    expect(() => construct(ctor, ...args)).toThrow(message);
  }
  // The options-object form every other scheduler takes.
  const lr = new optim.ExponentialLR({ gamma: 0.5 });
  expect([lr.rateAt(0, 1), lr.rateAt(2, 1)]).toEqual([1, 0.25]);
});

test('a step with a gradient of another shape is a ShapeError (it would reshape the parameter)', async () => {
  const m = new nn.Linear(ad, 2, 1);
  const grads = new ParamGrads<typeof ad>();
  grads.set(m.bias!.id, fromData(ad, [[1]]));
  expect(() => new SGD<typeof ad>({ lr: 0.1 }).step(m, grads)).toThrow(/Optimizer.step: the gradient of parameter .* has another shape than the parameter; shapes: \[1\], \[1, 1\]/);
  expect(m.bias!.value.shape).toEqual([1]);
});

test('optimizer state whose ParamIds match no parameter is an ArgumentError, not a silent restart', async () => {
  const a = new nn.Linear(ad, 2, 2);
  const opt = new Adam<typeof ad>({ lr: 0.1 });
  const loss = a.forward(fromData(ad, [[1, 2]])).sum();
  opt.step(a, ParamGrads.from(loss.backward(), a));
  const state = await opt.state();
  const rebuilt = new nn.Linear(ad, 2, 2); // fresh ParamIds
  expect(() => new Adam<typeof ad>({ lr: 0.1 }).loadState(state, rebuilt)).toThrow(/loadState: none of the 2 parameter states belongs to this module/);
  rebuilt.fromRecord(await a.toRecord());
  expect(() => new Adam<typeof ad>({ lr: 0.1 }).loadState(state, rebuilt)).not.toThrow();
});

test('a strict fromRecord that does not fit changes nothing; bad arguments are ArgumentErrors', async () => {
  const m = new nn.Sequential<typeof ad>(new nn.Linear(ad, 2, 3), new nn.Relu(), new nn.Linear(ad, 3, 1));
  const before = await m.toRecord();
  const other = await new nn.Sequential<typeof ad>(new nn.Linear(ad, 2, 3), new nn.Relu(), new nn.Linear(ad, 3, 1)).toRecord();
  const names = Object.keys(other.params);
  const missing = { params: Object.fromEntries(names.slice(0, -1).map((n) => [n, other.params[n]!])) };
  expect(() => m.fromRecord(missing)).toThrow(/the record has no parameter/);
  const extra = { params: { ...other.params, 'layers.9.weight': other.params[names[0]!]! } };
  expect(() => m.fromRecord(extra)).toThrow(/the record has parameters this module lacks: layers.9.weight/);
  const short = { params: { ...other.params, [names[0]!]: { ...other.params[names[0]!]!, data: new Float32Array(2) } } };
  expect(() => m.fromRecord(short)).toThrow(/fromRecord: parameter '.*' of shape \[.*\] holds 2 values in the record/);
  const after = await m.toRecord();
  for (const n of names) {
    expect(after.params[n]!.id).toBe(before.params[n]!.id);
    expect(Array.from(after.params[n]!.data)).toEqual(Array.from(before.params[n]!.data));
  }
  expect(() => m.fromRecord(construct(Object) as never)).toThrow(/fromRecord: the record must be/);
  const x = fromData(ad, [[1, 2]]);
  expect(() => Reflect.apply(nn.crossEntropy, undefined, [x, undefined])).toThrow(/^crossEntropy: target must be a tensor/);
  expect(() => Reflect.apply(nn.mseLoss, undefined, [x, 3])).toThrow(/^mseLoss: target must be a tensor, got 3/);
  expect(() => Reflect.apply(new nn.Linear(ad, 3, 1).forward, new nn.Linear(ad, 3, 1), [[[1, 2, 3]]])).toThrow(/^Linear: input must be a tensor/);
});

test('capturable Adam keeps a rank-0 parameter of rank 0', async () => {
  class Scalar extends nn.Module<typeof ad> {
    readonly s = new nn.Param(fromData(ad, 2));
  }
  const m = new Scalar();
  const opt = new Adam<typeof ad>({ lr: 0.1, capturable: true });
  for (let i = 0; i < 2; i++) opt.step(m, ParamGrads.from(m.s.value.square().backward(), m));
  expect(m.s.value.shape).toEqual([]);
  // Adam's first steps move by about lr each (m_hat / sqrt(v_hat) = sign of the gradient).
  expect((await values(m.s.value))[0]!).toBeCloseTo(1.8, 3);
});

test('untyped arguments to Linear, Optimizer.step and loadModule are ArgumentErrors naming the call', () => {
  expect(() => construct(nn.Linear, ad, -1, 2)).toThrow(/^Linear: inFeatures must be an integer >= 0, got -1/);
  expect(() => construct(nn.Linear, ad, 2, 1.5)).toThrow(/^Linear: outFeatures must be an integer >= 0/);
  const m = new nn.Linear(ad, 2, 1);
  const opt = new SGD<typeof ad>({ lr: 0.1 });
  expect(() => Reflect.apply(opt.step, opt, [null, new ParamGrads()])).toThrow(/^Optimizer.step: the first argument must be the module to step/);
  expect(() => Reflect.apply(opt.step, opt, [m, undefined])).toThrow(/^Optimizer.step: the gradients must be a ParamGrads/);
  expect(() => Reflect.apply(loadModule, undefined, [undefined, new Uint8Array(8)])).toThrow(/^loadModule: the first argument must be the module to load into/);
});
