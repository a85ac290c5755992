/**
 * Convolution layers (torch.nn.Conv1d / Conv2d / ConvTranspose1d / ConvTranspose2d), with
 * PyTorch's weight layouts and default initialisation: weight and bias in U(-1/sqrt(fanIn),
 * 1/sqrt(fanIn)) (kaiming_uniform with a = sqrt(5)), fanIn = in / groups * kernel for a
 * convolution and out / groups * kernel for a transposed one (PyTorch reads dim 1 of the weight).
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError } from '../errors.js';
import type { Tensor } from '../tensor/tensor.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { pads, pair, type Padding1d, type Padding2d, type Pair } from './functional/args.js';
import { conv1d, conv2d, convTranspose1d, convTranspose2d } from './functional/conv.js';
import { kaimingUniform, uniform } from './init.js';
import { Module } from './module.js';
import { Param } from './param.js';
import { checkLayer, checkTensors } from './check.js';

export interface ConvOptions {
  /** Default 1. */
  groups?: number;
  /** Default true. */
  bias?: boolean;
  device?: Device;
}

/** torch's padding_mode: what the padding holds (zeros, the mirrored, repeated or wrapped-around input). */
export type ConvPaddingMode = 'zeros' | 'reflect' | 'replicate' | 'circular';

export interface Conv2dLayerOptions extends ConvOptions {
  stride?: Pair;
  padding?: Padding2d;
  dilation?: Pair;
  /** Default 'zeros'. */
  paddingMode?: ConvPaddingMode;
}

export interface Conv1dLayerOptions extends ConvOptions {
  stride?: number;
  padding?: Padding1d;
  dilation?: number;
  /** Default 'zeros'. */
  paddingMode?: ConvPaddingMode;
}

const PADDING_MODES: readonly unknown[] = ['zeros', 'reflect', 'replicate', 'circular'];

export function checkPaddingMode(op: string, mode: unknown): void {
  if (mode !== undefined && !PADDING_MODES.includes(mode)) {
    throw new ArgumentError(`paddingMode must be 'zeros', 'reflect', 'replicate' or 'circular', got ${show(mode)}`, { op });
  }
}

/**
 * A convolution whose padding is not zeros pads the input itself (tensor pad's reflect, replicate
 * or circular, torch's F.pad) and convolves without padding, as torch's _conv_forward.
 * `pd` is [top, bottom, left, right].
 */
function padInput<B extends Backend>(x: Tensor<B, 'float'>, pd: readonly number[], mode: Exclude<ConvPaddingMode, 'zeros'>, rank: 1 | 2): Tensor<B, 'float'> {
  return x.pad(rank === 1 ? [pd[2]!, pd[3]!] : [pd[2]!, pd[3]!, pd[0]!, pd[1]!], mode);
}

export interface ConvTranspose2dLayerOptions extends ConvOptions {
  stride?: Pair;
  padding?: Pair;
  outputPadding?: Pair;
  dilation?: Pair;
}

export interface ConvTranspose1dLayerOptions extends ConvOptions {
  stride?: number;
  padding?: number;
  outputPadding?: number;
  dilation?: number;
}

export function checkChannels(op: string, inChannels: number, outChannels: number, groups: number): void {
  for (const [name, v] of [['inChannels', inChannels], ['outChannels', outChannels], ['groups', groups]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new ArgumentError(`${name} must be a positive integer, got ${v}`, { op });
  }
  if (inChannels % groups !== 0 || outChannels % groups !== 0) {
    throw new ArgumentError(`groups ${groups} must divide inChannels ${inChannels} and outChannels ${outChannels}`, { op });
  }
}

/** Weight of `shape` and bias of `[biasSize]`, both U(-1/sqrt(fanIn), 1/sqrt(fanIn)). */
export function params<B extends Backend>(backend: B, shape: number[], fanIn: number, biasSize: number, options: ConvOptions): { weight: Param<B>; bias: Param<B> | undefined } {
  const device = options.device ?? backend.defaultDevice();
  const weight = new Param(kaimingUniform(backend, shape, fanIn, { device }));
  const bound = 1 / Math.sqrt(fanIn);
  const bias = options.bias === false ? undefined : new Param(uniform(backend, [biasSize], -bound, bound, { device }));
  return { weight, bias };
}

/** [N, C, H, W] -> [N, out, H', W']; weight [out, in / groups, kh, kw]. */
export class Conv2d<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;
  readonly kernelSize: [number, number];

  constructor(backend: B, readonly inChannels: number, readonly outChannels: number, kernelSize: Pair, readonly options: Conv2dLayerOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('Conv2d', backend, options);
    const groups = options.groups ?? 1;
    checkChannels('Conv2d', inChannels, outChannels, groups);
    checkPaddingMode('Conv2d', options.paddingMode);
    this.kernelSize = pair('Conv2d', 'kernelSize', kernelSize, 1);
    const [kh, kw] = this.kernelSize;
    ({ weight: this.weight, bias: this.bias } = params(backend, [outChannels, inChannels / groups, kh, kw], (inChannels / groups) * kh * kw, outChannels, options));
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    const { stride, padding, dilation, groups, paddingMode = 'zeros' } = this.options;
    checkTensors('Conv2d', { input: x });
    if (paddingMode === 'zeros') return conv2d(x, this.weight.value, { bias: this.bias?.value, stride, padding, dilation, groups });
    const pd = pads('Conv2d', padding ?? 0, this.kernelSize, pair('Conv2d', 'stride', stride ?? 1, 1), pair('Conv2d', 'dilation', dilation ?? 1, 1));
    return tidy(() => conv2d(padInput(x, pd, paddingMode, 2), this.weight.value, { bias: this.bias?.value, stride, dilation, groups }));
  }
}

/** [N, C, L] -> [N, out, L']; weight [out, in / groups, k]. */
export class Conv1d<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;

  constructor(backend: B, readonly inChannels: number, readonly outChannels: number, readonly kernelSize: number, readonly options: Conv1dLayerOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('Conv1d', backend, options);
    const groups = options.groups ?? 1;
    checkChannels('Conv1d', inChannels, outChannels, groups);
    checkPaddingMode('Conv1d', options.paddingMode);
    pair('Conv1d', 'kernelSize', kernelSize, 1);
    ({ weight: this.weight, bias: this.bias } = params(backend, [outChannels, inChannels / groups, kernelSize], (inChannels / groups) * kernelSize, outChannels, options));
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    const { stride, padding, dilation, groups, paddingMode = 'zeros' } = this.options;
    checkTensors('Conv1d', { input: x });
    if (paddingMode === 'zeros') return conv1d(x, this.weight.value, { bias: this.bias?.value, stride, padding, dilation, groups });
    const p = padding ?? 0;
    const pd = pads('Conv1d', typeof p === 'string' ? p : [0, p], [1, this.kernelSize], [1, stride ?? 1], [1, dilation ?? 1]);
    return tidy(() => conv1d(padInput(x, pd, paddingMode, 1), this.weight.value, { bias: this.bias?.value, stride, dilation, groups }));
  }
}

/** [N, C, H, W] -> [N, out, H', W'], H' = (H - 1) stride - 2 padding + dilation (k - 1) + outputPadding + 1; weight [in, out / groups, kh, kw]. */
export class ConvTranspose2d<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;
  readonly kernelSize: [number, number];

  constructor(backend: B, readonly inChannels: number, readonly outChannels: number, kernelSize: Pair, readonly options: ConvTranspose2dLayerOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('ConvTranspose2d', backend, options);
    const groups = options.groups ?? 1;
    checkChannels('ConvTranspose2d', inChannels, outChannels, groups);
    this.kernelSize = pair('ConvTranspose2d', 'kernelSize', kernelSize, 1);
    const [kh, kw] = this.kernelSize;
    ({ weight: this.weight, bias: this.bias } = params(backend, [inChannels, outChannels / groups, kh, kw], (outChannels / groups) * kh * kw, outChannels, options));
  }

  /** `outputSize` ([H, W], or with the input's leading dims) picks the output padding, as torch's forward(input, output_size); the layer's outputPadding is then not used. */
  forward(x: Tensor<B, 'float'>, outputSize?: readonly number[]): Tensor<B, 'float'> {
    const { stride, padding, outputPadding, dilation, groups } = this.options;
    checkTensors('ConvTranspose2d', { input: x });
    return convTranspose2d(x, this.weight.value, { bias: this.bias?.value, stride, padding, dilation, groups, ...(outputSize === undefined ? { outputPadding } : { outputSize }) });
  }
}

/** [N, C, L] -> [N, out, L']; weight [in, out / groups, k]. */
export class ConvTranspose1d<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;

  constructor(backend: B, readonly inChannels: number, readonly outChannels: number, readonly kernelSize: number, readonly options: ConvTranspose1dLayerOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('ConvTranspose1d', backend, options);
    const groups = options.groups ?? 1;
    checkChannels('ConvTranspose1d', inChannels, outChannels, groups);
    pair('ConvTranspose1d', 'kernelSize', kernelSize, 1);
    ({ weight: this.weight, bias: this.bias } = params(backend, [inChannels, outChannels / groups, kernelSize], (outChannels / groups) * kernelSize, outChannels, options));
  }

  /** `outputSize` (a length, [L], or with the input's leading dims) picks the output padding, as torch's forward(input, output_size). */
  forward(x: Tensor<B, 'float'>, outputSize?: number | readonly number[]): Tensor<B, 'float'> {
    const { stride, padding, outputPadding, dilation, groups } = this.options;
    checkTensors('ConvTranspose1d', { input: x });
    return convTranspose1d(x, this.weight.value, { bias: this.bias?.value, stride, padding, dilation, groups, ...(outputSize === undefined ? { outputPadding } : { outputSize }) });
  }
}
