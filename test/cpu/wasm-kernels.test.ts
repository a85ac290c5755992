/**
 * The wasm kernels against float64 references written here: the SIMD math functions over dense
 * grids and IEEE special values, elementwise ops over random strided / permuted / broadcast
 * layouts and random [lo, hi) ranges (row tails, partial rows), matmul over edge shapes (MR / NR /
 * KC boundaries, transposed and strided operands, batch broadcasting, K = 0), reductions, softmax,
 * the fallback to the JS kernels for memory outside the wasm heap, and the heap allocator.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { heapSizeClass, WasmHeapAllocator } from '../../src/backends/cpu/allocator.js';
import type { CpuKernel } from '../../src/backends/cpu/kernels/kernel.js';
import type { View } from '../../src/backends/cpu/view.js';
import { ewVariants, ewKey } from '../../src/backends/cpu/wasm/elementwise-gen.js';
import { parseExpr } from '../../src/backends/cpu/wasm/expr.js';
import { wasmElementwiseKernel, wasmMatmulKernel, wasmReduceKernel, wasmSoftmaxKernel } from '../../src/backends/cpu/wasm/kernels.js';
import { kernelModule, relaxedSimdSupported } from '../../src/backends/cpu/wasm/module.js';
import { MAX_PAGES, runtimeOf, WasmRuntime } from '../../src/backends/cpu/wasm/runtime.js';
import { BINARY, UNARY } from '../../src/ir/elementwise.js';
import type { DType, TypedArray } from '../../src/ir/dtype.js';
import type { OpAttrs, OpName, OpRecord, TensorMeta } from '../../src/ir/ops.js';
import { erf as erf64 } from '../conformance/ref.js';

/** Both module flavours where the engine has relaxed SIMD; the plain one always. */
const flavours = relaxedSimdSupported() ? [false, true] : [false];

function makeHeap(relaxed: boolean): WasmHeapAllocator {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true });
  return new WasmHeapAllocator(new WasmRuntime(memory, kernelModule(relaxed)));
}

let nextId = 1;
function meta(shape: readonly number[], dtype: DType = 'float32'): TensorMeta {
  return { id: nextId++, shape, dtype };
}
function record<N extends OpName>(op: N, inputs: readonly TensorMeta[], outputs: readonly TensorMeta[], attrs: OpAttrs[N]): OpRecord<N> {
  return { id: nextId++, op, device: 'cpu', inputs, outputs, attrs };
}
function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}
function contiguous(shape: readonly number[]): number[] {
  return shape.map((_, i) => size(shape.slice(i + 1)));
}

/** A contiguous view over fresh heap memory holding `values`. */
function tensor(heap: WasmHeapAllocator, shape: readonly number[], values: ArrayLike<number>, dtype: DType = 'float32'): View {
  const data = heap.alloc(dtype, size(shape));
  data.set(Array.from(values));
  return { data, shape, stride: contiguous(shape), offset: 0 };
}

/** Runs a kernel over [0, units) cut at `cuts` (sorted fractions), as workers stealing chunks would. */
function runChunks<N extends OpName>(k: CpuKernel<N>, r: OpRecord<N>, inputs: readonly View[], outputs: readonly View[], cuts: readonly number[] = []): void {
  const units = k.units(r);
  const at = [0, ...cuts.map((c) => Math.floor(c * units)), units];
  for (let i = 0; i + 1 < at.length; i++) if (at[i + 1]! > at[i]!) k.run(r, inputs, outputs, at[i]!, at[i + 1]!);
}

/** |got - want| <= abs + rel |want|, with NaN matching NaN and infinities exactly. */
function close(got: number, want: number, abs: number, rel: number): boolean {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= abs + rel * Math.abs(want);
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, abs: number, rel: number, label: string): void {
  const bad: string[] = [];
  for (let i = 0; i < want.length; i++) {
    if (!close(got[i]!, want[i]!, abs, rel) && bad.length < 5) bad.push(`[${i}] got ${got[i]} want ${want[i]}`);
  }
  expect(bad, label).toEqual([]);
}

describe('expression parser', () => {
  test('reads every expression of the elementwise table', () => {
    const exprs = [...Object.values(UNARY), ...Object.values(BINARY)].flatMap((s) => [s.js, 'jsInt' in s ? s.jsInt : undefined, 'jsBool' in s ? s.jsBool : undefined]).filter((e): e is string => e !== undefined);
    for (const e of exprs) expect(() => parseExpr(e), e).not.toThrow();
  });

  test('precedence: ternary, comparison, | 0 and unary minus as in JS', () => {
    expect(parseExpr('b === 0 ? 0 : Math.floor(a / b) | 0')).toMatchObject({ kind: 'cond', else: { kind: 'binary', op: '|' } });
    expect(parseExpr('-a * b')).toMatchObject({ kind: 'binary', op: '*', l: { kind: 'unary', op: '-' } });
    expect(parseExpr('a < 0 ? 0 : a')).toMatchObject({ kind: 'cond', test: { kind: 'binary', op: '<' } });
  });

  test('the hot ops have wasm forms; pow, remainder, sin, cos do not', () => {
    const names = new Set(kernelModule(false) && ewVariants().map(ewKey));
    const rt = makeHeap(false).runtime;
    const has = (expr: string, inputs: DType[], output: DType) => rt.exports.byName.has(ewKey({ expr, inputs, output }));
    expect(names.size).toBeGreaterThan(80);
    for (const op of ['add', 'sub', 'mul', 'div', 'maximum', 'minimum'] as const) expect(has(BINARY[op].js, ['float32', 'float32'], 'float32'), op).toBe(true);
    for (const op of ['exp', 'log', 'log1p', 'tanh', 'erf', 'gelu', 'sigmoid', 'relu', 'sqrt', 'rsqrt'] as const) expect(has(UNARY[op].js, ['float32'], 'float32'), op).toBe(true);
    expect(has(BINARY.greater.js, ['float32', 'float32'], 'bool')).toBe(true);
    expect(has('a ? b : c', ['bool', 'float32', 'float32'], 'float32')).toBe(true);
    for (const d of ['float32', 'int32', 'bool'] as const) expect(has('a ? p0 : b', ['bool', d], d), `maskFill ${d}`).toBe(true);
    expect(has(BINARY.pow.js, ['float32', 'float32'], 'float32')).toBe(false);
    expect(has(UNARY.sin.js, ['float32'], 'float32')).toBe(false);
  });
});

describe.each(flavours)('wasm kernels (relaxed SIMD: %s)', (relaxed) => {
  const heap = makeHeap(relaxed);

  // ---- math ----------------------------------------------------------------------------------------
  describe('SIMD math against float64', () => {
    const grid = (lo: number, hi: number, n: number) => Array.from({ length: n }, (_, i) => Math.fround(lo + ((hi - lo) * i) / (n - 1)));
    const specials = [NaN, Infinity, -Infinity, 0, -0, 1, -1, 1e-40, -1e-40, 1.1754943508222875e-38, 3.4028234663852886e38, -3.4028234663852886e38];
    const unary = (op: keyof typeof UNARY, xs: readonly number[]) => {
      const x = tensor(heap, [xs.length], xs);
      const out = tensor(heap, [xs.length], new Float32Array(xs.length));
      runChunks(wasmElementwiseKernel, record(op, [meta(x.shape)], [meta(x.shape)], {}), [x], [out], [0.37]);
      return Array.from(out.data);
    };
    const cases: Array<[keyof typeof UNARY, (x: number) => number, number[], number, number]> = [
      // op, reference, inputs, abs, rel tolerance
      ['exp', Math.exp, [...grid(-104, 89, 40001), ...specials], 1e-44, 4e-7],
      ['log', Math.log, [...grid(1e-6, 100, 20001), ...grid(1e-44, 1e-36, 2001), ...grid(100, 3e38, 2001), ...specials], 0, 4e-7],
      ['log1p', Math.log1p, [...grid(-1, 1, 40001), ...grid(1, 1e30, 2001), ...grid(-1e-7, 1e-7, 2001), ...specials], 1e-45, 4e-7],
      ['tanh', Math.tanh, [...grid(-12, 12, 40001), ...grid(-1e-3, 1e-3, 2001), ...specials], 1e-45, 4e-7],
      ['erf', erf64, [...grid(-6, 6, 40001), ...specials], 5e-7, 1e-6],
      ['sigmoid', (x) => 1 / (1 + Math.exp(-x)), [...grid(-100, 100, 40001), ...specials], 1e-7, 1e-6],
      ['gelu', (x) => 0.5 * x * (1 + erf64(x / Math.SQRT2)), [...grid(-10, 10, 40001), ...specials], 1e-12, 2e-6],
    ];
    test.each(cases)('%s', (op, ref, xs, abs, rel) => {
      const got = unary(op, xs);
      const want = xs.map((x) => Math.fround(ref(x)));
      expectClose(got, want, abs, rel, op);
    });
  });

  // ---- elementwise over layouts --------------------------------------------------------------------
  describe('elementwise over strided, permuted and broadcast layouts', () => {
    /** A view of output shape `shape` over a storage laid out in `order`, each dim stepping 1 or 2, or broadcast (stride 0). */
    function laidOut(shape: readonly number[], modes: readonly number[], order: readonly number[], base: number, fill: (i: number) => number): { view: View; at: (idx: readonly number[]) => number } {
      const dims = shape.map((d, i) => (modes[i] === 0 ? 1 : d * modes[i]!));
      // Storage strides in the given memory order (order[0] outermost).
      const st = new Array<number>(shape.length).fill(0);
      let acc = 1;
      for (let j = order.length - 1; j >= 0; j--) {
        const d = order[j]!;
        st[d] = acc;
        acc *= dims[d]!;
      }
      const total = base + acc;
      const data = heap.alloc('float32', total);
      for (let i = 0; i < total; i++) data[i] = fill(i);
      const stride = shape.map((_, i) => (modes[i] === 0 ? 0 : st[i]! * modes[i]!));
      const view: View = { data, shape, stride, offset: base };
      return { view, at: (idx) => data[base + idx.reduce((s, q, d) => s + q * stride[d]!, 0)]! };
    }
    const arb = fc
      .array(fc.integer({ min: 1, max: 9 }), { minLength: 0, maxLength: 4 })
      .chain((shape) =>
        fc.record({
          shape: fc.constant(shape),
          modes: fc.array(fc.array(fc.constantFrom(0, 1, 1, 2), { minLength: shape.length, maxLength: shape.length }), { minLength: 2, maxLength: 2 }),
          orders: fc.array(fc.shuffledSubarray([...shape.keys()], { minLength: shape.length, maxLength: shape.length }), { minLength: 2, maxLength: 2 }),
          bases: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 2, maxLength: 2 }),
          op: fc.constantFrom('add', 'sub', 'mul', 'div', 'maximum', 'greater', 'exp', 'relu', 'sigmoid', 'addScalar'),
          cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }).map((c) => [...c].sort()),
        }),
      );
    const refs: Record<string, (a: number, b: number) => number> = {
      add: (a, b) => a + b,
      sub: (a, b) => a - b,
      mul: (a, b) => a * b,
      div: (a, b) => a / b,
      maximum: (a, b) => Math.max(a, b),
      greater: (a, b) => (a > b ? 1 : 0),
      exp: (a) => Math.exp(a),
      relu: (a) => (a < 0 ? 0 : a),
      sigmoid: (a) => 1 / (1 + Math.exp(-a)),
      addScalar: (a) => a + 0.75,
    };
    test('matches a float64 loop over the same elements, for any layout and range split', () => {
      fc.assert(
        fc.property(arb, ({ shape, modes, orders, bases, op, cuts }) => {
          const binary = ['add', 'sub', 'mul', 'div', 'maximum', 'greater'].includes(op);
          const fill = (k: number) => (i: number) => Math.fround(Math.sin(i * 1.7 + k) * 4 + (k === 1 ? 0.5 : 0));
          const ins = (binary ? [0, 1] : [0]).map((k) => laidOut(shape, modes[k]!, orders[k]!, bases[k]!, fill(k)));
          const outDtype: DType = op === 'greater' ? 'bool' : 'float32';
          const n = size(shape);
          const out: View = { data: heap.alloc(outDtype, n), shape, stride: contiguous(shape), offset: 0 };
          const attrs = (op === 'addScalar' ? { scalar: 0.75 } : {}) as OpAttrs[OpName];
          const r = record(op as OpName, ins.map(() => meta(shape)), [meta(shape, outDtype)], attrs);
          runChunks(wasmElementwiseKernel, r, ins.map((x) => x.view), [out], cuts);
          const want: number[] = [];
          for (let i = 0; i < n; i++) {
            const idx = shape.map((_, d) => Math.floor(i / size(shape.slice(d + 1))) % shape[d]!);
            const [a, b] = ins.map((x) => x.at(idx));
            want.push(Math.fround(refs[op]!(a!, b ?? 0)));
          }
          const tol = ['exp', 'sigmoid'].includes(op) ? 4e-7 : 0;
          expectClose(out.data, want, 0, tol, `${op} ${JSON.stringify({ shape, modes, orders, bases, cuts })}`);
          for (const x of ins) heap.free(x.view.data);
          heap.free(out.data);
        }),
        { numRuns: 300 },
      );
    });

    test('int32 and bool ops: wrapping add, imul, where, casts to bool', () => {
      const n = 23;
      const av = Array.from({ length: n }, (_, i) => (i * 0x2468ace1) | 0);
      const bv = Array.from(Int32Array.from({ length: n }, (_, i) => (i % 5) - 2 + (i === 3 ? 0x7fffffff : 0)));
      const a = tensor(heap, [n], av, 'int32');
      const b = tensor(heap, [n], bv, 'int32');
      const run = (op: OpName, ins: View[], out: DType, attrs: OpAttrs[OpName] = {} as OpAttrs[OpName]) => {
        const o: View = { data: heap.alloc(out, n), shape: [n], stride: [1], offset: 0 };
        runChunks(wasmElementwiseKernel, record(op, ins.map((v) => meta(v.shape, v.data instanceof Int32Array ? 'int32' : v.data instanceof Uint8Array ? 'bool' : 'float32')), [meta([n], out)], attrs), ins, [o], [0.5]);
        return Array.from(o.data);
      };
      expect(run('add', [a, b], 'int32')).toEqual(av.map((x, i) => (x + bv[i]!) | 0));
      expect(run('mul', [a, b], 'int32')).toEqual(av.map((x, i) => Math.imul(x, bv[i]!)));
      expect(run('neg', [a], 'int32')).toEqual(av.map((x) => -x | 0));
      expect(run('greater', [a, b], 'bool')).toEqual(av.map((x, i) => (x > bv[i]! ? 1 : 0)));
      const c = run('greater', [a, b], 'bool');
      const cond = tensor(heap, [n], c, 'bool');
      expect(run('where', [cond, a, b], 'int32')).toEqual(c.map((k, i) => (k ? av[i]! : bv[i]!)));
      expect(run('cast', [a], 'bool', { dtype: 'bool' })).toEqual(av.map((x) => (x !== 0 ? 1 : 0)));
      expect(run('cast', [cond], 'float32', { dtype: 'float32' })).toEqual(c);
      expect(run('logicalNot', [cond], 'bool')).toEqual(c.map((k) => (k ? 0 : 1)));
      expect(run('maskFill', [cond, a], 'int32', { value: -(2 ** 31) })).toEqual(c.map((k, i) => (k ? -(2 ** 31) : av[i]!)));
      expect(run('maskFill', [cond, cond], 'bool', { value: 0 })).toEqual(c.map(() => 0));
    });

    test('maskFill float32: NaN under the mask replaced, NaN and inf as the value, row-broadcast mask', () => {
      const xs = [NaN, Infinity, -Infinity, -0, 1.5, NaN, 2, -3, 4, 5, 6];
      const n = xs.length;
      const x = tensor(heap, [2, n], [...xs, ...xs.map((v) => -v)]);
      const ms = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
      const m = tensor(heap, [n], ms, 'bool');
      const mView: View = { ...m, shape: [2, n], stride: [0, 1] };
      for (const v of [NaN, Infinity, -7.25]) {
        const o: View = { data: heap.alloc('float32', 2 * n), shape: [2, n], stride: [n, 1], offset: 0 };
        runChunks(wasmElementwiseKernel, record('maskFill', [meta([2, n], 'bool'), meta([2, n])], [meta([2, n])], { value: v }), [mView, x], [o], [0.3]);
        const want = [...xs, ...xs.map((w) => -w)].map((w, i) => (ms[i % n] ? v : w));
        Array.from(o.data).forEach((g, i) => expect(Object.is(g, want[i]) || (Number.isNaN(g) && Number.isNaN(want[i])), `at ${i}: ${g} vs ${want[i]}`).toBe(true));
      }
    });
  });

  // ---- matmul --------------------------------------------------------------------------------------
  describe('matmul', () => {
    function ref(a: View, b: View, M: number, N: number, K: number): number[] {
      const out: number[] = [];
      for (let i = 0; i < M; i++)
        for (let j = 0; j < N; j++) {
          let s = 0;
          for (let k = 0; k < K; k++) s += a.data[a.offset + i * a.stride[0]! + k * a.stride[1]!]! * b.data[b.offset + k * b.stride[0]! + j * b.stride[1]!]!;
          out.push(s);
        }
      return out;
    }
    /** An [r, c] operand: row-major, column-major (a transposed tensor), or every other column of a wider one. */
    function operand(r: number, c: number, layout: 'row' | 'col' | 'step', seed: number): View {
      const total = layout === 'step' ? r * c * 2 + 1 : r * c;
      const data = heap.alloc('float32', Math.max(1, total));
      for (let i = 0; i < total; i++) data[i] = Math.fround(Math.cos(i * 0.37 + seed));
      if (layout === 'row') return { data, shape: [r, c], stride: [c, 1], offset: 0 };
      if (layout === 'col') return { data, shape: [r, c], stride: [1, r], offset: 0 };
      return { data, shape: [r, c], stride: [2 * c, 2], offset: 1 };
    }
    const shapes: Array<[number, number, number]> = [
      [1, 1, 1],
      [3, 5, 7],
      [4, 8, 256],
      [5, 9, 257],
      [8, 16, 4],
      [130, 70, 513],
      [33, 600, 30],
      [260, 17, 64],
    ];
    const layouts = ['row', 'col', 'step'] as const;
    test.each(shapes)('[%i x %i] over K = %i, every operand layout, chunked', (M, N, K) => {
      for (const la of layouts) {
        for (const lb of layouts) {
          const a = operand(M, K, la, 1);
          const b = operand(K, N, lb, 2);
          const out: View = { data: heap.alloc('float32', M * N), shape: [M, N], stride: [N, 1], offset: 0 };
          const r = record('matmul', [meta([M, K]), meta([K, N])], [meta([M, N])], {});
          runChunks(wasmMatmulKernel, r, [a, b], [out], [0.3, 0.31, 0.8]);
          expectClose(out.data, ref(a, b, M, N, K), 1e-5 * Math.sqrt(K), 1e-5, `${M}x${N}x${K} ${la}/${lb}`);
          heap.free(a.data);
          heap.free(b.data);
          heap.free(out.data);
        }
      }
    });

    test('batch broadcasting [2, 1, M, K] x [3, K, N] and empty shapes', () => {
      const [M, N, K] = [6, 10, 9];
      const a = tensor(heap, [2, 1, M, K], Array.from({ length: 2 * M * K }, (_, i) => Math.fround(Math.sin(i))));
      const b = tensor(heap, [3, K, N], Array.from({ length: 3 * K * N }, (_, i) => Math.fround(Math.cos(i))));
      const out: View = { data: heap.alloc('float32', 6 * M * N), shape: [2, 3, M, N], stride: contiguous([2, 3, M, N]), offset: 0 };
      runChunks(wasmMatmulKernel, record('matmul', [meta(a.shape), meta(b.shape)], [meta(out.shape)], {}), [a, b], [out], [0.5]);
      const want: number[] = [];
      for (let p = 0; p < 2; p++)
        for (let q = 0; q < 3; q++)
          for (let i = 0; i < M; i++)
            for (let j = 0; j < N; j++) {
              let s = 0;
              for (let k = 0; k < K; k++) s += a.data[p * M * K + i * K + k]! * b.data[q * K * N + k * N + j]!;
              want.push(s);
            }
      expectClose(out.data, want, 1e-5, 1e-5, 'batched');
      // K = 0: zeros; M = 0: no units.
      const z = { data: heap.alloc('float32', 12), shape: [3, 4], stride: [4, 1], offset: 0 };
      z.data.fill(7);
      const e = { data: heap.alloc('float32', 1), shape: [3, 0], stride: [0, 1], offset: 0 };
      const f = { data: heap.alloc('float32', 1), shape: [0, 4], stride: [4, 1], offset: 0 };
      runChunks(wasmMatmulKernel, record('matmul', [meta([3, 0]), meta([0, 4])], [meta([3, 4])], {}), [e, f], [z]);
      expect(Array.from(z.data)).toEqual(new Array(12).fill(0));
      expect(wasmMatmulKernel.units(record('matmul', [meta([0, 5]), meta([5, 4])], [meta([0, 4])], {}))).toBe(0);
    });

    test('operands outside the wasm memory run the JS tile loop', () => {
      const a: View = { data: Float32Array.from([1, 2, 3, 4, 5, 6]), shape: [2, 3], stride: [3, 1], offset: 0 };
      const b: View = { data: Float32Array.from([1, 0, 0, 1, 1, 1]), shape: [3, 2], stride: [2, 1], offset: 0 };
      const out: View = { data: new Float32Array(4), shape: [2, 2], stride: [2, 1], offset: 0 };
      expect(runtimeOf(a.data)).toBeUndefined();
      runChunks(wasmMatmulKernel, record('matmul', [meta([2, 3]), meta([3, 2])], [meta([2, 2])], {}), [a, b], [out]);
      expect(Array.from(out.data)).toEqual([4, 5, 10, 11]);
    });
  });

  // ---- reductions and softmax ------------------------------------------------------------------------
  describe('reductions and softmax', () => {
    const reduceRef: Record<'sum' | 'mean' | 'max' | 'min', (xs: number[]) => number> = {
      sum: (xs) => xs.reduce((a, b) => a + b, 0),
      mean: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
      max: (xs) => (xs.some(Number.isNaN) ? NaN : Math.max(...xs)),
      min: (xs) => (xs.some(Number.isNaN) ? NaN : Math.min(...xs)),
    };
    test.each([
      [[7, 13], 1],
      [[7, 13], 0],
      [[3, 37, 5], 1],
      [[2, 3, 19], 2],
      [[4, 0, 3], 1],
      [[300], 0],
    ] as Array<[number[], number]>)('sum / mean / max / min of %j along %i, and over all', (shape, dim) => {
      const n = size(shape);
      const values = Array.from({ length: n }, (_, i) => (i === 5 ? NaN : Math.fround(Math.sin(i * 0.9) * 3)));
      const x = tensor(heap, shape, values);
      for (const op of ['sum', 'mean', 'max', 'min'] as const) {
        for (const d of [dim, null]) {
          const outShape = d === null ? [] : shape.filter((_, i) => i !== d);
          const out: View = { data: heap.alloc('float32', Math.max(1, size(outShape))), shape: outShape, stride: contiguous(outShape), offset: 0 };
          runChunks(wasmReduceKernel, record(op, [meta(shape)], [meta(outShape)], { dim: d, keepDims: false }), [x], [out], [0.4]);
          const want: number[] = [];
          for (let o = 0; o < size(outShape); o++) {
            const xs: number[] = [];
            for (let i = 0; i < n; i++) {
              const idx = shape.map((_, q) => Math.floor(i / size(shape.slice(q + 1))) % shape[q]!);
              const rest = idx.filter((_, q) => q !== d);
              const oi = d === null ? 0 : rest.reduce((s, q, k) => s + q * contiguous(outShape)[k]!, 0);
              if (oi === o) xs.push(values[i]!);
            }
            want.push(Math.fround(reduceRef[op](xs)));
          }
          expectClose(Array.from(out.data).slice(0, want.length), want, 1e-5, 1e-6, `${op} dim ${d}`);
        }
      }
    });

    test('softmax and logSoftmax rows, with NaN and infinite rows', () => {
      const rows = [
        [1, 2, 3, 4, 5],
        [-1000, 0, 1000, 3, 2],
        [NaN, 1, 2, 3, 4],
        [Infinity, 1, 2, 3, 4],
        [-Infinity, -Infinity, -Infinity, -Infinity, -Infinity],
        [0.5, 0.25, -0.125, 8, -8],
      ];
      const x = tensor(heap, [rows.length, 5], rows.flat());
      for (const op of ['softmax', 'logSoftmax'] as const) {
        const out: View = { data: heap.alloc('float32', rows.length * 5), shape: [rows.length, 5], stride: [5, 1], offset: 0 };
        runChunks(wasmSoftmaxKernel, record(op, [meta(x.shape)], [meta(x.shape)], { dim: 1 }), [x], [out], [0.5]);
        const want = rows.flatMap((r) => {
          const m = r.some(Number.isNaN) ? NaN : Math.max(...r);
          const z = r.reduce((s, v) => s + Math.exp(v - m), 0);
          return r.map((v) => Math.fround(op === 'softmax' ? Math.exp(v - m) / z : v - m - Math.log(z)));
        });
        expectClose(out.data, want, 1e-6, 1e-5, op);
      }
    });
  });
});

describe('wasm heap allocator', () => {
  test('size classes: at most 25% slack, multiples of 64 bytes', () => {
    for (const b of [1, 63, 64, 65, 100, 1000, 4096, 4097, 1e6, 123456789]) {
      const c = heapSizeClass(b);
      expect(c).toBeGreaterThanOrEqual(b);
      expect(c % 64).toBe(0);
      if (b > 256) expect(c / b).toBeLessThanOrEqual(1.25);
    }
  });

  test('live blocks never overlap; freed blocks are reused; stats add up', () => {
    const heap = makeHeap(false);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 70000 }).map((n) => ({ alloc: n })), fc.nat(40).map((i) => ({ free: i }))), { maxLength: 60 }), (ops) => {
        const live: TypedArray[] = [];
        for (const o of ops) {
          if ('alloc' in o) {
            const a = heap.alloc('float32', o.alloc);
            a.fill(live.length + 1);
            live.push(a);
          } else if (live.length > 0) {
            heap.free(live.splice(o.free % live.length, 1)[0]!);
          }
        }
        // Each block still holds its own fill (nothing overlapped), and the intervals are disjoint.
        const spans = live.map((a) => [a.byteOffset, a.byteOffset + a.byteLength] as const).sort((p, q) => p[0] - q[0]);
        for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
        expect(heap.stats().liveBuffers).toBe(live.length);
        for (const a of live) heap.free(a);
        expect(heap.stats().liveBytes).toBe(0);
      }),
    );
    const a = heap.alloc('float32', 1000);
    const addr = a.byteOffset;
    heap.free(a);
    expect(heap.alloc('float32', 990).byteOffset).toBe(addr);
  });
});
