/**
 * What `loss.backward()` returns: the gradient of every leaf that requires grad, keyed by the
 * leaf's tensor id. The container owns its tensors: `dispose()` frees them all, and a tidy()
 * scope that does not return it frees it like a tensor.
 */
import type { Backend } from '../backends/backend.js';
import { track, type Disposable } from '../memory/tidy.js';
import type { Tensor } from '../tensor/tensor.js';

type FloatTensor = Tensor<Backend, 'float'>;

export class Gradients implements Disposable {
  private readonly byId = new Map<number, FloatTensor>();
  private disposed = false;

  /** Built by the tape (not by users); `entries` are handed over (the container owns them). */
  constructor(entries: Iterable<readonly [number, FloatTensor]> = []) {
    for (const [id, t] of entries) this.byId.set(id, t);
    track(this);
  }

  /** The gradient of `t` (a tensor or its id), or undefined when backward did not reach it. */
  get<B extends Backend>(t: Tensor<B, 'float'> | number): Tensor<B, 'float'> | undefined {
    return this.byId.get(typeof t === 'number' ? t : t.id) as Tensor<B, 'float'> | undefined;
  }

  has(t: { readonly id: number } | number): boolean {
    return this.byId.has(typeof t === 'number' ? t : t.id);
  }

  /** Removes a gradient from the container; the caller owns (and disposes) it. */
  take<B extends Backend>(t: Tensor<B, 'float'> | number): Tensor<B, 'float'> | undefined {
    const id = typeof t === 'number' ? t : t.id;
    const g = this.byId.get(id);
    this.byId.delete(id);
    return g as Tensor<B, 'float'> | undefined;
  }

  /** Tensor ids that have a gradient. */
  ids(): number[] {
    return [...this.byId.keys()];
  }

  get size(): number {
    return this.byId.size;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const t of this.byId.values()) t.dispose();
    this.byId.clear();
  }
}
