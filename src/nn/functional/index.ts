/** nn.functional: layers as functions of tensors (PyTorch's torch.nn.functional). */
export { conv1d, conv2d, convTranspose1d, convTranspose2d, type Conv1dOptions, type Conv2dOptions, type ConvTranspose1dOptions, type ConvTranspose2dOptions } from './conv.js';
export { maxPool1d, maxPool2d, avgPool1d, avgPool2d, lpPool1d, lpPool2d, type MaxPool2dOptions, type AvgPool2dOptions, type Pool1dOptions, type PoolWithIndices, type LpPool2dOptions } from './pool.js';
export { maxUnpool1d, maxUnpool2d, type MaxUnpool1dOptions, type MaxUnpool2dOptions } from './unpool.js';
export { bilinear } from './bilinear.js';
export { embeddingBag, type EmbeddingBagMode, type EmbeddingBagOptions } from './embedding-bag.js';
export { localResponseNorm, type LocalResponseNormOptions } from './local-response-norm.js';
export { adaptiveAvgPool1d, adaptiveAvgPool2d, adaptiveMaxPool1d, adaptiveMaxPool2d, type AdaptiveSize2d } from './adaptive-pool.js';
export { conv3d, convTranspose3d, type Conv3dOptions, type ConvTranspose3dOptions } from './conv3d.js';
export { maxPool3d, avgPool3d, adaptiveAvgPool3d, adaptiveMaxPool3d, type MaxPool3dOptions, type AvgPool3dOptions, type AdaptiveSize3d } from './pool3d.js';
export { batchNorm, groupNorm, layerNorm, rmsNorm, instanceNorm, type BatchNormOptions, type InstanceNormOptions } from './normalization.js';
export { silu, leakyRelu, softplus, gelu, hardtanh, relu6, hardsigmoid, hardswish, mish, selu, elu, celu, glu, logSigmoid, softsign, tanhshrink, hardshrink, softshrink, threshold, softmin, prelu } from './activation.js';
export { dropout } from './dropout.js';
export { scaledDotProductAttention, attentionWeights, causalMask, type AttentionOptions } from './attention.js';
export { normalize, cosineSimilarity, pairwiseDistance, type NormalizeOptions, type CosineSimilarityOptions, type PairwiseDistanceOptions } from './distance.js';
export { interpolate, type InterpolateMode, type InterpolateOptions } from './interpolate.js';
export { pixelShuffle, pixelUnshuffle } from './pixel-shuffle.js';
export type { Pair, Padding1d, Padding2d } from './args.js';
export type { Triple, Padding3d } from './args3d.js';
