/**
 * Fusion<Wgpu>: the five-op GELU as one dispatch, the read modes of the generated kernel (vec4
 * and scalar forms), programs split past the binding and parameter limits, and kernels cached
 * by structure (other sizes and scalars compile nothing new). References are float64 loops.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import type { GpuContext } from '../../src/backends/wgpu/context.js';
import { readPlan } from '../../src/backends/wgpu/kernels/fused.js';
import { Fusion } from '../../src/fusion/fusion.js';
import type { OpRecord } from '../../src/ir/ops.js';
import { tidy as tidyIn } from '../../src/memory/tidy.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { erf, gelu } from '../conformance/ref.js';
import { describeGpu } from '../wgpu/gpu.js';

const runtime = new Runtime();
const tidy = <T>(fn: () => T): T => tidyIn(fn, runtime);

/** Deterministic values in [lo, hi) (a small LCG; no library code). */
function values(n: number, seed: number, lo = -3, hi = 3): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + (s / 2 ** 32) * (hi - lo);
  }
  return out;
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, rel = 2e-6, abs = 2e-7): void {
  expect(got.length).toBe(want.length);
  const bad: string[] = [];
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i]! - want[i]!) <= abs + rel * Math.abs(want[i]!))) bad.push(`[${i}] ${got[i]} vs ${want[i]}`);
  }
  expect(bad.slice(0, 5)).toEqual([]);
}

function gelu5<B extends Backend>(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
  return x.mul(x.div(Math.SQRT2).erf().add(1)).div(2);
}

describeGpu('Fusion<Wgpu>', () => {
  let wgpu: Wgpu;
  let fusion: Fusion<Wgpu>;
  let ctx: GpuContext;
  beforeAll(async () => {
    wgpu = await Wgpu.create({ runtime });
    fusion = new Fusion(wgpu);
    ctx = wgpu.exec(wgpu.defaultDevice()).context!;
  });
  afterAll(() => fusion.close());

  /** Records run and dispatches encoded while `fn` (and its reads) ran. */
  async function measure(fn: () => Promise<unknown>): Promise<{ records: OpRecord[]; dispatches: number }> {
    const records: OpRecord[] = [];
    const sub = runtime.scheduler.events$.subscribe((e) => records.push(e.record));
    const before = ctx.dispatchCount;
    try {
      await fn();
      await runtime.scheduler.flush();
    } finally {
      sub.unsubscribe();
    }
    return { records, dispatches: ctx.dispatchCount - before };
  }

  test('the five-op GELU is one dispatch, with the values of the unfused ops and of float64', async () => {
    const data = values(4096, 1);
    const x = fromData(fusion, data, { shape: [64, 64] });
    await x.toData();
    let y!: Tensor<Fusion<Wgpu>, 'float'>;
    const fused = await measure(async () => {
      y = tidy(() => gelu5(x));
      await y.toData();
    });
    expect(fused.dispatches).toBe(1);
    expect(fused.records.map((r) => r.op)).toEqual(['fused']);
    const got = (await y.toData()).values;
    expectClose(got, Array.from(data, (v) => gelu(v)), 3e-6, 3e-7);
    const plain = fromData(wgpu, data, { shape: [64, 64] });
    await plain.toData();
    let u!: Tensor<Wgpu, 'float'>;
    const unfused = await measure(async () => {
      u = tidy(() => gelu5(plain));
      await u.toData();
    });
    expect(unfused.dispatches).toBe(5);
    expectClose(got, (await u.toData()).values, 1e-6, 1e-7);
  });

  test('inputs read as vec4 rows, per-row columns, scalars, strided views and unaligned offsets', async () => {
    for (const [rows, cols] of [[6, 8], [5, 7]] as const) {
      const n = rows * cols;
      const xs = values(n, 2);
      const bs = values(cols, 3);
      const cs = values(rows, 4);
      const ts = values(n, 5);
      const ss = values(cols + 1, 6);
      const x = fromData(fusion, xs, { shape: [rows, cols] });
      const bias = fromData(fusion, bs, { shape: [cols] });
      const col = fromData(fusion, cs, { shape: [rows, 1] });
      const one = fromData(fusion, [0.5], { shape: [1] });
      const tT = fromData(fusion, ts, { shape: [cols, rows] }).transpose(); // strided
      const shifted = fromData(fusion, ss, { shape: [cols + 1] }).slice([[1, cols + 1]]); // offset 1
      // Aligned (vec4 where the sizes allow), then an offset of 1 and a strided input (scalar form).
      const vector = tidy(() => x.add(bias).mul(col).sub(one).tanh());
      const unaligned = tidy(() => x.add(bias).mul(col).sub(one).add(shifted));
      const strided = tidy(() => x.add(bias).mul(col).sub(one).add(tT));
      const want: number[][] = [[], [], []];
      for (let i = 0; i < rows; i++) {
        for (let j = 0; j < cols; j++) {
          const base = (xs[i * cols + j]! + bs[j]!) * cs[i]! - 0.5;
          want[0]!.push(Math.tanh(base));
          want[1]!.push(base + ss[j + 1]!);
          want[2]!.push(base + ts[j * rows + i]!);
        }
      }
      expectClose((await vector.toData()).values, want[0]!, 1e-5, 1e-6);
      expectClose((await unaligned.toData()).values, want[1]!, 1e-5, 1e-6);
      expectClose((await strided.toData()).values, want[2]!, 1e-5, 1e-6);
    }
  });

  test('vec4 kernels over lengths that are not a multiple of 4, with broadcast scalars and an aligned view', async () => {
    // Past 2048 elements an invocation also takes a second vec4 a grid of invocations away.
    for (const n of [1, 2, 3, 5, 7, 13, 1027, 2047, 2049, 2054, 8195, 70001]) {
      const xs = values(n, 20 + n);
      const vs = values(n + 4, 40 + n);
      const x = fromData(fusion, xs);
      const half = fromData(fusion, [0.5], { shape: [1] });
      const view = fromData(fusion, vs).slice([[4, n + 4]]); // offset 4: still whole vec4s
      // The read plan of this program runs four elements per invocation, the last one partial.
      const layouts = [{ shape: [n], strides: [1], offset: 0 }, { shape: [1], strides: [1], offset: 0 }, { shape: [n], strides: [1], offset: 4 }];
      expect(readPlan(layouts, [n]).vec4).toBe(true);
      let y!: Tensor<Fusion<Wgpu>, 'float'>;
      let z!: Tensor<Fusion<Wgpu>, 'float'>;
      const m = await measure(async () => {
        y = x.mul(half).add(view).sub(0.25);
        z = tidy(() => y.erf().mul(2));
        await z.toData();
      });
      expect(m.dispatches).toBe(1);
      const base = Array.from(xs, (v, i) => v * 0.5 + vs[i + 4]! - 0.25);
      expectClose((await y.toData()).values, base, 1e-6, 1e-7);
      expectClose((await z.toData()).values, base.map((v) => 2 * erf(v)), 2e-6, 2e-7);
    }
  });

  test('vec4 kernels with a broadcast row and a broadcast column, when invocations take two vec4s each', async () => {
    for (const [rows, cols] of [[37, 64], [513, 12], [1025, 8], [3, 4]] as const) {
      const xs = values(rows * cols, 7 + rows);
      const bs = values(cols, 8 + cols);
      const cs = values(rows, 9 + rows);
      const x = fromData(fusion, xs, { shape: [rows, cols] });
      const bias = fromData(fusion, bs); // a row: aligned vec4s ('mv')
      const col = fromData(fusion, cs, { shape: [rows, 1] }); // one value per row of a multiple of 4 ('ms')
      const plan = readPlan([{ shape: [rows, cols], strides: [cols, 1], offset: 0 }, { shape: [cols], strides: [1], offset: 0 }, { shape: [rows, 1], strides: [1, 1], offset: 0 }], [rows, cols]);
      expect(plan.vec4).toBe(true);
      const y = tidy(() => x.add(bias).mul(col).relu());
      const want = Array.from(xs, (v, i) => Math.max(0, (v + bs[i % cols]!) * cs[Math.floor(i / cols)]!));
      expectClose((await y.toData()).values, want, 1e-6, 1e-7);
      for (const t of [x, bias, col, y]) t.dispose();
    }
  });

  test('division by a scalar: powers of two multiply by the exact inverse, other scalars divide (one cache entry each)', async () => {
    const xs = values(64, 9, -1e3, 1e3);
    xs[0] = 1e-40; // subnormal
    xs[1] = 3e38;
    const x = fromData(wgpu, xs);
    for (const s of [2, 3, 0.25, -4, 1e-30, 2 ** -130, 7, 2 ** 100]) {
      const got = (await x.div(s).toData()).values;
      const want = Array.from(xs, (v) => Math.fround(v / s));
      if (Number.isInteger(Math.log2(Math.abs(s)))) expect(Array.from(got)).toEqual(want);
      else {
        // Within a rounding of float32 (a GPU division need not be correctly rounded); infinities exactly.
        const bad = want.filter((w, i) => !(got[i] === w || Math.abs(got[i]! - w) <= 2.5e-7 * Math.abs(w)));
        expect(bad).toEqual([]);
      }
    }
    x.dispose();
  });

  test('every intermediate that still has an owner is written by the one dispatch', async () => {
    const x = fromData(fusion, [1, 2, 3, 4, 5, 6, 7, 8]);
    await x.toData();
    let a!: Tensor<Fusion<Wgpu>, 'float'>;
    let b!: Tensor<Fusion<Wgpu>, 'bool'>;
    let c!: Tensor<Fusion<Wgpu>, 'int'>;
    const m = await measure(async () => {
      a = x.mul(2).sub(5);
      b = a.greater(0);
      c = a.where(b, a.neg()).cast('int32').mul(3);
      await c.toData();
    });
    expect(m.dispatches).toBe(1);
    expect(Array.from((await a.toData()).values)).toEqual([-3, -1, 1, 3, 5, 7, 9, 11]);
    expect(Array.from((await b.toData()).values)).toEqual([0, 0, 1, 1, 1, 1, 1, 1]);
    expect(Array.from((await c.toData()).values)).toEqual([9, 3, 3, 9, 15, 21, 27, 33]);
  });

  test('a program with more inputs than the adapter binds runs in parts, with the right values', async () => {
    const k = ctx.maxStorageBuffers + 4;
    const parts = Array.from({ length: k }, (_, i) => values(16, 10 + i, -1, 1));
    const xs = parts.map((p) => fromData(fusion, p, { shape: [4, 4] }));
    for (const t of xs) await t.toData();
    let s!: Tensor<Fusion<Wgpu>, 'float'>;
    const m = await measure(async () => {
      s = tidy(() => xs.slice(1).reduce((acc, t) => acc.add(t), xs[0]!));
      await s.toData();
    });
    expect(m.records.map((r) => r.op)).toEqual(['fused']);
    expect(m.dispatches).toBeGreaterThan(1);
    const want = Array.from({ length: 16 }, (_, i) => parts.reduce((acc, p) => acc + p[i]!, 0));
    expectClose((await s.toData()).values, want, 1e-5, 1e-5);
  });

  test('a program with more scalars than the parameter block holds runs in parts', async () => {
    const long = new Fusion(wgpu, { maxOps: 100 });
    const x = fromData(long, [1, 2, 3, 4]);
    await x.toData();
    let y!: Tensor<Fusion<Wgpu>, 'float'>;
    const m = await measure(async () => {
      y = tidy(() => {
        let t = x;
        for (let i = 0; i < 80; i++) t = t.add(i % 2 === 0 ? 1 : -0.5);
        return t;
      });
      await y.toData();
    });
    expect(m.records.map((r) => r.op)).toEqual(['fused']);
    expect(m.dispatches).toBeGreaterThan(1);
    expect(Array.from((await y.toData()).values)).toEqual([21, 22, 23, 24]);
  });

  test('kernels are cached by structure: new sizes and scalars compile nothing new', async () => {
    const step = (x: Tensor<Fusion<Wgpu>, 'float'>, s: number) => tidy(() => x.mul(s).add(1).sigmoid());
    const a = fromData(fusion, values(64, 7), { shape: [8, 8] });
    const first = step(a, 2);
    await first.toData();
    const compiled = ctx.pipelineCount;
    for (const [size, s] of [[16, 3], [32, -1.5], [4, 0.25]] as const) {
      const data = values(size * size, size);
      const b = fromData(fusion, data, { shape: [size, size] });
      const out = step(b, s);
      expectClose((await out.toData()).values, Array.from(data, (v) => 1 / (1 + Math.exp(-(v * s + 1)))), 1e-5, 1e-6);
    }
    expect(ctx.pipelineCount).toBe(compiled);
  });

  test('a value used twice in one kernel keeps IEEE semantics: x - x and x + -x are NaN for inf and NaN (drivers fold them to 0)', async () => {
    const data = [Infinity, -Infinity, NaN, 1.5, 0, -2];
    const x = fromData(fusion, data);
    await x.toData();
    let outs: Array<Tensor<Fusion<Wgpu>, 'float'>> = [];
    const m = await measure(async () => {
      outs = [x.sub(x), x.add(x.neg()), x.sub(x).add(x.neg()), x.div(x), x.mul(x).sub(x.mul(x))];
      await Promise.all(outs.map((t) => t.toData()));
    });
    expect(m.records.map((r) => r.op)).toEqual(['fused']);
    const refs = [(v: number) => v - v, (v: number) => v + -v, (v: number) => v - v + -v, (v: number) => v / v, (v: number) => v * v - v * v];
    for (const [k, t] of outs.entries()) expect(Array.from((await t.toData()).values), `output ${k}`).toEqual(data.map(refs[k]!));
  });
});
