/**
 * The wasm matmul inline (one caller runs every tile: the largest tiles) and split across a pool
 * (the pool's tiles) gives the float64 reference's values, shapes with partial tiles included.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { matmulTiling } from '../../src/backends/cpu/wasm/kernels.js';
import { fromData } from '../../src/tensor/creation.js';

const inline = new Cpu({ threads: 0 });
const pooled = new Cpu({ threads: 2 });
afterAll(async () => {
  await inline.close();
  await pooled.close();
});

function values(n: number, seed: number): Float32Array {
  let a = seed;
  return Float32Array.from({ length: n }, () => ((a = (Math.imul(a, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1);
}

/** Float64 products and, per element, the float32 summation bound K * 2^-24 * sum |a b| (twice over). */
function reference(a: Float32Array, b: Float32Array, M: number, K: number, N: number, transposedB: boolean): { value: Float64Array; bound: Float64Array } {
  const value = new Float64Array(M * N);
  const bound = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    let abs = 0;
    for (let k = 0; k < K; k++) {
      const p = a[i * K + k]! * b[transposedB ? j * K + k : k * N + j]!;
      s += p;
      abs += Math.abs(p);
    }
    value[i * N + j] = s;
    bound[i * N + j] = 2 * K * 2 ** -24 * abs;
  }
  return { value, bound };
}

describe('wasm matmul tiling', () => {
  test('inline calls keep the largest tiles; the pool split has 8 tiles where the shape allows', () => {
    expect(matmulTiling(256, 512, true)).toEqual({ mt: 128, nt: 512, tm: 2, tn: 1 });
    const split = matmulTiling(256, 512);
    expect(split.tm * split.tn).toBeGreaterThanOrEqual(8);
  });

  // [M, K, N]: partial 4-row, 8-column and 256-deep blocks; wider than one 512 strip.
  const shapes: Array<[number, number, number]> = [
    [1, 784, 512],
    [37, 300, 45],
    [130, 257, 600],
    [256, 784, 520],
  ];
  for (const [M, K, N] of shapes) {
    for (const transposedB of [false, true]) {
      test(`${M}x${K} @ ${K}x${N}${transposedB ? ' (B transposed view)' : ''}: inline and pool agree with float64`, async () => {
        const av = values(M * K, M + K);
        const bv = values(K * N, N + 7);
        const ref = reference(av, bv, M, K, N, transposedB);
        for (const cpu of [inline, pooled]) {
          const a = fromData(cpu, av, { shape: [M, K] });
          const b = transposedB ? fromData(cpu, bv, { shape: [N, K] }) : fromData(cpu, bv, { shape: [K, N] });
          const bt = transposedB ? b.transpose() : b;
          const c = a.matmul(bt);
          const got = (await c.toData()).values;
          let over = 0;
          for (let i = 0; i < ref.value.length; i++) if (!(Math.abs(got[i]! - ref.value[i]!) <= ref.bound[i]!)) over++;
          expect(over).toBe(0);
          for (const t of [a, b, c]) t.dispose();
          if (transposedB) bt.dispose();
        }
      });
    }
  }
});
