/**
 * Strided copies (bitwise, as u32, so one program serves every dtype): element i of `shape`
 * goes from the source layout to the destination layout. Used for cat, sliceAssign, reshape of
 * non-contiguous views and contiguous reads. Parameter words:
 * [n, srcOffset, dstOffset, shape (rank), srcStrides (rank), dstStrides (rank)].
 */
import { header, linearEntry, stridedOffsets, type Program, type StrideSet } from './common.js';

export const COPY_WORKGROUP = 256;

export function copyProgram(rank: number, srcContiguous: boolean, dstContiguous: boolean): Program {
  const mode = `${srcContiguous ? 'c' : 's'}${dstContiguous ? 'c' : 's'}`;
  const r = srcContiguous && dstContiguous ? 0 : rank;
  return {
    key: `copy|${r}|${mode}`,
    bindings: ['read', 'write'],
    source: () => {
      const shapeAt = 3;
      const sets: StrideSet[] = [];
      if (!srcContiguous) sets.push({ out: 'src_o', offsetAt: 1, stridesAt: shapeAt + r });
      if (!dstContiguous) sets.push({ out: 'dst_o', offsetAt: 2, stridesAt: shapeAt + 2 * r });
      const body = [
        '  if (i >= pu(0u)) { return; }',
        sets.length > 0 ? stridedOffsets('i', r, shapeAt, sets) : '',
        `  y[${dstContiguous ? 'pu(2u) + i' : 'dst_o'}] = x[${srcContiguous ? 'pu(1u) + i' : 'src_o'}];`,
      ].join('\n');
      return `${header([
        { name: 'x', type: 'u32', kind: 'read' },
        { name: 'y', type: 'u32', kind: 'write' },
      ])}\n${linearEntry(COPY_WORKGROUP, body)}\n`;
    },
  };
}
