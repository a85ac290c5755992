/**
 * Inclusive scans (cumsum, cumprod) along a dim. Rows as in softmax.ts; the output is
 * contiguous. 'thread': one invocation walks a row. 'group': a workgroup per row, each
 * invocation a contiguous chunk: chunk totals, a scan of the totals in shared memory, then each
 * chunk again from its prefix. Parameter words:
 * [rows, n, stride, outStride, offset, outerShape (R), outerStrides (R), outerOutStrides (R)].
 */
import { header, type Program } from './common.js';

export const SCAN_WORKGROUP = 256;

export interface ScanSpec {
  readonly op: 'cumsum' | 'cumprod';
  readonly type: 'f32' | 'i32';
  readonly strategy: 'thread' | 'group';
  readonly outerRank: number;
}

/** The row's input base `base` and output base `obase` from the row index. */
export function rowBases(R: number, offsetAt: number, shapeAt: number): string {
  const lines = [`  var base = pu(${offsetAt}u);`, '  var obase = 0u;'];
  if (R > 0) {
    lines.push('  var rem = row;');
    for (let d = R - 1; d >= 0; d--) {
      if (d > 0) lines.push(`  { let s = pu(${shapeAt + d}u); let q = rem % s; rem = rem / s;`);
      else lines.push('  { let q = rem;');
      lines.push(`    base = base + q * pu(${shapeAt + R + d}u); obase = obase + q * pu(${shapeAt + 2 * R + d}u); }`);
    }
  }
  return lines.join('\n');
}

export function scanProgram(spec: ScanSpec): Program {
  const { type: t, strategy, outerRank: R } = spec;
  const W = SCAN_WORKGROUP;
  const id = spec.op === 'cumsum' ? (t === 'f32' ? '0.0' : '0') : t === 'f32' ? '1.0' : '1';
  const comb = spec.op === 'cumsum' ? 'a + b' : 'a * b';
  return {
    key: `scan|${spec.op}|${t}|${strategy}|${R}`,
    bindings: ['read', 'write'],
    source: () => {
      const pre = `  let n = pu(1u);\n  let st = pu(2u);\n  let ost = pu(3u);\n${rowBases(R, 4, 5)}`;
      let main: string;
      if (strategy === 'thread') {
        main = `@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = (wid.y * nwg.x + wid.x) * ${W}u + lid;
  if (row >= pu(0u)) { return; }
${pre}
  var acc: ${t} = ${id};
  for (var j = 0u; j < n; j = j + 1u) {
    acc = comb(acc, x[base + j * st]);
    y[obase + j * ost] = acc;
  }
}`;
      } else {
        main = `var<workgroup> part: array<${t}, ${W}>;
@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= pu(0u)) { return; }
${pre}
  let chunk = (n + ${W - 1}u) / ${W}u;
  let lo = min(n, lid * chunk);
  let hi = min(n, lo + chunk);
  var local: ${t} = ${id};
  for (var j = lo; j < hi; j = j + 1u) { local = comb(local, x[base + j * st]); }
  part[lid] = local;
  workgroupBarrier();
  for (var s = 1u; s < ${W}u; s = s << 1u) {
    var v = part[lid];
    if (lid >= s) { v = comb(part[lid - s], v); }
    workgroupBarrier();
    part[lid] = v;
    workgroupBarrier();
  }
  var acc: ${t} = ${id};
  if (lid > 0u) { acc = part[lid - 1u]; }
  for (var j = lo; j < hi; j = j + 1u) {
    acc = comb(acc, x[base + j * st]);
    y[obase + j * ost] = acc;
  }
}`;
      }
      return `${header([
        { name: 'x', type: t, kind: 'read' },
        { name: 'y', type: t, kind: 'write' },
      ])}\nfn comb(a: ${t}, b: ${t}) -> ${t} { return ${comb}; }\n${main}\n`;
    },
  };
}
