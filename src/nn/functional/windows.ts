/**
 * Sliding windows as one gather. A window table lists, for every kernel offset k and output
 * position p, the flat input position it reads (or the pad slot, one past the end). `unfold`
 * appends the pad slot to the flattened input and selects the table with `indexSelect`, so a
 * convolution or a pool is one gather plus a matmul or a reduction, and autodiff differentiates
 * it through the gather's own rule.
 */
import type { Backend } from '../../backends/backend.js';
import { fromData, full } from '../../tensor/creation.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Pads } from './args.js';

export interface WindowSpec {
  readonly inH: number;
  readonly inW: number;
  readonly kernel: readonly [number, number];
  readonly stride: readonly [number, number];
  readonly dilation: readonly [number, number];
  readonly pads: Pads;
  readonly outH: number;
  readonly outW: number;
}

export interface WindowTable {
  /** [K * P]: kernel-offset-major; values in [0, inH * inW], where inH * inW is the pad slot. */
  readonly index: Int32Array;
  /** Whether some entry reads the pad slot. */
  readonly padded: boolean;
}

/** A cache of the `size` most recently used values by key: window tables cost a loop over every window to build. */
export function lruCache<T>(size: number): (key: string, make: () => T) => T {
  const cache = new Map<string, T>();
  return (key, make) => {
    const hit = cache.get(key);
    if (hit) {
      // Refresh its place (a Map iterates in insertion order: the first key is the oldest).
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const t = make();
    cache.set(key, t);
    if (cache.size > size) cache.delete(cache.keys().next().value!);
    return t;
  };
}

const cached = lruCache<WindowTable>(64);

function keyOf(kind: string, s: WindowSpec): string {
  return `${kind}:${s.inH},${s.inW}:${s.kernel.join(',')}:${s.stride.join(',')}:${s.dilation.join(',')}:${s.pads.join(',')}:${s.outH},${s.outW}`;
}

/** The windows of a convolution or pool: output (oy, ox), offset (ki, kj) reads (oy*s - top + ki*d, ...). */
export function windowTable(s: WindowSpec): WindowTable {
  return cached(keyOf('conv', s), () => {
    const [kh, kw] = s.kernel;
    const P = s.outH * s.outW;
    const slot = s.inH * s.inW;
    const index = new Int32Array(kh * kw * P);
    let padded = false;
    for (let ki = 0; ki < kh; ki++) {
      for (let kj = 0; kj < kw; kj++) {
        const base = (ki * kw + kj) * P;
        for (let oy = 0; oy < s.outH; oy++) {
          const iy = oy * s.stride[0] - s.pads[0] + ki * s.dilation[0];
          for (let ox = 0; ox < s.outW; ox++) {
            const ix = ox * s.stride[1] - s.pads[2] + kj * s.dilation[1];
            const inside = iy >= 0 && iy < s.inH && ix >= 0 && ix < s.inW;
            if (!inside) padded = true;
            index[base + oy * s.outW + ox] = inside ? iy * s.inW + ix : slot;
          }
        }
      }
    }
    return { index, padded };
  });
}

/**
 * The windows of a max pool: windowTable's, with each window's padding moved after its real
 * elements (their row-major order kept). The first maximum then lies among the real elements, as
 * in torch (whose index starts at the first in-bounds element): a window of -Infinity values never
 * routes its gradient to a padding slot, where it would be lost.
 */
export function poolWindowTable(s: WindowSpec): WindowTable {
  return cached(keyOf('pool', s), () => {
    const plain = windowTable(s);
    return plain.padded ? compacted(plain, s.kernel[0] * s.kernel[1], s.outH * s.outW, s.inH * s.inW) : plain;
  });
}

/**
 * Each window's padding moved after its real elements (their order kept): the first maximum then
 * lies among the real elements, as torch's max pools start each window at its first in-bounds
 * element; a window of -Infinity values never routes its gradient to the pad slot. `k` window
 * elements, `P` windows, `slot` the pad slot.
 */
export function compacted(plain: WindowTable, k: number, P: number, slot: number): WindowTable {
  const index = new Int32Array(k * P).fill(slot);
  for (let p = 0; p < P; p++) {
    let next = 0;
    for (let j = 0; j < k; j++) {
      const at = plain.index[j * P + p]!;
      if (at !== slot) index[next++ * P + p] = at;
    }
  }
  return { index, padded: true };
}

/** Adaptive window i of `out` over `size`: [floor(i size / out), ceil((i + 1) size / out)). */
export function adaptiveRange(i: number, size: number, out: number): [number, number] {
  return [Math.floor((i * size) / out), Math.ceil(((i + 1) * size) / out)];
}

/**
 * The windows of adaptive max pooling: output (i, j) reads its row range times its column range,
 * row-major, then the pad slot up to the largest window's size `k`.
 */
export function adaptiveWindowTable(inH: number, inW: number, outH: number, outW: number): WindowTable {
  const k = adaptiveKernel(inH, inW, outH, outW);
  return cached(`adaptive:${inH},${inW}:${outH},${outW}`, () => {
    const P = outH * outW;
    const slot = inH * inW;
    const index = new Int32Array(k * P).fill(slot);
    let padded = false;
    for (let i = 0; i < outH; i++) {
      const [r0, r1] = adaptiveRange(i, inH, outH);
      for (let j = 0; j < outW; j++) {
        const [c0, c1] = adaptiveRange(j, inW, outW);
        const p = i * outW + j;
        let next = 0;
        for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) index[next++ * P + p] = r * inW + c;
        if (next < k) padded = true;
      }
    }
    return { index, padded };
  });
}

/** The largest adaptive window's element count (the table's kernel size). */
export function adaptiveKernel(inH: number, inW: number, outH: number, outW: number): number {
  return largestWindow(inH, outH) * largestWindow(inW, outW);
}

/** The longest adaptive window of `out` over `size`. */
export function largestWindow(size: number, out: number): number {
  let m = 0;
  for (let i = 0; i < out; i++) {
    const [a, b] = adaptiveRange(i, size, out);
    m = Math.max(m, b - a);
  }
  return m;
}

/**
 * The windows of a transposed convolution: output (oy, ox) receives input (iy, ix) through offset
 * (ki, kj) when oy = iy*s - top + ki*d; every other pairing reads the pad slot (a zero).
 */
export function transposedWindowTable(s: WindowSpec): WindowTable {
  return cached(keyOf('transposed', s), () => {
    const [kh, kw] = s.kernel;
    const P = s.outH * s.outW;
    const slot = s.inH * s.inW;
    const index = new Int32Array(kh * kw * P);
    let padded = false;
    const source = (o: number, pad: number, k: number, d: number, stride: number, size: number): number => {
      const t = o + pad - k * d;
      if (t < 0 || t % stride !== 0) return -1;
      const i = t / stride;
      return i < size ? i : -1;
    };
    for (let ki = 0; ki < kh; ki++) {
      for (let kj = 0; kj < kw; kj++) {
        const base = (ki * kw + kj) * P;
        for (let oy = 0; oy < s.outH; oy++) {
          const iy = source(oy, s.pads[0], ki, s.dilation[0], s.stride[0], s.inH);
          for (let ox = 0; ox < s.outW; ox++) {
            const ix = source(ox, s.pads[2], kj, s.dilation[1], s.stride[1], s.inW);
            const inside = iy >= 0 && ix >= 0;
            if (!inside) padded = true;
            index[base + oy * s.outW + ox] = inside ? iy * s.inW + ix : slot;
          }
        }
      }
    }
    return { index, padded };
  });
}

/**
 * x [N, C, H, W] -> [N, C, K, P]: every window's values, kernel offset by kernel offset
 * (`padValue` where a window reads outside the input).
 */
export function unfold<B extends Backend>(x: Tensor<B, 'float'>, table: WindowTable, kernelSize: number, padValue: number): Tensor<B, 'float'> {
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const flat = x.reshape([n, c, h * w]);
  const owned: Array<Tensor<B>> = [flat];
  let source = flat;
  if (table.padded) {
    // The input's dtype: cat refuses mixed dtypes (a float16 input met a float32 pad slot).
    const slot = full(x.backend, [n, c, 1], padValue, { device: x.device, dtype: x.dtype });
    source = Tensor.cat([flat, slot], 2);
    owned.push(slot, source);
  }
  const index = fromData(x.backend, table.index, { device: x.device });
  const cols = source.indexSelect(2, index);
  const out = cols.reshape([n, c, kernelSize, table.index.length / kernelSize]);
  for (const t of [...owned, index, cols]) t.dispose();
  return out;
}
