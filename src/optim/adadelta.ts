/**
 * Adadelta (torch.optim.Adadelta, Zeiler): each step is the gradient scaled by
 * sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps), running means of the squared steps and gradients,
 * times lr (default 1: the rule needs no rate of its own).
 */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkSetting, given, GroupSettings, Optimizer, type OptimizerOptions, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of Adadelta's own (torch's param_groups): the rest is the optimizer's. */
export interface AdadeltaSettings {
  readonly rho: number;
  readonly eps: number;
}

export interface AdadeltaGroup extends ParamGroup, Partial<AdadeltaSettings> {}

const KEYS = ['rho', 'eps'] as const;

function read(o: unknown, base: AdadeltaSettings, where: string): AdadeltaSettings {
  return {
    rho: checkSetting('Adadelta', `${where}rho`, given(o, 'rho', base.rho), (v) => v >= 0 && v <= 1, 'a number in [0, 1]'),
    eps: checkSetting('Adadelta', `${where}eps`, given(o, 'eps', base.eps), (v) => v >= 0, 'a finite number >= 0'),
  };
}

export interface AdadeltaOptions extends OptimizerOptions {
  /** Default 1. */
  lr?: number;
  /** Smoothing of both running means (default 0.9). */
  rho?: number;
  /** Default 1e-6. */
  eps?: number;
  weightDecay?: number;
  groups?: readonly AdadeltaGroup[];
}

export class Adadelta<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'adadelta';
  readonly rho: number;
  readonly eps: number;
  readonly weightDecay: number;
  private readonly settings: GroupSettings<AdadeltaSettings>;

  constructor(options: AdadeltaOptions = {}) {
    super(options?.lr ?? 1, options, [...KEYS, 'weightDecay'], KEYS);
    this.settings = new GroupSettings(options, { rho: 0.9, eps: 1e-6 }, read);
    ({ rho: this.rho, eps: this.eps } = this.settings.own);
    this.weightDecay = checkSetting('Adadelta', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'squareAvg' || name === 'accDelta' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number, at: StepContext): Tensor<B, 'float'> {
    const { rho, eps } = this.settings.of(at);
    return this.elementwiseUpdate(p, g, state, (v) => {
      const grad = weightDecay !== 0 ? v.g.add(v.p.mul(weightDecay)) : v.g;
      const s0 = v.state('squareAvg');
      const a0 = v.state('accDelta');
      const sq = s0 ? s0.mul(rho).add(grad.square().mul(1 - rho)) : grad.square().mul(1 - rho);
      // The first step's accumulated delta is 0: sqrt(eps) alone.
      const std = sq.add(eps).sqrt();
      const delta = a0 ? a0.add(eps).sqrt().div(std).mul(grad) : grad.mul(Math.sqrt(eps)).div(std);
      const acc = a0 ? a0.mul(rho).add(delta.square().mul(1 - rho)) : delta.square().mul(1 - rho);
      v.setState('squareAvg', sq);
      v.setState('accDelta', acc);
      return v.p.sub(delta.mul(lr));
    });
  }
}
