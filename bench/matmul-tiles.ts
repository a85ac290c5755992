/**
 * Register-blocked WGSL matmul kernels for tuning on a real GPU, outside the backend: a
 * workgroup of 16x16 invocations computes a BM x BN tile of C; each invocation a TM x TN block
 * (accumulators in registers), with A and B staged through workgroup memory in BK-deep slices
 * (A transposed so a row block is one broadcast vec4 read; B as vec4 rows, conflict-free).
 * Used by bench/wgpu.ts to pick a configuration; also the naive 16x16 kernel as a baseline.
 */

export interface TileConfig {
  /** Outputs per invocation along M and N (TN a multiple of 4). */
  readonly tm: number;
  readonly tn: number;
  /** K depth of each workgroup-memory slice. */
  readonly bk: number;
  /** Use vec4 global loads (needs K % 4 == 0 and N % 4 == 0). */
  readonly vec4: boolean;
}

export const WG = 16;

export function tileKey(c: TileConfig): string {
  return `${WG * c.tm}x${WG * c.tn} t${c.tm}x${c.tn} k${c.bk}${c.vec4 ? ' v4' : ''}`;
}

/**
 * C[b] = A[b] (M x K) * B[b] (K x N), all row-major and contiguous; batch strides in elements
 * (0 broadcasts). Uniform: M, N, K, strideA, strideB, strideC.
 */
export function tiledMatmulWgsl(c: TileConfig): string {
  const BM = WG * c.tm;
  const BN = WG * c.tn;
  const BK = c.bk;
  const TN4 = c.tn / 4;
  const threads = WG * WG;
  // A slice: BM x BK floats, B slice: BK x BN floats, loaded by `threads` invocations.
  const aLoads = (BM * BK) / threads;
  const bLoads = (BK * BN) / threads;
  const accDecl = Array.from({ length: c.tm * TN4 }, (_, i) => `var acc${i} = vec4<f32>(0.0);`).join('\n  ');
  const loadA = c.vec4
    ? Array.from({ length: aLoads / 4 }, (_, j) => {
        // flat index of a vec4 of A inside the slice: row r, k-group g
        return `{
      let f = tid + ${j * threads}u;
      let r = f / ${BK / 4}u;
      let g = (f % ${BK / 4}u) * 4u;
      let row = m0 + r;
      let kk = k0 + g;
      var v = vec4<f32>(0.0);
      if (row < P.M && kk < P.K) { v = vec4<f32>(A[(aBase + row * P.K + kk) / 4u]); }
      As[(g + 0u) * ${BM}u + r] = v.x; As[(g + 1u) * ${BM}u + r] = v.y; As[(g + 2u) * ${BM}u + r] = v.z; As[(g + 3u) * ${BM}u + r] = v.w;
    }`;
      }).join('\n    ')
    : Array.from({ length: aLoads }, (_, j) => `{
      let f = tid + ${j * threads}u;
      let r = f / ${BK}u;
      let g = f % ${BK}u;
      let row = m0 + r;
      let kk = k0 + g;
      var v = 0.0;
      if (row < P.M && kk < P.K) { v = A[aBase + row * P.K + kk]; }
      As[g * ${BM}u + r] = v;
    }`).join('\n    ');
  const loadB = c.vec4
    ? Array.from({ length: bLoads / 4 }, (_, j) => `{
      let f = tid + ${j * threads}u;
      let r = f / ${BN / 4}u;
      let q = f % ${BN / 4}u;
      let kk = k0 + r;
      let col = n0 + q * 4u;
      var v = vec4<f32>(0.0);
      if (kk < P.K && col < P.N) { v = vec4<f32>(B[(bBase + kk * P.N + col) / 4u]); }
      Bs[r * ${BN / 4}u + q] = v;
    }`).join('\n    ')
    : Array.from({ length: bLoads }, (_, j) => `{
      let f = tid + ${j * threads}u;
      let r = f / ${BN}u;
      let q = f % ${BN}u;
      let kk = k0 + r;
      let col = n0 + q;
      var v = 0.0;
      if (kk < P.K && col < P.N) { v = B[bBase + kk * P.N + col]; }
      Bs1[r * ${BN}u + q] = v;
    }`).join('\n    ');
  // Invocation (tx, ty) owns rows ty*TM + i and column vec4s tx + 16*j (interleaved: conflict-free reads).
  const inner = [
    ...Array.from({ length: c.tm }, (_, i) => `let a${i} = As[k * ${BM}u + ty * ${c.tm}u + ${i}u];`),
    ...Array.from({ length: TN4 }, (_, j) =>
      c.vec4 ? `let b${j} = Bs[k * ${BN / 4}u + tx + ${j * WG}u];` : `let b${j} = vec4<f32>(Bs1[k * ${BN}u + (tx + ${j * WG}u) * 4u], Bs1[k * ${BN}u + (tx + ${j * WG}u) * 4u + 1u], Bs1[k * ${BN}u + (tx + ${j * WG}u) * 4u + 2u], Bs1[k * ${BN}u + (tx + ${j * WG}u) * 4u + 3u]);`,
    ),
    ...Array.from({ length: c.tm }, (_, i) => Array.from({ length: TN4 }, (_, j) => `acc${i * TN4 + j} = fma(vec4<f32>(a${i}), b${j}, acc${i * TN4 + j});`).join(' ')),
  ].join('\n      ');
  const store = Array.from({ length: c.tm }, (_, i) =>
    Array.from({ length: TN4 }, (_, j) => `{
    let row = m0 + ty * ${c.tm}u + ${i}u;
    let col = n0 + (tx + ${j * WG}u) * 4u;
    if (row < P.M) {
      let o = cBase + row * P.N + col;
      let v = acc${i * TN4 + j};
      if (col < P.N) { C[o] = v.x; }
      if (col + 1u < P.N) { C[o + 1u] = v.y; }
      if (col + 2u < P.N) { C[o + 2u] = v.z; }
      if (col + 3u < P.N) { C[o + 3u] = v.w; }
    }
  }`).join('\n  '),
  ).join('\n  ');
  return /* wgsl */ `
struct Params { M: u32, N: u32, K: u32, strideA: u32, strideB: u32, strideC: u32 }
@group(0) @binding(0) var<storage, read> A: array<${c.vec4 ? 'vec4<f32>' : 'f32'}>;
@group(0) @binding(1) var<storage, read> B: array<${c.vec4 ? 'vec4<f32>' : 'f32'}>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> P: Params;
var<workgroup> As: array<f32, ${BK * BM}>;
${c.vec4 ? `var<workgroup> Bs: array<vec4<f32>, ${(BK * BN) / 4}>;` : `var<workgroup> Bs1: array<f32, ${BK * BN}>;`}

@compute @workgroup_size(${WG}, ${WG}, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let tx = lid.x;
  let ty = lid.y;
  let tid = ty * ${WG}u + tx;
  let m0 = wg.y * ${BM}u;
  let n0 = wg.x * ${BN}u;
  let aBase = wg.z * P.strideA;
  let bBase = wg.z * P.strideB;
  let cBase = wg.z * P.strideC;
  ${accDecl}
  for (var k0 = 0u; k0 < P.K; k0 = k0 + ${BK}u) {
    ${loadA}
    ${loadB}
    workgroupBarrier();
    for (var k = 0u; k < ${BK}u; k = k + 1u) {
      ${inner}
    }
    workgroupBarrier();
  }
  ${store}
}
`;
}

/** The naive baseline: one output per invocation, 16x16 tiles of A and B in workgroup memory. */
export const NAIVE_MATMUL_WGSL = /* wgsl */ `
struct Params { M: u32, N: u32, K: u32, strideA: u32, strideB: u32, strideC: u32 }
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> P: Params;
var<workgroup> As: array<f32, 256>;
var<workgroup> Bs: array<f32, 256>;
@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = wg.y * 16u + lid.y;
  let col = wg.x * 16u + lid.x;
  let aBase = wg.z * P.strideA;
  let bBase = wg.z * P.strideB;
  var acc = 0.0;
  for (var k0 = 0u; k0 < P.K; k0 = k0 + 16u) {
    let ka = k0 + lid.x;
    let kb = k0 + lid.y;
    As[lid.y * 16u + lid.x] = select(0.0, A[aBase + row * P.K + ka], row < P.M && ka < P.K);
    Bs[lid.y * 16u + lid.x] = select(0.0, B[bBase + kb * P.N + col], kb < P.K && col < P.N);
    workgroupBarrier();
    for (var k = 0u; k < 16u; k = k + 1u) { acc = acc + As[lid.y * 16u + k] * Bs[k * 16u + lid.x]; }
    workgroupBarrier();
  }
  if (row < P.M && col < P.N) { C[wg.z * P.strideC + row * P.N + col] = acc; }
}
`;

/** Workgroups to dispatch for a config (naive: tm = tn = 1, i.e. 16 x 16 tiles). */
export function workgroups(m: number, n: number, batch: number, c: { tm: number; tn: number }): [number, number, number] {
  return [Math.ceil(n / (WG * c.tn)), Math.ceil(m / (WG * c.tm)), batch];
}
