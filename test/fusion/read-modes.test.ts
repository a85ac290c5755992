/** How the fused WebGPU kernel reads each input, from its layout (no GPU needed). */
import { describe, expect, it } from 'vitest';
import { readPlan, readMode } from '../../src/backends/wgpu/kernels/fused.js';
import { contiguousLayout, expandLayout, permuteLayout, sliceLayout } from '../../src/ir/layout.js';

const full = (shape: readonly number[]) => shape.map((d) => ({ start: 0, end: d, step: 1 }));

describe('fused read modes', () => {
  it('classifies contiguous, broadcast blocks, scalars and strided layouts', () => {
    const out = [6, 8];
    expect(readMode([8, 1], out)).toEqual({ mode: 'c', div: 1, mod: 48 });
    expect(readMode([0, 1], out)).toEqual({ mode: 'm', div: 1, mod: 8 }); // a bias row
    expect(readMode([1, 0], out)).toEqual({ mode: 'm', div: 8, mod: 6 }); // a per-row column
    expect(readMode([0, 0], out)).toEqual({ mode: 'b', div: 1, mod: 1 });
    expect(readMode([1, 6], out).mode).toBe('s'); // transposed
    expect(readMode([16, 1], out).mode).toBe('s'); // every other row
    // [2, 3, 4] read from [3, 1] broadcast over the first and last dims: (i / 4) % 3.
    expect(readMode([0, 1, 0], [2, 3, 4])).toEqual({ mode: 'm', div: 4, mod: 3 });
    // Size-1 dims do not count, whatever their stride.
    expect(readMode([99, 1], [1, 8])).toEqual({ mode: 'c', div: 1, mod: 8 });
  });

  it('uses vec4 loads where every input allows them, and the scalar form otherwise', () => {
    const out = [6, 8];
    const x = contiguousLayout(out);
    const bias = contiguousLayout([8]);
    const col = contiguousLayout([6, 1]);
    expect(readPlan([x, bias, col, contiguousLayout([1])], out)).toMatchObject({ vec4: true, modes: ['c', 'mv', 'ms', 'b'] });
    const shifted = sliceLayout(contiguousLayout([9]), [{ start: 1, end: 9, step: 1 }]);
    expect(readPlan([x, shifted], out)).toMatchObject({ vec4: false, modes: ['c', 'm'] });
    expect(readPlan([x, permuteLayout(contiguousLayout([8, 6]), [1, 0])], out)).toMatchObject({ vec4: false, modes: ['c', 's'], rank: 2 });
    // Any length: 35 elements are eight whole vec4s and a partial one; a scalar broadcast still fits.
    expect(readPlan([contiguousLayout([5, 7]), contiguousLayout([1])], [5, 7])).toMatchObject({ vec4: true, modes: ['c', 'b'] });
    // A column whose rows are not a multiple of 4 long cannot feed four lanes one value.
    expect(readPlan([contiguousLayout([4, 6]), contiguousLayout([4, 1])], [4, 6])).toMatchObject({ vec4: false, modes: ['c', 'm'] });
    expect(readPlan([expandLayout(contiguousLayout([1, 8]), [6, 8]), sliceLayout(x, full(out))], out)).toMatchObject({ vec4: true, modes: ['mv', 'c'] });
  });
});
