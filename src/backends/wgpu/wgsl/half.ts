/**
 * float16 storage on WebGPU. Values compute in f32; a float16 tensor's buffer holds f16
 * elements (2 bytes, the buffer rounded up to whole 4-byte words). Two programs move between
 * the two: `widen` reads an f16 layout (`enable f16`, the `shader-f16` feature) into a
 * contiguous f32 buffer, exactly; `narrow` rounds a contiguous f32 buffer to f16 patterns to
 * nearest even in integer arithmetic (bit for bit as the CPU backend, overflow to infinity,
 * subnormals kept), writing whole words: two elements per invocation, the odd last one beside
 * a zero pad, so no invocation stores part of a word another one writes.
 */
import { header, linearEntry, stridedOffsets, type Program } from './common.js';

export const HALF_WORKGROUP = 256;

/** Rounding f32 to float16 patterns and back; part of the prelude (fused chains round float16 steps with it). */
export const HALF_WGSL = /* wgsl */ `
fn sy_half_bits(v: f32) -> u32 {
  let x = bitcast<u32>(v);
  let sg = (x >> 16u) & 0x8000u;
  let a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) { return select(sg | 0x7c00u, 0x7e00u, a > 0x7f800000u); }
  if (a >= 0x477ff000u) { return sg | 0x7c00u; }
  if (a < 0x38800000u) {
    // Below the float16 normals: the value in units of 2^-24, rounded to even.
    let e = a >> 23u;
    if (e < 102u) { return sg; }
    let m = (a & 0x7fffffu) | 0x800000u;
    let shift = 126u - e;
    var h = m >> shift;
    let rest = m & ((1u << shift) - 1u);
    let tie = 1u << (shift - 1u);
    if (rest > tie || (rest == tie && (h & 1u) == 1u)) { h = h + 1u; }
    return sg | h;
  }
  var h = (((a >> 23u) - 112u) << 10u) | ((a >> 13u) & 0x3ffu);
  let rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) == 1u)) { h = h + 1u; }
  return sg | h;
}
fn sy_half_value(h: u32) -> f32 {
  let sg = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0u) { return select(1.0, -1.0, sg != 0u) * f32(m) * 5.9604644775390625e-8; }
  if (e == 31u) { return bitcast<f32>(sg | 0x7f800000u | (m << 13u)); }
  return bitcast<f32>(sg | ((e + 112u) << 23u) | (m << 13u));
}
fn sy_round_half(v: f32) -> f32 { return sy_half_value(sy_half_bits(v)); }
`;

/** f16 layout -> contiguous f32. Parameter words: [n, offset, shape (rank), strides (rank)]. */
export function widenProgram(rank: number, contiguous: boolean): Program {
  const r = contiguous ? 0 : rank;
  return {
    key: `half-widen|${r}`,
    bindings: ['read', 'write'],
    source: () => {
      const body = ['  if (i >= pu(0u)) { return; }', contiguous ? '  let o = pu(1u) + i;' : stridedOffsets('i', r, 2, [{ out: 'o', offsetAt: 1, stridesAt: 2 + r }]), '  y[i] = f32(x[o]);'].join('\n');
      return `enable f16;\n${header([
        { name: 'x', type: 'f16', kind: 'read' },
        { name: 'y', type: 'f32', kind: 'write' },
      ])}\n${linearEntry(HALF_WORKGROUP, body)}\n`;
    },
  };
}

/** Contiguous f32 -> contiguous f16 patterns, one word (two elements) per invocation. Parameter words: [n]. */
export function narrowProgram(): Program {
  return {
    key: 'half-narrow',
    bindings: ['read', 'write'],
    source: () => {
      const body = [
        '  let n = pu(0u);',
        '  if (2u * i >= n) { return; }',
        '  let lo = sy_half_bits(x[2u * i]);',
        '  var hi = 0u;',
        '  if (2u * i + 1u < n) { hi = sy_half_bits(x[2u * i + 1u]); }',
        '  y[i] = lo | (hi << 16u);',
      ].join('\n');
      return `${HALF_WGSL}\n${header([
        { name: 'x', type: 'f32', kind: 'read' },
        { name: 'y', type: 'u32', kind: 'write' },
      ])}\n${linearEntry(HALF_WORKGROUP, body)}\n`;
    },
  };
}
