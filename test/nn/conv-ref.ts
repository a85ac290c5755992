/**
 * Float64 references for convolutions and pooling, written as direct loops over the output (or,
 * for transposed convolutions, as the scatter of every input pixel), independently of the
 * library's gather formulation.
 */
export interface Nd {
  readonly shape: readonly number[];
  readonly data: Float64Array;
}

export function nd(shape: readonly number[], data: ArrayLike<number>): Nd {
  return { shape: [...shape], data: Float64Array.from(data) };
}

/** A seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values uniform in [-1, 1], rounded to float32 (so the library sees exactly the reference's inputs). */
export function randn(shape: readonly number[], next: () => number): Nd {
  const n = shape.reduce((a, b) => a * b, 1);
  return nd(shape, Array.from({ length: n }, () => Math.fround(next() * 2 - 1)));
}

export interface Conv2dRefOptions {
  stride?: [number, number];
  pads?: [number, number, number, number];
  dilation?: [number, number];
  groups?: number;
  bias?: Nd;
}

/** out[n][o][y][x] = b[o] + sum over c in o's group, i, j of in[n][c][y s - top + i d][x s - left + j d] w[o][c'][i][j]. */
export function conv2dRef(x: Nd, w: Nd, o: Conv2dRefOptions = {}): Nd {
  const [N, C, H, W] = x.shape as [number, number, number, number];
  const [O, CG, KH, KW] = w.shape as [number, number, number, number];
  const [sh, sw] = o.stride ?? [1, 1];
  const [top, bottom, left, right] = o.pads ?? [0, 0, 0, 0];
  const [dh, dw] = o.dilation ?? [1, 1];
  const G = o.groups ?? 1;
  const OH = Math.floor((H + top + bottom - dh * (KH - 1) - 1) / sh) + 1;
  const OW = Math.floor((W + left + right - dw * (KW - 1) - 1) / sw) + 1;
  const out = new Float64Array(N * O * OH * OW);
  const opg = O / G;
  for (let n = 0; n < N; n++)
    for (let oc = 0; oc < O; oc++) {
      const g = Math.floor(oc / opg);
      for (let oy = 0; oy < OH; oy++)
        for (let ox = 0; ox < OW; ox++) {
          let s = o.bias ? o.bias.data[oc]! : 0;
          for (let cc = 0; cc < CG; cc++) {
            const c = g * CG + cc;
            for (let i = 0; i < KH; i++)
              for (let j = 0; j < KW; j++) {
                const iy = oy * sh - top + i * dh;
                const ix = ox * sw - left + j * dw;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                s += x.data[((n * C + c) * H + iy) * W + ix]! * w.data[((oc * CG + cc) * KH + i) * KW + j]!;
              }
          }
          out[((n * O + oc) * OH + oy) * OW + ox] = s;
        }
    }
  return { shape: [N, O, OH, OW], data: out };
}

export interface ConvT2dRefOptions {
  stride?: [number, number];
  padding?: [number, number];
  outputPadding?: [number, number];
  dilation?: [number, number];
  groups?: number;
  bias?: Nd;
}

/** Each input pixel scatters its kernel-weighted copy into the output (the definition of conv_transpose2d). */
export function convTranspose2dRef(x: Nd, w: Nd, o: ConvT2dRefOptions = {}): Nd {
  const [N, C, H, W] = x.shape as [number, number, number, number];
  const [, OG, KH, KW] = w.shape as [number, number, number, number];
  const [sh, sw] = o.stride ?? [1, 1];
  const [ph, pw] = o.padding ?? [0, 0];
  const [oph, opw] = o.outputPadding ?? [0, 0];
  const [dh, dw] = o.dilation ?? [1, 1];
  const G = o.groups ?? 1;
  const O = OG * G;
  const OH = (H - 1) * sh - 2 * ph + dh * (KH - 1) + oph + 1;
  const OW = (W - 1) * sw - 2 * pw + dw * (KW - 1) + opw + 1;
  const out = new Float64Array(N * O * OH * OW);
  const cpg = C / G;
  for (let n = 0; n < N; n++)
    for (let c = 0; c < C; c++) {
      const g = Math.floor(c / cpg);
      for (let iy = 0; iy < H; iy++)
        for (let ix = 0; ix < W; ix++) {
          const v = x.data[((n * C + c) * H + iy) * W + ix]!;
          for (let oo = 0; oo < OG; oo++)
            for (let i = 0; i < KH; i++)
              for (let j = 0; j < KW; j++) {
                const oy = iy * sh - ph + i * dh;
                const ox = ix * sw - pw + j * dw;
                if (oy < 0 || oy >= OH || ox < 0 || ox >= OW) continue;
                const oc = g * OG + oo;
                const at = ((n * O + oc) * OH + oy) * OW + ox;
                out[at] = out[at]! + v * w.data[((c * OG + oo) * KH + i) * KW + j]!;
              }
        }
    }
  if (o.bias) for (let i = 0; i < out.length; i++) out[i] = out[i]! + o.bias.data[Math.floor(i / (OH * OW)) % O]!;
  return { shape: [N, O, OH, OW], data: out };
}

export interface Pool2dRefOptions {
  kernel: [number, number];
  stride?: [number, number];
  padding?: [number, number];
  dilation?: [number, number];
  ceilMode?: boolean;
  countIncludePad?: boolean;
  divisorOverride?: number;
}

function poolOut(size: number, k: number, s: number, p: number, d: number, ceil: boolean): number {
  const span = d * (k - 1) + 1;
  const exact = (size + 2 * p - span) / s;
  let n = (ceil ? Math.ceil(exact) : Math.floor(exact)) + 1;
  if (ceil && (n - 1) * s >= size + p) n--;
  return n;
}

/** A pooling window's sizes and the output size, with the options' defaults filled in. */
function poolGeometry(x: Nd, o: Pool2dRefOptions): Record<'N' | 'C' | 'H' | 'W' | 'kh' | 'kw' | 'sh' | 'sw' | 'ph' | 'pw' | 'dh' | 'dw' | 'OH' | 'OW', number> {
  const [N, C, H, W] = x.shape as [number, number, number, number];
  const [kh, kw] = o.kernel;
  const [sh, sw] = o.stride ?? o.kernel;
  const [ph, pw] = o.padding ?? [0, 0];
  const [dh, dw] = o.dilation ?? [1, 1];
  const OH = poolOut(H, kh, sh, ph, dh, o.ceilMode ?? false);
  const OW = poolOut(W, kw, sw, pw, dw, o.ceilMode ?? false);
  return { N, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, OH, OW };
}

/** Max (or average) over each window, visiting the window's cells one by one. */
export function pool2dRef(x: Nd, kind: 'max' | 'avg', o: Pool2dRefOptions): Nd {
  const { N, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, OH, OW } = poolGeometry(x, o);
  const out = new Float64Array(N * C * OH * OW);
  for (let nc = 0; nc < N * C; nc++)
    for (let oy = 0; oy < OH; oy++)
      for (let ox = 0; ox < OW; ox++) {
        let best = -Infinity;
        let sum = 0;
        let inside = 0;
        let inPadded = 0;
        for (let i = 0; i < kh; i++)
          for (let j = 0; j < kw; j++) {
            const iy = oy * sh - ph + i * dh;
            const ix = ox * sw - pw + j * dw;
            if (iy >= -ph && iy < H + ph && ix >= -pw && ix < W + pw) inPadded++;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            const v = x.data[(nc * H + iy) * W + ix]!;
            inside++;
            sum += v;
            if (v > best || Number.isNaN(v)) best = Number.isNaN(best) ? best : v;
          }
        const divisor = o.divisorOverride ?? ((o.countIncludePad ?? true) ? inPadded : inside);
        out[(nc * OH + oy) * OW + ox] = kind === 'max' ? best : sum / divisor;
      }
  return { shape: [N, C, OH, OW], data: out };
}

/**
 * The input gradient of max pooling for an output gradient `dy`: each window's gradient goes to
 * its first maximum in row-major order (a NaN counts as the maximum), as PyTorch routes it.
 */
export function maxPool2dGradRef(x: Nd, dy: Nd, o: Pool2dRefOptions): Nd {
  const { N, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, OH, OW } = poolGeometry(x, o);
  const dx = new Float64Array(N * C * H * W);
  for (let nc = 0; nc < N * C; nc++)
    for (let oy = 0; oy < OH; oy++)
      for (let ox = 0; ox < OW; ox++) {
        let at = -1;
        let best = -Infinity;
        for (let i = 0; i < kh; i++)
          for (let j = 0; j < kw; j++) {
            const iy = oy * sh - ph + i * dh;
            const ix = ox * sw - pw + j * dw;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            const k = (nc * H + iy) * W + ix;
            const v = x.data[k]!;
            if (Number.isNaN(best)) continue;
            if (at < 0 || v > best || Number.isNaN(v)) {
              at = k;
              best = v;
            }
          }
        if (at >= 0) dx[at]! += dy.data[(nc * OH + oy) * OW + ox]!;
      }
  return { shape: [N, C, H, W], data: dx };
}

/** Adaptive average pooling: output cell (i, j) averages rows [floor(i H / oh), ceil((i + 1) H / oh)) and likewise for columns. */
export function adaptiveAvgPool2dRef(x: Nd, oh: number, ow: number): Nd {
  const [N, C, H, W] = x.shape as [number, number, number, number];
  const out = new Float64Array(N * C * oh * ow);
  for (let nc = 0; nc < N * C; nc++)
    for (let i = 0; i < oh; i++)
      for (let j = 0; j < ow; j++) {
        const y0 = Math.floor((i * H) / oh);
        const y1 = Math.ceil(((i + 1) * H) / oh);
        const x0 = Math.floor((j * W) / ow);
        const x1 = Math.ceil(((j + 1) * W) / ow);
        let s = 0;
        for (let y = y0; y < y1; y++) for (let xx = x0; xx < x1; xx++) s += x.data[(nc * H + y) * W + xx]!;
        out[(nc * oh + i) * ow + j] = s / ((y1 - y0) * (x1 - x0));
      }
  return { shape: [N, C, oh, ow], data: out };
}

/** Central finite differences of sum(f(inputs) * weights) with respect to every element of every input. */
export function numericGrads(inputs: readonly Nd[], f: (xs: Nd[]) => Nd, weights: ArrayLike<number>, h = 1e-5): number[][] {
  const loss = (xs: Nd[]): number => {
    const y = f(xs);
    let s = 0;
    for (let i = 0; i < y.data.length; i++) s += y.data[i]! * weights[i]!;
    return s;
  };
  return inputs.map((input, k) =>
    Array.from(input.data, (_, j) => {
      const shifted = (delta: number) => inputs.map((t, m) => (m === k ? nd(t.shape, t.data.map((v, q) => (q === j ? v + delta : v))) : t));
      return (loss(shifted(h)) - loss(shifted(-h))) / (2 * h);
    }),
  );
}

/** The first element where `actual` and `expected` differ by more than atol + rtol |expected|, as a message. */
export function mismatch(actual: ArrayLike<number>, expected: ArrayLike<number>, atol = 1e-4, rtol = 1e-4): string | undefined {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Object.is(a, e)) continue;
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) return `element ${i}: got ${a}, expected ${e}`;
  }
  return undefined;
}
