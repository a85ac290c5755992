/**
 * Trains an MLP (784-256-10) on the `mnist` package's digits (8,000 to train, 1,756 to test)
 * with fit(): minibatches shifted by up to 2 pixels, Adam with a linear decay to a tenth,
 * dropout, a progress bar, and a safetensors checkpoint that is reloaded and checked.
 *
 *   npx tsx examples/train-mlp.ts [--device cpu|wgpu|router:wgpu|router:cpu] [--epochs 12]
 *     [--batch 64] [--lr 0.003] [--hidden 256] [--threads N] [--seed 1] [--out DIR]
 *
 * `router:<d>` runs on a Router<[Wgpu, Cpu]> with the model on device d.
 */
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Autodiff } from '../src/autodiff/autodiff.js';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import { DataLoader } from '../src/data/loader.js';
import type { Device } from '../src/devices/device.js';
import { Relu } from '../src/nn/activation.js';
import { Dropout } from '../src/nn/dropout.js';
import { Linear } from '../src/nn/linear.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Sequential } from '../src/nn/sequential.js';
import { Adam } from '../src/optim/adam.js';
import { LinearLR } from '../src/optim/lr-scheduler.js';
import { loadModule } from '../src/record/module.js';
import { Router } from '../src/router/router.js';
import { Checkpoint } from '../src/train/checkpoint.js';
import { evaluate, fit } from '../src/train/fit.js';
import { Accuracy } from '../src/train/metrics.js';
import { mnist } from './mnist-data.js';

const { values: args } = parseArgs({
  options: {
    device: { type: 'string', default: 'cpu' },
    epochs: { type: 'string', default: '12' },
    batch: { type: 'string', default: '64' },
    lr: { type: 'string', default: '0.003' },
    hidden: { type: 'string', default: '256' },
    dropout: { type: 'string', default: '0.2' },
    shift: { type: 'string', default: '2' },
    threads: { type: 'string' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: join(tmpdir(), 'switchyard-train-mlp') },
  },
});
const EPOCHS = Number(args.epochs);
const SEED = Number(args.seed);

// ---- the model and the data -------------------------------------------------------------------

function mlp<B extends Backend>(backend: B, device: Device): Sequential<B> {
  const hidden = Number(args.hidden);
  return new Sequential(new Linear(backend, 784, hidden, { device }), new Relu(), new Dropout(Number(args.dropout)), new Linear(backend, hidden, 10, { device }));
}

const train = new DataLoader(mnist({ split: 'train', flat: true, shift: Number(args.shift), seed: SEED }), { batchSize: Number(args.batch), shuffle: true, seed: SEED });
const test = new DataLoader(mnist({ split: 'test', flat: true }), { batchSize: 500 });

// ---- where it runs ----------------------------------------------------------------------------

async function makeBackend(spec: string): Promise<{ inner: Backend & { close(): Promise<void> }; device: Device }> {
  const threads = args.threads === undefined ? {} : { threads: Number(args.threads) };
  if (spec === 'cpu') {
    const cpu = new Cpu(threads);
    return { inner: cpu, device: cpu.defaultDevice() };
  }
  const { Wgpu } = await import('../src/backends/wgpu/backend.js');
  const wgpu = await Wgpu.create();
  if (spec === 'wgpu') return { inner: wgpu, device: wgpu.defaultDevice() };
  if (spec.startsWith('router:')) {
    const router = new Router([wgpu, new Cpu(threads)]);
    return { inner: router, device: router.parseDevice(spec.slice('router:'.length)) };
  }
  throw new Error(`unknown --device '${spec}' (cpu, wgpu, router:wgpu, router:cpu)`);
}

// ---- training ---------------------------------------------------------------------------------

const t0 = performance.now();
const { inner, device } = await makeBackend(args.device ?? 'cpu');
const backend = new Autodiff(inner);
backend.seed(SEED);
const model = mlp(backend, device);
const optimizer = new Adam<typeof backend>({ lr: Number(args.lr), scheduler: new LinearLR({ totalSteps: EPOCHS * train.length, endFactor: 0.1 }) });
console.log(`${backend.name} on ${device.key}: MLP 784-${args.hidden}-10 (${model.numParams().toLocaleString()} parameters), ${train.dataset.length} training / ${test.dataset.length} test digits`);

const checkpoints = new Checkpoint({ dir: args.out, every: EPOCHS, optimizer: false });
const { history } = await fit({
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
  callbacks: [checkpoints],
  device,
});
const accuracy = history[history.length - 1]!.valid!.accuracy!;
const seconds = history.reduce((s, h) => s + h.seconds, 0);
console.log(`test accuracy: ${(100 * accuracy).toFixed(2)}% on ${test.dataset.length} digits (training and testing took ${seconds.toFixed(1)} s)`);

// The last checkpoint, read back into a fresh model, must give the same test accuracy.
const file = join(args.out!, checkpoints.written[0]!);
const restored = loadModule(mlp(backend, device), new Uint8Array(await readFile(file)));
const again = await evaluate({
  model: restored,
  data: test,
  step: (m, b) => {
    const output = m.forward(b.x);
    return { loss: crossEntropy(output, b.y), output, target: b.y };
  },
  metrics: [new Accuracy()],
  device,
});
console.log(`checkpoint ${file}: reloaded, test accuracy ${(100 * again.accuracy!).toFixed(2)}%${again.accuracy === accuracy ? ' (identical)' : ' (DIFFERS)'}`);
console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
await backend.close();
if (again.accuracy !== accuracy) process.exitCode = 1;
