/**
 * Prints generated WGSL without a GPU (`npm run bench -- wgsl`, compiled `node dist/bench/main.js
 * wgsl`): the fused five-op GELU `x * (erf(x / sqrt2) + 1) / 2` and the single-op `add`, both over
 * contiguous inputs of `--n` elements (default 64M, the fusion bench's size; a length that is not
 * a multiple of 4 shows the vec4 tail). Fused and single-op kernels come from one generator
 * (src/backends/wgpu/wgsl/fused.ts), so what differs between them is the program itself.
 */
import { fusedSource, type TypedLayout } from '../src/backends/wgpu/kernels/fused.js';
import type { FusedAttrs } from '../src/ir/fused.js';

const F32 = 'float32' as const;

/** The GELU as Fusion records it: five steps over one input. */
const GELU5: FusedAttrs = {
  steps: [
    { op: 'divScalar', attrs: { scalar: Math.SQRT2 }, args: [{ input: 0 }], dtype: F32 },
    { op: 'erf', attrs: {}, args: [{ step: 0 }], dtype: F32 },
    { op: 'addScalar', attrs: { scalar: 1 }, args: [{ step: 1 }], dtype: F32 },
    { op: 'mul', attrs: {}, args: [{ input: 0 }, { step: 2 }], dtype: F32 },
    { op: 'divScalar', attrs: { scalar: 2 }, args: [{ step: 3 }], dtype: F32 },
  ],
  outputs: [4],
};

const ADD: FusedAttrs = { steps: [{ op: 'add', attrs: {}, args: [{ input: 0 }, { input: 1 }], dtype: F32 }], outputs: [0] };

function contiguous(n: number): TypedLayout {
  return { shape: [n], strides: [1], offset: 0, dtype: F32 };
}

export function main(args: readonly string[] = []): void {
  const at = args.indexOf('--n');
  const n = at >= 0 ? Number(args[at + 1]) : 64 << 20;
  if (!Number.isInteger(n) || n < 1) throw new Error(`--n takes a positive integer (got ${args[at + 1]})`);
  for (const [name, attrs, inputs] of [
    ['fused GELU, 5 ops', GELU5, [contiguous(n)]],
    ['add', ADD, [contiguous(n), contiguous(n)]],
  ] as const) {
    const { key, source } = fusedSource(attrs, inputs, [n]);
    console.log(`// ---- ${name}, ${n} elements\n// key: ${key}\n${source}`);
  }
}
