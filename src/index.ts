/** Switchyard: a TypeScript deep-learning runtime that routes every tensor op to a device. */
export * from './errors.js';
export type { DType, Kind, TypedArray } from './ir/dtype.js';
export type { OpRecord, OpName, OpAttrs, TensorMeta, DistributionSpec, SliceRange } from './ir/ops.js';
export { UNARY, BINARY, UNARY_OPS, BINARY_OPS } from './ir/elementwise.js';
export type { UnaryOp, BinaryOp } from './ir/elementwise.js';
export type { Device } from './devices/device.js';
export { CpuDevice } from './devices/cpu.js';
export type { Backend, Handle } from './backends/backend.js';
export { Cpu, DEFAULT_INLINE_THRESHOLD } from './backends/cpu/backend.js';
export type { CpuOptions } from './backends/cpu/backend.js';
export { Tensor } from './tensor/tensor.js';
export type { TensorData, NestedArray, FloatTensor, IntTensor, BoolTensor } from './tensor/tensor.js';
export { fromData, full, zeros, ones, fullLike, arange, random, Distribution } from './tensor/creation.js';
export { tidy, keep } from './memory/tidy.js';
export type { MemoryInfo } from './memory/info.js';
export { Scheduler, scheduler } from './scheduler/scheduler.js';
export type { OpEvent } from './scheduler/events.js';
export { clock } from './scheduler/clock.js';
