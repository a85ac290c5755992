/** The contract of one CPU kernel: how many independent work units, how costly, and how to run a range. */
import type { OpName, OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';

export interface CpuKernel<N extends OpName = OpName> {
  /** Independent units of work (output elements, rows); a run covers [lo, hi) of them. 1 = never split. */
  units(record: OpRecord<N>): number;
  /** Scalar operations, roughly; compared with the inline threshold. */
  cost(record: OpRecord<N>): number;
  run(record: OpRecord<N>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void;
}
