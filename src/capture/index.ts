/** Captured steps: a repeated step recorded once on a WebGPU device and replayed. */
export { captureStep, CapturedStep } from './capture.js';
export type { CaptureOptions } from './capture.js';
