/**
 * A transformer encoder block learning a task that needs attention: given 8 digits, does the
 * first one appear again later in the sequence? Token and position embeddings, one
 * TransformerEncoderLayer (pre-norm), a linear head on the first position; trained with fit().
 *
 *   npx tsx examples/transformer-block.ts [--epochs 6] [--seed 1]
 */
import { parseArgs } from 'node:util';
import { Autodiff } from '../src/autodiff/autodiff.js';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import { TensorDataset } from '../src/data/dataset.js';
import { hostTensor } from '../src/data/host-tensor.js';
import { DataLoader } from '../src/data/loader.js';
import { mulberry32 } from '../src/data/shuffle.js';
import { tidy } from '../src/memory/tidy.js';
import { Embedding } from '../src/nn/embedding.js';
import { Linear } from '../src/nn/linear.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Module } from '../src/nn/module.js';
import { TransformerEncoderLayer } from '../src/nn/transformer.js';
import { AdamW } from '../src/optim/adam.js';
import { CosineLR } from '../src/optim/lr-scheduler.js';
import { arange } from '../src/tensor/creation.js';
import type { Tensor } from '../src/tensor/tensor.js';
import { fit } from '../src/train/fit.js';
import { Accuracy } from '../src/train/metrics.js';

const { values: args } = parseArgs({ options: { epochs: { type: 'string', default: '6' }, seed: { type: 'string', default: '1' } } });
const EPOCHS = Number(args.epochs);
const SEED = Number(args.seed);
const LENGTH = 8;
const DIM = 32;

/** Sequences of LENGTH digits, half of them with the first digit repeated somewhere after it. */
function sequences(n: number, seed: number): TensorDataset<{ x: ReturnType<typeof hostTensor<Int32Array>>; y: ReturnType<typeof hostTensor<Int32Array>> }> {
  const next = mulberry32(seed);
  const digit = () => Math.floor(next() * 10);
  const x = new Int32Array(n * LENGTH);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const row = x.subarray(i * LENGTH, (i + 1) * LENGTH);
    row[0] = digit();
    // The rest avoid the first digit, then one position may get it back.
    for (let j = 1; j < LENGTH; j++) row[j] = (row[0]! + 1 + Math.floor(next() * 9)) % 10;
    y[i] = next() < 0.5 ? 1 : 0;
    if (y[i]) row[1 + Math.floor(next() * (LENGTH - 1))] = row[0]!;
  }
  return new TensorDataset({ x: hostTensor(x, [n, LENGTH]), y: hostTensor(y) });
}

class RepeatClassifier<B extends Backend> extends Module<B> {
  readonly tokens: Embedding<B>;
  readonly positions: Embedding<B>;
  readonly encoder: TransformerEncoderLayer<B>;
  readonly head: Linear<B>;

  constructor(backend: B) {
    super();
    this.tokens = new Embedding(backend, 10, DIM);
    this.positions = new Embedding(backend, LENGTH, DIM);
    this.encoder = new TransformerEncoderLayer(backend, DIM, 4, { dimFeedforward: 64, dropout: 0, normFirst: true });
    this.head = new Linear(backend, DIM, 2);
  }

  /** [N, LENGTH] digits -> [N, 2] logits. */
  forward(ids: Tensor<B, 'int'>): Tensor<B, 'float'> {
    return tidy(() => {
      const at = arange(ids.backend, LENGTH, undefined, 1, { device: ids.device });
      const h = this.encoder.forward(this.tokens.forward(ids).add(this.positions.forward(at)));
      return this.head.forward(h.narrow(1, 0, 1).squeeze(1));
    });
  }
}

const backend = new Autodiff(new Cpu());
backend.seed(SEED);
const model = new RepeatClassifier(backend);
const train = new DataLoader(sequences(4000, SEED), { batchSize: 64, shuffle: true, seed: SEED });
const test = new DataLoader(sequences(1000, SEED + 1000), { batchSize: 500 });
const optimizer = new AdamW<typeof backend>({ lr: 3e-3, scheduler: new CosineLR({ totalSteps: EPOCHS * train.length, warmupSteps: train.length }) });
console.log(`${backend.name}: one transformer encoder block (${model.numParams().toLocaleString()} parameters), 4,000 training / 1,000 test sequences of ${LENGTH} digits`);
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
});
console.log(`test accuracy: ${(100 * history[history.length - 1]!.valid!.accuracy!).toFixed(2)}% (chance: 50%)`);
await backend.close();
