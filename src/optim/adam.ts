/**
 * Adam (torch.optim.Adam: L2 weight decay added to the gradient) and AdamW (decoupled weight
 * decay: the parameter shrinks by lr * weightDecay before the Adam step).
 */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { Optimizer, type OptimizerOptions, type ParamState } from './optimizer.js';

export interface AdamOptions extends OptimizerOptions {
  /** Default 1e-3. */
  lr?: number;
  /** Default [0.9, 0.999]. */
  betas?: readonly [number, number];
  /** Default 1e-8. */
  eps?: number;
  /** Default 0 for Adam, 1e-2 for AdamW. */
  weightDecay?: number;
}

export class Adam<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind: string = 'adam';
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  protected readonly decoupled: boolean = false;

  constructor(options: AdamOptions = {}, defaultWeightDecay = 0) {
    super(options.lr ?? 1e-3, options);
    [this.beta1, this.beta2] = options.betas ?? [0.9, 0.999];
    this.eps = options.eps ?? 1e-8;
    this.weightDecay = options.weightDecay ?? defaultWeightDecay;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number): Tensor<B, 'float'> {
    const { beta1: b1, beta2: b2, weightDecay: wd } = this;
    const t = state.step;
    let base = p;
    let grad = g;
    if (wd !== 0 && this.decoupled) base = p.mul(1 - lr * wd);
    else if (wd !== 0) grad = g.add(p.mul(wd));
    const m0 = state.tensors.get('m');
    const v0 = state.tensors.get('v');
    const m = m0 ? m0.mul(b1).add(grad.mul(1 - b1)) : grad.mul(1 - b1);
    const v = v0 ? v0.mul(b2).add(grad.square().mul(1 - b2)) : grad.square().mul(1 - b2);
    this.setState(state, 'm', m);
    this.setState(state, 'v', v);
    // p - lr * m_hat / (sqrt(v_hat) + eps), with the bias corrections folded into scalars
    const mHat = m.div(1 - b1 ** t);
    const denom = v.div(1 - b2 ** t).sqrt().add(this.eps);
    return base.sub(mHat.div(denom).mul(lr));
  }
}

export class AdamW<B extends Backend = Backend> extends Adam<B> {
  override readonly kind: string = 'adamw';
  protected override readonly decoupled: boolean = true;

  constructor(options: AdamOptions = {}) {
    super(options, 1e-2);
  }
}
