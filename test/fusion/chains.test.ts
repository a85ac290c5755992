/**
 * Property: any chain of elementwise ops over broadcast and strided inputs, with any subset of
 * its tensors kept, gives under Fusion the values of a float64 reference that rounds each step
 * to float32 (as storing it would); on the CPU also exactly the values of the unfused ops.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { keep as keepIn, tidy as tidyIn } from '../../src/memory/tidy.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { describeGpu } from '../wgpu/gpu.js';

const runtime = new Runtime();
type F<B extends Backend> = Tensor<B, 'float'>;

/** One op of the chain: how the library calls it and its float64 value. */
interface OpSpec {
  readonly name: string;
  readonly arity: 1 | 2;
  run<B extends Backend>(a: F<B>, b: F<B>): F<B>;
  ref(a: number, b: number): number;
}

const OPS: readonly OpSpec[] = [
  { name: 'add', arity: 2, run: (a, b) => a.add(b), ref: (a, b) => a + b },
  { name: 'sub', arity: 2, run: (a, b) => a.sub(b), ref: (a, b) => a - b },
  { name: 'mul', arity: 2, run: (a, b) => a.mul(b), ref: (a, b) => a * b },
  { name: 'maximum', arity: 2, run: (a, b) => a.maximum(b), ref: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b)) },
  { name: 'where(a > b)', arity: 2, run: (a, b) => a.where(a.greater(b), b.mul(0.5)), ref: (a, b) => (a > b ? a : Math.fround(b * 0.5)) },
  { name: 'neg', arity: 1, run: (a) => a.neg(), ref: (a) => -a },
  { name: 'abs', arity: 1, run: (a) => a.abs(), ref: (a) => Math.abs(a) },
  { name: 'tanh', arity: 1, run: (a) => a.tanh(), ref: (a) => Math.tanh(a) },
  { name: 'sigmoid', arity: 1, run: (a) => a.sigmoid(), ref: (a) => 1 / (1 + Math.exp(-a)) },
  { name: 'mul 0.75', arity: 1, run: (a) => a.mul(0.75), ref: (a) => a * 0.75 },
  { name: 'sub 1', arity: 1, run: (a) => a.sub(1), ref: (a) => a - 1 },
  { name: 'clamp', arity: 1, run: (a) => a.clamp(-1.5, 2), ref: (a) => (a < -1.5 ? -1.5 : a > 2 ? 2 : a) },
  { name: 'relu', arity: 1, run: (a) => a.relu(), ref: (a) => (a < 0 ? 0 : a) },
  { name: 'cast int and back', arity: 1, run: (a) => a.mul(4).cast('int32').cast('float32'), ref: (a) => Math.trunc(Math.fround(a * 4)) },
];

/** How an input is laid out and broadcast against the output [rows, cols]. */
type InputKind = 'full' | 'row' | 'col' | 'one' | 'transposed';
const KINDS: readonly InputKind[] = ['full', 'row', 'col', 'one', 'transposed'];

interface Program {
  readonly rows: number;
  readonly cols: number;
  readonly inputs: ReadonlyArray<{ readonly kind: InputKind; readonly seed: number }>;
  /** Each step: op index and operand indices into inputs ++ earlier steps. */
  readonly steps: ReadonlyArray<{ readonly op: number; readonly a: number; readonly b: number }>;
  /** Which steps are kept (the last always is). */
  readonly keep: readonly boolean[];
}

const programs: fc.Arbitrary<Program> = fc
  .record({
    rows: fc.integer({ min: 1, max: 5 }),
    cols: fc.integer({ min: 1, max: 9 }),
    inputs: fc.array(fc.record({ kind: fc.constantFrom(...KINDS), seed: fc.integer({ min: 1, max: 1 << 20 }) }), { minLength: 1, maxLength: 4 }),
    steps: fc.array(fc.record({ op: fc.nat(OPS.length - 1), a: fc.nat(), b: fc.nat() }), { minLength: 1, maxLength: 8 }),
    keep: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  })
  .map((p) => ({
    ...p,
    // Operands index the inputs and earlier steps.
    steps: p.steps.map((s, i) => ({ op: s.op, a: s.a % (p.inputs.length + i), b: s.b % (p.inputs.length + i) })),
  }));

/** Deterministic values in [-2, 2) with a few exact zeros and halves (rounding and sign edges). */
function values(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const v = s / 2 ** 31 - 1;
    return s % 7 === 0 ? Math.round(v * 4) / 2 : Math.fround(2 * v);
  });
}

function inputShape(kind: InputKind, rows: number, cols: number): number[] {
  return kind === 'full' ? [rows, cols] : kind === 'row' ? [cols] : kind === 'col' ? [rows, 1] : kind === 'one' ? [1] : [cols, rows];
}

/** The float64 value of input `k` at output position (i, j). */
function inputAt(p: Program, data: number[][], k: number, i: number, j: number): number {
  const { kind } = p.inputs[k]!;
  const d = data[k]!;
  return kind === 'full' ? d[i * p.cols + j]! : kind === 'row' ? d[j]! : kind === 'col' ? d[i]! : kind === 'one' ? d[0]! : d[j * p.rows + i]!;
}

/** The reference values of every step (each rounded to float32, as a stored tensor is). */
function reference(p: Program, data: number[][]): number[][] {
  const out = p.steps.map(() => new Array<number>(p.rows * p.cols));
  for (let i = 0; i < p.rows; i++) {
    for (let j = 0; j < p.cols; j++) {
      const vals: number[] = p.inputs.map((_, k) => inputAt(p, data, k, i, j));
      p.steps.forEach((s, n) => {
        const v = Math.fround(OPS[s.op]!.ref(vals[s.a]!, vals[s.b]!));
        vals.push(v);
        out[n]![i * p.cols + j] = v;
      });
    }
  }
  return out;
}

/** Runs the program on `b`; returns the kept steps' tensors (index, tensor). */
function build<B extends Backend>(b: B, p: Program, data: number[][]): Array<[number, F<B>]> {
  const ins = p.inputs.map((inp, k) => {
    const t = fromData(b, data[k]!, { shape: inputShape(inp.kind, p.rows, p.cols) }) as F<B>;
    return inp.kind === 'transposed' ? t.transpose() : t;
  });
  const full = fromData(b, new Array<number>(p.rows * p.cols).fill(0), { shape: [p.rows, p.cols] }) as F<B>;
  return tidyIn(() => {
    const vals: Array<F<B>> = [...ins];
    const kept: Array<[number, F<B>]> = [];
    // A first operand that broadcasts gets the output's shape by adding zeros (a step of its own).
    const wide = ins.map((t, k) => (p.inputs[k]!.kind === 'full' || p.inputs[k]!.kind === 'transposed' ? t : t.add(full)));
    p.steps.forEach((s, n) => {
      const op = OPS[s.op]!;
      const a = s.a < ins.length ? wide[s.a]! : vals[s.a]!;
      const v = op.run(a, vals[s.b]!);
      vals.push(v);
      if (n === p.steps.length - 1 || p.keep[n]) kept.push([n, keepIn(v, runtime)]);
    });
    return kept;
  }, runtime);
}

function sameValue(a: number, b: number, rel: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= rel * (1 + Math.abs(b));
}

async function check<B extends Backend>(fused: B, plain: Backend | undefined, p: Program, rel: number): Promise<void> {
  const data = p.inputs.map((inp, k) => values(inputShape(inp.kind, p.rows, p.cols).reduce((x, y) => x * y, 1), inp.seed + k));
  const want = reference(p, data);
  const got = build(fused, p, data);
  const unfused = plain ? build(plain, p, data) : undefined;
  for (let g = 0; g < got.length; g++) {
    const [n, t] = got[g]!;
    const vals = Array.from((await t.toData()).values);
    vals.forEach((v, i) => {
      if (!sameValue(v, want[n]![i]!, rel)) throw new Error(`step ${n} (${OPS[p.steps[n]!.op]!.name}) at ${i}: ${v} vs reference ${want[n]![i]}`);
    });
    if (unfused) expect(vals).toEqual(Array.from((await unfused[g]![1].toData()).values));
    t.dispose();
    unfused?.[g]![1].dispose();
  }
}

describe('fused chains on the CPU', () => {
  const cpu = new Cpu({ threads: 0, runtime, kernels: 'js' }) // the fused CPU loop is JS: compare it with the JS kernels bit for bit;
  const fusion = new Fusion(cpu);
  afterAll(() => fusion.close());

  it('match float64 and the unfused ops exactly', async () => {
    await fc.assert(
      fc.asyncProperty(programs, (p) => check(fusion, cpu, p, 1e-6)),
      { numRuns: 300 },
    );
  });
});

describeGpu('fused chains on WebGPU', () => {
  let fusion: Fusion<Wgpu>;
  beforeAll(async () => {
    fusion = new Fusion(await Wgpu.create({ runtime }));
  });
  afterAll(() => fusion.close());

  it('match float64', async () => {
    // Each run compiles a kernel (slow on a software adapter): fewer runs than on the CPU.
    await fc.assert(
      fc.asyncProperty(programs, (p) => check(fusion, undefined, p, 1e-5)),
      { numRuns: 25 },
    );
  }, 120_000);
});
