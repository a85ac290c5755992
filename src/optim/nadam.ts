/**
 * NAdam (torch.optim.NAdam, Dozat's Nesterov-accelerated Adam): Adam whose step mixes the
 * gradient and the first moment with a momentum schedule mu_t = beta1 (1 - 0.5 * 0.96^(t psi)).
 */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError } from '../errors.js';
import { checkBoolean } from '../ir/validate.js';
import { checkSetting, Optimizer, type OptimizerOptions, type ParamState } from './optimizer.js';

export interface NAdamOptions extends OptimizerOptions {
  /** Default 2e-3. */
  lr?: number;
  /** Default [0.9, 0.999]. */
  betas?: readonly [number, number];
  /** Default 1e-8. */
  eps?: number;
  weightDecay?: number;
  /** psi in the momentum schedule (torch's momentum_decay, default 4e-3). */
  momentumDecay?: number;
  /**
   * Decay the weights directly (p -= lr * weightDecay * p, as AdamW) instead of adding
   * weightDecay * p to the gradient: torch 2.x's decoupled_weight_decay (1.13 has no such option).
   * Default false.
   */
  decoupledWeightDecay?: boolean;
}

export class NAdam<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'nadam';
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly momentumDecay: number;
  readonly decoupledWeightDecay: boolean;
  /** prod_{k <= t} mu_k by t, grown as steps come: every parameter at step t needs the same product. */
  private readonly muProducts: number[] = [1];

  constructor(options: NAdamOptions = {}) {
    super(options?.lr ?? 2e-3, options, ['betas', 'eps', 'weightDecay', 'momentumDecay', 'decoupledWeightDecay']);
    const op = 'NAdam';
    const betas: unknown = options.betas ?? [0.9, 0.999];
    if (!Array.isArray(betas) || betas.length !== 2) throw new ArgumentError(`betas must be two numbers in [0, 1), got ${String(betas)}`, { op });
    this.beta1 = checkSetting(op, 'betas[0]', betas[0], (v) => v >= 0 && v < 1, 'a number in [0, 1)');
    this.beta2 = checkSetting(op, 'betas[1]', betas[1], (v) => v >= 0 && v < 1, 'a number in [0, 1)');
    this.eps = checkSetting(op, 'eps', options.eps ?? 1e-8, (v) => v >= 0, 'a finite number >= 0');
    this.weightDecay = checkSetting(op, 'weightDecay', options.weightDecay ?? 0, (v) => v >= 0, 'a finite number >= 0');
    this.momentumDecay = checkSetting(op, 'momentumDecay', options.momentumDecay ?? 4e-3, (v) => v >= 0, 'a finite number >= 0');
    this.decoupledWeightDecay = options.decoupledWeightDecay === undefined ? false : checkBoolean(op, 'decoupledWeightDecay', options.decoupledWeightDecay);
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'm' || name === 'v' ? param : undefined;
  }

  /** mu_t, the momentum at step t. */
  private mu(t: number): number {
    return this.beta1 * (1 - 0.5 * 0.96 ** (t * this.momentumDecay));
  }

  /**
   * prod_{k <= t} mu_k: a function of the count (torch keeps it as the state 'mu_product'), so
   * it is computed here, on the host, and a step needs no read from the device.
   */
  private muProduct(t: number): number {
    const p = this.muProducts;
    while (p.length <= t) p.push(p[p.length - 1]! * this.mu(p.length));
    return p[t]!;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, wd: number): Tensor<B, 'float'> {
    const { beta1: b1, beta2: b2, eps, decoupledWeightDecay: decoupled } = this;
    const t = state.step;
    const mu = this.mu(t);
    const muNext = this.mu(t + 1);
    const product = this.muProduct(t);
    // torch 2.x's coefficients (1.13 multiplied the next product by mu once more: a bug torch 2.0 fixed).
    const gradRate = (lr * (1 - mu)) / (1 - product);
    const momentRate = (lr * muNext) / (1 - product * muNext);
    const bc2 = 1 - b2 ** t;
    return this.elementwiseUpdate(p, g, state, (v) => {
      let base = v.p;
      let grad = v.g;
      if (wd !== 0 && decoupled) base = v.p.mul(1 - lr * wd);
      else if (wd !== 0) grad = v.g.add(v.p.mul(wd));
      const m0 = v.state('m');
      const v0 = v.state('v');
      const m = m0 ? m0.mul(b1).add(grad.mul(1 - b1)) : grad.mul(1 - b1);
      const sq = v0 ? v0.mul(b2).add(grad.square().mul(1 - b2)) : grad.square().mul(1 - b2);
      v.setState('m', m);
      v.setState('v', sq);
      const denom = sq.div(bc2).sqrt().add(eps);
      return base.sub(grad.div(denom).mul(gradRate)).sub(m.div(denom).mul(momentRate));
    });
  }
}
