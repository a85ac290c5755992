/**
 * float16 conversions against an independent reference: every finite non-negative float16 value
 * listed from its definition (bits = index), the nearest found by search, ties to the even pattern.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeHalves, encodeHalves, float32ToHalfBits, fromHalfBits, roundHalf, toHalfBits } from '../../src/ir/half.js';

/** Value of the pattern with exponent field e and mantissa m (e < 31), by the definition. */
function defined(e: number, m: number): number {
  return e === 0 ? (m / 1024) * 2 ** -14 : (1 + m / 1024) * 2 ** (e - 15);
}

/** VALUES[bits] for bits 0 .. 0x7bff: ascending. */
const VALUES: number[] = [];
for (let e = 0; e < 31; e++) for (let m = 0; m < 1024; m++) VALUES.push(defined(e, m));

/** Reference rounding of a float64 to a float16 pattern. */
function refBits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  // Beyond the largest finite value by half an ulp (2^15 * 2^-11) or more: infinity.
  if (a >= 65504 + 2 ** 4) return sign | 0x7c00;
  let lo = 0;
  let hi = VALUES.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (VALUES[mid]! <= a) lo = mid;
    else hi = mid;
  }
  if (a >= VALUES[hi]!) return sign | hi;
  const dl = a - VALUES[lo]!;
  const dh = VALUES[hi]! - a;
  const pick = dl < dh ? lo : dh < dl ? hi : lo % 2 === 0 ? lo : hi;
  return sign | pick;
}

describe('float16 conversions', () => {
  it('decodes every pattern as the definition says', () => {
    for (let h = 0; h < 65536; h++) {
      const e = (h >> 10) & 31;
      const m = h & 1023;
      const s = h & 0x8000 ? -1 : 1;
      const want = e === 31 ? (m === 0 ? s * Infinity : NaN) : s * defined(e, m);
      expect(Object.is(fromHalfBits(h), want) || (Number.isNaN(want) && Number.isNaN(fromHalfBits(h)))).toBe(true);
    }
  });

  it('round-trips every non-NaN pattern', () => {
    for (let h = 0; h < 65536; h++) {
      if ((h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0) continue;
      expect(toHalfBits(fromHalfBits(h))).toBe(h);
      expect(float32ToHalfBits(fromHalfBits(h))).toBe(h);
    }
  });

  it('rounds float64 values to the nearest float16, ties to even', () => {
    fc.assert(fc.property(fc.double(), (v) => toHalfBits(v) === refBits(v)), { numRuns: 20000 });
    // Near the float16 range, where most of the rounding cases are.
    fc.assert(fc.property(fc.double({ min: -70000, max: 70000 }), (v) => toHalfBits(v) === refBits(v)), { numRuns: 20000 });
    fc.assert(fc.property(fc.double({ min: -(2 ** -13), max: 2 ** -13 }), (v) => toHalfBits(v) === refBits(v)), { numRuns: 20000 });
  });

  it('rounds float32 values from their bits as the float64 path does', () => {
    fc.assert(fc.property(fc.float(), (v) => float32ToHalfBits(v) === refBits(v)), { numRuns: 20000 });
    fc.assert(fc.property(fc.float({ min: -70000, max: 70000 }), (v) => float32ToHalfBits(v) === refBits(v)), { numRuns: 20000 });
  });

  it('rounds exact ties to the even pattern, at every scale', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7bfe }), fc.boolean(), (h, neg) => {
        const mid = (VALUES[h]! + VALUES[h + 1]!) / 2; // exact in float64
        const want = h % 2 === 0 ? h : h + 1;
        const v = neg ? -mid : mid;
        const sign = neg ? 0x8000 : 0;
        return toHalfBits(v) === (sign | want) && float32ToHalfBits(v) === (sign | want);
      }),
      { numRuns: 5000 },
    );
  });

  it('handles the edges: overflow, underflow, signed zeros, NaN', () => {
    expect(toHalfBits(65504)).toBe(0x7bff);
    expect(toHalfBits(65519.999)).toBe(0x7bff);
    expect(toHalfBits(65520)).toBe(0x7c00);
    expect(toHalfBits(-Infinity)).toBe(0xfc00);
    expect(toHalfBits(2 ** -24)).toBe(1);
    expect(toHalfBits(2 ** -25)).toBe(0); // tie between 0 and the smallest subnormal: even is 0
    expect(toHalfBits(1.5 * 2 ** -25)).toBe(1);
    expect(toHalfBits(-0)).toBe(0x8000);
    expect(toHalfBits(NaN)).toBe(0x7e00);
    expect(float32ToHalfBits(NaN)).toBe(0x7e00);
    expect(roundHalf(0.1)).toBe(0.0999755859375);
  });

  it('converts arrays in bulk as element by element', () => {
    fc.assert(
      fc.property(fc.float32Array({ maxLength: 64 }), (xs) => {
        const bits = new Uint16Array(xs.length);
        encodeHalves(xs, 0, xs.length, bits);
        const back = new Float32Array(xs.length);
        decodeHalves(bits, 0, xs.length, back);
        return xs.every((x, i) => bits[i] === refBits(x) && Object.is(back[i], Math.fround(fromHalfBits(bits[i]!))));
      }),
    );
  });
});
