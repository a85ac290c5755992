/**
 * The matmul kernel's wasm side (Goto's scheme, as in BLIS / XNNPACK): the driver packs a KC x NT
 * panel of B into 8-column slivers and an MT x KC block of A into 4-row slivers, then the macro
 * kernel runs a 4x8 register-blocked micro-kernel over every (4-row, 8-column) pair: eight f32x4
 * accumulators, per k two B loads, four A splat-loads and eight multiply-adds (one relaxed
 * `f32x4.relaxed_madd`, FMA, where the engine has it). 4x8 measured fastest under V8 (TurboFan
 * keeps 8 accumulators + 2 B + 1 A in the 16 xmm registers; 6x8 and 4x12 spill), and the k loop is
 * a do-while on the A pointer (a counted loop cost a third of the speed).
 */
import type { Body, Local, ModuleBuilder } from './emit.js';

export const MR = 4;
export const NR = 8;
/** Depth of one packed panel. */
export const KC = 256;
/** Largest tile of the output one task computes (A block MT_MAX x KC and B panel KC x NT_MAX fit in a 2 MB L2 together). */
export const MT_MAX = 128;
export const NT_MAX = 512;

/** Bytes of per-thread scratch the driver needs: packed A, packed B, one edge tile. */
export const MATMUL_SCRATCH = MT_MAX * KC * 4 + KC * NT_MAX * 4 + MR * NR * 4;

const I = 'i32' as const;

/** i8x16.shuffle lanes picking f32 lanes (0-3 from the first operand, 4-7 from the second). */
function lanes(...ls: number[]): number[] {
  return ls.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3]);
}

/** min(cap, total - at) as an i32 on the stack. */
function remaining(f: Body, cap: number, total: Local, at: Local): void {
  f.i32(cap).get(total).get(at).i32Sub();
  f.i32(cap).get(total).get(at).i32Sub().i32LtS();
  f.select();
}

function zeroFill(f: Body, addr: Local, bytes: () => void, tmp: Local, end: Local): void {
  f.get(addr).set(tmp);
  f.get(addr);
  bytes();
  f.i32Add().set(end);
  f.block(() =>
    f.loop(() => {
      f.get(tmp).get(end).i32GeS().brIf(1);
      f.get(tmp).f32x4Const(0).v128Store();
      f.get(tmp).i32(16).i32Add().set(tmp);
      f.br(0);
    }),
  );
}

export function emitMatmul(m: ModuleBuilder, relaxed: boolean): void {
  // packB(src, sk, sn, kc, nc, dst): B[k, j] at src + 4 (k sk + j sn) -> slivers of kc x 8.
  m.func('mm_packB', [I, I, I, I, I, I], [], (f, [src, sk, sn, kc, nc, dst]) => {
    const jb = f.local(I);
    const cols = f.local(I);
    const d = f.local(I);
    const p = f.local(I);
    const k = f.local(I);
    const c = f.local(I);
    const q = f.local(I);
    const end = f.local(I);
    const cp = Array.from({ length: NR }, () => f.local(I));
    const cv = Array.from({ length: 4 }, () => f.local('v128'));
    const t = Array.from({ length: 4 }, () => f.local('v128'));
    f.forLt(jb, () => f.i32(0), () => f.get(nc), NR, () => {
      remaining(f, NR, nc, jb);
      f.set(cols);
      f.get(dst).get(jb).get(kc).i32Mul().i32(4).i32Mul().i32Add().set(d);
      f.get(cols).i32(NR).i32Eq().get(sn).i32(1).i32Eq().i32And();
      f.if(
        () => {
          // Row-major B: each k row of the sliver is 8 contiguous floats.
          f.get(src).get(jb).i32(4).i32Mul().i32Add().set(p);
          f.forLt(k, () => f.i32(0), () => f.get(kc), 1, () => {
            f.get(d).get(p).v128Load().v128Store();
            f.get(d).get(p).v128Load(16).v128Store(16);
            f.get(d).i32(32).i32Add().set(d);
            f.get(p).get(sk).i32(4).i32Mul().i32Add().set(p);
          });
        },
        () => {
          f.get(cols).i32(NR).i32Eq().get(sk).i32(1).i32Eq().i32And();
          f.if(
            () => {
              // Column-major B (a transposed operand): 4 k of each of the 8 columns, two 4x4 transposes.
              for (let j = 0; j < NR; j++) f.get(src).get(jb).i32(j).i32Add().get(sn).i32Mul().i32(4).i32Mul().i32Add().set(cp[j]!);
              f.i32(0).set(k);
              f.block(() =>
                f.loop(() => {
                  f.get(k).i32(4).i32Add().get(kc).i32GtS().brIf(1);
                  for (let half = 0; half < 2; half++) {
                    for (let j = 0; j < 4; j++) f.get(cp[4 * half + j]!).v128Load().set(cv[j]!);
                    f.get(cv[0]!).get(cv[1]!).i8x16Shuffle(lanes(0, 4, 1, 5)).set(t[0]!);
                    f.get(cv[0]!).get(cv[1]!).i8x16Shuffle(lanes(2, 6, 3, 7)).set(t[1]!);
                    f.get(cv[2]!).get(cv[3]!).i8x16Shuffle(lanes(0, 4, 1, 5)).set(t[2]!);
                    f.get(cv[2]!).get(cv[3]!).i8x16Shuffle(lanes(2, 6, 3, 7)).set(t[3]!);
                    f.get(d).get(t[0]!).get(t[2]!).i8x16Shuffle(lanes(0, 1, 4, 5)).v128Store(16 * half);
                    f.get(d).get(t[0]!).get(t[2]!).i8x16Shuffle(lanes(2, 3, 6, 7)).v128Store(32 + 16 * half);
                    f.get(d).get(t[1]!).get(t[3]!).i8x16Shuffle(lanes(0, 1, 4, 5)).v128Store(64 + 16 * half);
                    f.get(d).get(t[1]!).get(t[3]!).i8x16Shuffle(lanes(2, 3, 6, 7)).v128Store(96 + 16 * half);
                  }
                  for (let j = 0; j < NR; j++) f.get(cp[j]!).i32(16).i32Add().set(cp[j]!);
                  f.get(d).i32(128).i32Add().set(d);
                  f.get(k).i32(4).i32Add().set(k);
                  f.br(0);
                }),
              );
              // The last kc % 4 rows.
              f.block(() =>
                f.loop(() => {
                  f.get(k).get(kc).i32GeS().brIf(1);
                  for (let j = 0; j < NR; j++) {
                    f.get(d).get(cp[j]!).f32Load().f32Store(4 * j);
                    f.get(cp[j]!).i32(4).i32Add().set(cp[j]!);
                  }
                  f.get(d).i32(32).i32Add().set(d);
                  f.get(k).i32(1).i32Add().set(k);
                  f.br(0);
                }),
              );
            },
            () => {
              f.get(cols).i32(NR).i32LtS();
              f.if(() => zeroFill(f, d, () => f.get(kc).i32(NR * 4).i32Mul(), q, end));
              // Column by column (any strides; a partial sliver).
              f.forLt(c, () => f.i32(0), () => f.get(cols), 1, () => {
                f.get(src).get(jb).get(c).i32Add().get(sn).i32Mul().i32(4).i32Mul().i32Add().set(p);
                f.get(d).get(c).i32(4).i32Mul().i32Add().set(q);
                f.forLt(k, () => f.i32(0), () => f.get(kc), 1, () => {
                  f.get(q).get(p).f32Load().f32Store();
                  f.get(q).i32(NR * 4).i32Add().set(q);
                  f.get(p).get(sk).i32(4).i32Mul().i32Add().set(p);
                });
              });
            },
          );
        },
      );
    });
  });

  // packA(src, sm, sk, mc, kc, dst): A[i, k] at src + 4 (i sm + k sk) -> slivers of kc x 4.
  m.func('mm_packA', [I, I, I, I, I, I], [], (f, [src, sm, sk, mc, kc, dst]) => {
    const ib = f.local(I);
    const rows = f.local(I);
    const d = f.local(I);
    const p = f.local(I);
    const k = f.local(I);
    const r = f.local(I);
    const q = f.local(I);
    const end = f.local(I);
    const rp = [f.local(I), f.local(I), f.local(I), f.local(I)];
    const rv = [f.local('v128'), f.local('v128'), f.local('v128'), f.local('v128')];
    const t = [f.local('v128'), f.local('v128'), f.local('v128'), f.local('v128')];
    f.forLt(ib, () => f.i32(0), () => f.get(mc), MR, () => {
      remaining(f, MR, mc, ib);
      f.set(rows);
      f.get(dst).get(ib).get(kc).i32Mul().i32(4).i32Mul().i32Add().set(d);
      f.get(rows).i32(MR).i32Eq().get(sm).i32(1).i32Eq().i32And();
      f.if(
        () => {
          // Column-major A (a transposed operand): the sliver's 4 rows are contiguous at each k.
          f.get(src).get(ib).i32(4).i32Mul().i32Add().set(p);
          f.forLt(k, () => f.i32(0), () => f.get(kc), 1, () => {
            f.get(d).get(p).v128Load().v128Store();
            f.get(d).i32(16).i32Add().set(d);
            f.get(p).get(sk).i32(4).i32Mul().i32Add().set(p);
          });
        },
        () => {
          f.get(rows).i32(MR).i32Eq().get(sk).i32(1).i32Eq().i32And();
          f.if(
            () => {
              // Row-major A: 4x4 blocks transposed in registers.
              for (let j = 0; j < MR; j++) f.get(src).get(ib).i32(j).i32Add().get(sm).i32Mul().i32(4).i32Mul().i32Add().set(rp[j]!);
              f.i32(0).set(k);
              f.block(() =>
                f.loop(() => {
                  f.get(k).i32(4).i32Add().get(kc).i32GtS().brIf(1);
                  for (let j = 0; j < MR; j++) f.get(rp[j]!).v128Load().set(rv[j]!);
                  f.get(rv[0]!).get(rv[1]!).i8x16Shuffle(lanes(0, 4, 1, 5)).set(t[0]!);
                  f.get(rv[0]!).get(rv[1]!).i8x16Shuffle(lanes(2, 6, 3, 7)).set(t[1]!);
                  f.get(rv[2]!).get(rv[3]!).i8x16Shuffle(lanes(0, 4, 1, 5)).set(t[2]!);
                  f.get(rv[2]!).get(rv[3]!).i8x16Shuffle(lanes(2, 6, 3, 7)).set(t[3]!);
                  f.get(d).get(t[0]!).get(t[2]!).i8x16Shuffle(lanes(0, 1, 4, 5)).v128Store(0);
                  f.get(d).get(t[0]!).get(t[2]!).i8x16Shuffle(lanes(2, 3, 6, 7)).v128Store(16);
                  f.get(d).get(t[1]!).get(t[3]!).i8x16Shuffle(lanes(0, 1, 4, 5)).v128Store(32);
                  f.get(d).get(t[1]!).get(t[3]!).i8x16Shuffle(lanes(2, 3, 6, 7)).v128Store(48);
                  for (let j = 0; j < MR; j++) f.get(rp[j]!).i32(16).i32Add().set(rp[j]!);
                  f.get(d).i32(64).i32Add().set(d);
                  f.get(k).i32(4).i32Add().set(k);
                  f.br(0);
                }),
              );
              // The last kc % 4 columns.
              f.block(() =>
                f.loop(() => {
                  f.get(k).get(kc).i32GeS().brIf(1);
                  for (let j = 0; j < MR; j++) {
                    f.get(d).get(rp[j]!).f32Load().f32Store(4 * j);
                    f.get(rp[j]!).i32(4).i32Add().set(rp[j]!);
                  }
                  f.get(d).i32(16).i32Add().set(d);
                  f.get(k).i32(1).i32Add().set(k);
                  f.br(0);
                }),
              );
            },
            () => {
              f.get(rows).i32(MR).i32LtS();
              f.if(() => zeroFill(f, d, () => f.get(kc).i32(MR * 4).i32Mul(), q, end));
              f.forLt(r, () => f.i32(0), () => f.get(rows), 1, () => {
                f.get(src).get(ib).get(r).i32Add().get(sm).i32Mul().i32(4).i32Mul().i32Add().set(p);
                f.get(d).get(r).i32(4).i32Mul().i32Add().set(q);
                f.forLt(k, () => f.i32(0), () => f.get(kc), 1, () => {
                  f.get(q).get(p).f32Load().f32Store();
                  f.get(q).i32(MR * 4).i32Add().set(q);
                  f.get(p).get(sk).i32(4).i32Mul().i32Add().set(p);
                });
              });
            },
          );
        },
      );
    });
  });

  // macro(Ap, Bp, C, ldcBytes, mc, nc, kc, accumulate, edge): C[mc x nc] (+)= Ap Bp; kc >= 1.
  m.func('mm_macro', [I, I, I, I, I, I, I, I, I], [], (f, [Ap, Bp, C, ldc, mc, nc, kc, accumulate, edge]) => {
    const jr = f.local(I);
    const ir = f.local(I);
    const pa = f.local(I);
    const paEnd = f.local(I);
    const pb = f.local(I);
    const pb0 = f.local(I);
    const pc = f.local(I);
    const mcur = f.local(I);
    const ncur = f.local(I);
    const r = f.local(I);
    const c = f.local(I);
    const q = f.local(I);
    const ev = f.local('f32');
    const acc = Array.from({ length: MR * 2 }, () => f.local('v128'));
    const b0 = f.local('v128');
    const b1 = f.local('v128');
    const a = f.local('v128');
    f.forLt(jr, () => f.i32(0), () => f.get(nc), NR, () => {
      f.get(Bp).get(jr).get(kc).i32Mul().i32(4).i32Mul().i32Add().set(pb0);
      remaining(f, NR, nc, jr);
      f.set(ncur);
      f.forLt(ir, () => f.i32(0), () => f.get(mc), MR, () => {
        f.get(Ap).get(ir).get(kc).i32Mul().i32(4).i32Mul().i32Add().set(pa);
        f.get(pa).get(kc).i32(MR * 4).i32Mul().i32Add().set(paEnd);
        f.get(pb0).set(pb);
        for (const x of acc) f.f32x4Const(0).set(x);
        f.loop(() => {
          f.get(pb).v128Load(0).set(b0);
          f.get(pb).v128Load(16).set(b1);
          for (let i = 0; i < MR; i++) {
            f.get(pa).v128Load32Splat(4 * i).set(a);
            for (const [j, b] of [b0, b1].entries()) {
              const x = acc[2 * i + j]!;
              if (relaxed) f.get(a).get(b).get(x).f32x4RelaxedMadd().set(x);
              else f.get(x).get(a).get(b).f32x4Mul().f32x4Add().set(x);
            }
          }
          f.get(pa).i32(MR * 4).i32Add().set(pa);
          f.get(pb).i32(NR * 4).i32Add().set(pb);
          f.get(pa).get(paEnd).i32LtS().brIf(0);
        });
        remaining(f, MR, mc, ir);
        f.set(mcur);
        f.get(C).get(ir).get(ldc).i32Mul().i32Add().get(jr).i32(4).i32Mul().i32Add().set(pc);
        f.get(mcur).i32(MR).i32Eq().get(ncur).i32(NR).i32Eq().i32And();
        f.if(
          () => {
            for (let i = 0; i < MR; i++) {
              for (let j = 0; j < 2; j++) {
                const x = acc[2 * i + j]!;
                f.get(pc);
                f.get(accumulate).if(() => f.get(pc).v128Load(16 * j).get(x).f32x4Add(), () => f.get(x), 'v128');
                f.v128Store(16 * j);
              }
              if (i < MR - 1) f.get(pc).get(ldc).i32Add().set(pc);
            }
          },
          () => {
            // A partial tile: through the edge buffer, then element by element.
            for (let i = 0; i < MR; i++) for (let j = 0; j < 2; j++) f.get(edge).get(acc[2 * i + j]!).v128Store(32 * i + 16 * j);
            f.forLt(r, () => f.i32(0), () => f.get(mcur), 1, () => {
              f.forLt(c, () => f.i32(0), () => f.get(ncur), 1, () => {
                f.get(pc).get(r).get(ldc).i32Mul().i32Add().get(c).i32(4).i32Mul().i32Add().set(q);
                f.get(edge).get(r).i32(32).i32Mul().i32Add().get(c).i32(4).i32Mul().i32Add().f32Load().set(ev);
                f.get(q);
                f.get(accumulate).if(() => f.get(q).f32Load().get(ev).f32Add(), () => f.get(ev), 'f32');
                f.f32Store();
              });
            });
          },
        );
      });
    });
  });
}
