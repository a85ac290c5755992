/** Data-parallel training: replicas on worker threads (or processes) that own devices. */
export { DataParallel, type DataParallelOptions, type StepOptions, type StepResult, type ReplicaTraffic, type ReplicaInfo, type Strategy } from './data-parallel.js';
export { defineTask, Shard, type ParallelTask, type ReplicaContext, type ReplicaBackend, type LossResult } from './task.js';
export type { Batch, BatchArray } from './protocol.js';
export { parseDevices, type ReplicaDevice } from './devices.js';
export { ReplicaError } from './errors.js';
export { gpuInventory, type GpuInventory, type MachineGpu } from './gpus.js';
export { renderTimeline, overlapOf, phasesOf, type StepTimeline, type ReplicaTimeline, type Overlap, type Phases } from './timeline.js';
export { saveCheckpoint, loadCheckpoint, type Checkpoint } from './checkpoint.js';
export type { Split, BalancerOptions } from './balancer.js';
export { DEFAULT_BUCKET_BYTES, DEFAULT_FIRST_BUCKET_BYTES } from './layout.js';
