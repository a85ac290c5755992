/**
 * 3-D convolutions (torch.nn.functional.conv3d / conv_transpose3d), built as the 2-D ones: the
 * windows gathered by one `indexSelect` (a depth-aware table from windows3d.ts), then one
 * (batched) matmul with the weight. Weights use PyTorch's layouts: conv [out, in / groups, kd, kh,
 * kw], transposed [in, out / groups, kd, kh, kw].
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, ShapeError } from '../../errors.js';
import { checkOptions, field } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { fromData, full } from '../../tensor/creation.js';
import { Tensor } from '../../tensor/tensor.js';
import { checkOptionalTensors, checkTensors } from '../check.js';
import { checkElements, checkFloat, checkRank, outLength } from './args.js';
import { pads3d, triple, type Padding3d, type Pads3d, type Triple } from './args3d.js';
import { checkBias, checkGroups, contract } from './conv.js';
import { unfold } from './windows.js';
import { transposedPhases3d, transposedWindowTable3d, windowTable3d, type WindowSpec3d } from './windows3d.js';

type F<B extends Backend> = Tensor<B, 'float'>;
type Dims = [number, number, number];

export interface Conv3dOptions<B extends Backend> {
  bias?: F<B> | undefined;
  /** Default 1. */
  stride?: Triple;
  /** Zero padding per side (default 0), or 'same' / 'valid'. */
  padding?: Padding3d;
  /** Default 1. */
  dilation?: Triple;
  /** Default 1; `groups` = channels is a depthwise convolution. */
  groups?: number;
}

export interface ConvTranspose3dOptions<B extends Backend> {
  bias?: F<B> | undefined;
  stride?: Triple;
  /** Removed from each side of the full output (default 0). */
  padding?: Triple;
  /** Added to one side of the output (default 0), to pick among the sizes a strided conv maps to one size. */
  outputPadding?: Triple;
  dilation?: Triple;
  groups?: number;
}

const HINT = "see the README's nn section for the layouts: input [N, C, D, H, W], weight [out, in / groups, kd, kh, kw]";

/** The tensors and options every convolution takes, for untyped callers. */
function checkArgs(op: string, x: unknown, weight: unknown, options: unknown): void {
  checkTensors(op, { input: x, weight });
  checkOptions(op, options);
  checkOptionalTensors(op, { bias: field(options, 'bias') });
}

/** A kernel dim of 0 has no window to slide (torch refuses it too). */
function checkKernel(op: string, k: Dims, shapes: ReadonlyArray<readonly number[]>): void {
  if (k.some((v) => v < 1)) throw new ShapeError(`the weight's kernel dims must be >= 1, got ${k.join('x')}`, { op, shapes, hint: HINT });
}

/** The window table [K, P], the gathered windows [N, C, K, P] and the output [N, O, P] must fit MAX_ELEMENTS. */
function checkSizes(op: string, n: number, c: number, o: number, k: number, out: Dims, shapes: ReadonlyArray<readonly number[]>): void {
  checkElements(op, 'the window table', [k, ...out], shapes);
  checkElements(op, 'the gathered windows', [n, c, k, ...out], shapes);
  checkElements(op, 'the output', [n, o, ...out], shapes);
}

function addBias<B extends Backend>(y: F<B>, bias: F<B> | undefined): F<B> {
  return bias ? y.add(bias.reshape([bias.shape[0]!, 1, 1, 1])) : y;
}

/** Runs `f` on the input as [N, C, D, H, W] and gives the result the input's batching back. */
function batched<B extends Backend>(x: F<B>, f: (x5: F<B>) => F<B>): F<B> {
  return x.rank === 5 ? f(x) : tidy(() => f(x.unsqueeze(0)).squeeze(0));
}

function conv3dCore<B extends Backend>(op: string, x: F<B>, weight: F<B>, o: Conv3dOptions<B>, shapes: () => Array<readonly number[]>): F<B> {
  const stride = triple(op, 'stride', o.stride ?? 1, 1);
  const dilation = triple(op, 'dilation', o.dilation ?? 1, 1);
  const [n, c, ...input] = x.shape as [number, number, number, number, number];
  const [out, cg, ...kernel] = weight.shape as [number, number, number, number, number];
  const pd = pads3d(op, o.padding ?? 0, kernel, stride, dilation);
  const groups = o.groups ?? 1;
  checkKernel(op, kernel, shapes());
  checkGroups(op, groups, c, out, shapes(), HINT);
  if (cg * groups !== c) {
    throw new ShapeError(`the input has ${c} channels, the weight expects ${cg * groups} (${cg} per group, ${groups} group${groups === 1 ? '' : 's'})`, { op, shapes: shapes(), hint: HINT });
  }
  checkBias(op, o.bias, out);
  const output = input.map((size, i) => outLength(size, pd[2 * i]!, pd[2 * i + 1]!, kernel[i]!, stride[i]!, dilation[i]!)) as Dims;
  if (output.some((v) => v < 1)) {
    const span = kernel.map((k, i) => dilation[i]! * (k - 1) + 1);
    const padded = input.map((size, i) => size + pd[2 * i]! + pd[2 * i + 1]!);
    throw new ShapeError(`the kernel ${kernel.join('x')} (dilation ${dilation.join('x')}, span ${span.join('x')}) is larger than the padded input ${padded.join('x')}`, {
      op,
      shapes: shapes(),
      hint: 'pad the input, or use a smaller kernel or dilation',
    });
  }
  const k = kernel[0] * kernel[1] * kernel[2];
  checkSizes(op, n, c, out, k, output, shapes());
  const spec: WindowSpec3d = { input, kernel, stride, dilation, pads: pd, output };
  return tidy(() => {
    // The volume as one flat row per channel: the table holds flat positions d H W + h W + w.
    const cols = unfold(x.reshape([n, c, 1, input[0] * input[1] * input[2]]), windowTable3d(spec), k, 0);
    const weightG = groups === 1 ? weight : weight.reshape([groups, out / groups, cg * k]);
    return addBias(contract(cols, weightG, groups, out).reshape([n, out, ...output]), o.bias);
  });
}

/** torch.nn.functional.conv3d: x [N, C, D, H, W] (or [C, D, H, W]), weight [O, C / groups, kd, kh, kw] -> [N, O, D', H', W']. */
export function conv3d<B extends Backend>(x: F<B>, weight: F<B>, options: Conv3dOptions<B> = {}): F<B> {
  const op = 'conv3d';
  checkArgs(op, x, weight, options);
  checkFloat(op, x, weight, options.bias);
  checkRank(op, 'the input', x, [4, 5], '[N, C, D, H, W] or [C, D, H, W]', [weight.shape]);
  checkRank(op, 'the weight', weight, [5], '[out, in / groups, kd, kh, kw]', [x.shape]);
  const shapes = () => [x.shape, weight.shape];
  return batched(x, (x5) => conv3dCore(op, x5, weight, options, shapes));
}

function transposedCore<B extends Backend>(op: string, x: F<B>, weight: F<B>, o: ConvTranspose3dOptions<B>, shapes: () => Array<readonly number[]>): F<B> {
  const stride = triple(op, 'stride', o.stride ?? 1, 1);
  const dilation = triple(op, 'dilation', o.dilation ?? 1, 1);
  const padding = triple(op, 'padding', o.padding ?? 0, 0);
  const outPad = triple(op, 'outputPadding', o.outputPadding ?? 0, 0);
  const groups = o.groups ?? 1;
  const [n, c, ...input] = x.shape as [number, number, number, number, number];
  const [ci, og, ...kernel] = weight.shape as [number, number, number, number, number];
  checkKernel(op, kernel, shapes());
  const out = og * groups;
  if (ci !== c) throw new ShapeError(`the input has ${c} channels, the weight [in, out / groups, kd, kh, kw] expects ${ci}`, { op, shapes: shapes(), hint: HINT });
  checkGroups(op, groups, c, out, shapes(), HINT);
  checkBias(op, o.bias, out);
  for (let d = 0; d < 3; d++) {
    if (outPad[d]! >= Math.max(stride[d]!, dilation[d]!)) {
      throw new ArgumentError(`outputPadding [${outPad.join(', ')}] must be smaller than the stride or the dilation in each dim (stride [${stride.join(', ')}], dilation [${dilation.join(', ')}])`, { op });
    }
  }
  const output = input.map((size, i) => (size - 1) * stride[i]! - 2 * padding[i]! + dilation[i]! * (kernel[i]! - 1) + outPad[i]! + 1) as Dims;
  if (output.some((v) => v < 1)) {
    throw new ShapeError(`the output would be ${output.join('x')}: the padding [${padding.join(', ')}] removes more than the transposed convolution makes`, { op, shapes: shapes(), hint: 'use a smaller padding' });
  }
  const k = kernel[0] * kernel[1] * kernel[2];
  checkSizes(op, n, c, out, k, output, shapes());
  const pads: Pads3d = [padding[0], padding[0], padding[1], padding[1], padding[2], padding[2]];
  const spec: WindowSpec3d = { input, kernel, stride, dilation, pads, output };
  return tidy(() => {
    const xf = x.reshape([n, c, 1, input[0] * input[1] * input[2]]);
    // [in, out/G, K] -> [G, out/G, in/G, K]: each output channel's weights over its group's inputs.
    const wg = weight.reshape([groups, c / groups, og, k]).permute([0, 2, 1, 3]);
    // The weights as contract takes them, over `kp` kernel offsets.
    const flatWeight = (w: F<B>, kp: number): F<B> => (groups === 1 ? w.reshape([og, c * kp]) : w.reshape([groups, og, (c / groups) * kp]));
    if (stride.every((s) => s === 1)) {
      const cols = unfold(xf, transposedWindowTable3d(spec), k, 0);
      return addBias(contract(cols, flatWeight(wg, k), groups, out).reshape([n, out, ...output]), o.bias);
    }
    // Strided: one gather and matmul per stride phase over the offsets it receives through, the
    // phases' outputs (and zeros for gaps) concatenated, then put in place by one indexSelect.
    const plan = transposedPhases3d(spec);
    const parts = plan.phases.map((ph) => {
      const cols = unfold(xf, ph.table, ph.offsets.length, 0);
      const wk = wg.indexSelect(3, fromData(x.backend, ph.offsets, { device: x.device }));
      return contract(cols, flatWeight(wk, ph.offsets.length), groups, out);
    });
    if (plan.gaps > 0) parts.push(full(x.backend, [n, out, plan.gaps], 0, { device: x.device, dtype: x.dtype }));
    const joined = parts.length === 1 ? parts[0]! : Tensor.cat(parts, 2);
    const y = joined.indexSelect(2, fromData(x.backend, plan.order, { device: x.device }));
    return addBias(y.reshape([n, out, ...output]), o.bias);
  });
}

/** torch.nn.functional.conv_transpose3d: x [N, C, D, H, W] (or [C, D, H, W]), weight [C, O / groups, kd, kh, kw] -> [N, O, D', H', W']. */
export function convTranspose3d<B extends Backend>(x: F<B>, weight: F<B>, options: ConvTranspose3dOptions<B> = {}): F<B> {
  const op = 'convTranspose3d';
  checkArgs(op, x, weight, options);
  checkFloat(op, x, weight, options.bias);
  checkRank(op, 'the input', x, [4, 5], '[N, C, D, H, W] or [C, D, H, W]', [weight.shape]);
  checkRank(op, 'the weight', weight, [5], '[in, out / groups, kd, kh, kw]', [x.shape]);
  const shapes = () => [x.shape, weight.shape];
  return batched(x, (x5) => transposedCore(op, x5, weight, options, shapes));
}
