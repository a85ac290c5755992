/**
 * Switchyard's 3-D layers against PyTorch's reference vectors, group 'layers3d'
 * (tools/torch-vectors/groups/layers3d.py): conv3d and conv_transpose3d (groups, dilation, 'same'
 * with even kernels, stride > kernel, kernel = input, output padding), Conv3d (padding modes) and
 * ConvTranspose3d loading torch state dicts, max / avg pools (ceil mode with the last window in the
 * padding, count_include_pad, divisor_override, the tiling path), adaptive pools at non-divisible
 * sizes, non-finite values and ties, unbatched [C, D, H, W] inputs; outputs and the gradients of
 * the inputs and the parameters.
 */
import * as NF from '../../src/nn/functional/index.js';
import * as nn from '../../src/nn/index.js';
import { convLayerOptions, convOptions, moduleCase, POOL_ARGS, renamed } from './nn-args.js';
import { a, all, torchVectorSuite, unary, type AD, type Adapter, type Ctx, type F, type Known } from './harness.js';

const poolOptions = (x: Ctx): NF.MaxPool3dOptions & NF.AvgPool3dOptions => renamed(x, POOL_ARGS);
const kernel = (x: Ctx): NF.Triple => a.list(x, 'kernel_size') as NF.Triple;

/** A module run on the case's input x. */
const forwardCase = (x: Ctx, m: nn.Module<AD> & { forward(x: F): F }): { outputs: F[]; module: nn.Module<AD> } => moduleCase(x, m, () => m.forward(x.t['x']!));

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  conv3d: (x) => NF.conv3d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.Conv3dOptions<AD>),
  conv_transpose3d: (x) => NF.convTranspose3d(x.t['x']!, x.t['weight']!, convOptions(x) as NF.ConvTranspose3dOptions<AD>),
  Conv3d: (x) => forwardCase(x, new nn.Conv3d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, kernel(x), convLayerOptions(x) as nn.Conv3dLayerOptions)),
  ConvTranspose3d: (x) => forwardCase(x, new nn.ConvTranspose3d(x.b, a.num(x, 'in_channels')!, a.num(x, 'out_channels')!, kernel(x), convLayerOptions(x) as nn.ConvTranspose3dLayerOptions)),
  max_pool3d: unary((t, x) => NF.maxPool3d(t, kernel(x), poolOptions(x))),
  avg_pool3d: unary((t, x) => NF.avgPool3d(t, kernel(x), poolOptions(x))),
  adaptive_avg_pool3d: unary((t, x) => NF.adaptiveAvgPool3d(t, x.args['output_size'] as NF.AdaptiveSize3d)),
  adaptive_max_pool3d: unary((t, x) => NF.adaptiveMaxPool3d(t, x.args['output_size'] as NF.AdaptiveSize3d)),
  MaxPool3d: (x) => forwardCase(x, new nn.MaxPool3d<AD>(kernel(x), poolOptions(x))),
  AvgPool3d: (x) => forwardCase(x, new nn.AvgPool3d<AD>(kernel(x), poolOptions(x))),
  AdaptiveAvgPool3d: (x) => forwardCase(x, new nn.AdaptiveAvgPool3d<AD>(x.args['output_size'] as NF.AdaptiveSize3d)),
  AdaptiveMaxPool3d: (x) => forwardCase(x, new nn.AdaptiveMaxPool3d<AD>(x.args['output_size'] as NF.AdaptiveSize3d)),
};

const KNOWN: readonly Known[] = [
  {
    group: 'layers3d',
    cases: /two NaNs in a window/,
    torch: all,
    versions: 'all',
    kind: 'ours',
    why: "a window's gradient goes to its first maximum, a NaN counting as one (as maxPool2d's); torch's CPU kernels send it to the window's last NaN",
  },
];

await torchVectorSuite({ groups: ['layers3d'], adapters: ADAPTERS, known: KNOWN });
