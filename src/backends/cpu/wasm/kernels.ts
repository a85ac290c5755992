/**
 * The CPU kernels that run on the wasm module: matmul, the elementwise ops with a SIMD form,
 * float sum / mean / max / min and softmax. Each has the JS kernel's contract (units, cost, run a
 * range) and runs that JS kernel instead when its views are not all in one wasm memory (a tensor
 * past the 4 GiB heap) or the op has no wasm form.
 */
import type { DType } from '../../../ir/dtype.js';
import { numel, type OpName, type OpRecord, type ReduceAttrs, type ReduceOp } from '../../../ir/ops.js';
import { elementwiseKernel, elementwiseOf } from '../kernels/elementwise.js';
import type { CpuKernel } from '../kernels/kernel.js';
import { batchOffset, batchStrides } from '../kernels/matmul.js';
import { reduceKernel } from '../kernels/reduce.js';
import { softmaxKernel } from '../kernels/softmax.js';
import { alignedStrides } from '../kernels/strided.js';
import type { View } from '../view.js';
import { ewKey } from './elementwise-gen.js';
import { KC, MR, MT_MAX, NR, NT_MAX } from './matmul-gen.js';
import { runtimeOf, type WasmRuntime } from './runtime.js';

/** The runtime all views live in, or undefined if any lives elsewhere. */
function runtimeFor(inputs: readonly View[], outputs: readonly View[]): WasmRuntime | undefined {
  const rt = runtimeOf(outputs[0]!.data);
  if (!rt) return undefined;
  for (const v of inputs) if (runtimeOf(v.data) !== rt) return undefined;
  for (const v of outputs) if (runtimeOf(v.data) !== rt) return undefined;
  return rt;
}

const bytesOf = (d: DType): number => (d === 'bool' ? 1 : 4);

// ---- elementwise ---------------------------------------------------------------------------------

interface Dims {
  readonly size: number[];
  /** strides[k][d]: operand k's stride along merged dim d. */
  readonly strides: number[][];
}

/** Drops size-1 dims and merges neighbours that every operand walks as one (the output is contiguous). */
export function collapseDims(shape: readonly number[], strides: readonly (readonly number[])[]): Dims {
  const size: number[] = [];
  const st: number[][] = strides.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    const n = shape[d]!;
    if (n === 1) continue;
    const last = size.length - 1;
    if (last >= 0 && strides.every((s, k) => st[k]![last] === s[d]! * n)) {
      size[last]! *= n;
      strides.forEach((s, k) => (st[k]![last] = s[d]!));
    } else {
      size.push(n);
      strides.forEach((s, k) => st[k]!.push(s[d]!));
    }
  }
  if (size.length === 0) {
    size.push(1);
    strides.forEach((_, k) => st[k]!.push(0));
  }
  return { size, strides: st };
}

function runElementwise(record: OpRecord, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const rt = runtimeFor(inputs, outputs);
  const e = elementwiseOf(record);
  const out = outputs[0]!;
  const fn = rt && e ? rt.exports.byName.get(ewKey({ expr: e.expr, inputs: record.inputs.map((m) => m.dtype), output: record.outputs[0]!.dtype })) : undefined;
  if (!rt || !e || !fn) {
    elementwiseKernel.run(record, inputs, outputs, lo, hi);
    return;
  }
  const arity = inputs.length;
  const ib = record.inputs.map((m) => bytesOf(m.dtype));
  const ob = bytesOf(record.outputs[0]!.dtype);
  const dims = collapseDims(out.shape, inputs.map((v) => alignedStrides(v, out.shape)));
  const R = dims.size.length;
  const n = dims.size[R - 1]!;
  const base = inputs.map((v, k) => rt.addressOf(v.data)! + v.offset * ib[k]!);
  const outBase = rt.addressOf(out.data)! + out.offset * ob;
  const args = new Array<number>(14).fill(0);
  args[12] = e.p0;
  args[13] = e.p1;
  /** Operand addresses at output element i. */
  const at = (i: number) => {
    let rem = i;
    const off = new Array<number>(arity).fill(0);
    for (let d = R - 1; d >= 0; d--) {
      const s = dims.size[d]!;
      const q = rem % s;
      rem = (rem - q) / s;
      for (let k = 0; k < arity; k++) off[k]! += q * dims.strides[k]![d]!;
    }
    for (let k = 0; k < arity; k++) args[3 + 3 * k] = base[k]! + off[k]! * ib[k]!;
    args[0] = outBase + i * ob;
  };
  for (let k = 0; k < arity; k++) {
    args[4 + 3 * k] = dims.strides[k]![R - 1]!;
    args[5 + 3 * k] = R > 1 ? dims.strides[k]![R - 2]! : 0;
  }
  let i = lo;
  while (i < hi) {
    const col = i % n;
    at(i);
    if (col === 0 && hi - i >= n && R > 1) {
      const outer = dims.size[R - 2]!;
      const rows = Math.min(outer - (Math.floor(i / n) % outer), Math.floor((hi - i) / n));
      args[1] = n;
      args[2] = rows;
      fn(...args);
      i += rows * n;
    } else {
      const len = Math.min(n - col, hi - i);
      args[1] = len;
      args[2] = 1;
      fn(...args);
      i += len;
    }
  }
}

/**
 * Costs are in the JS kernels' units, scaled down by how much faster the wasm kernels run, so
 * the one inline threshold (262144) still falls where a pool round trip (about 250 µs on the
 * 2-core machine, BENCHMARKS.md) starts to pay: an add from about 1M floats, a matmul from
 * about 160^3 (wasm inline: 0.8-0.9 ms for a 1M-float add, 1 ms for 192^3).
 */
const EW_SPEEDUP = 4;

export const wasmElementwiseKernel: CpuKernel<OpName> = {
  units: elementwiseKernel.units,
  cost: (r) => elementwiseKernel.cost(r) / EW_SPEEDUP,
  run: runElementwise,
};

// ---- matmul --------------------------------------------------------------------------------------

/**
 * Output tile sizes: at most MT_MAX x NT_MAX, shrunk until there are 8 tiles (so a pool has
 * chunks to steal), but not below 16 x 32. `whole` (one caller runs every tile) keeps the
 * largest tiles: a narrower strip packs the same rows of A once more per strip.
 */
export function matmulTiling(M: number, N: number, whole = false): { mt: number; nt: number; tm: number; tn: number } {
  let mt = Math.min(MT_MAX, Math.ceil(M / MR) * MR);
  let nt = Math.min(NT_MAX, Math.ceil(N / NR) * NR);
  const tiles = () => Math.ceil(M / mt) * Math.ceil(N / nt);
  while (!whole && tiles() < 8) {
    // Halve, keeping whole micro-tiles.
    if (nt > 32 && (nt >= 2 * mt || mt <= 16)) nt = Math.ceil(nt / 2 / NR) * NR;
    else if (mt > 16) mt = Math.ceil(mt / 2 / MR) * MR;
    else break;
  }
  return { mt, nt, tm: Math.max(1, Math.ceil(M / mt)), tn: Math.max(1, Math.ceil(N / nt)) };
}

function matmulShape(r: OpRecord<'matmul'>): { M: number; N: number; K: number; batch: number } {
  const s = r.outputs[0]!.shape;
  const a = r.inputs[0]!.shape;
  const rank = s.length;
  return { M: s[rank - 2]!, N: s[rank - 1]!, K: a[a.length - 1]!, batch: numel(s.slice(0, -2)) };
}

/** The JS fallback for one tile (float64 accumulation), used when a view is outside the wasm memory. */
function jsTile(a: View, b: View, out: View, aOff: number, bOff: number, oOff: number, i0: number, i1: number, j0: number, j1: number, K: number, N: number): void {
  const sam = a.stride[a.shape.length - 2]!;
  const sak = a.stride[a.shape.length - 1]!;
  const sbk = b.stride[b.shape.length - 2]!;
  const sbn = b.stride[b.shape.length - 1]!;
  for (let i = i0; i < i1; i++) {
    for (let j = j0; j < j1; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += a.data[aOff + i * sam + k * sak]! * b.data[bOff + k * sbk + j * sbn]!;
      out.data[oOff + i * N + j] = s;
    }
  }
}

function runMatmul(record: OpRecord<'matmul'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const [a, b] = inputs as [View, View];
  const out = outputs[0]!;
  const { M, N, K, batch: batches } = matmulShape(record);
  const split = matmulTiling(M, N);
  // Run inline (every unit at once), the tiles need not be the pool's: the largest pack least.
  const whole = lo === 0 && hi === batches * split.tm * split.tn;
  const { mt, nt, tm, tn } = whole ? matmulTiling(M, N, true) : split;
  if (whole) hi = batches * tm * tn;
  const batchShape = out.shape.slice(0, -2);
  const aBS = batchStrides(a, batchShape);
  const bBS = batchStrides(b, batchShape);
  const sam = a.stride[a.shape.length - 2]!;
  const sak = a.stride[a.shape.length - 1]!;
  const sbk = b.stride[b.shape.length - 2]!;
  const sbn = b.stride[b.shape.length - 1]!;
  const rt = runtimeFor(inputs, outputs);
  const x = rt?.exports;
  const A = rt?.addressOf(a.data) ?? 0;
  const B = rt?.addressOf(b.data) ?? 0;
  const C = rt?.addressOf(out.data) ?? 0;
  const scratch = rt?.scratch ?? 0;
  const Ap = scratch;
  const Bp = scratch + MT_MAX * KC * 4;
  const edge = Bp + KC * NT_MAX * 4;
  // Units run column strip by column strip (tile (ti, tj) is unit tj * tm + ti), so the row tiles
  // of one strip in a range share one packed B panel per depth block.
  let u = lo;
  while (u < hi) {
    const batch = Math.floor(u / (tm * tn));
    const t = u - batch * tm * tn;
    const tj = Math.floor(t / tm);
    const ti0 = t - tj * tm;
    const ti1 = Math.min(tm, ti0 + (hi - u));
    u += ti1 - ti0;
    const j0 = tj * nt;
    const nc = Math.min(nt, N - j0);
    const i0 = ti0 * mt;
    const i1 = Math.min(M, ti1 * mt);
    const aOff = batchOffset(batch, batchShape, aBS, a.offset);
    const bOff = batchOffset(batch, batchShape, bBS, b.offset);
    const oOff = out.offset + batch * M * N;
    if (!x) {
      jsTile(a, b, out, aOff, bOff, oOff, i0, i1, j0, j0 + nc, K, N);
      continue;
    }
    if (K === 0) {
      for (let i = i0; i < i1; i++) out.data.fill(0, oOff + i * N + j0, oOff + i * N + j0 + nc);
      continue;
    }
    for (let pc = 0; pc < K; pc += KC) {
      const kc = Math.min(KC, K - pc);
      x.mm_packB(B + 4 * (bOff + pc * sbk + j0 * sbn), sbk, sbn, kc, nc, Bp);
      for (let ib = i0; ib < i1; ib += mt) {
        const mc = Math.min(mt, M - ib);
        x.mm_packA(A + 4 * (aOff + ib * sam + pc * sak), sam, sak, mc, kc, Ap);
        x.mm_macro(Ap, Bp, C + 4 * (oOff + ib * N + j0), 4 * N, mc, nc, kc, pc > 0 ? 1 : 0, edge);
      }
    }
  }
}

export const wasmMatmulKernel: CpuKernel<'matmul'> = {
  units: (r) => {
    const { M, N, batch } = matmulShape(r);
    if (M === 0 || N === 0 || batch === 0) return 0;
    const { tm, tn } = matmulTiling(M, N);
    return batch * tm * tn;
  },
  // Multiply-adds / 16: 262144 at about 160^3 (see EW_SPEEDUP).
  cost: (r) => {
    const { M, N, K, batch } = matmulShape(r);
    return (batch * M * N * Math.max(1, K)) / 16;
  },
  run: runMatmul,
};

// ---- reductions ----------------------------------------------------------------------------------

/** Merges a run of dims into one (size, stride), or undefined when they are not evenly strided. */
function mergeRun(shape: readonly number[], stride: readonly number[], from: number, to: number): { size: number; stride: number } | undefined {
  let size = 1;
  let st = 0;
  for (let d = to - 1; d >= from; d--) {
    const n = shape[d]!;
    if (n === 1) continue;
    if (size === 1) {
      size = n;
      st = stride[d]!;
    } else if (stride[d] === st * size) {
      size *= n;
    } else {
      return undefined;
    }
  }
  return { size, stride: st };
}

const FLOAT_REDUCE = new Set<string>(['sum', 'mean', 'max', 'min']);

function runReduce(record: OpRecord<ReduceOp>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!;
  const rt = record.inputs[0]!.dtype === 'float32' && FLOAT_REDUCE.has(record.op) ? runtimeFor(inputs, outputs) : undefined;
  if (!rt) {
    reduceKernel.run(record, inputs, outputs, lo, hi);
    return;
  }
  const byName = rt.exports.byName;
  const X = rt.addressOf(x.data)! + 4 * x.offset;
  const O = rt.addressOf(out.data)! + 4 * out.offset;
  const { dim } = record.attrs as ReduceAttrs;
  const r = x.shape.length;
  if (dim === null) {
    const all = mergeRun(x.shape, x.stride, 0, r);
    if (!all || (all.size > 1 && all.stride !== 1)) {
      reduceKernel.run(record, inputs, outputs, lo, hi);
      return;
    }
    if (lo === 0) byName.get(`rd_${record.op}_rows`)!(X, all.size, 1, 0, O);
    return;
  }
  const n = x.shape[dim]!;
  const sn = x.stride[dim]!;
  const outer = mergeRun(x.shape, x.stride, 0, dim);
  const inner = mergeRun(x.shape, x.stride, dim + 1, r);
  if (outer && inner && inner.size === 1 && (sn === 1 || n <= 1)) {
    byName.get(`rd_${record.op}_rows`)!(X + 4 * lo * outer.stride, n, hi - lo, outer.stride, O + 4 * lo);
    return;
  }
  if (outer && inner && inner.stride === 1) {
    const cols = byName.get(`rd_${record.op}_cols`)!;
    let o = lo;
    while (o < hi) {
      const oo = Math.floor(o / inner.size);
      const j0 = o - oo * inner.size;
      const j1 = Math.min(inner.size, j0 + (hi - o));
      cols(X + 4 * (oo * outer.stride + j0), n, sn, j1 - j0, O + 4 * o);
      o += j1 - j0;
    }
    return;
  }
  reduceKernel.run(record, inputs, outputs, lo, hi);
}

export const wasmReduceKernel: CpuKernel<ReduceOp> = { units: reduceKernel.units, cost: (r) => reduceKernel.cost(r) / EW_SPEEDUP, run: runReduce };

// ---- softmax -------------------------------------------------------------------------------------

function runSoftmax(record: OpRecord<'softmax' | 'logSoftmax'>, inputs: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const x = inputs[0]!;
  const out = outputs[0]!;
  const { dim } = record.attrs;
  const n = x.shape[dim]!;
  const rt = record.inputs[0]!.dtype === 'float32' && (x.stride[dim] === 1 || n === 1) ? runtimeFor(inputs, outputs) : undefined;
  const innerSize = numel(x.shape.slice(dim + 1));
  const outer = rt && innerSize === 1 ? mergeRun(x.shape, x.stride, 0, dim) : undefined;
  if (!rt || !outer) {
    softmaxKernel.run(record, inputs, outputs, lo, hi);
    return;
  }
  const X = rt.addressOf(x.data)! + 4 * x.offset;
  const O = rt.addressOf(out.data)! + 4 * out.offset;
  rt.exports.sm_rows(X + 4 * lo * outer.stride, O + 4 * lo * n, n, hi - lo, outer.stride, record.op === 'logSoftmax' ? 1 : 0);
}

export const wasmSoftmaxKernel: CpuKernel<'softmax' | 'logSoftmax'> = { units: softmaxKernel.units, cost: (r) => softmaxKernel.cost(r) / EW_SPEEDUP, run: runSoftmax };
