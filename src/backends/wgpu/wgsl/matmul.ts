/**
 * Batched matmul, tiled with register blocking: a workgroup of WX x WY threads computes a
 * BM x BN tile (BM = WY * TM, BN = WX * TN), each thread a TM x TN block held in registers,
 * from BK-deep tiles of A and B staged in workgroup memory. Loads are vec4 where the layout
 * allows (k-contiguous A, n-contiguous B, multiples of 4); 'aligned' drops the bounds checks
 * when M, N, K are multiples of the tile. Any other layout (transposed views, odd shapes) runs
 * the same program with scalar, strided, bounds-checked loads.
 * Parameter words: [M, N, K, sam, sak, sbk, sbn, aOffset, bOffset, batchBase,
 * batchShape (BR), aBatchStrides (BR), bBatchStrides (BR)].
 */
import { header, type Program } from './common.js';

/** Which matmul program runs: the register-blocked one, or the 16 x 16 baseline (for benchmarks). */
export type MatmulKind = 'tiled' | 'naive';

export interface MatmulTile {
  readonly wx: number;
  readonly wy: number;
  readonly tm: number;
  readonly tn: number;
  readonly bk: number;
  /** 'vec4': workgroup memory read as vec4s (matmul-vec4.ts), where A and B rows are whole vec4s; other layouts run the scalar program on the same tile. */
  readonly program?: 'vec4';
  /**
   * K split over this many workgroups per output tile (vec4 program only): each writes a partial
   * product, a second pass sums them. For outputs with too few tiles to fill the GPU.
   */
  readonly splitK?: number;
}

export const DEFAULT_TILE: MatmulTile = { wx: 16, wy: 16, tm: 4, tn: 4, bk: 16 };

export interface MatmulSpec {
  readonly tile: MatmulTile;
  readonly batchRank: number;
  /** A is k-contiguous and 4-aligned: vec4 loads along k. */
  readonly vecA: boolean;
  /** B is n-contiguous and 4-aligned: vec4 loads along n. */
  readonly vecB: boolean;
  /** A's unit stride is along m (a transposed view): scalar loads walk m first. */
  readonly aMajorM: boolean;
  /** B's unit stride is along k: scalar loads walk k first. */
  readonly bMajorK: boolean;
  /** M, N, K are multiples of BM, BN, BK: no bounds checks. */
  readonly aligned: boolean;
}

export function tileSize(t: MatmulTile): { bm: number; bn: number } {
  return { bm: t.wy * t.tm, bn: t.wx * t.tn };
}

/** WGSL lines that set `ao` and `bo`, the batch offsets of A and B for the batch `batch` (past the base word 9). */
export function batchOffsets(rank: number, first: number, batch = 'wid.z'): string {
  const lines = ['  var ao = pu(7u);', '  var bo = pu(8u);', `  var rem = pu(9u) + ${batch};`];
  for (let d = rank - 1; d >= 0; d--) {
    if (d === 0) lines.push(`  ao = ao + rem * pu(${first + rank + d}u); bo = bo + rem * pu(${first + 2 * rank + d}u);`);
    else lines.push(`  { let s = pu(${first + d}u); let q = rem % s; rem = rem / s; ao = ao + q * pu(${first + rank + d}u); bo = bo + q * pu(${first + 2 * rank + d}u); }`);
  }
  return lines.join('\n');
}

export function matmulProgram(spec: MatmulSpec): Program {
  const { wx, wy, tm, tn, bk } = spec.tile;
  const { bm, bn } = tileSize(spec.tile);
  const key = `matmul|${wx}x${wy}|${tm}x${tn}|${bk}|${spec.batchRank}|${spec.vecA}|${spec.vecB}|${spec.aMajorM}|${spec.bMajorK}|${spec.aligned}`;
  return {
    key,
    bindings: ['read', 'read', 'write'],
    source: () => {
      const threads = wx * wy;
      const check = !spec.aligned;
      const loadA: string[] = [];
      if (spec.vecA) {
        const per = bk / 4;
        const count = (bm * per) / threads;
        for (let q = 0; q < Math.ceil(count); q++) {
          loadA.push(`    { let e = lid + ${q * threads}u;${count < 1 || !Number.isInteger(count) ? ` if (e < ${bm * per}u) {` : ' {'}
      let m = e / ${per}u; let kv = e % ${per}u;
      let gm = m0 + m; let gk = k0 + kv * 4u;
      var v = vec4<f32>(0.0);
      ${check ? 'if (gm < M && gk < K) { ' : ''}v = A[(ao + gm * sam + gk) / 4u];${check ? ' }' : ''}
      As[(kv * 4u) * ${bm}u + m] = v.x; As[(kv * 4u + 1u) * ${bm}u + m] = v.y; As[(kv * 4u + 2u) * ${bm}u + m] = v.z; As[(kv * 4u + 3u) * ${bm}u + m] = v.w;
    } }`);
        }
      } else {
        const count = (bm * bk) / threads;
        for (let q = 0; q < Math.ceil(count); q++) {
          const decomp = spec.aMajorM ? `let k = e / ${bm}u; let m = e % ${bm}u;` : `let m = e / ${bk}u; let k = e % ${bk}u;`;
          loadA.push(`    { let e = lid + ${q * threads}u; if (e < ${bm * bk}u) {
      ${decomp}
      let gm = m0 + m; let gk = k0 + k;
      var v = 0.0;
      ${check ? 'if (gm < M && gk < K) { ' : ''}v = A[ao + gm * sam + gk * sak];${check ? ' }' : ''}
      As[k * ${bm}u + m] = v;
    } }`);
        }
      }
      const loadB: string[] = [];
      if (spec.vecB) {
        const per = bn / 4;
        const count = (bk * per) / threads;
        for (let q = 0; q < Math.ceil(count); q++) {
          loadB.push(`    { let e = lid + ${q * threads}u; if (e < ${bk * per}u) {
      let k = e / ${per}u; let nv = e % ${per}u;
      let gk = k0 + k; let gn = n0 + nv * 4u;
      var v = vec4<f32>(0.0);
      ${check ? 'if (gk < K && gn < N) { ' : ''}v = B[(bo + gk * sbk + gn) / 4u];${check ? ' }' : ''}
      Bs[k * ${bn}u + nv * 4u] = v.x; Bs[k * ${bn}u + nv * 4u + 1u] = v.y; Bs[k * ${bn}u + nv * 4u + 2u] = v.z; Bs[k * ${bn}u + nv * 4u + 3u] = v.w;
    } }`);
        }
      } else {
        const count = (bn * bk) / threads;
        for (let q = 0; q < Math.ceil(count); q++) {
          const decomp = spec.bMajorK ? `let n = e / ${bk}u; let k = e % ${bk}u;` : `let k = e / ${bn}u; let n = e % ${bn}u;`;
          loadB.push(`    { let e = lid + ${q * threads}u; if (e < ${bn * bk}u) {
      ${decomp}
      let gk = k0 + k; let gn = n0 + n;
      var v = 0.0;
      ${check ? 'if (gk < K && gn < N) { ' : ''}v = B[bo + gk * sbk + gn * sbn];${check ? ' }' : ''}
      Bs[k * ${bn}u + n] = v;
    } }`);
        }
      }
      // Registers. With tn % 4 == 0 (every tile we ship), unrolled vec4 accumulators: invocation
      // (tx, ty) owns rows ty * tm + i and the column quads tx + wx * j, so neighbouring
      // invocations read neighbouring quads of Bs (no bank conflicts) and no accumulator is
      // indexed dynamically (which can spill to local memory). Measured on an H200: ~1.3x the
      // looped form. Other tiles keep the looped form.
      const unrolled = tn % 4 === 0;
      const tq = tn / 4;
      const compute: string[] = [];
      const store: string[] = [];
      let accDecl: string;
      if (unrolled) {
        accDecl = Array.from({ length: tm * tq }, (_, i) => `  var acc${i} = vec4<f32>(0.0);`).join('\n');
        for (let i = 0; i < tm; i++) compute.push(`      let a${i} = As[k * ${bm}u + ty * ${tm}u + ${i}u];`);
        for (let j = 0; j < tq; j++) compute.push(`      let bq${j} = (tx + ${j * wx}u) * 4u; let b${j} = vec4<f32>(Bs[k * ${bn}u + bq${j}], Bs[k * ${bn}u + bq${j} + 1u], Bs[k * ${bn}u + bq${j} + 2u], Bs[k * ${bn}u + bq${j} + 3u]);`);
        for (let i = 0; i < tm; i++) compute.push('      ' + Array.from({ length: tq }, (_, j) => `acc${i * tq + j} = fma(vec4<f32>(a${i}), b${j}, acc${i * tq + j});`).join(' '));
        for (let i = 0; i < tm; i++) {
          for (let j = 0; j < tq; j++) {
            store.push(`  { let gm = m0 + ty * ${tm}u + ${i}u; let gn = n0 + (tx + ${j * wx}u) * 4u; let v = acc${i * tq + j};
    ${check ? 'if (gm < M) {' : '{'} let o = co + gm * N + gn;
      ${check ? 'if (gn < N) { C[o] = v.x; } if (gn + 1u < N) { C[o + 1u] = v.y; } if (gn + 2u < N) { C[o + 2u] = v.z; } if (gn + 3u < N) { C[o + 3u] = v.w; }' : 'C[o] = v.x; C[o + 1u] = v.y; C[o + 2u] = v.z; C[o + 3u] = v.w;'}
    } }`);
          }
        }
      } else {
        accDecl = `  var acc: array<f32, ${tm * tn}>;
  for (var i = 0u; i < ${tm * tn}u; i = i + 1u) { acc[i] = 0.0; }
  var a: array<f32, ${tm}>;
  var b: array<f32, ${tn}>;`;
        compute.push(`      for (var i = 0u; i < ${tm}u; i = i + 1u) { a[i] = As[k * ${bm}u + ty * ${tm}u + i]; }`);
        compute.push(`      for (var j = 0u; j < ${tn}u; j = j + 1u) { b[j] = Bs[k * ${bn}u + tx * ${tn}u + j]; }`);
        compute.push(`      for (var i = 0u; i < ${tm}u; i = i + 1u) { for (var j = 0u; j < ${tn}u; j = j + 1u) { acc[i * ${tn}u + j] = fma(a[i], b[j], acc[i * ${tn}u + j]); } }`);
        store.push(`  for (var i = 0u; i < ${tm}u; i = i + 1u) {
    let gm = m0 + ty * ${tm}u + i;
    ${check ? 'if (gm >= M) { continue; }' : ''}
    for (var j = 0u; j < ${tn}u; j = j + 1u) {
      let gn = n0 + tx * ${tn}u + j;
      ${check ? 'if (gn < N) { ' : ''}C[co + gm * N + gn] = acc[i * ${tn}u + j];${check ? ' }' : ''}
    }
  }`);
      }
      const aType = spec.vecA ? 'vec4<f32>' : 'f32';
      const bType = spec.vecB ? 'vec4<f32>' : 'f32';
      return `${header([
        { name: 'A', type: aType, kind: 'read' },
        { name: 'B', type: bType, kind: 'read' },
        { name: 'C', type: 'f32', kind: 'write' },
      ])}
var<workgroup> As: array<f32, ${bm * bk}>;
var<workgroup> Bs: array<f32, ${bn * bk}>;
@compute @workgroup_size(${wx}, ${wy})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lidv: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let M = pu(0u); let N = pu(1u); let K = pu(2u);
  let sam = pu(3u); let sak = pu(4u); let sbk = pu(5u); let sbn = pu(6u);
  let tx = lidv.x; let ty = lidv.y;
  let m0 = wid.y * ${bm}u; let n0 = wid.x * ${bn}u;
${batchOffsets(spec.batchRank, 10)}
  let co = (pu(9u) + wid.z) * M * N;
${accDecl}
  for (var k0 = 0u; k0 < K; k0 = k0 + ${bk}u) {
${loadA.join('\n')}
${loadB.join('\n')}
    workgroupBarrier();
    for (var k = 0u; k < ${bk}u; k = k + 1u) {
${compute.join('\n')}
    }
    workgroupBarrier();
  }
${store.join('\n')}
}
`;
    },
  };
}
