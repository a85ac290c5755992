/**
 * When and how a matmul runs on the tensor cores (subgroup matrices): the precision modes, the
 * tile for a problem size, and the dispatch. The program itself is in ../wgsl/matmul-tc.ts.
 */
import { KernelError } from '../../../errors.js';
import type { GpuContext } from '../context.js';
import { sizeBucket } from '../autotune.js';
import type { Params, Program } from '../wgsl/common.js';
import { tcMatmulProgram, tcVectorWidth, type TcElement, type TcTile } from '../wgsl/matmul-tc.js';
import type { RawStorage } from './kernel.js';
import { matmulParams, matmulProblem, vectorLoads } from './matmul-problem.js';

import type { MatmulPrecision } from '../precision.js';

export type { MatmulPrecision };

/**
 * Candidate tiles per input type, the heuristic's preference first (it takes the first that
 * gives enough workgroups to fill the GPU; the autotuner times them all). Round-robin on an
 * H200 at 4096, f16 in, f32 out (`bench/results/h200-tc-ceilings-2026-12-04*.txt`): with every
 * fragment of a BK step loaded
 * before its products (preload), 128 x 128 x 32 over 2 x 2 subgroups runs at 244 TFLOP/s,
 * 128 x 256 over 2 x 4 at 234, 256 x 128 over 4 x 2 at 225; the same tiles without preload at
 * 108-153. At 1024 (`h200-tc-small-tiles-2026-12-04.txt`) 64 x 64 x 64 and 64 x 128 x 32 over
 * 2 x 2 with preload ran at 115-116, the 64 x 64 x 32 tile without it at 80. Two-stage tiles
 * (tile.stages = 2) are not listed: they ran at 35-97.
 */
export const TC_TILES: Readonly<Record<TcElement, readonly TcTile[]>> = {
  f16: [
    { bm: 128, bn: 128, bk: 32, wr: 2, wc: 2, preload: true },
    { bm: 128, bn: 256, bk: 32, wr: 2, wc: 4, preload: true },
    { bm: 256, bn: 128, bk: 32, wr: 4, wc: 2, preload: true },
    { bm: 128, bn: 128, bk: 64, wr: 2, wc: 2, preload: true },
    { bm: 64, bn: 128, bk: 32, wr: 2, wc: 2, preload: true },
    { bm: 64, bn: 64, bk: 64, wr: 2, wc: 2, preload: true },
    { bm: 128, bn: 256, bk: 32, wr: 2, wc: 4 },
    { bm: 64, bn: 64, bk: 32, wr: 2, wc: 2 },
  ],
  f32: [
    { bm: 256, bn: 128, bk: 32, wr: 4, wc: 2, preload: true },
    { bm: 128, bn: 128, bk: 32, wr: 2, wc: 2, preload: true },
    { bm: 256, bn: 128, bk: 32, wr: 4, wc: 2 },
    { bm: 128, bn: 128, bk: 32, wr: 4, wc: 2 },
    { bm: 64, bn: 128, bk: 32, wr: 2, wc: 2 },
    { bm: 64, bn: 64, bk: 32, wr: 2, wc: 2 },
  ],
};
/** A tile is taken only when it gives at least this many workgroups (about two per multiprocessor on big GPUs). */
const MIN_WORKGROUPS = 256;

/** Workgroup memory a tile needs: staged A and B (twice with split terms) and the store scratch. */
export function tcSharedBytes(t: TcTile, terms: 1 | 3): number {
  const staged = (t.bm * (t.bk + 8) + t.bk * (t.bn + 8)) * (t.stages ?? 1);
  return staged * 2 * (terms === 3 ? 2 : 1) + t.wr * t.wc * 256 * 4;
}

/** The tile for an M x N output over `batches`, within the device's workgroup memory. */
export function chooseTcTile(M: number, N: number, batches: number, terms: 1 | 3, maxShared: number, tiles: readonly TcTile[]): TcTile {
  // The heuristic keeps to single-stage tiles (the autotuner also tries the two-stage ones).
  const fitting = tiles.filter((t) => (t.stages ?? 1) === 1 && tcSharedBytes(t, terms) <= maxShared);
  const last = fitting[fitting.length - 1];
  if (!last) throw new KernelError(`no tensor-core tile fits in ${maxShared} bytes of workgroup memory`, { op: 'matmul' });
  return fitting.find((t) => Math.ceil(M / t.bm) * Math.ceil(N / t.bn) * batches >= MIN_WORKGROUPS) ?? last;
}

/** What the tensor cores compute for a matmul of these dtypes under `precision`, or null for the f32 kernel. */
export function tensorCoreMode(dtype: string, precision: MatmulPrecision, tensorCores: boolean): { input: TcElement; output: TcElement; terms: 1 | 3 } | null {
  if (!tensorCores) return null;
  if (dtype === 'float16') return { input: 'f16', output: 'f16', terms: 1 };
  if (dtype === 'float32' && precision !== 'highest') return { input: 'f32', output: 'f32', terms: precision === 'high' ? 3 : 1 };
  return null;
}

/** The autotuner's bucket of a matmul: family, layout flags, power-of-two sizes. */
export function matmulBucket(family: string, M: number, N: number, K: number, batches: number, flags: readonly boolean[]): string {
  return `${family}|${flags.map((f) => (f ? 1 : 0)).join('')}|${sizeBucket(M)}x${sizeBucket(N)}x${sizeBucket(K)}|b${sizeBucket(batches)}`;
}

/** Scratch buffers past this size are not allocated for a trial: the heuristic stays. */
const TRIAL_BYTES = 1 << 30;

/** Times a matmul program on scratch buffers of `sizes` bytes (undefined: not measured). */
export function timeOnScratch(ctx: GpuContext, program: Program, sizes: readonly number[], params: Params, groups: readonly [number, number, number]): Promise<number | undefined> {
  if (sizes.reduce((x, y) => x + y, 0) > TRIAL_BYTES) return Promise.resolve(undefined);
  return ctx.timeProgram(program, sizes, params, groups);
}

export function bufferSizes(...storages: readonly RawStorage[]): number[] {
  return storages.map((s) => s.buffer.gpu.size);
}

export function tcTileKey(t: TcTile): string {
  return `${t.bm}x${t.bn}x${t.bk}/${t.wr}x${t.wc}${t.stages === 2 ? '/2-stage' : ''}${t.preload === true ? '/preload' : ''}`;
}


export function encodeTcMatmul(
  ctx: GpuContext,
  mode: { input: TcElement; output: TcElement; terms: 1 | 3 },
  a: RawStorage,
  b: RawStorage,
  out: RawStorage,
  tile?: TcTile,
): void {
  const problem = matmulProblem(a, b, out);
  const { M, N, K, batchShape, batches, sam, sak, sbk, sbn } = problem;
  if (M * N * batches === 0) return;
  const maxShared = ctx.device.limits.maxComputeWorkgroupStorageSize;
  const tiles = TC_TILES[mode.input].filter((x) => tcSharedBytes(x, mode.terms) <= maxShared);
  const { vecA, vecB } = vectorLoads(problem, tcVectorWidth(mode.input));
  const aMajorM = !vecA && sam === 1 && sak !== 1;
  const bMajorK = !vecB && sbk === 1 && sbn !== 1;
  const programFor = (t: TcTile): Program =>
    tcMatmulProgram({
      tile: t,
      batchRank: batchShape.length,
      input: mode.input,
      output: mode.output,
      terms: mode.terms,
      vecA,
      vecB,
      aMajorM,
      bMajorK,
      directStore: mode.output === 'f32' && N % 4 === 0,
      aligned: M % t.bm === 0 && N % t.bn === 0 && K % t.bk === 0,
    });
  const paramsFor = (base: number): Params => matmulParams(problem, base);
  const limit = ctx.maxWorkgroupsPerDim;
  const groupsFor = (t: TcTile): [number, number] => [Math.ceil(N / t.bn), Math.ceil(M / t.bm)];
  const heuristic = chooseTcTile(M, N, batches, mode.terms, maxShared, TC_TILES[mode.input]);
  const t =
    tile ??
    ctx.tuner.choose(matmulBucket(`matmul-tc|${mode.input}>${mode.output}|${mode.terms}`, M, N, K, batches, [vecA, vecB, aMajorM, bMajorK]), tiles, tcTileKey, heuristic, (c) => {
      const [gx, gy] = groupsFor(c);
      if (gx > limit || gy > limit) return Promise.resolve(undefined);
      return timeOnScratch(ctx, programFor(c), bufferSizes(a, b, out), paramsFor(0), [gx, gy, Math.min(limit, batches)]);
    }, (c) => ctx.compileForTrial(programFor(c)));
  const program = programFor(t);
  const [gx, gy] = groupsFor(t);
  if (gx > limit || gy > limit) throw new KernelError(`a ${M} x ${N} output needs more than ${limit} workgroups per dimension`, { op: 'matmul', shapes: [a.shape, b.shape] });
  for (let base = 0; base < batches; base += limit) {
    ctx.dispatch(program, [a.buffer.gpu, b.buffer.gpu, out.buffer.gpu], paramsFor(base), [gx, gy, Math.min(limit, batches - base)]);
  }
}
