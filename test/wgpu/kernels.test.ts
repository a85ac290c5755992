/**
 * Kernel paths the conformance table does not reach at its sizes: the aligned, vec4 and
 * transposed matmul variants and the naive baseline, two-pass reductions, long softmax rows,
 * 2-D dispatch grids. References are float64 loops here.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { fromData, type Tensor } from '../../src/index.js';
import type { Backend } from '../../src/backends/backend.js';
import { describeGpu } from './gpu.js';

/** Deterministic values in [-1, 1) (a small LCG; no library code). */
function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

function refMatmul(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) c[i * n + j]! += a[i * k + p]! * b[p * n + j]!;
  return c;
}

function transposeHost(a: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(a.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = a[i * cols + j]!;
  return t;
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, k: number): void {
  expect(got.length).toBe(want.length);
  const tol = 1e-5 * Math.sqrt(k) + 1e-6;
  let bad = 0;
  for (let i = 0; i < want.length; i++) if (!(Math.abs(got[i]! - want[i]!) <= tol + 1e-5 * Math.abs(want[i]!))) bad++;
  expect(bad).toBe(0);
}

describeGpu('kernel variants', () => {
  let w: Wgpu;
  let naive: Wgpu;
  beforeAll(async () => {
    w = await Wgpu.create();
    naive = await Wgpu.create({ matmul: 'naive' });
  });
  afterAll(async () => {
    await w.close();
    await naive.close();
  });

  const shapes: ReadonlyArray<readonly [number, number, number]> = [
    [128, 64, 128], // aligned, vec4 A and B
    [65, 33, 17], // odd: bounds checks, scalar loads
    [64, 36, 68], // vec4 but not aligned to the tile
    [1, 256, 3],
    [7, 1, 9],
  ];
  for (const [m, k, n] of shapes) {
    test(`matmul ${m}x${k}x${n}: tiled, naive, and transposed operands match float64`, async () => {
      const a = values(m * k, m * 7 + k);
      const b = values(k * n, n * 13 + k);
      const want = refMatmul(a, b, m, k, n);
      for (const be of [w, naive]) {
        const A = fromData(be, a, { shape: [m, k] });
        const B = fromData(be, b, { shape: [k, n] });
        expectClose((await A.matmul(B).toData()).values, want, k);
        // Transposed views (unit stride along m for A, along k for B).
        const At = fromData(be, transposeHost(a, m, k), { shape: [k, m] }).transpose();
        const Bt = fromData(be, transposeHost(b, k, n), { shape: [n, k] }).transpose();
        expectClose((await At.matmul(Bt).toData()).values, want, k);
      }
    });
  }

  test('batched matmul broadcasts batch dims', async () => {
    const [m, k, n] = [5, 8, 4];
    const a = values(3 * m * k, 1);
    const b = values(k * n * 2, 2);
    const A = fromData(w, a, { shape: [3, 1, m, k] });
    const B = fromData(w, b, { shape: [2, k, n] });
    const got = (await A.matmul(B).toData()).values;
    const want = new Float64Array(3 * 2 * m * n);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 2; j++) {
        const c = refMatmul(a.subarray(i * m * k, (i + 1) * m * k), b.subarray(j * k * n, (j + 1) * k * n), m, k, n);
        want.set(c, (i * 2 + j) * m * n);
      }
    }
    expectClose(got, want, k);
  });

  test('reductions over many elements run in two passes and match float64', async () => {
    const n = 300_007;
    const x = values(n, 99);
    x[123_456] = 5; // the max, twice: argmax is the first
    x[200_000] = 5;
    x[7] = -5;
    const t: Tensor<Backend, 'float'> = fromData(w, x);
    let sum = 0;
    for (const v of x) sum += v;
    expect(Math.abs((await t.sum().item()) - sum)).toBeLessThan(1e-5 * Math.sqrt(n));
    expect(Math.abs((await t.mean().item()) - sum / n)).toBeLessThan(1e-6);
    expect(await t.max().item()).toBe(5);
    expect(await t.argmax().item()).toBe(123_456);
    expect(await t.argmin().item()).toBe(7);
    const withNan = fromData(w, Float32Array.from(x, (v, i) => (i === 250_000 ? NaN : v)));
    expect(Number.isNaN(await withNan.max().item())).toBe(true);
    expect(await withNan.argmax().item()).toBe(250_000);
  });

  test('long softmax rows (a workgroup per row) sum to 1 and match float64', async () => {
    const [rows, n] = [3, 5000];
    const x = values(rows * n, 5).map((v) => v * 20);
    const got = (await fromData(w, x, { shape: [rows, n] }).softmax().toData()).values;
    for (let r = 0; r < rows; r++) {
      const row = Array.from(x.subarray(r * n, (r + 1) * n));
      const m = Math.max(...row);
      const z = row.reduce((s, v) => s + Math.exp(v - m), 0);
      for (let j = 0; j < n; j++) expect(Math.abs(got[r * n + j]! - Math.exp(row[j]! - m) / z)).toBeLessThan(1e-6);
    }
  });

  test('an elementwise op past 65535 workgroups (a 2-D grid) covers every element', async () => {
    const n = 65_536 * 256 + 300;
    const t = fromData(w, new Float32Array(n)).add(1);
    const v = (await t.toData()).values;
    let ones = 0;
    for (const x of v) if (x === 1) ones++;
    expect(ones).toBe(n);
  });
});
