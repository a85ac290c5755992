/**
 * The kinds (float, int, bool) each op accepts: the elementwise table's for elementwise ops,
 * `OP_KINDS` for the others. Shape inference enforces them at run time and the Tensor methods'
 * `this` types are derived from them, so a call the op rejects (`boolTensor.relu()`) does not
 * compile either.
 */
import type { Kind } from './dtype.js';
import { BINARY, UNARY, isBinaryOp, isScalarOp, isUnaryOp, scalarBase, type BinaryOp, type UnaryOp } from './elementwise.js';
import type { OpName } from './ops.js';

const F = ['float'] as const satisfies readonly Kind[];
const FI = ['float', 'int'] as const satisfies readonly Kind[];

/** Kinds of the ops outside the elementwise table that do not take every kind. */
export const OP_KINDS = {
  sum: FI,
  mean: F,
  max: FI,
  min: FI,
  prod: FI,
  argmax: FI,
  argmin: FI,
  softmax: F,
  logSoftmax: F,
  matmul: F,
  clamp: FI,
  scatterAdd: FI,
} as const satisfies Partial<Record<OpName, readonly Kind[]>>;

export type KindLimitedOp = keyof typeof OP_KINDS;

/** The kinds `op` accepts, as a union type ('float' | 'int' for relu). */
export type KindsOf<Op extends string> = Op extends UnaryOp
  ? (typeof UNARY)[Op]['kinds'][number]
  : Op extends BinaryOp
    ? (typeof BINARY)[Op]['kinds'][number]
    : Op extends KindLimitedOp
      ? (typeof OP_KINDS)[Op][number]
      : Kind;

const ALL: readonly Kind[] = ['float', 'int', 'bool'];

/** The kinds `op` accepts, at run time (every kind for ops that take any). */
export function kindsOf(op: string): readonly Kind[] {
  if (isUnaryOp(op)) return UNARY[op].kinds;
  if (isBinaryOp(op)) return BINARY[op].kinds;
  if (isScalarOp(op)) return BINARY[scalarBase(op)].kinds;
  if (Object.prototype.hasOwnProperty.call(OP_KINDS, op)) return OP_KINDS[op as KindLimitedOp];
  return ALL;
}
