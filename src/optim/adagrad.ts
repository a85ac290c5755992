/** Adagrad (torch.optim.Adagrad): steps scaled by the root of the summed squared gradients, with optional rate decay. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkSetting, Optimizer, type OptimizerOptions, type ParamState } from './optimizer.js';

export interface AdagradOptions extends OptimizerOptions {
  /** Default 1e-2. */
  lr?: number;
  /** The rate at step t is lr / (1 + (t - 1) lrDecay) (default 0). */
  lrDecay?: number;
  weightDecay?: number;
  /** The sum's starting value (default 0). */
  initialAccumulatorValue?: number;
  /** Default 1e-10. */
  eps?: number;
}

export class Adagrad<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'adagrad';
  readonly lrDecay: number;
  readonly weightDecay: number;
  readonly initialAccumulatorValue: number;
  readonly eps: number;

  constructor(options: AdagradOptions = {}) {
    super(options?.lr ?? 1e-2, options, ['lrDecay', 'weightDecay', 'initialAccumulatorValue', 'eps']);
    this.lrDecay = checkSetting('Adagrad', 'lrDecay', options.lrDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.weightDecay = checkSetting('Adagrad', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.initialAccumulatorValue = checkSetting('Adagrad', 'initialAccumulatorValue', options.initialAccumulatorValue ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.eps = checkSetting('Adagrad', 'eps', options.eps ?? 1e-10, (v) => v >= 0, 'a finite number >= 0');
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'sum' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number): Tensor<B, 'float'> {
    const { initialAccumulatorValue: init, eps } = this;
    const rate = lr / (1 + (state.step - 1) * this.lrDecay);
    return this.elementwiseUpdate(p, g, state, (v) => {
      const grad = weightDecay !== 0 ? v.g.add(v.p.mul(weightDecay)) : v.g;
      const s0 = v.state('sum');
      const sum = (s0 ?? grad.mul(0).add(init)).add(grad.square());
      v.setState('sum', sum);
      return v.p.sub(grad.div(sum.sqrt().add(eps)).mul(rate));
    });
  }
}
