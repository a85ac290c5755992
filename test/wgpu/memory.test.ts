import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { fromData, keep, random, tidy, Distribution, type Tensor } from '../../src/index.js';
import { describeGpu } from './gpu.js';

describeGpu('GPU memory', () => {
  let w: Wgpu;
  beforeAll(async () => {
    w = await Wgpu.create();
  });
  afterAll(() => w.close());

  test('a 1,000-iteration training-style loop inside tidy keeps GPU bytes flat', async () => {
    const x = random(w, [32, 16], Distribution.Normal(0, 1));
    const target = random(w, [32, 4], Distribution.Normal(0, 1));
    let weights: Tensor<Wgpu, 'float'> = keep(random(w, [16, 4], Distribution.Normal(0, 0.1)));
    const step = (): void => {
      const next = tidy(() => {
        const err = x.matmul(weights).sub(target);
        const grad = x.transpose().matmul(err).mul(2 / 32);
        return keep(weights.sub(grad.mul(0.01)));
      });
      weights.dispose();
      weights = next;
    };
    for (let i = 0; i < 10; i++) step();
    await weights.toData();
    const before = w.memory();
    for (let i = 0; i < 990; i++) step();
    const loss = tidy(() => x.matmul(weights).sub(target).square().mean());
    expect(Number.isFinite(await loss.item())).toBe(true);
    loss.dispose();
    await weights.toData();
    const after = w.memory();
    expect(after.tensors).toBe(before.tensors);
    expect(after.bytes).toBe(before.bytes);
    expect(after.pooledBytes).toBeLessThanOrEqual(before.pooledBytes + 64 * 1024);
    // Freed now, not by the finalizer during the next test's byte counts.
    for (const t of [x, target, weights]) t.dispose();
  });

  test('freed buffers are reused: a second allocation of a size class does not grow live bytes', async () => {
    const a = fromData(w, new Float32Array(1000));
    await a.toData();
    const held = w.memory().bytes;
    a.dispose();
    const freed = w.memory();
    expect(freed.bytes).toBe(held - 4096);
    const b = fromData(w, new Float32Array(900));
    await b.toData();
    expect(w.memory().bytes).toBe(held);
    expect(w.memory().pooledBytes).toBe(freed.pooledBytes - 4096);
    b.dispose();
  });
});
