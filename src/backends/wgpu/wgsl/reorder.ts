/**
 * Copies whose source is a function of the output index, bitwise as u32 (every dtype):
 * 'map' (flip and roll: per dim a reversed coordinate, or one rotated by `add` mod n) and
 * 'triangle' (tril / triu: zero outside col - row <= k, or >= k).
 * map parameters: [n, xOffset, shape (R), xStrides (R), flips (R), adds (R)].
 * triangle parameters: [n, xOffset, rows, cols, diagonal (i32), lower, shape (R), xStrides (R)].
 */
import { header, linearEntry, stridedOffsets, type Program } from './common.js';

export const REORDER_WORKGROUP = 256;

export function reorderProgram(mode: 'map' | 'triangle', rank: number): Program {
  return {
    key: `reorder|${mode}|${rank}`,
    bindings: ['read', 'write'],
    source: () => {
      const R = rank;
      const lines = ['  if (i >= pu(0u)) { return; }'];
      if (mode === 'map') {
        lines.push('  var p = pu(1u);', '  var rem = i;');
        for (let d = R - 1; d >= 0; d--) {
          lines.push(`  { let s = pu(${2 + d}u); let q = rem % s; rem = rem / s;`);
          lines.push(`    var src = (q + pu(${2 + 3 * R + d}u)) % s;`);
          lines.push(`    if (pu(${2 + 2 * R + d}u) != 0u) { src = s - 1u - q; }`);
          lines.push(`    p = p + src * pu(${2 + R + d}u); }`);
        }
        lines.push('  y[i] = x[p];');
      } else {
        lines.push(stridedOffsets('i', R, 6, [{ out: 'p', offsetAt: 1, stridesAt: 6 + R }]));
        lines.push('  let cols = pu(3u);', '  let col = i32(i % cols);', '  let row = i32((i / cols) % pu(2u));', '  let k = pi(4u);');
        lines.push('  let keep = select(col - row >= k, col - row <= k, pu(5u) != 0u);');
        lines.push('  y[i] = select(0u, x[p], keep);');
      }
      return `${header([
        { name: 'x', type: 'u32', kind: 'read' },
        { name: 'y', type: 'u32', kind: 'write' },
      ])}\n${linearEntry(REORDER_WORKGROUP, lines.join('\n'))}\n`;
    },
  };
}
