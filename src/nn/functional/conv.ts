/**
 * Convolutions (torch.nn.functional.conv1d / conv2d / conv_transpose1d / conv_transpose2d): the
 * windows gathered by one `indexSelect` (windows.ts), then one (batched) matmul with the weight.
 * Weights use PyTorch's layouts: conv [out, in / groups, kh, kw], transposed [in, out / groups, kh, kw].
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkOptions, field } from '../../ir/validate.js';
import { checkOptionalTensors, checkTensors } from '../check.js';
import { checkElements, checkFloat, checkRank, outLength, pads, pair, single, type Padding1d, type Padding2d, type Pair, type Pads } from './args.js';
import { transposedWindowTable, unfold, windowTable, type WindowSpec } from './windows.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface Conv2dOptions<B extends Backend> {
  bias?: F<B> | undefined;
  /** Default 1. */
  stride?: Pair;
  /** Zero padding per side (default 0), or 'same' / 'valid'. */
  padding?: Padding2d;
  /** Default 1. */
  dilation?: Pair;
  /** Default 1; `groups` = channels is a depthwise convolution. */
  groups?: number;
}

export interface Conv1dOptions<B extends Backend> {
  bias?: F<B> | undefined;
  stride?: number;
  padding?: Padding1d;
  dilation?: number;
  groups?: number;
}

export interface ConvTranspose2dOptions<B extends Backend> {
  bias?: F<B> | undefined;
  stride?: Pair;
  /** Removed from each side of the full output (default 0). */
  padding?: Pair;
  /** Added to one side of the output (default 0), to pick among the sizes a strided conv maps to one size. */
  outputPadding?: Pair;
  /**
   * The output's size [H, W] (or with the input's leading dims, as torch's output_size): picks the
   * outputPadding (which must then be absent), the size minus the smallest output, below the stride.
   */
  outputSize?: readonly number[];
  dilation?: Pair;
  groups?: number;
}

export interface ConvTranspose1dOptions<B extends Backend> {
  bias?: F<B> | undefined;
  stride?: number;
  padding?: number;
  outputPadding?: number;
  /** The output's length (a number, [L], or with the input's leading dims): picks the outputPadding, as torch's output_size. */
  outputSize?: number | readonly number[];
  dilation?: number;
  groups?: number;
}

const HINT = "see the README's nn section for the layouts: input [N, C, H, W], weight [out, in / groups, kh, kw]";

export function checkGroups(op: string, groups: number, channels: number, out: number, shapes: ReadonlyArray<readonly number[]>, hint = HINT): void {
  if (!Number.isInteger(groups) || groups < 1) throw new ArgumentError(`groups must be a positive integer, got ${groups}`, { op });
  if (channels % groups !== 0 || out % groups !== 0) {
    throw new ShapeError(`groups ${groups} must divide both the input channels (${channels}) and the output channels (${out})`, { op, shapes, hint });
  }
}

export function checkBias<B extends Backend>(op: string, bias: F<B> | undefined, out: number): void {
  if (bias && (bias.rank !== 1 || bias.shape[0] !== out)) {
    throw new ShapeError(`bias must be [${out}] (one per output channel), got [${bias.shape.join(', ')}]`, { op, shapes: [bias.shape] });
  }
}

/** A kernel dim of 0 has no window to slide (torch refuses it too). */
function checkKernel(op: string, kh: number, kw: number, shapes: ReadonlyArray<readonly number[]>): void {
  if (kh < 1 || kw < 1) throw new ShapeError(`the weight's kernel dims must be >= 1, got ${kh}x${kw}`, { op, shapes, hint: HINT });
}

/** The window table [K, P], the gathered windows [N, C, K, P] and the output [N, O, P] must fit MAX_ELEMENTS. */
function checkSizes(op: string, n: number, c: number, o: number, k: number, outH: number, outW: number, shapes: ReadonlyArray<readonly number[]>): void {
  checkElements(op, 'the window table', [k, outH, outW], shapes);
  checkElements(op, 'the gathered windows', [n, c, k, outH, outW], shapes);
  checkElements(op, 'the output', [n, o, outH, outW], shapes);
}

/** The tensors and options every convolution takes, for untyped callers. */
function checkArgs(op: string, x: unknown, weight: unknown, options: unknown): void {
  checkTensors(op, { input: x, weight });
  checkOptions(op, options);
  checkOptionalTensors(op, { bias: field(options, 'bias') });
}

function addBias<B extends Backend>(y: F<B>, bias: F<B> | undefined): F<B> {
  return bias ? y.add(bias.reshape([bias.shape[0]!, 1, 1])) : y;
}

/** [N, C, K, P] windows times a [G, O/G, (C/G) K] weight (or [O, ...] for one group): [N, O, P]. */
export function contract<B extends Backend>(cols: F<B>, weight: F<B>, groups: number, out: number): F<B> {
  const [n, c, k, p] = cols.shape as [number, number, number, number];
  if (groups === 1) return weight.reshape([out, c * k]).matmul(cols.reshape([n, c * k, p]));
  const y = weight.matmul(cols.reshape([n, groups, (c / groups) * k, p]));
  return y.reshape([n, out, p]);
}

/** The shared 2-D convolution on a batched input, with the op name its errors carry. */
function conv2dCore<B extends Backend>(op: string, x: F<B>, weight: F<B>, stride: [number, number], pd: Pads, dilation: [number, number], groups: number, bias: F<B> | undefined, shapes: () => Array<readonly number[]>): F<B> {
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const [o, cg, kh, kw] = weight.shape as [number, number, number, number];
  checkKernel(op, kh, kw, shapes());
  checkGroups(op, groups, c, o, shapes());
  if (cg * groups !== c) {
    throw new ShapeError(`the input has ${c} channels, the weight expects ${cg * groups} (${cg} per group, ${groups} group${groups === 1 ? '' : 's'})`, { op, shapes: shapes(), hint: HINT });
  }
  checkBias(op, bias, o);
  const outH = outLength(h, pd[0], pd[1], kh, stride[0], dilation[0]);
  const outW = outLength(w, pd[2], pd[3], kw, stride[1], dilation[1]);
  if (outH < 1 || outW < 1) {
    throw new ShapeError(
      `the kernel ${kh}x${kw} (dilation ${dilation.join('x')}, span ${dilation[0] * (kh - 1) + 1}x${dilation[1] * (kw - 1) + 1}) is larger than the padded input ${h + pd[0] + pd[1]}x${w + pd[2] + pd[3]}`,
      { op, shapes: shapes(), hint: 'pad the input, or use a smaller kernel or dilation' },
    );
  }
  checkSizes(op, n, c, o, kh * kw, outH, outW, shapes());
  const spec: WindowSpec = { inH: h, inW: w, kernel: [kh, kw], stride, dilation, pads: pd, outH, outW };
  return tidy(() => {
    const cols = unfold(x, windowTable(spec), kh * kw, 0);
    const weightG = groups === 1 ? weight : weight.reshape([groups, o / groups, cg * kh * kw]);
    return addBias(contract(cols, weightG, groups, o).reshape([n, o, outH, outW]), bias);
  });
}

/** torch.nn.functional.conv2d: x [N, C, H, W] (or [C, H, W]), weight [O, C / groups, kh, kw] -> [N, O, H', W']. */
export function conv2d<B extends Backend>(x: F<B>, weight: F<B>, options: Conv2dOptions<B> = {}): F<B> {
  const op = 'conv2d';
  checkArgs(op, x, weight, options);
  checkFloat(op, x, weight, options.bias);
  checkRank(op, 'the input', x, [3, 4], '[N, C, H, W] or [C, H, W]', [weight.shape]);
  checkRank(op, 'the weight', weight, [4], '[out, in / groups, kh, kw]', [x.shape]);
  const stride = pair(op, 'stride', options.stride ?? 1, 1);
  const dilation = pair(op, 'dilation', options.dilation ?? 1, 1);
  const kernel: [number, number] = [weight.shape[2]!, weight.shape[3]!];
  const pd = pads(op, options.padding ?? 0, kernel, stride, dilation);
  const shapes = () => [x.shape, weight.shape];
  if (x.rank === 3) {
    return tidy(() => conv2dCore(op, x.unsqueeze(0), weight, stride, pd, dilation, options.groups ?? 1, options.bias, shapes).squeeze(0));
  }
  return conv2dCore(op, x, weight, stride, pd, dilation, options.groups ?? 1, options.bias, shapes);
}

/** torch.nn.functional.conv1d: x [N, C, L] (or [C, L]), weight [O, C / groups, k] -> [N, O, L']. */
export function conv1d<B extends Backend>(x: F<B>, weight: F<B>, options: Conv1dOptions<B> = {}): F<B> {
  const op = 'conv1d';
  checkArgs(op, x, weight, options);
  checkFloat(op, x, weight, options.bias);
  checkRank(op, 'the input', x, [2, 3], '[N, C, L] or [C, L]', [weight.shape]);
  checkRank(op, 'the weight', weight, [3], '[out, in / groups, k]', [x.shape]);
  const stride: [number, number] = [1, single(op, 'stride', options.stride ?? 1, 1)];
  const dilation: [number, number] = [1, single(op, 'dilation', options.dilation ?? 1, 1)];
  const padding = options.padding ?? 0;
  const pd = pads(op, typeof padding === 'string' ? padding : [0, single(op, 'padding', padding, 0)], [1, weight.shape[2]!], stride, dilation);
  const shapes = () => [x.shape, weight.shape];
  return tidy(() => {
    const x4 = x.rank === 2 ? x.unsqueeze(0).unsqueeze(2) : x.unsqueeze(2);
    const y = conv2dCore(op, x4, weight.unsqueeze(2), stride, pd, dilation, options.groups ?? 1, options.bias, shapes).squeeze(2);
    return x.rank === 2 ? y.squeeze(0) : y;
  });
}

function transposedCore<B extends Backend>(op: string, x: F<B>, weight: F<B>, o: ConvTranspose2dOptions<B>, shapes: () => Array<readonly number[]>): F<B> {
  const stride = pair(op, 'stride', o.stride ?? 1, 1);
  const dilation = pair(op, 'dilation', o.dilation ?? 1, 1);
  const [ph, pw] = pair(op, 'padding', o.padding ?? 0, 0);
  const groups = o.groups ?? 1;
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const [ci, og, kh, kw] = weight.shape as [number, number, number, number];
  const outPad = o.outputSize === undefined ? pair(op, 'outputPadding', o.outputPadding ?? 0, 0) : paddingFor(op, o.outputSize, [h, w], [kh, kw], stride, [ph, pw], dilation, shapes());
  checkKernel(op, kh, kw, shapes());
  const out = og * groups;
  if (ci !== c) throw new ShapeError(`the input has ${c} channels, the weight [in, out / groups, kh, kw] expects ${ci}`, { op, shapes: shapes(), hint: HINT });
  checkGroups(op, groups, c, out, shapes());
  checkBias(op, o.bias, out);
  for (let d = 0; d < 2; d++) {
    if (outPad[d]! >= Math.max(stride[d]!, dilation[d]!)) {
      throw new ArgumentError(`outputPadding [${outPad.join(', ')}] must be smaller than the stride or the dilation in each dim (stride [${stride.join(', ')}], dilation [${dilation.join(', ')}])`, { op });
    }
  }
  const outH = (h - 1) * stride[0] - 2 * ph + dilation[0] * (kh - 1) + outPad[0] + 1;
  const outW = (w - 1) * stride[1] - 2 * pw + dilation[1] * (kw - 1) + outPad[1] + 1;
  if (outH < 1 || outW < 1) {
    throw new ShapeError(`the output would be ${outH}x${outW}: the padding [${ph}, ${pw}] removes more than the transposed convolution makes`, { op, shapes: shapes(), hint: 'use a smaller padding' });
  }
  checkSizes(op, n, c, out, kh * kw, outH, outW, shapes());
  const spec: WindowSpec = { inH: h, inW: w, kernel: [kh, kw], stride, dilation, pads: [ph, ph, pw, pw], outH, outW };
  return tidy(() => {
    const cols = unfold(x, transposedWindowTable(spec), kh * kw, 0);
    const k = kh * kw;
    // [in, out/G, K] -> [G, out/G, (in/G) K]: each output channel's weights over its group's inputs.
    const wg = weight.reshape([groups, c / groups, og, k]).permute([0, 2, 1, 3]).reshape([groups, og, (c / groups) * k]);
    return addBias(contract(cols, groups === 1 ? wg.reshape([og, c * k]) : wg, groups, out).reshape([n, out, outH, outW]), o.bias);
  });
}

/**
 * torch's _output_padding: the output padding that gives `size` ([H, W]), which must lie between the
 * smallest output (no output padding) and that plus stride - 1.
 */
function paddingFor(op: string, size: readonly number[], input: readonly [number, number], kernel: readonly [number, number], stride: readonly [number, number], padding: readonly [number, number], dilation: readonly [number, number], shapes: Array<readonly number[]>): [number, number] {
  const out: [number, number] = [0, 0];
  for (let d = 0; d < 2; d++) {
    const min = (input[d]! - 1) * stride[d]! - 2 * padding[d]! + dilation[d]! * (kernel[d]! - 1) + 1;
    const max = min + stride[d]! - 1;
    if (size[d]! < min || size[d]! > max) {
      throw new ShapeError(`outputSize [${size.join(', ')}] is not reachable: each size must be from the smallest output to it plus stride - 1 (dim ${d}: ${min} to ${max})`, { op, shapes, hint: 'torch accepts the same range' });
    }
    out[d] = size[d]! - min;
  }
  return out;
}

/** The spatial part of an outputSize for an input of rank `rank` with `spatial` spatial dims (torch drops the leading ones). */
function spatialSize(op: string, given: unknown, rank: number, spatial: number, outputPadding: unknown): number[] {
  if (outputPadding !== undefined) throw new ArgumentError('give outputSize or outputPadding, not both', { op });
  const list: unknown = typeof given === 'number' && spatial === 1 ? [given] : given;
  const lead = rank - spatial;
  if (!Array.isArray(list) || (list.length !== spatial && list.length !== spatial + lead) || list.some((v) => typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)) {
    throw new ArgumentError(`outputSize must be ${spatial} positive integers (or ${spatial + lead} with the input's leading dims), got ${JSON.stringify(given)}`, { op });
  }
  return (list as number[]).slice(list.length - spatial);
}

/** torch.nn.functional.conv_transpose2d: x [N, C, H, W] (or [C, H, W]), weight [C, O / groups, kh, kw] -> [N, O, H', W']. */
export function convTranspose2d<B extends Backend>(x: F<B>, weight: F<B>, options: ConvTranspose2dOptions<B> = {}): F<B> {
  const op = 'convTranspose2d';
  checkArgs(op, x, weight, options);
  checkFloat(op, x, weight, options.bias);
  checkRank(op, 'the input', x, [3, 4], '[N, C, H, W] or [C, H, W]', [weight.shape]);
  checkRank(op, 'the weight', weight, [4], '[in, out / groups, kh, kw]', [x.shape]);
  const shapes = () => [x.shape, weight.shape];
  const o = options.outputSize === undefined ? options : { ...options, outputSize: spatialSize(op, options.outputSize, x.rank, 2, options.outputPadding) };
  if (x.rank === 3) return tidy(() => transposedCore(op, x.unsqueeze(0), weight, o, shapes).squeeze(0));
  return transposedCore(op, x, weight, o, shapes);
}

/** torch.nn.functional.conv_transpose1d: x [N, C, L] (or [C, L]), weight [C, O / groups, k] -> [N, O, L']. */
export function convTranspose1d<B extends Backend>(x: F<B>, weight: F<B>, options: ConvTranspose1dOptions<B> = {}): F<B> {
  const op = 'convTranspose1d';
  checkArgs(op, x, weight, options);
  checkFloat(op, x, weight, options.bias);
  checkRank(op, 'the input', x, [2, 3], '[N, C, L] or [C, L]', [weight.shape]);
  checkRank(op, 'the weight', weight, [3], '[in, out / groups, k]', [x.shape]);
  const shapes = () => [x.shape, weight.shape];
  const o2: ConvTranspose2dOptions<B> = {
    bias: options.bias,
    stride: [1, single(op, 'stride', options.stride ?? 1, 1)],
    padding: [0, single(op, 'padding', options.padding ?? 0, 0)],
    outputPadding: [0, single(op, 'outputPadding', options.outputPadding ?? 0, 0)],
    ...(options.outputSize === undefined ? {} : { outputSize: [1, ...spatialSize(op, options.outputSize, x.rank, 1, options.outputPadding)] }),
    dilation: [1, single(op, 'dilation', options.dilation ?? 1, 1)],
    groups: options.groups ?? 1,
  };
  return tidy(() => {
    const x4 = x.rank === 2 ? x.unsqueeze(0).unsqueeze(2) : x.unsqueeze(2);
    const y = transposedCore(op, x4, weight.unsqueeze(2), o2, shapes).squeeze(2);
    return x.rank === 2 ? y.squeeze(0) : y;
  });
}
