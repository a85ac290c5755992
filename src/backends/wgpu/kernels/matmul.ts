/** Batched matmul with broadcast batch dims: the tiled program (vec4 and aligned variants where possible) or the naive baseline. */
import { ArgumentError, KernelError } from '../../../errors.js';
import { numel, type OpRecord } from '../../../ir/ops.js';
import { HEAVY_FLOPS, type GpuContext } from '../context.js';
import { grid, Params, type Program } from '../wgsl/common.js';
import { DEFAULT_TILE, matmulProgram, tileSize, type MatmulKind, type MatmulTile } from '../wgsl/matmul.js';
import { SPLIT_SUM_WORKGROUP, splitKSumProgram, vec4MatmulProgram, vec4TileFits } from '../wgsl/matmul-vec4.js';
import { NAIVE_TILE, naiveMatmulProgram } from '../wgsl/naive-matmul.js';
import { bufferSizes, encodeTcMatmul, matmulBucket, tensorCoreMode, timeOnScratch, type MatmulPrecision } from './matmul-tc.js';
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
 * an H200 by GPU timestamps, all tiles round-robin at steady clocks (TFLOP/s at 1024, 2048, 4096
 * and 1000 x 500 x 3000): 128 x 256 of 8 x 16 each 10.7 / 43.4 / 43.9 / 26.7; 64 x 128 of 8 x 8
 * each 30.9 / 39.8 / 40.7 / 33.8; 128 x 128 of 8 x 16 each (128 invocations) 11.5 / 41.9 / 41.5
 * / 23.7; 64 x 64 of 8 x 8 each 29.9 / 34.4 / 35.7 / 29.9. (128 x 128 of 8 x 8 each, the large
 * tile before: 17.8 / 39.8 / 40.4 / 26.8.)
 */
export const VEC4_LARGE_TILE: MatmulTile = { wx: 16, wy: 16, tm: 8, tn: 16, bk: 16, program: 'vec4' };
export const VEC4_WIDE_TILE: MatmulTile = { wx: 16, wy: 8, tm: 8, tn: 8, bk: 16, program: 'vec4' };
export const VEC4_MEDIUM_TILE: MatmulTile = { wx: 8, wy: 8, tm: 8, tn: 8, bk: 16, program: 'vec4' };
export const VEC4_TILES: readonly MatmulTile[] = [
  VEC4_LARGE_TILE,
  VEC4_WIDE_TILE,
  VEC4_MEDIUM_TILE,
  { wx: 8, wy: 16, tm: 8, tn: 16, bk: 16, program: 'vec4' },
  // K split in two or four: for outputs of few tiles over a long K (1024 x 1024 gives 128 tiles of 64 x 128).
  { ...VEC4_WIDE_TILE, splitK: 2 },
  { ...VEC4_WIDE_TILE, splitK: 4 },
  { ...VEC4_MEDIUM_TILE, splitK: 2 },
];
/** The vec4 tiles the heuristic takes, largest first, each when it gives this many workgroups (64 x 64 never beat 64 x 128 where that had 128). */
const VEC4_CHOICES: ReadonlyArray<readonly [MatmulTile, number]> = [
  [VEC4_LARGE_TILE, 128],
  [VEC4_WIDE_TILE, 128],
];

/** The built-in tile (before or without tuning); `vec4`: A and B come in rows of whole vec4s. */
export function chooseTile(M: number, N: number, batches: number, vec4 = false): MatmulTile {
  if (vec4) {
    for (const [tile, min] of VEC4_CHOICES) {
      const { bm, bn } = tileSize(tile);
      if (Math.ceil(M / bm) * Math.ceil(N / bn) * batches >= min) return tile;
    }
  }
  const large = Math.ceil(M / 128) * Math.ceil(N / 64) * batches;
  if (large >= LARGE_TILE_MIN_WORKGROUPS) return LARGE_TILE;
  const medium = Math.ceil(M / 64) * Math.ceil(N / 64) * batches;
  return medium >= DEFAULT_TILE_MIN_WORKGROUPS ? DEFAULT_TILE : SMALL_TILE;
}


/** A fixed tile (the `matmulTile` option) the device cannot run: named here, not as a GPU validation error of its batch. */
function checkTileFits(ctx: GpuContext, tile: MatmulTile): void {
  const limits = ctx.device.limits;
  const invocations = tile.wx * tile.wy;
  if (invocations <= limits.maxComputeInvocationsPerWorkgroup && tile.wx <= limits.maxComputeWorkgroupSizeX && tile.wy <= limits.maxComputeWorkgroupSizeY) return;
  throw new ArgumentError(
    `matmulTile ${tile.wx}x${tile.wy} makes workgroups of ${invocations} invocations; this device runs at most ${limits.maxComputeInvocationsPerWorkgroup} (and ${limits.maxComputeWorkgroupSizeX} x ${limits.maxComputeWorkgroupSizeY})`,
    { op: 'matmul', devices: [ctx.deviceKey], hint: 'pick a tile with wx * wy within the limit, or leave matmulTile out to let the autotuner choose' },
  );
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
  if (config.kind === 'tiled' && config.tile) checkTileFits(ctx, config.tile);
  const { vecA, vecB } = vectorLoads(problem, 4);
  const vec4 = (tile: MatmulTile): boolean => config.kind === 'tiled' && tile.program === 'vec4' && vecA && vecB && vec4TileFits(tile);
  const limit = ctx.maxWorkgroupsPerDim;
  // Split-K where the vec4 program runs, the splits of a batch fit the z dimension and the
  // partial products fit one buffer binding.
  const maxBinding = ctx.device.limits.maxStorageBufferBindingSize;
  const splitsOf = (tile: MatmulTile): number => {
    const s = tile.splitK ?? 1;
    return s > 1 && vec4(tile) && s <= limit && batches * s * M * N * 4 <= maxBinding ? s : 1;
  };
  const programFor = (tile: MatmulTile): Program => {
    const { bm, bn } = tileSize(tile);
    const aligned = M % bm === 0 && N % bn === 0 && K % tile.bk === 0;
    if (vec4(tile)) return vec4MatmulProgram({ tile: splitsOf(tile) > 1 ? tile : { ...tile, splitK: 1 }, batchRank: batchShape.length, aligned });
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
  const heuristic = chooseTile(M, N, batches, vecA && vecB);
  const tile =
    config.tile ??
    (config.kind === 'naive'
      ? heuristic
      : ctx.tuner.choose(
          matmulBucket('matmul', M, N, K, batches, [vecA, vecB, sam === 1, sbk === 1]),
          // Other layouts run the scalar program, which has no split-K.
          vecA && vecB ? F32_TILES : F32_TILES.filter((t) => (t.splitK ?? 1) === 1),
          tileKey,
          heuristic,
          async (t) => {
            const [gx, gy] = groupsFor(t);
            if (gx > limit || gy > limit) return undefined;
            const splits = splitsOf(t);
            if (splits === 1) return timeOnScratch(ctx, programFor(t), bufferSizes(a, b, out), paramsFor(0), [gx, gy, Math.min(limit, batches)]);
            // Both passes of one chunk of batches, on scratch buffers of the sizes they take.
            const count = Math.min(Math.floor(limit / splits), batches);
            const partial = count * splits * M * N * 4;
            const products = await timeOnScratch(ctx, programFor(t), [...bufferSizes(a, b), partial], paramsFor(0), [gx, gy, count * splits]);
            const sum = splitKSum(count, M, N, limit);
            const sumMs = await timeOnScratch(ctx, splitKSumProgram(splits), [partial, count * M * N * 4], sum.params, sum.groups);
            return products === undefined || sumMs === undefined ? undefined : products + sumMs;
          },
          (t) => ctx.compileForTrial(programFor(t)),
        ));
  const program = programFor(tile);
  const [gx, gy] = groupsFor(tile);
  if (gx > limit || gy > limit) throw new KernelError(`a ${M} x ${N} output needs more than ${limit} workgroups per dimension`, { op: 'matmul', shapes: [a.shape, b.shape] });
  const splits = splitsOf(tile);
  if (splits === 1) {
    for (let base = 0; base < batches; base += limit) {
      ctx.dispatch(program, [a.buffer.gpu, b.buffer.gpu, out.buffer.gpu], paramsFor(base), [gx, gy, Math.min(limit, batches - base)]);
    }
    return;
  }
  // Partial products [batches, splits, M, N], then their sum into the output.
  const partial = ctx.alloc(batches * splits * M * N * 4);
  const per = Math.floor(limit / splits);
  for (let base = 0; base < batches; base += per) {
    ctx.dispatch(program, [a.buffer.gpu, b.buffer.gpu, partial.gpu], paramsFor(base), [gx, gy, Math.min(per, batches - base) * splits]);
  }
  const sum = splitKSum(batches, M, N, limit);
  ctx.dispatch(splitKSumProgram(splits), [partial.gpu, out.buffer.gpu], sum.params, sum.groups);
  ctx.unref(partial);
}

/** The second pass's parameter words and workgroups over `batches` M x N outputs (one vec4 per invocation). */
function splitKSum(batches: number, M: number, N: number, limit: number): { params: Params; groups: [number, number, number] } {
  const vecs = (batches * M * N) / 4;
  const params = new Params();
  params.us([vecs, (M * N) / 4]);
  return { params, groups: grid(Math.ceil(vecs / SPLIT_SUM_WORKGROUP), limit) };
}

/** The f32 tiles the autotuner chooses among (the heuristic picks among the first three and the vec4 program's first three). */
export const F32_TILES: readonly MatmulTile[] = [DEFAULT_TILE, LARGE_TILE, SMALL_TILE, { wx: 16, wy: 8, tm: 4, tn: 4, bk: 16 }, { wx: 16, wy: 16, tm: 4, tn: 8, bk: 16 }, { wx: 16, wy: 16, tm: 8, tn: 8, bk: 8 }, ...VEC4_TILES];

export function tileKey(t: MatmulTile): string {
  return `${t.wx}x${t.wy}/${t.tm}x${t.tn}/${t.bk}${t.program ? `/${t.program}` : ''}${(t.splitK ?? 1) > 1 ? `/split${t.splitK}` : ''}`;
}

export function matmulKernel(config: MatmulConfig): GpuKernel<'matmul'> {
  return {
    run(ctx, record: OpRecord<'matmul'>, inputs) {
      const meta = record.outputs[0]!;
      const out = freshStorage(ctx, meta.shape, meta.dtype);
      encodeMatmul(ctx, config, inputs[0]!, inputs[1]!, out);
      const k = inputs[0]!.shape[inputs[0]!.shape.length - 1] ?? 0;
      if (2 * numel(meta.shape) * k >= HEAVY_FLOPS) ctx.heavy();
      return [out];
    },
    // On tensor cores, float16 operands are read and written as f16 (accumulated in f32).
    float16: (ctx, record) => config.kind === 'tiled' && record.inputs.every((m) => m.dtype === 'float16') && tensorCoreMode('float16', config.precision, ctx.features.tensorCores) !== null,
  };
}
