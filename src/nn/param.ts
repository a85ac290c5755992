/**
 * A parameter: a float tensor with a stable id. The id survives updates, moves, forks, clones and
 * records, so optimizer state and gradients keyed by it can cross devices and threads.
 */
import { isAutodiff } from '../autodiff/types.js';
import type { Backend } from '../backends/backend.js';
import { keep } from '../memory/tidy.js';
import type { Tensor } from '../tensor/tensor.js';

export type ParamId = string & { readonly __brand: 'ParamId' };

/** A fresh random id (64 bits, hex): unique across threads and processes without coordination. */
export function newParamId(): ParamId {
  const b = new Uint32Array(2);
  crypto.getRandomValues(b);
  return `${b[0]!.toString(16).padStart(8, '0')}${b[1]!.toString(16).padStart(8, '0')}` as ParamId;
}

/** An id read back from a record or a message. */
export function asParamId(id: string): ParamId {
  return id as ParamId;
}

export class Param<B extends Backend = Backend> {
  private current: Tensor<B, 'float'>;

  /** `trainable: false` freezes it: it never requires grad. */
  constructor(
    value: Tensor<B, 'float'>,
    public id: ParamId = newParamId(),
    readonly trainable = true,
  ) {
    this.current = this.track(value);
  }

  get value(): Tensor<B, 'float'> {
    return this.current;
  }

  /** Replaces the value (disposing the old one unless it is the same tensor); the id stays. */
  set(value: Tensor<B, 'float'>): void {
    if (value === this.current) return;
    const old = this.current;
    this.current = this.track(value);
    old.dispose();
  }

  /**
   * Replaces the value as torch's in-place writes under no_grad do (Embedding's max_norm renorm,
   * within a forward pass): a graph already recorded against the old value keeps sending its
   * gradient to this parameter, summed with the new value's. `value` must not be tracked (make it
   * under noGrad). set() is for updates between passes (an optimizer step).
   */
  setInPlace(value: Tensor<B, 'float'>): void {
    if (value === this.current) return;
    const old = this.current;
    const b = old.backend;
    if (this.trainable && isAutodiff(b) && value.backend === b && b.continueLeaf(old.handle, value.handle)) this.current = keep(value);
    else this.current = this.track(value);
    old.dispose();
  }

  /** A parameter of the same kind and id holding `value` (what forks and clones are made of). */
  derive(value: Tensor<B, 'float'>): Param<B> {
    return new Param(value, this.id, this.trainable);
  }

  get shape(): number[] {
    return this.current.shape;
  }

  dispose(): void {
    this.current.dispose();
  }

  /**
   * A parameter outlives tidy() scopes (it is freed by dispose()), and on an autodiff backend a
   * trainable one is a leaf that requires grad.
   */
  private track(value: Tensor<B, 'float'>): Tensor<B, 'float'> {
    keep(value);
    if (this.trainable && isAutodiff(value.backend) && !value.requiresGrad) value.backend.requireGrad(value.handle);
    return value;
  }
}

/**
 * State a module keeps beside its parameters (PyTorch's buffers: BatchNorm's running statistics):
 * never trained, but moved, forked, saved and loaded like a parameter. `numParams()` leaves it out.
 */
export class Buffer<B extends Backend = Backend> extends Param<B> {
  /**
   * `keepsDType`: Module.toDType leaves it as it is. For a counter (BatchNorm's
   * numBatchesTracked, an integer in torch that module.half() leaves alone): float16 counts
   * exactly only to 2048, where adding 1 rounds back and the count stops.
   */
  constructor(
    value: Tensor<B, 'float'>,
    id: ParamId = newParamId(),
    readonly keepsDType = false,
  ) {
    super(value, id, false);
  }

  override derive(value: Tensor<B, 'float'>): Buffer<B> {
    return new Buffer(value, this.id, this.keepsDType);
  }
}
