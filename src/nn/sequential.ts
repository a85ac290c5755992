/** Layers applied in order; each intermediate result is freed once the next layer has used it. */
import type { Backend } from '../backends/backend.js';
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import type { Tensor } from '../tensor/tensor.js';
import { Module, type Layer, type TorchKey } from './module.js';

export class Sequential<B extends Backend = Backend> extends Module<B> {
  readonly layers: ReadonlyArray<Layer<B>>;

  constructor(...layers: Array<Layer<B>>) {
    super();
    // Untyped callers: a non-module would only fail later, as a bare TypeError inside forward.
    layers.forEach((layer: unknown, i) => {
      if (layer instanceof Module && typeof Reflect.get(layer, 'forward') === 'function') return;
      const hint = Array.isArray(layer) ? 'pass the layers as separate arguments: new Sequential(...layers)' : 'pass modules with forward(x), such as new Linear(backend, 4, 2) or new Relu()';
      throw new ArgumentError(`argument ${i + 1} (layer ${i}) must be a module, got ${show(layer)}`, { op: 'Sequential', hint });
    });
    this.layers = layers;
  }

  /** torch.nn.Sequential names its layers '0', '1', ... directly. */
  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { layers: { key: '' } };
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    let cur = x;
    for (const layer of this.layers) {
      const next = layer.forward(cur);
      // A layer may return its input (Dropout in eval): free only what we made.
      if (cur !== x && next !== cur) cur.dispose();
      cur = next;
    }
    return cur;
  }
}
