/**
 * var along a dim: each row's mean, then its squared deviations, divided by max(0, n - correction).
 * 'thread': an invocation per row; 'group': a workgroup per row with shared-memory sums.
 * Parameter words: [rows, n, stride, outStride, offset, correction (f32), outerShape (R), outerStrides (R), outerOutStrides (R)].
 */
import { header, type Program } from './common.js';
import { PRELUDE } from './prelude.js';
import { rowBases } from './scan.js';

export const VARIANCE_WORKGROUP = 256;

export function varianceProgram(strategy: 'thread' | 'group', outerRank: number): Program {
  const W = VARIANCE_WORKGROUP;
  return {
    key: `var|${strategy}|${outerRank}`,
    bindings: ['read', 'write'],
    source: () => {
      const pre = `  let n = pu(1u);\n  let st = pu(2u);\n  let divisor = max(0.0, f32(n) - pf(5u));\n${rowBases(outerRank, 4, 6)}`;
      let main: string;
      if (strategy === 'thread') {
        main = `@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = (wid.y * nwg.x + wid.x) * ${W}u + lid;
  if (row >= pu(0u)) { return; }
${pre}
  var sum = 0.0;
  for (var j = 0u; j < n; j = j + 1u) { sum = sum + x[base + j * st]; }
  let mean = sum / f32(n);
  var ss = 0.0;
  for (var j = 0u; j < n; j = j + 1u) { let d = x[base + j * st] - mean; ss = ss + d * d; }
  y[row] = ss / divisor;
}`;
      } else {
        main = `var<workgroup> part: array<f32, ${W}>;
fn total(lid: u32) -> f32 {
  workgroupBarrier();
  for (var s = ${W / 2}u; s > 0u; s = s >> 1u) {
    if (lid < s) { part[lid] = part[lid] + part[lid + s]; }
    workgroupBarrier();
  }
  let t = part[0];
  workgroupBarrier();
  return t;
}
@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= pu(0u)) { return; }
${pre}
  var sum = 0.0;
  for (var j = lid; j < n; j = j + ${W}u) { sum = sum + x[base + j * st]; }
  part[lid] = sum;
  let mean = total(lid) / f32(n);
  var ss = 0.0;
  for (var j = lid; j < n; j = j + ${W}u) { let d = x[base + j * st] - mean; ss = ss + d * d; }
  part[lid] = ss;
  let v = total(lid) / divisor;
  if (lid == 0u) { y[row] = v; }
}`;
      }
      return `${PRELUDE}\n${header([
        { name: 'x', type: 'f32', kind: 'read' },
        { name: 'y', type: 'f32', kind: 'write' },
      ])}\n${main}\n`;
    },
  };
}
