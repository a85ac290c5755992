/**
 * Float reductions and softmax in wasm. Sums accumulate in float64 (f64x2 lanes), as the JS
 * kernels do; max / min propagate NaN. Two layouts:
 * - rows: the reduced elements are contiguous (`rd_<op>_rows`, `sm_rows`): f32x4 loads along a row;
 * - cols: the reduced dim is an outer one and the outputs are contiguous (`rd_<op>_cols`, e.g. a
 *   bias gradient, sum over the batch): eight outputs at a time, walking down the rows.
 */
import type { Body, Local, ModuleBuilder } from './emit.js';
import { Vec } from './simd-math.js';

const I = 'i32' as const;

export type FloatReduce = 'sum' | 'mean' | 'max' | 'min';
export const FLOAT_REDUCES: readonly FloatReduce[] = ['sum', 'mean', 'max', 'min'];

/** Adds the two f64x2 halves of an f32x4 local into two f64x2 accumulators. */
function addWide(f: Body, x: Local, lo: Local, hi: Local): void {
  f.get(lo).get(x).f64x2PromoteLowF32x4().f64x2Add().set(lo);
  f.get(hi).get(x).get(x).i8x16Shuffle([8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15]).f64x2PromoteLowF32x4().f64x2Add().set(hi);
}

function emitRows(m: ModuleBuilder, op: FloatReduce): void {
  // rd_<op>_rows(x, n, rows, rowStride (elements), out): out[r] = op(x[r rowStride + 0 .. n)).
  m.func(`rd_${op}_rows`, [I, I, I, I, I], [], (f, [x, n, rows, rowStride, out]) => {
    const row = f.local(I);
    const p = f.local(I);
    const end = f.local(I);
    const v = f.local('v128');
    const lo = f.local('v128');
    const hi = f.local('v128');
    const s = f.local('f64');
    const mv = f.local('f32');
    const isSum = op === 'sum' || op === 'mean';
    f.forLt(row, () => f.i32(0), () => f.get(rows), 1, () => {
      f.get(x).get(row).get(rowStride).i32Mul().i32(4).i32Mul().i32Add().set(p);
      f.get(p).get(n).i32(-4).i32And().i32(4).i32Mul().i32Add().set(end);
      if (isSum) {
        f.f64x2Const(0).set(lo);
        f.f64x2Const(0).set(hi);
      } else {
        f.f32x4Const(op === 'max' ? -Infinity : Infinity).set(v);
      }
      f.block(() =>
        f.loop(() => {
          f.get(p).get(end).i32GeS().brIf(1);
          if (isSum) {
            const t = f.local('v128');
            f.get(p).v128Load().set(t);
            addWide(f, t, lo, hi);
          } else {
            f.get(v).get(p).v128Load();
            if (op === 'max') f.f32x4Max();
            else f.f32x4Min();
            f.set(v);
          }
          f.get(p).i32(16).i32Add().set(p);
          f.br(0);
        }),
      );
      // Horizontal, then the tail.
      f.get(x).get(row).get(rowStride).i32Mul().get(n).i32Add().i32(4).i32Mul().i32Add().set(end);
      if (isSum) {
        f.get(lo).get(hi).f64x2Add().set(lo);
        f.get(lo).f64x2ExtractLane(0).get(lo).f64x2ExtractLane(1).f64Add().set(s);
        f.block(() =>
          f.loop(() => {
            f.get(p).get(end).i32GeS().brIf(1);
            f.get(s).get(p).f32Load().f64PromoteF32().f64Add().set(s);
            f.get(p).i32(4).i32Add().set(p);
            f.br(0);
          }),
        );
        f.get(out).get(row).i32(4).i32Mul().i32Add();
        f.get(s);
        if (op === 'mean') f.get(n).f64ConvertI32S().f64Div();
        f.f32DemoteF64().f32Store();
      } else {
        const combine = () => (op === 'max' ? f.f32Max() : f.f32Min());
        f.get(v).f32x4ExtractLane(0).get(v).f32x4ExtractLane(1);
        combine();
        f.get(v).f32x4ExtractLane(2);
        combine();
        f.get(v).f32x4ExtractLane(3);
        combine();
        f.set(mv);
        f.block(() =>
          f.loop(() => {
            f.get(p).get(end).i32GeS().brIf(1);
            f.get(mv).get(p).f32Load();
            combine();
            f.set(mv);
            f.get(p).i32(4).i32Add().set(p);
            f.br(0);
          }),
        );
        f.get(out).get(row).i32(4).i32Mul().i32Add().get(mv).f32Store();
      }
    });
  });
}

function emitCols(m: ModuleBuilder, op: FloatReduce): void {
  // rd_<op>_cols(x, n, stride (elements between reduced elements), cols, out): out[j] = op_i x[i stride + j], j < cols.
  m.func(`rd_${op}_cols`, [I, I, I, I, I], [], (f, [x, n, stride, cols, out]) => {
    const j = f.local(I);
    const i = f.local(I);
    const p = f.local(I);
    const isSum = op === 'sum' || op === 'mean';
    const acc = Array.from({ length: isSum ? 4 : 2 }, () => f.local('v128'));
    const t = [f.local('v128'), f.local('v128')];
    const s = f.local('f64');
    const mv = f.local('f32');
    // Eight columns at a time.
    f.i32(0).set(j);
    f.block(() =>
      f.loop(() => {
        f.get(j).i32(8).i32Add().get(cols).i32GtS().brIf(1);
        for (const a of acc) {
          if (isSum) f.f64x2Const(0).set(a);
          else f.f32x4Const(op === 'max' ? -Infinity : Infinity).set(a);
        }
        f.get(x).get(j).i32(4).i32Mul().i32Add().set(p);
        f.forLt(i, () => f.i32(0), () => f.get(n), 1, () => {
          f.get(p).v128Load(0).set(t[0]!);
          f.get(p).v128Load(16).set(t[1]!);
          if (isSum) {
            addWide(f, t[0]!, acc[0]!, acc[1]!);
            addWide(f, t[1]!, acc[2]!, acc[3]!);
          } else {
            for (let h = 0; h < 2; h++) {
              f.get(acc[h]!).get(t[h]!);
              if (op === 'max') f.f32x4Max();
              else f.f32x4Min();
              f.set(acc[h]!);
            }
          }
          f.get(p).get(stride).i32(4).i32Mul().i32Add().set(p);
        });
        const o = () => f.get(out).get(j).i32(4).i32Mul().i32Add();
        if (isSum) {
          for (let h = 0; h < 2; h++) {
            // Two f64x2 -> one f32x4 (demote each, then join the low halves).
            o();
            for (const a of [acc[2 * h]!, acc[2 * h + 1]!]) {
              f.get(a);
              if (op === 'mean') f.get(n).f64ConvertI32S().f64x2Splat().f64x2Div();
              f.f32x4DemoteF64x2Zero();
            }
            f.i8x16Shuffle([0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]);
            f.v128Store(16 * h);
          }
        } else {
          o().get(acc[0]!).v128Store(0);
          o().get(acc[1]!).v128Store(16);
        }
        f.get(j).i32(8).i32Add().set(j);
        f.br(0);
      }),
    );
    // The last cols % 8 columns, one at a time.
    f.block(() =>
      f.loop(() => {
        f.get(j).get(cols).i32GeS().brIf(1);
        f.get(x).get(j).i32(4).i32Mul().i32Add().set(p);
        if (isSum) f.f64(0).set(s);
        else f.f32(op === 'max' ? -Infinity : Infinity).set(mv);
        f.forLt(i, () => f.i32(0), () => f.get(n), 1, () => {
          if (isSum) f.get(s).get(p).f32Load().f64PromoteF32().f64Add().set(s);
          else {
            f.get(mv).get(p).f32Load();
            if (op === 'max') f.f32Max();
            else f.f32Min();
            f.set(mv);
          }
          f.get(p).get(stride).i32(4).i32Mul().i32Add().set(p);
        });
        f.get(out).get(j).i32(4).i32Mul().i32Add();
        if (isSum) {
          f.get(s);
          if (op === 'mean') f.get(n).f64ConvertI32S().f64Div();
          f.f32DemoteF64();
        } else f.get(mv);
        f.f32Store();
        f.get(j).i32(1).i32Add().set(j);
        f.br(0);
      }),
    );
  });
}

/**
 * sm_rows(x, out, n, rows, rowStride, log): softmax (log = 0) or log-softmax (log = 1) of `rows`
 * contiguous rows of n elements; out rows are contiguous. A NaN anywhere in a row makes the row
 * NaN (the max is NaN), as the JS kernel.
 */
function emitSoftmax(m: ModuleBuilder, relaxed: boolean): void {
  m.func('sm_rows', [I, I, I, I, I, I], [], (f, [x, out, n, rows, rowStride, log]) => {
    const v = new Vec(f, relaxed);
    const row = f.local(I);
    const px = f.local(I);
    const po = f.local(I);
    const i = f.local(I);
    const cnt = f.local(I);
    const mx = f.local('v128');
    const lo = f.local('v128');
    const hi = f.local('v128');
    const zs = f.local('v128');
    const lz = f.local('v128');
    const mxs = f.local('f32');

    /** Loads up to 4 elements at px (lanes >= cnt get `fill`) into a fresh local. */
    const loadPartial = (fill: number): Local => {
      const l = v.let(() => f.f32x4Const(fill));
      for (let lane = 0; lane < 4; lane++) {
        f.get(cnt).i32(lane).i32GtS();
        f.if(() => f.get(l).get(px).f32Load(4 * lane).f32x4ReplaceLane(lane).set(l));
      }
      return l;
    };
    const storePartial = (val: Local) => {
      for (let lane = 0; lane < 4; lane++) {
        f.get(cnt).i32(lane).i32GtS();
        f.if(() => f.get(po).get(val).f32x4ExtractLane(lane).f32Store(4 * lane));
      }
    };
    /** for (i = 0; i < n; i += 4) with cnt = min(4, n - i) and px / po advanced. */
    const chunks = (body: () => void) => {
      f.get(x).get(row).get(rowStride).i32Mul().i32(4).i32Mul().i32Add().set(px);
      f.get(out).get(row).get(n).i32Mul().i32(4).i32Mul().i32Add().set(po);
      f.forLt(i, () => f.i32(0), () => f.get(n), 4, () => {
        f.get(n).get(i).i32Sub().set(cnt);
        body();
        f.get(px).i32(16).i32Add().set(px);
        f.get(po).i32(16).i32Add().set(po);
      });
    };
    /** A full 4-lane chunk (v128 load) or a partial one. */
    const load = (fill: number): Local => {
      const l = f.local('v128');
      f.get(cnt).i32(4).i32GeS();
      f.if(
        () => f.get(px).v128Load().set(l),
        () => {
          const p = loadPartial(fill);
          f.get(p).set(l);
        },
      );
      return l;
    };

    f.forLt(row, () => f.i32(0), () => f.get(rows), 1, () => {
      // Max (NaN-propagating).
      f.f32x4Const(-Infinity).set(mx);
      chunks(() => {
        const t = load(-Infinity);
        f.get(mx).get(t).f32x4Max().set(mx);
      });
      f.get(mx).f32x4ExtractLane(0).get(mx).f32x4ExtractLane(1).f32Max().get(mx).f32x4ExtractLane(2).f32Max().get(mx).f32x4ExtractLane(3).f32Max().set(mxs);
      f.get(mxs).f32x4Splat().set(mx);
      // exp(x - max): summed in float64; softmax stores it for the division pass.
      f.f64x2Const(0).set(lo);
      f.f64x2Const(0).set(hi);
      chunks(() => {
        const t = load(-Infinity);
        const d = v.let(() => f.get(t).get(mx).f32x4Sub());
        // Unused lanes hold -inf: exp(-inf - max) = 0 unless max is -inf or NaN, and then the row is NaN anyway.
        const e = v.exp(d);
        addWide(f, e, lo, hi);
        f.get(log).i32Eqz();
        f.if(() => {
          f.get(cnt).i32(4).i32GeS();
          f.if(() => f.get(po).get(e).v128Store(), () => storePartial(e));
        });
      });
      f.get(lo).get(hi).f64x2Add().set(lo);
      f.get(lo).f64x2ExtractLane(0).get(lo).f64x2ExtractLane(1).f64Add().f32DemoteF64().f32x4Splat().set(zs);
      f.get(log).if(
        () => {
          // x - max - log(z)
          const l = v.log(zs);
          f.get(l).set(lz);
          chunks(() => {
            const t = load(0);
            const r = v.let(() => f.get(t).get(mx).f32x4Sub().get(lz).f32x4Sub());
            f.get(cnt).i32(4).i32GeS();
            f.if(() => f.get(po).get(r).v128Store(), () => storePartial(r));
          });
        },
        () => {
          // exp(x - max) / z, in place in out.
          f.get(out).get(row).get(n).i32Mul().i32(4).i32Mul().i32Add().set(po);
          f.forLt(i, () => f.i32(0), () => f.get(n), 4, () => {
            f.get(n).get(i).i32Sub().set(cnt);
            f.get(cnt).i32(4).i32GeS();
            f.if(
              () => f.get(po).get(po).v128Load().get(zs).f32x4Div().v128Store(),
              () => {
                for (let lane = 0; lane < 4; lane++) {
                  f.get(cnt).i32(lane).i32GtS();
                  f.if(() => f.get(po).get(po).f32Load(4 * lane).get(zs).f32x4ExtractLane(0).f32Div().f32Store(4 * lane));
                }
              },
            );
            f.get(po).i32(16).i32Add().set(po);
          });
        },
      );
    });
  });
}

export function emitReductions(m: ModuleBuilder, relaxed: boolean): void {
  for (const op of FLOAT_REDUCES) {
    emitRows(m, op);
    emitCols(m, op);
  }
  emitSoftmax(m, relaxed);
}
