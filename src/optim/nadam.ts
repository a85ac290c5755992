/**
 * NAdam (torch.optim.NAdam, Dozat's Nesterov-accelerated Adam): Adam whose step mixes the
 * gradient and the first moment with a momentum schedule mu_t = beta1 (1 - 0.5 * 0.96^(t psi)).
 */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { adamMoments, readBetasEps, type AdamFamilyOptions, type BetasEps, type DecoupledWeightDecayOption } from './adam-family.js';
import { checkBoolean } from '../ir/validate.js';
import { checkSetting, given, GroupSettings, Optimizer, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of NAdam's own (torch's param_groups): the rest is the optimizer's. */
export interface NAdamSettings extends BetasEps {
  readonly momentumDecay: number;
  readonly decoupledWeightDecay: boolean;
}

export interface NAdamGroup extends ParamGroup, Partial<NAdamSettings> {}

const KEYS = ['betas', 'eps', 'momentumDecay', 'decoupledWeightDecay'] as const;

function read(o: unknown, base: NAdamSettings, where: string): NAdamSettings {
  const op = 'NAdam';
  return {
    ...readBetasEps(op, o, base, where),
    momentumDecay: checkSetting(op, `${where}momentumDecay`, given(o, 'momentumDecay', base.momentumDecay), (v) => v >= 0, 'a finite number >= 0'),
    decoupledWeightDecay: checkBoolean(op, `${where}decoupledWeightDecay`, given(o, 'decoupledWeightDecay', base.decoupledWeightDecay)),
  };
}

/** mu_t, the momentum at step t. */
function mu(s: NAdamSettings, t: number): number {
  return s.betas[0] * (1 - 0.5 * 0.96 ** (t * s.momentumDecay));
}

export interface NAdamOptions extends AdamFamilyOptions, DecoupledWeightDecayOption {
  /** Default 2e-3. */
  lr?: number;
  /** psi in the momentum schedule (torch's momentum_decay, default 4e-3). */
  momentumDecay?: number;
  groups?: readonly NAdamGroup[];
}

export class NAdam<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'nadam';
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly momentumDecay: number;
  readonly decoupledWeightDecay: boolean;
  private readonly settings: GroupSettings<NAdamSettings>;
  /**
   * prod_{k <= t} mu_k by t, per settings (a group's momentum may differ), grown as steps come:
   * every parameter of a group at step t needs the same product.
   */
  private readonly muProducts = new Map<NAdamSettings, number[]>();

  constructor(options: NAdamOptions = {}) {
    super(options?.lr ?? 2e-3, options, [...KEYS, 'weightDecay'], KEYS);
    this.weightDecay = checkSetting('NAdam', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.settings = new GroupSettings(options, { betas: [0.9, 0.999], eps: 1e-8, momentumDecay: 4e-3, decoupledWeightDecay: false }, read);
    [this.beta1, this.beta2] = this.settings.own.betas;
    ({ eps: this.eps, momentumDecay: this.momentumDecay, decoupledWeightDecay: this.decoupledWeightDecay } = this.settings.own);
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'm' || name === 'v' ? param : undefined;
  }

  /**
   * prod_{k <= t} mu_k: a function of the count (torch keeps it as the state 'mu_product'), so
   * it is computed here, on the host, and a step needs no read from the device.
   */
  private muProduct(s: NAdamSettings, t: number): number {
    let p = this.muProducts.get(s);
    if (!p) this.muProducts.set(s, (p = [1]));
    while (p.length <= t) p.push(p[p.length - 1]! * mu(s, p.length));
    return p[t]!;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, wd: number, at: StepContext): Tensor<B, 'float'> {
    const s = this.settings.of(at);
    const { betas: [b1, b2], eps, decoupledWeightDecay: decoupled } = s;
    const t = state.step;
    const muT = mu(s, t);
    const muNext = mu(s, t + 1);
    const product = this.muProduct(s, t);
    // torch 2.x's coefficients (1.13 multiplied the next product by mu once more: a bug torch 2.0 fixed).
    const gradRate = (lr * (1 - muT)) / (1 - product);
    const momentRate = (lr * muNext) / (1 - product * muNext);
    const bc2 = 1 - b2 ** t;
    return this.elementwiseUpdate(p, g, state, (v) => {
      const { base, grad, m, sq } = adamMoments(v, [b1, b2], lr, wd, decoupled);
      const denom = sq.div(bc2).sqrt().add(eps);
      return base.sub(grad.div(denom).mul(gradRate)).sub(m.div(denom).mul(momentRate));
    });
  }
}
