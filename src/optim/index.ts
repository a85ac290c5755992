/** Optimizers keyed by ParamId, gradient clipping, and gradients by parameter. */
export { Optimizer, type OptimizerOptions, type OptimizerRecord, type ParamGroup, type ParamState, type UpdateValues } from './optimizer.js';
export { SGD, type SGDOptions } from './sgd.js';
export { Adam, AdamW, type AdamOptions } from './adam.js';
export { ParamGrads, type ParamGradsRecord } from './param-grads.js';
export { clipGradNorm, clipGradValue, type ClipGradNormOptions } from './clip.js';
export { RMSprop, type RMSpropOptions } from './rmsprop.js';
export { Adagrad, type AdagradOptions } from './adagrad.js';
export { Adamax, type AdamaxOptions } from './adamax.js';
export { NAdam, type NAdamOptions } from './nadam.js';
export { RAdam, type RAdamOptions } from './radam.js';
export { Adadelta, type AdadeltaOptions } from './adadelta.js';
export { Rprop, type RpropOptions } from './rprop.js';
export { ASGD, type ASGDOptions } from './asgd.js';
export { LrScheduler, StepLR, MultiStepLR, ExponentialLR, ConstantLR, LinearLR, PolynomialLR, LambdaLR, CosineLR, CosineAnnealingWarmRestarts, OneCycleLR, ReduceLROnPlateau, SequentialLR, type LrSchedulerState, type ReduceLROnPlateauOptions } from './lr-scheduler.js';
