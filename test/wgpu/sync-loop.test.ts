import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { full } from '../../src/index.js';
import { describeGpu } from './gpu.js';

describeGpu('a long synchronous loop on the GPU', () => {
  let w: Wgpu;
  beforeAll(async () => {
    w = await Wgpu.create();
  });
  afterAll(() => w.close());

  test('70,000 dependent tiny ops without yielding complete with the right values (the process used to crash near 65,000)', async () => {
    let x = full(w, [4], 0);
    for (let i = 0; i < 70_000; i++) {
      const n = x.add(1);
      x.dispose();
      x = n;
    }
    expect(await x.toArray()).toEqual([70_000, 70_000, 70_000, 70_000]);
    x.dispose();
    expect(w.memory().tensors).toBe(0);
  });
});
