/**
 * Every f32 matmul tile the autotuner may choose (and the heuristic's three) gives the float64
 * reference's values: edges that cut tiles, aligned sizes, transposed operands (scalar loads),
 * batches with broadcasting, and K not a multiple of the tile depth; the vec4 tiles' own program
 * on rows of whole vec4s, cut by the tile edges and aligned; split-K tiles with splits that cover
 * part of a slice or nothing at all.
 */
import { afterAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { F32_TILES, chooseTile, SMALL_TILE, LARGE_TILE, VEC4_LARGE_TILE, VEC4_WIDE_TILE } from '../../src/backends/wgpu/kernels/matmul.js';
import { DEFAULT_TILE, type MatmulTile } from '../../src/backends/wgpu/wgsl/matmul.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { ArgumentError } from '../../src/errors.js';
import { fromData } from '../../src/tensor/creation.js';
import { describeGpu } from './gpu.js';

function values(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

/** C[b] = A[b or 0] B[b or 0] in float64; A is [bA, M, K], B [bB, K, N] row-major. */
function reference(a: number[], b: number[], batch: number, bA: number, bB: number, M: number, K: number, N: number): number[] {
  const out: number[] = [];
  for (let t = 0; t < batch; t++) {
    const ao = (bA === 1 ? 0 : t) * M * K;
    const bo = (bB === 1 ? 0 : t) * K * N;
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += a[ao + i * K + k]! * b[bo + k * N + j]!;
      out.push(s);
    }
  }
  return out;
}

test('the heuristic: large tiles for many workgroups, 32 x 32 where 64 x 64 tiles would leave the GPU idle', () => {
  expect(chooseTile(4096, 4096, 1)).toBe(LARGE_TILE);
  expect(chooseTile(1024, 1024, 1)).toBe(DEFAULT_TILE);
  expect(chooseTile(256, 512, 1)).toBe(SMALL_TILE);
  expect(chooseTile(256, 512, 8)).toBe(DEFAULT_TILE);
});

test('the heuristic for rows of whole vec4s: the vec4 program where its tiles fill the GPU, else as above', () => {
  expect(chooseTile(4096, 4096, 1, true)).toBe(VEC4_LARGE_TILE);
  expect(chooseTile(2048, 2048, 1, true)).toBe(VEC4_LARGE_TILE);
  expect(chooseTile(1024, 1024, 1, true)).toBe(VEC4_WIDE_TILE);
  expect(chooseTile(1000, 3000, 1, true)).toBe(VEC4_WIDE_TILE);
  expect(chooseTile(512, 512, 4, true)).toBe(VEC4_WIDE_TILE);
  expect(chooseTile(256, 512, 1, true)).toBe(SMALL_TILE);
});

test('a fixed tile with a field that is not a positive integer is an ArgumentError naming the field', () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ wx: 16, wy: 16, tm: 0, tn: 4, bk: 16 }, /matmulTile\.tm must be an integer in \[1, 256\], got 0/],
    [{ wx: 16, wy: 16, tm: 4, tn: 4, bk: 16, splitK: 2.5 }, /matmulTile\.splitK must be an integer/],
    [{ wx: 16, wy: 16, tm: 4, tn: 4 }, /matmulTile\.bk must be an integer/],
    [{ wx: 16, wy: 16, tm: 4, tn: 4, bk: 16, program: 'vec8' }, /matmulTile\.program must be 'vec4'/],
    ['16x16', /matmulTile must be an object/],
  ];
  // Untyped JavaScript callers: the values go through `unknown` on purpose.
  for (const [tile, message] of bad) expect(() => new Wgpu({ matmulTile: tile as MatmulTile })).toThrow(message);
  expect(() => new Wgpu({ matmulTile: { ...VEC4_WIDE_TILE, splitK: 4 } })).not.toThrow();
});

describeGpu('a fixed tile the device cannot run', () => {
  test('is an ArgumentError naming the tile and the limit, at the matmul; the backend goes on working', async () => {
    const wgpu = new Wgpu({ runtime: new Runtime(), autotune: false, matmulTile: { wx: 64, wy: 64, tm: 4, tn: 4, bk: 16 } });
    try {
      const m = fromData(wgpu, Array.from({ length: 64 }, (_, i) => i % 5), { shape: [8, 8] });
      const out = await m.matmul(m).toData().then(
        () => 'resolved',
        (e: unknown) => e,
      );
      expect(out).toBeInstanceOf(ArgumentError);
      expect(out).toMatchObject({ message: expect.stringMatching(/matmulTile 64x64 makes workgroups of 4096 invocations; this device runs at most \d+/) });
      expect(Array.from((await m.add(1).toData()).values).slice(0, 3)).toEqual([1, 2, 3]);
      m.dispose();
    } finally {
      await wgpu.close();
    }
  });
});

describeGpu('every f32 matmul tile', () => {
  const backends = F32_TILES.map((tile) => ({ tile, wgpu: new Wgpu({ runtime: new Runtime(), autotune: false, matmulTile: tile }) }));
  afterAll(async () => {
    for (const { wgpu } of backends) await wgpu.close();
  });

  const cases: Array<{ name: string; batch: number; bA: number; bB: number; M: number; K: number; N: number; transA?: boolean; transB?: boolean }> = [
    { name: 'edges', batch: 1, bA: 1, bB: 1, M: 37, K: 50, N: 29 },
    { name: 'aligned', batch: 1, bA: 1, bB: 1, M: 128, K: 32, N: 64 },
    { name: 'transposed A', batch: 1, bA: 1, bB: 1, M: 33, K: 20, N: 40, transA: true },
    { name: 'transposed B', batch: 1, bA: 1, bB: 1, M: 40, K: 24, N: 35, transB: true },
    { name: 'batch, B broadcast', batch: 3, bA: 3, bB: 1, M: 17, K: 9, N: 13 },
    // Rows of whole vec4s (K and N multiples of 4): the vec4 tiles run their own program.
    { name: 'vec4 rows, edges', batch: 1, bA: 1, bB: 1, M: 37, K: 52, N: 44 },
    { name: 'vec4 rows, aligned to 128', batch: 1, bA: 1, bB: 1, M: 128, K: 48, N: 128 },
    { name: 'vec4 rows, K past the slice', batch: 1, bA: 1, bB: 1, M: 70, K: 20, N: 132 },
    { name: 'vec4 rows, batch, A broadcast', batch: 3, bA: 1, bB: 3, M: 19, K: 20, N: 36 },
  ];

  // The vec4 cases where the vec4 program can run; every tile also meets the other layouts.
  const casesFor = (tile: MatmulTile) => (tile.program === 'vec4' ? cases : cases.filter((c) => !c.name.startsWith('vec4')));
  test.each(backends.flatMap(({ tile, wgpu }) => casesFor(tile).map((c) => ({ ...c, tile, wgpu, label: `${JSON.stringify(tile)} ${c.name}` }))))('$label', async (c) => {
    const a = values(c.bA * c.M * c.K, 3 + c.M);
    const b = values(c.bB * c.K * c.N, 5 + c.N);
    // Transposed operands: the data stored the other way round, viewed back with transpose().
    const tr = (x: number[], rows: number, cols: number) => Array.from({ length: rows * cols }, (_, i) => x[(i % rows) * cols + Math.floor(i / rows)]!);
    const A = c.transA ? fromData(c.wgpu, tr(a, c.M, c.K), { shape: [c.K, c.M] }).transpose() : fromData(c.wgpu, a, { shape: c.bA === 1 ? [c.M, c.K] : [c.bA, c.M, c.K] });
    const B = c.transB ? fromData(c.wgpu, tr(b, c.K, c.N), { shape: [c.N, c.K] }).transpose() : fromData(c.wgpu, b, { shape: c.bB === 1 ? [c.K, c.N] : [c.bB, c.K, c.N] });
    const got = Array.from((await A.matmul(B).toData()).values);
    const want = reference(a, b, c.batch, c.bA, c.bB, c.M, c.K, c.N);
    expect(got.length).toBe(want.length);
    const bad = want.flatMap((w, i) => (Math.abs(got[i]! - w) <= 1e-5 + 1e-5 * Math.abs(w) ? [] : [`[${i}] ${got[i]} vs ${w}`]));
    expect(bad.slice(0, 3)).toEqual([]);
  });

  // Every tile without split-K sums K in the same order (one fma per k, slice after slice), so
  // choosing among them never changes a result: the vec4 program's bits equal the scalar
  // program's. Split-K tiles add partial sums, which rounds differently (as cuBLAS's split-K).
  const unsplit = backends.filter(({ tile }) => (tile.splitK ?? 1) === 1);
  test.each([
    { M: 70, K: 20, N: 132 },
    { M: 128, K: 48, N: 128 },
  ])('every tile gives the same bits: $M x $K x $N', async ({ M, K, N }) => {
    const a = values(M * K, 11);
    const b = values(K * N, 13);
    const results: Float32Array[] = [];
    for (const { wgpu } of unsplit) {
      results.push((await fromData(wgpu, a, { shape: [M, K] }).matmul(fromData(wgpu, b, { shape: [K, N] })).toData()).values);
    }
    for (const [i, r] of results.entries()) expect({ tile: unsplit[i]!.tile, same: r.every((v, j) => Object.is(v, results[0]![j])) }).toEqual({ tile: unsplit[i]!.tile, same: true });
  });
});

describeGpu('split-K over more batches than one dispatch holds', () => {
  test('batches past the z limit / splits go out in chunks and each gets its own sum', async () => {
    const tile: MatmulTile = { wx: 16, wy: 8, tm: 8, tn: 8, bk: 16, program: 'vec4', splitK: 4 };
    const wgpu = new Wgpu({ runtime: new Runtime(), autotune: false, matmulTile: tile });
    try {
      await wgpu.init(wgpu.defaultDevice());
      const limit = wgpu.exec(wgpu.defaultDevice()).context!.maxWorkgroupsPerDim;
      const batch = Math.floor(limit / 4) + 3;
      const M = 4, K = 40, N = 8;
      const a = values(batch * M * K, 21);
      const b = values(batch * K * N, 22);
      const got = (await fromData(wgpu, a, { shape: [batch, M, K] }).matmul(fromData(wgpu, b, { shape: [batch, K, N] })).toData()).values;
      const want = reference(a, b, batch, batch, batch, M, K, N);
      // Every batch, the first and the last chunk's among them.
      const bad: string[] = [];
      for (let i = 0; i < want.length; i++) if (Math.abs(got[i]! - want[i]!) > 1e-5 + 1e-5 * Math.abs(want[i]!)) bad.push(`[${i}] ${got[i]} vs ${want[i]}`);
      expect(bad.slice(0, 3)).toEqual([]);
    } finally {
      await wgpu.close();
    }
  });
});
