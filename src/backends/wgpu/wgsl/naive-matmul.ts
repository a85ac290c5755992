/**
 * The textbook 16 x 16 tiled matmul (one output per thread, one shared tile of A and of B per
 * step): the benchmark's baseline, and a second opinion in tests. Same parameter words and
 * batching as matmul.ts, scalar strided loads.
 */
import { header, type Program } from './common.js';
import { batchOffsets } from './matmul.js';

export const NAIVE_TILE = 16;

export function naiveMatmulProgram(batchRank: number): Program {
  const T = NAIVE_TILE;
  return {
    key: `matmul-naive|${batchRank}`,
    bindings: ['read', 'read', 'write'],
    source: () => `${header([
      { name: 'A', type: 'f32', kind: 'read' },
      { name: 'B', type: 'f32', kind: 'read' },
      { name: 'C', type: 'f32', kind: 'write' },
    ])}
var<workgroup> As: array<array<f32, ${T}>, ${T}>;
var<workgroup> Bs: array<array<f32, ${T}>, ${T}>;
@compute @workgroup_size(${T}, ${T})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let M = pu(0u); let N = pu(1u); let K = pu(2u);
  let sam = pu(3u); let sak = pu(4u); let sbk = pu(5u); let sbn = pu(6u);
${batchOffsets(batchRank, 10)}
  let row = wid.y * ${T}u + l.y;
  let col = wid.x * ${T}u + l.x;
  var acc = 0.0;
  for (var k0 = 0u; k0 < K; k0 = k0 + ${T}u) {
    var av = 0.0;
    var bv = 0.0;
    if (row < M && k0 + l.x < K) { av = A[ao + row * sam + (k0 + l.x) * sak]; }
    if (k0 + l.y < K && col < N) { bv = B[bo + (k0 + l.y) * sbk + col * sbn]; }
    As[l.y][l.x] = av;
    Bs[l.y][l.x] = bv;
    workgroupBarrier();
    for (var k = 0u; k < ${T}u; k = k + 1u) { acc = acc + As[l.y][k] * Bs[k][l.x]; }
    workgroupBarrier();
  }
  if (row < M && col < N) { C[(pu(9u) + wid.z) * M * N + row * N + col] = acc; }
}
`,
  };
}
