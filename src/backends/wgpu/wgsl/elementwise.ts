/**
 * Elementwise programs generated from one expression of the table in src/ir/elementwise.ts.
 * Each input is read in one of three modes, chosen per call: 'c' (contiguous and aligned with
 * the output: offset + i), 'b' (one element broadcast to all) or 's' (strided: the output
 * index is decomposed over the output shape). Parameter words:
 * [n, offset per input, scalar per scalar, shape (rank), strides (rank) per strided input].
 */
import type { DType } from '../../../ir/dtype.js';
import { header, linearEntry, stridedOffsets, wgslType, type BindingDecl, type Program, type StrideSet } from './common.js';
import { PRELUDE } from './prelude.js';

export type InputMode = 'c' | 'b' | 's';
export type ScalarType = 'f32' | 'i32' | 'u32';

export interface ElementwiseSpec {
  /** A WGSL expression over the inputs `a`, `b`, `c` and the scalars `p0`, `p1`. */
  readonly expr: string;
  readonly inputs: readonly DType[];
  readonly out: DType;
  readonly modes: readonly InputMode[];
  /** The output rank (used by strided inputs). */
  readonly rank: number;
  readonly scalars: readonly ScalarType[];
  /** Four elements per invocation through vec4 loads and stores (no strided inputs, n and offsets multiples of 4). */
  readonly vec4: boolean;
}

export const EW_WORKGROUP = 256;
const VARS = ['a', 'b', 'c'] as const;

/** Where each parameter lives, shared by the generator and the kernel that fills the words. */
export function elementwiseLayout(spec: Pick<ElementwiseSpec, 'inputs' | 'modes' | 'rank' | 'scalars'>): { offsets: number; scalars: number; shape: number; strides: number[] } {
  const k = spec.inputs.length;
  const scalars = 1 + k;
  const shape = scalars + spec.scalars.length;
  const strides: number[] = [];
  let at = shape + spec.rank;
  for (const m of spec.modes) {
    strides.push(m === 's' ? at : -1);
    if (m === 's') at += spec.rank;
  }
  return { offsets: 1, scalars, shape, strides };
}

export function elementwiseProgram(spec: ElementwiseSpec): Program {
  const key = `ew|${spec.expr}|${spec.inputs.join(',')}|${spec.out}|${spec.modes.join('')}|${spec.rank}|${spec.scalars.join(',')}|${spec.vec4 ? 'v4' : 's'}`;
  return {
    key,
    bindings: [...spec.inputs.map(() => 'read' as const), 'write'],
    source: () => {
      if (spec.vec4) return vec4Source(spec);
      const L = elementwiseLayout(spec);
      const decls: BindingDecl[] = spec.inputs.map((d, k) => ({ name: `x${k}`, type: wgslType(d), kind: 'read' }));
      decls.push({ name: 'y', type: wgslType(spec.out), kind: 'write' });
      const sets: StrideSet[] = [];
      spec.modes.forEach((m, k) => {
        if (m === 's') sets.push({ out: `o${k}`, offsetAt: L.offsets + k, stridesAt: L.strides[k]! });
      });
      const lines = ['  if (i >= pu(0u)) { return; }'];
      if (sets.length > 0) lines.push(stridedOffsets('i', spec.rank, L.shape, sets));
      spec.modes.forEach((m, k) => {
        const idx = m === 'c' ? `pu(${L.offsets + k}u) + i` : m === 'b' ? `pu(${L.offsets + k}u)` : `o${k}`;
        lines.push(`  let ${VARS[k]} = x${k}[${idx}];`);
      });
      spec.scalars.forEach((t, j) => {
        const at = `${L.scalars + j}u`;
        lines.push(`  let p${j} = ${t === 'f32' ? `pf(${at})` : t === 'i32' ? `pi(${at})` : `pu(${at})`};`);
      });
      lines.push(`  y[i] = ${spec.expr};`);
      return `${PRELUDE}\n${header(decls)}\n${linearEntry(EW_WORKGROUP, lines.join('\n'))}\n`;
    },
  };
}

/** The vec4 form: invocation q handles elements 4q..4q+3, evaluating the scalar expression per lane. */
function vec4Source(spec: ElementwiseSpec): string {
  const L = elementwiseLayout(spec);
  const decls: BindingDecl[] = spec.inputs.map((d, k) => ({ name: `x${k}`, type: spec.modes[k] === 'c' ? `vec4<${wgslType(d)}>` : wgslType(d), kind: 'read' }));
  decls.push({ name: 'y', type: `vec4<${wgslType(spec.out)}>`, kind: 'write' });
  const lines = ['  if (i * 4u >= pu(0u)) { return; }'];
  spec.modes.forEach((m, k) => {
    lines.push(m === 'c' ? `  let v${k} = x${k}[pu(${L.offsets + k}u) / 4u + i];` : `  let s${k} = x${k}[pu(${L.offsets + k}u)];`);
  });
  spec.scalars.forEach((t, j) => {
    const at = `${L.scalars + j}u`;
    lines.push(`  let p${j} = ${t === 'f32' ? `pf(${at})` : t === 'i32' ? `pi(${at})` : `pu(${at})`};`);
  });
  lines.push(`  var r: vec4<${wgslType(spec.out)}>;`);
  for (const lane of ['x', 'y', 'z', 'w']) {
    const lets = spec.modes.map((m, k) => `let ${VARS[k]} = ${m === 'c' ? `v${k}.${lane}` : `s${k}`};`).join(' ');
    lines.push(`  { ${lets} r.${lane} = ${spec.expr}; }`);
  }
  lines.push('  y[i] = r;');
  return `${PRELUDE}\n${header(decls)}\n${linearEntry(EW_WORKGROUP, lines.join('\n'))}\n`;
}
