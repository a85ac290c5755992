/**
 * Rprop (torch.optim.Rprop): each element keeps its own step size, multiplied by etas[1] while
 * its gradient keeps its sign and by etas[0] when the sign flips (then that step is skipped), and
 * moves by the step size against the gradient's sign; the gradient's size is not used.
 */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import type { ProgramValue } from '../tensor/elementwise-program.js';
import { ArgumentError } from '../errors.js';
import { checkSetting, given, GroupSettings, Optimizer, type OptimizerOptions, type ParamGroup, type ParamState, type StepContext } from './optimizer.js';

/** What a parameter group may set of Rprop's own (torch's param_groups): the rest is the optimizer's. */
export interface RpropSettings {
  readonly etas: readonly [number, number];
  readonly stepSizes: readonly [number, number];
}

/** A group may not set weightDecay (Rprop has none); its lrScale scales its first step sizes. */
export interface RpropGroup extends ParamGroup, Partial<RpropSettings> {
  weightDecay?: never;
}

const KEYS = ['etas', 'stepSizes'] as const;

function read(o: unknown, base: RpropSettings, where: string): RpropSettings {
  const op = 'Rprop';
  const etas: unknown = given(o, 'etas', base.etas);
  if (!Array.isArray(etas) || etas.length !== 2) throw new ArgumentError(`${where}etas must be two numbers with 0 < etas[0] < 1 < etas[1], got ${String(etas)}`, { op });
  const sizes: unknown = given(o, 'stepSizes', base.stepSizes);
  if (!Array.isArray(sizes) || sizes.length !== 2) throw new ArgumentError(`${where}stepSizes must be two numbers [min, max], got ${String(sizes)}`, { op });
  const min = checkSetting(op, `${where}stepSizes[0]`, sizes[0], (v) => v >= 0, 'a finite number >= 0');
  return {
    etas: [checkSetting(op, `${where}etas[0]`, etas[0], (v) => v > 0 && v < 1, 'a number in (0, 1)'), checkSetting(op, `${where}etas[1]`, etas[1], (v) => v > 1, 'a finite number > 1')],
    stepSizes: [min, checkSetting(op, `${where}stepSizes[1]`, sizes[1], (v) => v >= min, `a finite number >= stepSizes[0] (${min})`)],
  };
}

export interface RpropOptions extends OptimizerOptions {
  /**
   * Every element's first step size (default 1e-2); after that the step sizes adapt on their
   * own, so a later lr (a schedule's, a group's) changes nothing for a parameter already stepped, as in torch.
   */
  lr?: number;
  /** The step size's factors [decrease, increase] (torch's etas, default [0.5, 1.2]): 0 < etas[0] < 1 < etas[1]. */
  etas?: readonly [number, number];
  /** The step size's bounds [min, max] (torch's step_sizes, default [1e-6, 50]). */
  stepSizes?: readonly [number, number];
  groups?: readonly RpropGroup[];
}

/**
 * sign(x) with only the arithmetic an update program has: any nonzero float32 (the smallest
 * subnormal is 2^-149) times 2^200 is at least 1 in size, clamped to +-1; 0 stays 0.
 */
function sign(x: ProgramValue): ProgramValue {
  return x.mul(2 ** 100).mul(2 ** 100).maximum(-1).minimum(1);
}

export class Rprop<B extends Backend = Backend> extends Optimizer<B> {
  readonly kind = 'rprop';
  readonly etaMinus: number;
  readonly etaPlus: number;
  readonly stepMin: number;
  readonly stepMax: number;
  /** torch's Rprop has no weight decay. */
  readonly weightDecay = 0;
  private readonly settings: GroupSettings<RpropSettings>;

  constructor(options: RpropOptions = {}) {
    super(options?.lr ?? 1e-2, options, KEYS, KEYS);
    const op = 'Rprop';
    // The step size starts at lr: a negative one would be clamped to stepSizes[0] on the first step.
    checkSetting(op, 'lr', this.lr, (v) => v >= 0, 'a finite number >= 0 (the first step size; maximize: true steps up the gradient)');
    this.settings = new GroupSettings(options, { etas: [0.5, 1.2], stepSizes: [1e-6, 50] }, read);
    [this.etaMinus, this.etaPlus] = this.settings.own.etas;
    [this.stepMin, this.stepMax] = this.settings.own.stepSizes;
    const i = this.groups.findIndex((g) => g.weightDecay !== undefined);
    if (i >= 0) throw new ArgumentError(`groups[${i}].weightDecay: Rprop has no weight decay (torch's has none)`, { op });
  }

  protected override stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    return name === 'prev' || name === 'stepSize' ? param : undefined;
  }

  protected update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, _weightDecay: number, at: StepContext): Tensor<B, 'float'> {
    const { etas: [etaMinus, etaPlus], stepSizes: [stepMin, stepMax] } = this.settings.of(at);
    return this.elementwiseUpdate(p, g, state, (v) => {
      const prev = v.state('prev');
      const size0 = v.state('stepSize') ?? v.p.mul(0).add(lr);
      let size = size0;
      let grad = v.g;
      if (prev) {
        // As torch: the sign of g * prev picks etaPlus (> 0), etaMinus (< 0) or 1 (0), each
        // factor exact (a sum of one factor and zeros); where the sign flipped the step is skipped
        // and the gradient remembered as 0, so the next step's factor is 1.
        const s = sign(v.g.mul(prev));
        const up = s.maximum(0);
        const down = s.neg().maximum(0);
        const factor = up.mul(etaPlus).add(down.mul(etaMinus)).add(up.add(down).neg().add(1));
        size = size0.mul(factor);
        grad = v.g.mul(down.neg().add(1));
      }
      size = size.maximum(stepMin).minimum(stepMax);
      v.setState('prev', grad);
      v.setState('stepSize', size);
      return v.p.sub(sign(grad).mul(size));
    });
  }
}
