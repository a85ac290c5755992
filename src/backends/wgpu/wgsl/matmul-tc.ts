/**
 * Batched matmul on the GPU's matrix units (tensor cores) through WGSL subgroup matrices
 * (`chromium_experimental_subgroup_matrix`): f16 x f16 products accumulated in f32, 16 x 16 x 16
 * per subgroup instruction.
 *
 * A workgroup of WR x WC subgroups (32 invocations each) computes a BM x BN tile of C; each
 * subgroup owns a (BM / WR) x (BN / WC) block of 16 x 16 accumulators. BK-deep tiles of A and B
 * are staged in workgroup memory as f16 (f32 inputs are rounded there: 'medium' precision, or
 * split into a high and a low f16 part, three products per step: 'high'); the next tile is read
 * from global memory into registers while the current one is multiplied.
 *
 * Any shape and layout: loads are 16-byte vectors where the layout allows (k-contiguous A,
 * n-contiguous B, aligned) and bounds-checked scalars otherwise; a tile that crosses the edge
 * of C, an f16 C or a row length that is not 16-byte aligned go out through a per-subgroup
 * scratch tile. Same parameter words as the tiled f32 program ([M, N, K, sam, sak, sbk, sbn,
 * aOffset, bOffset, batchBase, batchShape, aBatchStrides, bBatchStrides]).
 */
import { header, type Program } from './common.js';
import { batchOffsets } from './matmul.js';

/** Element type of A and B (C is f32 or f16). */
export type TcElement = 'f32' | 'f16';

export interface TcTile {
  readonly bm: number;
  readonly bn: number;
  readonly bk: number;
  /** Subgroups per workgroup along m and n. */
  readonly wr: number;
  readonly wc: number;
  /**
   * Workgroup-memory stages: 1 stages a tile, multiplies it, then stages the next (two barriers
   * per step); 2 multiplies one stage while the next tile goes into the other (one barrier).
   */
  readonly stages?: 1 | 2;
  /**
   * Issue every fragment load of a BK step before its first product (the step unrolled) instead
   * of loading and multiplying 16 deep at a time. More fragments live in registers; on the H200
   * the products then wait far less on workgroup-memory loads (128 x 256 x 32 over 2 x 4: 234
   * TFLOP/s at 4096 against 153 without).
   */
  readonly preload?: boolean;
}

export interface TcSpec {
  readonly tile: TcTile;
  readonly batchRank: number;
  readonly input: TcElement;
  readonly output: TcElement;
  /** 1: inputs rounded to f16; 3: hi*hi + hi*lo + lo*hi (f32 inputs only). */
  readonly terms: 1 | 3;
  readonly vecA: boolean;
  readonly vecB: boolean;
  /** A's unit stride is along m; B's along k (scalar loads walk that axis first). */
  readonly aMajorM: boolean;
  readonly bMajorK: boolean;
  /** Full tiles may be stored straight into C (f32 C with 16-byte aligned rows). */
  readonly directStore: boolean;
  /** M, N, K are multiples of the tile: no bounds checks on loads. */
  readonly aligned: boolean;
}

/** The subgroup width the kernels are written for (NVIDIA's warp). */
export const TC_SUBGROUP = 32;
const UNIT = 16;

/** Elements one 16-byte vector load brings. */
export function tcVectorWidth(input: TcElement): number {
  return input === 'f16' ? 8 : 4;
}

export function tcTileValid(t: TcTile): boolean {
  return t.bm % (t.wr * UNIT) === 0 && t.bn % (t.wc * UNIT) === 0 && t.bk % UNIT === 0;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

interface Staged {
  /** Tile rows and columns; the column is the workgroup-memory row's contiguous axis. */
  readonly rows: number;
  readonly cols: number;
  /** Workgroup arrays (one, or hi and lo) and their row pitch. */
  readonly arrays: readonly string[];
  readonly pitch: number;
  /** Elements of one stage of each array (the write offset of stage `stage` is stage * size). */
  readonly stageSize: number;
  readonly vec: boolean;
  /** Scalar loads walk rows first (the source's unit stride is along rows). */
  readonly rowsFirst: boolean;
  /** WGSL of the global element index and of the bounds test, from tile row `r`, column `c`, k base `kb`. */
  readonly index: (r: string, c: string, kb: string) => string;
  readonly inBounds: (r: string, c: string, kb: string) => string;
  readonly source: string;
}

function stagedLoads(s: Staged, spec: TcSpec, threads: number, prefix: string): { decl: string; fetch: (kb: string) => string; store: (stage: string) => string } {
  const w = s.vec ? tcVectorWidth(spec.input) : 1;
  const groups = (s.rows * s.cols) / w;
  const per = Math.ceil(groups / threads);
  const partial = groups % threads !== 0;
  const regType = !s.vec ? spec.input : spec.input === 'f16' ? 'vec4<u32>' : 'vec4<f32>';
  const zero = !s.vec ? `${spec.input}(0.0)` : `${regType}()`;
  const colsV = s.cols / w;
  const coords = (q: number): string => {
    const e = `(lid + ${q * threads}u)`;
    if (s.vec || !s.rowsFirst) return `let r = ${e} / ${colsV}u; let c = (${e} % ${colsV}u) * ${w}u;`;
    return `let c = ${e} / ${s.rows}u; let r = ${e} % ${s.rows}u;`;
  };
  const check = !spec.aligned;
  const decl = range(per).map((q) => `var ${prefix}${q}: ${regType};`).join(' ');
  const fetch = (kb: string): string =>
    range(per)
      .map((q) => {
        const guard = partial ? `if (lid + ${q * threads}u < ${groups}u) ` : '';
        const load = s.vec ? `${s.source}[(${s.index('r', 'c', kb)}) / ${w}u]` : `${s.source}[${s.index('r', 'c', kb)}]`;
        const body = check ? `${prefix}${q} = ${zero}; if (${s.inBounds('r', 'c', kb)}) { ${prefix}${q} = ${load}; }` : `${prefix}${q} = ${load};`;
        return `    ${guard}{ ${coords(q)} ${body} }`;
      })
      .join('\n');
  const elements = (v: string): string[] => {
    if (!s.vec) return [v];
    if (spec.input === 'f32') return range(4).map((i) => `${v}[${i}]`);
    return range(4).flatMap((i) => [`bitcast<vec2<f16>>(${v}[${i}u]).x`, `bitcast<vec2<f16>>(${v}[${i}u]).y`]);
  };
  const store = (stage: string): string => range(per)
    .map((q) => {
      const guard = partial ? `if (lid + ${q * threads}u < ${groups}u) ` : '';
      const writes = elements(`${prefix}${q}`)
        .map((x, i) => {
          const at = `${stage === '0u' ? '' : `${stage} * ${s.stageSize}u + `}r * ${s.pitch}u + c + ${i}u`;
          if (spec.input === 'f16') return `${s.arrays[0]}[${at}] = ${x};`;
          if (spec.terms === 1) return `${s.arrays[0]}[${at}] = f16(${x});`;
          // The high part keeps the top 11 significant bits by masking (exact in f16 for normal
          // values); computing it as f32(f16(x)) is folded to x by some drivers, losing the low part.
          return `{ let x = ${x}; let h = bitcast<f32>(bitcast<u32>(x) & 0xffffe000u); ${s.arrays[0]}[${at}] = f16(h); ${s.arrays[1]}[${at}] = f16(x - h); }`;
        })
        .join(' ');
      return `    ${guard}{ ${coords(q)} ${writes} }`;
    })
    .join('\n');
  return { decl, fetch, store };
}

export function tcMatmulProgram(spec: TcSpec): Program {
  const t = spec.tile;
  const key = `matmul-tc|${t.bm}x${t.bn}x${t.bk}|${t.wr}x${t.wc}|s${t.stages ?? 1}${t.preload === true ? 'p' : ''}|${spec.batchRank}|${spec.input}>${spec.output}|${spec.terms}|${spec.vecA}|${spec.vecB}|${spec.aMajorM}|${spec.bMajorK}|${spec.directStore}|${spec.aligned}`;
  return {
    key,
    bindings: ['read', 'read', 'write'],
    source: () => tcSource(spec),
  };
}

function tcSource(spec: TcSpec): string {
  const { bm, bn, bk, wr, wc } = spec.tile;
  if (!tcTileValid(spec.tile)) throw new Error(`invalid tensor-core tile ${bm}x${bn}x${bk} over ${wr}x${wc} subgroups`);
  const threads = TC_SUBGROUP * wr * wc;
  const tm = bm / wr / UNIT;
  const tn = bn / wc / UNIT;
  const pitchA = bk + 8;
  const pitchB = bn + 8;
  const split = spec.terms === 3;
  const stages = spec.tile.stages ?? 1;
  const aArrays = split ? ['sa', 'sa_lo'] : ['sa'];
  const bArrays = split ? ['sb', 'sb_lo'] : ['sb'];
  const vecType = spec.input === 'f16' ? 'vec4<u32>' : 'vec4<f32>';
  const A = stagedLoads(
    {
      rows: bm, cols: bk, arrays: aArrays, pitch: pitchA, stageSize: bm * pitchA, vec: spec.vecA, rowsFirst: spec.aMajorM,
      index: (r, c, kb) => `ao + (m0 + ${r}) * sam + (${kb} + ${c}) * sak`,
      inBounds: (r, c, kb) => `m0 + ${r} < M && ${kb} + ${c} < K`,
      source: 'A',
    },
    spec, threads, 'pa',
  );
  const B = stagedLoads(
    {
      rows: bk, cols: bn, arrays: bArrays, pitch: pitchB, stageSize: bk * pitchB, vec: spec.vecB, rowsFirst: spec.bMajorK,
      index: (r, c, kb) => `bo + (${kb} + ${r}) * sbk + (n0 + ${c}) * sbn`,
      inBounds: (r, c, kb) => `${kb} + ${r} < K && n0 + ${c} < N`,
      source: 'B',
    },
    spec, threads, 'pb',
  );
  const L = `subgroup_matrix_left<f16, ${UNIT}, ${UNIT}>`;
  const R = `subgroup_matrix_right<f16, ${UNIT}, ${UNIT}>`;
  const C = `subgroup_matrix_result<f32, ${UNIT}, ${UNIT}>`;
  const load = (T: string, arr: string, off: string, pitch: number): string => `subgroupMatrixLoad<${T}, row_major>(&${arr}, ${off}, ${pitch}u)`;
  const acc = (i: number, j: number): string => `acc${i}_${j}`;
  const pairs = split ? [[0, 0], [0, 1], [1, 0]] : [[0, 0]];
  const aOff = (i: number, kk: string): string => `${stages === 2 ? `st * ${bm * pitchA}u + ` : ''}(sr * ${tm * UNIT}u + ${i * UNIT}u) * ${pitchA}u + ${kk}`;
  const bOff = (j: number, kk: string): string => `${stages === 2 ? `st * ${bk * pitchB}u + ` : ''}${kk} * ${pitchB}u + sc * ${tn * UNIT}u + ${j * UNIT}u`;
  const products = (of: readonly number[][], l: (ai: number, i: number) => string, r: (bi: number, j: number) => string): string[] =>
    of.flatMap(([ai, bi]) => range(tm).flatMap((i) => range(tn).map((j) => `${acc(i, j)} = subgroupMatrixMultiplyAccumulate(${l(ai!, i)}, ${r(bi!, j)}, ${acc(i, j)});`)));
  let step: string;
  if (spec.tile.preload === true) {
    // One block per BK step: every fragment (each array once) first, then every product.
    const steps = range(bk / UNIT);
    const lName = (s: number) => (ai: number, i: number): string => `l${ai}_${s}_${i}`;
    const rName = (s: number) => (bi: number, j: number): string => `r${bi}_${s}_${j}`;
    step = [
      `    {`,
      ...steps.flatMap((s) => [
        ...aArrays.flatMap((an, ai) => range(tm).map((i) => `      let ${lName(s)(ai, i)} = ${load(L, an, aOff(i, `${s * UNIT}u`), pitchA)};`)),
        ...bArrays.flatMap((bnm, bi) => range(tn).map((j) => `      let ${rName(s)(bi, j)} = ${load(R, bnm, bOff(j, `${s * UNIT}u`), pitchB)};`)),
      ]),
      ...steps.flatMap((s) => products(pairs, lName(s), rName(s)).map((x) => `      ${x}`)),
      `    }`,
    ].join('\n');
  } else {
    const mma: string[] = [];
    for (const [ai, bi] of pairs) {
      mma.push(
        `      {`,
        ...range(tm).map((i) => `        let l${i} = ${load(L, aArrays[ai!]!, aOff(i, 'kk'), pitchA)};`),
        ...range(tn).map((j) => `        let r${j} = ${load(R, bArrays[bi!]!, bOff(j, 'kk'), pitchB)};`),
        ...products([[ai!, bi!]], (_, i) => `l${i}`, (_, j) => `r${j}`).map((x) => `        ${x}`),
        `      }`,
      );
    }
    step = `    for (var kk = 0u; kk < ${bk}u; kk += ${UNIT}u) {
${mma.join('\n')}
    }`;
  }
  const rowAt = (i: number): string => `m0 + sr * ${tm * UNIT}u + ${i * UNIT}u`;
  const colAt = (j: number): string => `n0 + sc * ${tn * UNIT}u + ${j * UNIT}u`;
  const viaScratch = range(tm)
    .flatMap((i) =>
      range(tn).map(
        (j) => `    subgroupMatrixStore<row_major>(&scratch, sg * ${UNIT * UNIT}u, ${acc(i, j)}, ${UNIT}u);
    workgroupBarrier();
    for (var e = lane; e < ${UNIT * UNIT}u; e += ${TC_SUBGROUP}u) {
      let gm = ${rowAt(i)} + e / ${UNIT}u; let gn = ${colAt(j)} + e % ${UNIT}u;
      if (gm < M && gn < N) { C[co + gm * N + gn] = ${spec.output === 'f16' ? 'f16' : ''}(scratch[sg * ${UNIT * UNIT}u + e]); }
    }
    workgroupBarrier();`,
      ),
    )
    .join('\n');
  const direct = range(tm)
    .flatMap((i) => range(tn).map((j) => `    subgroupMatrixStore<row_major>(&C, co + (${rowAt(i)}) * N + ${colAt(j)}, ${acc(i, j)}, N);`))
    .join('\n');
  const store = spec.directStore
    ? `  if (m0 + ${bm}u <= M && n0 + ${bn}u <= N) {
${direct}
  } else {
${viaScratch}
  }`
    : viaScratch;
  return `enable f16;
enable chromium_experimental_subgroup_matrix;
// Subgroup-matrix operands must be subgroup-uniform; offsets here derive from the subgroup
// index (local index / 32), which WGSL's analysis cannot prove uniform.
diagnostic(off, chromium.subgroup_matrix_uniformity);
${header([
  { name: 'A', type: spec.vecA ? vecType : spec.input, kind: 'read' },
  { name: 'B', type: spec.vecB ? vecType : spec.input, kind: 'read' },
  { name: 'C', type: spec.output, kind: 'write' },
])}
${aArrays.map((n) => `var<workgroup> ${n}: array<f16, ${stages * bm * pitchA}>;`).join('\n')}
${bArrays.map((n) => `var<workgroup> ${n}: array<f16, ${stages * bk * pitchB}>;`).join('\n')}
var<workgroup> scratch: array<f32, ${wr * wc * UNIT * UNIT}>;
@compute @workgroup_size(${threads})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let M = pu(0u); let N = pu(1u); let K = pu(2u);
  let sam = pu(3u); let sak = pu(4u); let sbk = pu(5u); let sbn = pu(6u);
  let sg = lid / ${TC_SUBGROUP}u; let lane = lid % ${TC_SUBGROUP}u;
  let sr = sg / ${wc}u; let sc = sg % ${wc}u;
  let m0 = wid.y * ${bm}u; let n0 = wid.x * ${bn}u;
${batchOffsets(spec.batchRank, 10)}
  let co = (pu(9u) + wid.z) * M * N;
  ${range(tm).flatMap((i) => range(tn).map((j) => `var ${acc(i, j)}: ${C};`)).join(' ')}
  ${A.decl}
  ${B.decl}
  {
    let kb = 0u;
${A.fetch('kb')}
${B.fetch('kb')}
  }
${stages === 1 ? `  for (var k0 = 0u; k0 < K; k0 += ${bk}u) {
    workgroupBarrier();
${A.store('0u')}
${B.store('0u')}
    workgroupBarrier();
    if (k0 + ${bk}u < K) {
      let kb = k0 + ${bk}u;
${A.fetch('kb')}
${B.fetch('kb')}
    }
    let st = 0u;
${step}
  }` : `${A.store('0u')}
${B.store('0u')}
  workgroupBarrier();
  var st = 0u;
  for (var k0 = 0u; k0 < K; k0 += ${bk}u) {
    let more = k0 + ${bk}u < K;
    if (more) {
      let kb = k0 + ${bk}u;
${A.fetch('kb')}
${B.fetch('kb')}
    }
${step}
    // The other stage was last read before the previous barrier: fill it now.
    if (more) {
      let nx = 1u - st;
${A.store('nx')}
${B.store('nx')}
    }
    workgroupBarrier();
    st = 1u - st;
  }`}
${store}
}
`;
}
