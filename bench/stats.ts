/** Statistics the benchmarks print: medians and a 95% interval for a median. */

/** The median (the mean of the middle two for an even count); NaN for no values. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A 95% interval for the median from order statistics (distribution-free); [NaN, NaN] for no values. */
export function medianInterval(xs: readonly number[]): [number, number] {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return [NaN, NaN];
  const half = 0.98 * Math.sqrt(s.length);
  const lo = Math.max(0, Math.floor(s.length / 2 - half));
  const hi = Math.min(s.length - 1, Math.ceil(s.length / 2 + half) - 1);
  return [s[lo]!, s[hi]!];
}
