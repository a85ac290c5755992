import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { fromData } from '../../src/index.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

const shapeArb = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: 4 });
const valuesFor = (shape: number[]) => fc.array(fc.float({ noNaN: true, min: -100, max: 100, noDefaultInfinity: true }), { minLength: shape.reduce((a, b) => a * b, 1), maxLength: shape.reduce((a, b) => a * b, 1) });

describe('laws', () => {
  test('broadcasting: a + b equals explicitly expanded a + b, elementwise by index', async () => {
    // b takes a suffix of a's shape with some dims set to 1.
    const arb = shapeArb.chain((shape) =>
      fc.tuple(fc.constant(shape), fc.array(fc.boolean(), { minLength: shape.length, maxLength: shape.length }), fc.integer({ min: 0, max: shape.length })).chain(([s, ones, cut]) => {
        const bShape = s.slice(cut).map((d, i) => (ones[i + cut] ? 1 : d));
        return fc.tuple(fc.constant(s), fc.constant(bShape), valuesFor(s), valuesFor(bShape));
      }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([aShape, bShape, av, bv]) => {
        const a = fromData(cpu, Float32Array.from(av), { shape: aShape });
        const b = fromData(cpu, Float32Array.from(bv), { shape: bShape });
        const got = (await a.add(b).toData()).values;
        const strides = (s: number[]) => s.map((_, i) => s.slice(i + 1).reduce((x, y) => x * y, 1));
        const as = strides(aShape);
        const bs = strides(bShape);
        const off = aShape.length - bShape.length;
        for (let i = 0; i < got.length; i++) {
          let rem = i;
          let bi = 0;
          aShape.forEach((_, d) => {
            const q = Math.floor(rem / as[d]!);
            rem -= q * as[d]!;
            if (d >= off && bShape[d - off] !== 1) bi += q * bs[d - off]!;
          });
          expect(got[i]).toBe(Math.fround(Math.fround(av[i]!) + Math.fround(bv[bi]!)));
        }
        a.dispose();
        b.dispose();
      }),
      { numRuns: 60 },
    );
  });

  test('permuting twice with a permutation and its inverse is the identity', async () => {
    const arb = shapeArb.filter((s) => s.length > 0).chain((s) => fc.tuple(fc.constant(s), fc.shuffledSubarray(s.map((_, i) => i), { minLength: s.length, maxLength: s.length }), valuesFor(s)));
    await fc.assert(
      fc.asyncProperty(arb, async ([shape, perm, vals]) => {
        const inv = perm.map((_, i) => perm.indexOf(i));
        const a = fromData(cpu, Float32Array.from(vals), { shape });
        const back = a.permute(perm).permute(inv);
        expect(back.shape).toEqual(shape);
        expect(Array.from((await back.toData()).values)).toEqual(Array.from(Float32Array.from(vals)));
        const tt = a.transpose().transpose();
        expect(Array.from((await tt.toData()).values)).toEqual(Array.from(Float32Array.from(vals)));
      }),
      { numRuns: 60 },
    );
  });

  test('sum over every dim in turn equals the sum over all (float64 reference)', async () => {
    const arb = shapeArb.filter((s) => s.length > 0).chain((s) => fc.tuple(fc.constant(s), valuesFor(s)));
    await fc.assert(
      fc.asyncProperty(arb, async ([shape, vals]) => {
        let t = fromData(cpu, Float32Array.from(vals), { shape });
        for (let d = shape.length - 1; d >= 0; d--) t = t.sum(d);
        const want = Array.from(Float32Array.from(vals)).reduce((x, y) => x + y, 0);
        expect(Math.abs((await t.item()) - want)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want)) + 1e-3);
      }),
      { numRuns: 60 },
    );
  });

  test('reshape round trip keeps row-major order', async () => {
    const arb = shapeArb.chain((s) => fc.tuple(fc.constant(s), valuesFor(s)));
    await fc.assert(
      fc.asyncProperty(arb, async ([shape, vals]) => {
        const a = fromData(cpu, Float32Array.from(vals), { shape });
        const flat = a.reshape([-1]);
        expect(Array.from((await flat.reshape(shape).toData()).values)).toEqual(Array.from(Float32Array.from(vals)));
      }),
      { numRuns: 40 },
    );
  });
});
