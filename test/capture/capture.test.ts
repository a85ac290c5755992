/**
 * captureStep: a step recorded once on a WebGPU device and replayed. Replays must compute what
 * the same steps compute op by op (float64 reference for a linear model trained with SGD; the
 * eager path, bit for bit, for an MLP with and without Fusion), take new inputs through
 * setInput, and refuse what a replay cannot repeat, with typed errors.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { captureStep } from '../../src/capture/index.js';
import { ArgumentError, CaptureError, DTypeError, DeviceError } from '../../src/errors.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { tidy } from '../../src/memory/tidy.js';
import * as nn from '../../src/nn/index.js';
import { Adam, ParamGrads, SGD } from '../../src/optim/index.js';
import { fromData, random, Distribution } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { describeGpu } from '../wgpu/gpu.js';

let wgpu: Wgpu;
beforeAll(async () => {
  wgpu = await Wgpu.create();
});
afterAll(() => wgpu?.close());

function pattern(n: number, seed: number): Float32Array {
  let a = seed >>> 0;
  return Float32Array.from({ length: n }, () => ((a = (Math.imul(a, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1);
}

async function values(t: Tensor<Backend>): Promise<Float32Array> {
  return Float32Array.from((await t.toData()).values);
}

/** A 2-layer MLP whose parameters are set from fixed patterns (the same on every backend). */
function mlp<B extends Backend>(ad: B, sizes: readonly number[]): nn.Sequential<B> {
  const layers: Array<nn.Linear<B> | nn.Relu<B>> = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    layers.push(new nn.Linear(ad, sizes[i]!, sizes[i + 1]!));
    if (i + 2 < sizes.length) layers.push(new nn.Relu());
  }
  const model = new nn.Sequential(...layers);
  model.params().forEach((p, i) => p.set(tidy(() => fromData(ad, pattern(p.shape.reduce((a, b) => a * b, 1), 11 + i), { shape: p.shape }).mul(0.5))));
  return model;
}

interface MlpRun {
  readonly fused: boolean;
  readonly optimizer: 'SGD' | 'SGD with momentum' | 'Adam, capturable';
  readonly sizes: readonly number[];
  readonly batch: number;
  readonly steps: number;
}

/**
 * `steps` training steps of an MLP with fixed initial weights, op by op or as a capture (which
 * runs 2 or 3 of them) and replays: the last loss and the weights after.
 */
async function trainMlp(config: MlpRun, capture: boolean): Promise<{ loss: Float32Array; weights: Float32Array[]; dispatches: number }> {
  const { fused, optimizer, sizes, batch: B, steps } = config;
  const ad = new Autodiff(fused ? new Fusion(wgpu) : wgpu);
  const model = mlp(ad, sizes);
  const opt = optimizer === 'Adam, capturable' ? new Adam<typeof ad>({ lr: 0.01, capturable: true }) : new SGD<typeof ad>({ lr: 0.1, momentum: optimizer === 'SGD' ? 0 : 0.9 });
  const x = fromData(ad, pattern(B * sizes[0]!, 5), { shape: [B, sizes[0]!] });
  const y = fromData(ad, Int32Array.from({ length: B }, (_, i) => (i * 3) % sizes.at(-1)!));
  const step = () =>
    tidy(() => {
      const loss = nn.crossEntropy(model.forward(x), y);
      opt.step(model, ParamGrads.from(loss.backward(), model));
      return loss;
    });
  let loss: Float32Array;
  let dispatches = 0;
  if (capture) {
    const cap = await captureStep(ad, step, { state: () => [...model.params().map((p) => p.value), ...opt.stateTensors()] });
    // 2 runs, or 3 when the first made the optimizer's state (momentum, moments): its recording differs.
    expect(cap.capturedRuns).toBe(optimizer === 'SGD' ? 2 : 3);
    for (let i = cap.capturedRuns; i < steps; i++) await cap.run();
    await cap.sync();
    loss = await values(cap.outputs[0]!);
    dispatches = cap.dispatches;
    cap.dispose();
    cap.outputs[0]!.dispose();
  } else {
    let last: Tensor<typeof ad> | undefined;
    for (let i = 0; i < steps; i++) {
      last?.dispose();
      last = step();
    }
    loss = await values(last!);
    last!.dispose();
  }
  const weights = await Promise.all(model.params().map((p) => values(p.value)));
  for (const t of [x, y]) t.dispose();
  model.dispose();
  opt.clear();
  return { loss, weights, dispatches };
}

describeGpu('captureStep', () => {
  test('a linear model trained with SGD: capture + replays match a float64 reference step by step, with a new batch per step', async () => {
    const ad = new Autodiff(new Fusion(wgpu));
    const [B, D, O, lr] = [8, 5, 3, 0.05];
    const model = new nn.Linear(ad, D, O);
    const w0 = pattern(D * O, 3);
    const b0 = pattern(O, 4);
    model.weight.set(fromData(ad, w0, { shape: [D, O] }));
    model.bias!.set(fromData(ad, b0, { shape: [O] }));
    const distinct = Array.from({ length: 5 }, (_, s) => ({ x: pattern(B * D, 100 + s), t: pattern(B * O, 200 + s) }));
    // The capture runs the step twice on the first batch; each replay gets the next batch.
    const batches = [distinct[0]!, ...distinct];
    const x = fromData(ad, batches[0]!.x, { shape: [B, D] });
    const t = fromData(ad, batches[0]!.t, { shape: [B, O] });
    const opt = new SGD<typeof ad>({ lr });
    const cap = await captureStep(
      ad,
      () =>
        tidy(() => {
          const loss = model.forward(x).sub(t).square().mean();
          opt.step(model, ParamGrads.from(loss.backward(), model));
          return loss;
        }),
      { state: () => model.params().map((p) => p.value) },
    );
    // The float64 reference: loss of each step, weights after it.
    const W = Float64Array.from(w0);
    const bias = Float64Array.from(b0);
    const losses: number[] = [];
    for (const { x: xs, t: ts } of batches) {
      const r = new Float64Array(B * O);
      let loss = 0;
      for (let i = 0; i < B; i++) for (let o = 0; o < O; o++) {
        let s = bias[o]!;
        for (let d = 0; d < D; d++) s += xs[i * D + d]! * W[d * O + o]!;
        r[i * O + o] = s - ts[i * O + o]!;
        loss += r[i * O + o]! ** 2;
      }
      losses.push(loss / (B * O));
      const k = 2 / (B * O);
      for (let d = 0; d < D; d++) for (let o = 0; o < O; o++) {
        let g = 0;
        for (let i = 0; i < B; i++) g += xs[i * D + d]! * r[i * O + o]!;
        W[d * O + o] = W[d * O + o]! - lr * k * g;
      }
      for (let o = 0; o < O; o++) {
        let g = 0;
        for (let i = 0; i < B; i++) g += r[i * O + o]!;
        bias[o] = bias[o]! - lr * k * g;
      }
    }
    expect((await values(cap.outputs[0]!))[0]).toBeCloseTo(losses[1]!, 5);
    for (let s = 2; s < batches.length; s++) {
      await cap.setInput(x, batches[s]!.x);
      await cap.setInput(t, batches[s]!.t);
      await cap.run();
      expect((await values(cap.outputs[0]!))[0]).toBeCloseTo(losses[s]!, 5);
    }
    await cap.sync();
    const wGot = await values(model.weight.value);
    const bGot = await values(model.bias!.value);
    for (let i = 0; i < W.length; i++) expect(wGot[i]).toBeCloseTo(W[i]!, 5);
    for (let i = 0; i < bias.length; i++) expect(bGot[i]).toBeCloseTo(bias[i]!, 5);
    expect(cap.runs).toBe(batches.length - 2);
    cap.dispose();
    for (const p of [x, t, ...cap.outputs]) p.dispose();
    model.dispose();
  });

  for (const [fused, optimizer] of [[false, 'SGD'], [true, 'SGD'], [true, 'SGD with momentum'], [true, 'Adam, capturable']] as const) {
    test(`an MLP step on autodiff<${fused ? 'fusion<wgpu>' : 'wgpu'}>, ${optimizer}: the capture + replays give the weights and loss of 5 steps op by op, bit for bit`, async () => {
      const config: MlpRun = { fused, optimizer, sizes: [12, 16, 16, 4], batch: 10, steps: 5 };
      const eager = await trainMlp(config, false);
      const replayed = await trainMlp(config, true);
      expect(replayed.dispatches).toBeGreaterThan(0);
      expect(Array.from(replayed.loss)).toEqual(Array.from(eager.loss));
      replayed.weights.forEach((w, i) => expect(Array.from(w)).toEqual(Array.from(eager.weights[i]!)));
    });
  }

  test('property: for random layer sizes, batches, optimizers and compositions, capture + replays equal the eager steps bit for bit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          fused: fc.boolean(),
          optimizer: fc.constantFrom<MlpRun['optimizer']>('SGD', 'SGD with momentum', 'Adam, capturable'),
          sizes: fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 24 }), fc.integer({ min: 2, max: 7 })).map((t) => [...t]),
          batch: fc.integer({ min: 1, max: 12 }),
          steps: fc.integer({ min: 3, max: 5 }),
        }),
        async (config) => {
          const eager = await trainMlp(config, false);
          const replayed = await trainMlp(config, true);
          expect(Array.from(replayed.loss)).toEqual(Array.from(eager.loss));
          replayed.weights.forEach((w, i) => expect(Array.from(w)).toEqual(Array.from(eager.weights[i]!)));
        },
      ),
      { numRuns: 6, seed: 7 },
    );
  });

  test('a step that reads a value back, draws random numbers, or replaces state it does not declare is refused (CaptureError)', async () => {
    const ad = new Autodiff(wgpu);
    const model = mlp(ad, [4, 3]);
    const x = fromData(ad, pattern(8, 1), { shape: [2, 4] });
    const opt = new SGD<typeof ad>({ lr: 0.1 });
    const train = () =>
      tidy(() => {
        const loss = model.forward(x).square().mean();
        opt.step(model, ParamGrads.from(loss.backward(), model));
        return loss;
      });
    const before = wgpu.memory().tensors;
    await expect(captureStep(ad, train)).rejects.toThrow(/options.state does not list/);
    await expect(
      captureStep(ad, () => {
        const y = x.mul(2);
        void y.toData();
        return y;
      }),
    ).rejects.toThrow(/reads a tensor back/);
    await expect(captureStep(ad, () => x.add(random(ad, [2, 4], Distribution.Normal(0, 1))))).rejects.toBeInstanceOf(CaptureError);
    // Refused captures leave nothing pinned: the state can be captured properly afterwards.
    const cap = await captureStep(ad, train, { state: () => model.params().map((p) => p.value) });
    await cap.run();
    // A parameter replaced outside the step: the next replay would not see it.
    model.params()[0]!.set(fromData(ad, pattern(12, 9), { shape: [4, 3] }));
    await expect(cap.run()).rejects.toBeInstanceOf(CaptureError);
    cap.dispose();
    cap.outputs[0]!.dispose();
    x.dispose();
    model.dispose();
    await wgpu.runtime.scheduler.flush();
    expect(wgpu.memory().tensors).toBeLessThanOrEqual(before);
  });

  test('a step whose scalars change from step to step (Adam\'s bias correction, a learning-rate schedule) is refused: its two recordings differ', async () => {
    const ad = new Autodiff(wgpu);
    const model = mlp(ad, [4, 3]);
    const x = fromData(ad, pattern(8, 1), { shape: [2, 4] });
    const adam = new Adam<typeof ad>({ lr: 0.01 });
    const state = () => [...model.params().map((p) => p.value), ...adam.stateTensors()];
    const train = (opt: { step: (m: typeof model, g: ParamGrads<typeof ad>) => unknown }) => () =>
      tidy(() => {
        const loss = model.forward(x).square().mean();
        opt.step(model, ParamGrads.from(loss.backward(), model));
        return loss;
      });
    await expect(captureStep(ad, train(adam), { state })).rejects.toThrow(/does not repeat: kernel \d+ .* got other scalar parameters/);
    let lr = 0.1;
    const sgd = new SGD<typeof ad>({ lr });
    const decaying = { step: (m: typeof model, g: ParamGrads<typeof ad>) => sgd.step(m, g, (lr *= 0.9)) };
    await expect(captureStep(ad, train(decaying), { state: () => model.params().map((p) => p.value) })).rejects.toBeInstanceOf(CaptureError);
    // Fixed scalars capture.
    const fixed = await captureStep(ad, train(sgd), { state: () => model.params().map((p) => p.value) });
    fixed.dispose();
    fixed.outputs[0]!.dispose();
    x.dispose();
    model.dispose();
  });

  test('setInput takes only an input of the step, of its dtype and size; a non-WebGPU backend is an ArgumentError', async () => {
    const x = fromData(wgpu, pattern(6, 2), { shape: [2, 3] });
    const k = fromData(wgpu, Int32Array.from([1, 2, 3]));
    const unused = fromData(wgpu, [1, 2]);
    const cap = await captureStep(wgpu, () => [x.mul(3), k.add(1)]);
    await expect(cap.setInput(x, new Float32Array(5))).rejects.toBeInstanceOf(ArgumentError);
    await expect(cap.setInput(x, new Int32Array(6))).rejects.toBeInstanceOf(ArgumentError);
    await expect(cap.setInput(unused, new Float32Array(2))).rejects.toThrow(/does not read this tensor/);
    await expect(cap.setInput(cap.outputs[0]!, new Float32Array(6))).rejects.toBeInstanceOf(ArgumentError);
    const b = fromData(wgpu, [true, false]);
    const cb = await captureStep(wgpu, () => b.logicalNot());
    await expect(cb.setInput(b, new Float32Array(2))).rejects.toBeInstanceOf(DTypeError);
    cb.dispose();
    await cap.setInput(x, Float32Array.from([1, 2, 3, 4, 5, 6]));
    await cap.setInput(k, Int32Array.from([7, 8, 9]));
    await cap.run();
    expect(Array.from((await cap.outputs[0]!.toData()).values)).toEqual([3, 6, 9, 12, 15, 18]);
    expect(Array.from((await cap.outputs[1]!.toData()).values)).toEqual([8, 9, 10]);
    cap.dispose();
    for (const t of [x, k, unused, b, ...cap.outputs, ...cb.outputs]) t.dispose();
    const cpu = new Cpu({ threads: 0 });
    await expect(captureStep(cpu, () => fromData(cpu, [1]))).rejects.toBeInstanceOf(ArgumentError);
    await cpu.close();
  });

  test('an out-of-range index in a replay rejects sync() with the op\'s ArgumentError; the next sync after good data resolves', async () => {
    const table = fromData(wgpu, pattern(12, 4), { shape: [4, 3] });
    const idx = fromData(wgpu, Int32Array.from([0, 3]));
    const cap = await captureStep(wgpu, () => table.indexSelect(0, idx));
    await cap.sync();
    await cap.setInput(idx, Int32Array.from([1, 4]));
    await cap.run();
    await expect(cap.sync()).rejects.toThrow(/index 4 is out of range/);
    await cap.setInput(idx, Int32Array.from([2, 1]));
    await cap.run();
    await cap.sync();
    const rows = Array.from((await cap.outputs[0]!.toData()).values);
    const t = Array.from(pattern(12, 4));
    expect(rows).toEqual([...t.slice(6, 9), ...t.slice(3, 6)]);
    cap.dispose();
    for (const x of [table, idx, ...cap.outputs]) x.dispose();
  });

  test('a label past the classes in a replay of a loss names the loss, as outside a capture', async () => {
    const logits = fromData(wgpu, pattern(8, 5), { shape: [2, 4] });
    const labels = fromData(wgpu, Int32Array.from([0, 3]));
    const cap = await captureStep(wgpu, () => nn.crossEntropy(logits, labels));
    await cap.sync();
    await cap.setInput(labels, Int32Array.from([1, 6]));
    await cap.run();
    await expect(cap.sync()).rejects.toThrow('crossEntropy: target 6 is out of range for 4 classes (in gather)');
    await cap.setInput(labels, Int32Array.from([2, 1]));
    await cap.run();
    await cap.sync();
    cap.dispose();
    for (const x of [logits, labels, ...cap.outputs]) x.dispose();
  });

  test('a replay after its backend was closed is a DeviceError; after dispose() a KernelError', async () => {
    const own = await Wgpu.create();
    const x = fromData(own, [1, 2]);
    const cap = await captureStep(own, () => x.mul(2));
    await cap.run();
    expect(Array.from((await cap.outputs[0]!.toData()).values)).toEqual([2, 4]);
    await own.close();
    await expect(cap.run()).rejects.toBeInstanceOf(DeviceError);
    const y = fromData(wgpu, [1, 2]);
    const other = await captureStep(wgpu, () => y.add(1));
    other.dispose();
    await expect(other.run()).rejects.toThrow(/disposed/);
    for (const t of [y, ...other.outputs]) t.dispose();
  });

  test('a replay comes after eager work still buffered in Fusion; a step that picks its batch inside is refused; views and disposed steps are refused', async () => {
    const ad = new Autodiff(new Fusion(wgpu));
    const model = new nn.Linear(ad, 3, 2);
    model.weight.set(fromData(ad, pattern(6, 7), { shape: [3, 2] }));
    model.bias!.set(fromData(ad, pattern(2, 8), { shape: [2] }));
    const x = fromData(ad, pattern(12, 9), { shape: [4, 3] });
    const opt = new SGD<typeof ad>({ lr: 0.5 });
    const state = () => model.params().map((p) => p.value);
    const cap = await captureStep(
      ad,
      () =>
        tidy(() => {
          const loss = model.forward(x).square().mean();
          opt.step(model, ParamGrads.from(loss.backward(), model));
          return loss;
        }),
      { state },
    );
    // An evaluation made before the replay (its bias add still in a Fusion group) sees the weights before it.
    const W = await values(model.weight.value);
    const b = await values(model.bias!.value);
    const xe = pattern(3, 10);
    const xEval = fromData(ad, xe, { shape: [1, 3] });
    const e = model.forward(xEval);
    await cap.run();
    const got = await values(e);
    for (let o = 0; o < 2; o++) expect(got[o]).toBeCloseTo(b[o]! + xe[0]! * W[o]! + xe[1]! * W[2 + o]! + xe[2]! * W[4 + o]!, 5);
    // The weights did move.
    expect(Array.from(await values(model.weight.value))).not.toEqual(Array.from(W));
    await expect(cap.setInput(x.transpose(), new Float32Array(12))).rejects.toThrow(/strided view/);
    cap.dispose();
    await expect(cap.sync()).rejects.toThrow(/disposed/);
    for (const t of [e, xEval, ...cap.outputs]) t.dispose();
    // A batch chosen inside the step: the replay would repeat the last one forever.
    const batches = [fromData(ad, pattern(12, 1), { shape: [4, 3] }), fromData(ad, pattern(12, 2), { shape: [4, 3] }), fromData(ad, pattern(12, 3), { shape: [4, 3] })];
    let i = 0;
    await expect(
      captureStep(ad, () => tidy(() => {
        const loss = model.forward(batches[i++ % 3]!).square().mean();
        opt.step(model, ParamGrads.from(loss.backward(), model));
        return loss;
      }), { state }),
    ).rejects.toThrow(/reads another input the second time/);
    for (const t of [x, ...batches]) t.dispose();
    model.dispose();
  });

  test('dispose() gives every buffer back: the device holds no more bytes than before the capture once its tensors are freed', async () => {
    // A device of its own: tensors the earlier tests dropped without dispose() are freed by the
    // finalizer whenever GC runs, which would move the count on the shared device mid-test.
    const wgpu = await Wgpu.create();
    onTestFinished(() => wgpu.close());
    const before = wgpu.memory().bytes;
    const ad = new Autodiff(new Fusion(wgpu));
    const model = mlp(ad, [6, 8, 3]);
    const opt = new SGD<typeof ad>({ lr: 0.1, momentum: 0.9 });
    const x = fromData(ad, pattern(24, 3), { shape: [4, 6] });
    const y = fromData(ad, Int32Array.from([0, 1, 2, 1]));
    const cap = await captureStep(
      ad,
      () =>
        tidy(() => {
          const loss = nn.crossEntropy(model.forward(x), y);
          opt.step(model, ParamGrads.from(loss.backward(), model));
          return loss;
        }),
      { state: () => [...model.params().map((p) => p.value), ...opt.stateTensors()] },
    );
    for (let i = 0; i < 3; i++) await cap.run();
    await cap.sync();
    expect(wgpu.memory().bytes).toBeGreaterThan(before);
    cap.dispose();
    for (const t of [x, y, ...cap.outputs]) t.dispose();
    model.dispose();
    opt.clear();
    await wgpu.runtime.scheduler.flush();
    expect(wgpu.memory().bytes).toBe(before);
  });
});
