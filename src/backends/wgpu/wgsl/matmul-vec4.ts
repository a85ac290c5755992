/**
 * The f32 matmul for row-major A and B whose rows are whole vec4s (k- and n-contiguous, sizes
 * and offsets multiples of 4): the tiled program of matmul.ts with workgroup memory read as
 * vec4s. Every invocation reads a vec4 of A (four rows) and a vec4 of B (four columns) per k
 * and does 16 fmas on them, where the scalar program reads workgroup memory value by value.
 * On the H200 that alone gained little (35.8 against 34.4 TFLOP/s at 4096); writing the slice's
 * k steps out one by one brought 40.3. The next slice of A and B is fetched into registers while
 * the current one is computed.
 * (Two slices in workgroup memory, one barrier per slice, measured slower on the H200 twice, the
 * second time at steady clocks: 19-39 against 40-42 TFLOP/s at 2048 and 4096. Not built.)
 * With tile.splitK = S, workgroup z = batch * S + split covers a chunk of K and writes its
 * partial product to slice `split` of a [batches, S, M, N] buffer (splitKSumProgram adds them).
 *
 * Layout: As is [BK][BM / 4] vec4 (four consecutive rows at one k), Bs [BK][BN / 4] vec4.
 * Invocation (tx, ty) owns row quads ty + WY * i and column quads tx + WX * j, so the
 * invocations of a subgroup read neighbouring vec4s of Bs (no bank conflicts) and share As's.
 * Parameter words as matmul.ts.
 */
import { header, linearEntry, type Program } from './common.js';
import { batchOffsets, tileSize, type MatmulTile } from './matmul.js';

export interface Vec4MatmulSpec {
  readonly tile: MatmulTile;
  readonly batchRank: number;
  /** M, N, K are multiples of BM, BN, BK: no bounds checks. */
  readonly aligned: boolean;
}

/** Whether a tile fits this program: its blocks are whole row and column quads. */
export function vec4TileFits(t: MatmulTile): boolean {
  return t.tm % 4 === 0 && t.tn % 4 === 0 && t.bk % 4 === 0;
}

export function vec4MatmulProgram(spec: Vec4MatmulSpec): Program {
  const { wx, wy, tm, tn, bk } = spec.tile;
  const { bm, bn } = tileSize(spec.tile);
  const splits = spec.tile.splitK ?? 1;
  const key = `matmul-v4|${wx}x${wy}|${tm}x${tn}|${bk}|${spec.batchRank}|${spec.aligned}${splits > 1 ? `|split${splits}` : ''}`;
  return {
    key,
    bindings: ['read', 'read', 'write'],
    source: () => {
      const threads = wx * wy;
      const check = !spec.aligned;
      const qm = tm / 4; // row quads per invocation
      const qn = tn / 4; // column quads per invocation
      const am = bm / 4; // row quads per slice
      const an = bn / 4; // column quads per slice
      // vec4s of a slice: A has BM rows x BK/4 k-quads, B has BK rows x BN/4 n-quads.
      const aVecs = (bm * bk) / 4;
      const bVecs = (bk * bn) / 4;
      const aPer = Math.ceil(aVecs / threads);
      const bPer = Math.ceil(bVecs / threads);
      const guard = (total: number, per: number, q: number, body: string): string => (per * threads > total && (q + 1) * threads > total ? `if (lid + ${q * threads}u < ${total}u) { ${body} }` : body);
      const fetch: string[] = [];
      const stage: string[] = [];
      const regs: string[] = [];
      for (let q = 0; q < aPer; q++) {
        regs.push(`  var pa${q} = vec4<f32>(0.0);`);
        // Rows fastest: the four scalar stores of a subgroup land on consecutive words (no conflicts).
        fetch.push(
          guard(aVecs, aPer, q, `{ let f = lid + ${q * threads}u; let m = f % ${bm}u; let g = f / ${bm}u; let gm = m0 + m; let gk = k0 + g * 4u;
      ${check ? `pa${q} = vec4<f32>(0.0); if (gm < M && gk < kEnd) { ` : ''}pa${q} = A[(ao + gm * sam + gk) / 4u];${check ? ' }' : ''} }`),
        );
        stage.push(
          guard(aVecs, aPer, q, `{ let f = lid + ${q * threads}u; let m = f % ${bm}u; let g = f / ${bm}u; let s = g * ${4 * am}u + m / 4u; let c = m % 4u;
      As[s][c] = pa${q}.x; As[s + ${am}u][c] = pa${q}.y; As[s + ${2 * am}u][c] = pa${q}.z; As[s + ${3 * am}u][c] = pa${q}.w; }`),
        );
      }
      for (let q = 0; q < bPer; q++) {
        regs.push(`  var pb${q} = vec4<f32>(0.0);`);
        fetch.push(
          guard(bVecs, bPer, q, `{ let f = lid + ${q * threads}u; let k = f / ${an}u; let nq = f % ${an}u; let gk = k0 + k; let gn = n0 + nq * 4u;
      ${check ? `pb${q} = vec4<f32>(0.0); if (gk < kEnd && gn < N) { ` : ''}pb${q} = B[(bo + gk * sbk + gn) / 4u];${check ? ' }' : ''} }`),
        );
        stage.push(guard(bVecs, bPer, q, `Bs[lid + ${q * threads}u] = pb${q};`));
      }
      const acc: string[] = [];
      const store: string[] = [];
      const lanes = ['x', 'y', 'z', 'w'];
      // One k step: the row and column quads, then 16 fmas per pair. `k` is a WGSL u32 expression.
      const step = (k: string): string[] => {
        const lines: string[] = [];
        for (let i = 0; i < qm; i++) lines.push(`      let a${i} = As[${k} * ${am}u + ty + ${i * wy}u];`);
        for (let j = 0; j < qn; j++) lines.push(`      let b${j} = Bs[${k} * ${an}u + tx + ${j * wx}u];`);
        for (let i = 0; i < qm; i++) for (let r = 0; r < 4; r++) for (let j = 0; j < qn; j++) lines.push(`      c${i}_${r}_${j} = fma(vec4<f32>(a${i}.${lanes[r]}), b${j}, c${i}_${r}_${j});`);
        return lines;
      };
      for (let i = 0; i < qm; i++) {
        for (let r = 0; r < 4; r++) {
          for (let j = 0; j < qn; j++) {
            const name = `c${i}_${r}_${j}`;
            acc.push(`  var ${name} = vec4<f32>(0.0);`);
            store.push(`  { let gm = m0 + (ty + ${i * wy}u) * 4u + ${r}u; let gn = n0 + (tx + ${j * wx}u) * 4u;
    ${check ? 'if (gm < M && gn < N) { ' : ''}C[(co + gm * N + gn) / 4u] = ${name};${check ? ' }' : ''} }`);
          }
        }
      }
      // The slice's k steps written out one by one: workgroup-memory offsets are constants (on
      // the H200, 40 against 36 TFLOP/s for the same tile as a loop at 4096).
      const compute = Array.from({ length: bk }, (_, k) => ['    {', ...step(`${k}u`), '    }']).flat().join('\n');
      const fetched = fetch.join('\n    ');
      const staged = stage.join('\n    ');
      return `${header([
        { name: 'A', type: 'vec4<f32>', kind: 'read' },
        { name: 'B', type: 'vec4<f32>', kind: 'read' },
        { name: 'C', type: 'vec4<f32>', kind: 'write' },
      ])}
var<workgroup> As: array<vec4<f32>, ${am * bk}>;
var<workgroup> Bs: array<vec4<f32>, ${an * bk}>;
@compute @workgroup_size(${wx}, ${wy})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lidv: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let M = pu(0u); let N = pu(1u); let K = pu(2u);
  let sam = pu(3u); let sbk = pu(5u);
  let tx = lidv.x; let ty = lidv.y;
  let m0 = wid.y * ${bm}u; let n0 = wid.x * ${bn}u;
${
  splits > 1
    ? `  let split = wid.z % ${splits}u;
  // Chunks are whole slices: only the last split can end inside one.
  let chunk = ((K + ${splits * bk - 1}u) / ${splits * bk}u) * ${bk}u;
  let kEnd = min(K, (split + 1u) * chunk);
${batchOffsets(spec.batchRank, 10, `wid.z / ${splits}u`)}
  let co = ((pu(9u) + wid.z / ${splits}u) * ${splits}u + split) * M * N;
  var k0 = min(K, split * chunk);`
    : `  let kEnd = K;
${batchOffsets(spec.batchRank, 10)}
  let co = (pu(9u) + wid.z) * M * N;
  var k0 = 0u;`
}
${acc.join('\n')}
${regs.join('\n')}
  if (k0 < kEnd) {
    ${fetched}
  }
  loop {
    if (k0 >= kEnd) { break; }
    ${staged}
    workgroupBarrier();
    k0 = k0 + ${bk}u;
    // The next slice is in flight while this one is computed.
    if (k0 < kEnd) {
    ${fetched}
    }
${compute}
    workgroupBarrier();
  }
${store.join('\n')}
}
`;
    },
  };
}

/**
 * The second pass of a split-K matmul: C[b, i] = sum over s of P[b, s, i], in split order (vec4s;
 * parameter words [vec4s of C, vec4s of one M x N slice]).
 */
export function splitKSumProgram(splits: number): Program {
  return {
    key: `matmul-v4-splitk-sum|${splits}`,
    bindings: ['read', 'write'],
    source: () => `${header([
      { name: 'P', type: 'vec4<f32>', kind: 'read' },
      { name: 'C', type: 'vec4<f32>', kind: 'write' },
    ])}
${linearEntry(
  SPLIT_SUM_WORKGROUP,
  `  if (i >= pu(0u)) { return; }
  let mn = pu(1u);
  let base = (i / mn) * ${splits}u * mn + i % mn;
  var s = P[base];
${Array.from({ length: splits - 1 }, (_, q) => `  s = s + P[base + ${q + 1}u * mn];`).join('\n')}
  C[i] = s;`,
)}`,
  };
}
export const SPLIT_SUM_WORKGROUP = 256;
