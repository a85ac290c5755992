/**
 * Counter-based random numbers: element i of a random op is a pure function of
 * (seed, counter + i), so results do not depend on how a kernel is split across
 * workers, and the WGSL kernel computes the same stream with the same integer ops.
 */
export function pcgHash(v: number): number {
  const state = (Math.imul(v >>> 0, 747796405) + 2891336453) >>> 0;
  const word = Math.imul(((state >>> ((state >>> 28) + 4)) ^ state) >>> 0, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}

/** A u32 for stream position `i` under `seed`. */
export function randomU32(seed: number, i: number): number {
  return pcgHash((pcgHash(seed) ^ (i >>> 0)) >>> 0);
}

/** Uniform in [0, 1) with 24 bits, exactly representable in float32. */
export function randomUnit(seed: number, i: number): number {
  return (randomU32(seed, i) >>> 8) * (1 / 16777216);
}

/** Standard normal by Box-Muller over stream positions (p, p + 1); element i of a normal op uses p = counter + 2i. */
export function randomNormal(seed: number, p: number): number {
  const u1 = 1 - randomUnit(seed, p); // (0, 1]: log is finite
  const u2 = randomUnit(seed, p + 1);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** The WGSL twin of the functions above (kept here so the two stay side by side). */
export const RANDOM_WGSL = /* wgsl */ `
fn sy_pcg(v: u32) -> u32 {
  let state = v * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}
fn sy_rand_u32(seed: u32, i: u32) -> u32 { return sy_pcg(sy_pcg(seed) ^ i); }
fn sy_rand_unit(seed: u32, i: u32) -> f32 { return f32(sy_rand_u32(seed, i) >> 8u) * (1.0 / 16777216.0); }
fn sy_rand_normal(seed: u32, p: u32) -> f32 {
  let u1 = 1.0 - sy_rand_unit(seed, p);
  let u2 = sy_rand_unit(seed, p + 1u);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
`;
