/** SGD with momentum, dampening, Nesterov and L2 weight decay, as torch.optim.SGD. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError } from '../errors.js';
import { checkBoolean } from '../ir/validate.js';
import { checkSetting, given, GroupSettings, Optimizer, type OptimizerOptions, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of SGD's own (torch's param_groups): the rest is the optimizer's. */
export interface SGDSettings {
  readonly momentum: number;
  readonly dampening: number;
  readonly nesterov: boolean;
}

export interface SGDGroup extends ParamGroup, Partial<SGDSettings> {}

export interface SGDOptions extends OptimizerOptions {
  lr: number;
  momentum?: number;
  dampening?: number;
  weightDecay?: number;
  nesterov?: boolean;
  groups?: readonly SGDGroup[];
}

const KEYS = ['momentum', 'dampening', 'nesterov'] as const;

function read(o: unknown, base: SGDSettings, where: string): SGDSettings {
  const op = 'SGD';
  const momentum = checkSetting(op, `${where}momentum`, given(o, 'momentum', base.momentum), (v) => v >= 0, 'a finite number >= 0');
  const dampening = checkSetting(op, `${where}dampening`, given(o, 'dampening', base.dampening), () => true, 'a finite number');
  const nesterov = checkBoolean(op, `${where}nesterov`, given(o, 'nesterov', base.nesterov));
  if (nesterov && (momentum <= 0 || dampening !== 0)) throw new ArgumentError(`${where ? `${where.slice(0, -1)}: ` : ''}Nesterov momentum needs momentum > 0 and dampening 0`, { op });
  return { momentum, dampening, nesterov };
}

export class SGD<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'sgd';
  readonly momentum: number;
  readonly dampening: number;
  readonly weightDecay: number;
  readonly nesterov: boolean;
  private readonly settings: GroupSettings<SGDSettings>;

  constructor(options: SGDOptions) {
    super(options?.lr, options, [...KEYS, 'weightDecay'], KEYS);
    this.weightDecay = checkSetting('SGD', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.settings = new GroupSettings(options, { momentum: 0, dampening: 0, nesterov: false }, read, (s, momentum) => ({ ...s, momentum }));
    ({ momentum: this.momentum, dampening: this.dampening, nesterov: this.nesterov } = this.settings.own);
  }

  protected override momentumSetting(): string {
    return 'momentum';
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'momentum' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number, at: StepContext): Tensor<B, 'float'> {
    const { momentum, dampening, nesterov } = this.settings.of(at);
    return this.elementwiseUpdate(p, g, state, (v) => {
      let d = weightDecay !== 0 ? v.g.add(v.p.mul(weightDecay)) : v.g;
      if (momentum !== 0) {
        const prev = v.state('momentum');
        // The first step's buffer is the gradient itself (no dampening), as PyTorch.
        const buf = prev ? prev.mul(momentum).add(d.mul(1 - dampening)) : d.clone();
        v.setState('momentum', buf);
        d = nesterov ? d.add(buf.mul(momentum)) : buf;
      }
      return v.p.sub(d.mul(lr));
    });
  }
}
