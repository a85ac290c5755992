/** matmul with torch.matmul semantics: 2-D, batched, broadcast batch dims, 1-D operands, odd and empty sizes. */
import type { Backend } from '../../../src/backends/backend.js';
import { accTol, fmtShape } from '../harness.js';
import * as R from '../ref.js';
import { Rng } from '../rng.js';
import { ex, ft, randF, value, type Case, type FT } from './util.js';

export function matmulCase(out: Case[], sa: readonly number[], sb: readonly number[], label?: string, build?: (b: Backend, a: R.Arr, c: R.Arr) => [FT, FT]): void {
  const name = `matmul ${label ?? `${fmtShape(sa)}x${fmtShape(sb)}`}`;
  const rng = new Rng(name);
  const a = randF(rng, sa);
  const c = randF(rng, sb);
  const k = R.at(sa, sa.length - 1);
  out.push(
    value(name, 'matmul', accTol(k), (b) => {
      const [x, y] = build ? build(b, a, c) : [ft(b, a), ft(b, c)];
      return x.matmul(y);
    }, () => ex(R.matmul(a, c))),
  );
}

export function matmulCases(): Case[] {
  const out: Case[] = [];
  const shapes: ReadonlyArray<readonly [number[], number[]]> = [
    [[3, 4], [4, 5]],
    [[1, 1], [1, 1]],
    [[7, 13], [13, 5]],
    [[33, 65], [65, 17]],
    [[1, 8], [8, 1]],
    [[5, 1], [1, 6]],
    [[2, 3, 4], [2, 4, 5]],
    [[2, 1, 3, 4], [3, 4, 2]],
    [[3, 4], [2, 4, 5]],
    [[2, 3, 4], [4, 5]],
    [[4, 1, 2, 3], [1, 5, 3, 2]],
    [[6], [6]],
    [[4], [4, 3]],
    [[3, 4], [4]],
    [[4], [2, 4, 3]],
    [[2, 3, 4], [4]],
    [[1], [1, 7]],
    [[64, 128], [128, 96]],
    [[5, 300], [300, 7]],
    [[3, 20], [20, 520]],
    [[3, 37, 20], [3, 20, 9]],
    [[2, 1, 9, 600], [3, 600, 6]],
  ];
  for (const [sa, sb] of shapes) matmulCase(out, sa, sb);
  // k = 0: an empty sum, so zeros of shape [m, n].
  for (const [sa, sb] of [
    [[3, 0], [0, 4]],
    [[2, 3, 0], [0, 5]],
  ] as const) {
    const name = `matmul k=0 ${fmtShape(sa)}x${fmtShape(sb)}`;
    const a: R.Arr = { shape: sa, data: [] };
    const c: R.Arr = { shape: sb, data: [] };
    out.push(value(name, 'matmul', accTol(0), (b) => ft(b, a).matmul(ft(b, c)), () => ex(R.matmul(a, c))));
  }
  // m = 0 or n = 0: empty outputs.
  {
    const a: R.Arr = { shape: [0, 3], data: [] };
    const c = randF(new Rng('matmul m=0'), [3, 4]);
    out.push(value('matmul m=0 [0,3]x[3,4]', 'matmul', accTol(3), (b) => ft(b, a).matmul(ft(b, c)), () => ex(R.matmul(a, c))));
  }
  return out;
}
