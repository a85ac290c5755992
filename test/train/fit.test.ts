/** fit(): the same parameters as a hand-written loop, metrics, callbacks, checkpoints, early stopping, schedules. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { TensorDataset } from '../../src/data/dataset.js';
import { hostTensor, toTensors } from '../../src/data/host-tensor.js';
import { DataLoader } from '../../src/data/loader.js';
import { tidy } from '../../src/memory/tidy.js';
import { Linear } from '../../src/nn/linear.js';
import { crossEntropy } from '../../src/nn/loss.js';
import { Adam } from '../../src/optim/adam.js';
import { ReduceLROnPlateau } from '../../src/optim/lr-scheduler.js';
import { ArgumentError } from '../../src/errors.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { SGD } from '../../src/optim/sgd.js';
import { loadModule } from '../../src/record/module.js';
import { decodeSafetensors, encodeSafetensors } from '../../src/record/safetensors.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Callback } from '../../src/train/callback.js';
import { Checkpoint, loadOptimizerState, saveOptimizerState } from '../../src/train/checkpoint.js';
import { EarlyStopping } from '../../src/train/early-stopping.js';
import { evaluate, fit } from '../../src/train/fit.js';
import { Accuracy } from '../../src/train/metrics.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
type AD = typeof ad;

/** Three well separated clusters in 2-D, 10 points each, labels 0..2. */
function clusters() {
  const x = new Float32Array(60);
  const y = new Int32Array(30);
  const centres = [[2, 0], [-2, 1], [0, -2]];
  for (let i = 0; i < 30; i++) {
    const c = i % 3;
    x[2 * i] = centres[c]![0]! + Math.sin(i * 1.7) * 0.4;
    x[2 * i + 1] = centres[c]![1]! + Math.cos(i * 2.3) * 0.4;
    y[i] = c;
  }
  return new TensorDataset({ x: hostTensor(x, [30, 2]), y: hostTensor(y) });
}

const data = clusters();
const loader = () => new DataLoader(data, { batchSize: 8, shuffle: true, seed: 3 });

function freshModel(): Linear<AD> {
  ad.seed(5);
  return new Linear(ad, 2, 3);
}

async function params(m: Linear<AD>): Promise<number[]> {
  return [...(await m.weight.value.toData()).values, ...(await m.bias!.value.toData()).values];
}

const quiet = { progress: false } as const;

describe('fit', () => {
  it('updates the parameters exactly as the README loop does (ParamGrads.from, optimizer.step)', async () => {
    const a = freshModel();
    const b = freshModel();
    expect(await params(a)).toEqual(await params(b));
    const result = await fit({ model: a, optimizer: new Adam<AD>({ lr: 0.05 }), train: loader(), epochs: 3, step: (m, batch) => crossEntropy(m.forward(batch.x), batch.y), ...quiet });
    const opt = new Adam<AD>({ lr: 0.05 });
    const manual = loader();
    for (let e = 0; e < 3; e++) {
      for await (const batch of manual) {
        tidy(() => {
          const t = toTensors(ad, batch);
          const loss = crossEntropy(b.forward(t.x), t.y);
          opt.step(b, ParamGrads.from(loss.backward(), b));
        });
      }
    }
    expect(await params(a)).toEqual(await params(b));
    expect(result.history.map((h) => h.epoch)).toEqual([1, 2, 3]);
    expect(result.stopReason).toBeUndefined();
  });

  it('logs the batch-size-weighted mean loss and accuracy, for training and validation', async () => {
    const model = freshModel();
    const sizes: number[] = [];
    const result = await fit({
      model,
      optimizer: new SGD<AD>({ lr: 0 }),
      train: loader(),
      valid: new DataLoader(data, { batchSize: 30 }),
      epochs: 1,
      step: (m, batch) => {
        const output = m.forward(batch.x);
        const loss = crossEntropy(output, batch.y);
        sizes.push(batch.y.shape[0]!);
        return { loss, output, target: batch.y };
      },
      metrics: [new Accuracy()],
      ...quiet,
    });
    const logs = result.history[0]!;
    expect(Object.keys(logs.train)).toEqual(['loss', 'accuracy']);
    // With lr 0 the model is fixed: validation over the whole set in one batch is the reference.
    const x = fromData(ad, data.tensors.x.data, { shape: [30, 2] });
    const y = fromData(ad, data.tensors.y.data);
    const logits = model.forward(x);
    const ref = await crossEntropy(logits, y).item();
    const acc = (await logits.argmax(1).equal(y).cast('int32').sum().item()) / 30;
    expect(logs.valid!.loss).toBeCloseTo(ref, 5);
    expect(logs.train.loss).toBeCloseTo(ref, 5);
    expect(logs.valid!.accuracy).toBeCloseTo(acc, 12);
    expect(logs.train.accuracy).toBeCloseTo(acc, 12);
    expect(sizes).toEqual([8, 8, 8, 6, 30]);
    expect(logs.lr).toBe(0);
  });

  it('evaluate() runs one pass without gradients in eval mode and leaves the model training', async () => {
    const model = freshModel();
    const logs = await evaluate({ model, data: new DataLoader(data, { batchSize: 7 }), step: (m, b) => { const output = m.forward(b.x); return { loss: crossEntropy(output, b.y), output, target: b.y }; }, metrics: [new Accuracy()] });
    const x = fromData(ad, data.tensors.x.data, { shape: [30, 2] });
    const y = fromData(ad, data.tensors.y.data);
    expect(logs.loss).toBeCloseTo(await crossEntropy(model.forward(x), y).item(), 5);
    expect(Object.keys(logs)).toEqual(['loss', 'accuracy']);
    expect(model.training).toBe(true);
  });

  it('learns the clusters', async () => {
    const model = freshModel();
    const { history } = await fit({ model, optimizer: new Adam<AD>({ lr: 0.1 }), train: loader(), epochs: 15, step: (m, b) => { const output = m.forward(b.x); return { loss: crossEntropy(output, b.y), output, target: b.y }; }, metrics: [new Accuracy()], ...quiet });
    expect(history[14]!.train.accuracy).toBe(1);
    expect(history[14]!.train.loss).toBeLessThan(history[0]!.train.loss!);
  });

  it('calls the callbacks in order', async () => {
    const calls: string[] = [];
    const cb: Callback<AD, Linear<AD>> = {
      onFitStart: () => void calls.push('fitStart'),
      onEpochStart: (ctx) => void calls.push(`epochStart ${ctx.epoch}`),
      onBatchEnd: (_ctx, b) => void calls.push(`${b.phase} ${b.batch}/${b.batches}`),
      onEpochEnd: (ctx, logs) => void calls.push(`epochEnd ${logs.epoch} steps ${ctx.steps}`),
      onFitEnd: () => void calls.push('fitEnd'),
    };
    await fit({ model: freshModel(), optimizer: new SGD<AD>({ lr: 0.1 }), train: new DataLoader(data, { batchSize: 16 }), valid: new DataLoader(data, { batchSize: 30 }), epochs: 2, step: (m, b) => crossEntropy(m.forward(b.x), b.y), callbacks: [cb], ...quiet });
    expect(calls).toEqual(['fitStart', 'epochStart 1', 'train 1/2', 'train 2/2', 'valid 1/1', 'epochEnd 1 steps 2', 'epochStart 2', 'train 1/2', 'train 2/2', 'valid 1/1', 'epochEnd 2 steps 4', 'fitEnd']);
  });

  it('prints a line per epoch (and redraws a bar on a terminal)', async () => {
    const lines: string[] = [];
    await fit({ model: freshModel(), optimizer: new SGD<AD>({ lr: 0.1 }), train: loader(), epochs: 2, step: (m, b) => crossEntropy(m.forward(b.x), b.y), progress: { write: (t) => void lines.push(t), tty: false } });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^epoch 1\/2 {2}loss \d\.\d{4} {2}lr 0\.100 {2}\d+\.\ds\n$/);
    const tty: string[] = [];
    await fit({ model: freshModel(), optimizer: new SGD<AD>({ lr: 0.1 }), train: loader(), epochs: 1, step: (m, b) => crossEntropy(m.forward(b.x), b.y), progress: { write: (t) => void tty.push(t), tty: true, width: 4 } });
    expect(tty[0]).toMatch(/^\r\x1b\[2Kepoch 1\/1 █░░░ 1\/4 {2}loss /);
    expect(tty).toHaveLength(5);
  });
});

describe('callbacks', () => {
  it('EarlyStopping stops after `patience` epochs without improvement and restores the best parameters', async () => {
    const model = freshModel();
    const saved = new Map<string, Uint8Array>();
    const stopper = new EarlyStopping({ monitor: 'train.loss', patience: 2, restoreBest: true });
    // Gradient ascent: the loss gets worse every epoch, so epoch 1 stays the best.
    const result = await fit({
      model,
      optimizer: new SGD<AD>({ lr: -0.5 }),
      train: loader(),
      epochs: 10,
      step: (m, b) => crossEntropy(m.forward(b.x), b.y),
      callbacks: [stopper, new Checkpoint({ save: (name, bytes) => void saved.set(name, bytes), optimizer: false })],
      ...quiet,
    });
    expect(result.history).toHaveLength(3);
    expect(stopper.bestEpoch).toBe(1);
    expect(stopper.stoppedEpoch).toBe(3);
    expect(result.stopReason).toMatch(/train.loss has not improved for 2 epochs \(best .* at epoch 1\)/);
    const epoch1 = loadModule(freshModel(), saved.get('epoch-1.model.safetensors')!);
    expect(await params(model)).toEqual(await params(epoch1));
  });

  it('EarlyStopping names what the logs hold when the monitor is missing', async () => {
    const run = fit({ model: freshModel(), optimizer: new SGD<AD>({ lr: 0.1 }), train: loader(), epochs: 2, step: (m, b) => crossEntropy(m.forward(b.x), b.y), callbacks: [new EarlyStopping()], ...quiet });
    await expect(run).rejects.toThrow(/EarlyStopping watches 'valid.loss', which the logs lack; hint: logged: train.loss/);
  });

  it('Checkpoint every 2 epochs (and the last) saves model and optimizer; resuming gives the uninterrupted result', async () => {
    const saved = new Map<string, Uint8Array>();
    const full = freshModel();
    await fit({ model: full, optimizer: new Adam<AD>({ lr: 0.05 }), train: loader(), epochs: 5, step: (m, b) => crossEntropy(m.forward(b.x), b.y), callbacks: [new Checkpoint({ every: 2, save: (n, bytes) => void saved.set(n, bytes) })], ...quiet });
    expect([...saved.keys()]).toEqual(['epoch-2.model.safetensors', 'epoch-2.optim.safetensors', 'epoch-4.model.safetensors', 'epoch-4.optim.safetensors', 'epoch-5.model.safetensors', 'epoch-5.optim.safetensors']);
    // Resume from epoch 4: same loader position (epochs 0-3 consumed), restored optimizer state.
    const resumed = loadModule(freshModel(), saved.get('epoch-4.model.safetensors')!);
    const opt = new Adam<AD>({ lr: 0.05 });
    loadOptimizerState(opt, resumed, saved.get('epoch-4.optim.safetensors')!);
    const l = loader();
    l.epoch = 4;
    await fit({ model: resumed, optimizer: opt, train: l, epochs: 1, step: (m, b) => crossEntropy(m.forward(b.x), b.y), ...quiet });
    expect(await params(resumed)).toEqual(await params(full));
    expect(() => new Checkpoint({})).toThrow(/needs a dir or a save function/);
  });

  it('feeds ReduceLROnPlateau with the validation loss', async () => {
    const scheduler = new ReduceLROnPlateau({ patience: 0, factor: 0.5 });
    const opt = new SGD<AD>({ lr: 0.2, scheduler });
    const result = await fit({ model: freshModel(), optimizer: opt, train: loader(), valid: new DataLoader(data, { batchSize: 30 }), epochs: 4, step: (m, b) => crossEntropy(m.forward(b.x), b.y), ...quiet });
    // Here the validation loss improves every epoch, so the rate stays.
    const improving = result.history.every((h, i) => i === 0 || h.valid!.loss! < result.history[i - 1]!.valid!.loss!);
    expect(improving).toBe(true);
    expect(opt.lastLr).toBe(0.2);
    const stuck = new ReduceLROnPlateau({ patience: 0, factor: 0.5 });
    const frozen = new SGD<AD>({ lr: 0.2, scheduler: stuck });
    // Logits times 0: the loss is log(3) whatever the parameters, so it never improves after epoch 1.
    await fit({ model: freshModel(), optimizer: frozen, train: loader(), valid: new DataLoader(data, { batchSize: 30 }), epochs: 3, step: (m, b) => crossEntropy(m.forward(b.x).mul(0), b.y), ...quiet });
    expect(frozen.lastLr).toBeCloseTo(0.1, 12);
    expect(stuck.peek(0.2)).toBeCloseTo(0.05, 12);
  });
});

describe('loadOptimizerState metadata', () => {
  /** An SGD with momentum and a plateau schedule after two steps on `model`, and its saved state. */
  async function saved(model: Linear<AD>) {
    const opt = new SGD<AD>({ lr: 0.1, momentum: 0.9, scheduler: new ReduceLROnPlateau({ patience: 0 }) });
    for (let i = 0; i < 2; i++) {
      tidy(() => {
        const loss = model.forward(fromData(ad, [[1, -1]])).sum();
        opt.step(model, ParamGrads.from(loss.backward(), model));
      });
    }
    return { opt, bytes: await saveOptimizerState(opt) };
  }

  /** The same file with one metadata entry replaced. */
  function withMetadata(bytes: Uint8Array, key: string, text: string): Uint8Array {
    const { tensors, metadata } = decodeSafetensors(bytes);
    return encodeSafetensors(tensors, { ...metadata, [key]: text });
  }

  it('names the metadata entry that is not JSON or not what saveOptimizerState writes (a SyntaxError before), and loads nothing', async () => {
    const model = freshModel();
    const { opt, bytes } = await saved(model);
    const fresh = (): SGD<AD> => new SGD<AD>({ lr: 0.1, momentum: 0.9, scheduler: new ReduceLROnPlateau({ patience: 0 }) });
    const cases: Array<[string, string, RegExp]> = [
      ['switchyard.steps', '{"a": 1', /^loadOptimizerState: the metadata 'switchyard.steps' is not valid JSON, got "\{\\"a\\": 1" \(a string\).*hint: the file is damaged or was not written by saveOptimizerState/],
      ['switchyard.scheduler', 'ReduceLROnPlateau', /^loadOptimizerState: the metadata 'switchyard.scheduler' is not valid JSON/],
      ['switchyard.steps', '[1, 2]', /the metadata 'switchyard.steps' must be an object of step counts, got an array of 2/],
      ['switchyard.steps', '{"w": "2"}', /the metadata 'switchyard.steps' gives parameter 'w' the step count "2" \(a string\)/],
      ['switchyard.steps', '{"w": -1}', /the metadata 'switchyard.steps' gives parameter 'w' the step count -1/],
      ['switchyard.scheduler', '7', /the metadata 'switchyard.scheduler' must be an object/],
      ['switchyard.scheduler', '{"kind": 3, "stepCount": 0}', /the metadata 'switchyard.scheduler' has kind 3/],
      ['switchyard.scheduler', '{"kind": "ReduceLROnPlateau", "stepCount": 1.5}', /the metadata 'switchyard.scheduler' has stepCount 1.5/],
      ['switchyard.scheduler', '{"kind": "ReduceLROnPlateau", "stepCount": 2, "extra": {"scale": "1"}}', /the metadata 'switchyard.scheduler' has extra.scale "1" \(a string\)/],
    ];
    for (const [key, text, message] of cases) {
      const target = fresh();
      const damaged = withMetadata(bytes, key, text);
      expect(() => loadOptimizerState(target, model, damaged), text).toThrow(ArgumentError);
      expect(() => loadOptimizerState(target, model, damaged), text).toThrow(message);
      // Refused before anything loaded: no parameter state, the schedule at its start.
      expect((await target.state()).params, text).toEqual({});
      expect(target.options.scheduler!.stepCount, text).toBe(0);
    }
    // The intact file loads, ReduceLROnPlateau's best included (Infinity, written by JSON as null, keeps the scheduler's own).
    const target = fresh();
    loadOptimizerState(target, model, bytes);
    expect(await target.state()).toEqual(await opt.state());
    expect(target.options.scheduler!.state()).toEqual(opt.options.scheduler!.state());
  });
});
