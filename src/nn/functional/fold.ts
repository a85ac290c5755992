/**
 * torch.nn.functional.unfold (im2col) and fold (col2im). unfold is the convolutions' window gather
 * (windows.ts) with the channels and kernel offsets merged; fold gathers, for every output pixel
 * and kernel offset, the one column entry that lands there (or a zero) and sums over the offsets,
 * so both are an `indexSelect` plus reshapes: every backend runs them and autodiff differentiates
 * them (fold's gradient is unfold's gather, unfold's is fold's sum).
 */
import type { Backend } from '../../backends/backend.js';
import { ShapeError } from '../../errors.js';
import { checkKeys, checkOptions } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';
import { checkElements, checkFloat, checkRank, outLength, pair, type Pair } from './args.js';
import { lruCache, unfold as gather, windowTable, type WindowTable } from './windows.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface UnfoldOptions {
  /** Default 1. */
  dilation?: Pair;
  /** Zero padding on both sides of each spatial dim (default 0). */
  padding?: Pair;
  /** Default 1. */
  stride?: Pair;
}
export type FoldOptions = UnfoldOptions;

const KEYS = ['dilation', 'padding', 'stride'];

interface Blocks {
  readonly kernel: [number, number];
  readonly dilation: [number, number];
  readonly padding: [number, number];
  readonly stride: [number, number];
}

function parse(op: string, kernelSize: Pair, options: UnfoldOptions): Blocks {
  checkOptions(op, options);
  checkKeys(op, options, KEYS);
  return {
    kernel: pair(op, 'kernelSize', kernelSize, 1),
    dilation: pair(op, 'dilation', options.dilation ?? 1, 1),
    padding: pair(op, 'padding', options.padding ?? 0, 0),
    stride: pair(op, 'stride', options.stride ?? 1, 1),
  };
}

/** The grid of blocks over an h x w plane: [rows, cols], each at least 1 (else a ShapeError, as torch). */
function blockGrid(op: string, h: number, w: number, s: Blocks, shapes: ReadonlyArray<readonly number[]>): [number, number] {
  const rows = outLength(h, s.padding[0], s.padding[0], s.kernel[0], s.stride[0], s.dilation[0]);
  const cols = outLength(w, s.padding[1], s.padding[1], s.kernel[1], s.stride[1], s.dilation[1]);
  if (rows < 1 || cols < 1) {
    throw new ShapeError(
      `the kernel ${s.kernel.join('x')} (dilation ${s.dilation.join('x')}) leaves no block in the padded ${h + 2 * s.padding[0]}x${w + 2 * s.padding[1]} plane`,
      { op, shapes, hint: 'pad the input, or use a smaller kernel or dilation' },
    );
  }
  return [rows, cols];
}

/**
 * torch.nn.functional.unfold: x [N, C, H, W] (or [C, H, W]) -> [N, C kh kw, L] (or [C kh kw, L]),
 * column l holding block l's values channel by channel, each in row-major kernel order.
 */
export function unfold<B extends Backend>(x: F<B>, kernelSize: Pair, options: UnfoldOptions = {}): F<B> {
  const op = 'unfold';
  checkTensors(op, { input: x });
  checkFloat(op, x);
  checkRank(op, 'the input', x, [3, 4], '[N, C, H, W] or [C, H, W]');
  const s = parse(op, kernelSize, options);
  const x4 = x.shape.length === 4 ? x.shape : [1, ...x.shape];
  const [n, c, h, w] = x4 as [number, number, number, number];
  const [rows, cols] = blockGrid(op, h, w, s, [x.shape]);
  const k = s.kernel[0] * s.kernel[1];
  checkElements(op, 'the window table', [k, rows, cols], [x.shape]);
  checkElements(op, 'the output', [n, c * k, rows * cols], [x.shape]);
  const table = windowTable({ inH: h, inW: w, kernel: s.kernel, stride: s.stride, dilation: s.dilation, pads: [s.padding[0], s.padding[0], s.padding[1], s.padding[1]], outH: rows, outW: cols });
  return tidy(() => {
    const out = gather(x.reshape([n, c, h, w]), table, k, 0).reshape([n, c * k, rows * cols]);
    return x.rank === 3 ? out.squeeze(0) : out;
  }, x.backend.runtime);
}

const cached = lruCache<WindowTable>(64);

/**
 * fold's table [K, H W] over the columns seen flat as [K L] per channel: output (y, x) through
 * offset (ki, kj) reads block (r, c) where y = r stride - pad + ki dilation (one block at most),
 * else the pad slot K L (a zero).
 */
function foldTable(h: number, w: number, rows: number, cols: number, s: Blocks): WindowTable {
  const key = `${h},${w}:${rows},${cols}:${s.kernel.join(',')}:${s.dilation.join(',')}:${s.padding.join(',')}:${s.stride.join(',')}`;
  return cached(key, () => {
    const [kh, kw] = s.kernel;
    const L = rows * cols;
    const P = h * w;
    const slot = kh * kw * L;
    const index = new Int32Array(kh * kw * P);
    let padded = false;
    const block = (o: number, pad: number, k: number, d: number, stride: number, count: number): number => {
      const t = o + pad - k * d;
      if (t < 0 || t % stride !== 0) return -1;
      return t / stride < count ? t / stride : -1;
    };
    for (let ki = 0; ki < kh; ki++) {
      for (let kj = 0; kj < kw; kj++) {
        const k = ki * kw + kj;
        for (let y = 0; y < h; y++) {
          const r = block(y, s.padding[0], ki, s.dilation[0], s.stride[0], rows);
          for (let xx = 0; xx < w; xx++) {
            const c = block(xx, s.padding[1], kj, s.dilation[1], s.stride[1], cols);
            const inside = r >= 0 && c >= 0;
            if (!inside) padded = true;
            index[k * P + y * w + xx] = inside ? k * L + r * cols + c : slot;
          }
        }
      }
    }
    return { index, padded };
  });
}

/**
 * torch.nn.functional.fold: columns [N, C kh kw, L] (or [C kh kw, L]) -> [N, C, H, W] (or
 * [C, H, W]) for outputSize [H, W], each block's values summed into its window (overlaps add,
 * padding is dropped): unfold's adjoint. L must be the number of blocks unfold makes of [H, W].
 */
export function fold<B extends Backend>(x: F<B>, outputSize: Pair, kernelSize: Pair, options: FoldOptions = {}): F<B> {
  const op = 'fold';
  checkTensors(op, { input: x });
  checkFloat(op, x);
  checkRank(op, 'the input', x, [2, 3], '[N, C kh kw, L] or [C kh kw, L]');
  const [h, w] = pair(op, 'outputSize', outputSize, 1);
  const s = parse(op, kernelSize, options);
  const x3 = x.shape.length === 3 ? x.shape : [1, ...x.shape];
  const [n, ck, l] = x3 as [number, number, number];
  const k = s.kernel[0] * s.kernel[1];
  if (ck % k !== 0) {
    throw new ShapeError(`the input's dim ${x.rank - 2} (${ck}) must be divisible by the kernel's size ${s.kernel.join('x')} = ${k}`, { op, shapes: [x.shape], hint: 'columns are [N, C kh kw, L], as unfold makes them' });
  }
  const [rows, cols] = blockGrid(op, h, w, s, [x.shape]);
  if (l !== rows * cols) {
    throw new ShapeError(`the input has ${l} blocks (its last dim), the output size ${h}x${w} makes ${rows}x${cols} = ${rows * cols}`, {
      op,
      shapes: [x.shape],
      hint: 'the output size, kernel, dilation, padding and stride must be those the columns were unfolded with',
    });
  }
  const c = ck / k;
  checkElements(op, 'the fold table', [k, h, w], [x.shape]);
  checkElements(op, 'the gathered columns', [n, c, k, h, w], [x.shape]);
  const table = foldTable(h, w, rows, cols, s);
  return tidy(() => {
    // The columns as [N, C, 1, K L]: one flat row per channel for the gather, then the sum over offsets.
    const out = gather(x.reshape([n, c, 1, k * l]), table, k, 0).sum(2).reshape([n, c, h, w]);
    return x.rank === 2 ? out.squeeze(0) : out;
  }, x.backend.runtime);
}
