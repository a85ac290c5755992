/**
 * The activations composed from tensor ops (hardtanh, relu6, hardsigmoid, hardswish, mish, selu,
 * GELU's tanh form), functional and module, against float64 references of PyTorch's forward and
 * backward formulas, kinks included (where torch's backward picks a side).
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError } from '../../src/errors.js';
import * as nn from '../../src/nn/index.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
const F = nn.functional;
type T = Tensor<typeof ad, 'float'>;

const xs = [-7, -4, -3, -2.5, -1, -0.5, 0, 0.5, 1, 2.5, 3, 4, 6, 7];
const relu6Ref = (x: number): number => Math.min(Math.max(x, 0), 6);
const sp = (x: number): number => Math.log1p(Math.exp(x));
const sig = (x: number): number => 1 / (1 + Math.exp(-x));
const ALPHA = 1.6732632423543772848170429916717;
const SCALE = 1.0507009873554804934193349852946;
const K = Math.sqrt(2 / Math.PI);

/** name, functional, module, value reference, gradient reference (torch's backward). */
const cases: Array<[string, (x: T) => T, (x: T) => T, (x: number) => number, (x: number) => number]> = [
  ['hardtanh', (x) => F.hardtanh(x), (x) => new nn.Hardtanh<typeof ad>().forward(x), (x) => Math.min(Math.max(x, -1), 1), (x) => (x > -1 && x < 1 ? 1 : 0)],
  ['hardtanh(-2, 3)', (x) => F.hardtanh(x, -2, 3), (x) => new nn.Hardtanh<typeof ad>(-2, 3).forward(x), (x) => Math.min(Math.max(x, -2), 3), (x) => (x > -2 && x < 3 ? 1 : 0)],
  ['relu6', (x) => F.relu6(x), (x) => new nn.Relu6<typeof ad>().forward(x), relu6Ref, (x) => (x > 0 && x < 6 ? 1 : 0)],
  ['hardsigmoid', (x) => F.hardsigmoid(x), (x) => new nn.Hardsigmoid<typeof ad>().forward(x), (x) => relu6Ref(x + 3) / 6, (x) => (x > -3 && x < 3 ? 1 / 6 : 0)],
  ['hardswish', (x) => F.hardswish(x), (x) => new nn.Hardswish<typeof ad>().forward(x), (x) => (x * relu6Ref(x + 3)) / 6, (x) => (x < -3 ? 0 : x <= 3 ? x / 3 + 0.5 : 1)],
  ['mish', (x) => F.mish(x), (x) => new nn.Mish<typeof ad>().forward(x), (x) => x * Math.tanh(sp(x)), (x) => Math.tanh(sp(x)) + x * sig(x) * (1 - Math.tanh(sp(x)) ** 2)],
  ['selu', (x) => F.selu(x), (x) => new nn.Selu<typeof ad>().forward(x), (x) => SCALE * (x > 0 ? x : ALPHA * Math.expm1(x)), (x) => (x > 0 ? SCALE : SCALE * ALPHA * Math.exp(x))],
  [
    "gelu 'tanh'",
    (x) => F.gelu(x, 'tanh'),
    (x) => new nn.Gelu<typeof ad>({ approximate: 'tanh' }).forward(x),
    (x) => 0.5 * x * (1 + Math.tanh(K * (x + 0.044715 * x ** 3))),
    (x) => {
      const t = Math.tanh(K * (x + 0.044715 * x ** 3));
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * K * (1 + 3 * 0.044715 * x * x);
    },
  ],
];

describe('activations', () => {
  for (const [name, fn, mod, ref, gradRef] of cases) {
    test(`${name}: values and gradients (functional and module)`, async () => {
      for (const run of [fn, mod]) {
        const x = fromData(ad, xs).requireGrad();
        const y = run(x);
        const v = Array.from((await y.toData()).values);
        const g = Array.from((await x.grad(y.sum().backward())!.toData()).values);
        xs.forEach((xi, i) => {
          expect(v[i]!, `${name}(${xi})`).toBeCloseTo(ref(xi), 5);
          expect(g[i]!, `${name}'(${xi})`).toBeCloseTo(gradRef(xi), 5);
        });
      }
    });
  }

  test('NaN stays NaN', async () => {
    for (const [, fn] of cases) expect(Array.from((await fn(fromData(ad, [NaN])).toData()).values)[0]).toBeNaN();
  });

  test('bad arguments are ArgumentErrors', () => {
    expect(() => F.hardtanh(fromData(ad, [1]), 1, 1)).toThrow(/hardtanh: maxVal must be greater than minVal/);
    expect(() => F.hardtanh(fromData(ad, [1]), NaN)).toThrow(ArgumentError);
    const bad: unknown = { approximate: 'fast' };
    expect(() => Reflect.construct(nn.Gelu, [bad])).toThrow(/Gelu: approximate must be 'none' or 'tanh'/);
  });

  test("the default GELU stays the exact (erf) one", async () => {
    const v = Array.from((await new nn.Gelu<typeof ad>().forward(fromData(ad, [1])).toData()).values);
    expect(v[0]!).toBeCloseTo(0.8413447460685429, 6);
  });
});

describe('Dropout p = 1 and Linear with no inputs, as torch', () => {
  test('dropout(x, 1) is zeros with a zero gradient; Dropout(1) and LSTM dropout 1 construct', async () => {
    const x = fromData(ad, [1, -2, 3]).requireGrad();
    const y = F.dropout(x, 1);
    expect(Array.from((await y.toData()).values).map((v) => v + 0)).toEqual([0, 0, 0]);
    expect(Array.from((await x.grad(y.sum().backward())!.toData()).values).map((v) => v + 0)).toEqual([0, 0, 0]);
    expect(Array.from((await new nn.Dropout<typeof ad>(1).forward(fromData(ad, [5])).toData()).values).map((v) => v + 0)).toEqual([0]);
    expect(new nn.LSTM(ad, 2, 3, { dropout: 1, numLayers: 2 }).dropout).toBe(1);
  });

  test('Linear(0, n): an empty weight, a zero bias (torch: bound 0 for fanIn 0), output = bias', async () => {
    const l = new nn.Linear(ad, 0, 3);
    expect(l.weight.value.shape).toEqual([0, 3]);
    expect(Array.from((await l.bias!.value.toData()).values)).toEqual([0, 0, 0]);
    expect(Array.from((await l.forward(fromData(ad, new Float32Array(0), { shape: [2, 0] })).toData()).values)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
