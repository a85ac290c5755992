/**
 * Special functions for the elementwise table's JS expressions, in float64 (stored as float32),
 * with torch's values at the poles and edges. The WGSL prelude (src/backends/wgpu/wgsl/prelude.ts)
 * runs the same algorithms in float32.
 */
import { lgammaSeries, PSI_10 } from '../../../ir/special.js';

const LGAMMA2 = lgammaSeries(28);
const HALF_LOG_2PI = 0.9189385332046728;

/** |sin(pi x)| from x - round(x) (exact, also for tiny x), so that large arguments lose nothing. */
function sinpiAbs(x: number): number {
  return Math.abs(Math.sin(Math.PI * (x - Math.round(x))));
}

/** lgamma(2 + z) for |z| <= 1/2. */
function lgammaNear2(z: number): number {
  let s = 0;
  for (let k = LGAMMA2.length - 1; k >= 0; k--) s = (s + LGAMMA2[k]!) * z;
  return s;
}

/** log|gamma(x)|; +inf at the poles (0, -0 and the negative integers) and at ±inf, as torch. */
export function lgamma(x: number): number {
  if (x !== x) return x;
  if (x === Infinity || x === -Infinity) return Infinity;
  if (x <= 0 && x === Math.floor(x)) return Infinity;
  // Reflection: gamma(x) gamma(1 - x) = pi / sin(pi x).
  if (x < 0.5) return Math.log(Math.PI / sinpiAbs(x)) - lgamma(1 - x);
  if (x < 1.5) return lgammaNear2(x - 1) - Math.log1p(x - 1);
  if (x < 2.5) return lgammaNear2(x - 2);
  if (x < 8) {
    let y = x;
    let p = 1;
    while (y >= 2.5) {
      y -= 1;
      p *= y;
    }
    return lgammaNear2(y - 2) + Math.log(p);
  }
  // Stirling's series: the first omitted term is below 1e-10 here.
  const r = 1 / x;
  const r2 = r * r;
  return (x - 0.5) * Math.log(x) - x + HALF_LOG_2PI + r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)));
}

/**
 * torch's digamma (calc_digamma): -inf at 0 and +inf at -0, NaN at the negative integers and -inf,
 * reflection below 0, the recurrence up to 10 and the asymptotic series above.
 */
export function digamma(x: number): number {
  if (x === 0) return Object.is(x, -0) ? Infinity : -Infinity;
  if (x !== x) return x;
  if (x < 0) {
    if (x === Math.trunc(x)) return NaN;
    // tan has period pi: the fraction brought into [-1/2, 1/2] keeps pi r accurate.
    const r = x - Math.round(x);
    return digamma(1 - x) - Math.PI / Math.tan(Math.PI * r);
  }
  let result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x === 10) return result + PSI_10;
  let y = 0;
  if (x < 1e17) {
    const z = 1 / (x * x);
    y = z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z * (1 / 132 - z * (691 / 32760 - z / 12))))));
  }
  return result + Math.log(x) - 0.5 / x - y;
}

const PI_F = Math.fround(Math.PI);
const PI_F2 = Math.fround(PI_F * PI_F);

/**
 * polygamma(1, x), torch's float algorithm (calc_trigamma): the reflection reads sin of the
 * float32 product pi x, so at the negative integers the result is large and finite, as torch's.
 */
export function trigamma(x: number): number {
  let sign = 1;
  let result = 0;
  if (x < 0.5) {
    sign = -1;
    const s = Math.sin(Math.fround(PI_F * x));
    result -= PI_F2 / (s * s);
    x = 1 - x;
  }
  for (let i = 0; i < 6; i++) {
    result += 1 / (x * x);
    x += 1;
  }
  const ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) + ixx * (1 / 6 - ixx * (1 / 30 - ixx / 42))) / x;
  return sign * result;
}

/** The inverse of erf: M. Giles' approximation (relative error about 4e-7); ±inf at ±1, NaN beyond. */
export function erfinv(x: number): number {
  if (x !== x) return x;
  const a = Math.abs(x);
  if (a > 1) return NaN;
  if (a === 1) return x * Infinity;
  let w = -Math.log((1 - x) * (1 + x));
  let p: number;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-8;
    p = 3.43273939e-7 + p * w;
    p = -3.5233877e-6 + p * w;
    p = -4.39150654e-6 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = Math.sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * x;
}

/**
 * torch's float floor division (div_floor_floating), each step rounded to float32 as torch's:
 * from fmod, so inf // x is NaN; x // 0 is the IEEE quotient; a zero result takes the sign of a / b.
 */
export function divFloor(a: number, b: number): number {
  if (b === 0) return a / b;
  const mod = a % b;
  let div = Math.fround(Math.fround(a - mod) / b);
  if (mod !== 0 && b < 0 !== mod < 0) div = Math.fround(div - 1);
  if (div === 0) return a / b < 0 || Object.is(a / b, -0) ? -0 : 0;
  let fl = Math.floor(div);
  if (div - fl > 0.5) fl += 1;
  return fl;
}
