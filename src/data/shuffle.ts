/** Seeded shuffling: a permutation is a pure function of (n, seed), the same on every thread and machine. */

/** mulberry32: a small, fast 32-bit generator, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Fisher-Yates permutation of 0..n-1. */
export function seededPermutation(n: number, seed: number): Int32Array {
  const next = mulberry32(seed);
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

/**
 * The generator's 32-bit seed for a user's seed (a safe integer): its low 32 bits, xor-ed with its
 * high part times an odd constant. Seeds in [0, 2^32) map to themselves; others (negative, or past
 * 2^32) are not folded onto those, so 2^32 and 0, or -1 and 2^32 - 1, give different orders.
 */
export function seed32(seed: number): number {
  return ((seed >>> 0) ^ Math.imul(Math.floor(seed / 4294967296), 0x9e3779b1)) >>> 0;
}

/** The seed of epoch `epoch` under a loader's `seed` (distinct epochs get unrelated orders). */
export function epochSeed(seed: number, epoch: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(epoch + 1, 0xc2b2ae35)) >>> 0;
}
