/**
 * Every tensor-core matmul tile against a float64 reference, on an adapter with tensor cores
 * (lavapipe has none; BENCHMARKS.md has the H200's run):
 *
 *   node dist/test/conformance/tensor-core-tiles.js
 *
 * Each tile of both candidate lists (`TC_TILES`, preload or not) runs in four modes (f16 -> f16,
 * f16 -> f32, f32 rounded to f16, f32 split into three products) over five layouts (aligned,
 * vector loads with ragged tiles, scalar loads, a transposed A, one row); a tile's program is
 * dispatched directly, so the autotuner's choice does not hide any of them. Prints a line per
 * tile and mode, one per failure, and `N checked, M failed` last; exits 1 on a failure, 2 where
 * the adapter has no tensor cores.
 */
import { pathToFileURL } from 'node:url';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import type { GpuContext } from '../../src/backends/wgpu/context.js';
import { BufferUsage } from '../../src/backends/wgpu/flags.js';
import { TC_TILES, tcSharedBytes } from '../../src/backends/wgpu/kernels/matmul-tc.js';
import { matmulParams, vectorLoads, type MatmulProblem } from '../../src/backends/wgpu/kernels/matmul-problem.js';
import { tcMatmulProgram, tcVectorWidth, type TcElement, type TcTile } from '../../src/backends/wgpu/wgsl/matmul-tc.js';
import { float32ToHalfBits, fromHalfBits } from '../../src/ir/half.js';

export interface TcMode {
  readonly input: TcElement;
  readonly output: TcElement;
  readonly terms: 1 | 3;
}

export const TC_MODES: readonly TcMode[] = [
  { input: 'f16', output: 'f16', terms: 1 },
  { input: 'f16', output: 'f32', terms: 1 },
  { input: 'f32', output: 'f32', terms: 1 },
  { input: 'f32', output: 'f32', terms: 3 },
];

/** M, K, N and whether A is stored transposed (a view with unit stride along m). */
export const TC_LAYOUTS: ReadonlyArray<readonly [number, number, number, boolean]> = [
  [256, 256, 256, false],
  [200, 72, 264, false],
  [127, 65, 129, false],
  [96, 80, 48, true],
  [1, 33, 17, false],
];

/**
 * Largest error allowed, relative to sum_k |a_ik b_kj|: f16 products are exact in f32, so f16 in
 * and f32 out is f32 accumulation; f16 out adds one f16 rounding (2^-11); f32 inputs rounded to
 * f16 add ~2^-11 per input; split inputs (hi + lo) leave ~2^-22.
 */
export function tcTolerance(mode: TcMode): number {
  if (mode.input === 'f16') return mode.output === 'f16' ? 1e-3 : 1e-5;
  return mode.terms === 3 ? 2e-5 : 2e-3;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 4294967296) * 4 - 2;
  };
}

function storageBuffer(ctx: GpuContext, data: Uint16Array | Float32Array | number): GPUBuffer {
  const bytes = typeof data === 'number' ? data : data.byteLength;
  const buffer = ctx.device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 16) * 16), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC });
  if (typeof data !== 'number') {
    // writeBuffer takes whole 4-byte words: pad an odd count of halves.
    const words = new Uint8Array(Math.ceil(data.byteLength / 4) * 4);
    words.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    ctx.upload(buffer, words);
  }
  return buffer;
}

/** The worst relative error of one tile, mode and layout, against float64. */
export async function checkTile(ctx: GpuContext, tile: TcTile, mode: TcMode, layout: readonly [number, number, number, boolean], seed: number): Promise<number> {
  const [M, K, N, transA] = layout;
  const next = lcg(seed);
  const a = Array.from({ length: M * K }, next);
  const b = Array.from({ length: K * N }, next);
  const stored = new Array<number>(M * K);
  for (let i = 0; i < M; i++) for (let k = 0; k < K; k++) stored[transA ? k * M + i : i * K + k] = a[i * K + k]!;
  const encode = (xs: readonly number[]): Uint16Array | Float32Array => (mode.input === 'f16' ? Uint16Array.from(xs, float32ToHalfBits) : Float32Array.from(xs));
  const A = encode(stored);
  const B = encode(b);
  // The reference multiplies what the GPU reads: f16 inputs after their rounding.
  const value = (arr: Uint16Array | Float32Array, i: number): number => (arr instanceof Uint16Array ? fromHalfBits(arr[i]!) : arr[i]!);
  const problem: MatmulProblem = { M, N, K, batchShape: [], batches: 1, aB: [], bB: [], sam: transA ? 1 : K, sak: transA ? M : 1, sbk: N, sbn: 1, aOffset: 0, bOffset: 0 };
  const { vecA, vecB } = vectorLoads(problem, tcVectorWidth(mode.input));
  const program = tcMatmulProgram({
    tile,
    batchRank: 0,
    ...mode,
    vecA,
    vecB,
    aMajorM: !vecA && problem.sam === 1 && problem.sak !== 1,
    bMajorK: false,
    directStore: mode.output === 'f32' && N % 4 === 0,
    aligned: M % tile.bm === 0 && N % tile.bn === 0 && K % tile.bk === 0,
  });
  const outBytes = M * N * (mode.output === 'f16' ? 2 : 4);
  const buffers = [storageBuffer(ctx, A), storageBuffer(ctx, B), storageBuffer(ctx, outBytes)];
  try {
    ctx.dispatch(program, buffers, matmulParams(problem, 0), [Math.ceil(N / tile.bn), Math.ceil(M / tile.bm), 1]);
    const raw = await ctx.readBuffer(buffers[2]!, 0, Math.ceil(outBytes / 4) * 4);
    const out = mode.output === 'f16' ? Array.from(new Uint16Array(raw, 0, M * N), fromHalfBits) : Array.from(new Float32Array(raw, 0, M * N));
    let worst = 0;
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let ref = 0;
        let mag = 0;
        for (let k = 0; k < K; k++) {
          const t = value(A, transA ? k * M + i : i * K + k) * value(B, k * N + j);
          ref += t;
          mag += Math.abs(t);
        }
        const err = Math.abs(out[i * N + j]! - ref) / (mag || 1);
        // NaN (a lane that read garbage) must fail, not compare false.
        worst = Number.isNaN(err) ? Infinity : Math.max(worst, err);
      }
    }
    return worst;
  } finally {
    ctx.flush();
    for (const buffer of buffers) buffer.destroy();
  }
}

/** Every distinct tile of both lists that fits the device's workgroup memory in this mode. */
export function tilesFor(mode: TcMode, maxShared: number): TcTile[] {
  const all = [...TC_TILES[mode.input], ...TC_TILES[mode.input === 'f16' ? 'f32' : 'f16']];
  return all.filter((t, i) => all.findIndex((u) => JSON.stringify(u) === JSON.stringify(t)) === i && tcSharedBytes(t, mode.terms) <= maxShared);
}

export async function checkAllTiles(ctx: GpuContext, log: (line: string) => void): Promise<{ checked: number; failed: number }> {
  let checked = 0;
  let failed = 0;
  for (const mode of TC_MODES) {
    for (const tile of tilesFor(mode, ctx.device.limits.maxComputeWorkgroupStorageSize)) {
      let worst = 0;
      for (const [n, layout] of TC_LAYOUTS.entries()) {
        const err = await checkTile(ctx, tile, mode, layout, 7 + n);
        checked++;
        worst = Math.max(worst, err);
        if (!(err <= tcTolerance(mode))) {
          failed++;
          log(`FAILED ${JSON.stringify(tile)} ${mode.input}>${mode.output} terms ${mode.terms} ${layout.join('x')}: error ${err.toExponential(2)} > ${tcTolerance(mode)}`);
        }
      }
      log(`${mode.input}>${mode.output} terms ${mode.terms} ${JSON.stringify(tile)}: worst ${worst.toExponential(2)}`);
    }
  }
  return { checked, failed };
}

async function main(): Promise<void> {
  const w = new Wgpu({ autotune: false });
  try {
    const ctx = await w.exec(w.defaultDevice()).ready();
    if (!ctx.features.tensorCores) {
      console.log(`${ctx.adapterName}: no tensor cores (subgroup matrices), nothing to check`);
      process.exitCode = 2;
      return;
    }
    const { checked, failed } = await checkAllTiles(ctx, (line) => console.log(line));
    console.log(`${checked} checked, ${failed} failed`);
    process.exitCode = failed > 0 ? 1 : 0;
  } finally {
    await w.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
