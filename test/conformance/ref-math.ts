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

// ---- the later elementwise math (lerp & co. are compositions: see test/torch-vectors/math2.test.ts) ----

export function fmax(a: number, b: number): number {
  return Number.isNaN(b) ? a : Number.isNaN(a) ? b : Math.max(a, b);
}
export function fmin(a: number, b: number): number {
  return Number.isNaN(b) ? a : Number.isNaN(a) ? b : Math.min(a, b);
}
export function xlog1py(a: number, b: number): number {
  if (Number.isNaN(b)) return NaN;
  if (a === 0) return 0;
  return a * Math.log1p(b);
}
/** Python's float // (torch's floor division), from the float64 quotient. */
export function divFloor(a: number, b: number): number {
  if (b === 0 || Number.isNaN(a) || Number.isNaN(b)) return a / b;
  if (!Number.isFinite(a)) return NaN;
  if (!Number.isFinite(b)) return a === 0 || a < 0 === b < 0 ? (a / b < 0 || Object.is(a / b, -0) ? -0 : 0) : -1;
  const q = Math.floor(a / b);
  return q === 0 ? (a / b < 0 || Object.is(a / b, -0) ? -0 : 0) : q;
}

/** Lanczos (g = 7, n = 9): [log gamma, digamma] for x >= 0.5. */
function lanczos(x: number): [number, number] {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  const z = x - 1;
  let s = c[0]!;
  let ds = 0;
  for (let i = 1; i < 9; i++) {
    s += c[i]! / (z + i);
    ds -= c[i]! / ((z + i) * (z + i));
  }
  const t = z + 7.5;
  return [0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s), Math.log(t) + (z + 0.5) / t - 1 + ds / s];
}
/** torch.lgamma: +inf at the poles (0, -0, negative integers) and at ±inf. */
export function lgamma(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (!Number.isFinite(x) || (x <= 0 && Number.isInteger(x))) return Infinity;
  if (x >= 0.5) return lanczos(x)[0];
  return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lanczos(1 - x)[0];
}
/** torch.digamma: -inf at 0, +inf at -0, NaN at the negative integers and -inf. */
export function digamma(x: number): number {
  if (x === 0) return Object.is(x, -0) ? Infinity : -Infinity;
  if (Number.isNaN(x) || x === -Infinity || (x < 0 && Number.isInteger(x))) return NaN;
  if (x === Infinity) return Infinity;
  if (x >= 0.5) return lanczos(x)[1];
  return lanczos(1 - x)[1] - Math.PI / Math.tan(Math.PI * x);
}
/** erfc(x) for x >= 2 by its continued fraction. */
function erfcLarge(x: number): number {
  let k = x;
  for (let n = 80; n >= 1; n--) k = x + n / 2 / k;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / k;
}
/** erf by its Taylor series (|x| <= 2). */
function erfSmall(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (-x * x) / n;
    sum += term / (2 * n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}
/** torch.erfinv: bisection on erf (1 - erf by its continued fraction past 2); ±inf at ±1, NaN beyond. */
export function erfinv(y: number): number {
  if (Number.isNaN(y) || Math.abs(y) > 1) return NaN;
  if (Math.abs(y) === 1) return y * Infinity;
  if (y === 0) return y;
  const a = Math.abs(y);
  // 1 - erf(x) against 1 - a (exact in float64 for a float32 a).
  const above = (x: number): boolean => (x <= 2 ? erfSmall(x) > a : erfcLarge(x) < 1 - a);
  let lo = 0;
  let hi = 6;
  for (let i = 0; i < 200 && hi - lo > 1e-17 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (above(mid)) hi = mid;
    else lo = mid;
  }
  return Math.sign(y) * (lo + hi) / 2;
}
