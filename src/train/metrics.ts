/**
 * Metrics that fit() keeps per epoch, for training and validation apart. A metric sees each
 * step's output ({ loss, output, target }), reads what it needs, and reports its value over the
 * samples since the last reset.
 */
import { noGrad } from '../autodiff/grad-mode.js';
import type { Backend } from '../backends/backend.js';
import { ShapeError } from '../errors.js';
import { tidy } from '../memory/tidy.js';
import type { Tensor } from '../tensor/tensor.js';

/** What a training or validation step gives back: the loss, and optionally the model's output and the target. */
export interface StepOutput<B extends Backend = Backend> {
  readonly loss: Tensor<B, 'float'>;
  readonly output?: Tensor<B, 'float'> | undefined;
  readonly target?: Tensor<B> | undefined;
}

export interface Metric<B extends Backend = Backend> {
  /** The key in the epoch logs ('accuracy' -> logs.train.accuracy, logs.valid.accuracy). */
  readonly name: string;
  /** Accounts for one step. */
  update(out: StepOutput<B>): Promise<void> | void;
  /** The value over everything since the last reset (NaN before any update). */
  value(): number;
  reset(): void;
  /** A new metric of the same kind and settings, with no samples (training and validation each get one). */
  fresh(): Metric<B>;
}

/** The batch size of a step: the output's (or target's) first dim, else 1. */
export function batchSize<B extends Backend>(out: StepOutput<B>): number {
  const t = out.output ?? out.target;
  return t && t.rank > 0 ? t.shape[0]! : 1;
}

/** The running mean of the loss, weighted by batch size (what 'loss' in the logs is). */
export class MeanLoss<B extends Backend = Backend> implements Metric<B> {
  readonly name = 'loss';
  private sum = 0;
  private count = 0;
  async update(out: StepOutput<B>): Promise<void> {
    const n = batchSize(out);
    this.sum += (await out.loss.item()) * n;
    this.count += n;
  }
  value(): number {
    return this.count === 0 ? NaN : this.sum / this.count;
  }
  reset(): void {
    this.sum = 0;
    this.count = 0;
  }
  fresh(): MeanLoss<B> {
    return new MeanLoss<B>();
  }
}

/**
 * Classification accuracy: the share of samples whose largest logit (dim 1 of [N, C, ...]) is
 * the target class. Targets equal to `ignoreIndex` are not counted.
 */
export class Accuracy<B extends Backend = Backend> implements Metric<B> {
  readonly name = 'accuracy';
  private hits = 0;
  private count = 0;
  constructor(readonly options: { ignoreIndex?: number } = {}) {}

  async update(out: StepOutput<B>): Promise<void> {
    const { output, target } = out;
    if (!output || !target) throw new ShapeError('accuracy needs the step to return { output, target }', { op: 'Accuracy', shapes: [] });
    const want = [output.shape[0]!, ...output.shape.slice(2)];
    if (target.rank !== want.length || target.shape.some((d, i) => d !== want[i])) {
      throw new ShapeError(`targets must be [${want.join(', ')}] for outputs [${output.shape.join(', ')}]`, { op: 'Accuracy', shapes: [output.shape, target.shape] });
    }
    const ignore = this.options.ignoreIndex;
    const [hits, counted] = noGrad(() =>
      tidy(() => {
        const predicted = output.rank === 1 ? output.argmax() : output.argmax(1);
        const t = target.cast('int32');
        const kept = ignore === undefined ? undefined : t.notEqual(ignore);
        let right = predicted.equal(t);
        if (kept) right = right.logicalAnd(kept);
        return [right.cast('int32').sum(), kept ? kept.cast('int32').sum() : undefined] as const;
      }),
    );
    const [h, c] = await Promise.all([hits.item(), counted ? counted.item() : Promise.resolve(target.size)]);
    hits.dispose();
    counted?.dispose();
    this.hits += h;
    this.count += c;
  }
  value(): number {
    return this.count === 0 ? NaN : this.hits / this.count;
  }
  reset(): void {
    this.hits = 0;
    this.count = 0;
  }
  fresh(): Accuracy<B> {
    return new Accuracy<B>(this.options);
  }
}
