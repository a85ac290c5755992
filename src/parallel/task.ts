/**
 * A data-parallel task: what each replica builds and runs. Functions cannot cross threads, so a
 * task is a module (a file) that every replica imports: its default export says how to build the
 * model skeleton (the weights come from the coordinator's record), the loss of a shard, and the
 * optimizer.
 */
import type { AutodiffBackend } from '../autodiff/types.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, DTypeError } from '../errors.js';
import type { Module } from '../nn/module.js';
import type { Optimizer } from '../optim/optimizer.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Batch, BatchArray } from './protocol.js';

/** A replica's backend: Autodiff over Cpu or Wgpu. */
export type ReplicaBackend = AutodiffBackend;

export interface ReplicaContext<O = unknown> {
  readonly backend: ReplicaBackend;
  readonly device: Device;
  /** The `options` given to DataParallel.create (plain data). */
  readonly options: O;
  /** Which replica this is (0-based) and its device string ('wgpu:0', 'cpu', 'cpu:worker'). */
  readonly replica: { readonly index: number; readonly device: string };
}

/** What a loss function returns: the shard's mean loss, and optional metrics summed over shards. */
export type LossResult = Tensor<ReplicaBackend, 'float'> | { readonly loss: Tensor<ReplicaBackend, 'float'>; readonly metrics?: Readonly<Record<string, Tensor<ReplicaBackend>>> };

export interface ParallelTask<M extends Module<ReplicaBackend> = Module<ReplicaBackend>, O = unknown> {
  /** The model's skeleton on `ctx.device`; its parameter names must match the record DataParallel was given. */
  model(ctx: ReplicaContext<O>): M;
  /**
   * The mean loss over the shard (DataParallel weights each shard's gradient by its size, so the
   * joined gradient is that of the mean over the whole batch). Metrics are scalars summed over
   * shards (e.g. the number of correct predictions).
   */
  loss(model: M, shard: Shard, ctx: ReplicaContext<O>): LossResult;
  optimizer(ctx: ReplicaContext<O>): Optimizer<ReplicaBackend>;
}

/** Identity with types: `export default defineTask({ model, loss, optimizer })`. */
export function defineTask<M extends Module<ReplicaBackend>, O = unknown>(task: ParallelTask<M, O>): ParallelTask<M, O> {
  return task;
}

/** A replica's part of a batch, as tensors on its device (made on first use). */
export class Shard {
  private readonly made = new Map<string, Tensor<ReplicaBackend>>();

  constructor(
    private readonly backend: ReplicaBackend,
    private readonly device: Device,
    private readonly arrays: Batch,
    /** Samples in the shard. */
    readonly size: number,
  ) {}

  /** Names of the batch's inputs. */
  get names(): string[] {
    return Object.keys(this.arrays);
  }

  float(name: string): Tensor<ReplicaBackend, 'float'> {
    const a = this.array(name);
    if (!(a.data instanceof Float32Array)) throw this.kindError(name, a, 'float', 'Float32Array');
    return this.remember(name, fromData(this.backend, a.data, { shape: a.shape, device: this.device }));
  }

  int(name: string): Tensor<ReplicaBackend, 'int'> {
    const a = this.array(name);
    if (!(a.data instanceof Int32Array)) throw this.kindError(name, a, 'int', 'Int32Array');
    return this.remember(name, fromData(this.backend, a.data, { shape: a.shape, device: this.device }));
  }

  bool(name: string): Tensor<ReplicaBackend, 'bool'> {
    const a = this.array(name);
    if (!(a.data instanceof Uint8Array)) throw this.kindError(name, a, 'bool', 'Uint8Array');
    return this.remember(name, fromData(this.backend, a.data, { shape: a.shape, device: this.device }));
  }

  /** Frees the tensors made from the shard. */
  dispose(): void {
    for (const t of this.made.values()) t.dispose();
    this.made.clear();
  }

  private remember<T extends Tensor<ReplicaBackend>>(name: string, t: T): T {
    this.made.get(name)?.dispose();
    this.made.set(name, t);
    return t;
  }

  private array(name: string): BatchArray {
    const a = this.arrays[name];
    if (!a) throw new ArgumentError(`the batch has no input '${name}'`, { op: 'Shard', hint: `inputs: ${this.names.join(', ') || '(none)'}` });
    return a;
  }

  private kindError(name: string, a: BatchArray, kind: string, want: string): DTypeError {
    const dtype = a.data instanceof Float32Array ? 'float32' : a.data instanceof Int32Array ? 'int32' : 'bool';
    return new DTypeError(`input '${name}' is ${dtype}, not ${kind}`, { op: 'Shard', dtypes: [dtype], hint: `pass a ${want} in the batch, or read it with the accessor of its kind` });
  }
}
