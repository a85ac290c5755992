/**
 * LBFGS's behaviour beside torch's trajectories (torch-trajectories.test.ts): the minimiser of a
 * convex quadratic against its float64 closed form, state round trips, typed errors for bad
 * options and closures, no tensors left behind, and the same runs on WebGPU.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { AutodiffBackend } from '../../src/autodiff/types.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { ArgumentError, ShapeError, SwitchyardError } from '../../src/errors.js';
import { Param } from '../../src/nn/param.js';
import { cubicInterpolate, LBFGS, type LBFGSOptions, type LBFGSRecord } from '../../src/optim/lbfgs.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { GradScaler } from '../../src/amp/grad-scaler.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { fromData } from '../../src/tensor/creation.js';
import { DataLoader } from '../../src/data/loader.js';
import { TensorDataset } from '../../src/data/dataset.js';
import { hostTensor } from '../../src/data/host-tensor.js';
import { loadOptimizerState, saveOptimizerState } from '../../src/train/checkpoint.js';
import { fit } from '../../src/train/fit.js';
import { describeGpu } from '../wgpu/gpu.js';
import { Params, QUAD_C, QUAD_W, setup, type Nested } from './lbfgs-problems.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
type AD = typeof ad;

/** Without a line search and with torch's strong Wolfe one. */
const SEARCHES: ReadonlyArray<LBFGSOptions['lineSearch']> = [undefined, 'strongWolfe'];

const flatten = (v: Nested): number[] => (typeof v === 'number' ? [v] : v.flatMap(flatten));

/**
 * The quadratic problem's minimiser in float64: sum w (v - c)^2 + (u.v)^2 / 2 with u = 1 for x and
 * Y, -1 for z, so (2W + u u^T) v = 2W c, solved by Gaussian elimination.
 */
function quadraticMinimiser(): number[] {
  const w = QUAD_W.flatMap(flatten);
  const c = QUAD_C.flatMap(flatten);
  const n = w.length;
  const u = w.map((_, i) => (i === n - 1 ? -1 : 1));
  const a = w.map((wi, i) => [...u.map((uj, j) => (i === j ? 2 * wi : 0) + u[i]! * uj), 2 * wi * c[i]!]);
  for (let k = 0; k < n; k++) {
    for (let i = k + 1; i < n; i++) {
      const f = a[i]![k]! / a[k]![k]!;
      for (let j = k; j <= n; j++) a[i]![j]! -= f * a[k]![j]!;
    }
  }
  const v = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = a[i]![n]!;
    for (let j = i + 1; j < n; j++) s -= a[i]![j]! * v[j]!;
    v[i] = s / a[i]![i]!;
  }
  return v;
}

async function values<B extends AutodiffBackend>(model: Params<B>): Promise<number[]> {
  return (await Promise.all(model.ps.map(async (p) => Array.from((await p.value.toData()).values)))).flat();
}

async function converges<B extends AutodiffBackend>(b: B, options: LBFGSOptions): Promise<void> {
  const { model, closure } = setup(b, 'quadratic');
  const opt = new LBFGS<B>(options);
  for (let i = 0; i < 3; i++) await opt.step(model, closure);
  const got = await values(model);
  quadraticMinimiser().forEach((v, i) => expect(Math.abs(got[i]! - v), `element ${i}: ${got[i]} vs ${v}`).toBeLessThan(1e-4));
  opt.clear();
}

describe('LBFGS on a convex quadratic', () => {
  it('reaches the float64 closed-form minimiser, fixed step', () => converges(ad, { maxIter: 50 }));
  it('reaches it with the strong Wolfe line search', () => converges(ad, { maxIter: 50, lineSearch: 'strongWolfe' }));
  it('stops at once when the gradient is already below toleranceGrad (one evaluation, nothing moves)', async () => {
    const { model, closure } = setup(ad, 'quadratic');
    const opt = new LBFGS<AD>({ maxIter: 100, toleranceGrad: 1e-3 });
    await opt.step(model, closure);
    const before = await values(model);
    const evals = opt.evaluations;
    await opt.step(model, closure);
    expect(opt.evaluations).toBe(evals + 1);
    expect(await values(model)).toEqual(before);
    opt.clear();
  });
});

describe('LBFGS state', () => {
  it('round-trips through its record: a restored optimizer goes on exactly as the first', async () => {
    for (const lineSearch of SEARCHES) {
      const options: LBFGSOptions = { maxIter: 5, historySize: 3, lineSearch };
      const a = setup(ad, 'rosenbrock');
      const b = setup(ad, 'rosenbrock');
      const optA = new LBFGS<AD>(options);
      const optB = new LBFGS<AD>(options);
      await optA.step(a.model, a.closure);
      await optB.step(b.model, b.closure);
      const saved = await optB.state();
      expect(saved.kind).toBe('lbfgs');
      expect(saved.scalars.nIter).toBe(5);
      expect(saved.scalars.ro.length).toBeLessThanOrEqual(3);
      const names = Object.keys(saved.params[b.model.ps[0]!.id]!.tensors).sort();
      expect(names).toEqual(['d', 'prevFlatGrad', ...saved.scalars.ro.map((_, i) => `oldDirs.${i}`), ...saved.scalars.ro.map((_, i) => `oldStps.${i}`)].sort());
      optB.clear();
      const restored = new LBFGS<AD>(options);
      restored.loadState(saved, b.model);
      expect(restored.evaluations).toBe(optA.evaluations);
      for (let i = 0; i < 2; i++) {
        expect(await restored.step(b.model, b.closure)).toBe(await optA.step(a.model, a.closure));
        expect(await values(b.model)).toEqual(await values(a.model));
      }
      optA.clear();
      restored.clear();
    }
  });

  it('refuses a record of another kind, of other shapes, or of more pairs than historySize', async () => {
    const { model, closure } = setup(ad, 'rosenbrock');
    const opt = new LBFGS<AD>({ maxIter: 5, historySize: 4 });
    await opt.step(model, closure);
    const saved = await opt.state();
    const other = new LBFGS<AD>({ historySize: 2 });
    expect(() => other.loadState(saved, model)).toThrow(/more than historySize 2/);
    expect(() => opt.loadState({ ...saved, kind: 'adam' }, model)).toThrow(ArgumentError);
    const id = model.ps[0]!.id;
    const bad: LBFGSRecord = { ...saved, params: { ...saved.params, [id]: { step: 5, tensors: { ...saved.params[id]!.tensors, d: { shape: [2], dtype: 'float32', data: new Float32Array(2) } } } } };
    expect(() => opt.loadState(bad, model)).toThrow(ShapeError);
    // Nothing changed: the optimizer still steps from its own state.
    expect(opt.iterations).toBe(5);
    // A bad scalar is found before anything changes too.
    expect(() => opt.loadState({ ...saved, scalars: { ...saved.scalars, nIter: 999, t: Number.NaN } }, model)).toThrow(/scalars.t must be a number/);
    expect(opt.iterations).toBe(5);
    // Iterations without the tensors that go with them: refused, not a TypeError at the next step.
    expect(() => opt.loadState({ ...saved, params: {} }, model)).toThrow(/no parameter tensors/);
    expect(opt.iterations).toBe(5);
    const elsewhere = setup(ad, 'rosenbrock');
    expect(() => opt.loadState(saved, elsewhere.model)).toThrow(/does not cover every trainable parameter/);
    await expect(opt.step(elsewhere.model, elsewhere.closure)).rejects.toThrow(/another module's parameters/);
    opt.clear();
  });
});

describe('LBFGS errors', () => {
  const untyped = (o: Record<string, unknown>): LBFGSOptions => o;
  it.each([
    [{ lr: 0 }, /^LBFGS: lr must be a finite number > 0, got 0/],
    [{ maxIter: 0 }, /^LBFGS: maxIter must be an integer >= 1, got 0/],
    [{ maxEval: 2.5 }, /^LBFGS: maxEval must be an integer >= 1, got 2.5/],
    [{ historySize: 0 }, /^LBFGS: historySize must be an integer >= 1/],
    [{ toleranceGrad: -1 }, /^LBFGS: toleranceGrad must be a finite number >= 0/],
    [{ toleranceChange: NaN }, /^LBFGS: toleranceChange must be a finite number >= 0/],
    [{ lineSearch: 'strong_wolfe' }, /lineSearch must be 'strongWolfe' or left out.*hint: torch's 'strong_wolfe' is 'strongWolfe' here/],
    [{ max_iter: 5 }, /^LBFGS: unknown option 'max_iter'/],
  ])('options %o', (o, message) => {
    let caught: unknown;
    try {
      new LBFGS<AD>(untyped(o));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ArgumentError);
    expect(caught instanceof SwitchyardError && caught.op).toBe('LBFGS');
    expect(String(caught instanceof Error ? caught.message : caught)).toMatch(message);
  });

  it('a closure whose loss has more than one element is a ShapeError naming the shape', async () => {
    const { model } = setup(ad, 'rosenbrock');
    const opt = new LBFGS<AD>();
    await expect(opt.step(model, () => model.ps[0]!.value.mul(2))).rejects.toThrow(/LBFGS.step: the closure's loss must have one element, got shape \[3\].*hint: reduce it/);
    await expect(opt.step(model, () => model.ps[0]!.value.mul(2))).rejects.toBeInstanceOf(ShapeError);
  });

  it('a loss without a gradient path to the parameters is an ArgumentError with a hint', async () => {
    const { model } = setup(ad, 'rosenbrock');
    const opt = new LBFGS<AD>();
    const e = await opt.step(model, () => fromData(ad, [1.5], { shape: [] })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ArgumentError);
    expect(e instanceof ArgumentError && e.op).toBe('LBFGS.step');
    expect(e instanceof ArgumentError && e.hint).toMatch(/return \{ loss, grads \}/);
    expect(String(e)).toMatch(/no gradient path to the parameters/);
    await expect(opt.step(model, () => model.ps[0]!.value.detach().sum())).rejects.toThrow(/no gradient path/);
  });

  it('a closure returning something else, or no closure, is an ArgumentError', async () => {
    const { model } = setup(ad, 'rosenbrock');
    const opt = new LBFGS<AD>();
    // @ts-expect-error: an untyped caller's closure that returns a number
    await expect(opt.step(model, () => 1.5)).rejects.toThrow(/the closure must return the loss \(a one-element tensor\) or \{ loss, grads \}, got 1.5/);
    const grads = new ParamGrads<AD>();
    // @ts-expect-error: gradients where the closure goes (the other optimizers' step(model, grads))
    await expect(opt.step(model, grads)).rejects.toThrow(/the second argument must be a closure that recomputes the loss.*hint: L-BFGS evaluates the loss several times per step/);
    grads.dispose();
    expect(opt.evaluations).toBe(0);
  });
});

describe('LBFGS closures and parameters', () => {
  it('{ loss, grads } from the closure gives the same steps as the loss alone', async () => {
    const a = setup(ad, 'mlp');
    const b = setup(ad, 'mlp');
    const optA = new LBFGS<AD>({ maxIter: 6, lineSearch: 'strongWolfe' });
    const optB = new LBFGS<AD>({ maxIter: 6, lineSearch: 'strongWolfe' });
    for (let i = 0; i < 2; i++) {
      await optA.step(a.model, a.closure);
      await optB.step(b.model, () => {
        const loss = b.closure();
        return { loss, grads: ParamGrads.from(loss.backward(), b.model) };
      });
    }
    expect(await values(b.model)).toEqual(await values(a.model));
    optA.clear();
    optB.clear();
  });

  it('a closure that throws in the line search leaves the parameters at the last accepted point, not a trial one', async () => {
    const { model, closure } = setup(ad, 'rosenbrock');
    const start = await values(model);
    const opt = new LBFGS<AD>({ lineSearch: 'strongWolfe' });
    let calls = 0;
    const failing = (): ReturnType<typeof closure> => {
      // Call 1 is the step's first evaluation, call 2 the first trial of the line search.
      if (++calls === 2) throw new Error('data source gone');
      return closure();
    };
    await expect(opt.step(model, failing)).rejects.toThrow('data source gone');
    expect(await values(model)).toEqual(start);
  });

  it('a closure that throws later in the line search leaves no tensor behind', async () => {
    for (const [lr, failAt] of [[0.01, 3], [100, 3], [100, 4], [100, 5], [100, 6]] as const) {
      const { model, closure } = setup(ad, 'rosenbrock');
      const before = ad.memory().tensors;
      const opt = new LBFGS<AD>({ lr, lineSearch: 'strongWolfe' });
      let calls = 0;
      const failing = (): ReturnType<typeof closure> => {
        if (++calls === failAt) throw new Error('data source gone');
        return closure();
      };
      await expect(opt.step(model, failing)).rejects.toThrow('data source gone');
      opt.clear();
      expect(ad.memory().tensors, `lr ${lr}, failing at call ${failAt}`).toBe(before);
    }
  });

  it('stops its zoom at 1e-9 as torch, whatever toleranceChange is (torch does not pass it to the line search)', async () => {
    // f = (x - 100)^2 from 0 with a long first step: torch 1.13 reaches x = 100 in 3 evaluations.
    const x = new Param(fromData(ad, [0]));
    const model = new Params<AD>([x]);
    const opt = new LBFGS<AD>({ lr: 300, maxIter: 1, toleranceChange: 1000, lineSearch: 'strongWolfe' });
    await opt.step(model, () => x.value.sub(100).square().sum());
    expect(Array.from((await x.value.toData()).values)[0]).toBeCloseTo(100, 3);
    expect(opt.evaluations).toBe(3);
    opt.clear();
  });

  it('refuses a second step while one runs, and parameters other than float32', async () => {
    const { model, closure } = setup(ad, 'quadratic');
    const opt = new LBFGS<AD>({ maxIter: 3 });
    const first = opt.step(model, closure);
    await expect(opt.step(model, closure)).rejects.toThrow(/a step of this optimizer is still running/);
    await first;
    await opt.step(model, closure);
    opt.clear();
    const half = new Param(fromData(ad, [1, 2], { dtype: 'float16' }));
    await expect(new LBFGS<AD>().step(new Params<AD>([half]), () => half.value.cast('float32').square().sum())).rejects.toThrow(/LBFGS steps float32 parameters/);
  });

  it('leaves frozen parameters and those without a gradient as they are', async () => {
    const x = new Param(fromData(ad, [2, -1]));
    const frozen = new Param(fromData(ad, [3]), undefined, false);
    const unused = new Param(fromData(ad, [0.5, 0.25]));
    const model = new Params<AD>([x, frozen, unused]);
    const opt = new LBFGS<AD>({ maxIter: 10 });
    await opt.step(model, () => x.value.sub(frozen.value).square().sum());
    Array.from((await x.value.toData()).values).forEach((v) => expect(v).toBeCloseTo(3, 5));
    expect(Array.from((await frozen.value.toData()).values)).toEqual([3]);
    expect(Array.from((await unused.value.toData()).values)).toEqual([0.5, 0.25]);
    opt.clear();
  });

  it('frees what it makes: after clear() the live tensors are those before the first step', async () => {
    for (const lineSearch of SEARCHES) {
      const { model, closure } = setup(ad, 'mlp');
      const before = ad.memory().tensors;
      const opt = new LBFGS<AD>({ maxIter: 8, historySize: 3, lineSearch });
      for (let i = 0; i < 3; i++) await opt.step(model, closure);
      // The state: d, the last gradient and 3 pairs, one tensor each per parameter.
      expect(ad.memory().tensors - before).toBe(opt.stateTensors().length);
      expect(opt.stateTensors().length).toBe(4 * (2 + 2 * 3));
      opt.clear();
      expect(ad.memory().tensors).toBe(before);
    }
  });
});

describe('where LBFGS does not fit', () => {
  it('fit() and the optimizer checkpoint files refuse it with a typed error and a hint', async () => {
    const { model } = setup(ad, 'quadratic');
    const opt = new LBFGS<AD>();
    const batches = new DataLoader(new TensorDataset({ x: hostTensor(new Float32Array(4), [4, 1]) }), { batchSize: 2 });
    // @ts-expect-error: fit takes an Optimizer (a step with each batch's gradients)
    const fitted = fit({ model, optimizer: opt, train: batches, epochs: 1, progress: false, step: () => ({ loss: model.ps[2]!.value.square() }) });
    await expect(fitted).rejects.toThrow(/^fit: LBFGS cannot be used here: its step evaluates a closure several times.*hint: write the loop/);
    await expect(fitted).rejects.toBeInstanceOf(ArgumentError);
    // @ts-expect-error: saveOptimizerState takes an Optimizer (its state is tensors only)
    await expect(saveOptimizerState(opt)).rejects.toThrow(/^saveOptimizerState: LBFGS cannot be used here/);
    // @ts-expect-error: loadOptimizerState too
    expect(() => loadOptimizerState(opt, model, new Uint8Array(8))).toThrow(/^loadOptimizerState: LBFGS cannot be used here/);
    // @ts-expect-error: a GradScaler steps an Optimizer with the batch's unscaled gradients
    await expect(new GradScaler().step(opt, model, new ParamGrads<AD>())).rejects.toThrow(/^GradScaler.step: LBFGS cannot be used here/);
  });
});

describe("torch's _cubic_interpolate", () => {
  it('the minimiser of the cubic through two points, clamped; the midpoint without a real one', () => {
    // f(x) = x^3 - 3x: minimum at 1; from (0, 0, -3) and (2, 2, 9).
    expect(cubicInterpolate(0, 0, -3, 2, 2, 9)).toBeCloseTo(1, 12);
    expect(cubicInterpolate(2, 2, 9, 0, 0, -3)).toBeCloseTo(1, 12);
    expect(cubicInterpolate(0, 0, -3, 2, 2, 9, [1.5, 3])).toBe(1.5);
    // d1^2 < g1 g2: no real minimiser, the bounds' midpoint.
    expect(cubicInterpolate(0, 0, 2, 1, 1, 2)).toBe(0.5);
  });
});

describeGpu('LBFGS on WebGPU', () => {
  let wgpu: Autodiff<Wgpu>;
  beforeAll(() => {
    wgpu = new Autodiff(new Wgpu({ runtime: new Runtime(), autotune: false }));
  });
  afterAll(() => wgpu.close());

  it('reaches the quadratic minimiser, fixed step and strong Wolfe', async () => {
    await converges(wgpu, { maxIter: 50 });
    await converges(wgpu, { maxIter: 50, lineSearch: 'strongWolfe' });
  });

  it('takes the same steps as the CPU on the MLP (float rounding apart)', async () => {
    const gpu = setup(wgpu, 'mlp');
    const cpu = setup(ad, 'mlp');
    const options: LBFGSOptions = { maxIter: 6, historySize: 2, lineSearch: 'strongWolfe' };
    const optG = new LBFGS<Autodiff<Wgpu>>(options);
    const optC = new LBFGS<AD>(options);
    for (let i = 0; i < 2; i++) {
      expect(await optG.step(gpu.model, gpu.closure)).toBeCloseTo(await optC.step(cpu.model, cpu.closure), 5);
      expect(optG.evaluations).toBe(optC.evaluations);
    }
    const want = await values(cpu.model);
    (await values(gpu.model)).forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThan(1e-4));
    optG.clear();
    optC.clear();
  });
});
