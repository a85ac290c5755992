/**
 * The contract the tensor API needs from an autodiff backend. Only the type is imported by
 * src/tensor/tensor.ts, so `backward()` and friends type-check only on tensors whose backend
 * has `autodiff: true`.
 */
import type { Backend, Handle } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { Gradients } from './gradients.js';

export interface BackwardOptions {
  /** Keep the graph's saved tensors so that backward can run through it again (PyTorch's retain_graph). */
  retainGraph?: boolean;
}

export interface AutodiffBackend<D extends Device = Device> extends Backend<D> {
  readonly autodiff: true;
  /** The wrapped backend: gradient rules run on it, so each runs where its forward op ran. */
  readonly inner: Backend;
  /** Marks a tensor as a leaf whose gradient backward reports (on an op output: keep its gradient too). */
  requireGrad(h: Handle): void;
  requiresGrad(h: Handle): boolean;
  backward(h: Handle, options?: BackwardOptions): Gradients;
}

export function isAutodiff(b: Backend): b is AutodiffBackend {
  return b.autodiff === true && 'backward' in b;
}
