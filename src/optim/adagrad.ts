/** Adagrad (torch.optim.Adagrad): steps scaled by the root of the summed squared gradients, with optional rate decay. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkSetting, given, GroupSettings, Optimizer, type OptimizerOptions, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/**
 * What a parameter group may set of Adagrad's own (torch's param_groups): the rest is the
 * optimizer's. Not initialAccumulatorValue: torch fills every group's sum with the optimizer's.
 */
export interface AdagradSettings {
  readonly lrDecay: number;
  readonly eps: number;
}

export interface AdagradGroup extends ParamGroup, Partial<AdagradSettings> {}

const KEYS = ['lrDecay', 'eps'] as const;

function read(o: unknown, base: AdagradSettings, where: string): AdagradSettings {
  const op = 'Adagrad';
  return {
    lrDecay: checkSetting(op, `${where}lrDecay`, given(o, 'lrDecay', base.lrDecay), (v) => v >= 0, 'a finite number >= 0'),
    eps: checkSetting(op, `${where}eps`, given(o, 'eps', base.eps), (v) => v >= 0, 'a finite number >= 0'),
  };
}

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
  groups?: readonly AdagradGroup[];
}

export class Adagrad<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'adagrad';
  readonly lrDecay: number;
  readonly weightDecay: number;
  readonly initialAccumulatorValue: number;
  readonly eps: number;
  private readonly settings: GroupSettings<AdagradSettings>;

  constructor(options: AdagradOptions = {}) {
    super(options?.lr ?? 1e-2, options, [...KEYS, 'weightDecay', 'initialAccumulatorValue'], KEYS);
    this.weightDecay = checkSetting('Adagrad', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.initialAccumulatorValue = checkSetting('Adagrad', 'initialAccumulatorValue', options.initialAccumulatorValue ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.settings = new GroupSettings(options, { lrDecay: 0, eps: 1e-10 }, read);
    ({ lrDecay: this.lrDecay, eps: this.eps } = this.settings.own);
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'sum' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number, at: StepContext): Tensor<B, 'float'> {
    const { eps, lrDecay } = this.settings.of(at);
    const init = this.initialAccumulatorValue;
    const rate = lr / (1 + (state.step - 1) * lrDecay);
    return this.elementwiseUpdate(p, g, state, (v) => {
      const grad = weightDecay !== 0 ? v.g.add(v.p.mul(weightDecay)) : v.g;
      const s0 = v.state('sum');
      const sum = (s0 ?? grad.mul(0).add(init)).add(grad.square());
      v.setState('sum', sum);
      return v.p.sub(grad.div(sum.sqrt().add(eps)).mul(rate));
    });
  }
}
