/** Neural-network modules: parameters with stable ids, layers, losses, records. */
export { Module, type Layer } from './module.js';
export { Param, newParamId, asParamId, type ParamId } from './param.js';
export { transferables, type ModuleRecord, type ParamRecord, type TensorRecord } from './record.js';
export { uniform, normal, kaimingUniform, type InitOptions } from './init.js';
export { Linear, type LinearOptions } from './linear.js';
export { Embedding } from './embedding.js';
export { LayerNorm } from './layer-norm.js';
export { Dropout } from './dropout.js';
export { Relu, Gelu } from './activation.js';
export { Sequential } from './sequential.js';
export { PositionWiseFeedForward, type PositionWiseFeedForwardConfig } from './feed-forward.js';
export { crossEntropy, mseLoss } from './loss.js';
