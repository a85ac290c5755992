/**
 * The task examples/train-data-parallel.ts trains (and bench/parallel.ts times): an MLP on MNIST
 * digits with cross-entropy and Adam. Every replica imports this module: `model` builds the
 * skeleton on the replica's device (the weights come from the coordinator), `loss` runs one
 * shard, `optimizer` makes the optimizer that steps the parameters the replica owns.
 */
import type { Backend } from '../src/backends/backend.js';
import type { Device } from '../src/devices/device.js';
import { Relu } from '../src/nn/activation.js';
import { Linear } from '../src/nn/linear.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Sequential } from '../src/nn/sequential.js';
import { Adam } from '../src/optim/adam.js';
import { defineTask, type ReplicaBackend, type ReplicaContext } from '../src/parallel/task.js';

export interface MnistTaskOptions {
  /** Layer widths, input first: [784, 512, 512, 10]. */
  readonly sizes: readonly number[];
  readonly lr: number;
  /** Testing the failure path: replica `replica` ends its thread or process during its `step`-th step. */
  readonly fault?: { readonly replica: number; readonly step: number };
}

/** Linear layers with ReLU between them. */
export function mlp<B extends Backend>(backend: B, device: Device, sizes: readonly number[]): Sequential<B> {
  const layers = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    if (i > 0) layers.push(new Relu<B>());
    layers.push(new Linear(backend, sizes[i]!, sizes[i + 1]!, { device }));
  }
  return new Sequential<B>(...layers);
}

let steps = 0;

export default defineTask({
  model: (ctx: ReplicaContext<MnistTaskOptions>) => mlp<ReplicaBackend>(ctx.backend, ctx.device, ctx.options.sizes),
  loss: (model, shard, ctx) => {
    const fault = ctx.options.fault;
    if (fault && fault.replica === ctx.replica.index && fault.step === ++steps) process.exit(3);
    const logits = model.forward(shard.float('x'));
    const y = shard.int('y');
    return { loss: crossEntropy(logits, y), metrics: { correct: logits.argmax(1).equal(y).cast('int32').sum() } };
  },
  optimizer: ({ options }) => new Adam<ReplicaBackend>({ lr: options.lr }),
});
