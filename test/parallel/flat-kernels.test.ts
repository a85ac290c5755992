/**
 * The join's wasm SIMD kernels: the weighted sum of 1-4 gradients, plain Adam and plain SGD give
 * the same bits as the JS loops (compared as Uint32), over odd lengths and unaligned ranges, and
 * stay within float32 rounding of float64 references written here from the formulas.
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { FlatKernels, flatKernelsSupported } from '../../src/parallel/flat-kernels.js';
import { adamRange, sgdRange } from '../../src/parallel/flat-optimizer.js';
import { weightedSum } from '../../src/parallel/reduce.js';
import { allocateShared, sharedViews } from '../../src/parallel/flat.js';

const supported = flatKernelsSupported();
const memory = new WebAssembly.Memory({ initial: 64, maximum: 64, shared: true });
const kernels = supported ? FlatKernels.on(memory) : undefined;
const heap = memory.buffer;

/** Float32 views carved from the shared memory, `skew` floats past a 16-byte boundary each. */
function carve(count: number, length: number, skew: number): Float32Array[] {
  const stride = Math.ceil((length + 8) / 4) * 16;
  return Array.from({ length: count }, (_, k) => new Float32Array(heap, k * stride + 4 * skew, length));
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

function fill(a: Float32Array, r: () => number, scale = 1): void {
  for (let i = 0; i < a.length; i++) a[i] = (r() * 2 - 1) * scale * 2 ** Math.floor(r() * 8 - 4);
}

const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.length);

describe.skipIf(!supported)('flat kernels (wasm SIMD)', () => {
  test('the weighted sum of 1-4 inputs: the JS loop\'s bits, within float32 rounding of float64', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 203 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (k, length, skew, cut, seed) => {
          const r = rng(seed);
          const [outWasm, outJs, ...data] = carve(k + 2, length, skew);
          for (const d of data) fill(d!, r);
          const weights = [1 / 3, 2 / 3, 0.25, 1 / 7, 0.5].slice(0, k);
          const inputs = data.map((d, i) => ({ data: d!, weight: weights[i]! }));
          const from = cut % length;
          const to = from + ((cut * 7) % (length - from + 1));
          outWasm!.fill(9);
          outJs!.fill(9);
          weightedSum(outJs!, inputs, from, to);
          expect(kernels!.sum(outWasm!, inputs, from, to)).toBe(to > from);
          expect(bits(outWasm!)).toEqual(bits(outJs!));
          for (let i = from; i < to; i++) {
            let ref = 0;
            for (const x of inputs) ref += x.weight * x.data[i]!;
            expect(Math.abs(outWasm![i]! - ref)).toBeLessThanOrEqual(Math.abs(ref) * 2 ** -24 + 1e-30);
          }
          // Outside [from, to) nothing is written.
          expect(outWasm!.slice(0, from).every((x) => x === 9) && outWasm!.slice(to).every((x) => x === 9)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('the kernels refuse buffers outside their memory (the JS loop runs)', () => {
    const a = new Float32Array(8).fill(1);
    const out = new Float32Array(8);
    expect(kernels!.sum(out, [{ data: a, weight: 1 }], 0, 8)).toBe(false);
    weightedSum(out, [{ data: a, weight: 0.5 }], 0, 8, undefined, kernels);
    expect([...out]).toEqual(Array(8).fill(0.5));
  });

  test('the kernels are there where wasm SIMD is', () => {
    expect(kernels).toBeInstanceOf(FlatKernels);
  });

  const adam = { kind: 'adam' as const, lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 };

  test.each([2, 3, 10, 1000])('plain Adam at step %i: the JS loop\'s bits, close to float64', (t) => {
    for (const [length, skew, lo] of [[1, 0, 0], [7, 1, 2], [64, 3, 5], [1001, 2, 17]] as const) {
      const r = rng(t * 1000 + length);
      const [w1, g, m1, v1, w2, m2, v2] = carve(7, length, skew) as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
      fill(w1, r);
      fill(g, r, 0.1);
      fill(m1, r, 0.01);
      for (let i = 0; i < length; i++) v1[i] = r() * 1e-3;
      w2.set(w1);
      m2.set(m1);
      v2.set(v1);
      const [w0, m0, v0] = [Float64Array.from(w1), Float64Array.from(m1), Float64Array.from(v1)];
      const hi = length;
      const from = Math.min(lo, hi);
      adamRange(adam, w1, g, m1, v1, from, hi, t, adam.lr);
      adamRange(adam, w2, g, m2, v2, from, hi, t, adam.lr, kernels);
      expect(bits(w2)).toEqual(bits(w1));
      expect(bits(m2)).toEqual(bits(m1));
      expect(bits(v2)).toEqual(bits(v1));
      for (let i = from; i < hi; i++) {
        const m = 0.9 * m0[i]! + 0.1 * g[i]!;
        const v = 0.999 * v0[i]! + 0.001 * g[i]! ** 2;
        const w = w0[i]! - 1e-3 * (m / (1 - 0.9 ** t)) / (Math.sqrt(v / (1 - 0.999 ** t)) + 1e-8);
        expect(m2[i]).toBeCloseTo(m, 6);
        expect(v2[i]).toBeCloseTo(v, 9);
        expect(Math.abs(w2[i]! - w)).toBeLessThanOrEqual(Math.abs(w) * 2 ** -22 + 1e-9);
      }
    }
  });

  test.each([1, 2, 5])('plain SGD at step %i: the JS loop\'s bits, close to float64', (t) => {
    const sgd = { kind: 'sgd' as const, lr: 0.05, momentum: 0, dampening: 0, weightDecay: 0, nesterov: false };
    for (const [length, skew, lo] of [[3, 1, 0], [65, 0, 3], [1000, 3, 1]] as const) {
      const r = rng(t * 77 + length);
      const [w1, g, w2] = carve(3, length, skew) as [Float32Array, Float32Array, Float32Array];
      fill(w1, r);
      fill(g, r);
      w2.set(w1);
      const w0 = Float64Array.from(w1);
      sgdRange(sgd, w1, g, undefined, lo, length, t, sgd.lr);
      sgdRange(sgd, w2, g, undefined, lo, length, t, sgd.lr, kernels);
      expect(bits(w2)).toEqual(bits(w1));
      for (let i = lo; i < length; i++) {
        const w = w0[i]! - 0.05 * g[i]!;
        expect(Math.abs(w2[i]! - w)).toBeLessThanOrEqual(Math.abs(w) * 2 ** -24 + 1e-30);
      }
    }
  });
});

describe('the shared flat buffers', () => {
  test('one memory, 16-byte aligned buffers that do not overlap; the kernels run on every view where wasm SIMD is', () => {
    const shared = allocateShared(3, 1001, 2, 1);
    const views = sharedViews(shared);
    const all = [...views.grads, views.joined, views.weights, ...views.state];
    expect(all).toHaveLength(7);
    all.forEach((v, k) => {
      expect(v.length).toBe(1001);
      expect(v.byteOffset % 16).toBe(0);
      if (k > 0) expect(v.byteOffset).toBeGreaterThanOrEqual(all[k - 1]!.byteOffset + 4 * 1001);
      expect(v.buffer).toBe(all[0]!.buffer);
    });
    expect(shared.memory instanceof SharedArrayBuffer).toBe(!supported);
    if (!supported) return;
    for (const v of views.grads) v.fill(3);
    expect(views.kernels!.sum(views.joined, views.grads.map((data) => ({ data, weight: 1 / 3 })), 1, 1000)).toBe(true);
    expect([views.joined[0], views.joined[1], views.joined[999], views.joined[1000]]).toEqual([0, 3, 3, 0]);
    expect(views.kernels!.sgd(views.weights, views.joined, 0, 1001, 0.5)).toBe(true);
    expect(views.weights[500]).toBe(-1.5);
  });
});
