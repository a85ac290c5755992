/**
 * gather, indexSelect and scatterAdd. An index out of range cannot throw on the GPU: the kernel
 * sets its op's flag slot ([bad, index] in `flags`), which the context reads back after the
 * batch and turns into the op's error (an ArgumentError, as on the CPU).
 */
import type { DType } from '../../../ir/dtype.js';
import { header, linearEntry, stridedOffsets, wgslType, type Program } from './common.js';

export const INDEX_WORKGROUP = 256;

const FLAG = (slot: string, k: string) => `atomicStore(&flags[2u * ${slot}], 1u); atomicStore(&flags[2u * ${slot} + 1u], bitcast<u32>(${k}));`;

/** Parameters: [n, xOffset, idxOffset, size, xDimStride, slot, shape (R), idxStrides (R), xStrides (R, 0 at dim)]. */
export function gatherProgram(rank: number): Program {
  return {
    key: `gather|${rank}`,
    bindings: ['read', 'read', 'write', 'atomic'],
    source: () => {
      const S = 6;
      const body = [
        '  if (i >= pu(0u)) { return; }',
        stridedOffsets('i', rank, S, [
          { out: 'oi', offsetAt: 2, stridesAt: S + rank },
          { out: 'ox', offsetAt: 1, stridesAt: S + 2 * rank },
        ]),
        '  let k = idx[oi];',
        `  if (k < 0 || u32(k) >= pu(3u)) { ${FLAG('pu(5u)', 'k')} y[i] = 0u; return; }`,
        '  y[i] = x[ox + u32(k) * pu(4u)];',
      ].join('\n');
      return `${header([
        { name: 'x', type: 'u32', kind: 'read' },
        { name: 'idx', type: 'i32', kind: 'read' },
        { name: 'y', type: 'u32', kind: 'write' },
        { name: 'flags', type: 'atomic<u32>', kind: 'atomic' },
      ])}\n${linearEntry(INDEX_WORKGROUP, body)}\n`;
    },
  };
}

/**
 * Parameters: [n, xOffset, zero, size, xDimStride, slot, idxOffset, idxStride, shape (R),
 * xStrides (R, 0 at dim), unit (R, 1 at dim: picks out the coordinate on dim)].
 */
export function indexSelectProgram(rank: number): Program {
  return {
    key: `indexSelect|${rank}`,
    bindings: ['read', 'read', 'write', 'atomic'],
    source: () => {
      const S = 8;
      const body = [
        '  if (i >= pu(0u)) { return; }',
        stridedOffsets('i', rank, S, [
          { out: 'ox', offsetAt: 1, stridesAt: S + rank },
          { out: 'qd', offsetAt: 2, stridesAt: S + 2 * rank },
        ]),
        '  let k = idx[pu(6u) + qd * pu(7u)];',
        `  if (k < 0 || u32(k) >= pu(3u)) { ${FLAG('pu(5u)', 'k')} y[i] = 0u; return; }`,
        '  y[i] = x[ox + u32(k) * pu(4u)];',
      ].join('\n');
      return `${header([
        { name: 'x', type: 'u32', kind: 'read' },
        { name: 'idx', type: 'i32', kind: 'read' },
        { name: 'y', type: 'u32', kind: 'write' },
        { name: 'flags', type: 'atomic<u32>', kind: 'atomic' },
      ])}\n${linearEntry(INDEX_WORKGROUP, body)}\n`;
    },
  };
}

/**
 * One thread per line along dim (lines never share output elements, so no atomics and the
 * order of additions is the CPU's). Parameters: [lines, m, size, slot, idxOffset, srcOffset,
 * zero, idxDimStride, srcDimStride, outDimStride, outerShape (R), idxOuter (R), srcOuter (R), outOuter (R)].
 */
export function scatterAddProgram(dtype: DType, outerRank: number): Program {
  const t = wgslType(dtype);
  const R = outerRank;
  return {
    key: `scatterAdd|${t}|${R}`,
    bindings: ['read', 'read', 'write', 'atomic'],
    source: () => {
      const S = 10;
      const body = [
        '  if (i >= pu(0u)) { return; }',
        stridedOffsets('i', R, S, [
          { out: 'bi', offsetAt: 4, stridesAt: S + R },
          { out: 'bs', offsetAt: 5, stridesAt: S + 2 * R },
          { out: 'bo', offsetAt: 6, stridesAt: S + 3 * R },
        ]),
        '  let m = pu(1u);',
        '  for (var j = 0u; j < m; j = j + 1u) {',
        '    let k = idx[bi + j * pu(7u)];',
        `    if (k < 0 || u32(k) >= pu(2u)) { ${FLAG('pu(3u)', 'k')} continue; }`,
        '    let o = bo + u32(k) * pu(9u);',
        '    y[o] = y[o] + src[bs + j * pu(8u)];',
        '  }',
      ].join('\n');
      return `${header([
        { name: 'idx', type: 'i32', kind: 'read' },
        { name: 'src', type: t, kind: 'read' },
        { name: 'y', type: t, kind: 'write' },
        { name: 'flags', type: 'atomic<u32>', kind: 'atomic' },
      ])}\n${linearEntry(INDEX_WORKGROUP, body)}\n`;
    },
  };
}
