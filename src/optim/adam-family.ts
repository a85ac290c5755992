/**
 * What Adam, AdamW, Adamax, NAdam and RAdam share: the moments' settings (betas, eps), their
 * options, and the reader that checks them, so each optimizer declares only what is its own.
 */
import type { Backend } from '../backends/backend.js';
import type { ProgramValue } from '../tensor/elementwise-program.js';
import { checkPair, checkSetting, given, type OptimizerOptions, type UpdateValues } from './optimizer.js';

/** The moments' decays and the denominator's eps: a parameter group may set them (torch's param_groups). */
export interface BetasEps {
  readonly betas: readonly [number, number];
  readonly eps: number;
}

/** The Adam family's options beside the rate (whose default differs per optimizer). */
export interface AdamFamilyOptions extends OptimizerOptions {
  /** Default [0.9, 0.999]. */
  betas?: readonly [number, number];
  /** Default 1e-8. */
  eps?: number;
  weightDecay?: number;
}

/** NAdam's and RAdam's choice of weight decay. */
export interface DecoupledWeightDecayOption {
  /**
   * Decay the weights directly (p -= lr * weightDecay * p, as AdamW) instead of adding
   * weightDecay * p to the gradient: torch 2.x's decoupled_weight_decay (1.13 has no such option).
   * Default false.
   */
  decoupledWeightDecay?: boolean;
}

/** The family's betas (each in [0, 1)) and eps (>= 0), read over a base as GroupSettings' readers do. */
export function readBetasEps(op: string, o: unknown, base: BetasEps, where: string): BetasEps {
  return {
    betas: checkPair(op, o, 'betas', base.betas, where, (v) => v >= 0 && v < 1, 'a number in [0, 1)', 'two numbers in [0, 1)'),
    eps: checkSetting(op, `${where}eps`, given(o, 'eps', base.eps), (v) => v >= 0, 'a finite number >= 0'),
  };
}

/**
 * The family's common start of a step: weight decay (decoupled: the parameter shrinks by
 * lr * weightDecay; else weightDecay * p joins the gradient), then the moments m and v (state
 * 'm', 'v') updated and stored. Returns the decayed parameter, the gradient used and the moments.
 */
export function adamMoments<B extends Backend>(v: UpdateValues<B>, betas: readonly [number, number], lr: number, weightDecay: number, decoupled: boolean): { base: ProgramValue; grad: ProgramValue; m: ProgramValue; sq: ProgramValue } {
  const [b1, b2] = betas;
  let base = v.p;
  let grad = v.g;
  if (weightDecay !== 0 && decoupled) base = v.p.mul(1 - lr * weightDecay);
  else if (weightDecay !== 0) grad = v.g.add(v.p.mul(weightDecay));
  const m0 = v.state('m');
  const v0 = v.state('v');
  const m = m0 ? m0.mul(b1).add(grad.mul(1 - b1)) : grad.mul(1 - b1);
  const sq = v0 ? v0.mul(b2).add(grad.square().mul(1 - b2)) : grad.square().mul(1 - b2);
  v.setState('m', m);
  v.setState('v', sq);
  return { base, grad, m, sq };
}
