/** Training-loop helpers: fit(), metrics, and callbacks (progress bar, checkpoints, early stopping). */
export { fit, evaluate, type FitOptions, type FitResult, type EvaluateOptions } from './fit.js';
export { Accuracy, MeanLoss, type Metric, type StepOutput } from './metrics.js';
export type { Callback, FitContext, EpochLogs, BatchLogs, PhaseLogs } from './callback.js';
export { ProgressBar, type ProgressOptions } from './progress.js';
export { EarlyStopping, type EarlyStoppingOptions } from './early-stopping.js';
export { Checkpoint, saveOptimizerState, loadOptimizerState, type CheckpointOptions } from './checkpoint.js';
