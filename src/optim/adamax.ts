/** Adamax (torch.optim.Adamax): Adam with the infinity norm, u = max(beta2 u, |g| + eps). */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError } from '../errors.js';
import { checkSetting, Optimizer, type OptimizerOptions, type ParamState } from './optimizer.js';

export interface AdamaxOptions extends OptimizerOptions {
  /** Default 2e-3. */
  lr?: number;
  /** Default [0.9, 0.999]. */
  betas?: readonly [number, number];
  /** Default 1e-8. */
  eps?: number;
  weightDecay?: number;
}

export class Adamax<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'adamax';
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;

  constructor(options: AdamaxOptions = {}) {
    super(options?.lr ?? 2e-3, options, ['betas', 'eps', 'weightDecay']);
    const betas: unknown = options.betas ?? [0.9, 0.999];
    if (!Array.isArray(betas) || betas.length !== 2) throw new ArgumentError(`betas must be two numbers in [0, 1), got ${String(betas)}`, { op: 'Adamax' });
    this.beta1 = checkSetting('Adamax', 'betas[0]', betas[0], (v) => v >= 0 && v < 1, 'a number in [0, 1)');
    this.beta2 = checkSetting('Adamax', 'betas[1]', betas[1], (v) => v >= 0 && v < 1, 'a number in [0, 1)');
    this.eps = checkSetting('Adamax', 'eps', options.eps ?? 1e-8, (v) => v >= 0, 'a finite number >= 0');
    this.weightDecay = checkSetting('Adamax', 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'm' || name === 'u' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number): Tensor<B, 'float'> {
    const { beta1, beta2, eps } = this;
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
