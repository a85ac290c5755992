/**
 * Optimizer updates as one fused record per parameter (the `fused` option; by default where the
 * backend fuses elementwise chains and no Fusion decorator does it): the same values as float64
 * re-implementations of PyTorch's rules, fused or op by op, on the CPU, WebGPU and Fusion; and
 * how many records a step makes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { Fusion } from '../../src/fusion/fusion.js';
import type { OpRecord } from '../../src/ir/ops.js';
import { Module } from '../../src/nn/module.js';
import { Param } from '../../src/nn/param.js';
import { Adagrad } from '../../src/optim/adagrad.js';
import { Adam, AdamW, type AdamOptions } from '../../src/optim/adam.js';
import { Adadelta } from '../../src/optim/adadelta.js';
import { Adamax } from '../../src/optim/adamax.js';
import { ASGD } from '../../src/optim/asgd.js';
import { NAdam, type NAdamOptions } from '../../src/optim/nadam.js';
import { RAdam } from '../../src/optim/radam.js';
import { Rprop, type RpropOptions } from '../../src/optim/rprop.js';
import { Optimizer, type ParamState } from '../../src/optim/optimizer.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { RMSprop } from '../../src/optim/rmsprop.js';
import { SGD } from '../../src/optim/sgd.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { roundHalf } from '../../src/ir/half.js';
import { fromData } from '../../src/tensor/creation.js';
import { ElementwiseProgram } from '../../src/index.js';
import { describeGpu } from '../wgpu/gpu.js';
import { adadelta, adagrad, adam, adamax, asgd, nadam, radam, rmsprop, rprop, sgd, type Rule } from './rules.js';

interface Case {
  readonly name: string;
  readonly make: (fused: boolean | undefined) => Optimizer<Backend>;
  readonly rule: Rule;
}

const adamCase = (name: string, o: AdamOptions, w: boolean, rule: Rule): Case => ({ name, make: (fused) => (w ? new AdamW({ ...o, ...(fused === undefined ? {} : { fused }) }) : new Adam({ ...o, ...(fused === undefined ? {} : { fused }) })), rule });
const opt = <O extends object>(o: O, fused: boolean | undefined): O => (fused === undefined ? o : { ...o, fused });

const CASES: readonly Case[] = [
  adamCase('Adam', { lr: 0.01 }, false, adam(0.01, 0.9, 0.999, 1e-8, 0, false, false)),
  adamCase('Adam, L2 decay, amsgrad', { lr: 0.02, weightDecay: 0.1, amsgrad: true, betas: [0.8, 0.99] }, false, adam(0.02, 0.8, 0.99, 1e-8, 0.1, false, true)),
  adamCase('AdamW', { lr: 0.01, weightDecay: 0.05, eps: 1e-6 }, true, adam(0.01, 0.9, 0.999, 1e-6, 0.05, true, false)),
  { name: 'SGD', make: (f) => new SGD(opt({ lr: 0.1 }, f)), rule: sgd(0.1, 0, 0, 0, false) },
  { name: 'SGD, momentum, nesterov, decay', make: (f) => new SGD(opt({ lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.01 }, f)), rule: sgd(0.05, 0.9, 0, 0.01, true) },
  { name: 'SGD, momentum, dampening', make: (f) => new SGD(opt({ lr: 0.05, momentum: 0.8, dampening: 0.3 }, f)), rule: sgd(0.05, 0.8, 0.3, 0, false) },
  { name: 'RMSprop, centered, momentum', make: (f) => new RMSprop(opt({ lr: 0.01, centered: true, momentum: 0.5, weightDecay: 0.01 }, f)), rule: rmsprop(0.01, 0.99, 1e-8, 0.01, 0.5, true) },
  { name: 'RMSprop', make: (f) => new RMSprop(opt({ lr: 0.01 }, f)), rule: rmsprop(0.01, 0.99, 1e-8, 0, 0, false) },
  { name: 'Adagrad', make: (f) => new Adagrad(opt({ lr: 0.1, lrDecay: 0.01, initialAccumulatorValue: 0.1 }, f)), rule: adagrad(0.1, 0.01, 0, 0.1, 1e-10) },
  { name: 'Adamax', make: (f) => new Adamax(opt({ lr: 0.02, weightDecay: 0.01 }, f)), rule: adamax(0.02, 0.9, 0.999, 1e-8, 0.01) },
  { name: 'NAdam, defaults', make: (f) => new NAdam(opt({}, f)), rule: nadam(2e-3, 0.9, 0.999, 1e-8, 0, 4e-3, false) },
  { name: 'NAdam, L2 decay, momentumDecay', make: (f) => new NAdam(opt<NAdamOptions>({ lr: 0.01, weightDecay: 0.1, momentumDecay: 0.05, betas: [0.8, 0.9] }, f)), rule: nadam(0.01, 0.8, 0.9, 1e-8, 0.1, 0.05, false) },
  { name: "NAdam, decoupledWeightDecay (torch 2.x's)", make: (f) => new NAdam(opt({ lr: 0.01, weightDecay: 0.1, decoupledWeightDecay: true }, f)), rule: nadam(0.01, 0.9, 0.999, 1e-8, 0.1, 4e-3, true) },
  // RAdam rectifies from step 5 or 6 whatever its betas, past these STEPS: torch-trajectories.test.ts holds the rectified steps.
  { name: 'RAdam, defaults (no rectified step yet)', make: (f) => new RAdam(opt({}, f)), rule: radam(1e-3, 0.9, 0.999, 1e-8, 0, false) },
  { name: "RAdam, decoupledWeightDecay (torch 2.x's)", make: (f) => new RAdam(opt({ lr: 0.01, weightDecay: 0.1, decoupledWeightDecay: true }, f)), rule: radam(0.01, 0.9, 0.999, 1e-8, 0.1, true) },
  { name: 'Adadelta, defaults', make: (f) => new Adadelta(opt({}, f)), rule: adadelta(1, 0.9, 1e-6, 0) },
  { name: 'Adadelta, rho, eps, decay', make: (f) => new Adadelta(opt({ lr: 0.5, rho: 0.7, eps: 1e-3, weightDecay: 0.1 }, f)), rule: adadelta(0.5, 0.7, 1e-3, 0.1) },
  { name: 'Rprop, defaults', make: (f) => new Rprop(opt({}, f)), rule: rprop(0.01, 0.5, 1.2, 1e-6, 50) },
  { name: 'Rprop, etas, clamped step sizes', make: (f) => new Rprop(opt<RpropOptions>({ lr: 0.05, etas: [0.3, 1.5], stepSizes: [0.02, 0.06] }, f)), rule: rprop(0.05, 0.3, 1.5, 0.02, 0.06) },
];

// ---- data -------------------------------------------------------------------------------------

const STEPS = 4;
const SHAPES: ReadonlyArray<readonly number[]> = [[3, 5], [7], []];

/** Deterministic values in [-1, 1) away from 0 (a tiny gradient would make Adam's step sign-sensitive). */
function values(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const u = s / 2 ** 32;
    return Math.fround((u < 0.5 ? -1 : 1) * (0.1 + Math.abs(u - 0.5) * 1.8));
  });
}

const size = (shape: readonly number[]): number => shape.reduce((a, d) => a * d, 1);

class Params<B extends Backend> extends Module<B> {
  constructor(readonly ps: Array<Param<B>>) {
    super();
  }
}

function expected(rule: Rule): number[][] {
  return SHAPES.map((shape, k) => {
    const p = values(size(shape), 100 + k);
    const states = p.map(() => ({}) as Record<string, number>);
    for (let t = 1; t <= STEPS; t++) {
      const g = values(p.length, 1000 * t + k);
      p.forEach((v, i) => (p[i] = rule(v, g[i]!, states[i]!, t)));
    }
    return p;
  });
}

/** Steps a module of SHAPES' parameters on `backend`; counts the records that reach `inner` during the steps. */
async function train<B extends Backend>(backend: B, optimizer: Optimizer<B>, counted?: { submit(r: OpRecord): void }, twice = false): Promise<{ values: number[][]; ops: Map<string, number> }> {
  const ops = new Map<string, number>();
  // `twice`: each parameter twice over (two of each shape, the same values and gradients).
  const m = new Params([...SHAPES, ...(twice ? SHAPES : [])].map((shape, k) => new Param(fromData(backend, values(size(shape), 100 + (k % SHAPES.length)), { shape }))));
  let counting = false;
  let restore = (): void => {};
  if (counted) {
    const submit = counted.submit.bind(counted);
    counted.submit = (r) => {
      if (counting) ops.set(r.op, (ops.get(r.op) ?? 0) + 1);
      submit(r);
    };
    restore = () => void (counted.submit = submit);
  }
  try {
    for (let t = 1; t <= STEPS; t++) {
      const grads = new ParamGrads<B>();
      m.ps.forEach((p, k) => grads.set(p.id, fromData(backend, values(p.value.size, 1000 * t + (k % SHAPES.length)), { shape: p.value.shape })));
      counting = true;
      optimizer.step(m, grads);
      // A Fusion decorator hands its groups on at the end of the turn: counted with the step.
      await new Promise((resolve) => setImmediate(resolve));
      counting = false;
      grads.dispose();
    }
  } finally {
    restore();
  }
  const out = await Promise.all(m.ps.map(async (p) => Array.from((await p.value.toData()).values)));
  m.dispose();
  optimizer.clear();
  return { values: out, ops };
}

function expectClose(actual: number[][], want: number[][], label: string): void {
  actual.forEach((got, k) =>
    want[k % want.length]!.forEach((v, i) => {
      const a = got[i]!;
      expect(Math.abs(a - v), `${label}, parameter ${k}[${i}]: ${a} vs ${v}`).toBeLessThan(3e-6 * Math.max(1, Math.abs(v)));
    }),
  );
}

// ---- CPU ----------------------------------------------------------------------------------------

describe('fused optimizer updates on the CPU', () => {
  const cpu = new Cpu({ threads: 0, runtime: new Runtime() });
  const ad = new Autodiff(cpu);
  afterAll(() => ad.close());

  for (const c of CASES) {
    it(`${c.name}: fused: false (op by op) and the default (these small parameters fused: one record each) both match float64`, async () => {
      const want = expected(c.rule);
      const fused = await train(ad, c.make(undefined), cpu);
      expectClose(fused.values, want, 'fused');
      expect(fused.ops.get('fused')).toBe(SHAPES.length * STEPS);
      expect([...fused.ops.keys()]).toEqual(['fused']);
      const each = await train(ad, c.make(false), cpu);
      expectClose(each.values, want, 'op by op');
      expect(each.ops.has('fused')).toBe(false);
    });
  }

  it("ASGD: one fused record per parameter besides eta's (a [1] tensor made after each step for the next), matching float64, fused or not", async () => {
    for (const [o, rule] of [
      [{}, asgd(0.01, 1e-4, 0.75, 1e6, 0)],
      [{ lr: 0.05, lambd: 0.1, alpha: 0.5, t0: 1, weightDecay: 0.1 }, asgd(0.05, 0.1, 0.5, 1, 0.1)],
    ] as const) {
      const want = expected(rule);
      const fused = await train(ad, new ASGD({ ...o }), cpu);
      expectClose(fused.values, want, 'fused');
      expect(fused.ops.get('fused')).toBe(SHAPES.length * STEPS);
      // eta: one 'full' per parameter and step, reshaped to broadcast from the second step on.
      expect([...fused.ops]).toEqual([['fused', SHAPES.length * STEPS], ['full', SHAPES.length * STEPS], ['reshape', SHAPES.length * (STEPS - 1)]]);
      expectClose((await train(ad, new ASGD({ ...o, fused: false }), cpu)).values, want, 'op by op');
    }
  });

  it('by default a parameter of more than 2048 values steps op by op on the CPU (its wasm passes beat the fused JS loop there), one of 2048 fused', async () => {
    const grads = new ParamGrads<typeof ad>();
    const big = new Param(fromData(ad, values(2049, 5)));
    const small = new Param(fromData(ad, values(2048, 6)));
    const m = new Params([big, small]);
    grads.set(big.id, fromData(ad, values(2049, 7)));
    grads.set(small.id, fromData(ad, values(2048, 8)));
    const ops: string[] = [];
    const submit = cpu.submit.bind(cpu);
    cpu.submit = (r) => {
      ops.push(r.op);
      submit(r);
    };
    try {
      new Adam<typeof ad>({ lr: 0.01 }).step(m, grads);
    } finally {
      cpu.submit = submit;
    }
    expect(ops.filter((o) => o === 'fused').length).toBe(1);
    expect(ops.length).toBeGreaterThan(10);
    const rule = adam(0.01, 0.9, 0.999, 1e-8, 0, false, false);
    const p0 = values(2049, 5);
    const g0 = values(2049, 7);
    const got = Array.from((await big.value.toData()).values);
    got.forEach((v, i) => expect(Math.abs(v - rule(p0[i]!, g0[i]!, {}, 1))).toBeLessThan(3e-6));
    grads.dispose();
    m.dispose();
  });

  it('float16 parameters update in float32 arithmetic (eps 1e-8 and a tiny second moment survive) and stay float16, fused or not', async () => {
    // In float16 arithmetic, eps rounds to 0 and (1 - 0.999) * 0.001^2 to 0: 0 / 0 and x / 0 (NaN, -inf).
    const p0 = [0.5, -0.25, 1];
    const g = [0, 1e-3, 0.5];
    const rule = adam(0.01, 0.9, 0.999, 1e-8, 0, false, false);
    const want = p0.map((p, i) => roundHalf(rule(roundHalf(p), roundHalf(g[i]!), {}, 1)));
    for (const fused of [true, false]) {
      const m = new Params([new Param(fromData(ad, p0, { dtype: 'float16' }))]);
      const grads = new ParamGrads<typeof ad>();
      grads.set(m.ps[0]!.id, fromData(ad, g, { dtype: 'float16' }));
      const optimizer = new Adam<typeof ad>({ lr: 0.01, fused });
      optimizer.step(m, grads);
      expect(m.ps[0]!.value.dtype).toBe('float16');
      expect(optimizer.stateTensors().map((t) => t.dtype)).toEqual(['float16', 'float16']);
      const got = Array.from((await m.ps[0]!.value.toData()).values);
      // Within one float16 step of the float64 result rounded to float16.
      got.forEach((v, i) => expect(Math.abs(v - want[i]!), `fused ${fused}, ${i}: ${v} vs ${want[i]}`).toBeLessThanOrEqual(2 ** -10 * Math.abs(want[i]!)));
      grads.dispose();
      m.dispose();
      optimizer.clear();
    }
  });

  it("an optimizer of one's own written with elementwiseUpdate (the README's) steps fused and op by op alike", async () => {
    class Heavy<B extends Backend> extends Optimizer<B> {
      readonly kind = 'heavy';
      readonly weightDecay = 0;
      protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number): Tensor<B, 'float'> {
        return this.elementwiseUpdate(p, g, state, (v) => {
          const m = (v.state('m') ?? v.g.mul(0)).mul(0.9).add(v.g);
          v.setState('m', m);
          return v.p.sub(m.mul(lr));
        });
      }
    }
    const rule: Rule = (p, g, st) => {
      st.m = 0.9 * (st.m ?? 0) + g;
      return p - 0.1 * st.m;
    };
    const want = expected(rule);
    for (const fused of [true, false]) {
      const r = await train(ad, new Heavy<typeof ad>(0.1, { fused }), cpu);
      expectClose(r.values, want, `fused ${fused}`);
      expect(r.ops.has('fused')).toBe(fused);
    }
  });

  it('fused must be a boolean, named at the constructor (also for untyped callers)', () => {
    const untyped: Record<string, unknown> = { lr: 0.1, fused: 'yes' };
    expect(() => new Adam(untyped)).toThrow(ArgumentError);
    expect(() => new Adam(untyped)).toThrow(/fused must be/);
    expect(new SGD({ lr: 0.1, fused: false }).fused).toBe(false);
    expect(new SGD({ lr: 0.1 }).fused).toBeUndefined();
  });
});

// ---- WebGPU and Fusion --------------------------------------------------------------------------

describeGpu('fused optimizer updates on WebGPU', () => {
  let wgpu: Wgpu;
  let ad: Autodiff<Wgpu>;
  let fusionInner: Wgpu;
  let fusion: Fusion<Wgpu>;
  let adFusion: Autodiff<Fusion<Wgpu>>;
  beforeAll(async () => {
    wgpu = new Wgpu({ runtime: new Runtime(), autotune: false });
    ad = new Autodiff(wgpu);
    fusionInner = new Wgpu({ runtime: new Runtime(), autotune: false });
    fusion = new Fusion(fusionInner);
    adFusion = new Autodiff(fusion);
  });
  afterAll(async () => {
    await ad.close();
    await adFusion.close();
  });

  for (const c of CASES) {
    it(`${c.name}: by default one 'fused' record per parameter, matching float64; fused: false matches too, op by op`, async () => {
      const want = expected(c.rule);
      const fused = await train(ad, c.make(undefined), wgpu);
      expectClose(fused.values, want, 'fused');
      expect([...fused.ops]).toEqual([['fused', SHAPES.length * STEPS]]);
      const each = await train(ad, c.make(false), wgpu);
      expectClose(each.values, want, 'op by op');
      expect(each.ops.has('fused')).toBe(false);
      // Per parameter and step, several records (Adam: over a dozen).
      expect([...each.ops.values()].reduce((a, n) => a + n, 0)).toBeGreaterThanOrEqual(2 * SHAPES.length * STEPS);
    });
  }

  it('Adam capturable (bias corrections from the step count on the device): one fused update per parameter, matching float64', async () => {
    const want = expected(adam(0.01, 0.9, 0.999, 1e-8, 0.05, true, true));
    const r = await train(ad, new AdamW<typeof ad>({ lr: 0.01, weightDecay: 0.05, amsgrad: true, capturable: true }), wgpu);
    expectClose(r.values, want, 'capturable');
    expect(r.ops.get('fused')).toBe(SHAPES.length * STEPS);
  });

  it('under Fusion, the optimizer hands over its ops one by one (Fusion joins same-shape parameters in one kernel); fused: true hands over one record per parameter', async () => {
    const c = CASES[0]!;
    const want = expected(c.rule);
    const joined = await train(adFusion, c.make(undefined), fusionInner, true);
    expectClose(joined.values, want, 'fusion, by default');
    // Two parameters of each shape: one kernel per shape.
    expect([...joined.ops]).toEqual([['fused', SHAPES.length * STEPS]]);
    const own = await train(adFusion, c.make(true), fusionInner, true);
    expectClose(own.values, want, 'fusion, fused: true');
    expect([...own.ops]).toEqual([['fused', 2 * SHAPES.length * STEPS]]);
  });
});

// ---- the program builder ------------------------------------------------------------------------

describe('ElementwiseProgram', () => {
  const cpu = new Cpu({ threads: 0, runtime: new Runtime() });
  afterAll(() => cpu.close());
  const x = () => fromData(cpu, [1, -2, 3, -4], { shape: [2, 2] });

  for (const fuse of [true, false]) {
    it(`${fuse ? 'fused' : 'op by op'}: outputs in the order asked, values as float64`, async () => {
      const a = x();
      const b = fromData(cpu, [0.5, 0.25, 2, 4], { shape: [2, 2] });
      const p = new ElementwiseProgram(a);
      const va = p.input(a);
      const vb = p.input(b);
      const s = va.mul(vb).add(1); // a*b + 1
      const q = s.square().sqrt().neg(); // -|a*b + 1|
      const r = va.sub(vb).div(2).maximum(0).minimum(1).abs(); // clamp((a-b)/2, 0, 1)
      const dead = va.mul(1000); // no output reads it: not computed
      void dead;
      const [t1, t2, t3] = p.run([q, s, r], fuse);
      expect(Array.from((await t1!.toData()).values)).toEqual([-1.5, -0.5, -7, -15]);
      expect(Array.from((await t2!.toData()).values)).toEqual([1.5, 0.5, 7, -15]);
      expect(Array.from((await t3!.toData()).values)).toEqual([0.25, 0, 0.5, 0]);
      for (const t of [a, b, t1!, t2!, t3!]) t.dispose();
    });
  }

  it('the same input twice is one input; an input as an output, one step twice, or a value of another program is refused', () => {
    const a = x();
    const p = new ElementwiseProgram(a);
    expect(p.input(a)).toBe(p.input(a));
    const v = p.input(a).add(1);
    expect(() => p.run([p.input(a)], true)).toThrow(ArgumentError);
    expect(() => p.run([v, v], true)).toThrow(/twice/);
    const other = new ElementwiseProgram(a);
    expect(() => v.add(other.input(a))).toThrow(/another program/);
    a.dispose();
  });

  it('untyped callers get typed errors: non-tensors, non-values, bad outputs; integer scalars are checked as the tensor methods check them', () => {
    const a = x();
    const p = new ElementwiseProgram(a);
    const v = p.input(a);
    const untyped = (f: unknown, self: unknown, ...args: unknown[]): unknown => Reflect.apply(f as (...a: unknown[]) => unknown, self, args);
    expect(() => untyped(v.add, v, null)).toThrow(ArgumentError);
    expect(() => untyped(v.mul, v, '2')).toThrow(/a number or a value/);
    expect(() => untyped(p.input, p, 3)).toThrow(ArgumentError);
    expect(() => untyped(p.run, p, undefined, true)).toThrow(ArgumentError);
    expect(() => untyped(p.run, p, [null], false)).toThrow(ArgumentError);
    expect(() => Reflect.construct(ElementwiseProgram, [undefined])).toThrow(ArgumentError);
    // Nothing asked for: nothing runs, fused or not.
    expect(p.run([], true)).toEqual([]);
    expect(p.run([], false)).toEqual([]);
    const ints = fromData(cpu, new Int32Array([1, 2, 3, 4]), { shape: [2, 2] });
    const q = new ElementwiseProgram(ints);
    const vi = q.input(ints);
    expect(() => vi.add(0.5)).toThrow(DTypeError);
    expect(() => vi.mul(1e10)).toThrow(DTypeError);
    a.dispose();
    ints.dispose();
  });

  it('cast steps follow Tensor.cast (float16 rounding, float to int truncation)', async () => {
    const a = fromData(cpu, [1.0009765625 + 2 ** -12, -2.7, 65520, 3.5], { shape: [2, 2] });
    for (const fuse of [true, false]) {
      const p = new ElementwiseProgram(a);
      const va = p.input(a);
      const [h, i] = p.run([va.cast('float16'), va.cast('int32')], fuse);
      expect(h!.dtype).toBe('float16');
      expect(Array.from((await h!.toData()).values)).toEqual([1.0009765625, -2.69921875, Infinity, 3.5]);
      expect(Array.from((await i!.toData()).values)).toEqual([1, -2, 65520, 3]);
      h!.dispose();
      i!.dispose();
    }
    a.dispose();
  });

  it('an input that broadcasts to the program (a [1] scale) is combined with full values; alone, or not broadcasting, it is a ShapeError', async () => {
    const a = x();
    const s1 = fromData(cpu, [2]);
    const row = fromData(cpu, [10, 20], { shape: [1, 2] });
    for (const fuse of [true, false]) {
      const p = new ElementwiseProgram(a);
      const va = p.input(a);
      const [t] = p.run([va.mul(p.input(s1)).add(p.input(row))], fuse);
      expect(Array.from((await t!.toData()).values)).toEqual([12, 16, 16, 12]);
      t!.dispose();
      expect(() => p.input(s1).mul(3)).toThrow(ShapeError);
    }
    const col3 = fromData(cpu, [1, 2, 3], { shape: [3, 1] });
    expect(() => new ElementwiseProgram(a).input(col3)).toThrow(/does not broadcast/);
    for (const t of [a, s1, row, col3]) t.dispose();
  });

  it('an input of another shape is a ShapeError; an op the dtype refuses is its own typed error', () => {
    const a = x();
    const p = new ElementwiseProgram(a);
    const wrong = fromData(cpu, [1, 2, 3]);
    expect(() => p.input(wrong)).toThrow(ShapeError);
    const ints = fromData(cpu, new Int32Array([1, 2, 3, 4]), { shape: [2, 2] });
    const q = new ElementwiseProgram(ints);
    expect(() => q.input(ints).sqrt()).toThrow(DTypeError);
    for (const t of [a, wrong, ints]) t.dispose();
  });
});
