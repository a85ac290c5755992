/**
 * argsort (and the first k positions of it, argtopk) by bitonic sorting networks over lines padded to a power of two P (the padding sorts
 * last). The order is total (value, then position), so the result is the stable sort; NaN sorts
 * above +inf (last ascending, first descending), as torch.sort.
 * 'line' (P <= 1024): a workgroup sorts one line in shared memory, from x to y.
 * Longer lines run over padded key / index buffers: 'init' fills them, 'block' sorts blocks of
 * 1024 (or, given a stage k, finishes its merge inside blocks), 'global' does one compare-exchange
 * per invocation for a stage (k, j >= 1024), 'final' writes the indices to y.
 * line / init / final parameters: [lines, n, stride, outStride, offset, P, outN (positions written: n, or k for a top-k), outerShape (R), outerStrides (R), outerOutStrides (R)].
 * block parameters: [blocks, n, P, k (0: sort whole blocks)]; global parameters: [pairs, n, P, k, j].
 */
import { header, linearEntry, type BindingDecl, type Program } from './common.js';
import { PRELUDE } from './prelude.js';
import { rowBases } from './scan.js';

export const SORT_WORKGROUP = 256;
/** Elements per shared-memory block. */
export const SORT_BLOCK = 1024;

export type SortMode = 'line' | 'init' | 'block' | 'global' | 'final';

export interface SortSpec {
  readonly mode: SortMode;
  readonly type: 'f32' | 'i32';
  readonly descending: boolean;
  readonly outerRank: number;
}

/** `before(a, ia, b, ib)`: whether (a, ia) sorts strictly before (b, ib); positions >= n are padding. */
function comparator(t: 'f32' | 'i32', descending: boolean): string {
  const nan =
    t === 'f32'
      ? `  let an = sy_nan_b(a);
  let bn = sy_nan_b(b);
  if (an || bn) {
    if (an && bn) { return ia < ib; }
    return ${descending ? 'an' : 'bn'};
  }\n`
      : '';
  return `fn before(a: ${t}, ia: i32, b: ${t}, ib: i32) -> bool {
  let n = i32(pu(1u));
  if (ia >= n || ib >= n) { return ib >= n && (ia < n || ia < ib); }
${nan}  return a ${descending ? '>' : '<'} b || (a == b && ia < ib);
}`;
}

/** Shared-memory stages over `len` elements whose line positions start at `g0`. */
function sharedStages(len: string, g0: string, kLoop: string): string {
  const W = SORT_WORKGROUP;
  return `${kLoop}
    for (var t = lid; t < ${len} / 2u; t = t + ${W}u) {
      let i = 2u * j * (t / j) + (t % j);
      let l = i + j;
      let a = sk[i];
      let ia = si[i];
      let b = sk[l];
      let ib = si[l];
      let asc = ((${g0} + i) & k) == 0u;
      if (select(before(a, ia, b, ib), before(b, ib, a, ia), asc)) { sk[i] = b; si[i] = ib; sk[l] = a; si[l] = ia; }
    }
    workgroupBarrier();
  }`;
}

export function sortProgram(spec: SortSpec): Program {
  const { mode, type: t, descending, outerRank: R } = spec;
  const W = SORT_WORKGROUP;
  const B = SORT_BLOCK;
  const decls: BindingDecl[] =
    mode === 'line'
      ? [
          { name: 'x', type: t, kind: 'read' },
          { name: 'y', type: 'i32', kind: 'write' },
        ]
      : mode === 'init'
        ? [
            { name: 'x', type: t, kind: 'read' },
            { name: 'keys', type: t, kind: 'write' },
            { name: 'idx', type: 'i32', kind: 'write' },
          ]
        : mode === 'final'
          ? [
              { name: 'idx', type: 'i32', kind: 'read' },
              { name: 'y', type: 'i32', kind: 'write' },
            ]
          : [
              { name: 'keys', type: t, kind: 'write' },
              { name: 'idx', type: 'i32', kind: 'write' },
            ];
  return {
    key: `argsort|${mode}|${t}|${descending}|${mode === 'line' || mode === 'init' || mode === 'final' ? R : 0}`,
    bindings: decls.map((d) => d.kind),
    source: () => {
      const entry = `@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {`;
      const shared = `var<workgroup> sk: array<${t}, ${B}>;\nvar<workgroup> si: array<i32, ${B}>;`;
      let main: string;
      switch (mode) {
        case 'line':
          main = `${shared}
${entry}
  let row = wid.y * nwg.x + wid.x;
  if (row >= pu(0u)) { return; }
  let n = pu(1u);
  let st = pu(2u);
  let ost = pu(3u);
  let P = pu(5u);
${rowBases(R, 4, 7)}
  for (var e = lid; e < P; e = e + ${W}u) {
    if (e < n) { sk[e] = x[base + e * st]; } else { sk[e] = ${t}(0); }
    si[e] = i32(e);
  }
  workgroupBarrier();
${sharedStages('P', '0u', '  for (var k = 2u; k <= P; k = k << 1u) {\n  for (var j = k >> 1u; j > 0u; j = j >> 1u) {')}
  }
  for (var e = lid; e < pu(6u); e = e + ${W}u) { y[obase + e * ost] = si[e]; }
}`;
          break;
        case 'block':
          main = `${shared}
${entry}
  let blk = wid.y * nwg.x + wid.x;
  if (blk >= pu(0u)) { return; }
  let P = pu(2u);
  let kk = pu(3u);
  let start = blk * ${B}u;
  let g0 = start % P;
  for (var e = lid; e < ${B}u; e = e + ${W}u) { sk[e] = keys[start + e]; si[e] = idx[start + e]; }
  workgroupBarrier();
  if (kk == 0u) {
${sharedStages(`${B}u`, 'g0', `  for (var k = 2u; k <= ${B}u; k = k << 1u) {\n  for (var j = k >> 1u; j > 0u; j = j >> 1u) {`)}
    }
  } else {
    let k = kk;
${sharedStages(`${B}u`, 'g0', `  for (var j = ${B / 2}u; j > 0u; j = j >> 1u) {`)}
  }
  for (var e = lid; e < ${B}u; e = e + ${W}u) { keys[start + e] = sk[e]; idx[start + e] = si[e]; }
}`;
          break;
        case 'global':
          main = `${linearEntry(W, `  if (i >= pu(0u)) { return; }
  let P = pu(2u);
  let k = pu(3u);
  let j = pu(4u);
  let half = P / 2u;
  let line = i / half;
  let t = i % half;
  let p = 2u * j * (t / j) + (t % j);
  let ai = line * P + p;
  let bi = ai + j;
  let a = keys[ai];
  let ia = idx[ai];
  let b = keys[bi];
  let ib = idx[bi];
  if (select(before(a, ia, b, ib), before(b, ib, a, ia), (p & k) == 0u)) { keys[ai] = b; idx[ai] = ib; keys[bi] = a; idx[bi] = ia; }`)}`;
          break;
        case 'init':
        case 'final': {
          const body =
            mode === 'init'
              ? `  if (e < n) { keys[i] = x[base + e * st]; } else { keys[i] = ${t}(0); }
  idx[i] = i32(e);`
              : '  if (e < pu(6u)) { y[obase + e * ost] = idx[i]; }';
          main = linearEntry(
            W,
            `  let P = pu(5u);
  if (i >= pu(0u) * P) { return; }
  let n = pu(1u);
  let st = pu(2u);
  let ost = pu(3u);
  let row = i / P;
  let e = i % P;
${rowBases(R, 4, 7)}
${body}`,
          );
          break;
        }
      }
      return `${PRELUDE}\n${header(decls)}\n${comparator(t, descending)}\n${main}\n`;
    },
  };
}
