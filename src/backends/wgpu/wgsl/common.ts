/**
 * Shared pieces of the generated WGSL: element types, binding declarations, the uniform
 * parameter block and the strided-index walk. Parameters travel as up to 64 u32 words in one
 * uniform slot per dispatch; generated code reads them at constant indices (`pu(3u)`).
 */
import type { DType } from '../../../ir/dtype.js';

export type BindingKind = 'read' | 'write' | 'atomic';

/** A compute program: the key caches the generated source, the source caches the pipeline. */
export interface Program {
  readonly key: string;
  readonly source: () => string;
  /** Storage bindings 0..n-1 in order; the parameter uniform is binding n. */
  readonly bindings: readonly BindingKind[];
}

export const PARAM_WORDS = 64;
export const PARAM_BYTES = PARAM_WORDS * 4;

/** The type a dtype computes in: float16 values live in f32 registers (stored as f16, see kernels/half.ts). */
export function wgslType(dtype: DType): 'f32' | 'i32' | 'u32' {
  return dtype === 'float32' || dtype === 'float16' ? 'f32' : dtype === 'int32' ? 'i32' : 'u32';
}

export interface BindingDecl {
  readonly name: string;
  /** Element type, e.g. 'f32', 'vec4<f32>', 'atomic<u32>'. */
  readonly type: string;
  readonly kind: BindingKind;
}

/** Storage declarations, the parameter block and its accessors. */
export function header(bindings: readonly BindingDecl[]): string {
  const lines = bindings.map((b, i) => {
    const access = b.kind === 'read' ? 'read' : 'read_write';
    return `@group(0) @binding(${i}) var<storage, ${access}> ${b.name}: array<${b.type}>;`;
  });
  lines.push(
    `struct SyParams { v: array<vec4<u32>, ${PARAM_WORDS / 4}> }`,
    `@group(0) @binding(${bindings.length}) var<uniform> sy_params: SyParams;`,
    'fn pu(i: u32) -> u32 { return sy_params.v[i >> 2u][i & 3u]; }',
    'fn pi(i: u32) -> i32 { return bitcast<i32>(pu(i)); }',
    'fn pf(i: u32) -> f32 { return bitcast<f32>(pu(i)); }',
  );
  return lines.join('\n');
}

/** The entry point of a 1-D kernel over `n` items; `i` is the item index (2-D grid past 65535 groups). */
export function linearEntry(workgroupSize: number, body: string): string {
  return `@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * ${workgroupSize}u + lid;
${body}
}`;
}

/** Workgroup counts for `groups` groups, folded into y past the per-dimension limit. */
export function grid(groups: number, maxPerDim = 65535): [number, number, number] {
  if (groups <= maxPerDim) return [Math.max(groups, 1), 1, 1];
  const y = Math.ceil(groups / maxPerDim);
  return [Math.ceil(groups / y), y, 1];
}

export interface StrideSet {
  /** The variable that receives the element offset. */
  readonly out: string;
  /** Parameter index of the base offset. */
  readonly offsetAt: number;
  /** Parameter index of stride[0] (rank words follow). */
  readonly stridesAt: number;
}

/**
 * WGSL that decomposes the row-major index `index` over a shape of rank `rank` (dims at
 * parameter `shapeAt`) and accumulates one offset per stride set.
 */
export function stridedOffsets(index: string, rank: number, shapeAt: number, sets: readonly StrideSet[]): string {
  const lines = sets.map((s) => `  var ${s.out} = pu(${s.offsetAt}u);`);
  if (rank === 0) return lines.join('\n');
  lines.push(`  var rem_i = ${index};`);
  for (let d = rank - 1; d >= 0; d--) {
    if (d === 0) lines.push('  { let q = rem_i;');
    else lines.push(`  { let s = pu(${shapeAt + d}u); let q = rem_i % s; rem_i = rem_i / s;`);
    for (const s of sets) lines.push(`    ${s.out} = ${s.out} + q * pu(${s.stridesAt + d}u);`);
    lines.push('  }');
  }
  return lines.join('\n');
}

/** One float's bits, shared by every Params (one per dispatch: no typed arrays made per dispatch). */
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** Fills the parameter words; indices are handed out in call order. */
export class Params {
  readonly words: number[] = [];

  u(v: number): number {
    this.words.push(v >>> 0);
    return this.words.length - 1;
  }
  i(v: number): number {
    return this.u(v | 0);
  }
  f(v: number): number {
    F32[0] = v;
    return this.u(U32[0]!);
  }
  us(vs: readonly number[]): number {
    const at = this.words.length;
    for (const v of vs) this.u(v);
    return at;
  }
  get length(): number {
    return this.words.length;
  }
}
