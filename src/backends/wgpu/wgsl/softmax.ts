/**
 * Stable softmax / logSoftmax along a dim: subtract the row max, sum the exps, write. A row
 * with a NaN is all NaN (as on the CPU). Rows as in reduce.ts; the output is contiguous.
 * Parameter words: [rows, n, stride, outStride, offset, outerShape (R), outerStrides (R), outerOutStrides (R)].
 */
import { header, type Program } from './common.js';
import { PRELUDE } from './prelude.js';

export const SOFTMAX_WORKGROUP = 256;

export function softmaxProgram(log: boolean, strategy: 'thread' | 'group', outerRank: number): Program {
  const R = outerRank;
  return {
    key: `softmax|${log}|${strategy}|${R}`,
    bindings: ['read', 'write'],
    source: () => {
      const bases = ['  var base = pu(4u);', '  var obase = 0u;'];
      if (R > 0) {
        bases.push('  var rem = row;');
        for (let d = R - 1; d >= 0; d--) {
          const q = d === 0 ? 'rem' : 'q';
          if (d > 0) bases.push(`  { let s = pu(${5 + d}u); let q = rem % s; rem = rem / s;`);
          else bases.push('  {');
          bases.push(`    base = base + ${q} * pu(${5 + R + d}u); obase = obase + ${q} * pu(${5 + 2 * R + d}u); }`);
        }
      }
      // (v - m) - log z: adding m to log z first would round it at the magnitude of m.
      // Each output's exp is the prelude's (the builtin is tens of ulp off for a small probability
      // at v - m ~ -80); the sum keeps the builtin: its large terms are near v = m, where the builtin
      // is within a few ulp, so sy_exp there changed no result's error and cost 1.2x on lavapipe.
      const value = log ? '(v - m) - lz' : 'sy_exp(v - m) / z';
      const pre = `  let n = pu(1u);\n  let st = pu(2u);\n  let ost = pu(3u);\n${bases.join('\n')}`;
      let main: string;
      const W = SOFTMAX_WORKGROUP;
      if (strategy === 'thread') {
        main = `@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = (wid.y * nwg.x + wid.x) * ${W}u + lid;
  if (row >= pu(0u)) { return; }
${pre}
  var m = -sy_inf();
  var nan = false;
  for (var j = 0u; j < n; j = j + 1u) {
    let v = x[base + j * st];
    if (sy_nan_b(v)) { nan = true; } else if (v > m) { m = v; }
  }
  var z = 0.0;
  for (var j = 0u; j < n; j = j + 1u) { z = z + exp(x[base + j * st] - m); }
  let lz = sy_log(z);
  for (var j = 0u; j < n; j = j + 1u) {
    let v = x[base + j * st];
    y[obase + j * ost] = select(${value}, sy_nan(), nan);
  }
}`;
      } else {
        main = `var<workgroup> sm: array<f32, ${W}>;
var<workgroup> sn: array<u32, ${W}>;
@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= pu(0u)) { return; }
${pre}
  var mm = -sy_inf();
  var nn = 0u;
  for (var j = lid; j < n; j = j + ${W}u) {
    let v = x[base + j * st];
    if (sy_nan_b(v)) { nn = 1u; } else if (v > mm) { mm = v; }
  }
  sm[lid] = mm;
  sn[lid] = nn;
  workgroupBarrier();
  for (var s = ${W / 2}u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      let o = sm[lid + s];
      if (o > sm[lid]) { sm[lid] = o; }
      sn[lid] = sn[lid] | sn[lid + s];
    }
    workgroupBarrier();
  }
  let m = sm[0];
  let nan = sn[0] != 0u;
  workgroupBarrier();
  var zz = 0.0;
  for (var j = lid; j < n; j = j + ${W}u) { zz = zz + exp(x[base + j * st] - m); }
  sm[lid] = zz;
  workgroupBarrier();
  for (var s = ${W / 2}u; s > 0u; s = s >> 1u) {
    if (lid < s) { sm[lid] = sm[lid] + sm[lid + s]; }
    workgroupBarrier();
  }
  let z = sm[0];
  let lz = sy_log(z);
  for (var j = lid; j < n; j = j + ${W}u) {
    let v = x[base + j * st];
    y[obase + j * ost] = select(${value}, sy_nan(), nan);
  }
}`;
      }
      return `${PRELUDE}\n${header([
        { name: 'x', type: 'f32', kind: 'read' },
        { name: 'y', type: 'f32', kind: 'write' },
      ])}\n${main}\n`;
    },
  };
}
