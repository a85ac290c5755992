/**
 * Window tables for the 3-D convolutions and pools: windows.ts's tables with a depth dim. A table
 * lists, for every kernel offset k (kd, kh, kw row-major) and output position p (d, h, w
 * row-major), the flat input position d * H * W + h * W + w it reads, or the pad slot D * H * W.
 * windows.ts's `unfold` gathers them from the input seen as [N, C, 1, D * H * W].
 */
import type { Pads3d } from './args3d.js';
import { adaptiveRange, compacted, largestWindow, lruCache, type WindowTable } from './windows.js';

type Dims = readonly [number, number, number];

export interface WindowSpec3d {
  /** [D, H, W]. */
  readonly input: Dims;
  readonly kernel: Dims;
  readonly stride: Dims;
  readonly dilation: Dims;
  readonly pads: Pads3d;
  /** [D', H', W']. */
  readonly output: Dims;
}

const cached = lruCache<WindowTable>(32);

function keyOf(kind: string, s: WindowSpec3d): string {
  return `${kind}:${s.input.join(',')}:${s.kernel.join(',')}:${s.stride.join(',')}:${s.dilation.join(',')}:${s.pads.join(',')}:${s.output.join(',')}`;
}

const product = (d: Dims): number => d[0] * d[1] * d[2];

/**
 * Fills a table of kernel size K = kd kh kw: `source(dim, o, k)` is the input index that output
 * index o reads along `dim` through kernel offset k, or -1 (the pad slot).
 */
function build(s: WindowSpec3d, source: (dim: number, o: number, k: number) => number): WindowTable {
  const [kd, kh, kw] = s.kernel;
  const [od, oh, ow] = s.output;
  const [, ih, iw] = s.input;
  const P = product(s.output);
  const slot = product(s.input);
  const index = new Int32Array(kd * kh * kw * P);
  let padded = false;
  // Per dim and kernel offset, the input index of every output index (so the inner loop only adds).
  const along = (dim: number, k: number, n: number): Int32Array => Int32Array.from({ length: n }, (_, o) => source(dim, o, k));
  for (let a = 0; a < kd; a++) {
    const zs = along(0, a, od);
    for (let b = 0; b < kh; b++) {
      const ys = along(1, b, oh);
      for (let c = 0; c < kw; c++) {
        const xs = along(2, c, ow);
        let at = ((a * kh + b) * kw + c) * P;
        for (let z = 0; z < od; z++) {
          for (let y = 0; y < oh; y++) {
            const zy = zs[z]! < 0 || ys[y]! < 0 ? -1 : (zs[z]! * ih + ys[y]!) * iw;
            for (let x = 0; x < ow; x++, at++) {
              if (zy < 0 || xs[x]! < 0) {
                padded = true;
                index[at] = slot;
              } else index[at] = zy + xs[x]!;
            }
          }
        }
      }
    }
  }
  return { index, padded };
}

/** The windows of a convolution or pool: output o, offset k reads o * stride - padBefore + k * dilation per dim. */
export function windowTable3d(s: WindowSpec3d): WindowTable {
  return cached(keyOf('conv', s), () =>
    build(s, (dim, o, k) => {
      const i = o * s.stride[dim]! - s.pads[2 * dim]! + k * s.dilation[dim]!;
      return i >= 0 && i < s.input[dim]! ? i : -1;
    }),
  );
}

/**
 * The windows of a transposed convolution: output o receives input i through offset k when
 * o = i * stride - padBefore + k * dilation; every other pairing reads the pad slot (a zero).
 */
export function transposedWindowTable3d(s: WindowSpec3d): WindowTable {
  return cached(keyOf('transposed', s), () =>
    build(s, (dim, o, k) => {
      const t = o + s.pads[2 * dim]! - k * s.dilation[dim]!;
      if (t < 0 || t % s.stride[dim]! !== 0) return -1;
      const i = t / s.stride[dim]!;
      return i < s.input[dim]! ? i : -1;
    }),
  );
}

/** The windows of a max pool: windowTable3d's with each window's padding last. */
export function poolWindowTable3d(s: WindowSpec3d): WindowTable {
  return cached(keyOf('pool', s), () => {
    const plain = windowTable3d(s);
    return plain.padded ? compacted(plain, product(s.kernel), product(s.output), product(s.input)) : plain;
  });
}

/** The largest adaptive window's element count (the table's kernel size). */
export function adaptiveKernel3d(input: Dims, output: Dims): number {
  return largestWindow(input[0], output[0]) * largestWindow(input[1], output[1]) * largestWindow(input[2], output[2]);
}

/** Each output cell's adaptive window size (its element count), [D' H' W']. */
export function adaptiveSizes3d(input: Dims, output: Dims): Float32Array {
  const sizes = new Float32Array(product(output));
  const len = (i: number, dim: number): number => {
    const [a, b] = adaptiveRange(i, input[dim]!, output[dim]!);
    return b - a;
  };
  let p = 0;
  for (let z = 0; z < output[0]; z++) for (let y = 0; y < output[1]; y++) for (let x = 0; x < output[2]; x++) sizes[p++] = len(z, 0) * len(y, 1) * len(x, 2);
  return sizes;
}

/**
 * The windows of adaptive pooling: output (z, y, x) reads its depth range times its row range
 * times its column range, row-major, then the pad slot up to the largest window's size.
 */
export function adaptiveWindowTable3d(input: Dims, output: Dims): WindowTable {
  const k = adaptiveKernel3d(input, output);
  return cached(`adaptive:${input.join(',')}:${output.join(',')}`, () => {
    const [, ih, iw] = input;
    const P = product(output);
    const slot = product(input);
    const index = new Int32Array(k * P).fill(slot);
    let padded = false;
    let p = 0;
    for (let z = 0; z < output[0]; z++) {
      const [z0, z1] = adaptiveRange(z, input[0], output[0]);
      for (let y = 0; y < output[1]; y++) {
        const [y0, y1] = adaptiveRange(y, ih, output[1]);
        for (let x = 0; x < output[2]; x++, p++) {
          const [x0, x1] = adaptiveRange(x, iw, output[2]);
          let next = 0;
          for (let a = z0; a < z1; a++) for (let b = y0; b < y1; b++) for (let c = x0; c < x1; c++) index[next++ * P + p] = (a * ih + b) * iw + c;
          if (next < k) padded = true;
        }
      }
    }
    return { index, padded };
  });
}

/** One stride phase of a transposed convolution: the kernel offsets its outputs receive through, and their windows. */
export interface TransposedPhase {
  /** Flat kernel offsets (kd, kh, kw row-major), K' of them. */
  readonly offsets: Int32Array;
  /** [K' * P'] over the phase's P' output positions, in `positions` order. */
  readonly table: WindowTable;
  /** The phase's flat output positions, P' of them. */
  readonly positions: number;
}

export interface TransposedPhases {
  /** The phases whose outputs receive through some kernel offset. */
  readonly phases: readonly TransposedPhase[];
  /** The output positions that receive through none (stride > dilated kernel: gaps): zeros, after the phases'. */
  readonly gaps: number;
  /** For each flat output position, its place in the phases' outputs concatenated (then the gaps). */
  readonly order: Int32Array;
}

/**
 * A strided transposed convolution by stride phases: output o (per dim) receives input i through
 * offset k only where o + pad - k dilation = i stride, so the outputs with one (o + pad) mod stride
 * share the offsets k with (o + pad - k dilation) mod stride = 0 and no others. Each phase is then
 * an ordinary gather-and-matmul over its offsets alone: stride^3 times less gathered than
 * transposedWindowTable3d, whose windows are mostly the zero slot.
 */
export function transposedPhases3d(s: WindowSpec3d): TransposedPhases {
  return phaseCache(keyOf('phases', s), () => buildPhases(s));
}

function buildPhases(s: WindowSpec3d): TransposedPhases {
  const slot = product(s.input);
  // Per dim and residue r: the kernel offsets and the output indices of that residue.
  const perDim = [0, 1, 2].map((dim) => {
    const st = s.stride[dim]!;
    const pad = s.pads[2 * dim]!;
    return Array.from({ length: st }, (_, r) => ({
      ks: Array.from({ length: s.kernel[dim]! }, (_, k) => k).filter((k) => (((r - k * s.dilation[dim]!) % st) + st) % st === 0),
      os: Array.from({ length: s.output[dim]! }, (_, o) => o).filter((o) => (o + pad) % st === r),
    }));
  });
  const source = (dim: number, o: number, k: number): number => {
    const i = (o + s.pads[2 * dim]! - k * s.dilation[dim]!) / s.stride[dim]!;
    return i >= 0 && i < s.input[dim]! ? i : -1;
  };
  const [, kh, kw] = s.kernel;
  const [, oh, ow] = s.output;
  const [, ih, iw] = s.input;
  const phases: TransposedPhase[] = [];
  const placed: number[] = [];
  const gapPositions: number[] = [];
  for (const a of perDim[0]!) {
    for (const b of perDim[1]!) {
      for (const c of perDim[2]!) {
        const positions: number[] = [];
        for (const z of a.os) for (const y of b.os) for (const x of c.os) positions.push((z * oh + y) * ow + x);
        if (positions.length === 0) continue;
        if (a.ks.length * b.ks.length * c.ks.length === 0) {
          gapPositions.push(...positions);
          continue;
        }
        const offsets: number[] = [];
        for (const kz of a.ks) for (const ky of b.ks) for (const kx of c.ks) offsets.push((kz * kh + ky) * kw + kx);
        const P = positions.length;
        const index = new Int32Array(offsets.length * P);
        let padded = false;
        let at = 0;
        for (const kz of a.ks) {
          for (const ky of b.ks) {
            for (const kx of c.ks) {
              for (const z of a.os) {
                const iz = source(0, z, kz);
                for (const y of b.os) {
                  const iy = source(1, y, ky);
                  for (const x of c.os) {
                    const ix = source(2, x, kx);
                    const inside = iz >= 0 && iy >= 0 && ix >= 0;
                    if (!inside) padded = true;
                    index[at++] = inside ? (iz * ih + iy) * iw + ix : slot;
                  }
                }
              }
            }
          }
        }
        phases.push({ offsets: Int32Array.from(offsets), table: { index, padded }, positions: P });
        placed.push(...positions);
      }
    }
  }
  const order = new Int32Array(product(s.output));
  [...placed, ...gapPositions].forEach((p, i) => (order[p] = i));
  return { phases, gaps: gapPositions.length, order };
}

const phaseCache = lruCache<TransposedPhases>(32);
