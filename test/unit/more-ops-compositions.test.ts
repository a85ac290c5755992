/**
 * The composite ops (norm, einsum, normalize, cosineSimilarity, pairwiseDistance, interpolate,
 * pixelShuffle) through Fusion, through Autodiff over Fusion, and in float16: the same values
 * as the plain CPU backend computes (float16 within its rounding), gradients included.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { CosineSimilarity, PairwiseDistance } from '../../src/nn/index.js';
import { cosineSimilarity, interpolate, normalize, pairwiseDistance, pixelShuffle } from '../../src/nn/functional/index.js';
import { fromData } from '../../src/tensor/creation.js';
import { einsum } from '../../src/tensor/einsum.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { mismatch, randoms } from './ref64-ops.js';

const plain = new Autodiff(new Cpu({ threads: 0 }));
const fused = new Autodiff(new Fusion(new Cpu({ threads: 0 })));
afterAll(async () => {
  await plain.close();
  await fused.close();
});

type F<B extends Backend> = Tensor<B, 'float'>;

/** One scalar built from every composite, so one backward reaches each. */
function everything<B extends Backend>(x: F<B>, y: F<B>): F<B> {
  const img = x.reshape([1, 2, 2, 3]);
  const parts = [
    x.norm(2, 1),
    x.norm(Infinity),
    x.norm(1.5, [0, 1], true),
    einsum('ij,kj->ik', x, y),
    einsum('ii->i', einsum('ij,kj', x, y)),
    normalize(x),
    cosineSimilarity(x, y),
    new CosineSimilarity<B>({ dim: 0 }).forward(x, y),
    pairwiseDistance(x, y),
    new PairwiseDistance<B>({ p: 1, keepDims: true }).forward(x, y),
    interpolate(img, { scaleFactor: 1.5, mode: 'bilinear' }),
    interpolate(x.reshape([1, 4, 3]), { size: 5, mode: 'linear', alignCorners: true }),
    interpolate(img, { size: [3, 4] }),
    pixelShuffle(x.reshape([4, 1, 3]), 2),
  ];
  return parts.map((p) => p.square().sum()).reduce((a, b) => a.add(b));
}

describe('composites through Fusion and in float16', () => {
  const xs = randoms(12, 3, 0.2, 2);
  const ys = randoms(12, 4, -2, 2);

  async function run<B extends Autodiff<Backend>>(b: B, dtype: 'float32' | 'float16') {
    const x = fromData(b, Float32Array.from(xs), { shape: [4, 3], dtype }).requireGrad();
    const y = fromData(b, Float32Array.from(ys), { shape: [4, 3], dtype }).requireGrad();
    const out = everything(x, y);
    const g = out.backward();
    const r = { value: (await out.toData()).values[0]!, gx: (await x.grad(g)!.toData()).values, gy: (await y.grad(g)!.toData()).values };
    g.dispose();
    return r;
  }

  it('Autodiff<Fusion<Cpu>> gives the plain CPU values and gradients', async () => {
    const a = await run(plain, 'float32');
    const f = await run(fused, 'float32');
    expect(Number.isFinite(a.value)).toBe(true);
    expect(mismatch([f.value], [a.value], 1e-4, 1e-5)).toBeUndefined();
    expect(mismatch(f.gx, Array.from(a.gx), 1e-4, 1e-4)).toBeUndefined();
    expect(mismatch(f.gy, Array.from(a.gy), 1e-4, 1e-4)).toBeUndefined();
  });

  it('float16 inputs run every composite and stay near the float32 result', async () => {
    const a = await run(plain, 'float32');
    const h = await run(plain, 'float16');
    expect(mismatch([h.value], [a.value], 0, 2e-2)).toBeUndefined();
    expect(mismatch(h.gx, Array.from(a.gx), 0.1, 5e-2)).toBeUndefined();
  });
});
