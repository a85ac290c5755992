/**
 * Adam (torch.optim.Adam: L2 weight decay added to the gradient) and AdamW (decoupled weight
 * decay: the parameter shrinks by lr * weightDecay before the Adam step).
 */
import type { Backend } from '../backends/backend.js';
import { full } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { adamMoments, readBetasEps, type AdamFamilyOptions, type BetasEps } from './adam-family.js';
import { checkBoolean } from '../ir/validate.js';
import { checkSetting, given, GroupSettings, Optimizer, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of Adam's own (torch's param_groups): the rest is the optimizer's. */
export interface AdamSettings extends BetasEps {
  readonly amsgrad: boolean;
}

export interface AdamGroup extends ParamGroup, Partial<AdamSettings> {}

const KEYS = ['betas', 'eps', 'amsgrad'] as const;

function readAdam(op: string): (o: unknown, base: AdamSettings, where: string) => AdamSettings {
  return (o, base, where) => ({
    ...readBetasEps(op, o, base, where),
    amsgrad: checkBoolean(op, `${where}amsgrad`, given(o, 'amsgrad', base.amsgrad)),
  });
}

export interface AdamOptions extends AdamFamilyOptions {
  /** Default 1e-3. */
  lr?: number;
  /** Default 0 for Adam, 1e-2 for AdamW. */
  weightDecay?: number;
  /**
   * Keep the step count on the device (a state tensor 't') and compute the bias corrections from
   * it with tensor ops, so that every step runs the same ops with the same scalars: what
   * `captureStep` needs (torch's `capturable=True`). Default false: the corrections are scalars.
   */
  capturable?: boolean;
  /**
   * AMSGrad (torch's `amsgrad=True`): the denominator uses the largest second moment seen so far
   * (a state tensor 'vMax'), so a parameter's step size never grows back. Default false.
   */
  amsgrad?: boolean;
  groups?: readonly AdamGroup[];
}

export class Adam<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind: string = 'adam';
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly capturable: boolean;
  readonly amsgrad: boolean;
  protected readonly decoupled: boolean = false;
  private readonly settings: GroupSettings<AdamSettings>;

  constructor(options: AdamOptions = {}, defaultWeightDecay = 0) {
    super(options?.lr ?? 1e-3, options, [...KEYS, 'weightDecay', 'capturable'], KEYS);
    const op = new.target.name;
    this.weightDecay = checkSetting(op, 'weightDecay', options.weightDecay ?? defaultWeightDecay, (v) => v >= 0, 'a finite number >= 0');
    this.capturable = options.capturable === undefined ? false : checkBoolean(op, 'capturable', options.capturable);
    this.settings = new GroupSettings(options, { betas: [0.9, 0.999], eps: 1e-8, amsgrad: false }, readAdam(op), (s, beta1) => ({ ...s, betas: [beta1, s.betas[1]] }));
    [this.beta1, this.beta2] = this.settings.own.betas;
    this.eps = this.settings.own.eps;
    this.amsgrad = this.settings.own.amsgrad;
  }

  protected override momentumSetting(): string {
    return 'betas[0]';
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    if (name === 't') return [1];
    return ['m', 'v', 'vMax'].includes(name) ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, wd: number, at: StepContext): Tensor<B, 'float'> {
    const { decoupled } = this;
    const { betas: [b1, b2], eps, amsgrad } = this.settings.of(at);
    // The bias corrections 1 - beta^t: scalars, or with `capturable` tensors from the step count
    // kept on the device (1 - exp(t ln beta), shaped to broadcast over the parameter).
    const t0 = state.tensors.get('t');
    const count = !this.capturable ? undefined : t0 ? t0.add(1) : full(p.backend, [1], 1, { device: p.device, dtype: p.dtype });
    const ones = p.shape.map(() => 1);
    const bias = (beta: number): number | Tensor<B, 'float'> => (count ? count.mul(Math.log(beta)).exp().neg().add(1).reshape(ones) : 1 - beta ** state.step);
    const bc1 = bias(b1);
    const bc2 = bias(b2);
    const next = this.elementwiseUpdate(p, g, state, (v) => {
      const { base, m, sq } = adamMoments(v, [b1, b2], lr, wd, decoupled);
      let second = sq;
      if (amsgrad) {
        const max0 = v.state('vMax');
        second = max0 ? max0.maximum(sq) : sq;
        v.setState('vMax', second);
      }
      // p - lr * m_hat / (sqrt(v_hat) + eps)
      const mHat = m.div(typeof bc1 === 'number' ? bc1 : v.tensor(bc1));
      const denom = second.div(typeof bc2 === 'number' ? bc2 : v.tensor(bc2)).sqrt().add(eps);
      return base.sub(mHat.div(denom).mul(lr));
    });
    // After m and v: the state's order stays m, v, (vMax,) t, as captureStep lists it.
    if (count) this.setState(state, 't', count);
    return next;
  }
}

export class AdamW<B extends Backend = Backend> extends Adam<B> {
  override readonly kind: string = 'adamw';
  protected override readonly decoupled: boolean = true;

  constructor(options: AdamOptions = {}) {
    super(options, 1e-2);
  }
}
