/**
 * IEEE 754 binary16 (float16) conversions. Node 20 has no Float16Array, so float16 tensors are
 * stored as their 16-bit patterns (Uint16Array) and these functions move between patterns and
 * numbers: one rounding, to nearest with ties to even, with subnormals, infinities and NaN.
 */

/** The largest finite float16 (65504); numbers from 65520 up round to infinity. */
export const HALF_MAX = 65504;
/** Half way between HALF_MAX and the next binade's first step: the threshold that rounds to infinity. */
const HALF_OVERFLOW = 65520;
const MIN_NORMAL = 2 ** -14;
const NAN_BITS = 0x7e00;
const INF_BITS = 0x7c00;

/** Rounds a non-negative number (< 2^52) to an integer, ties to even. */
function roundEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The float16 bit pattern nearest to `v` (a float64, rounded once). NaN becomes the quiet NaN 0x7e00. */
export function toHalfBits(v: number): number {
  if (Number.isNaN(v)) return NAN_BITS;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a >= HALF_OVERFLOW) return sign | INF_BITS;
  // Subnormals are multiples of 2^-24; scaling by a power of two is exact. 1024 encodes 2^-14.
  if (a < MIN_NORMAL) return sign | roundEven(a * 2 ** 24);
  let e = Math.floor(Math.log2(a));
  // log2 may be off by one next to a power of two: correct it exactly.
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  let m = roundEven(a * 2 ** (10 - e));
  if (m === 2048) {
    m = 1024;
    e++;
  }
  if (e > 15) return sign | INF_BITS;
  return sign | ((e + 15) << 10) | (m - 1024);
}

/** The number a float16 bit pattern holds. */
export function fromHalfBits(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m === 0 ? s * Infinity : NaN;
  return s * (1024 + m) * 2 ** (e - 25);
}

/** `v` rounded to the nearest float16 value (as a number). */
export function roundHalf(v: number): number {
  return fromHalfBits(toHalfBits(v));
}

/** Every pattern's value: decoding is one table lookup. Built on first use. */
let table: Float32Array | undefined;
function decodeTable(): Float32Array {
  if (!table) {
    table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) table[h] = fromHalfBits(h);
  }
  return table;
}

/** Writes the values of `src[from, from + n)` into `dst[at, at + n)`. */
export function decodeHalves(src: Uint16Array, from: number, n: number, dst: Float32Array, at = 0): void {
  const t = decodeTable();
  for (let i = 0; i < n; i++) dst[at + i] = t[src[from + i]!]!;
}

/** `src` (float16 patterns) as a new Float32Array of their values. */
export function halvesToFloat32(src: Uint16Array): Float32Array {
  const out = new Float32Array(src.length);
  decodeHalves(src, 0, src.length, out);
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * The float16 pattern of a float32 value, from its bits (the hot path of the CPU kernels'
 * stores). Same result as `toHalfBits`: a float32 is exactly a float64.
 */
export function float32ToHalfBits(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const a = x & 0x7fffffff;
  if (a >= 0x7f800000) return a > 0x7f800000 ? NAN_BITS : sign | INF_BITS;
  if (a >= 0x477ff000) return sign | INF_BITS; // >= 65520
  if (a < 0x38800000) return toHalfBits(v); // subnormal result: rare, take the exact path
  // Normal: keep 10 mantissa bits, round the 13 dropped ones to nearest even (a carry bumps the exponent).
  let h = (((a >>> 23) - 112) << 10) | ((a >>> 13) & 0x3ff);
  const rest = a & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
  return sign | h;
}

/** Writes `src[from, from + n)` rounded to float16 patterns into `dst[at, at + n)`. */
export function encodeHalves(src: Float32Array, from: number, n: number, dst: Uint16Array, at = 0): void {
  for (let i = 0; i < n; i++) dst[at + i] = float32ToHalfBits(src[from + i]!);
}
