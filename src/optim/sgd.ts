/** SGD with momentum, dampening, Nesterov and L2 weight decay, as torch.optim.SGD. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError } from '../errors.js';
import { checkSetting, Optimizer, type OptimizerOptions, type ParamState } from './optimizer.js';

export interface SGDOptions extends OptimizerOptions {
  lr: number;
  momentum?: number;
  dampening?: number;
  weightDecay?: number;
  nesterov?: boolean;
}

export class SGD<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'sgd';
  readonly momentum: number;
  readonly dampening: number;
  readonly weightDecay: number;
  readonly nesterov: boolean;

  constructor(options: SGDOptions) {
    super(options?.lr, options, ['momentum', 'dampening', 'weightDecay', 'nesterov']);
    this.momentum = checkSetting('SGD', 'momentum', options.momentum ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.dampening = checkSetting('SGD', 'dampening', options.dampening ?? 0, () => true, 'a finite number');
    this.weightDecay = checkSetting('SGD', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.nesterov = options.nesterov ?? false;
    if (typeof this.nesterov !== 'boolean') throw new ArgumentError(`nesterov must be true or false, got ${String(this.nesterov)}`, { op: 'SGD' });
    if (this.nesterov && (this.momentum <= 0 || this.dampening !== 0)) throw new ArgumentError('Nesterov momentum needs momentum > 0 and dampening 0', { op: 'SGD' });
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'momentum' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number): Tensor<B, 'float'> {
    const { momentum, dampening, nesterov } = this;
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
