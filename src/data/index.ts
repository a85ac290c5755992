/** Data loading: datasets, seeded batching, collation, and a loader on a worker thread. */
export { type Dataset, TensorDataset, MappedDataset, Subset, randomSplit } from './dataset.js';
export { DataLoader, type DataLoaderOptions, type BatchSource } from './loader.js';
export { WorkerDataLoader, type WorkerDataLoaderOptions } from './worker-loader.js';
export { defaultCollate, type Collate, type Collated } from './collate.js';
export { hostTensor, isHostTensor, toTensors, type HostTensor, type Tensors } from './host-tensor.js';
export { seededPermutation } from './shuffle.js';
export type { PlanOptions } from './plan.js';
