/** SGD with momentum, dampening, Nesterov and L2 weight decay, as torch.optim.SGD. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { Optimizer, type OptimizerOptions, type ParamState } from './optimizer.js';

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
    super(options.lr, options);
    this.momentum = options.momentum ?? 0;
    this.dampening = options.dampening ?? 0;
    this.weightDecay = options.weightDecay ?? 0;
    this.nesterov = options.nesterov ?? false;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number): Tensor<B, 'float'> {
    let d = this.weightDecay !== 0 ? g.add(p.mul(this.weightDecay)) : g;
    if (this.momentum !== 0) {
      const prev = state.tensors.get('momentum');
      // The first step's buffer is the gradient itself (no dampening), as PyTorch.
      const buf = prev ? prev.mul(this.momentum).add(d.mul(1 - this.dampening)) : d.clone();
      this.setState(state, 'momentum', buf);
      d = this.nesterov ? d.add(buf.mul(this.momentum)) : buf;
    }
    return p.sub(d.mul(lr));
  }
}
