/**
 * unfold / fold, channelShuffle and pixelUnshuffle against PyTorch's reference vectors, group
 * 'fold' (tools/torch-vectors/groups/fold.py): kernel, dilation, padding and stride as numbers or
 * pairs, batched and unbatched, overlapping blocks, strides past the kernel, padding wider than the
 * kernel, fold of unfold, the modules; outputs and input gradients (channel_shuffle's gradient
 * cases run torch's definition, torch 1.13 having no derivative for it).
 */
import * as NF from '../../src/nn/functional/index.js';
import * as nn from '../../src/nn/index.js';
import { moduleCase, renamed } from './nn-args.js';
import { a, torchVectorSuite, unary, type AD, type Adapter, type Ctx, type F } from './harness.js';

const BLOCK_ARGS = [['dilation', 'dilation'], ['padding', 'padding'], ['stride', 'stride']] as const;
const options = (x: Ctx): NF.UnfoldOptions => renamed(x, BLOCK_ARGS);
const pairArg = (x: Ctx, k: string): NF.Pair => a.list(x, k) as NF.Pair;

const forwardCase = (x: Ctx, m: nn.Module<AD> & { forward(x: F): F }): { outputs: F[]; module: nn.Module<AD> } => moduleCase(x, m, () => m.forward(x.t['x']!));

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  unfold: unary((t, x) => NF.unfold(t, pairArg(x, 'kernel_size'), options(x))),
  fold: unary((t, x) => NF.fold(t, pairArg(x, 'output_size'), pairArg(x, 'kernel_size'), options(x))),
  fold_unfold: unary((t, x) => NF.fold(NF.unfold(t, pairArg(x, 'kernel_size'), options(x)), pairArg(x, 'output_size'), pairArg(x, 'kernel_size'), options(x))),
  Unfold: (x) => forwardCase(x, new nn.Unfold<AD>(pairArg(x, 'kernel_size'), options(x))),
  Fold: (x) => forwardCase(x, new nn.Fold<AD>(pairArg(x, 'output_size'), pairArg(x, 'kernel_size'), options(x))),
  channel_shuffle: unary((t, x) => NF.channelShuffle(t, a.num(x, 'groups')!)),
  ChannelShuffle: (x) => forwardCase(x, new nn.ChannelShuffle<AD>(a.num(x, 'groups')!)),
  pixel_unshuffle: unary((t, x) => NF.pixelUnshuffle(t, a.num(x, 'downscale_factor')!)),
  PixelUnshuffle: (x) => forwardCase(x, new nn.PixelUnshuffle<AD>(a.num(x, 'downscale_factor')!)),
};

await torchVectorSuite({ groups: ['fold'], adapters: ADAPTERS });
