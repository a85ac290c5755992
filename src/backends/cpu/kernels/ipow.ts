/** int32 power by squaring, wrapping at 32 bits like every int32 op; a negative exponent truncates (1, -1 or 0). */
export function ipow(a: number, b: number): number {
  if (b < 0) return a === 1 ? 1 : a === -1 ? (b & 1 ? -1 : 1) : 0;
  let result = 1;
  let base = a | 0;
  let e = b;
  while (e > 0) {
    if (e & 1) result = Math.imul(result, base);
    base = Math.imul(base, base);
    e >>>= 1;
  }
  return result;
}
