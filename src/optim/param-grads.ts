/**
 * Gradients keyed by ParamId rather than tensor id: what optimizers consume. Built from a
 * backward pass and a module, or from a record (gradients computed on another thread).
 */
import type { Gradients } from '../autodiff/gradients.js';
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { keep, track, type Disposable } from '../memory/tidy.js';
import type { Module } from '../nn/module.js';
import { asParamId, type ParamId } from '../nn/param.js';
import { ownedFloat32, type TensorRecord } from '../nn/record.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';

export interface ParamGradsRecord {
  readonly params: Readonly<Record<string, TensorRecord>>;
}

export class ParamGrads<B extends Backend = Backend> implements Disposable {
  private readonly byId = new Map<ParamId, Tensor<B, 'float'>>();
  private disposed = false;

  constructor() {
    track(this);
  }

  /** Moves each parameter's gradient out of `grads` (which keeps the rest). */
  static from<B extends Backend>(grads: Gradients, module: Module<B>): ParamGrads<B> {
    const out = new ParamGrads<B>();
    module.visit((p) => {
      const g = grads.take(p.value);
      if (g) out.set(p.id, g);
    });
    return out;
  }

  /** Gradients from a record, created on `device` (default: the backend's default device). */
  static fromRecord<B extends Backend>(backend: B, record: ParamGradsRecord, device?: Device): ParamGrads<B> {
    const out = new ParamGrads<B>();
    for (const [id, r] of Object.entries(record.params)) {
      out.set(asParamId(id), fromData(backend, r.data, { shape: r.shape, device: device ?? backend.defaultDevice() }) as Tensor<B, 'float'>);
    }
    return out;
  }

  get(id: ParamId): Tensor<B, 'float'> | undefined {
    return this.byId.get(id);
  }

  /** Stores a gradient (the container owns it), disposing the one it replaces. */
  set(id: ParamId, g: Tensor<B, 'float'>): void {
    const old = this.byId.get(id);
    this.byId.set(id, keep(g));
    if (old && old !== g) old.dispose();
  }

  has(id: ParamId): boolean {
    return this.byId.has(id);
  }

  ids(): ParamId[] {
    return [...this.byId.keys()];
  }

  entries(): Array<[ParamId, Tensor<B, 'float'>]> {
    return [...this.byId.entries()];
  }

  get size(): number {
    return this.byId.size;
  }

  /** Plain data with one transferable buffer per gradient. */
  async toRecord(): Promise<ParamGradsRecord> {
    const entries = await Promise.all(
      this.entries().map(async ([id, g]): Promise<[string, TensorRecord]> => {
        const { shape, values } = await g.toData();
        return [id, { shape, dtype: 'float32', data: ownedFloat32(values) }];
      }),
    );
    return { params: Object.fromEntries(entries) };
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const g of this.byId.values()) g.dispose();
    this.byId.clear();
  }
}
