/**
 * One WGSL kernel for a fused elementwise program (src/ir/fused.ts): the steps become a function
 * `fz` of the loaded inputs (each step's expression from the elementwise table, in a block that
 * binds its operands to `a`, `b`, `c` and its parameters to `p0`, `p1` / `b`), called once per
 * element, or four times per invocation with vec4 loads and stores.
 *
 * Each input is read in one of these modes, chosen per call from its layout:
 *  'c' contiguous and aligned with the output (offset + i), 'b' one element for all,
 *  'm' a contiguous block broadcast over leading and trailing dims (offset + (i / div) % mod:
 *      a bias row, a per-row column), 's' strided (the output index decomposed over the shape).
 * In vec4 form, 'c' and 'mv' ('m' with div 1) load vec4s, 'b' and 'ms' ('m' with div % 4 == 0)
 * load one element for all four lanes.
 *
 * Parameter words, in order: n; per input its offset (then div and mod for 'm' modes); each
 * step's parameters; the output shape (rank words) and each 's' input's strides when any; a zero.
 *
 * A float value used a second time in the program is read through `sy_opq` (its bits xor a
 * multiple of the zero word, another for each use): drivers compile without NaN and inf guarantees, and Mesa folds x - x to 0 and x + -x to 0
 * when both sides are one value, where the unfused kernels (two bindings) give NaN for inf and NaN.
 */
import type { DType } from '../../../ir/dtype.js';
import { stepDType, type FusedAttrs } from '../../../ir/fused.js';
import { header, linearEntry, stridedOffsets, wgslType, type BindingDecl, type Program, type StrideSet } from './common.js';
import { wgslExpression, type ScalarType, type WgslExpr } from './expressions.js';
import { PRELUDE } from './prelude.js';

export type FusedMode = 'c' | 'b' | 'm' | 's' | 'mv' | 'ms';

export interface FusedSpec {
  /** The structure key of the program (src/ir/fused.ts `fusedStructure`). */
  readonly structure: string;
  readonly attrs: FusedAttrs;
  /** Each step's expression and parameters (`lowerSteps`). */
  readonly exprs: readonly WgslExpr[];
  readonly inputs: readonly DType[];
  readonly modes: readonly FusedMode[];
  /** The output rank (used by strided inputs; 0 when there are none). */
  readonly rank: number;
  readonly vec4: boolean;
}

export const FZ_WORKGROUP = 256;
const VARS = ['a', 'b', 'c'] as const;

export interface FusedWords {
  /** Per input: its offset word (div and mod follow for 'm' modes). */
  readonly inputs: readonly number[];
  /** Per step: its first parameter word. */
  readonly params: readonly number[];
  readonly shape: number;
  /** Per input: its first stride word ('s' inputs), else -1. */
  readonly strides: readonly number[];
  /** A word that is always 0, which the compiler cannot know (see sy_opq). */
  readonly zero: number;
  readonly total: number;
}

function isM(m: FusedMode): boolean {
  return m === 'm' || m === 'mv' || m === 'ms';
}

/** Where each parameter word lives; the kernel fills them in this order. */
export function fusedWords(modes: readonly FusedMode[], exprs: readonly WgslExpr[], rank: number): FusedWords {
  let at = 1;
  const inputs = modes.map((m) => {
    const w = at;
    at += isM(m) ? 3 : 1;
    return w;
  });
  const params = exprs.map((e) => {
    const w = at;
    at += e.params.length;
    return w;
  });
  const shape = at;
  const anyStrided = modes.includes('s');
  if (anyStrided) at += rank;
  const strides = modes.map((m) => {
    if (m !== 's') return -1;
    const w = at;
    at += rank;
    return w;
  });
  return { inputs, params, shape, strides, zero: at, total: at + 1 };
}

function read(t: ScalarType, at: number): string {
  return t === 'f32' ? `pf(${at}u)` : t === 'i32' ? `pi(${at}u)` : `pu(${at}u)`;
}

/** The steps' parameters: `q<step>_<k>`, loaded once per invocation (not per lane) and passed to `fz`. */
function stepParams(spec: FusedSpec, words: FusedWords): Array<{ readonly name: string; readonly type: ScalarType; readonly load: string }> {
  return spec.exprs.flatMap((e, s) => e.params.map((p, j) => ({ name: `q${s}_${j}`, type: p.type, load: read(p.type, words.params[s]! + j) })));
}

/** The step function: `fz(v0, v1, ..., q0_0, ...)` returns every output step's value. */
function stepFunction(spec: FusedSpec, words: FusedWords): string {
  const { steps, outputs } = spec.attrs;
  const lines: string[] = [];
  const uses = new Map<string, number>();
  steps.forEach((st, s) => {
    const e = spec.exprs[s]!;
    const binds = st.args.map((a, k) => {
      const name = 'input' in a ? `v${a.input}` : `t${a.step}`;
      const float = wgslType('input' in a ? spec.inputs[a.input]! : steps[a.step]!.dtype) === 'f32';
      const n = uses.get(name) ?? 0;
      uses.set(name, n + 1);
      // Each later use its own multiple of the zero word: two equal expressions would be one value again.
      return `let ${VARS[k]} = ${n > 0 && float ? `sy_opq(${name}, zq * ${n}u)` : name};`;
    });
    e.params.forEach((p, j) => binds.push(`let ${p.name} = q${s}_${j};`));
    // A float16 step rounds its value, as the unfused op would store it.
    const value = st.dtype === 'float16' ? `sy_round_half(${e.expr})` : e.expr;
    lines.push(`  var t${s}: ${wgslType(st.dtype)};`, `  { ${binds.join(' ')} t${s} = ${value}; }`);
  });
  const fields = outputs.map((s, j) => `o${j}: ${wgslType(steps[s]!.dtype)}`).join(', ');
  const args = [...spec.inputs.map((d, k) => `v${k}: ${wgslType(d)}`), ...stepParams(spec, words).map((q) => `${q.name}: ${q.type}`), 'zq: u32'].join(', ');
  return `struct FzOut { ${fields} }
fn sy_opq(x: f32, z: u32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ z); }
fn fz(${args}) -> FzOut {
${lines.join('\n')}
  return FzOut(${outputs.map((s) => `t${s}`).join(', ')});
}`;
}

/** The parameter loads at the top of the entry point, and the names `fz` takes them by. */
function paramLines(spec: FusedSpec, words: FusedWords): { loads: string[]; names: string[] } {
  const qs = stepParams(spec, words);
  return { loads: [...qs.map((q) => `  let ${q.name} = ${q.load};`), `  let zq = pu(${words.zero}u);`], names: [...qs.map((q) => q.name), 'zq'] };
}

/** Each step's WGSL expression, for inputs of these dtypes. */
export function lowerSteps(attrs: FusedAttrs, inputs: readonly { readonly dtype: DType }[]): WgslExpr[] {
  return attrs.steps.map((st) => wgslExpression(st, stepDType(st, inputs, attrs.steps)));
}

/** The program's cache key: everything its source depends on, nothing it reads as a parameter. */
export function fusedKey(spec: Pick<FusedSpec, 'structure' | 'exprs' | 'modes' | 'rank' | 'vec4'>): string {
  // The expressions too: a step's expression may depend on its scalar (a division by a power of two multiplies).
  let exprs = '';
  for (let s = 0; s < spec.exprs.length; s++) exprs += s === 0 ? spec.exprs[s]!.expr : `;${spec.exprs[s]!.expr}`;
  let modes = '';
  for (const m of spec.modes) modes += m;
  return `fz|${spec.structure}|${exprs}|${modes}|${spec.rank}|${spec.vec4 ? 'v4' : 's'}`;
}

export function fusedProgram(spec: FusedSpec, words: FusedWords, key = fusedKey(spec)): Program {
  return {
    key,
    bindings: [...spec.inputs.map(() => 'read' as const), ...spec.attrs.outputs.map(() => 'write' as const)],
    source: () => (spec.vec4 ? vec4Source(spec, words) : scalarSource(spec, words)),
  };
}

function outDecls(spec: FusedSpec, vec4: boolean): BindingDecl[] {
  return spec.attrs.outputs.map((s, j) => {
    const t = wgslType(spec.attrs.steps[s]!.dtype);
    return { name: `y${j}`, type: vec4 ? `vec4<${t}>` : t, kind: 'write' };
  });
}

function scalarSource(spec: FusedSpec, words: FusedWords): string {
  const decls: BindingDecl[] = spec.inputs.map((d, k) => ({ name: `x${k}`, type: wgslType(d), kind: 'read' }));
  decls.push(...outDecls(spec, false));
  const sets: StrideSet[] = [];
  spec.modes.forEach((m, k) => {
    if (m === 's') sets.push({ out: `o${k}`, offsetAt: words.inputs[k]!, stridesAt: words.strides[k]! });
  });
  const q = paramLines(spec, words);
  const lines = ['  if (i >= pu(0u)) { return; }', ...q.loads];
  if (sets.length > 0) lines.push(stridedOffsets('i', spec.rank, words.shape, sets));
  const loads = spec.modes.map((m, k) => {
    const w = words.inputs[k]!;
    if (m === 'c') return `x${k}[pu(${w}u) + i]`;
    if (m === 'b') return `x${k}[pu(${w}u)]`;
    if (m === 's') return `x${k}[o${k}]`;
    return `x${k}[pu(${w}u) + (i / pu(${w + 1}u)) % pu(${w + 2}u)]`;
  });
  lines.push(`  let r = fz(${[...loads, ...q.names].join(', ')});`);
  spec.attrs.outputs.forEach((_, j) => lines.push(`  y${j}[i] = r.o${j};`));
  return `${PRELUDE}\n${header(decls)}\n${stepFunction(spec, words)}\n${linearEntry(FZ_WORKGROUP, lines.join('\n'))}\n`;
}

const LANES = ['x', 'y', 'z', 'w'] as const;

/**
 * Vec4s per invocation in vec4 form. Two, a grid apart (so each load instruction stays
 * coalesced), with every load issued before any arithmetic: on the H200 a copy kernel moved
 * 3.97 TB/s this way against 3.08 with one vec4 per invocation (torch's copy: 4.16), because
 * twice the bytes are in flight per invocation. Four gave no more.
 */
export const FZ_VEC4S = 2;

/**
 * FZ_VEC4S vec4s (4 elements each) per invocation, the u-th at i + u * (invocations launched).
 * A length that is not a multiple of 4 ends in a partial vec4: its invocation computes all four
 * lanes (loads are clamped to the last vec4, inside the buffers, whose sizes are multiples of 16
 * bytes) and stores only the lanes below n, one component at a time.
 */
function vec4Source(spec: FusedSpec, words: FusedWords): string {
  const vectorIn = (m: FusedMode) => m === 'c' || m === 'mv';
  const decls: BindingDecl[] = spec.inputs.map((d, k) => ({ name: `x${k}`, type: vectorIn(spec.modes[k]!) ? `vec4<${wgslType(d)}>` : wgslType(d), kind: 'read' }));
  decls.push(...outDecls(spec, true));
  const q = paramLines(spec, words);
  const lines = ['  let n = pu(0u);', '  if (i * 4u >= n) { return; }', `  let launched = nwg.x * nwg.y * ${FZ_WORKGROUP}u;`, '  let last = (n + 3u) / 4u - 1u;', ...q.loads];
  const us = Array.from({ length: FZ_VEC4S }, (_, u) => u);
  for (const u of us) {
    lines.push(u === 0 ? '  let i0 = i;' : `  let i${u} = i + ${u}u * launched;`);
    // The vec4 this invocation loads: past the end, the last one (computed, never stored).
    lines.push(`  let j${u} = min(i${u}, last);`);
    spec.modes.forEach((m, k) => {
      const w = words.inputs[k]!;
      if (m === 'c') lines.push(`  let w${k}_${u} = x${k}[pu(${w}u) / 4u + j${u}];`);
      else if (m === 'b') lines.push(`  let w${k}_${u} = x${k}[pu(${w}u)];`);
      else if (m === 'mv') lines.push(`  let w${k}_${u} = x${k}[pu(${w}u) / 4u + j${u} % (pu(${w + 2}u) / 4u)];`);
      else lines.push(`  let w${k}_${u} = x${k}[pu(${w}u) + (j${u} * 4u / pu(${w + 1}u)) % pu(${w + 2}u)];`);
    });
  }
  for (const u of us) {
    LANES.forEach((lane, l) => {
      const args = spec.modes.map((m, k) => (vectorIn(m) ? `w${k}_${u}.${lane}` : `w${k}_${u}`));
      lines.push(`  let r${l}_${u} = fz(${[...args, ...q.names].join(', ')});`);
    });
  }
  for (const u of us) {
    const full: string[] = [];
    const tail: string[] = [];
    spec.attrs.outputs.forEach((s, j) => {
      const t = wgslType(spec.attrs.steps[s]!.dtype);
      full.push(`    y${j}[i${u}] = vec4<${t}>(r0_${u}.o${j}, r1_${u}.o${j}, r2_${u}.o${j}, r3_${u}.o${j});`);
      tail.push(`    y${j}[i${u}].x = r0_${u}.o${j};`, `    if (e${u} + 1u < n) { y${j}[i${u}].y = r1_${u}.o${j}; }`, `    if (e${u} + 2u < n) { y${j}[i${u}].z = r2_${u}.o${j}; }`);
    });
    lines.push(`  let e${u} = i${u} * 4u;`, `  if (e${u} + 4u <= n) {`, ...full, `  } else if (e${u} < n) {`, ...tail, '  }');
  }
  return `${PRELUDE}\n${header(decls)}\n${stepFunction(spec, words)}\n${linearEntry(FZ_WORKGROUP, lines.join('\n'))}\n`;
}
