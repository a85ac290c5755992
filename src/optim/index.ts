/** Optimizers keyed by ParamId, gradient clipping, and gradients by parameter. */
export { GroupSettings, Optimizer, type OptimizerOptions, type OptimizerRecord, type ParamGroup, type ParamState, type StepContext, type UpdateValues } from './optimizer.js';
export { type AdamFamilyOptions, type BetasEps, type DecoupledWeightDecayOption } from './adam-family.js';
export { SGD, type SGDGroup, type SGDOptions, type SGDSettings } from './sgd.js';
export { Adam, AdamW, type AdamGroup, type AdamOptions, type AdamSettings } from './adam.js';
export { ParamGrads, type ParamGradsRecord } from './param-grads.js';
export { clipGradNorm, clipGradValue, type ClipGradNormOptions } from './clip.js';
export { RMSprop, type RMSpropGroup, type RMSpropOptions, type RMSpropSettings } from './rmsprop.js';
export { Adagrad, type AdagradGroup, type AdagradOptions, type AdagradSettings } from './adagrad.js';
export { Adamax, type AdamaxGroup, type AdamaxOptions, type AdamaxSettings } from './adamax.js';
export { NAdam, type NAdamGroup, type NAdamOptions, type NAdamSettings } from './nadam.js';
export { RAdam, type RAdamGroup, type RAdamOptions, type RAdamSettings } from './radam.js';
export { Adadelta, type AdadeltaGroup, type AdadeltaOptions, type AdadeltaSettings } from './adadelta.js';
export { Rprop, type RpropGroup, type RpropOptions, type RpropSettings } from './rprop.js';
export { LBFGS, type LBFGSClosureResult, type LBFGSOptions, type LBFGSRecord } from './lbfgs.js';
export { ASGD, type ASGDGroup, type ASGDOptions, type ASGDSettings } from './asgd.js';
export { LrScheduler, StepLR, MultiStepLR, ExponentialLR, ConstantLR, LinearLR, PolynomialLR, LambdaLR, CosineLR, CosineAnnealingWarmRestarts, OneCycleLR, ReduceLROnPlateau, SequentialLR, type LrSchedulerState, type ReduceLROnPlateauOptions } from './lr-scheduler.js';
