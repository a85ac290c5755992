/** Index maps of flip and roll, and what argsort / argtopk write: shared by the CPU and WebGPU kernels. */
import type { OpRecord } from './ops.js';

/** Per dim: whether the coordinate is reversed, and what is added (mod n) otherwise. */
export function coordinateMaps(record: OpRecord<'flip' | 'roll' | 'tril' | 'triu'>, shape: readonly number[]): { flips: boolean[]; adds: number[] } {
  const flips = shape.map(() => false);
  const adds = shape.map(() => 0);
  if (record.op === 'flip') for (const d of record.attrs.dims) flips[d] = true;
  if (record.op === 'roll') {
    const { shifts, dims } = record.attrs;
    dims.forEach((d, k) => {
      const n = shape[d]!;
      // out[i] = x[i - shift]: add n - (shift mod n), kept in [0, n). Repeated dims add up (torch).
      if (n > 0) adds[d] = (adds[d]! + n - (((shifts[k]! % n) + n) % n)) % n;
    });
  }
  return { flips, adds };
}

/** argsort writes every position; argtopk the first k of the order (largest first when `largest`). */
export function sortAttrs(record: OpRecord<'argsort' | 'argtopk'>, shape: readonly number[]): { dim: number; descending: boolean; outN: number } {
  if (record.op === 'argtopk') {
    const { dim, k, largest } = record.attrs;
    return { dim, descending: largest, outN: k };
  }
  const { dim, descending } = record.attrs;
  return { dim, descending, outN: shape[dim]! };
}
