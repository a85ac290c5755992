/** Optimizer state files (lr, schedulers, all or nothing) and checkpoints after an early stop. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { TensorDataset } from '../../src/data/dataset.js';
import { hostTensor } from '../../src/data/host-tensor.js';
import { DataLoader } from '../../src/data/loader.js';
import { ArgumentError } from '../../src/errors.js';
import { tidy } from '../../src/memory/tidy.js';
import { Linear } from '../../src/nn/linear.js';
import { mseLoss } from '../../src/nn/loss.js';
import { Adam } from '../../src/optim/adam.js';
import { CosineLR, StepLR } from '../../src/optim/lr-scheduler.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { SGD } from '../../src/optim/sgd.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Callback } from '../../src/train/callback.js';
import { Checkpoint, loadOptimizerState, saveOptimizerState } from '../../src/train/checkpoint.js';
import { fit } from '../../src/train/fit.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
type AD = typeof ad;

function model(): Linear<AD> {
  ad.seed(1);
  return new Linear(ad, 2, 1);
}

function steps(m: Linear<AD>, opt: SGD<AD> | Adam<AD>, n: number): void {
  for (let i = 0; i < n; i++) {
    tidy(() => {
      const loss = m.forward(fromData(ad, [[1, -1]])).sum();
      opt.step(m, ParamGrads.from(loss.backward(), m));
    });
  }
}

describe('optimizer state files', () => {
  it("saves the optimizer's lr as set, and restores it (torch saves param_groups' lr)", async () => {
    const m = model();
    const opt = new SGD<AD>({ lr: 0.1, momentum: 0.9 });
    steps(m, opt, 1);
    opt.lr = 0.001;
    const bytes = await saveOptimizerState(opt);
    const other = new SGD<AD>({ lr: 0.1, momentum: 0.9 });
    loadOptimizerState(other, m, bytes);
    expect(other.lr).toBe(0.001);
  });

  it('refuses a scheduler of another kind before loading any parameter state', async () => {
    const m = model();
    const opt = new Adam<AD>({ lr: 0.1, scheduler: new StepLR({ stepSize: 2, gamma: 0.5 }) });
    steps(m, opt, 3);
    const bytes = await saveOptimizerState(opt);
    const other = new Adam<AD>({ lr: 0.5, scheduler: new CosineLR({ totalSteps: 10 }) });
    expect(() => loadOptimizerState(other, m, bytes)).toThrow(/scheduler state of kind 'step' cannot load into cosine/);
    expect((await other.state()).params).toEqual({});
    expect(other.lr).toBe(0.5);
  });

  it('refuses scheduler state for an optimizer without a scheduler, instead of dropping it', async () => {
    const m = model();
    const opt = new Adam<AD>({ lr: 0.1, scheduler: new StepLR({ stepSize: 2, gamma: 0.5 }) });
    steps(m, opt, 3);
    const bytes = await saveOptimizerState(opt);
    const other = new Adam<AD>({ lr: 0.1 });
    expect(() => loadOptimizerState(other, m, bytes)).toThrow(ArgumentError);
    expect(() => loadOptimizerState(other, m, bytes)).toThrow(/loadOptimizerState: the file holds the state of a 'step' scheduler, and this optimizer has none/);
    expect((await other.state()).params).toEqual({});
  });
});

describe('Checkpoint', () => {
  it('saves the last epoch run after an early stop, as its every-N rule promises', async () => {
    const ds = new TensorDataset({ x: hostTensor(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), [4, 2]), y: hostTensor(Float32Array.from([1, 0, 1, 0]), [4, 1]) });
    const names: string[] = [];
    const checkpoint = new Checkpoint<AD, Linear<AD>>({ every: 3, optimizer: false, save: (name) => void names.push(name) });
    // Placed after the checkpoint: it stops in epoch 5's onEpochEnd, once the checkpoint has passed.
    const stopper: Callback<AD, Linear<AD>> = { onEpochEnd: (ctx, logs) => (logs.epoch === 5 ? ctx.stop('enough') : undefined) };
    const result = await fit({
      model: model(),
      optimizer: new SGD<AD>({ lr: 0.01 }),
      train: new DataLoader(ds, { batchSize: 2 }),
      epochs: 10,
      progress: false,
      step: (m, b) => mseLoss(m.forward(b.x), b.y),
      callbacks: [checkpoint, stopper],
    });
    expect(result.stopReason).toBe('enough');
    expect(names).toEqual(['epoch-3.model.safetensors', 'epoch-5.model.safetensors']);
  });
});
