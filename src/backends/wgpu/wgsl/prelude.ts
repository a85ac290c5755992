/**
 * The helpers the elementwise table's WGSL expressions call (`sy_*`). Drivers give no NaN
 * guarantees for min/max/clamp/select and loose accuracy for transcendental builtins (Vulkan
 * allows 2^-11 absolute error for sin), so NaN tests use bits, and log, sin, cos, tanh, erf, exp
 * and pow are written out (fdlibm / Cephes float32 polynomials, own minimax fits) to float32
 * accuracy on every driver.
 * NaN and inf come from runtime bit patterns: a const-expression that is NaN or inf is a WGSL
 * shader-creation error.
 */
import { RANDOM_WGSL } from '../../../ir/random.js';
import { lgammaSeries, PSI_10 } from '../../../ir/special.js';
import { HALF_WGSL } from './half.js';

const SPECIALS = /* wgsl */ `
fn sy_nan() -> f32 { var b = 0x7fc00000u; return bitcast<f32>(b); }
fn sy_inf() -> f32 { var b = 0x7f800000u; return bitcast<f32>(b); }
fn sy_nan_b(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u; }
fn sy_inf_b(a: f32) -> bool { return (bitcast<u32>(a) & 0x7fffffffu) == 0x7f800000u; }
fn sy_isnan(a: f32) -> u32 { return select(0u, 1u, sy_nan_b(a)); }
fn sy_isinf(a: f32) -> u32 { return select(0u, 1u, sy_inf_b(a)); }
fn sy_max(a: f32, b: f32) -> f32 { if (sy_nan_b(a) || sy_nan_b(b)) { return sy_nan(); } return select(b, a, a > b); }
fn sy_min(a: f32, b: f32) -> f32 { if (sy_nan_b(a) || sy_nan_b(b)) { return sy_nan(); } return select(b, a, a < b); }
fn sy_sign(a: f32) -> f32 { if (a > 0.0) { return 1.0; } if (a < 0.0) { return -1.0; } return a; }
fn sy_truthy(a: f32) -> u32 { return select(0u, 1u, (bitcast<u32>(a) & 0x7fffffffu) != 0u); }
// min(max(a, lo), hi) keeping NaN: with lo > hi every element becomes hi (torch).
fn sy_clamp(a: f32, lo: f32, hi: f32) -> f32 { var r = a; if (r < lo) { r = lo; } if (r > hi) { r = hi; } return r; }
fn sy_iclamp(a: i32, lo: i32, hi: i32) -> i32 { var r = a; if (r < lo) { r = lo; } if (r > hi) { r = hi; } return r; }
`;

const INTEGER = /* wgsl */ `
fn sy_idiv(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  if (b == -1) { return 0 - a; }
  var q = a / b;
  if ((a % b) != 0 && ((a < 0) != (b < 0))) { q = q - 1; }
  return q;
}
fn sy_irem(a: i32, b: i32) -> i32 {
  if (b == 0 || b == -1) { return 0; }
  var r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) { r = r + b; }
  return r;
}
fn sy_ipow(a: i32, b: i32) -> i32 {
  if (b < 0) {
    if (a == 1) { return 1; }
    if (a == -1) { return select(1, -1, (b & 1) != 0); }
    return 0;
  }
  var r = 1;
  var base = a;
  var e = u32(b);
  loop {
    if (e == 0u) { break; }
    if ((e & 1u) != 0u) { r = r * base; }
    base = base * base;
    e = e >> 1u;
  }
  return r;
}
// float -> int32: truncate toward zero, NaN and inf -> 0, wrap modulo 2^32 (JS \`x | 0\`).
fn sy_f2i(a: f32) -> i32 {
  if (sy_nan_b(a) || sy_inf_b(a)) { return 0; }
  let t = trunc(a);
  if (abs(t) < 2147483648.0) { return i32(t); }
  let m = t - floor(t / 4294967296.0) * 4294967296.0;
  return bitcast<i32>(u32(m));
}
`;

const LOGS = /* wgsl */ `
// fdlibm's logf: x = 2^k * m with m in [sqrt(1/2), sqrt(2)), log(m) by a series in s = f / (2 + f).
fn sy_log(x0: f32) -> f32 {
  if (sy_nan_b(x0) || x0 < 0.0) { return sy_nan(); }
  if (x0 == 0.0) { return -sy_inf(); }
  if (sy_inf_b(x0)) { return x0; }
  var x = x0;
  var k = 0;
  if (x < 1.17549435e-38) { x = x * 33554432.0; k = -25; }
  let bits = bitcast<u32>(x);
  k = k + i32((bits >> 23u) & 0xffu) - 127;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  if (m > 1.41421356) { m = m * 0.5; k = k + 1; }
  let f = m - 1.0;
  let s = f / (2.0 + f);
  let z = s * s;
  let w = z * z;
  let t1 = w * (0.40000000596 + w * 0.22222198546);
  let t2 = z * (0.66666668653 + w * 0.28571429849);
  let r = t2 + t1;
  let hfsq = 0.5 * f * f;
  let dk = f32(k);
  return dk * 0.69313812256 - ((hfsq - (s * (hfsq + r) + dk * 9.0580006145e-06)) - f);
}
// log(1 + a). Near 0 (1 + a in [sqrt(1/2), sqrt(2))) logf's series runs on a itself, as fdlibm's
// log1pf does: no 1 + a is formed. Corrections built on (1 + a) - 1 are not used, because drivers
// may fold that expression to a (Mesa does). Elsewhere, 1 + a is exact or its rounding costs at
// most about 1 ulp of the log.
fn sy_log1p(a: f32) -> f32 {
  if (sy_nan_b(a) || a < -1.0) { return sy_nan(); }
  if (a == -1.0) { return -sy_inf(); }
  if (sy_inf_b(a)) { return a; }
  if (a < -0.29289321 || a > 0.41421356) { return sy_log(1.0 + a); }
  if (abs(a) < 1.0e-9) { return a; }
  let s = a / (2.0 + a);
  let z = s * s;
  let w = z * z;
  let r = z * (0.66666668653 + w * 0.28571429849) + w * (0.40000000596 + w * 0.22222198546);
  let hfsq = 0.5 * a * a;
  return a - (hfsq - s * (hfsq + r));
}
fn sy_sqrt(a: f32) -> f32 {
  if (a == 0.0 || sy_nan_b(a) || (sy_inf_b(a) && a > 0.0)) { return a; }
  if (a < 0.0) { return sy_nan(); }
  return sqrt(a);
}
// C99 pow (as torch.pow): pow(x, 0) = 1, pow(1, y) = 1 and pow(-1, +-inf) = 1 even for NaN.
fn sy_pow(a: f32, b: f32) -> f32 {
  if (b == 0.0 || a == 1.0) { return 1.0; }
  if (sy_nan_b(a) || sy_nan_b(b)) { return sy_nan(); }
  let ab = abs(a);
  if (sy_inf_b(b)) {
    if (ab == 1.0) { return 1.0; }
    return select(0.0, sy_inf(), (ab > 1.0) == (b > 0.0));
  }
  let integral = b == floor(b);
  let bb = abs(b);
  let odd = integral && bb < 16777216.0 && (u32(bb) & 1u) == 1u;
  if (a == 0.0) {
    if (b > 0.0) { return select(0.0, a, odd); }
    return select(sy_inf(), 1.0 / a, odd);
  }
  if (sy_inf_b(a)) {
    var r = select(0.0, sy_inf(), b > 0.0);
    if (a < 0.0 && odd) { r = -r; }
    return r;
  }
  if (a < 0.0 && !integral) { return sy_nan(); }
  // a^|b| by squaring, and beside it M^|b| for |a|'s odd significand M: every step of the former
  // is exact iff M^|b| < 2^24 (10^7, 3^15), which that loop then is too (else it rounds to >= 2^24).
  // Exact results stay exact; |b| <= 2 rounds at most twice; the rest is 2^(b log2|a|), within 1 ulp.
  var r = 0.0;
  var done = false;
  if (integral && bb <= 64.0) {
    let m24 = (bitcast<u32>(ab) & 0x007fffffu) | 0x00800000u;
    var bm = f32(m24 >> countTrailingZeros(m24));
    var pm = 1.0;
    var e = u32(bb);
    var base = ab;
    r = 1.0;
    loop {
      if (e == 0u) { break; }
      if ((e & 1u) != 0u) { r = r * base; pm = pm * bm; }
      base = base * base;
      bm = bm * bm;
      e = e >> 1u;
    }
    // 1 / a^|b| only from a normal a^|b|: a flushed or overflowed one would give inf or 0 wrongly.
    done = (pm < 16777216.0 || bb <= 2.0) && (b > 0.0 || (r >= 1.17549435e-38 && !sy_inf_b(r)));
    if (b < 0.0) { r = 1.0 / r; }
  }
  if (!done) { r = sy_pow_abs(ab, b); }
  return select(r, -r, a < 0.0 && odd);
}
// C's fmodf, exact, on the bits (musl's shift-and-subtract): a float quotient is not exact past
// 2^24 and overflows past the float range, and fma is not fused on every driver.
fn sy_fmod(a: f32, b: f32) -> f32 {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b) & 0x7fffffffu;
  let sx = ua & 0x80000000u;
  var xi = ua & 0x7fffffffu;
  if (xi <= ub) {
    if (xi == ub) { return bitcast<f32>(sx); }
    return a;
  }
  var ex = i32(xi >> 23u);
  var ey = i32(ub >> 23u);
  // Normalise both to an integer significand with its leading bit at 2^23.
  if (ex == 0) {
    var i = xi << 9u;
    loop { if ((i >> 31u) != 0u) { break; } ex = ex - 1; i = i << 1u; }
    xi = xi << u32(1 - ex);
  } else { xi = (xi & 0x007fffffu) | 0x00800000u; }
  var yi = ub;
  if (ey == 0) {
    var i = ub << 9u;
    loop { if ((i >> 31u) != 0u) { break; } ey = ey - 1; i = i << 1u; }
    yi = ub << u32(1 - ey);
  } else { yi = (yi & 0x007fffffu) | 0x00800000u; }
  loop {
    if (ex <= ey) { break; }
    if (xi >= yi) {
      xi = xi - yi;
      if (xi == 0u) { return bitcast<f32>(sx); }
    }
    xi = xi << 1u;
    ex = ex - 1;
  }
  if (xi >= yi) {
    xi = xi - yi;
    if (xi == 0u) { return bitcast<f32>(sx); }
  }
  loop { if ((xi >> 23u) != 0u) { break; } xi = xi << 1u; ex = ex - 1; }
  if (ex > 0) { xi = (xi - 0x00800000u) | (u32(ex) << 23u); } else { xi = xi >> u32(1 - ex); }
  return bitcast<f32>(xi | sx);
}
// Python / torch.remainder: the exact fmod, moved into the divisor's sign (torch's rule: r + b).
fn sy_rem(a: f32, b: f32) -> f32 {
  if (sy_nan_b(a) || sy_nan_b(b) || sy_inf_b(a) || b == 0.0) { return sy_nan(); }
  if (sy_inf_b(b)) {
    if (a == 0.0 || ((a < 0.0) == (b < 0.0))) { return a; }
    return b;
  }
  var r = sy_fmod(a, b);
  if (r != 0.0 && ((r < 0.0) != (b < 0.0))) { r = r + b; }
  return r;
}
`;

const EXPS = /* wgsl */ `
// exp, exp2, expm1 and pow to about 1 ulp. A driver's exp(x) is exp2(x * log2 e), whose rounded
// product costs tens of ulp near |x| = 88, and Vulkan lets exp2 itself be 3 + 2|x| ulp off. Extra
// precision comes from splitting values with bit masks: Veltkamp's c - (c - a) and two-sum
// corrections are algebra a driver may fold away, and fma is not fused everywhere.

// a with its 12 leading significant bits kept: a product of two such values is exact.
fn sy_hi12(a: f32) -> f32 { return bitcast<f32>(bitcast<u32>(a) & 0xfffff000u); }
// exp(r) - 1 for |r| <= ln2 / 2 (a bit more is fine): r + r^2 Q(r), Q a minimax fit (3e-9 relative).
fn sy_expm1_kernel(r: f32) -> f32 {
  let q = 0.4999999403953552 + r * (0.1666652113199234 + r * (0.04166838899254799 + r * (0.008368735201656818 + r * 0.001381455920636654)));
  return r + r * r * q;
}
// v * 2^n for v in [0.5, 2) and n in [-190, 254]: exact on the exponent bits where the result is
// normal, inf past the range, and below it one rounding (2^(n + 64), exact, then 2^-64).
fn sy_ldexp(v: f32, n: i32) -> f32 {
  let e = i32(bitcast<u32>(v) >> 23u) + n;
  if (e > 254) { return sy_inf(); }
  if (e < 1) { return v * bitcast<f32>(u32(n + 191) << 23u) * 5.421010862427522e-20; }
  return bitcast<f32>(bitcast<u32>(v) + (bitcast<u32>(n) << 23u));
}
// Cody-Waite: x - n ln2 for n = round(x / ln2), where ln2's high part has 16 bits, so that
// n ln2_hi and x - n ln2_hi are exact.
fn sy_ln2_reduce(x: f32, n: f32) -> f32 { return (x - n * 0.693145751953125) - n * 1.428606765330187e-6; }
// 2^(n + f) for an integer n and |f| <= 1/2 (a bit more is fine).
fn sy_exp2_parts(n: f32, f: f32) -> f32 { return sy_ldexp(1.0 + sy_expm1_kernel(f * 0.6931471805599453), i32(n)); }
// exp(x) 2^k (k = -1: sinh and cosh past exp's overflow).
fn sy_exp_scaled(x: f32, k: i32) -> f32 {
  let xc = min(max(x, -104.0), 90.0);
  let n = round(xc * 1.4426950408889634);
  return select(sy_ldexp(1.0 + sy_expm1_kernel(sy_ln2_reduce(xc, n)), i32(n) + k), x, sy_nan_b(x));
}
fn sy_exp(x: f32) -> f32 { return sy_exp_scaled(x, 0); }
// 2^x = 2^n exp((x - n) ln2), x - n exact.
fn sy_exp2(x: f32) -> f32 {
  let xc = min(max(x, -152.0), 130.0);
  let n = round(xc);
  return select(sy_exp2_parts(n, xc - n), x, sy_nan_b(x));
}
// expm1 = 2^n (1 + q) - 1 = (2^n - 1) + 2^n q, both parts exact for |n| <= 24; past 16.8
// exp(x) - 1 rounds once, the 1 below the result's ulp or the result within 2^-24 of -1.
fn sy_expm1(x: f32) -> f32 {
  if (sy_nan_b(x) || x == 0.0) { return x; }
  if (abs(x) > 16.8) { return sy_exp(x) - 1.0; }
  let n = round(x * 1.4426950408889634);
  let q = sy_expm1_kernel(sy_ln2_reduce(x, n));
  let t = bitcast<f32>(u32(i32(n) + 127) << 23u);
  return (t - 1.0) + t * q;
}
// log2(a) for a finite a > 0 as x + y, x of 12 bits, to about 2^-32 relative. a = 2^k m with m in
// [sqrt(1/2), sqrt(2)); log2(m) = s W(s^2), s = (m - 1) / (m + 1), W(z) = (2 / ln2)(1 + z/3 + ...).
// s, s^2 and W are carried as a 12-bit high part and a low part, so products of high parts are exact.
fn sy_log2_ext(a0: f32) -> vec2<f32> {
  var a = a0;
  var k = 0;
  if (a < 1.17549435e-38) { a = a * 16777216.0; k = -24; }
  let bits = bitcast<u32>(a);
  k = k + i32(bits >> 23u) - 127;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  if (m > 1.41421356) { m = m * 0.5; k = k + 1; }
  let f = m - 1.0;
  let d = 2.0 + f;
  let s = f / d;
  let sh = sy_hi12(s);
  let dh = sy_hi12(d);
  // s - sh = (f - sh d) / d, with d = dh + (f - (dh - 2)) exactly and sh dh exact.
  let sl = ((f - sh * dh) - sh * (f - (dh - 2.0))) / d;
  let ss = sh * sh;
  let zh = sy_hi12(ss);
  let zl = (ss - zh) + sl * (s + sh);
  let z = s * s;
  // W = 2/ln2 + (2/(3 ln2)) z + z^2 P(z) with both constants split (P: minimax, 8e-12 relative).
  let c1z = 0.961669921875 * zh;
  let rest = ((6.244567921385169e-4 + 1.2677205086220056e-4 * zh) + 0.9617966939259756 * zl) + z * z * (0.5770801901817322 + z * (0.41184842586517334 + z * 0.3378511965274811));
  let wh = sy_hi12((2.884765625 + c1z) + rest);
  let wl = ((2.884765625 - wh) + c1z) + rest;
  let p = sh * wh;
  let pl = (sh * wl + sl * wh) + sl * wl;
  let kf = f32(k);
  let hi = sy_hi12((kf + p) + pl);
  return vec2<f32>(hi, (p - (hi - kf)) + pl);
}
// |a|^b for finite a != 0 and b: 2^(b log2|a|), b split so that its high part times log2's is exact.
fn sy_pow_abs(ab: f32, b: f32) -> f32 {
  let l = sy_log2_ext(ab);
  let bh = sy_hi12(b);
  let ph = bh * l.x;
  if (abs(ph) > 256.0) { return select(0.0, sy_inf(), ph > 0.0); }
  let pl = (b - bh) * l.x + b * l.y;
  let p = ph + pl;
  if (abs(p) > 160.0) { return select(0.0, sy_inf(), p > 0.0); }
  let n = round(p);
  return sy_exp2_parts(n, (ph - n) + pl);
}
`;

const TRIG = /* wgsl */ `
// sin and cos of r in [-pi/4, pi/4] (Cephes sinf / cosf), placed in quadrant q.
fn sy_sincos_q(r: f32, q: u32) -> vec2<f32> {
  let z = r * r;
  let s = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
  let c = 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
  switch (q & 3u) {
    case 0u: { return vec2<f32>(s, c); }
    case 1u: { return vec2<f32>(c, -s); }
    case 2u: { return vec2<f32>(-s, -c); }
    default: { return vec2<f32>(-c, s); }
  }
}
// 4/pi in 24-bit steps (ARM optimized-routines' __inv_pio4), for the large-argument reduction.
fn sy_inv_pio4(i: u32) -> u32 {
  switch (i) {
    case 0u: { return 0xa2u; } case 1u: { return 0xa2f9u; } case 2u: { return 0xa2f983u; } case 3u: { return 0xa2f9836eu; }
    case 4u: { return 0xf9836e4eu; } case 5u: { return 0x836e4e44u; } case 6u: { return 0x6e4e4415u; } case 7u: { return 0x4e441529u; }
    case 8u: { return 0x441529fcu; } case 9u: { return 0x1529fc27u; } case 10u: { return 0x29fc2757u; } case 11u: { return 0xfc2757d1u; }
    case 12u: { return 0x2757d1f5u; } case 13u: { return 0x57d1f534u; } case 14u: { return 0xd1f534ddu; } case 15u: { return 0xf534ddc0u; }
    case 16u: { return 0x34ddc0dbu; } case 17u: { return 0xddc0db62u; } case 18u: { return 0xc0db6295u; } case 19u: { return 0xdb629599u; }
    case 20u: { return 0x6295993cu; } case 21u: { return 0x95993c43u; } case 22u: { return 0x993c4390u; } default: { return 0x3c439041u; }
  }
}
// a * b as 64 bits (lo, hi): WGSL has no 64-bit integers.
fn sy_mul64(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>((p00 & 0xffffu) | (mid << 16u), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
// Payne-Hanek for |x| >= 2 (ARM optimized-routines' reduce_large): |x| * 4/pi in 2.62-bit fixed
// point from a 96-bit window of 4/pi, exact; returns (r, quadrant) with r in [-pi/4, pi/4].
fn sy_reduce_large(xa: u32) -> vec2<f32> {
  let k = (xa >> 26u) & 15u;
  let xi = ((xa & 0x00ffffffu) | 0x00800000u) << ((xa >> 23u) & 7u);
  let r0lo = xi * sy_inv_pio4(k);
  let r1 = sy_mul64(xi, sy_inv_pio4(k + 4u));
  let r2hi = sy_mul64(xi, sy_inv_pio4(k + 8u)).y;
  // (r2hi | r0lo << 32) + r1, modulo 2^64.
  let lo = r2hi + r1.x;
  let hi = r0lo + r1.y + select(0u, 1u, lo < r2hi);
  let n = (hi + 0x20000000u) >> 30u;
  let shi = bitcast<i32>(hi - (n << 30u));
  // The signed remainder (hi:lo) times pi/2 / 2^62.
  let v = f32(shi) * 4294967296.0 + f32(lo);
  return vec2<f32>(v * 3.4061215800865545e-19, f32(n));
}
// sin and cos. Below 6434 a Cody-Waite reduction by pi/2 whose products are exact without fma
// (three 12-bit parts of pi/2, the quotient under 2^12); above, Payne-Hanek, exact to the float
// range. Drivers' own sin loses all accuracy there (Vulkan asks 2^-11 absolute on [-pi, pi]).
fn sy_sincos(x: f32) -> vec2<f32> {
  if (sy_nan_b(x) || sy_inf_b(x)) { return vec2<f32>(sy_nan(), sy_nan()); }
  let ax = abs(x);
  if (ax < 6434.0) {
    let q = round(x * 0.636619772367581);
    var r = x - q * 1.5703125;
    r = r - q * 4.837512969970703e-4;
    r = r - q * 7.549533620476723e-8;
    r = r - q * 2.5633440682570896e-12;
    return sy_sincos_q(r, bitcast<u32>(i32(q)));
  }
  let red = sy_reduce_large(bitcast<u32>(ax));
  let sc = sy_sincos_q(red.x, u32(red.y));
  return vec2<f32>(select(sc.x, -sc.x, x < 0.0), sc.y);
}
fn sy_sin(x: f32) -> f32 { return sy_sincos(x).x; }
fn sy_cos(x: f32) -> f32 { return sy_sincos(x).y; }
// cos(2 pi u) for u in [0, 1), reduced exactly (4u and its rounding are exact in float32).
fn sy_cos2pi(u: f32) -> f32 {
  let x = 4.0 * u;
  let q = round(x);
  return sy_sincos_q((x - q) * 1.5707963267948966, u32(q)).y;
}
// Cephes tanhf: a rational fit near 0, 1 - 2 / (e^2x + 1) elsewhere. The builtin exp's error is
// damped there (within 2 ulp on lavapipe); sy_exp gives 1 ulp at 1.3x the kernel's time.
fn sy_tanh(x: f32) -> f32 {
  if (sy_nan_b(x)) { return x; }
  let z = abs(x);
  if (z > 9.0) { return select(1.0, -1.0, x < 0.0); }
  if (z >= 0.625) {
    let r = 1.0 - 2.0 / (exp(2.0 * z) + 1.0);
    return select(r, -r, x < 0.0);
  }
  let w = x * x;
  return ((((-5.70498872745e-3 * w + 2.06390887954e-2) * w - 5.37397155531e-2) * w + 1.33314422036e-1) * w - 3.33332819422e-1) * w * x + x;
}
// 1 / (1 + e^-a) for a >= 0, e^a / (1 + e^a) below: one exp of -|a|, which cannot overflow.
fn sy_sigmoid(a: f32) -> f32 {
  let e = sy_exp(-abs(a));
  return select(e, 1.0, a >= 0.0) / (1.0 + e);
}
// Branch-free after N. Juffa's erff (about 1 ulp with fma): an odd polynomial below 0.9277,
// 1 - exp(polynomial) above; both halves are computed and one selected, so lanes of a wavefront
// never diverge (the earlier Taylor / Chebyshev split, with two divisions, made the fused GELU
// compute-bound). The large half clamps |x| to 10, where erf is 1 in float32 (no inf inside).
// Within 2 ulp with the builtin exp; sy_exp gives 1 ulp but made the GELU kernel 1.3x on lavapipe.
fn sy_erf(x: f32) -> f32 {
  let s = x * x;
  var lo = fma(-5.96761703e-4, s, 4.99119423e-3);
  lo = fma(lo, s, -2.67681349e-2);
  lo = fma(lo, s, 1.12819925e-1);
  lo = fma(lo, s, -3.76125336e-1);
  lo = fma(lo, s, 1.28379166e-1);
  lo = fma(lo, x, x);
  let t = min(abs(x), 10.0);
  var r = fma(-1.72853470e-5, t, 3.83197126e-4);
  let u = fma(-3.88396438e-3, t, 2.42546219e-2);
  r = fma(r, t * t, u);
  r = fma(r, t, -1.06777877e-1);
  r = fma(r, t, -6.34846687e-1);
  r = fma(r, t, -1.28717512e-1);
  r = fma(r, t, -t);
  let hi = 1.0 - exp(r);
  let big = select(hi, -hi, x < 0.0);
  return select(select(lo, big, abs(x) > 0.927734375), x, sy_nan_b(x));
}
`;

const MATH = /* wgsl */ `
// |a| with b's sign bit (also for -0 and NaN).
fn sy_copysign(a: f32, b: f32) -> f32 { return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(b) & 0x80000000u)); }
fn sy_tan(x: f32) -> f32 { let sc = sy_sincos(x); return sc.x / sc.y; }
// Cephes atanf for x >= 0: reduced by pi/2 above tan(3pi/8) and by pi/4 above tan(pi/8).
fn sy_atan_pos(x: f32) -> f32 {
  var y0 = 0.0;
  var r = x;
  if (x > 2.414213562373095) { y0 = 1.5707963267948966; r = -1.0 / x; }
  else if (x > 0.4142135623730950) { y0 = 0.7853981633974483; r = (x - 1.0) / (x + 1.0); }
  let z = r * r;
  return y0 + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * r + r);
}
fn sy_atan(x: f32) -> f32 {
  if (sy_nan_b(x)) { return x; }
  return sy_copysign(sy_atan_pos(abs(x)), x);
}
// C99 atan2, signed zeros and infinities included.
fn sy_atan2(y: f32, x: f32) -> f32 {
  if (sy_nan_b(x) || sy_nan_b(y)) { return sy_nan(); }
  let xneg = (bitcast<u32>(x) & 0x80000000u) != 0u;
  if (y == 0.0) { return select(y, sy_copysign(3.141592653589793, y), xneg); }
  if (sy_inf_b(x)) {
    var r = select(0.0, 3.141592653589793, xneg);
    if (sy_inf_b(y)) { r = select(0.7853981633974483, 2.356194490192345, xneg); }
    return sy_copysign(r, y);
  }
  if (sy_inf_b(y) || x == 0.0) { return sy_copysign(1.5707963267948966, y); }
  var r = sy_atan_pos(abs(y) / abs(x));
  if (xneg) { r = 3.141592653589793 - r; }
  return sy_copysign(r, y);
}
// asin and acos through atan2; (1 - x)(1 + x) keeps 1 - x^2 exact near |x| = 1.
fn sy_asin(x: f32) -> f32 { return sy_atan2(x, sy_sqrt((1.0 - x) * (1.0 + x))); }
fn sy_acos(x: f32) -> f32 { return sy_atan2(sy_sqrt((1.0 - x) * (1.0 + x)), x); }
// log2 as exponent + log2 of the mantissa, so powers of two are exact.
fn sy_log2(x0: f32) -> f32 {
  if (sy_nan_b(x0) || x0 < 0.0) { return sy_nan(); }
  if (x0 == 0.0) { return -sy_inf(); }
  if (sy_inf_b(x0)) { return x0; }
  var x = x0;
  var k = 0;
  if (x < 1.17549435e-38) { x = x * 33554432.0; k = -25; }
  let bits = bitcast<u32>(x);
  k = k + i32((bits >> 23u) & 0xffu) - 127;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  if (m > 1.41421356) { m = m * 0.5; k = k + 1; }
  return f32(k) + sy_log(m) * 1.4426950408889634;
}
// sinh near 0 from expm1 (no cancellation). Past 12, e^-|x| is below half an ulp of e^|x| / 2,
// which sy_exp_scaled halves inside, without overflowing first (exp(|x| - ln 2) would round
// |x| - ln 2 at the ulp of |x|: tens of ulp near 88).
fn sy_sinh(x: f32) -> f32 {
  if (sy_nan_b(x)) { return x; }
  let a = abs(x);
  var r: f32;
  if (a < 1.0) { let t = sy_expm1(a); r = 0.5 * (t + t / (t + 1.0)); }
  else if (a < 12.0) { let e = sy_exp(a); r = 0.5 * (e - 1.0 / e); }
  else { r = sy_exp_scaled(a, -1); }
  return sy_copysign(r, x);
}
fn sy_cosh(x: f32) -> f32 {
  if (sy_nan_b(x)) { return x; }
  let a = abs(x);
  if (a < 12.0) { let e = sy_exp(a); return 0.5 * (e + 1.0 / e); }
  return sy_exp_scaled(a, -1);
}
// asinh(x) = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); log(2|x|) past 4096, where x^2 + 1 rounds to x^2.
fn sy_asinh(x: f32) -> f32 {
  if (sy_nan_b(x)) { return x; }
  let a = abs(x);
  var r: f32;
  if (a > 4096.0) { r = sy_log(a) + 0.6931471805599453; }
  else { let a2 = a * a; r = sy_log1p(a + a2 / (1.0 + sy_sqrt(1.0 + a2))); }
  return sy_copysign(r, x);
}
// acosh(1 + t) = log1p(t + sqrt(2t + t^2)).
fn sy_acosh(x: f32) -> f32 {
  if (sy_nan_b(x) || x < 1.0) { return sy_nan(); }
  if (x > 4096.0) { return sy_log(x) + 0.6931471805599453; }
  let t = x - 1.0;
  return sy_log1p(t + sy_sqrt(2.0 * t + t * t));
}
// C99 hypot: an infinity wins over NaN; the larger magnitude is factored out.
fn sy_hypot(a: f32, b: f32) -> f32 {
  if (sy_inf_b(a) || sy_inf_b(b)) { return sy_inf(); }
  if (sy_nan_b(a) || sy_nan_b(b)) { return sy_nan(); }
  let x = abs(a);
  let y = abs(b);
  let m = max(x, y);
  if (m == 0.0) { return 0.0; }
  // Scale huge operands down before dividing: a fast reciprocal of a divisor past 2^126 is
  // subnormal and flushes to zero on some GPUs (NVIDIA), which would make r 0.
  let s = select(1.0, 5.421010862427522e-20, m > 1e30);
  let r = (min(x, y) * s) / (m * s);
  return m * sqrt(1.0 + r * r);
}
fn sy_logaddexp(a: f32, b: f32) -> f32 {
  if (sy_nan_b(a) || sy_nan_b(b)) { return sy_nan(); }
  if (sy_inf_b(a) && a == b) { return a; }
  return max(a, b) + sy_log1p(sy_exp(-abs(a - b)));
}
fn sy_xlogy(a: f32, b: f32) -> f32 {
  if (sy_nan_b(b)) { return sy_nan(); }
  if (a == 0.0) { return 0.0; }
  return a * sy_log(b);
}
`;

// Float32 forms of the CPU kernels' special functions (src/backends/cpu/kernels/special.ts): one
// algorithm each, so both backends agree at the poles and edges.
const LGAMMA2_WGSL = lgammaSeries(14)
  .map((c) => c.toPrecision(17))
  .reverse()
  .reduce((acc, c) => `(${acc} + ${c}) * z`, '0.0');

const SPECIAL = /* wgsl */ `
fn sy_xlog1py(a: f32, b: f32) -> f32 {
  if (sy_nan_b(b)) { return sy_nan(); }
  if (a == 0.0) { return 0.0; }
  return a * sy_log1p(b);
}
// torch.fmax / fmin: a NaN loses to a number; ties keep a.
fn sy_fmax(a: f32, b: f32) -> f32 { if (sy_nan_b(b)) { return a; } if (sy_nan_b(a)) { return b; } return select(a, b, a < b); }
fn sy_fmin(a: f32, b: f32) -> f32 { if (sy_nan_b(b)) { return a; } if (sy_nan_b(a)) { return b; } return select(a, b, a > b); }
// C fmod: NaN for a NaN operand, an infinite a or a zero b; a itself for an infinite b.
fn sy_cfmod(a: f32, b: f32) -> f32 {
  if (sy_nan_b(a) || sy_nan_b(b) || sy_inf_b(a) || b == 0.0) { return sy_nan(); }
  if (sy_inf_b(b)) { return a; }
  return sy_fmod(a, b);
}
fn sy_ifmod(a: i32, b: i32) -> i32 { if (b == 0 || b == -1) { return 0; } return a % b; }
// a / 0 as IEEE: NaN for 0 / 0 and NaN / 0, else an infinity with the sign of a times that of b.
fn sy_div0(a: f32, b: f32) -> f32 {
  if (a == 0.0 || sy_nan_b(a)) { return sy_nan(); }
  return bitcast<f32>(0x7f800000u | ((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u));
}
fn sy_divtrunc(a: f32, b: f32) -> f32 { if (b == 0.0) { return sy_div0(a, b); } return trunc(a / b); }
fn sy_itdiv(a: i32, b: i32) -> i32 { if (b == 0) { return 0; } if (b == -1) { return 0 - a; } return a / b; }
// torch's div_floor_floating: from fmod, so inf // x is NaN; a zero takes the sign of a / b.
fn sy_divfloor(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return sy_div0(a, b); }
  let m = sy_cfmod(a, b);
  if (sy_nan_b(m)) { return sy_nan(); }
  var d = (a - m) / b;
  if (m != 0.0 && ((b < 0.0) != (m < 0.0))) { d = d - 1.0; }
  if (d == 0.0) { return bitcast<f32>((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u); }
  var f = floor(d);
  if (d - f > 0.5) { f = f + 1.0; }
  return f;
}
// atanh(x) = log1p(2|x| / (1 - |x|)) / 2 with x's sign.
fn sy_atanh(x: f32) -> f32 {
  if (sy_nan_b(x)) { return x; }
  let a = abs(x);
  if (a > 1.0) { return sy_nan(); }
  if (a == 1.0) { return sy_copysign(sy_inf(), x); }
  return sy_copysign(0.5 * sy_log1p(2.0 * a / (1.0 - a)), x);
}
fn sy_logit(x: f32) -> f32 {
  if (sy_nan_b(x) || x < 0.0 || x > 1.0) { return sy_nan(); }
  if (x == 1.0) { return sy_inf(); }
  return sy_log(x / (1.0 - x));
}
// M. Giles' single-precision erfinv.
fn sy_erfinv(x: f32) -> f32 {
  if (sy_nan_b(x) || abs(x) > 1.0) { return sy_nan(); }
  if (abs(x) == 1.0) { return sy_copysign(sy_inf(), x); }
  var w = -sy_log((1.0 - x) * (1.0 + x));
  var p: f32;
  if (w < 5.0) {
    w = w - 2.5;
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
    w = sy_sqrt(w) - 3.0;
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
// lgamma(2 + z) for |z| <= 1/2 (the series of src/ir/special.ts).
fn sy_lgamma2(z: f32) -> f32 { return ${LGAMMA2_WGSL}; }
// lgamma for x >= 1/2.
fn sy_lgamma_pos(x: f32) -> f32 {
  if (x < 1.5) { return sy_lgamma2(x - 1.0) - sy_log1p(x - 1.0); }
  if (x < 2.5) { return sy_lgamma2(x - 2.0); }
  if (x < 8.0) {
    var y = x;
    var p = 1.0;
    loop { if (y < 2.5) { break; } y = y - 1.0; p = p * y; }
    return sy_lgamma2(y - 2.0) + sy_log(p);
  }
  let r = 1.0 / x;
  let r2 = r * r;
  return (x - 0.5) * sy_log(x) - x + 0.9189385332046728 + r * (0.08333333333333333 - r2 * (0.002777777777777778 - r2 * (0.0007936507936507937 - r2 * 0.0005952380952380952)));
}
fn sy_lgamma(x: f32) -> f32 {
  if (sy_nan_b(x)) { return x; }
  if (sy_inf_b(x) || (x <= 0.0 && x == floor(x))) { return sy_inf(); }
  if (x >= 0.5) { return sy_lgamma_pos(x); }
  // Reflection; |sin(pi x)| from x - round(x), exact (also for tiny x).
  let s = abs(sy_sin(3.141592653589793 * (x - round(x))));
  return sy_log(3.141592653589793 / s) - sy_lgamma_pos(1.0 - x);
}
// torch's calc_digamma for x > 0.
fn sy_digamma_pos(x0: f32) -> f32 {
  var x = x0;
  var result = 0.0;
  loop { if (x >= 10.0) { break; } result = result - 1.0 / x; x = x + 1.0; }
  if (x == 10.0) { return result + ${PSI_10.toPrecision(17)}; }
  var y = 0.0;
  if (x < 1e17) {
    let z = 1.0 / (x * x);
    y = z * (0.08333333333333333 - z * (0.008333333333333333 - z * (0.003968253968253968 - z * (0.004166666666666667 - z * (0.007575757575757576 - z * (0.021092796092796094 - z * 0.08333333333333333))))));
  }
  return result + sy_log(x) - 0.5 / x - y;
}
fn sy_digamma(x: f32) -> f32 {
  if (x == 0.0) { return select(-sy_inf(), sy_inf(), (bitcast<u32>(x) & 0x80000000u) != 0u); }
  if (sy_nan_b(x)) { return x; }
  if (x < 0.0) {
    if (x == trunc(x)) { return sy_nan(); }
    // tan has period pi: the fraction in [-1/2, 1/2] keeps pi r accurate.
    let r = x - round(x);
    return sy_digamma_pos(1.0 - x) - 3.141592653589793 / sy_tan(3.141592653589793 * r);
  }
  return sy_digamma_pos(x);
}
// torch's calc_trigamma (float).
fn sy_trigamma(x0: f32) -> f32 {
  var x = x0;
  var sign = 1.0;
  var result = 0.0;
  if (x < 0.5) {
    sign = -1.0;
    let s = sy_sin(3.1415927 * x);
    result = result - 9.86960506439209 / (s * s);
    x = 1.0 - x;
  }
  for (var i = 0; i < 6; i = i + 1) { result = result + 1.0 / (x * x); x = x + 1.0; }
  let ixx = 1.0 / (x * x);
  result = result + (1.0 + 1.0 / (2.0 * x) + ixx * (0.16666666666666666 - ixx * (0.03333333333333333 - ixx * 0.023809523809523808))) / x;
  return sign * result;
}
`;

const RANDOM = /* wgsl */ `
${RANDOM_WGSL}
// Box-Muller over stream positions (p, p + 1), as randomNormal in src/ir/random.ts.
fn sy_normal(seed: u32, p: u32) -> f32 {
  let u1 = 1.0 - sy_rand_unit(seed, p);
  let u2 = sy_rand_unit(seed, p + 1u);
  return sy_sqrt(-2.0 * sy_log(u1)) * sy_cos2pi(u2);
}
`;

/** Every helper; Tint drops the ones a shader does not reach. */
export const PRELUDE = [SPECIALS, INTEGER, LOGS, EXPS, TRIG, MATH, SPECIAL, HALF_WGSL].join('\n');
export const RANDOM_PRELUDE = RANDOM;
