/**
 * Higher-order gradients (backward with createGraph): closed forms, a full Hessian, a WGAN-GP
 * gradient penalty against float64 finite differences, memory, options. Every op's rule is
 * differentiated through the tape in gradgradcheck.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { noGrad } from '../../src/autodiff/grad-mode.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError } from '../../src/errors.js';
import fc from 'fast-check';
import * as nnf from '../../src/nn/functional/index.js';
import { Linear } from '../../src/nn/linear.js';
import { crossEntropy } from '../../src/nn/loss.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { rng } from './cases.js';
import { firstMismatch } from './finite-diff.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
type T = Tensor<typeof ad, 'float'>;
afterAll(() => ad.close());

async function values(t: { toData(): Promise<{ values: ArrayLike<number> }> } | undefined): Promise<number[]> {
  expect(t).toBeDefined();
  return Array.from((await t!.toData()).values);
}

function close(actual: readonly number[], expected: readonly number[], tol = 1e-4): void {
  expect(firstMismatch(actual, expected, tol, tol)).toBeUndefined();
}

describe('backward with createGraph', () => {
  it('differentiates x^4 three times: 4x^3, 12x^2, 24x', async () => {
    const xs = [1.5, -0.5, 2];
    const x = fromData(ad, xs).requireGrad();
    const g1 = x.pow(4).sum().backward({ createGraph: true });
    const d1 = x.grad(g1)!;
    expect(d1.requiresGrad).toBe(true);
    const g2 = d1.sum().backward({ createGraph: true });
    const d2 = x.grad(g2)!;
    const g3 = d2.sum().backward();
    const d3 = x.grad(g3)!;
    expect(d3.requiresGrad).toBe(false);
    close(await values(d1), xs.map((v) => 4 * v ** 3));
    close(await values(d2), xs.map((v) => 12 * v ** 2));
    close(await values(d3), xs.map((v) => 24 * v));
  });

  it('gives second derivatives of tanh, sigmoid, exp and log that match their closed forms', async () => {
    const xs = [-1.3, -0.2, 0.4, 2.1];
    const forms: Array<[string, (t: T) => T, (v: number) => number, number[]]> = [
      ['tanh', (t) => t.tanh(), (v) => -2 * Math.tanh(v) * (1 - Math.tanh(v) ** 2), xs],
      ['sigmoid', (t) => t.sigmoid(), (v) => { const s = 1 / (1 + Math.exp(-v)); return s * (1 - s) * (1 - 2 * s); }, xs],
      ['exp', (t) => t.exp(), Math.exp, xs],
      ['log', (t) => t.log(), (v) => -1 / (v * v), [0.3, 1, 2.5]],
    ];
    for (const [name, f, second, at] of forms) {
      const x = fromData(ad, at).requireGrad();
      const g1 = f(x).sum().backward({ createGraph: true });
      const g2 = x.grad(g1)!.sum().backward();
      expect(firstMismatch(await values(x.grad(g2)), at.map(second), 1e-5, 1e-5), name).toBeUndefined();
    }
  });

  it('pow with a tracked exponent at base 0: the Hessian has no NaN (discarded branches are safe)', async () => {
    const [xs, ys] = [[0, 0, 0.5], [2, 3, 1.5]];
    const x = fromData(ad, xs).requireGrad();
    const y = fromData(ad, ys).requireGrad();
    const first = x.pow(y).sum().backward({ createGraph: true, inputs: [x, y] });
    const second = x.grad(first)!.add(y.grad(first)!).sum().backward({ inputs: [x, y] });
    // L = sum x^y: Lxx = y (y - 1) x^(y-2), Lxy = x^(y-1) (1 + y ln x) (0 at x = 0, y > 1), Lyy = x^y ln^2 x
    const lxx = xs.map((a, i) => (ys[i]! === 2 ? 2 : a === 0 ? 0 : ys[i]! * (ys[i]! - 1) * a ** (ys[i]! - 2)));
    const lxy = xs.map((a, i) => (a === 0 ? 0 : a ** (ys[i]! - 1) * (1 + ys[i]! * Math.log(a))));
    const lyy = xs.map((a, i) => (a === 0 ? 0 : a ** ys[i]! * Math.log(a) ** 2));
    close(await values(x.grad(second)), lxx.map((v, i) => v + lxy[i]!));
    close(await values(y.grad(second)), lxy.map((v, i) => v + lyy[i]!));
  });

  it('copysign at a zero magnitude: no NaN, and the torch convention (gradient 0 at 0) carries to second order', async () => {
    const a = fromData(ad, [0, 0.75, -2]).requireGrad();
    const b = fromData(ad, [-1, 1, 1]);
    for (const f of [(t: T) => t.copysign(-1), (t: T) => t.copysign(b)]) {
      const g = a.grad(f(a).square().sum().backward({ createGraph: true }))!;
      expect(await values(a.grad(g.sum().backward()))).toEqual([0, 2, 2]);
    }
  });

  it('builds the Hessian of x^T A x row by row: A + A^T', async () => {
    const A = [
      [2, -1, 0.5],
      [0.25, 3, -2],
      [1, 0, -1.5],
    ];
    const a = fromData(ad, A);
    const x = fromData(ad, [[0.3], [-0.7], [1.1]]).requireGrad();
    const g1 = x.transpose().matmul(a).matmul(x).sum().backward({ createGraph: true });
    const gx = x.grad(g1)!;
    for (let i = 0; i < 3; i++) {
      const pick = fromData(ad, [[i === 0 ? 1 : 0], [i === 1 ? 1 : 0], [i === 2 ? 1 : 0]]);
      const row = gx.mul(pick).sum().backward({ retainGraph: true });
      close(await values(x.grad(row)), A.map((r, j) => A[i]![j]! + r[i]!));
    }
  });

  it('a WGAN-GP gradient penalty on tanh(x W1^T + b1) w2: parameter gradients match float64 finite differences', async () => {
    const [B, IN, H] = [3, 4, 5];
    const next = rng(77);
    const draw = (n: number) => Array.from({ length: n }, () => Math.fround(next() * 2 - 1));
    const p0 = { x: draw(B * IN), W1: draw(H * IN), b1: draw(H), w2: draw(H) };
    // float64: P = mean_b (|grad_x D(x_b)| - 1)^2 with grad_x D = W1^T (w2 * (1 - h^2)), h = tanh(W1 x + b1)
    const penalty64 = (p: typeof p0): number => {
      let total = 0;
      for (let b = 0; b < B; b++) {
        const gx = new Array<number>(IN).fill(0);
        for (let j = 0; j < H; j++) {
          let z = p.b1[j]!;
          for (let i = 0; i < IN; i++) z += p.W1[j * IN + i]! * p.x[b * IN + i]!;
          const s = p.w2[j]! * (1 - Math.tanh(z) ** 2);
          for (let i = 0; i < IN; i++) gx[i]! += p.W1[j * IN + i]! * s;
        }
        total += (Math.hypot(...gx) - 1) ** 2;
      }
      return total / B;
    };
    const numeric = (key: keyof typeof p0): number[] =>
      p0[key].map((_, k) => {
        const shift = (d: number) => ({ ...p0, [key]: p0[key].map((v, j) => (j === k ? v + d : v)) });
        return (penalty64(shift(1e-6)) - penalty64(shift(-1e-6))) / 2e-6;
      });

    const x = fromData(ad, Float32Array.from(p0.x), { shape: [B, IN] }).requireGrad();
    const W1 = fromData(ad, Float32Array.from(p0.W1), { shape: [H, IN] }).requireGrad();
    const b1 = fromData(ad, Float32Array.from(p0.b1), { shape: [H] }).requireGrad();
    const w2 = fromData(ad, Float32Array.from(p0.w2), { shape: [H, 1] }).requireGrad();
    const critic = x.matmul(W1.transpose()).add(b1).tanh().matmul(w2);
    // torch.autograd.grad(critic.sum(), x, create_graph=True): the gradient of x alone.
    const first = critic.sum().backward({ createGraph: true, inputs: [x] });
    expect(first.ids()).toEqual([x.id]);
    const gx = x.grad(first)!;
    const penalty = gx.square().sum(1).sqrt().sub(1).square().mean();
    const grads = penalty.backward();
    close([...(await values(penalty))], [penalty64(p0)], 1e-5);
    close(await values(W1.grad(grads)), numeric('W1'), 1e-4);
    close(await values(b1.grad(grads)), numeric('b1'), 1e-4);
    close(await values(w2.grad(grads)), numeric('w2'), 1e-4);
    close(await values(x.grad(grads)), numeric('x'), 1e-4);
    for (const t of [grads, first, critic, penalty]) t.dispose();
  });

  it('works through nn modules: the penalty reaches every parameter by its tensor', async () => {
    const lin = new Linear(ad, 3, 2);
    const x = fromData(ad, [[0.5, -1, 2]]).requireGrad();
    const out = lin.forward(x).tanh().sum();
    const gx = x.grad(out.backward({ createGraph: true }))!;
    const grads = gx.square().sum().backward();
    for (const p of lin.params()) expect(grads.has(p.value), p.id).toBe(true);
  });

  it('keeps the graph by default (torch), and frees it with retainGraph: false', async () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const y = x.exp().sum();
    y.backward({ createGraph: true }).dispose();
    close(await values(x.grad(y.backward())), [Math.E, Math.E ** 2]);
    const z = x.exp().sum();
    z.backward({ createGraph: true, retainGraph: false }).dispose();
    expect(() => z.backward()).toThrow(ArgumentError);
  });

  it('inside noGrad records nothing: the gradients are plain tensors', () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const y = x.square().sum();
    const g = noGrad(() => y.backward({ createGraph: true }));
    expect(x.grad(g)!.requiresGrad).toBe(false);
  });

  it('a non-boolean createGraph from an untyped caller is an ArgumentError', () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const y = x.square().sum();
    const untyped: { createGraph: unknown } = { createGraph: 'yes' };
    expect(() => Reflect.apply(y.backward, y, [untyped])).toThrow(/createGraph/);
  });
});

describe('backward with inputs', () => {
  it('reports only the listed tensors, with the same values as a full backward', async () => {
    const a = fromData(ad, [[0.5, -1], [2, 0.25]]).requireGrad();
    const b = fromData(ad, [1.5, -0.5]).requireGrad();
    const c = fromData(ad, [0.3, 0.7]).requireGrad();
    const loss = a.mul(b).tanh().sum().add(c.exp().sum());
    const full = loss.backward({ retainGraph: true });
    const some = loss.backward({ inputs: [b] });
    expect(some.ids()).toEqual([b.id]);
    expect(await values(b.grad(some))).toEqual(await values(b.grad(full)));
  });

  it('takes an op output: the gradient of the loss with respect to it (torch.autograd.grad)', async () => {
    const x = fromData(ad, [1, 2, 3]).requireGrad();
    const y = x.mul(2);
    const loss = y.square().sum().mul(3);
    const g = loss.backward({ inputs: [y, x] });
    close(await values(y.grad(g)), [12, 24, 36]); // 6y
    close(await values(x.grad(g)), [24, 48, 72]); // 12y
  });

  it('an input the root does not reach has no gradient', () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const z = fromData(ad, [3, 4]).requireGrad();
    const g = x.square().sum().backward({ inputs: [z] });
    expect(z.grad(g)).toBeUndefined();
    expect(g.size).toBe(0);
  });

  it('refuses an untracked, disposed or foreign tensor and a non-array, naming the entry', () => {
    const other = new Autodiff(new Cpu({ threads: 0 }));
    const x = fromData(ad, [1, 2]).requireGrad();
    const loss = x.square().sum();
    const plain = fromData(ad, [1, 2]);
    const gone = fromData(ad, [1, 2]).requireGrad();
    gone.dispose();
    const foreign = fromData(other, [1, 2]).requireGrad();
    expect(() => loss.backward({ inputs: [plain], retainGraph: true })).toThrow(/inputs\[0\].*does not require grad/);
    expect(() => loss.backward({ inputs: [x, gone], retainGraph: true })).toThrow(/inputs\[1\] was disposed/);
    expect(() => loss.backward({ inputs: [foreign], retainGraph: true })).toThrow(/inputs\[0\] must be a tensor of autodiff<cpu>/);
    const untyped: { inputs: unknown } = { inputs: x };
    expect(() => Reflect.apply(loss.backward, loss, [untyped])).toThrow(ArgumentError);
    expect(() => loss.backward({ inputs: [], retainGraph: true })).toThrow(/inputs is empty/);
    // A hole in a sparse array is an entry, not skipped.
    const sparse: unknown[] = [];
    sparse[1] = x;
    expect(() => Reflect.apply(loss.backward, loss, [{ inputs: sparse, retainGraph: true }])).toThrow(/inputs\[0\] must be a tensor/);
    const ints = fromData(ad, [1, 2], { dtype: 'int32' });
    expect(() => Reflect.apply(loss.backward, loss, [{ inputs: [ints], retainGraph: true }])).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('only float tensors can require grad') }),
    );
    void other.close();
  });
});

/**
 * The law of second derivatives: the Hessian is symmetric, so u . (H v) = v . (H u) for any
 * directions, where H v comes from backward through the createGraph gradient. Checked on nn
 * building blocks, which compose many rules (conv's unfold, norms, attention's softmax, losses).
 */
describe('Hessian-vector products of nn building blocks are symmetric', () => {
  const composites: Array<[string, number[], (x: T) => T]> = [
    ['conv2d then tanh', [1, 2, 4, 4], (x) => nnf.conv2d(x, fromData(ad, Float32Array.from({ length: 3 * 2 * 9 }, (_, i) => Math.sin(i)), { shape: [3, 2, 3, 3] }), { padding: 1 }).tanh().sum()],
    ['layerNorm then square', [3, 5], (x) => nnf.layerNorm(x, [5]).mul(fromData(ad, [0.5, -1, 2, 0.25, 1])).square().sum()],
    ['scaled dot-product attention', [1, 3, 4], (x) => nnf.scaledDotProductAttention(x, x.mul(0.5), x.tanh()).sum()],
    ['crossEntropy of a linear map', [4, 3], (x) => crossEntropy(x.matmul(fromData(ad, [[1, -0.5, 0.2], [0.3, 0.8, -1], [-0.7, 0.1, 0.4]])), fromData(ad, [0, 2, 1, 2], { dtype: 'int32' }))],
    ['gelu (tanh) and softplus', [6], (x) => nnf.gelu(x, 'tanh').add(x.softplus(1, 20)).mul(x).sum()],
  ];
  for (const [name, shape, f] of composites) {
    it(name, async () => {
      const n = shape.reduce((a, b) => a * b, 1);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1 << 30 }), async (seed) => {
          const next = rng(seed);
          const draw = () => fromData(ad, Float32Array.from({ length: n }, () => next() * 2 - 1), { shape });
          const x = draw().requireGrad();
          const [u, v] = [draw(), draw()];
          const gx = x.grad(f(x).backward({ createGraph: true, inputs: [x] }))!;
          const hv = x.grad(gx.mul(v).sum().backward({ retainGraph: true, inputs: [x] }))!;
          const hu = x.grad(gx.mul(u).sum().backward({ inputs: [x] }))!;
          const [uHv, vHu, scale] = await Promise.all([hv.mul(u).sum().item(), hu.mul(v).sum().item(), hv.abs().sum().add(hu.abs().sum()).item()]);
          expect(Math.abs(uHv - vHu)).toBeLessThanOrEqual(1e-4 * (1 + scale));
        }),
        { numRuns: 8 },
      );
    });
  }
});
