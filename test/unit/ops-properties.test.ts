/** Laws of the ordering, scan and padding ops, checked on random shapes and values (fast-check, CPU backend). */
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { fromData } from '../../src/index.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
const shapeArb = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 });
/** Values with many ties (a few distinct levels) and occasional NaN / infinities. */
const valuesFor = (shape: number[]) =>
  fc.array(fc.oneof({ weight: 8, arbitrary: fc.integer({ min: -3, max: 3 }).map((v) => v / 2) }, { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, -0) }), { minLength: size(shape), maxLength: size(shape) });
const withDim = shapeArb.chain((s) => fc.tuple(fc.constant(s), fc.integer({ min: 0, max: s.length - 1 }), valuesFor(s)));

describe('laws', () => {
  test('argsort is a permutation of each line, and the gathered values are ordered (NaN last)', async () => {
    await fc.assert(
      fc.asyncProperty(withDim, fc.boolean(), async ([shape, dim, vals], descending) => {
        const x = fromData(cpu, Float32Array.from(vals), { shape });
        const { values, indices } = x.sort(dim, descending);
        const v = (await values.toData()).values;
        const idx = (await indices.toData()).values;
        const n = shape[dim]!;
        const inner = size(shape.slice(dim + 1));
        for (let line = 0; line < size(shape) / n; line++) {
          const base = Math.floor(line / inner) * n * inner + (line % inner);
          const seen = new Set<number>();
          for (let j = 0; j < n; j++) seen.add(idx[base + j * inner]!);
          expect(seen.size).toBe(n);
          for (let j = 1; j < n; j++) {
            const a = v[base + (j - 1) * inner]!;
            const b = v[base + j * inner]!;
            // ascending: no NaN before a number, and a <= b among numbers; descending mirrored.
            if (descending) expect(Number.isNaN(b) ? Number.isNaN(a) : Number.isNaN(a) || a >= b).toBe(true);
            else expect(Number.isNaN(a) ? Number.isNaN(b) : Number.isNaN(b) || a <= b).toBe(true);
          }
        }
        for (const t of [x, values, indices]) t.dispose();
      }),
      { numRuns: 80 },
    );
  });

  test('flip twice and roll by s then -s are the identity', async () => {
    await fc.assert(
      fc.asyncProperty(withDim, fc.integer({ min: -7, max: 7 }), async ([shape, dim, vals], s) => {
        const x = fromData(cpu, Float32Array.from(vals), { shape });
        const want = Array.from((await x.toData()).values);
        const f = x.flip(dim).flip(dim);
        const r = x.roll(s, dim).roll(-s, dim);
        expect(Array.from((await f.toData()).values)).toEqual(want);
        expect(Array.from((await r.toData()).values)).toEqual(want);
        for (const t of [x, f, r]) t.dispose();
      }),
      { numRuns: 60 },
    );
  });

  test('the last element of cumsum is the sum (int32, exact)', async () => {
    await fc.assert(
      fc.asyncProperty(shapeArb.chain((s) => fc.tuple(fc.constant(s), fc.integer({ min: 0, max: s.length - 1 }), fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: size(s), maxLength: size(s) }))), async ([shape, dim, vals]) => {
        const x = fromData(cpu, Int32Array.from(vals), { shape });
        const last = x.cumsum(dim).narrow(dim, shape[dim]! - 1, 1).squeeze(dim);
        expect(Array.from((await last.toData()).values)).toEqual(Array.from((await x.sum(dim).toData()).values));
      }),
      { numRuns: 60 },
    );
  });

  test('constant padding then slicing the middle back gives the input', async () => {
    const arb = shapeArb.chain((s) => fc.tuple(fc.constant(s), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 2 * s.length, maxLength: 2 * s.length }), valuesFor(s)));
    await fc.assert(
      fc.asyncProperty(arb, async ([shape, pads, vals]) => {
        const x = fromData(cpu, Float32Array.from(vals), { shape });
        const p = x.pad(pads, 'constant', 9);
        const r = shape.length;
        const back = p.slice(shape.map((n, d) => [pads[2 * (r - 1 - d)]!, pads[2 * (r - 1 - d)]! + n] as [number, number]));
        expect(Array.from((await back.toData()).values)).toEqual(Array.from((await x.toData()).values));
        for (const t of [x, p, back]) t.dispose();
      }),
      { numRuns: 60 },
    );
  });
});
