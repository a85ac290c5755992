/**
 * Float64 references for the rounding, trigonometric, hyperbolic and activation ops, written
 * from their definitions (and torch's documented edge cases), independently of the kernels.
 */

/** Round half to even, from floor and the distance to it. */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x);
  const d = x - f;
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** torch.round(x, decimals): round(x * 10^d) / 10^d (or / and * for negative d). */
export function roundDecimals(x: number, decimals: number): number {
  const f = 10 ** Math.abs(decimals);
  // The scaling happens in float32 in the library, as in torch.
  return decimals > 0 ? roundHalfEven(Math.fround(x * f)) / f : roundHalfEven(Math.fround(x / f)) * f;
}

export function frac(x: number): number {
  return x - Math.trunc(x);
}

export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}

export function softplus(x: number, beta: number, threshold: number): number {
  if (Number.isNaN(x)) return NaN;
  return x * beta > threshold ? x : Math.log(1 + Math.exp(x * beta)) / beta;
}

export function leakyRelu(x: number, slope: number): number {
  return x > 0 ? x : x * slope;
}

export function elu(x: number, alpha: number): number {
  if (Number.isNaN(x)) return NaN;
  return x > 0 ? x : alpha * (Math.exp(x) - 1);
}

/** Sign of b by its sign bit as far as a JS number shows it (-0 is negative). */
export function copysign(a: number, b: number): number {
  const neg = b < 0 || (b === 0 && 1 / b < 0);
  return neg ? -Math.abs(a) : Math.abs(a);
}

export function logaddexp(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  if (a === Infinity || b === Infinity) return Infinity;
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  const m = Math.max(a, b);
  // exp of the difference only: no overflow for any finite pair.
  return m + Math.log(1 + Math.exp(Math.min(a, b) - m));
}

export function xlogy(a: number, b: number): number {
  if (Number.isNaN(b)) return NaN;
  if (a === 0) return 0;
  return a * Math.log(b);
}

export function exp2(x: number): number {
  return 2 ** x;
}

export function hypot(a: number, b: number): number {
  if (Math.abs(a) === Infinity || Math.abs(b) === Infinity) return Infinity;
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  return Math.sqrt(a * a + b * b);
}
