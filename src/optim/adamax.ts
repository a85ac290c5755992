/** Adamax (torch.optim.Adamax): Adam with the infinity norm, u = max(beta2 u, |g| + eps). */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { readBetasEps, type AdamFamilyOptions, type BetasEps } from './adam-family.js';
import { checkSetting, GroupSettings, Optimizer, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of Adamax's own (torch's param_groups): the rest is the optimizer's. */
export type AdamaxSettings = BetasEps;

export interface AdamaxGroup extends ParamGroup, Partial<AdamaxSettings> {}

const KEYS = ['betas', 'eps'] as const;

function read(o: unknown, base: AdamaxSettings, where: string): AdamaxSettings {
  const op = 'Adamax';
  return readBetasEps(op, o, base, where);
}

export interface AdamaxOptions extends AdamFamilyOptions {
  /** Default 2e-3. */
  lr?: number;
  groups?: readonly AdamaxGroup[];
}

export class Adamax<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'adamax';
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  private readonly settings: GroupSettings<AdamaxSettings>;

  constructor(options: AdamaxOptions = {}) {
    super(options?.lr ?? 2e-3, options, [...KEYS, 'weightDecay'], KEYS);
    this.weightDecay = checkSetting('Adamax', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.settings = new GroupSettings(options, { betas: [0.9, 0.999], eps: 1e-8 }, read, (s, beta1) => ({ ...s, betas: [beta1, s.betas[1]] }));
    [this.beta1, this.beta2] = this.settings.own.betas;
    this.eps = this.settings.own.eps;
  }

  protected override momentumSetting(): string {
    return 'betas[0]';
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'm' || name === 'u' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number, at: StepContext): Tensor<B, 'float'> {
    const { betas: [beta1, beta2], eps } = this.settings.of(at);
    const rate = lr / (1 - beta1 ** state.step);
    return this.elementwiseUpdate(p, g, state, (v) => {
      const grad = weightDecay !== 0 ? v.g.add(v.p.mul(weightDecay)) : v.g;
      const m0 = v.state('m');
      const u0 = v.state('u');
      const m = m0 ? m0.mul(beta1).add(grad.mul(1 - beta1)) : grad.mul(1 - beta1);
      const absG = grad.abs().add(eps);
      const u = u0 ? u0.mul(beta2).maximum(absG) : absG;
      v.setState('m', m);
      v.setState('u', u);
      return v.p.sub(m.div(u).mul(rate));
    });
  }
}
