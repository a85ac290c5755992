/** Batched matmul with broadcast batch dims: the tiled program (vec4 and aligned variants where possible) or the naive baseline. */
import { KernelError } from '../../../errors.js';
import type { OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import type { Params, Program } from '../wgsl/common.js';
import { DEFAULT_TILE, matmulProgram, tileSize, type MatmulKind, type MatmulTile } from '../wgsl/matmul.js';
import { vec4MatmulProgram, vec4TileFits } from '../wgsl/matmul-vec4.js';
import { NAIVE_TILE, naiveMatmulProgram } from '../wgsl/naive-matmul.js';
import { encodeTcMatmul, matmulBucket, tensorCoreMode, timeOnScratch, type MatmulPrecision } from './matmul-tc.js';
import { matmulParams, matmulProblem, vectorLoads } from './matmul-problem.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';

export type { MatmulKind };

export interface MatmulConfig {
  readonly kind: MatmulKind;
  /** A fixed tile, or undefined to choose by problem size. */
  readonly tile: MatmulTile | undefined;
  /** float32 precision: below 'highest', float32 matmuls may run on the tensor cores. */
  readonly precision: MatmulPrecision;
}

/** 128 x 64 tiles of 8 x 4 per invocation: the fastest on the H200 probe once there are enough tiles to fill the GPU. */
export const LARGE_TILE: MatmulTile = { wx: 16, wy: 16, tm: 8, tn: 4, bk: 16 };
/** Below this many large tiles, the 64 x 64 tile keeps more multiprocessors busy (1000x3000x500: 17.6 vs 11.5 TFLOP/s). */
const LARGE_TILE_MIN_WORKGROUPS = 256;

/**
 * 32 x 32 tiles of 4 x 4 per invocation (64 invocations): for outputs too small to give the GPU
 * enough 64 x 64 tiles, e.g. an MLP's 256 x 512 layers (32 workgroups of 64 x 64 on 132
 * multiprocessors, 128 of 32 x 32).
 */
export const SMALL_TILE: MatmulTile = { wx: 8, wy: 8, tm: 4, tn: 4, bk: 16 };
/** Below this many 64 x 64 tiles, the 32 x 32 tile runs instead. */
const DEFAULT_TILE_MIN_WORKGROUPS = 128;

/**
 * The vec4 program's tiles (wgsl/matmul-vec4.ts), for A and B in rows of whole vec4s. Measured on
 * an H200 by GPU timestamps: 128 x 128 (8 x 8 each) 38.9 and 40.3 TFLOP/s at 2048 and 4096, where
 * the scalar program's best gave 32.5 and 34.5; 64 x 64 (8 x 8 each, 64 invocations) 27.1 at
 * 1024 (23.5); 128 x 64 (8 x 4 each) 29.6 at 1000 x 500 x 3000 (26.3).
 */
export const VEC4_LARGE_TILE: MatmulTile = { wx: 16, wy: 16, tm: 8, tn: 8, bk: 16, program: 'vec4' };
export const VEC4_MEDIUM_TILE: MatmulTile = { wx: 8, wy: 8, tm: 8, tn: 8, bk: 16, program: 'vec4' };
export const VEC4_TILES: readonly MatmulTile[] = [
  VEC4_LARGE_TILE,
  VEC4_MEDIUM_TILE,
  { wx: 16, wy: 16, tm: 8, tn: 4, bk: 16, program: 'vec4' },
  { wx: 8, wy: 16, tm: 8, tn: 8, bk: 16, program: 'vec4' },
];

/** The built-in tile (before or without tuning); `vec4`: A and B come in rows of whole vec4s. */
export function chooseTile(M: number, N: number, batches: number, vec4 = false): MatmulTile {
  if (vec4) {
    if (Math.ceil(M / 128) * Math.ceil(N / 128) * batches >= LARGE_TILE_MIN_WORKGROUPS) return VEC4_LARGE_TILE;
    if (Math.ceil(M / 64) * Math.ceil(N / 64) * batches >= LARGE_TILE_MIN_WORKGROUPS) return VEC4_MEDIUM_TILE;
  }
  const large = Math.ceil(M / 128) * Math.ceil(N / 64) * batches;
  if (large >= LARGE_TILE_MIN_WORKGROUPS) return LARGE_TILE;
  const medium = Math.ceil(M / 64) * Math.ceil(N / 64) * batches;
  return medium >= DEFAULT_TILE_MIN_WORKGROUPS ? DEFAULT_TILE : SMALL_TILE;
}


export function encodeMatmul(ctx: GpuContext, config: MatmulConfig, a: RawStorage, b: RawStorage, out: RawStorage): void {
  const problem = matmulProblem(a, b, out);
  const { M, N, K, batchShape, batches, sam, sak, sbk, sbn } = problem;
  if (M * N * batches === 0) return;
  const tensorCores = config.kind === 'tiled' ? tensorCoreMode(out.dtype, config.precision, ctx.features.tensorCores) : null;
  if (tensorCores) {
    encodeTcMatmul(ctx, tensorCores, a, b, out);
    return;
  }
  const { vecA, vecB } = vectorLoads(problem, 4);
  const programFor = (tile: MatmulTile): Program => {
    const { bm, bn } = tileSize(tile);
    const aligned = M % bm === 0 && N % bn === 0 && K % tile.bk === 0;
    if (config.kind === 'tiled' && tile.program === 'vec4' && vecA && vecB && vec4TileFits(tile)) return vec4MatmulProgram({ tile, batchRank: batchShape.length, aligned });
    return config.kind === 'naive'
      ? naiveMatmulProgram(batchShape.length)
      : matmulProgram({
          tile,
          batchRank: batchShape.length,
          vecA,
          vecB,
          aMajorM: !vecA && sam === 1 && sak !== 1,
          bMajorK: !vecB && sbk === 1 && sbn !== 1,
          aligned,
        });
  };
  const groupsFor = (tile: MatmulTile): [number, number] => {
    const { bm, bn } = config.kind === 'naive' ? { bm: NAIVE_TILE, bn: NAIVE_TILE } : tileSize(tile);
    return [Math.ceil(N / bn), Math.ceil(M / bm)];
  };
  const paramsFor = (base: number): Params => matmulParams(problem, base);
  const limit = ctx.maxWorkgroupsPerDim;
  const heuristic = chooseTile(M, N, batches, vecA && vecB);
  const tile =
    config.tile ??
    (config.kind === 'naive'
      ? heuristic
      : ctx.tuner.choose(
          matmulBucket('matmul', M, N, K, batches, [vecA, vecB, sam === 1, sbk === 1]),
          F32_TILES,
          tileKey,
          heuristic,
          (t) => {
            const [gx, gy] = groupsFor(t);
            if (gx > limit || gy > limit) return Promise.resolve(undefined);
            return timeOnScratch(ctx, programFor(t), [a, b, out], paramsFor(0), [gx, gy, Math.min(limit, batches)]);
          },
          (t) => ctx.compileForTrial(programFor(t)),
        ));
  const program = programFor(tile);
  const [gx, gy] = groupsFor(tile);
  if (gx > limit || gy > limit) throw new KernelError(`a ${M} x ${N} output needs more than ${limit} workgroups per dimension`, { op: 'matmul', shapes: [a.shape, b.shape] });
  for (let base = 0; base < batches; base += limit) {
    ctx.dispatch(program, [a.buffer.gpu, b.buffer.gpu, out.buffer.gpu], paramsFor(base), [gx, gy, Math.min(limit, batches - base)]);
  }
}

/** The f32 tiles the autotuner chooses among (the heuristic picks among the first three and the vec4 program's first two). */
export const F32_TILES: readonly MatmulTile[] = [DEFAULT_TILE, LARGE_TILE, SMALL_TILE, { wx: 16, wy: 8, tm: 4, tn: 4, bk: 16 }, { wx: 16, wy: 16, tm: 4, tn: 8, bk: 16 }, { wx: 16, wy: 16, tm: 8, tn: 8, bk: 8 }, ...VEC4_TILES];

export function tileKey(t: MatmulTile): string {
  return `${t.wx}x${t.wy}/${t.tm}x${t.tn}/${t.bk}${t.program ? `/${t.program}` : ''}`;
}

export function matmulKernel(config: MatmulConfig): GpuKernel<'matmul'> {
  return {
    run(ctx, record: OpRecord<'matmul'>, inputs) {
      const meta = record.outputs[0]!;
      const out = freshStorage(ctx, meta.shape, meta.dtype);
      encodeMatmul(ctx, config, inputs[0]!, inputs[1]!, out);
      return [out];
    },
    // On tensor cores, float16 operands are read and written as f16 (accumulated in f32).
    float16: (ctx, record) => config.kind === 'tiled' && record.inputs.every((m) => m.dtype === 'float16') && tensorCoreMode('float16', config.precision, ctx.features.tensorCores) !== null,
  };
}
