/** RMSprop (torch.optim.RMSprop): a running mean of squared gradients scales each step; optional momentum and centring. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkBoolean } from '../ir/validate.js';
import { checkSetting, Optimizer, type OptimizerOptions, type ParamState } from './optimizer.js';

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
}

export class RMSprop<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'rmsprop';
  readonly alpha: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly momentum: number;
  readonly centered: boolean;

  constructor(options: RMSpropOptions = {}) {
    super(options?.lr ?? 1e-2, options, ['alpha', 'eps', 'weightDecay', 'momentum', 'centered']);
    this.alpha = checkSetting('RMSprop', 'alpha', options.alpha ?? 0.99, (v) => v >= 0, 'a finite number >= 0');
    this.eps = checkSetting('RMSprop', 'eps', options.eps ?? 1e-8, (v) => v >= 0, 'a finite number >= 0');
    this.weightDecay = checkSetting('RMSprop', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.momentum = checkSetting('RMSprop', 'momentum', options.momentum ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.centered = options.centered === undefined ? false : checkBoolean('RMSprop', 'centered', options.centered);
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return ['squareAvg', 'gradAvg', 'momentum'].includes(name) ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number): Tensor<B, 'float'> {
    const { alpha: a, centered, momentum, eps } = this;
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
