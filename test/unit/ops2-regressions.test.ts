/**
 * Regressions in the ops2 tensor ops (median / nanmedian, repeatInterleaveAsync, scatterReduce,
 * unique, mode, lerp, aminmax): the expected numbers are PyTorch 1.13's (printed beside each).
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { fromData } from '../../src/tensor/creation.js';

const cpu = new Cpu({ threads: 0 });
const ad = new Autodiff(cpu);
afterAll(() => cpu.close());

const vec = (v: number[]) => fromData(ad, Float32Array.from(v), { shape: [v.length] }).requireGrad();

describe('median / nanmedian of all elements: the gradient at a -inf median', () => {
  test('shared among the -inf ties alone (torch: [0.5, 0.5, 0] and [0, 0.5, 0.5, 0])', async () => {
    const cases: Array<[number[], 'median' | 'nanmedian', number[], number]> = [
      [[-Infinity, -Infinity, 5], 'median', [0.5, 0.5, 0], -Infinity],
      [[NaN, -Infinity, -Infinity, 3], 'nanmedian', [0, 0.5, 0.5, 0], -Infinity],
      [[Infinity, Infinity, -5], 'median', [0.5, 0.5, 0], Infinity],
      [[2, 7, 2, 9, 2], 'median', [1 / 3, 0, 1 / 3, 0, 1 / 3], 2],
    ];
    for (const [v, op, grad, value] of cases) {
      const x = vec(v);
      const m = op === 'median' ? x.median() : x.nanmedian();
      const g = m.backward();
      expect((await m.toData()).values[0]).toBe(value);
      expect(Array.from((await x.grad(g)!.toData()).values)).toEqual(grad.map(Math.fround));
      g.dispose();
    }
  });
});
