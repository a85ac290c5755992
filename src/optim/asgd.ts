/**
 * ASGD (torch.optim.ASGD, averaged SGD): SGD with a step size eta that decays with the count and
 * a running average `ax` of the parameters (the averaged weights, to read out; the parameters
 * themselves follow SGD), which starts averaging after t0 steps.
 */
import type { Backend } from '../backends/backend.js';
import { full } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkSetting, given, GroupSettings, Optimizer, type OptimizerOptions, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of ASGD's own (torch's param_groups): the rest is the optimizer's. */
export interface ASGDSettings {
  readonly lambd: number;
  readonly alpha: number;
  readonly t0: number;
}

export interface ASGDGroup extends ParamGroup, Partial<ASGDSettings> {}

const KEYS = ['lambd', 'alpha', 't0'] as const;

function read(o: unknown, base: ASGDSettings, where: string): ASGDSettings {
  return {
    lambd: checkSetting('ASGD', `${where}lambd`, given(o, 'lambd', base.lambd), (v) => v >= 0, 'a finite number >= 0'),
    alpha: checkSetting('ASGD', `${where}alpha`, given(o, 'alpha', base.alpha), () => true, 'a finite number'),
    t0: checkSetting('ASGD', `${where}t0`, given(o, 't0', base.t0), () => true, 'a finite number'),
  };
}

export interface ASGDOptions extends OptimizerOptions {
  /** Default 1e-2. */
  lr?: number;
  /** The decay term (default 1e-4): eta = lr / (1 + lambd lr t)^alpha, and each step scales the weights by 1 - lambd eta. */
  lambd?: number;
  /** The power of eta's decay (default 0.75). */
  alpha?: number;
  /** The step from which the average starts (default 1e6). */
  t0?: number;
  weightDecay?: number;
  groups?: readonly ASGDGroup[];
}

export class ASGD<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'asgd';
  readonly lambd: number;
  readonly alpha: number;
  readonly t0: number;
  readonly weightDecay: number;
  private readonly settings: GroupSettings<ASGDSettings>;

  constructor(options: ASGDOptions = {}) {
    super(options?.lr ?? 1e-2, options, [...KEYS, 'weightDecay'], KEYS);
    this.settings = new GroupSettings(options, { lambd: 1e-4, alpha: 0.75, t0: 1e6 }, read);
    ({ lambd: this.lambd, alpha: this.alpha, t0: this.t0 } = this.settings.own);
    this.weightDecay = checkSetting('ASGD', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    if (name === 'eta') return [1];
    return name === 'ax' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number, at: StepContext): Tensor<B, 'float'> {
    const { lambd, alpha, t0 } = this.settings.of(at);
    const t = state.step;
    // This step's eta was computed after the last step from that step's lr (torch's order: a
    // schedule's new rate reaches eta one step late), so it is state, kept on the device: [1],
    // shaped to broadcast over the parameter. The first step's is this step's lr.
    const eta0 = state.tensors.get('eta');
    const eta = eta0?.reshape(p.shape.map(() => 1));
    // mu, the averaging weight, depends on the count only: 1 at first, then 1 / max(1, (t - 1) - t0)
    // (torch keeps it as the state 'mu').
    const mu = t === 1 ? 1 : 1 / Math.max(1, t - 1 - t0);
    const next = this.elementwiseUpdate(p, g, state, (v) => {
      const grad = weightDecay !== 0 ? v.g.add(v.p.mul(weightDecay)) : v.g;
      const e = eta ? v.tensor(eta) : undefined;
      // p (1 - lambd eta) - eta g
      const decayed = e ? v.p.sub(v.p.mul(e).mul(lambd)) : v.p.mul(1 - lambd * lr);
      const stepped = decayed.sub(e ? grad.mul(e) : grad.mul(lr));
      const ax0 = v.state('ax');
      // With mu 1 the average is the parameter itself (torch copies it).
      v.setState('ax', mu === 1 || !ax0 ? stepped : ax0.add(stepped.sub(ax0).mul(mu)));
      return stepped;
    });
    this.setState(state, 'eta', full(p.backend, [1], lr / (1 + lambd * lr * t) ** alpha, { device: p.device, dtype: p.dtype }));
    return next;
  }
}
