/**
 * The gradient table, total over the op vocabulary: a new op without a gradient decision (a
 * rule, or NONE to cut the graph) is a compile error here.
 */
import type { OpName } from '../../ir/ops.js';
import { BINARY_GRADS } from './binary.js';
import { INDEXING_GRADS } from './indexing.js';
import { MATMUL_GRAD } from './matmul.js';
import { MOVEMENT_GRADS } from './movement.js';
import { REDUCE_GRADS, VAR_GRAD } from './reduce.js';
import { REORDER_GRADS } from './reorder.js';
import { NONE, type GradEntry } from './rule.js';
import { SCALAR_GRADS } from './scalar.js';
import { SELECT_GRADS } from './select.js';
import { SOFTMAX_GRADS } from './softmax.js';
import { PARAM_UNARY_GRADS, UNARY_GRADS } from './unary.js';

export const GRADS: { readonly [N in OpName]: GradEntry<N> } = {
  // creation ops have no inputs to differentiate
  fromData: NONE,
  full: NONE,
  arange: NONE,
  random: NONE,
  ...UNARY_GRADS,
  ...PARAM_UNARY_GRADS,
  ...BINARY_GRADS,
  ...SCALAR_GRADS,
  ...REDUCE_GRADS,
  ...MOVEMENT_GRADS,
  ...INDEXING_GRADS,
  ...SOFTMAX_GRADS,
  ...SELECT_GRADS,
  matmul: MATMUL_GRAD,
  ...REORDER_GRADS,
  var: VAR_GRAD,
  // Autodiff sits above Fusion, so it records the unfused ops; a fused record never reaches a tape.
  fused: NONE,
};

export function gradOf<N extends OpName>(op: N): GradEntry<N> {
  return GRADS[op];
}
