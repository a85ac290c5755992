/**
 * The join's hot loops in WebAssembly SIMD: the weighted sum of up to four gradients, plain Adam
 * after its first step and plain SGD, over the flat buffers in one shared WebAssembly.Memory.
 * In JS these loops run about 20x slower than the memory they touch (V8 does not vectorise them);
 * here two float64 lanes do the same arithmetic in the same order as the JS loops (reduce.ts,
 * flat-optimizer.ts), float32 promoted to float64 and demoted back with the same rounding, so the
 * results are bit-identical. A range whose buffers are not in the kernels' memory stays in JS.
 */
import { ModuleBuilder, type Body, type Local } from '../backends/cpu/wasm/emit.js';
import { wasmSimdSupported } from '../backends/cpu/wasm/module.js';
import { ArgumentError } from '../errors.js';

const I = 'i32' as const;
const F = 'f64' as const;
const V = 'v128' as const;
/** Shuffle lanes: the high two f32 of a vector into its low half (for promote_low). */
const HIGH = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];
/** Shuffle lanes: the low halves of two vectors (two demoted f64x2) as one f32x4. */
const JOIN = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];

/** The f64x2 of half h (0: lanes 0-1, 1: lanes 2-3) of an f32x4 local. */
function promote(f: Body, x: Local, h: number): void {
  if (h === 0) f.get(x).f64x2PromoteLowF32x4();
  else f.get(x).get(x).i8x16Shuffle(HIGH).f64x2PromoteLowF32x4();
}

/**
 * A loop over n floats, four at a time (`vec`, at byte offset `i` from each pointer), then one at
 * a time (`one`). Pointers are byte addresses; n is a count of floats.
 */
function loop4(f: Body, n: Local, i: Local, vec: () => void, one: () => void): void {
  const end = f.local(I);
  f.get(n).i32(-4).i32And().i32(4).i32Mul().set(end);
  f.forLt(i, () => f.i32(0), () => f.get(end), 16, vec);
  f.forLt(i, () => f.get(end), () => f.get(n).i32(4).i32Mul(), 4, one);
}

/** sum<k>(out, a, wa, b, wb, ..., n): out[j] = f32(0 + wa a[j] + wb b[j] + ...), float64 left to right. */
function emitSum(m: ModuleBuilder, k: number): void {
  const params = [I, ...Array.from({ length: k }, () => [I, F] as const).flat(), I];
  m.func(`sum${k}`, params, [], (f, args) => {
    const out = args[0]!;
    const ptr = (r: number): Local => args[1 + 2 * r]!;
    const weight = (r: number): Local => args[2 + 2 * r]!;
    const n = args[1 + 2 * k]!;
    const i = f.local(I);
    const w2 = Array.from({ length: k }, (_, r) => {
      const l = f.local(V);
      f.get(weight(r)).f64x2Splat().set(l);
      return l;
    });
    const x = Array.from({ length: k }, () => f.local(V));
    const half = [f.local(V), f.local(V)];
    loop4(
      f,
      n,
      i,
      () => {
        for (let r = 0; r < k; r++) f.get(ptr(r)).get(i).i32Add().v128Load().set(x[r]!);
        for (let h = 0; h < 2; h++) {
          f.f64x2Const(0);
          for (let r = 0; r < k; r++) {
            f.get(w2[r]!);
            promote(f, x[r]!, h);
            f.f64x2Mul().f64x2Add();
          }
          f.f32x4DemoteF64x2Zero().set(half[h]!);
        }
        f.get(out).get(i).i32Add().get(half[0]!).get(half[1]!).i8x16Shuffle(JOIN).v128Store();
      },
      () => {
        f.get(out).get(i).i32Add();
        f.f64(0);
        for (let r = 0; r < k; r++) f.get(weight(r)).get(ptr(r)).get(i).i32Add().f32Load().f64PromoteF32().f64Mul().f64Add();
        f.f32DemoteF64().f32Store();
      },
    );
  });
}

/**
 * adam(w, g, m, v, n, b1, a1, b2, a2, c1, c2, lr, eps), plain Adam after its first step:
 * m = f32(b1 m + a1 g); v = f32(b2 v + a2 g g); w = f32(w - lr ((m / c1) / (sqrt(v / c2) + eps))).
 */
function emitAdam(m: ModuleBuilder): void {
  m.func('adam', [I, I, I, I, I, F, F, F, F, F, F, F, F], [], (f, [w, g, mm, vv, n, b1, a1, b2, a2, c1, c2, lr, eps]) => {
    const i = f.local(I);
    const splat = (c: Local): Local => {
      const l = f.local(V);
      f.get(c).f64x2Splat().set(l);
      return l;
    };
    const [B1, A1, B2, A2, C1, C2, LR, EPS] = [splat(b1), splat(a1), splat(b2), splat(a2), splat(c1), splat(c2), splat(lr), splat(eps)];
    const [xw, xg, xm, xv] = [f.local(V), f.local(V), f.local(V), f.local(V)];
    const mh = [f.local(V), f.local(V)];
    const vh = [f.local(V), f.local(V)];
    const wh = [f.local(V), f.local(V)];
    const gd = f.local(V);
    const at = (p: Local): Body => f.get(p).get(i).i32Add();
    loop4(
      f,
      n,
      i,
      () => {
        at(w).v128Load().set(xw);
        at(g).v128Load().set(xg);
        at(mm).v128Load().set(xm);
        at(vv).v128Load().set(xv);
        for (let h = 0; h < 2; h++) {
          promote(f, xg, h);
          f.set(gd);
          // m, v as float32 (demoted; promoted again where used).
          f.get(B1);
          promote(f, xm, h);
          f.f64x2Mul().get(A1).get(gd).f64x2Mul().f64x2Add().f32x4DemoteF64x2Zero().set(mh[h]!);
          f.get(B2);
          promote(f, xv, h);
          f.f64x2Mul().get(A2).get(gd).f64x2Mul().get(gd).f64x2Mul().f64x2Add().f32x4DemoteF64x2Zero().set(vh[h]!);
          promote(f, xw, h);
          f.get(LR);
          f.get(mh[h]!).f64x2PromoteLowF32x4().get(C1).f64x2Div();
          f.get(vh[h]!).f64x2PromoteLowF32x4().get(C2).f64x2Div().f64x2Sqrt().get(EPS).f64x2Add();
          f.f64x2Div().f64x2Mul().f64x2Sub().f32x4DemoteF64x2Zero().set(wh[h]!);
        }
        at(mm).get(mh[0]!).get(mh[1]!).i8x16Shuffle(JOIN).v128Store();
        at(vv).get(vh[0]!).get(vh[1]!).i8x16Shuffle(JOIN).v128Store();
        at(w).get(wh[0]!).get(wh[1]!).i8x16Shuffle(JOIN).v128Store();
      },
      () => {
        const gi = f.local(F);
        const mi = f.local(F);
        const vi = f.local(F);
        at(g).f32Load().f64PromoteF32().set(gi);
        f.get(b1);
        at(mm).f32Load().f64PromoteF32().f64Mul().get(a1).get(gi).f64Mul().f64Add().f32DemoteF64().f64PromoteF32().set(mi);
        f.get(b2);
        at(vv).f32Load().f64PromoteF32().f64Mul().get(a2).get(gi).f64Mul().get(gi).f64Mul().f64Add().f32DemoteF64().f64PromoteF32().set(vi);
        at(mm).get(mi).f32DemoteF64().f32Store();
        at(vv).get(vi).f32DemoteF64().f32Store();
        at(w);
        at(w).f32Load().f64PromoteF32();
        f.get(lr).get(mi).get(c1).f64Div().get(vi).get(c2).f64Div().f64Sqrt().get(eps).f64Add().f64Div().f64Mul().f64Sub();
        f.f32DemoteF64().f32Store();
      },
    );
  });
}

/** sgd(w, g, n, lr), plain SGD: w = f32(w - lr g). */
function emitSgd(m: ModuleBuilder): void {
  m.func('sgd', [I, I, I, F], [], (f, [w, g, n, lr]) => {
    const i = f.local(I);
    const LR = f.local(V);
    f.get(lr).f64x2Splat().set(LR);
    const [xw, xg] = [f.local(V), f.local(V)];
    const wh = [f.local(V), f.local(V)];
    const at = (p: Local): Body => f.get(p).get(i).i32Add();
    loop4(
      f,
      n,
      i,
      () => {
        at(w).v128Load().set(xw);
        at(g).v128Load().set(xg);
        for (let h = 0; h < 2; h++) {
          promote(f, xw, h);
          f.get(LR);
          promote(f, xg, h);
          f.f64x2Mul().f64x2Sub().f32x4DemoteF64x2Zero().set(wh[h]!);
        }
        at(w).get(wh[0]!).get(wh[1]!).i8x16Shuffle(JOIN).v128Store();
      },
      () => {
        at(w);
        at(w).f32Load().f64PromoteF32().get(lr);
        at(g).f32Load().f64PromoteF32().f64Mul().f64Sub();
        f.f32DemoteF64().f32Store();
      },
    );
  });
}

/** The module's bytes (exported for tests). */
export function flatKernelBytes(): Uint8Array<ArrayBuffer> {
  const m = new ModuleBuilder();
  for (let k = 1; k <= 4; k++) emitSum(m, k);
  emitAdam(m);
  emitSgd(m);
  return m.encode();
}

type Fn = (...args: number[]) => void;
type Exports = Record<'sum1' | 'sum2' | 'sum3' | 'sum4' | 'adam' | 'sgd', Fn>;

function exportsOf(instance: WebAssembly.Instance): Exports {
  const get = (name: string): Fn => {
    const fn = instance.exports[name];
    if (typeof fn !== 'function') throw new ArgumentError(`internal: the join's wasm kernels do not export ${name}`, { op: 'DataParallel' });
    // A wasm export of the module above: numbers in, nothing out.
    return fn as Fn;
  };
  return { sum1: get('sum1'), sum2: get('sum2'), sum3: get('sum3'), sum4: get('sum4'), adam: get('adam'), sgd: get('sgd') };
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, once per thread; null where the engine lacks wasm SIMD or shared memory. */
function flatModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    const bytes = wasmSimdSupported() ? flatKernelBytes() : undefined;
    compiled = bytes && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  }
  return compiled;
}

/** Whether the kernels can run here (wasm SIMD and shared memory). */
export function flatKernelsSupported(): boolean {
  return flatModule() !== null;
}

export interface SumInput {
  readonly data: Float32Array;
  readonly weight: number;
}

/** The kernels instantiated on one shared memory; each call says whether it ran (false: use the JS loop). */
export class FlatKernels {
  private constructor(
    private readonly buffer: ArrayBufferLike,
    private readonly x: Exports,
  ) {}

  /** Kernels on `memory`, or undefined where they cannot run. */
  static on(memory: WebAssembly.Memory): FlatKernels | undefined {
    const mod = flatModule();
    if (!mod) return undefined;
    const instance = new WebAssembly.Instance(mod, { env: { memory } });
    return new FlatKernels(memory.buffer, exportsOf(instance));
  }

  private has(a: Float32Array): boolean {
    return a.buffer === this.buffer;
  }

  /** out[i] = sum_r inputs[r].weight * inputs[r].data[i], i in [from, to), for 1 to 4 inputs. */
  sum(out: Float32Array, inputs: readonly SumInput[], from: number, to: number): boolean {
    const [a, b, c, d] = inputs;
    if (!a || inputs.length > 4 || to <= from || !this.has(out) || !inputs.every((x) => this.has(x.data))) return false;
    const at = (x: Float32Array): number => x.byteOffset + 4 * from;
    const n = to - from;
    if (!b) this.x.sum1(at(out), at(a.data), a.weight, n);
    else if (!c) this.x.sum2(at(out), at(a.data), a.weight, at(b.data), b.weight, n);
    else if (!d) this.x.sum3(at(out), at(a.data), a.weight, at(b.data), b.weight, at(c.data), c.weight, n);
    else this.x.sum4(at(out), at(a.data), a.weight, at(b.data), b.weight, at(c.data), c.weight, at(d.data), d.weight, n);
    return true;
  }

  /** Plain Adam on [lo, hi) (the constants as in adamRange). */
  adam(w: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, lo: number, hi: number, c: { b1: number; a1: number; b2: number; a2: number; c1: number; c2: number; lr: number; eps: number }): boolean {
    if (hi <= lo || !this.has(w) || !this.has(g) || !this.has(m) || !this.has(v)) return false;
    const at = (a: Float32Array): number => a.byteOffset + 4 * lo;
    this.x.adam(at(w), at(g), at(m), at(v), hi - lo, c.b1, c.a1, c.b2, c.a2, c.c1, c.c2, c.lr, c.eps);
    return true;
  }

  /** Plain SGD on [lo, hi): w -= lr g. */
  sgd(w: Float32Array, g: Float32Array, lo: number, hi: number, lr: number): boolean {
    if (hi <= lo || !this.has(w) || !this.has(g)) return false;
    this.x.sgd(w.byteOffset + 4 * lo, g.byteOffset + 4 * lo, hi - lo, lr);
    return true;
  }
}
