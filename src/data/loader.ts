/**
 * DataLoader (torch.utils.data.DataLoader): batches of a dataset, in order or shuffled with a
 * seed (a new order each epoch), with drop-last and a collate function. Iterating it once is one
 * epoch: `for await (const batch of loader)`. WorkerDataLoader does the same on a worker thread.
 */
import { defaultCollate, type Collate, type Collated } from './collate.js';
import type { Dataset } from './dataset.js';
import { ArgumentError } from '../errors.js';
import { field, show } from '../ir/validate.js';
import { batchCount, checkDataset, checkPlan, planBatches, type PlanOptions } from './plan.js';

/** What `fit` trains on: an async iterable of batches (one pass = one epoch) whose length is its batch count. */
export interface BatchSource<Batch> extends AsyncIterable<Batch> {
  readonly length: number;
}

export interface DataLoaderOptions<T, Batch> extends PlanOptions {
  /** Samples to a batch (default: defaultCollate). */
  collate?: Collate<T, Batch>;
}

export class DataLoader<T, Batch = Collated<T>> implements BatchSource<Batch> {
  /** Epochs started so far (each iteration starts one). */
  epoch = 0;
  private readonly collate: Collate<T, Batch>;

  constructor(
    readonly dataset: Dataset<T>,
    readonly options: DataLoaderOptions<T, Batch> = {},
  ) {
    checkPlan('DataLoader', options, ['collate']);
    checkDataset('DataLoader', dataset);
    const collate = field(options, 'collate');
    if (collate !== undefined && typeof collate !== 'function') throw new ArgumentError(`collate must be a function of the samples, got ${show(collate)}`, { op: 'DataLoader' });
    // Without a collate, Batch is its default, Collated<T>: what defaultCollate returns.
    this.collate = options.collate ?? (defaultCollate as Collate<T, Batch>);
  }

  /** Batches per epoch. */
  get length(): number {
    return batchCount(this.dataset.length, this.options);
  }

  /** The sample indices of each batch of an epoch (the current one by default). */
  plan(epoch = this.epoch): Int32Array[] {
    return planBatches(this.dataset.length, epoch, this.options);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Batch> {
    const batches = this.plan(this.epoch++);
    for (const indices of batches) yield this.collate(Array.from(indices, (i) => this.dataset.get(i)));
  }
}
