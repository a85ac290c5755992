/**
 * Elementwise records (unary, parameterised unary, binary, scalar, clamp, cast, copy, where, maskFill) run
 * as one-step fused programs (kernels/fused.ts): single ops and fused chains share one WGSL
 * generator, its read modes (contiguous, broadcast rows and columns, strided) and vec4 forms.
 */
import { KernelError } from '../../../errors.js';
import { isFusableRecord, stepOf, type FusedArg } from '../../../ir/fused.js';
import type { OpName } from '../../../ir/ops.js';
import { runProgram } from './fused.js';
import { freshStorage, type GpuKernel } from './kernel.js';

/** The arguments [input 0, ..., input k-1], made once per arity. */
const ARGS: FusedArg[][] = [0, 1, 2, 3].map((k) => Array.from({ length: k }, (_, i) => ({ input: i })));
const OUTPUT_0 = [0];

export const elementwiseKernel: GpuKernel<OpName> = {
  run(ctx, record, inputs) {
    if (!isFusableRecord(record)) throw new KernelError(`not an elementwise op: ${record.op}`, { op: record.op });
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    runProgram(ctx, { steps: [stepOf(record, ARGS[record.inputs.length]!)], outputs: OUTPUT_0 }, inputs, [out], meta.shape);
    return [out];
  },
};
