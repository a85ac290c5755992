/**
 * Batched matmul, split across workers by output rows. Cache-blocked (KC x NC panels of the rhs
 * stay in L2) with a 4x4 register tile: both operands are packed into zero-padded 4-wide slivers,
 * so the inner loop does 8 loads for 16 multiply-adds, accumulating in float64 registers.
 */
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';

const KC = 256;
const NC = 512;

export function batchStrides(v: View, batchShape: readonly number[]): number[] {
  const vb = v.shape.length - 2;
  const off = batchShape.length - vb;
  return batchShape.map((d, i) => (i < off ? 0 : v.shape[i - off] === 1 && d !== 1 ? 0 : v.stride[i - off]!));
}

export function batchOffset(b: number, batchShape: readonly number[], strides: readonly number[], base: number): number {
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
  const kcMax = Math.min(KC, K);
  const ncMax = Math.min(NC, N);
  // Packed panels: A as 4-row slivers (k-major), B as 4-column slivers (k-major), zero-padded.
  const Ap = new Float32Array(kcMax * 4);
  const Bp = new Float32Array(kcMax * (ncMax + 3));
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
        for (let jg = 0; jg < nc; jg += 4) {
          const cols = Math.min(4, nc - jg);
          let dst = jg * kk;
          for (let k = 0; k < kk; k++, dst += 4) {
            const src = bOff + (kc + k) * sbk + (jc + jg) * sbn;
            for (let c = 0; c < 4; c++) Bp[dst + c] = c < cols ? B[src + c * sbn]! : 0;
          }
        }
        for (let i = i0; i < i1; i += 4) {
          const rows = Math.min(4, i1 - i);
          for (let k = 0; k < kk; k++) {
            const src = aOff + i * sam + (kc + k) * sak;
            for (let r = 0; r < 4; r++) Ap[k * 4 + r] = r < rows ? A[src + r * sam]! : 0;
          }
          for (let jg = 0; jg < nc; jg += 4) {
            let c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0, c13 = 0;
            let c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0, c32 = 0, c33 = 0;
            let pb = jg * kk;
            for (let k = 0, pa = 0; k < kk; k++, pa += 4, pb += 4) {
              const a0 = Ap[pa]!, a1 = Ap[pa + 1]!, a2 = Ap[pa + 2]!, a3 = Ap[pa + 3]!;
              const b0 = Bp[pb]!, b1 = Bp[pb + 1]!, b2 = Bp[pb + 2]!, b3 = Bp[pb + 3]!;
              c00 += a0 * b0; c01 += a0 * b1; c02 += a0 * b2; c03 += a0 * b3;
              c10 += a1 * b0; c11 += a1 * b1; c12 += a1 * b2; c13 += a1 * b3;
              c20 += a2 * b0; c21 += a2 * b1; c22 += a2 * b2; c23 += a2 * b3;
              c30 += a3 * b0; c31 += a3 * b1; c32 += a3 * b2; c33 += a3 * b3;
            }
            const cols = Math.min(4, nc - jg);
            const o = oOff + i * N + jc + jg;
            if (rows === 4 && cols === 4) {
              O[o] = O[o]! + c00; O[o + 1] = O[o + 1]! + c01; O[o + 2] = O[o + 2]! + c02; O[o + 3] = O[o + 3]! + c03;
              const o1 = o + N;
              O[o1] = O[o1]! + c10; O[o1 + 1] = O[o1 + 1]! + c11; O[o1 + 2] = O[o1 + 2]! + c12; O[o1 + 3] = O[o1 + 3]! + c13;
              const o2 = o1 + N;
              O[o2] = O[o2]! + c20; O[o2 + 1] = O[o2 + 1]! + c21; O[o2 + 2] = O[o2 + 2]! + c22; O[o2 + 3] = O[o2 + 3]! + c23;
              const o3 = o2 + N;
              O[o3] = O[o3]! + c30; O[o3 + 1] = O[o3 + 1]! + c31; O[o3 + 2] = O[o3 + 2]! + c32; O[o3 + 3] = O[o3 + 3]! + c33;
            } else {
              const tile = [c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33];
              for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) O[o + r * N + c] = O[o + r * N + c]! + tile[r * 4 + c]!;
            }
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
  // Multiply-adds / 8: a packed multiply-add costs about an eighth of an elementwise op's
  // share of the pool round trip (measured: the pool wins from 128^3, an add from 262144 floats).
  cost: (r) => {
    const a = r.inputs[0]!.shape;
    return (numel(r.outputs[0]!.shape) * Math.max(1, a[a.length - 1]!)) / 8;
  },
  run: runMatmul,
};
