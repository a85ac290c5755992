/** RMSprop (torch.optim.RMSprop): a running mean of squared gradients scales each step; optional momentum and centring. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkBoolean } from '../ir/validate.js';
import { checkSetting, given, GroupSettings, Optimizer, type OptimizerOptions, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of RMSprop's own (torch's param_groups): the rest is the optimizer's. */
export interface RMSpropSettings {
  readonly alpha: number;
  readonly eps: number;
  readonly momentum: number;
  readonly centered: boolean;
}

export interface RMSpropGroup extends ParamGroup, Partial<RMSpropSettings> {}

const KEYS = ['alpha', 'eps', 'momentum', 'centered'] as const;

function read(o: unknown, base: RMSpropSettings, where: string): RMSpropSettings {
  const op = 'RMSprop';
  return {
    alpha: checkSetting(op, `${where}alpha`, given(o, 'alpha', base.alpha), (v) => v >= 0, 'a finite number >= 0'),
    eps: checkSetting(op, `${where}eps`, given(o, 'eps', base.eps), (v) => v >= 0, 'a finite number >= 0'),
    momentum: checkSetting(op, `${where}momentum`, given(o, 'momentum', base.momentum), (v) => v >= 0, 'a finite number >= 0'),
    centered: checkBoolean(op, `${where}centered`, given(o, 'centered', base.centered)),
  };
}

export interface RMSpropOptions extends OptimizerOptions {
  /** Default 1e-2. */
  lr?: number;
  /** Smoothing of the squared-gradient average (default 0.99). */
  alpha?: number;
  /** Default 1e-8. */
  eps?: number;
  weightDecay?: number;
  momentum?: number;
  /** Normalise by the gradient's estimated variance instead of its second moment (default false). */
  centered?: boolean;
  groups?: readonly RMSpropGroup[];
}

export class RMSprop<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'rmsprop';
  readonly alpha: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly momentum: number;
  readonly centered: boolean;
  private readonly settings: GroupSettings<RMSpropSettings>;

  constructor(options: RMSpropOptions = {}) {
    super(options?.lr ?? 1e-2, options, [...KEYS, 'weightDecay'], KEYS);
    this.weightDecay = checkSetting('RMSprop', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.settings = new GroupSettings(options, { alpha: 0.99, eps: 1e-8, momentum: 0, centered: false }, read, (s, momentum) => ({ ...s, momentum }));
    ({ alpha: this.alpha, eps: this.eps, momentum: this.momentum, centered: this.centered } = this.settings.own);
  }

  protected override momentumSetting(): string {
    return 'momentum';
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return ['squareAvg', 'gradAvg', 'momentum'].includes(name) ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number, at: StepContext): Tensor<B, 'float'> {
    const { alpha: a, centered, momentum, eps } = this.settings.of(at);
    return this.elementwiseUpdate(p, g, state, (v) => {
      const grad = weightDecay !== 0 ? v.g.add(v.p.mul(weightDecay)) : v.g;
      const v0 = v.state('squareAvg');
      const sq = v0 ? v0.mul(a).add(grad.square().mul(1 - a)) : grad.square().mul(1 - a);
      v.setState('squareAvg', sq);
      let avg;
      if (centered) {
        const m0 = v.state('gradAvg');
        const m = m0 ? m0.mul(a).add(grad.mul(1 - a)) : grad.mul(1 - a);
        v.setState('gradAvg', m);
        avg = sq.sub(m.square()).sqrt().add(eps);
      } else avg = sq.sqrt().add(eps);
      if (momentum > 0) {
        const b0 = v.state('momentum');
        const buf = b0 ? b0.mul(momentum).add(grad.div(avg)) : grad.div(avg);
        v.setState('momentum', buf);
        return v.p.sub(buf.mul(lr));
      }
      return v.p.sub(grad.div(avg).mul(lr));
    });
  }
}
