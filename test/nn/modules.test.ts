/** Modules: parameter names and ids, moves, forks, clones, records, and each layer against a float64 reference. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { Gelu, Relu } from '../../src/nn/activation.js';
import { Dropout } from '../../src/nn/dropout.js';
import { Embedding } from '../../src/nn/embedding.js';
import { PositionWiseFeedForward } from '../../src/nn/feed-forward.js';
import { LayerNorm } from '../../src/nn/layer-norm.js';
import { Linear } from '../../src/nn/linear.js';
import { transferables } from '../../src/nn/record.js';
import { Sequential } from '../../src/nn/sequential.js';
import { Router } from '../../src/router/router.js';
import { fromData, random } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
ad.seed(7);
afterAll(() => ad.close());

async function vals(t: Tensor<Backend> | undefined): Promise<number[]> {
  expect(t).toBeDefined();
  return Array.from((await t!.toData()).values);
}

/** x [n, k] times w [k, m] plus b [m], in float64. */
function affine(x: number[], w: number[], b: number[], n: number, k: number, m: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) {
    let s = b[j]!;
    for (let p = 0; p < k; p++) s += x[i * k + p]! * w[p * m + j]!;
    out.push(s);
  }
  return out;
}

function expectClose(actual: readonly number[], expected: readonly number[], tol = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => expect(Math.abs(a - expected[i]!), `element ${i}: ${a} vs ${expected[i]}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(expected[i]!))));
}

describe('Linear', () => {
  it('is initialised as PyTorch: weight and bias in U(-1/sqrt(in), 1/sqrt(in))', async () => {
    const l = new Linear(ad, 400, 300);
    const bound = 1 / Math.sqrt(400);
    const w = await vals(l.weight.value);
    const b = await vals(l.bias!.value);
    expect(l.weight.shape).toEqual([400, 300]);
    expect(Math.max(...w.map(Math.abs))).toBeLessThanOrEqual(bound);
    expect(Math.max(...b.map(Math.abs))).toBeLessThanOrEqual(bound);
    // A uniform on [-b, b] has variance b^2 / 3; 120,000 draws pin it to within a few percent.
    const variance = w.reduce((s, v) => s + v * v, 0) / w.length;
    expect(variance / (bound * bound / 3)).toBeGreaterThan(0.97);
    expect(variance / (bound * bound / 3)).toBeLessThan(1.03);
    expect(l.numParams()).toBe(400 * 300 + 300);
  });

  it('computes x W + b, and its parameters get gradients', async () => {
    const l = new Linear(ad, 3, 2);
    const xv = [0.5, -1, 2, 1.5, 0.25, -0.75];
    const x = fromData(ad, xv, { shape: [2, 3] });
    const y = l.forward(x);
    const w = await vals(l.weight.value);
    const b = await vals(l.bias!.value);
    expectClose(await vals(y), affine(xv, w, b, 2, 3, 2));
    const grads = y.sum().backward();
    // d sum / dW[p][j] = sum_i x[i][p]; d sum / db = n
    expectClose(await vals(l.weight.value.grad(grads)), [2, 2, -0.75, -0.75, 1.25, 1.25]);
    expectClose(await vals(l.bias!.value.grad(grads)), [2, 2]);
  });

  it('can go without a bias', () => {
    const l = new Linear(ad, 3, 2, { bias: false });
    expect(l.namedParams().map(([n]) => n)).toEqual(['weight']);
  });
});

describe('Module', () => {
  const mlp = () => new Sequential(new Linear(ad, 4, 3), new Relu(), new Linear(ad, 3, 2));

  it('names parameters by their path and counts them', () => {
    const m = mlp();
    expect(m.namedParams().map(([n]) => n)).toEqual(['layers.0.weight', 'layers.0.bias', 'layers.2.weight', 'layers.2.bias']);
    expect(m.numParams()).toBe(4 * 3 + 3 + 3 * 2 + 2);
    const names: string[] = [];
    m.visit((p, name) => names.push(`${name}:${p.shape.join('x')}`));
    expect(names).toEqual(['layers.0.weight:4x3', 'layers.0.bias:3', 'layers.2.weight:3x2', 'layers.2.bias:2']);
  });

  it('gives every parameter a distinct id that clone keeps, with storage of its own', async () => {
    const m = mlp();
    const ids = m.params().map((p) => p.id);
    expect(new Set(ids).size).toBe(4);
    const c = m.clone();
    expect(c.params().map((p) => p.id)).toEqual(ids);
    expect(c).toBeInstanceOf(Sequential);
    expect(await vals(c.params()[0]!.value)).toEqual(await vals(m.params()[0]!.value));
    c.params()[0]!.set(c.params()[0]!.value.mul(0));
    expect((await vals(m.params()[0]!.value)).some((v) => v !== 0)).toBe(true);
    expect(c.params()[0]!.value.requiresGrad).toBe(true);
  });

  it('train() and eval() reach every sub-module', () => {
    const m = new Sequential(new Linear(ad, 2, 2), new Dropout(0.5));
    m.eval();
    expect(m.layers.every((l) => !l.training)).toBe(true);
    m.train();
    expect(m.layers.every((l) => l.training)).toBe(true);
  });

  it('round-trips through a record whose buffers transfer without copying', async () => {
    const m = mlp();
    const rec = await m.toRecord();
    const before = Object.fromEntries(Object.entries(rec.params).map(([k, p]) => [k, Array.from(p.data)]));
    const moved = structuredClone(rec, { transfer: transferables(rec) });
    // Transferred, not copied: the sender's buffers are detached.
    expect(Object.values(rec.params).every((p) => p.data.byteLength === 0)).toBe(true);
    const other = mlp().fromRecord(moved);
    expect(other.params().map((p) => p.id)).toEqual(m.params().map((p) => p.id));
    for (const [name, p] of other.namedParams()) expect(await vals(p.value)).toEqual(before[name]);
    expect(other.params()[0]!.value.requiresGrad).toBe(true);
  });

  it('rejects records that do not fit', async () => {
    const rec = await mlp().toRecord();
    const wrong = new Sequential(new Linear(ad, 4, 5), new Relu(), new Linear(ad, 5, 2));
    expect(() => wrong.fromRecord(rec)).toThrow(ShapeError);
    const bigger = new Sequential(new Linear(ad, 4, 3), new Relu(), new Linear(ad, 3, 2), new Linear(ad, 2, 2));
    expect(() => bigger.fromRecord(rec)).toThrow(ArgumentError);
    // Not strict: the parameters the record has are loaded (values and ids); the rest keep theirs.
    const before = await Promise.all(bigger.params().map((p) => vals(p.value)));
    const extraIds = bigger.layers[3]!.params().map((p) => p.id);
    bigger.fromRecord(rec, { strict: false });
    for (const [name, p] of bigger.namedParams()) {
      const r = rec.params[name];
      if (r) {
        expect(p.id, name).toBe(r.id);
        expect(await vals(p.value), name).toEqual(Array.from(r.data));
      }
    }
    expect(bigger.layers[3]!.params().map((p) => p.id)).toEqual(extraIds);
    const after = await Promise.all(bigger.params().map((p) => vals(p.value)));
    expect(after.slice(-2)).toEqual(before.slice(-2));
    expect(Object.keys(rec.params).length).toBe(4);
  });

  describe('across devices', () => {
    const A = CpuDevice.named('cpu:ma');
    const B = CpuDevice.named('cpu:mb');
    const router = new Router([new Cpu({ threads: 0, device: A }), new Cpu({ threads: 0, device: B })]);
    const ar = new Autodiff(router);
    const onA = router.device(0, A);
    const onB = router.device(1, B);
    afterAll(() => ar.close());

    it('fork(d) copies to d, detached, requiring grad again; the original stays', async () => {
      const m = new Linear(ar, 3, 2, { device: onA });
      const f = m.fork(onB);
      expect(f.params().map((p) => p.id)).toEqual(m.params().map((p) => p.id));
      expect(f.params().every((p) => p.value.device.key === onB.key && p.value.requiresGrad)).toBe(true);
      expect(m.params().every((p) => p.value.device.key === onA.key)).toBe(true);
      // The fork's parameters are leaves of their own: gradients stop there, on B.
      const x = fromData(ar, [[1, 2, 3]], { device: onB });
      const grads = f.forward(x).sum().backward();
      expect(f.weight.value.grad(grads)!.device.key).toBe(onB.key);
      expect(m.weight.value.grad(grads)).toBeUndefined();
      expect(await vals(f.weight.value)).toEqual(await vals(m.weight.value));
    });

    it('toDevice(d) moves in place, keeping ids and leaves', async () => {
      const m = new Linear(ar, 3, 2, { device: onA });
      const ids = m.params().map((p) => p.id);
      m.toDevice(onB);
      expect(m.params().map((p) => p.id)).toEqual(ids);
      expect(m.params().every((p) => p.value.device.key === onB.key && p.value.requiresGrad)).toBe(true);
      const grads = m.forward(fromData(ar, [[1, 2, 3]], { device: onB })).sum().backward();
      // d sum(x W + b) / dW = x^T 1 (each row of W gets its input), d/db = 1: computed on B.
      const gw = m.weight.value.grad(grads);
      expect(gw?.device.key).toBe(onB.key);
      expect(await vals(gw)).toEqual([1, 1, 2, 2, 3, 3]);
      expect(await vals(m.bias!.value.grad(grads))).toEqual([1, 1]);
    });
  });
});

describe('layers', () => {
  it('Embedding picks rows, and its gradient counts the uses of each row', async () => {
    const e = new Embedding(ad, 5, 3);
    const w = await vals(e.weight.value);
    const idx = fromData(ad, new Int32Array([4, 0, 4, 2]), { shape: [2, 2] });
    const out = e.forward(idx);
    expect(out.shape).toEqual([2, 2, 3]);
    expect(await vals(out)).toEqual([4, 0, 4, 2].flatMap((r) => w.slice(r * 3, r * 3 + 3)));
    const grads = out.sum().backward();
    expect(await vals(e.weight.value.grad(grads))).toEqual([1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 2, 2, 2]);
  });

  it('Embedding paddingIdx: that row starts as zeros and gets no gradient, even when loaded with values (torch padding_idx)', async () => {
    for (const [given, row] of [[1, 1], [-2, 3]] as const) {
      const e = new Embedding(ad, 5, 2, { paddingIdx: given });
      expect(e.paddingIdx).toBe(row);
      const w = await vals(e.weight.value);
      expect(w.slice(row * 2, row * 2 + 2)).toEqual([0, 0]);
      expect(w.filter((v) => v !== 0).length).toBe(8);
      // A table loaded with values in the padding row: its uses read them, and still get no gradient.
      const loaded = Float32Array.from({ length: 10 }, (_, i) => i + 1);
      e.weight.set(fromData(ad, loaded, { shape: [5, 2] }));
      const idx = fromData(ad, new Int32Array([row, 0, row, 4, 2, 4]), { shape: [3, 2] });
      const out = e.forward(idx);
      expect(await vals(out)).toEqual([row, 0, row, 4, 2, 4].flatMap((r) => [2 * r + 1, 2 * r + 2]));
      const weights = fromData(ad, Float32Array.from({ length: 12 }, (_, i) => i - 5), { shape: [3, 2, 2] });
      const grad = await vals(e.weight.value.grad(out.mul(weights).sum().backward()));
      // float64 reference: row r gets the sum of the output weights at its uses, the padding row nothing.
      const want = new Array<number>(10).fill(0);
      [row, 0, row, 4, 2, 4].forEach((r, k) => {
        if (r === row) return;
        want[2 * r]! += k * 2 - 5;
        want[2 * r + 1]! += k * 2 + 1 - 5;
      });
      expect(grad).toEqual(want);
    }
  });

  it('Embedding maxNorm: the rows a lookup reads are scaled down to the norm in the table (torch max_norm), others stay', async () => {
    const e = new Embedding(ad, 3, 2, { maxNorm: 1 });
    e.weight.set(fromData(ad, [[3, 4], [0.6, 0.8], [6, 8]]));
    const out = e.forward(fromData(ad, new Int32Array([0, 1, 0])));
    // Row 0 (norm 5) becomes (3, 4) / (5 + 1e-7); row 1 has norm 1 (not above); row 2 is not read.
    const s = 1 / (5 + 1e-7);
    expectClose(await vals(out), [3 * s, 4 * s, 0.6, 0.8, 3 * s, 4 * s]);
    expectClose(await vals(e.weight.value), [3 * s, 4 * s, 0.6, 0.8, 6, 8]);
    // The gradient is the lookup's (the scaling is outside the graph).
    expect(await vals(e.weight.value.grad(out.sum().backward()))).toEqual([2, 2, 1, 1, 0, 0]);
    const l1 = new Embedding(ad, 1, 2, { maxNorm: 2, normType: 1 });
    l1.weight.set(fromData(ad, [[3, -1]]));
    expectClose(await vals(l1.forward(fromData(ad, new Int32Array([0])))), [3 * (2 / (4 + 1e-7)), -(2 / (4 + 1e-7))]);
    expect(() => new Embedding(ad, 3, 2, { maxNorm: -1 })).toThrow(/Embedding: maxNorm must be a finite number >= 0, got -1/);
    expect(() => new Embedding(ad, 3, 2, { maxNorm: 1, normType: 0 })).toThrow(/Embedding: normType must be a number > 0/);
  });

  it('Embedding arguments: sizes, paddingIdx and the index dtype are checked', () => {
    expect(() => new Embedding(ad, -1, 2)).toThrow(ArgumentError);
    expect(() => new Embedding(ad, 4, 1.5)).toThrow(/Embedding: dim must be an integer >= 0, got 1.5/);
    expect(() => new Embedding(ad, 4, 2, { paddingIdx: 4 })).toThrow(/paddingIdx must be an integer in \[-4, 4\), got 4/);
    expect(() => new Embedding(ad, 4, 2, { paddingIdx: -5 })).toThrow(ArgumentError);
    const e = new Embedding(ad, 4, 2);
    expect(() => e.forward(fromData(ad, [0, 1]) as never)).toThrow(DTypeError);
    expect(() => e.forward(null as never)).toThrow(/Embedding: indices must be a tensor/);
  });

  it('LayerNorm normalises the last dim (biased variance, eps 1e-5)', async () => {
    const ln = new LayerNorm(ad, 4);
    const xv = [1, 2, 3, 5, -1, 0.5, 0.25, 4];
    const out = await vals(ln.forward(fromData(ad, xv, { shape: [2, 4] })));
    const ref: number[] = [];
    for (let r = 0; r < 2; r++) {
      const row = xv.slice(r * 4, r * 4 + 4);
      const mean = row.reduce((a, b) => a + b, 0) / 4;
      const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / 4;
      ref.push(...row.map((v) => (v - mean) / Math.sqrt(variance + 1e-5)));
    }
    expectClose(out, ref);
    expect(ln.namedParams().map(([n]) => n)).toEqual(['gamma', 'beta']);
  });

  it('LayerNorm gradients match finite differences of a float64 layer norm', async () => {
    const ln = new LayerNorm(ad, 3);
    const xv = [0.3, -1.2, 2.1, 0.7, 0.1, -0.4];
    const wv = [0.5, -1, 2, 1, 0.25, -0.75];
    const x = fromData(ad, xv, { shape: [2, 3] }).requireGrad();
    const grads = ln.forward(x).mul(fromData(ad, wv, { shape: [2, 3] })).sum().backward();
    const loss = (v: number[]) => {
      let s = 0;
      for (let r = 0; r < 2; r++) {
        const row = v.slice(r * 3, r * 3 + 3);
        const mean = row.reduce((a, b) => a + b, 0) / 3;
        const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / 3;
        row.forEach((u, j) => (s += ((u - mean) / Math.sqrt(variance + 1e-5)) * wv[r * 3 + j]!));
      }
      return s;
    };
    const h = 1e-6;
    const numeric = xv.map((_, i) => {
      const p = [...xv];
      const m = [...xv];
      p[i]! += h;
      m[i]! -= h;
      return (loss(p) - loss(m)) / (2 * h);
    });
    expectClose(await vals(x.grad(grads)), numeric, 1e-3);
    // d/dbeta of sum(y * w) = column sums of w
    expectClose(await vals(ln.beta?.value.grad(grads)), [1.5, -0.75, 1.25]);
  });

  it('Dropout drops about p of the elements and scales the rest while training; eval is the identity', async () => {
    const d = new Dropout(0.25);
    const x = fromData(ad, new Float32Array(20000).fill(2));
    const out = await vals(d.forward(x));
    const zeros = out.filter((v) => v === 0).length;
    expect(out.every((v) => v === 0 || Math.abs(v - 2 / 0.75) < 1e-6)).toBe(true);
    // Binomial(20000, 0.25): sd about 61, so 5000 +- 400 is over 6 sd.
    expect(Math.abs(zeros - 5000)).toBeLessThan(400);
    d.eval();
    expect(d.forward(x)).toBe(x);
    expect(() => new Dropout(1.5)).toThrow(ArgumentError);
  });

  it('Gelu and Relu', async () => {
    const x = fromData(ad, [-1, 0, 2]);
    expect(await vals(new Relu().forward(x))).toEqual([0, 0, 2]);
    const erf1 = 0.8427007929497149;
    const erf2 = 0.9953222650189527;
    expectClose(await vals(new Gelu().forward(fromData(ad, [-Math.SQRT2, 2 * Math.SQRT2]))), [-Math.SQRT2 * 0.5 * (1 - erf1), 2 * Math.SQRT2 * 0.5 * (1 + erf2)], 1e-5);
  });

  it('PositionWiseFeedForward is linear -> gelu -> dropout -> linear over [batch, seq, dModel]', async () => {
    const ff = new PositionWiseFeedForward(ad, { dModel: 4, dFF: 8, dropout: 0.1 });
    expect(ff.namedParams().map(([n]) => n)).toEqual(['linearInner.weight', 'linearInner.bias', 'linearOuter.weight', 'linearOuter.bias']);
    ff.eval();
    const x = random(ad, [2, 3, 4]);
    const y = ff.forward(x);
    expect(y.shape).toEqual([2, 3, 4]);
    const manual = ff.linearOuter.forward(ff.linearInner.forward(x).gelu());
    expectClose(await vals(y), await vals(manual));
    ff.train();
    const grads = ff.forward(x).sum().backward();
    expect(ff.params().every((p) => p.value.grad(grads) !== undefined)).toBe(true);
  });
});
