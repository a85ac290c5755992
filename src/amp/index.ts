export { autocast, isAutocastEnabled, type AutocastOptions } from './autocast.js';
export { GradScaler, type GradScalerOptions } from './grad-scaler.js';
export { LossScale, type LossScaleOptions, type LossScaleState } from './loss-scale.js';
