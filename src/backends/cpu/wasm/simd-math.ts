/**
 * f32x4 transcendental functions, emitted inline (V8 does not inline wasm calls, and a call per
 * four elements would cost as much as the math). Each takes its argument in a v128 local and
 * leaves the result in a fresh one. Accuracy (tested in test/cpu/wasm-math.test.ts against
 * float64): exp, log, log1p, tanh within 3 ulp, erf within 5e-7 absolute, erfc within 1e-6
 * relative.
 */
import type { Body, Local } from './emit.js';

export class Vec {
  constructor(
    readonly f: Body,
    /** Fused multiply-add from relaxed SIMD where the engine has it. */
    readonly relaxed: boolean,
  ) {}

  tmp(): Local {
    return this.f.local('v128');
  }

  /** Evaluates `emit` (which pushes one v128) into a fresh local. */
  let(emit: () => void): Local {
    const l = this.tmp();
    emit();
    this.f.set(l);
    return l;
  }

  splat(v: number): Local {
    return this.let(() => this.f.f32x4Const(v));
  }

  /** Pushes a * b + c. */
  madd(a: () => void, b: () => void, c: () => void): void {
    if (this.relaxed) {
      a();
      b();
      c();
      this.f.f32x4RelaxedMadd();
    } else {
      a();
      b();
      this.f.f32x4Mul();
      c();
      this.f.f32x4Add();
    }
  }

  /** Horner's rule: ((c[0] x + c[1]) x + c[2]) ... with c[0] the highest degree. */
  horner(x: Local, coeffs: readonly number[]): Local {
    let p = this.splat(coeffs[0]!);
    for (let i = 1; i < coeffs.length; i++) {
      const q = p;
      const c = coeffs[i]!;
      p = this.let(() => this.madd(() => this.f.get(q), () => this.f.get(x), () => this.f.f32x4Const(c)));
    }
    return p;
  }

  /** e^x: Cody-Waite reduction by ln 2, a degree-5 polynomial, and the scale 2^n applied as two factors (so overflow gives inf and underflow rounds once into subnormals). */
  exp(x: Local): Local {
    const f = this.f;
    const xc = this.let(() => f.get(x).f32x4Const(-104).f32x4Max().f32x4Const(89).f32x4Min());
    const n = this.let(() => f.get(xc).f32x4Const(1.4426950408889634).f32x4Mul().f32x4Nearest());
    const r1 = this.let(() => f.get(xc).get(n).f32x4Const(0.693359375).f32x4Mul().f32x4Sub());
    const r = this.let(() => f.get(r1).get(n).f32x4Const(-2.12194440e-4).f32x4Mul().f32x4Sub());
    const p = this.horner(r, [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1]);
    // y = p r^2 + r + 1
    const r2 = this.let(() => f.get(r).get(r).f32x4Mul());
    const y = this.let(() => this.madd(() => f.get(p), () => f.get(r2), () => f.get(r).f32x4Const(1).f32x4Add()));
    const ni = this.let(() => f.get(n).i32x4TruncSatF32x4S());
    const n1 = this.let(() => f.get(ni).i32(1).i32x4ShrS());
    const n2 = this.let(() => f.get(ni).get(n1).i32x4Sub());
    const s1 = this.let(() => f.get(n1).i32x4Const(127).i32x4Add().i32(23).i32x4Shl());
    const s2 = this.let(() => f.get(n2).i32x4Const(127).i32x4Add().i32(23).i32x4Shl());
    return this.let(() => f.get(y).get(s1).f32x4Mul().get(s2).f32x4Mul());
  }

  /** Natural log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), a degree-8 polynomial in m - 1; subnormals are scaled first; <0, 0, inf and NaN as IEEE. */
  log(x: Local): Local {
    const f = this.f;
    const sub = this.let(() => f.get(x).f32x4Const(1.1754943508222875e-38).f32x4Lt());
    const xs = this.let(() => f.get(x).f32x4Const(8388608).f32x4Mul().get(x).get(sub).v128Bitselect());
    const bits = xs; // reinterpreted as i32x4 below
    const e0 = this.let(() => f.get(bits).i32(23).i32x4ShrU().i32x4Const(126).i32x4Sub().f32x4ConvertI32x4S());
    const eAdj = this.let(() => f.get(e0).f32x4Const(-23).f32x4Const(0).get(sub).v128Bitselect().f32x4Add());
    const m0 = this.let(() => f.get(bits).i32x4Const(0x007fffff).v128And().i32x4Const(0x3f000000).v128Or());
    const lowM = this.let(() => f.get(m0).f32x4Const(0.707106781186547524).f32x4Lt());
    // m < sqrt(1/2): e -= 1, m = 2m - 1; else m = m - 1
    const e = this.let(() => f.get(eAdj).f32x4Const(1).f32x4Const(0).get(lowM).v128Bitselect().f32x4Sub());
    const m = this.let(() => f.get(m0).get(m0).f32x4Const(0).get(lowM).v128Bitselect().f32x4Add().f32x4Const(1).f32x4Sub());
    const z = this.let(() => f.get(m).get(m).f32x4Mul());
    const p = this.horner(m, [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1]);
    const y0 = this.let(() => f.get(p).get(m).f32x4Mul().get(z).f32x4Mul());
    const y1 = this.let(() => this.madd(() => f.get(e), () => f.f32x4Const(-2.12194440e-4), () => f.get(y0)));
    const y2 = this.let(() => this.madd(() => f.get(z), () => f.f32x4Const(-0.5), () => f.get(y1)));
    const r0 = this.let(() => f.get(m).get(y2).f32x4Add());
    const r = this.let(() => this.madd(() => f.get(e), () => f.f32x4Const(0.693359375), () => f.get(r0)));
    // Specials, in order: 0 -> -inf, negative -> NaN, +inf -> +inf, NaN -> NaN.
    const a = this.let(() => f.f32x4Const(-Infinity).get(r).get(x).f32x4Const(0).f32x4Eq().v128Bitselect());
    const b = this.let(() => f.f32x4Const(NaN).get(a).get(x).f32x4Const(0).f32x4Lt().v128Bitselect());
    const c = this.let(() => f.get(x).get(b).get(x).f32x4Const(Infinity).f32x4Eq().v128Bitselect());
    return this.let(() => f.get(x).get(c).get(x).get(x).f32x4Ne().v128Bitselect());
  }

  /** log(1 + x) = log(u) * x / (u - 1) with u = 1 + x rounded (Goldberg), x itself where u == 1. */
  log1p(x: Local): Local {
    const f = this.f;
    const u = this.let(() => f.get(x).f32x4Const(1).f32x4Add());
    const d = this.let(() => f.get(u).f32x4Const(1).f32x4Sub());
    const lu = this.log(u);
    const q = this.let(() => f.get(lu).get(x).get(d).f32x4Div().f32x4Mul());
    const r = this.let(() => f.get(x).get(q).get(d).f32x4Const(0).f32x4Eq().v128Bitselect());
    return this.let(() => f.get(u).get(r).get(u).f32x4Const(Infinity).f32x4Eq().v128Bitselect());
  }

  /** tanh: an odd polynomial below |x| = 0.625, 1 - 2 / (e^{2|x|} + 1) with x's sign above. */
  tanh(x: Local): Local {
    const f = this.f;
    const ax = this.let(() => f.get(x).f32x4Abs());
    const z = this.let(() => f.get(x).get(x).f32x4Mul());
    const p = this.horner(z, [-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1]);
    const xz = this.let(() => f.get(x).get(z).f32x4Mul());
    const small = this.let(() => this.madd(() => f.get(xz), () => f.get(p), () => f.get(x)));
    const e2 = this.let(() => f.get(ax).get(ax).f32x4Add());
    const e = this.exp(e2);
    const big = this.let(() => f.f32x4Const(1).f32x4Const(2).get(e).f32x4Const(1).f32x4Add().f32x4Div().f32x4Sub());
    const signed = this.let(() => f.get(big).get(x).i32x4Const(-0x80000000).v128And().v128Or());
    return this.let(() => f.get(small).get(signed).get(ax).f32x4Const(0.625).f32x4Lt().v128Bitselect());
  }

  /**
   * erfc, accurate relative to the (tiny) result in the tails, where 1 - erf(x) would cancel:
   * Numerical Recipes' Chebyshev fit t exp(-x^2 + P(t)), t = 1 / (1 + x / 2) above |x| = 0.5
   * (2 - erfc(-x) below -0.5), 1 - erf(x) between.
   */
  erfc(x: Local): Local {
    const f = this.f;
    const ax = this.let(() => f.get(x).f32x4Abs());
    const t = this.let(() => f.f32x4Const(1).f32x4Const(1).get(ax).f32x4Const(0.5).f32x4Mul().f32x4Add().f32x4Div());
    const p = this.horner(t, [0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223]);
    const arg = this.let(() => f.get(p).get(ax).get(ax).f32x4Mul().f32x4Sub());
    const e = this.exp(arg);
    const tail = this.let(() => f.get(t).get(e).f32x4Mul());
    const signed = this.let(() => f.f32x4Const(2).get(tail).f32x4Sub().get(tail).get(x).f32x4Const(0).f32x4Lt().v128Bitselect());
    const erf = this.erf(x);
    const mid = this.let(() => f.f32x4Const(1).get(erf).f32x4Sub());
    return this.let(() => f.get(mid).get(signed).get(ax).f32x4Const(0.5).f32x4Lt().v128Bitselect());
  }

  /** erf: a rational approximation on [-4, 4] (odd degree-13 over even degree-8, Eigen's / XLA's float erf); ±1 beyond. */
  erf(x: Local): Local {
    const f = this.f;
    const xc = this.let(() => f.get(x).f32x4Const(-4).f32x4Max().f32x4Const(4).f32x4Min());
    const x2 = this.let(() => f.get(xc).get(xc).f32x4Mul());
    const p = this.horner(x2, [-2.72614225801306e-10, 2.77068142495902e-8, -2.10102402082508e-6, -5.69250639462346e-5, -7.34990630326855e-4, -2.95459980854025e-3, -1.60960333262415e-2]);
    const q = this.horner(x2, [-1.45660718464996e-5, -2.13374055278905e-4, -1.68282697438203e-3, -7.37332916720468e-3, -1.42647390514189e-2]);
    // x * (p / q), not (x * p) / q: p(0) is ~0.016, so x * p underflows for |x| below ~1e-37.
    return this.let(() => f.get(xc).get(p).get(q).f32x4Div().f32x4Mul());
  }
}
