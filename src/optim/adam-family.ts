/**
 * What Adam, AdamW, Adamax, NAdam and RAdam share: the moments' settings (betas, eps), their
 * options, and the reader that checks them, so each optimizer declares only what is its own.
 */
import { checkPair, checkSetting, given, type OptimizerOptions } from './optimizer.js';

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
