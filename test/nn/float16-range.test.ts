/**
 * float16 values whose intermediate results pass float16's range (65504): norms, the functions
 * built on them and BatchNorm's running statistics accumulate in float32 and round once, as
 * torch's kernels do (opmath). Also interpolate's copy of a dim whose size a scale factor leaves
 * unchanged (torch's UpSample.h shortcut). References are float64, written here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { BatchNorm1d } from '../../src/nn/batch-norm.js';
import { cosineSimilarity, interpolate, normalize, pairwiseDistance } from '../../src/nn/functional/index.js';
import { fromData, zeros } from '../../src/tensor/creation.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

const values = async (t: { toData(): Promise<{ values: ArrayLike<number> }> }): Promise<number[]> => Array.from((await t.toData()).values);
/** Within half a float16 step (2^-11 relative) of the float64 value, as one rounding gives. */
const oneRounding = (actual: number, expected: number): void => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.abs(expected) * 2 ** -11);

describe('float16 past 65504 in between', () => {
  const h = fromData(cpu, Float32Array.from([300, 400]), { shape: [1, 2] }).cast('float16');

  it('norm, normalize, cosineSimilarity and pairwiseDistance of [300, 400]', async () => {
    const [n2] = await values(h.norm(2));
    oneRounding(n2!, 500);
    const [n3] = await values(fromData(cpu, [30, 40]).cast('float16').norm(3));
    oneRounding(n3!, Math.cbrt(30 ** 3 + 40 ** 3));
    const unit = await values(normalize(h));
    oneRounding(unit[0]!, 0.6);
    oneRounding(unit[1]!, 0.8);
    expect(await values(cosineSimilarity(h, h))).toEqual([1]);
    const [d] = await values(pairwiseDistance(h, zeros(cpu, [1, 2], { dtype: 'float16' })));
    oneRounding(d!, Math.hypot(300 + 1e-6, 400 + 1e-6));
    for (const t of [h.norm(2), normalize(h)]) expect(t.dtype).toBe('float16');
  });

  it("BatchNorm's running variance of a float16 batch of variance 213333 (momentum 0.1, and null)", async () => {
    const batch = () => fromData(cpu, Float32Array.from([-400, 400, -400, 400]), { shape: [4, 1] }).cast('float16');
    const unbiased = (400 * 400 * 4) / 3;
    const m = new BatchNorm1d(cpu, 1);
    m.toDType('float16');
    let expected = 1;
    for (let step = 0; step < 3; step++) {
      m.forward(batch());
      const [stored] = await values(m.runningVar!.value);
      expected = 0.9 * expected + 0.1 * unbiased;
      oneRounding(stored!, expected);
      expected = stored!; // the next blend starts from the stored float16 value
    }
    // A cumulative average: the first batch alone is past float16's range (inf, as torch), and stays inf, not NaN.
    const c = new BatchNorm1d(cpu, 1, { momentum: null });
    c.toDType('float16');
    for (let step = 0; step < 2; step++) {
      c.forward(batch());
      expect(await values(c.runningVar!.value)).toEqual([Infinity]);
    }
  });
});

describe('interpolate copies a dim whose size the scale factor leaves unchanged', () => {
  it('linear: 5 values at scaleFactor 1.1 (floor(5.5) = 5) are copied', async () => {
    const x = fromData(cpu, [0, 1, 2, 3, 4], { shape: [1, 1, 5] });
    expect(await values(interpolate(x, { scaleFactor: 1.1, mode: 'linear' }))).toEqual([0, 1, 2, 3, 4]);
  });

  it('bilinear: H copied at 1.1, W doubled with half-pixel centres', async () => {
    const data = Array.from({ length: 16 }, (_, i) => i * 0.5 - 3);
    const x = fromData(cpu, data, { shape: [1, 1, 4, 4] });
    const out = await values(interpolate(x, { scaleFactor: [1.1, 2], mode: 'bilinear' }));
    // W: source (j + 0.5) / 2 - 0.5 clamped at 0, between columns floor and floor + 1.
    const expected: number[] = [];
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 8; j++) {
        const src = Math.max((j + 0.5) / 2 - 0.5, 0);
        const at = Math.min(Math.floor(src), 3);
        const next = Math.min(at + 1, 3);
        const w = src - at;
        expected.push(data[i * 4 + at]! * (1 - w) + data[i * 4 + next]! * w);
      }
    }
    out.forEach((v, k) => expect(v).toBeCloseTo(expected[k]!, 6));
  });
});
