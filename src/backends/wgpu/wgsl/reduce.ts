/**
 * Reductions over rows: row r starts at offset + sum(q_d * outerStride_d) (q decomposed over the
 * outer shape) and has min(n, total - r * n) elements `stride` apart. One thread per row for
 * short or strided rows, one workgroup per row (a shared-memory tree) for long ones; a
 * reduction over everything runs as rows of chunks, then once more over the partials.
 * NaN rules: max / min propagate NaN; argmax / argmin take NaN as the extreme, first index wins.
 * Parameter words: [rows, n, stride, total, divisor, offset, outerShape (rank), outerStrides (rank)].
 */
import type { ReduceOp } from '../../../ir/ops.js';
import { header, type BindingDecl, type Program } from './common.js';
import { PRELUDE } from './prelude.js';

export const REDUCE_WORKGROUP = 256;

export type AccOp = Exclude<ReduceOp, 'mean'>;

export interface ReduceSpec {
  readonly op: AccOp;
  readonly type: 'f32' | 'i32';
  readonly strategy: 'thread' | 'group';
  /** 'tensor': strided rows of x; 'partials': values (and indices) of a first pass, one row. */
  readonly source: 'tensor' | 'partials';
  readonly outerRank: number;
  /** Arg ops: element j of row r has index r * n + j (chunks of one flat row) instead of j. */
  readonly globalIndex: boolean;
  /** What to write: the value, the index (arg ops), or both (a first pass of an arg op). */
  readonly outputs: 'value' | 'index' | 'both';
  /** Divide the value by the divisor word (mean). */
  readonly mean: boolean;
}

const isArg = (op: AccOp): boolean => op === 'argmax' || op === 'argmin';

function identity(op: AccOp, t: 'f32' | 'i32'): string {
  const hi = t === 'f32' ? 'sy_inf()' : 'bitcast<i32>(0x7fffffffu)';
  const lo = t === 'f32' ? '-sy_inf()' : 'bitcast<i32>(0x80000000u)';
  switch (op) {
    case 'sum':
      return t === 'f32' ? '0.0' : '0';
    case 'prod':
      return t === 'f32' ? '1.0' : '1';
    case 'max':
    case 'argmax':
      return lo;
    case 'min':
    case 'argmin':
      return hi;
  }
}

/** `fn comb(a, b) -> T` for value ops; `fn better(v, i, w, k) -> bool` (is (v, i) preferred to (w, k)) for arg ops. */
function combiner(op: AccOp, t: 'f32' | 'i32'): string {
  const f = t === 'f32';
  switch (op) {
    case 'sum':
      return `fn comb(a: ${t}, b: ${t}) -> ${t} { return a + b; }`;
    case 'prod':
      return `fn comb(a: ${t}, b: ${t}) -> ${t} { return a * b; }`;
    case 'max':
      return f ? 'fn comb(a: f32, b: f32) -> f32 { if (sy_nan_b(a) || sy_nan_b(b)) { return sy_nan(); } return select(a, b, b > a); }' : 'fn comb(a: i32, b: i32) -> i32 { return max(a, b); }';
    case 'min':
      return f ? 'fn comb(a: f32, b: f32) -> f32 { if (sy_nan_b(a) || sy_nan_b(b)) { return sy_nan(); } return select(a, b, b < a); }' : 'fn comb(a: i32, b: i32) -> i32 { return min(a, b); }';
    case 'argmax':
    case 'argmin': {
      const cmp = op === 'argmax' ? '>' : '<';
      if (!f) return `fn better(v: i32, i: i32, w: i32, k: i32) -> bool { return v ${cmp} w || (v == w && i < k); }`;
      return `fn better(v: f32, i: i32, w: f32, k: i32) -> bool {
  if (sy_nan_b(w)) { return sy_nan_b(v) && i < k; }
  if (sy_nan_b(v)) { return true; }
  return v ${cmp} w || (v == w && i < k);
}`;
    }
  }
}

/** The program's cache key: every field of the spec. */
export function reduceKey(spec: ReduceSpec): string {
  return `reduce|${spec.op}|${spec.type}|${spec.strategy}|${spec.source}|${spec.outerRank}|${spec.globalIndex}|${spec.outputs}|${spec.mean}`;
}

export function reduceProgram(spec: ReduceSpec, key = reduceKey(spec)): Program {
  const arg = isArg(spec.op);
  const inputs: BindingDecl[] =
    spec.source === 'tensor'
      ? [{ name: 'x', type: spec.type, kind: 'read' }]
      : arg
        ? [
            { name: 'x', type: spec.type, kind: 'read' },
            { name: 'xi', type: 'i32', kind: 'read' },
          ]
        : [{ name: 'x', type: spec.type, kind: 'read' }];
  const outs: BindingDecl[] = [];
  const valueType = spec.mean ? 'f32' : spec.type;
  if (spec.outputs !== 'index') outs.push({ name: 'yv', type: valueType, kind: 'write' });
  if (spec.outputs !== 'value') outs.push({ name: 'yi', type: 'i32', kind: 'write' });
  const decls = [...inputs, ...outs];
  return {
    key,
    bindings: decls.map((d) => d.kind),
    source: () => {
      const t = spec.type;
      const R = spec.outerRank;
      // Row base offset.
      const base: string[] = ['  var base = pu(5u);'];
      if (R > 0) {
        base.push('  var rem = row;');
        for (let d = R - 1; d >= 0; d--) {
          if (d === 0) base.push(`  base = base + rem * pu(${6 + R + d}u);`);
          else base.push(`  { let s = pu(${6 + d}u); let q = rem % s; rem = rem / s; base = base + q * pu(${6 + R + d}u); }`);
        }
      }
      const len = '  let n = pu(1u);\n  let len = min(n, pu(3u) - row * n);';
      const idxOf = spec.source === 'partials' ? 'xi[j]' : spec.globalIndex ? 'i32(row * n + j)' : 'i32(j)';
      const load = 'x[base + j * pu(2u)]';
      const step = arg
        ? `    { let v = ${load}; let k = ${idxOf}; if (better(v, k, acc, acci)) { acc = v; acci = k; } }`
        : `    acc = comb(acc, ${load});`;
      const init = `  var acc: ${t} = ${identity(spec.op, t)};${arg ? '\n  var acci: i32 = bitcast<i32>(0x7fffffffu);' : ''}`;
      const finalValue = spec.mean ? `select(f32(acc) / f32(pu(4u)), sy_nan(), pu(4u) == 0u)` : 'acc';
      const write = (indent: string) =>
        [spec.outputs !== 'index' ? `${indent}yv[row] = ${arg ? 'acc' : finalValue};` : '', spec.outputs !== 'value' ? `${indent}yi[row] = acci;` : ''].filter(Boolean).join('\n');
      let main: string;
      if (spec.strategy === 'thread') {
        main = `@compute @workgroup_size(${REDUCE_WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = (wid.y * nwg.x + wid.x) * ${REDUCE_WORKGROUP}u + lid;
  if (row >= pu(0u)) { return; }
${base.join('\n')}
${len}
${init}
  for (var j = 0u; j < len; j = j + 1u) {
${step}
  }
${write('  ')}
}`;
      } else {
        const W = REDUCE_WORKGROUP;
        const tree = arg
          ? `      let v = sv[lid + s]; let k = si[lid + s];
      if (better(v, k, sv[lid], si[lid])) { sv[lid] = v; si[lid] = k; }`
          : '      sv[lid] = comb(sv[lid], sv[lid + s]);';
        main = `var<workgroup> sv: array<${t}, ${W}>;
${arg ? `var<workgroup> si: array<i32, ${W}>;` : ''}
@compute @workgroup_size(${W})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= pu(0u)) { return; }
${base.join('\n')}
${len}
${init}
  for (var j = lid; j < len; j = j + ${W}u) {
${step}
  }
  sv[lid] = acc;
${arg ? '  si[lid] = acci;' : ''}
  workgroupBarrier();
  for (var s = ${W / 2}u; s > 0u; s = s >> 1u) {
    if (lid < s) {
${tree}
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    acc = sv[0];
${arg ? '    acci = si[0];' : ''}
${write('    ')}
  }
}`;
      }
      return `${PRELUDE}\n${header(decls)}\n${combiner(spec.op, t)}\n${main}\n`;
    },
  };
}
