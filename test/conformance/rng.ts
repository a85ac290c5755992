/**
 * A small seeded PRNG for test inputs (mulberry32 over a string-hashed seed). Independent of
 * the library's random op: inputs must not depend on the code under test.
 */

/** FNV-1a over the string, as a u32 seed. */
export function hashSeed(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  private state: number;

  constructor(seed: number | string) {
    this.state = (typeof seed === 'string' ? hashSeed(seed) : seed) >>> 0;
  }

  /** Uniform in [0, 1) (32 bits). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A float32-representable value uniform in [lo, hi). */
  float(lo: number, hi: number): number {
    return Math.fround(lo + (hi - lo) * this.next());
  }

  /** An integer uniform in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** A float32 value with |x| in [lo, hi) and a random sign (keeps divisors away from zero). */
  awayFromZero(lo: number, hi: number): number {
    const v = this.float(lo, hi);
    return this.next() < 0.5 ? -v : v;
  }

  pick<T>(values: readonly T[]): T {
    const v = values[Math.floor(this.next() * values.length)];
    if (v === undefined) throw new Error('pick from an empty list');
    return v;
  }

  floats(n: number, lo: number, hi: number): number[] {
    return Array.from({ length: n }, () => this.float(lo, hi));
  }

  ints(n: number, lo: number, hi: number): number[] {
    return Array.from({ length: n }, () => this.int(lo, hi));
  }

  bools(n: number, p = 0.5): number[] {
    return Array.from({ length: n }, () => (this.next() < p ? 1 : 0));
  }
}
