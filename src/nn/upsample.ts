/** Resampling and channel-reordering layers (torch.nn.Upsample, PixelShuffle, PixelUnshuffle, ChannelShuffle): no parameters. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { interpolate, type InterpolateOptions } from './functional/interpolate.js';
import { channelShuffle, pixelShuffle, pixelUnshuffle } from './functional/pixel-shuffle.js';
import { checkInteger } from '../ir/validate.js';
import { Module } from './module.js';

/** torch.nn.Upsample: interpolate with fixed options ({ size | scaleFactor, mode, alignCorners }). */
export class Upsample<B extends Backend = Backend> extends Module<B> {
  constructor(readonly options: InterpolateOptions) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return interpolate(x, this.options);
  }
}

/** torch.nn.PixelShuffle: [*, C r^2, H, W] -> [*, C, H r, W r]. */
export class PixelShuffle<B extends Backend = Backend> extends Module<B> {
  constructor(readonly upscaleFactor: number) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return pixelShuffle(x, this.upscaleFactor);
  }
}

/** torch.nn.PixelUnshuffle: [*, C, H r, W r] -> [*, C r^2, H, W]. */
export class PixelUnshuffle<B extends Backend = Backend> extends Module<B> {
  constructor(readonly downscaleFactor: number) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return pixelUnshuffle(x, this.downscaleFactor);
  }
}

/** torch.nn.ChannelShuffle: [N, C, *] with the channels of `groups` groups interleaved. */
export class ChannelShuffle<B extends Backend = Backend> extends Module<B> {
  constructor(readonly groups: number) {
    super();
    checkInteger('ChannelShuffle', 'groups', groups, 1);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return channelShuffle(x, this.groups);
  }
}
