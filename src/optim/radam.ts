/**
 * RAdam (torch.optim.RAdam, Liu et al.): Adam whose adaptive step is switched on only once the
 * variance of the adaptive rate is tractable (rho_t > 5, torch's threshold) and then scaled by the
 * rectification term; before that, a plain momentum step with the bias-corrected first moment.
 */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { adamMoments, readBetasEps, type AdamFamilyOptions, type BetasEps, type DecoupledWeightDecayOption } from './adam-family.js';
import { checkBoolean } from '../ir/validate.js';
import { checkSetting, given, GroupSettings, Optimizer, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of RAdam's own (torch's param_groups): the rest is the optimizer's. */
export interface RAdamSettings extends BetasEps {
  readonly decoupledWeightDecay: boolean;
}

export interface RAdamGroup extends ParamGroup, Partial<RAdamSettings> {}

const KEYS = ['betas', 'eps', 'decoupledWeightDecay'] as const;

function read(o: unknown, base: RAdamSettings, where: string): RAdamSettings {
  const op = 'RAdam';
  return {
    ...readBetasEps(op, o, base, where),
    decoupledWeightDecay: checkBoolean(op, `${where}decoupledWeightDecay`, given(o, 'decoupledWeightDecay', base.decoupledWeightDecay)),
  };
}

export interface RAdamOptions extends AdamFamilyOptions, DecoupledWeightDecayOption {
  /** Default 1e-3. */
  lr?: number;
  groups?: readonly RAdamGroup[];
}

export class RAdam<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'radam';
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly decoupledWeightDecay: boolean;
  private readonly settings: GroupSettings<RAdamSettings>;

  constructor(options: RAdamOptions = {}) {
    super(options?.lr ?? 1e-3, options, [...KEYS, 'weightDecay'], KEYS);
    this.weightDecay = checkSetting('RAdam', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.settings = new GroupSettings(options, { betas: [0.9, 0.999], eps: 1e-8, decoupledWeightDecay: false }, read, (s, beta1) => ({ ...s, betas: [beta1, s.betas[1]] }));
    [this.beta1, this.beta2] = this.settings.own.betas;
    ({ eps: this.eps, decoupledWeightDecay: this.decoupledWeightDecay } = this.settings.own);
  }

  protected override momentumSetting(): string {
    return 'betas[0]';
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'm' || name === 'v' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, wd: number, at: StepContext): Tensor<B, 'float'> {
    const { betas: [b1, b2], eps, decoupledWeightDecay: decoupled } = this.settings.of(at);
    const t = state.step;
    const bc1 = 1 - b1 ** t;
    const bc2 = 1 - b2 ** t;
    // The length of the approximated simple moving average, and its limit.
    const rhoInf = 2 / (1 - b2) - 1;
    const rho = rhoInf - (2 * t * b2 ** t) / bc2;
    const rect = rho > 5 ? Math.sqrt(((rho - 4) * (rho - 2) * rhoInf) / ((rhoInf - 4) * (rhoInf - 2) * rho)) : undefined;
    return this.elementwiseUpdate(p, g, state, (v) => {
      const { base, m, sq } = adamMoments(v, [b1, b2], lr, wd, decoupled);
      const mHat = m.div(bc1);
      if (rect === undefined) return base.sub(mHat.mul(lr));
      // As torch: eps is added to sqrt(v), not to sqrt(v_hat); sqrt(bc2) scales the quotient.
      return base.sub(mHat.mul(lr * rect * Math.sqrt(bc2)).div(sq.sqrt().add(eps)));
    });
  }
}
