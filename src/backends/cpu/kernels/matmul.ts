/**
 * Batched matmul, split across workers by output rows. Cache-blocked: the rhs is packed into
 * contiguous KC x NC panels that stay in L2 while four output rows at a time accumulate
 * against them (each rhs load feeds four multiply-adds).
 */
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';

const KC = 256;
const NC = 512;

function batchStrides(v: View, batchShape: readonly number[]): number[] {
  const vb = v.shape.length - 2;
  const off = batchShape.length - vb;
  return batchShape.map((d, i) => (i < off ? 0 : v.shape[i - off] === 1 && d !== 1 ? 0 : v.stride[i - off]!));
}

function batchOffset(b: number, batchShape: readonly number[], strides: readonly number[], base: number): number {
  let p = base;
  for (let d = batchShape.length - 1; d >= 0; d--) {
    const s = batchShape[d]!;
    const q = b % s;
    p += q * strides[d]!;
    b = (b - q) / s;
  }
  return p;
}

function runMatmul(record: OpRecord<'matmul'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const a = inputs[0]!;
  const b = inputs[1]!;
  const out = outputs[0]!;
  const O = out.data;
  const rank = out.shape.length;
  const M = out.shape[rank - 2]!;
  const N = out.shape[rank - 1]!;
  const K = a.shape[a.shape.length - 1]!;
  const batchShape = out.shape.slice(0, -2);
  const aBS = batchStrides(a, batchShape);
  const bBS = batchStrides(b, batchShape);
  const sam = a.stride[a.shape.length - 2]!;
  const sak = a.stride[a.shape.length - 1]!;
  const sbk = b.stride[b.shape.length - 2]!;
  const sbn = b.stride[b.shape.length - 1]!;
  const A = a.data;
  const B = b.data;
  O.fill(0, lo * N, hi * N);
  if (K === 0 || N === 0) return;
  const panel = new Float32Array(Math.min(KC, K) * Math.min(NC, N));
  let row = lo;
  while (row < hi) {
    const batch = Math.floor(row / M);
    const i0 = row - batch * M;
    const i1 = Math.min(M, i0 + (hi - row));
    const aOff = batchOffset(batch, batchShape, aBS, a.offset);
    const bOff = batchOffset(batch, batchShape, bBS, b.offset);
    const oOff = batch * M * N;
    for (let jc = 0; jc < N; jc += NC) {
      const nc = Math.min(NC, N - jc);
      for (let kc = 0; kc < K; kc += KC) {
        const kk = Math.min(KC, K - kc);
        // Pack B[kc:kc+kk, jc:jc+nc] contiguously.
        for (let k = 0; k < kk; k++) {
          let src = bOff + (kc + k) * sbk + jc * sbn;
          const dst = k * nc;
          for (let j = 0; j < nc; j++, src += sbn) panel[dst + j] = B[src]!;
        }
        let i = i0;
        for (; i + 4 <= i1; i += 4) {
          const c0 = oOff + i * N + jc;
          const c1 = c0 + N;
          const c2 = c1 + N;
          const c3 = c2 + N;
          let pa = aOff + i * sam + kc * sak;
          for (let k = 0; k < kk; k++, pa += sak) {
            const a0 = A[pa]!;
            const a1 = A[pa + sam]!;
            const a2 = A[pa + 2 * sam]!;
            const a3 = A[pa + 3 * sam]!;
            const pb = k * nc;
            for (let j = 0; j < nc; j++) {
              const bv = panel[pb + j]!;
              O[c0 + j] = O[c0 + j]! + a0 * bv;
              O[c1 + j] = O[c1 + j]! + a1 * bv;
              O[c2 + j] = O[c2 + j]! + a2 * bv;
              O[c3 + j] = O[c3 + j]! + a3 * bv;
            }
          }
        }
        for (; i < i1; i++) {
          const c0 = oOff + i * N + jc;
          let pa = aOff + i * sam + kc * sak;
          for (let k = 0; k < kk; k++, pa += sak) {
            const a0 = A[pa]!;
            const pb = k * nc;
            for (let j = 0; j < nc; j++) O[c0 + j] = O[c0 + j]! + a0 * panel[pb + j]!;
          }
        }
      }
    }
    row += i1 - i0;
  }
}

export const matmulKernel: CpuKernel<'matmul'> = {
  units: (r) => {
    const s = r.outputs[0]!.shape;
    return numel(s) === 0 ? 0 : numel(s.slice(0, -1));
  },
  cost: (r) => {
    const a = r.inputs[0]!.shape;
    return numel(r.outputs[0]!.shape) * Math.max(1, a[a.length - 1]!);
  },
  run: runMatmul,
};
