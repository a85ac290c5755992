/**
 * Trains a LeNet-style CNN with BatchNorm on the `mnist` package's digits (8,000 to train, 1,756
 * to test) with a WorkerDataLoader (batches made and augmented on a worker thread), Adam under a
 * one-cycle schedule, fit() with a progress bar, accuracy, checkpoints and early stopping; then
 * writes the model in PyTorch's state_dict layout.
 *
 *   npx tsx examples/train-cnn.ts [--epochs 12] [--batch 64] [--lr 0.004] [--shift 2] [--seed 1]
 *     [--device cpu|wgpu] [--threads N] [--out DIR] [--limit N (digits per split, for a quick run)]
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Autodiff } from '../src/autodiff/autodiff.js';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import { WorkerDataLoader } from '../src/data/worker-loader.js';
import type { Device } from '../src/devices/device.js';
import { Relu } from '../src/nn/activation.js';
import { BatchNorm1d, BatchNorm2d } from '../src/nn/batch-norm.js';
import { Conv2d } from '../src/nn/conv.js';
import { Dropout } from '../src/nn/dropout.js';
import { Flatten } from '../src/nn/flatten.js';
import { Linear } from '../src/nn/linear.js';
import { crossEntropy } from '../src/nn/loss.js';
import { MaxPool2d } from '../src/nn/pool.js';
import { Sequential } from '../src/nn/sequential.js';
import { Adam } from '../src/optim/adam.js';
import { OneCycleLR } from '../src/optim/lr-scheduler.js';
import { saveTorchStateDict } from '../src/record/torch.js';
import { Checkpoint } from '../src/train/checkpoint.js';
import { EarlyStopping } from '../src/train/early-stopping.js';
import { fit } from '../src/train/fit.js';
import { Accuracy } from '../src/train/metrics.js';
import type { DigitSample } from './mnist-data.js';

const { values: args } = parseArgs({
  options: {
    epochs: { type: 'string', default: '12' },
    batch: { type: 'string', default: '64' },
    lr: { type: 'string', default: '0.004' },
    shift: { type: 'string', default: '2' },
    seed: { type: 'string', default: '1' },
    device: { type: 'string', default: 'cpu' },
    threads: { type: 'string' },
    out: { type: 'string', default: join(tmpdir(), 'switchyard-train-cnn') },
    limit: { type: 'string' },
  },
});
const EPOCHS = Number(args.epochs);
const BATCH = Number(args.batch);
const SEED = Number(args.seed);

/** LeNet-5's shape (two 5x5 convolutions, 6 and 16 channels, 2x2 max pooling, 120-84-10) with BatchNorm after each layer but the last. */
function lenet<B extends Backend>(backend: B, device: Device): Sequential<B> {
  return new Sequential<B>(
    new Conv2d(backend, 1, 6, 5, { device, bias: false }), // 28 -> 24
    new BatchNorm2d(backend, 6, { device }),
    new Relu(),
    new MaxPool2d(2), // 24 -> 12
    new Conv2d(backend, 6, 16, 5, { device, bias: false }), // 12 -> 8
    new BatchNorm2d(backend, 16, { device }),
    new Relu(),
    new MaxPool2d(2), // 8 -> 4
    new Flatten(),
    new Linear(backend, 16 * 4 * 4, 120, { device, bias: false }),
    new BatchNorm1d(backend, 120, { device }),
    new Relu(),
    new Dropout(0.1),
    new Linear(backend, 120, 84, { device, bias: false }),
    new BatchNorm1d(backend, 84, { device }),
    new Relu(),
    new Linear(backend, 84, 10, { device }),
  );
}

async function makeBackend(): Promise<{ inner: Backend & { close(): Promise<void> }; name: string }> {
  if (args.device === 'wgpu') {
    const { Wgpu } = await import('../src/backends/wgpu/backend.js');
    return { inner: await Wgpu.create(), name: 'wgpu' };
  }
  return { inner: new Cpu(args.threads === undefined ? {} : { threads: Number(args.threads) }), name: 'cpu' };
}

type Batch = { x: DigitSample['x']; y: DigitSample['y'] };

async function main(): Promise<void> {
  const t0 = performance.now();
  // From sources (tsx) the dataset module is TypeScript; compiled (node dist/examples/train-cnn.js) it is JavaScript.
  const limit = args.limit === undefined ? {} : { limit: Number(args.limit) };
  const module = new URL(import.meta.url.endsWith('.ts') ? './mnist-data.ts' : './mnist-data.js', import.meta.url);
  const [train, test] = await Promise.all([
    WorkerDataLoader.create<Batch>({ module, export: 'mnist', args: { split: 'train', shift: Number(args.shift), seed: SEED, ...limit }, batchSize: BATCH, shuffle: true, seed: SEED }),
    WorkerDataLoader.create<Batch>({ module, export: 'mnist', args: { split: 'test', ...limit }, batchSize: 500 }),
  ]);
  const { inner } = await makeBackend();
  const backend = new Autodiff(inner);
  backend.seed(SEED);
  const device = backend.defaultDevice();
  const model = lenet(backend, device);
  const optimizer = new Adam<typeof backend>({ lr: Number(args.lr), scheduler: new OneCycleLR({ maxLr: Number(args.lr), totalSteps: EPOCHS * train.length }) });
  console.log(`${backend.name}: LeNet-5 with BatchNorm (${model.numParams().toLocaleString()} parameters), ${train.datasetLength} training / ${test.datasetLength} test digits, batch ${BATCH}, Adam with a one-cycle rate up to ${args.lr}`);

  const stopper = new EarlyStopping({ monitor: 'valid.accuracy', patience: 4 });
  const { history, stopReason } = await fit({
    model,
    optimizer,
    train,
    valid: test,
    epochs: EPOCHS,
    step: (m, batch) => {
      const output = m.forward(batch.x);
      return { loss: crossEntropy(output, batch.y), output, target: batch.y };
    },
    metrics: [new Accuracy()],
    callbacks: [stopper, new Checkpoint({ dir: args.out, every: 4 })],
  });
  await Promise.all([train.close(), test.close()]);

  const last = history[history.length - 1]!;
  const seconds = history.map((h) => h.seconds);
  const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
  if (stopReason) console.log(`stopped early: ${stopReason}`);
  console.log(`test accuracy: ${(100 * last.valid!.accuracy!).toFixed(2)}% on ${test.datasetLength} digits after ${history.length} epochs (best ${(100 * stopper.best).toFixed(2)}% at epoch ${stopper.bestEpoch})`);
  console.log(`time per epoch (training + test pass): mean ${mean.toFixed(1)} s, min ${Math.min(...seconds).toFixed(1)} s, max ${Math.max(...seconds).toFixed(1)} s`);
  const file = join(args.out!, 'lenet.pt.safetensors');
  await writeFile(file, await saveTorchStateDict(model, { accuracy: last.valid!.accuracy!.toFixed(4) }));
  console.log(`checkpoints in ${args.out}; PyTorch state_dict ${file}`);
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await backend.close();
}

await main();
