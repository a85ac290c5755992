/**
 * 3-D convolution layers (torch.nn.Conv3d / ConvTranspose3d), with PyTorch's weight layouts
 * (conv [out, in / groups, kd, kh, kw], transposed [in, out / groups, kd, kh, kw]), state dict
 * keys (`weight`, `bias`) and default initialisation, as conv.ts's 2-D layers.
 */
import type { Backend } from '../backends/backend.js';
import { tidy } from '../memory/tidy.js';
import type { Tensor } from '../tensor/tensor.js';
import { pads3d, triple, type Padding3d, type Triple } from './functional/args3d.js';
import { conv3d, convTranspose3d } from './functional/conv3d.js';
import { checkChannels, checkPaddingMode, params, type ConvOptions, type ConvPaddingMode } from './conv.js';
import { checkLayer, checkTensors } from './check.js';
import { Module } from './module.js';
import type { Param } from './param.js';

export interface Conv3dLayerOptions extends ConvOptions {
  stride?: Triple;
  padding?: Padding3d;
  dilation?: Triple;
  /** Default 'zeros'. */
  paddingMode?: ConvPaddingMode;
}

export interface ConvTranspose3dLayerOptions extends ConvOptions {
  stride?: Triple;
  padding?: Triple;
  outputPadding?: Triple;
  dilation?: Triple;
}

/** [N, C, D, H, W] -> [N, out, D', H', W']; weight [out, in / groups, kd, kh, kw]. */
export class Conv3d<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;
  readonly kernelSize: [number, number, number];

  constructor(backend: B, readonly inChannels: number, readonly outChannels: number, kernelSize: Triple, readonly options: Conv3dLayerOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('Conv3d', backend, options);
    const groups = options.groups ?? 1;
    checkChannels('Conv3d', inChannels, outChannels, groups);
    checkPaddingMode('Conv3d', options.paddingMode);
    this.kernelSize = triple('Conv3d', 'kernelSize', kernelSize, 1);
    const [kd, kh, kw] = this.kernelSize;
    ({ weight: this.weight, bias: this.bias } = params(backend, [outChannels, inChannels / groups, kd, kh, kw], (inChannels / groups) * kd * kh * kw, outChannels, options));
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    const { stride, padding, dilation, groups, paddingMode = 'zeros' } = this.options;
    checkTensors('Conv3d', { input: x });
    if (paddingMode === 'zeros') return conv3d(x, this.weight.value, { bias: this.bias?.value, stride, padding, dilation, groups });
    // Not zeros: the input padded in that mode (torch's F.pad), then convolved unpadded, as torch's _conv_forward.
    const pd = pads3d('Conv3d', padding ?? 0, this.kernelSize, triple('Conv3d', 'stride', stride ?? 1, 1), triple('Conv3d', 'dilation', dilation ?? 1, 1));
    return tidy(() => conv3d(x.pad([pd[4], pd[5], pd[2], pd[3], pd[0], pd[1]], paddingMode), this.weight.value, { bias: this.bias?.value, stride, dilation, groups }));
  }
}

/** [N, C, D, H, W] -> [N, out, D', H', W'], D' = (D - 1) stride - 2 padding + dilation (k - 1) + outputPadding + 1; weight [in, out / groups, kd, kh, kw]. */
export class ConvTranspose3d<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;
  readonly kernelSize: [number, number, number];

  constructor(backend: B, readonly inChannels: number, readonly outChannels: number, kernelSize: Triple, readonly options: ConvTranspose3dLayerOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('ConvTranspose3d', backend, options);
    const groups = options.groups ?? 1;
    checkChannels('ConvTranspose3d', inChannels, outChannels, groups);
    this.kernelSize = triple('ConvTranspose3d', 'kernelSize', kernelSize, 1);
    const [kd, kh, kw] = this.kernelSize;
    ({ weight: this.weight, bias: this.bias } = params(backend, [inChannels, outChannels / groups, kd, kh, kw], (outChannels / groups) * kd * kh * kw, outChannels, options));
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    const { stride, padding, outputPadding, dilation, groups } = this.options;
    checkTensors('ConvTranspose3d', { input: x });
    return convTranspose3d(x, this.weight.value, { bias: this.bias?.value, stride, padding, outputPadding, dilation, groups });
  }
}
