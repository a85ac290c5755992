/**
 * nn.LayerNorm as torch.nn.LayerNorm: normalizedShape of one or several trailing dims,
 * elementwiseAffine and bias options, eps; forward and gradients (input, weight, bias) against a
 * float64 reference of PyTorch's formulas, records, parameter counts, torch names and errors.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError } from '../../src/errors.js';
import * as nn from '../../src/nn/index.js';
import { torchEntries } from '../../src/record/torch.js';
import { fromData } from '../../src/tensor/creation.js';
import { mismatch, randn, rng, type Nd } from './conv-ref.js';
import { untyped } from '../untyped.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());


function need<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`${what} is missing`);
  return v;
}

async function host(t: { toData(): Promise<{ values: ArrayLike<number> }> } | undefined): Promise<number[]> {
  return Array.from((await need(t, 'tensor').toData()).values);
}

const f32 = (nd: Nd): Nd => ({ shape: nd.shape, data: Float64Array.from(nd.data, Math.fround) });

interface Ref {
  y: number[];
  dx: number[];
  dw: number[];
  db: number[];
}

/**
 * torch's layer_norm in float64 over groups of the last `m` elements: y = xhat * w + b with
 * xhat = (x - mean) / sqrt(var + eps) (biased variance), and its backward for upstream `dy`
 * (torch's layer_norm_backward): g = dy * w; dx = rstd * (g - mean(g) - xhat * mean(g * xhat));
 * dw = sum over groups of dy * xhat; db = sum over groups of dy.
 */
function layerNormRef(x: readonly number[], m: number, eps: number, w: readonly number[] | undefined, b: readonly number[] | undefined, dy: readonly number[]): Ref {
  const y: number[] = [];
  const dx: number[] = [];
  const dw = new Array<number>(m).fill(0);
  const db = new Array<number>(m).fill(0);
  for (let s = 0; s < x.length; s += m) {
    const row = x.slice(s, s + m);
    const mean = row.reduce((a, v) => a + v, 0) / m;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / m;
    const rstd = 1 / Math.sqrt(variance + eps);
    const xhat = row.map((v) => (v - mean) * rstd);
    const g = xhat.map((_, j) => dy[s + j]! * (w ? w[j]! : 1));
    const gMean = g.reduce((a, v) => a + v, 0) / m;
    const gxMean = g.reduce((a, v, j) => a + v * xhat[j]!, 0) / m;
    xhat.forEach((h, j) => {
      y.push(h * (w ? w[j]! : 1) + (b ? b[j]! : 0));
      dx.push(rstd * (g[j]! - gMean - h * gxMean));
      dw[j]! += dy[s + j]! * h;
      db[j]! += dy[s + j]!;
    });
  }
  return { y, dx, dw, db };
}

function close(actual: readonly number[], expected: readonly number[], what: string, tol = 1e-4): void {
  expect(actual.length, what).toBe(expected.length);
  expect(mismatch(actual, expected, tol, tol), what).toBeUndefined();
}

describe('LayerNorm against float64 references', () => {
  const cases: Array<{ name: string; input: number[]; make: () => nn.LayerNorm<typeof ad>; eps: number; weight: boolean; bias: boolean }> = [
    { name: 'normalizedShape 4 (a number), input [3, 4]', input: [3, 4], make: () => new nn.LayerNorm(ad, 4), eps: 1e-5, weight: true, bias: true },
    { name: 'normalizedShape [4], input [2, 3, 4], eps 1e-3', input: [2, 3, 4], make: () => new nn.LayerNorm(ad, [4], { eps: 1e-3 }), eps: 1e-3, weight: true, bias: true },
    { name: 'normalizedShape [3, 4], input [2, 3, 4]', input: [2, 3, 4], make: () => new nn.LayerNorm(ad, [3, 4]), eps: 1e-5, weight: true, bias: true },
    { name: 'normalizedShape [3, 4], input [3, 4] (one group)', input: [3, 4], make: () => new nn.LayerNorm(ad, [3, 4]), eps: 1e-5, weight: true, bias: true },
    { name: 'elementwiseAffine false, [3, 4]', input: [2, 3, 4], make: () => new nn.LayerNorm(ad, [3, 4], { elementwiseAffine: false }), eps: 1e-5, weight: false, bias: false },
    { name: 'elementwiseAffine false, [4]', input: [5, 4], make: () => new nn.LayerNorm(ad, 4, { elementwiseAffine: false }), eps: 1e-5, weight: false, bias: false },
    { name: 'bias false, [3, 4]', input: [2, 3, 4], make: () => new nn.LayerNorm(ad, [3, 4], { bias: false }), eps: 1e-5, weight: true, bias: false },
    { name: 'bias false, [4], eps 0.1 third as before', input: [3, 4], make: () => new nn.LayerNorm(ad, 4, 0.1, { bias: false }), eps: 0.1, weight: true, bias: false },
  ];

  it.each(cases.map((c, i) => [c.name, c, i] as const))('%s: forward and the gradients of input, weight and bias', async (_name, c, i) => {
    const next = rng(900 + i);
    const ln = c.make();
    const shape = ln.normalizedShape;
    const m = shape.reduce((a, d) => a * d, 1);
    expect(ln.gamma === undefined, 'weight absent').toBe(!c.weight);
    expect(ln.beta === undefined, 'bias absent').toBe(!c.bias);
    // Random affine parameters, so that a swapped or ignored weight / bias shows.
    const w = c.weight ? f32(randn(shape, next)).data : undefined;
    const b = c.bias ? f32(randn(shape, next)).data : undefined;
    if (w) need(ln.gamma, 'gamma').set(fromData(ad, Float32Array.from(w), { shape }));
    if (b) need(ln.beta, 'beta').set(fromData(ad, Float32Array.from(b), { shape }));
    const x = f32(randn(c.input, next));
    const dy = f32(randn(c.input, next));
    const xt = fromData(ad, Float32Array.from(x.data), { shape: c.input }).requireGrad();
    const y = ln.forward(xt);
    expect(y.shape).toEqual(c.input);
    const ref = layerNormRef(Array.from(x.data), m, c.eps, w && Array.from(w), b && Array.from(b), Array.from(dy.data));
    close(await host(y), ref.y, 'forward');
    const grads = y.mul(fromData(ad, Float32Array.from(dy.data), { shape: c.input })).sum().backward();
    close(await host(xt.grad(grads)), ref.dx, 'input gradient', 2e-4);
    if (ln.gamma) close(await host(ln.gamma.value.grad(grads)), ref.dw, 'weight gradient');
    if (ln.beta) close(await host(ln.beta.value.grad(grads)), ref.db, 'bias gradient');
  });
});

describe('LayerNorm parameters', () => {
  it('counts, names, shapes and torch keys for each option', () => {
    const full = new nn.LayerNorm(ad, [3, 4]);
    expect(full.namedParams().map(([n, p]) => [n, p.shape])).toEqual([['gamma', [3, 4]], ['beta', [3, 4]]]);
    expect(full.numParams()).toBe(24);
    expect(torchEntries(full).map((e) => e.key)).toEqual(['weight', 'bias']);
    const noBias = new nn.LayerNorm(ad, [3, 4], { bias: false });
    expect(noBias.namedParams().map(([n, p]) => [n, p.shape])).toEqual([['gamma', [3, 4]]]);
    expect(noBias.numParams()).toBe(12);
    expect(torchEntries(noBias).map((e) => e.key)).toEqual(['weight']);
    const none = new nn.LayerNorm(ad, [3, 4], { elementwiseAffine: false, bias: true });
    expect(none.namedParams()).toEqual([]);
    expect(none.numParams()).toBe(0);
    // torch.nn.LayerNorm(4) holds 8 parameters; its default is unchanged.
    expect(new nn.LayerNorm(ad, 4).numParams()).toBe(8);
    expect(new nn.LayerNorm(ad, [2, 3, 4], { device: ad.defaultDevice() }).numParams()).toBe(48);
  });

  it('a record round trip restores weight and bias of shape [3, 4] (and a record without bias does not load)', async () => {
    const next = rng(77);
    const a = new nn.LayerNorm(ad, [3, 4]);
    need(a.gamma, 'gamma').set(fromData(ad, Float32Array.from(randn([3, 4], next).data), { shape: [3, 4] }));
    need(a.beta, 'beta').set(fromData(ad, Float32Array.from(randn([3, 4], next).data), { shape: [3, 4] }));
    const record = await a.toRecord();
    expect(Object.keys(record.params)).toEqual(['gamma', 'beta']);
    const b = new nn.LayerNorm(ad, [3, 4]).fromRecord(record);
    expect(await host(b.gamma?.value)).toEqual(await host(a.gamma?.value));
    expect(await host(b.beta?.value)).toEqual(await host(a.beta?.value));
    const x = fromData(ad, Float32Array.from(randn([2, 3, 4], next).data), { shape: [2, 3, 4] });
    expect(await host(b.forward(x))).toEqual(await host(a.forward(x)));
    // The shapes must match, and a module without bias is missing nothing only when non-strict.
    expect(() => new nn.LayerNorm(ad, [4, 3]).fromRecord(record)).toThrow(ShapeError);
    expect(() => new nn.LayerNorm(ad, [3, 4], { bias: false }).fromRecord(record)).toThrow(/fromRecord: the record has parameters this module lacks: beta/);
    const noBias = new nn.LayerNorm(ad, [3, 4], { bias: false }).fromRecord(record, { strict: false });
    expect(await host(noBias.gamma?.value)).toEqual(await host(a.gamma?.value));
  });
});

describe('LayerNorm errors', () => {
  it('an input whose trailing dims are not normalizedShape is a ShapeError naming LayerNorm and both shapes', () => {
    const ln = new nn.LayerNorm(ad, [3, 4]);
    for (const shape of [[2, 4, 3], [4], [3, 4, 1], [2, 2, 4]]) {
      const x = fromData(ad, new Float32Array(shape.reduce((a, d) => a * d, 1)), { shape });
      let err: unknown;
      try {
        ln.forward(x);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ShapeError);
      expect(String(err)).toMatch(/LayerNorm: the input's last 2 dims must be \[3, 4\] \(the normalized shape\)/);
      expect(err instanceof ShapeError ? err.shapes : undefined).toEqual([shape, [3, 4]]);
    }
    expect(() => new nn.LayerNorm(ad, 4).forward(fromData(ad, [[1, 2, 3]]))).toThrow(/LayerNorm: the input's last dim must be 4 \(the normalized shape\); shapes: \[1, 3\], \[4\]/);
    expect(() => ln.forward(untyped(null))).toThrow(/LayerNorm: input must be a tensor, got null/);
  });

  it('bad constructor arguments are ArgumentErrors naming LayerNorm', () => {
    const bad: Array<[() => unknown, RegExp]> = [
      [() => new nn.LayerNorm(ad, []), /LayerNorm: normalizedShape must be a size or a non-empty list of sizes, got an array of 0/],
      [() => new nn.LayerNorm(ad, [3, 0]), /LayerNorm: normalizedShape must be an integer >= 1, got 0/],
      [() => new nn.LayerNorm(ad, [3, 1.5]), /LayerNorm: normalizedShape must be an integer >= 1, got 1.5/],
      [() => new nn.LayerNorm(ad, untyped('4')), /LayerNorm: normalizedShape must be a size or a non-empty list of sizes, got "4" \(a string\)/],
      [() => new nn.LayerNorm(ad, 4, { elementwiseAffine: untyped('no') }), /LayerNorm: elementwiseAffine must be true or false, got "no"/],
      [() => new nn.LayerNorm(ad, 4, { bias: untyped(0) }), /LayerNorm: bias must be true or false, got 0/],
      [() => new nn.LayerNorm(ad, 4, { eps: -1 }), /LayerNorm: eps must be a finite number >= 0, got -1/],
      [() => new nn.LayerNorm(ad, 4, untyped(null)), /LayerNorm: eps must be a finite number >= 0, got null/],
      [() => new nn.LayerNorm(ad, 4, untyped({ affine: false })), /LayerNorm: unknown option 'affine'/],
      [() => new nn.LayerNorm(ad, 4, 1e-5, { eps: 1e-3 }), /LayerNorm: eps was given twice/],
      [() => new nn.LayerNorm(ad, 4, untyped({ eps: 1e-3 }), {}), /LayerNorm: options were given twice/],
    ];
    for (const [f, message] of bad) {
      expect(f).toThrow(ArgumentError);
      expect(f).toThrow(message);
    }
  });
});
