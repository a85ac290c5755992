/**
 * A gradient rule is a small record (as in TensorFlow.js): which forward values the tape must
 * keep, and a function of `dy` that returns one gradient per input (undefined where an input
 * needs none). Rules are written with tensor ops on the inner backend, so on a router each
 * gradient runs on the device of its forward op.
 */
import type { Backend, Handle } from '../../backends/backend.js';
import type { Kind } from '../../ir/dtype.js';
import type { OpAttrs, OpName } from '../../ir/ops.js';
import { zeros } from '../../tensor/creation.js';
import type { Tensor } from '../../tensor/tensor.js';

export type FloatT = Tensor<Backend, 'float'>;

/**
 * The zero gradient of a piecewise-constant op (floor, sign, ...): zeros of dy's shape, not
 * dy * 0, which is NaN where dy is inf or NaN (torch returns zeros_like there).
 */
export function zeroGrad(c: { readonly backend: Backend; readonly dy: FloatT }): FloatT {
  return zeros(c.backend, c.dy.shape, { device: c.dy.device, dtype: c.dy.dtype });
}

export interface GradContext<N extends OpName> {
  readonly attrs: OpAttrs[N];
  /** The inner backend (for creating zeros and the like). */
  readonly backend: Backend;
  /** The incoming gradient, of the output's shape. */
  readonly dy: FloatT;
  /** Input metadata (shape, dtype, device), kept for every input. */
  readonly metas: readonly Handle[];
  /**
   * Whether backward runs with createGraph: the rule's ops are recorded, so it must be
   * differentiable where its value is used (no masked-out division by zero, whose 0 * inf is NaN
   * in the second pass), as torch's rules do when grad mode is on.
   */
  readonly createGraph: boolean;
  /** Which inputs need a gradient; a rule may skip the others. */
  readonly needs: readonly boolean[];
  /** A saved input (listed in the rule's `saveInputs`). */
  input<K extends Kind = 'float'>(i: number): Tensor<Backend, K>;
  /** The saved output (when the rule sets `saveOutput`). */
  output(): FloatT;
}

export interface GradRule<N extends OpName> {
  readonly saveInputs?: readonly number[];
  readonly saveOutput?: boolean;
  backward(ctx: GradContext<N>): ReadonlyArray<FloatT | undefined>;
}

/** Marks an op that cuts the graph: integer or bool results, or no inputs. */
export const NONE = 'none' as const;
export type GradEntry<N extends OpName> = GradRule<N> | typeof NONE;
