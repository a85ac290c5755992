/**
 * The contract the tensor API needs from an autodiff backend. Only the type is imported by
 * src/tensor/tensor.ts, so `backward()` and friends type-check only on tensors whose backend
 * has `autodiff: true`.
 */
import type { Backend, Handle, TensorRef } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { Gradients } from './gradients.js';

export interface BackwardOptions {
  /** Keep the graph's saved tensors so that backward can run through it again (PyTorch's retain_graph). */
  retainGraph?: boolean;
  /**
   * Record the backward pass itself (PyTorch's create_graph), so that the gradients are tracked
   * tensors that can be differentiated again (Hessian-vector products, gradient penalties).
   * Implies retainGraph unless that is set to false.
   */
  createGraph?: boolean;
  /**
   * Only these tensors' gradients (PyTorch's `backward(inputs=...)` and `autograd.grad`): the
   * rules run only where they lead to one of them. Each must require grad; one the root does not
   * reach has no gradient in the result.
   */
  inputs?: readonly TensorRef[];
}

export interface AutodiffBackend<D extends Device = Device> extends Backend<D> {
  readonly autodiff: true;
  /** The wrapped backend: gradient rules run on it, so each runs where its forward op ran. */
  readonly inner: Backend;
  /** Marks a tensor as a leaf whose gradient backward reports (on an op output: keep its gradient too). */
  requireGrad(h: Handle): void;
  requiresGrad(h: Handle): boolean;
  /**
   * Tensor `to` (not tracked yet) becomes the leaf that takes the place of leaf `from`, as an
   * in-place update would: gradients of graphs recorded against `from` are reported as `to`'s.
   * False, changing nothing, when `from` is not a leaf that requires grad.
   */
  continueLeaf(from: Handle, to: Handle): boolean;
  backward(h: Handle, options?: BackwardOptions): Gradients;
}

export function isAutodiff(b: Backend): b is AutodiffBackend {
  return b.autodiff === true && 'backward' in b;
}
