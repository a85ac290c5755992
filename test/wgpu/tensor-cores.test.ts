/**
 * The tensor-core matmul's host side: which devices qualify, which precision uses it, tile
 * choice within workgroup memory, and the generated programs. The kernels themselves need a
 * GPU with subgroup matrices (not lavapipe): `node dist/bench/main.js tensor-cores` checks them
 * against float64 there. Here every precision must give f32 results, as documented.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { chooseFeatures, hasTensorCoreConfig } from '../../src/backends/wgpu/features.js';
import { chooseTcTile, tcSharedBytes, tensorCoreMode, TC_TILES } from '../../src/backends/wgpu/kernels/matmul-tc.js';
import { tcMatmulProgram, tcTileValid, type TcSpec } from '../../src/backends/wgpu/wgsl/matmul-tc.js';
import { ArgumentError, fromData } from '../../src/index.js';
import type { GpuContext } from '../../src/backends/wgpu/context.js';
import { matmulKernel } from '../../src/backends/wgpu/kernels/matmul.js';
import type { OpRecord } from '../../src/ir/ops.js';
import { describeGpu } from './gpu.js';

const H200_INFO = {
  subgroupMinSize: 32,
  subgroupMaxSize: 32,
  subgroupMatrixConfigs: [
    { componentType: 'f16', resultComponentType: 'f16', M: 16, N: 16, K: 16 },
    { componentType: 'f16', resultComponentType: 'f32', M: 16, N: 16, K: 16 },
    { componentType: 'i8', resultComponentType: 'i32', M: 16, N: 16, K: 32 },
  ],
};

describe('tensor-core eligibility', () => {
  test('needs the f16 -> f32 16x16x16 config on 32-wide subgroups', () => {
    expect(hasTensorCoreConfig(H200_INFO)).toBe(true);
    expect(hasTensorCoreConfig({ ...H200_INFO, subgroupMinSize: 16 })).toBe(false);
    expect(hasTensorCoreConfig({ ...H200_INFO, subgroupMatrixConfigs: [H200_INFO.subgroupMatrixConfigs[0]] })).toBe(false);
    expect(hasTensorCoreConfig({ subgroupMinSize: 32, subgroupMaxSize: 32 })).toBe(false);
    expect(hasTensorCoreConfig({})).toBe(false);
  });

  test('features are requested only where offered', () => {
    const all = chooseFeatures({ features: new Set(['shader-f16', 'chromium-experimental-subgroup-matrix', 'subgroups']), info: H200_INFO as unknown as GPUAdapterInfo });
    expect(all.request).toEqual(['shader-f16', 'chromium-experimental-subgroup-matrix']);
    expect(all.features).toEqual({ f16: true, tensorCores: true, timestamps: false });
    const noF16 = chooseFeatures({ features: new Set(['chromium-experimental-subgroup-matrix']), info: H200_INFO as unknown as GPUAdapterInfo });
    expect(noF16.request).toEqual([]);
    expect(noF16.features).toEqual({ f16: false, tensorCores: false, timestamps: false });
    const lavapipe = chooseFeatures({ features: new Set(['shader-f16', 'subgroups', 'timestamp-query']), info: { subgroupMinSize: 8, subgroupMaxSize: 8 } as unknown as GPUAdapterInfo });
    expect(lavapipe.request).toEqual(['shader-f16', 'timestamp-query']);
    expect(lavapipe.features.tensorCores).toBe(false);
  });

  test('precision decides which matmuls use them', () => {
    expect(tensorCoreMode('float32', 'highest', true)).toBeNull();
    expect(tensorCoreMode('float32', 'high', true)).toEqual({ input: 'f32', output: 'f32', terms: 3 });
    expect(tensorCoreMode('float32', 'medium', true)).toEqual({ input: 'f32', output: 'f32', terms: 1 });
    expect(tensorCoreMode('float16', 'highest', true)).toEqual({ input: 'f16', output: 'f16', terms: 1 });
    expect(tensorCoreMode('float32', 'medium', false)).toBeNull();
    expect(tensorCoreMode('int32', 'medium', true)).toBeNull();
  });
});

test('a float16 matmul is handed to the kernel as f16 only where tensor cores run it', () => {
  const kernel = matmulKernel({ kind: 'tiled', tile: undefined, precision: 'highest' });
  const record = { op: 'matmul', inputs: [{ dtype: 'float16' }, { dtype: 'float16' }] } as unknown as OpRecord<'matmul'>;
  const ctx = (tensorCores: boolean) => ({ features: { f16: true, tensorCores, timestamps: false } }) as unknown as GpuContext;
  expect(kernel.float16?.(ctx(true), record)).toBe(true);
  expect(kernel.float16?.(ctx(false), record)).toBe(false);
  expect(matmulKernel({ kind: 'naive', tile: undefined, precision: 'highest' }).float16?.(ctx(true), record)).toBe(false);
  const mixed = { op: 'matmul', inputs: [{ dtype: 'float16' }, { dtype: 'float32' }] } as unknown as OpRecord<'matmul'>;
  expect(kernel.float16?.(ctx(true), mixed)).toBe(false);
});

describe('tensor-core tiles', () => {
  test('every shipped tile is valid', () => {
    for (const t of [...TC_TILES.f16, ...TC_TILES.f32]) expect(tcTileValid(t)).toBe(true);
  });

  test('the chosen tile fits in workgroup memory and fills the GPU when the problem allows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9000 }), fc.integer({ min: 1, max: 9000 }), fc.integer({ min: 1, max: 8 }), fc.constantFrom<1 | 3>(1, 3), fc.constantFrom(32768, 49152, 65536), fc.constantFrom<'f16' | 'f32'>('f16', 'f32'), (M, N, batches, terms, shared, input) => {
        const tiles = TC_TILES[input];
        const t = chooseTcTile(M, N, batches, terms, shared, tiles);
        expect(tcSharedBytes(t, terms)).toBeLessThanOrEqual(shared);
        const groups = Math.ceil(M / t.bm) * Math.ceil(N / t.bn) * batches;
        const fitting = tiles.filter((x) => (x.stages ?? 1) === 1 && tcSharedBytes(x, terms) <= shared);
        // Either enough workgroups, or already the smallest tile that fits.
        expect(groups >= 256 || t === fitting[fitting.length - 1]).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test('the 4096 f16 problem takes the largest tile', () => {
    expect(chooseTcTile(4096, 4096, 1, 1, 49152, TC_TILES.f16)).toEqual(TC_TILES.f16[0]);
    expect(chooseTcTile(4096, 4096, 1, 1, 49152, TC_TILES.f32)).toEqual(TC_TILES.f32[0]);
  });
});

describe('tensor-core programs', () => {
  const base: TcSpec = { tile: TC_TILES.f16[0]!, batchRank: 0, input: 'f32', output: 'f32', terms: 1, vecA: true, vecB: true, aMajorM: false, bMajorK: false, directStore: true, aligned: true };
  const variants: TcSpec[] = [
    base,
    { ...base, aligned: false },
    { ...base, vecA: false, vecB: false, aMajorM: true, bMajorK: true, aligned: false, directStore: false },
    { ...base, input: 'f16', output: 'f16', directStore: false, batchRank: 2 },
    { ...base, terms: 3, tile: TC_TILES.f32[2]! },
    { ...base, aligned: false, tile: { bm: 128, bn: 256, bk: 16, wr: 2, wc: 4, stages: 2 } },
    { ...base, tile: { bm: 128, bn: 256, bk: 32, wr: 2, wc: 4 } },
    { ...base, terms: 3, aligned: false, tile: { bm: 128, bn: 128, bk: 64, wr: 2, wc: 2, preload: true } },
  ];

  test('each variant has its own key and the directives it needs', () => {
    const keys = new Set<string>();
    for (const v of variants) {
      const p = tcMatmulProgram(v);
      keys.add(p.key);
      const src = p.source();
      expect(src.startsWith('enable f16;\nenable chromium_experimental_subgroup_matrix;')).toBe(true);
      expect(src).toContain(`@workgroup_size(${32 * v.tile.wr * v.tile.wc})`);
      // One product per accumulator and term: per 16-deep step in a loop, or the BK step unrolled with preload.
      const steps = v.tile.preload === true ? v.tile.bk / 16 : 1;
      expect((src.match(/subgroupMatrixMultiplyAccumulate/g) ?? []).length).toBe(((v.tile.bm / v.tile.wr / 16) * (v.tile.bn / v.tile.wc / 16)) * v.terms * steps);
      // Preload: every fragment load of the step comes before its first product.
      if (v.tile.preload === true) expect(src.lastIndexOf('subgroupMatrixLoad')).toBeLessThan(src.indexOf('subgroupMatrixMultiplyAccumulate'));
      // Bounds tests on loads exactly when the problem is not a multiple of the tile.
      expect(src.includes('m0 + r < M')).toBe(!v.aligned);
      expect(src.includes('sa_lo')).toBe(v.terms === 3);
    }
    expect(keys.size).toBe(variants.length);
  });

  test('an invalid tile is refused', () => {
    expect(() => tcMatmulProgram({ ...base, tile: { bm: 100, bn: 128, bk: 32, wr: 2, wc: 2 } }).source()).toThrow(/invalid tensor-core tile/);
  });
});

test('matmulPrecision is checked at construction', () => {
  expect(() => new Wgpu({ matmulPrecision: 'low' as unknown as 'high' })).toThrow(ArgumentError);
  expect(() => new Wgpu({ matmulPrecision: 'low' as unknown as 'high' })).toThrow(/'highest', 'high', 'medium'/);
});

describeGpu('matmul precision on this adapter', () => {
  let w: Wgpu;
  beforeAll(async () => {
    w = await Wgpu.create({ matmulPrecision: 'medium' });
  });
  afterAll(async () => {
    await w.close();
  });

  test('without tensor cores, medium precision is f32 arithmetic (a float64 reference, f32 tolerance)', async () => {
    const { tensorCores } = await w.features();
    const M = 37, K = 53, N = 29;
    const a = Float32Array.from({ length: M * K }, (_, i) => Math.sin(i * 0.37) * 3);
    const b = Float32Array.from({ length: K * N }, (_, i) => Math.cos(i * 0.11) * 2);
    const { values } = await fromData(w, a, { shape: [M, K] }).matmul(fromData(w, b, { shape: [K, N] })).toData();
    let worst = 0;
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let ref = 0, mag = 0;
        for (let k = 0; k < K; k++) { ref += a[i * K + k]! * b[k * N + j]!; mag += Math.abs(a[i * K + k]! * b[k * N + j]!); }
        worst = Math.max(worst, Math.abs(values[i * N + j]! - ref) / mag);
      }
    // f16 inputs would give ~1e-3; f32 arithmetic stays near 1e-7.
    expect(worst).toBeLessThan(tensorCores ? 2e-3 : 1e-5);
  });
});
