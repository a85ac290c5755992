/**
 * The optimizer base: state per ParamId (so gradients from another device or thread apply to
 * the right parameter), updates under noGrad, each parameter in its own tidy scope on its own
 * device, and state that can be saved and restored as plain data.
 */
import { noGrad } from '../autodiff/grad-mode.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { sameShape } from '../ir/shape.js';
import { checkArray, checkBoolean, checkKeys, field, show } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import { keep, tidy } from '../memory/tidy.js';
import type { Module } from '../nn/module.js';
import type { Param, ParamId } from '../nn/param.js';
import { ownedFloat32, type TensorRecord } from '../nn/record.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { ElementwiseProgram, type ProgramValue } from '../tensor/elementwise-program.js';
import { isFloat, type Kind } from '../ir/dtype.js';
import { clipGradNorm } from './clip.js';
import type { LrScheduler } from './lr-scheduler.js';
import type { ParamGrads } from './param-grads.js';

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

export interface ParamState<B extends Backend> {
  /** Updates applied to this parameter so far. */
  step: number;
  readonly tensors: Map<string, Tensor<B, 'float'>>;
}

export interface OptimizerRecord {
  readonly kind: string;
  readonly params: Readonly<Record<string, { readonly step: number; readonly tensors: Readonly<Record<string, TensorRecord>> }>>;
}

export interface OptimizerOptions {
  /** Clip the gradients to this global L2 norm before each step. */
  clipNorm?: number;
  /** A schedule that gives each step its rate (with `lr` as the base), unless step() is given one. */
  scheduler?: LrScheduler;
  /** Maximise the objective: step along the gradient instead of against it (torch's `maximize`). Default false. */
  maximize?: boolean;
  /**
   * Settings for some parameters (torch's parameter groups): the first group whose `params`
   * accepts a parameter (by its dotted name in the module) gives it its weight decay, a factor on
   * the step's rate and any of the optimizer's own settings that its groups may override (each
   * optimizer's group type lists them: SGDGroup's momentum, AdamGroup's betas, ...); the rest use
   * the optimizer's own. E.g. no decay for biases and norms:
   * `groups: [{ params: (name) => name.endsWith('bias') || name.includes('norm'), weightDecay: 0 }]`.
   */
  groups?: readonly ParamGroup[];
  /**
   * Run each parameter's update as one fused elementwise record (one kernel on WebGPU: torch's
   * `fused=True`) instead of one record per op. Default: where the backend fuses elementwise
   * chains of the parameter's size on its device (WebGPU does; the CPU only up to 2048 values: its
   * wasm kernels, op by op, beat its fused JS loop on longer ones), except under a Fusion
   * decorator, which gets the ops one by one and fuses them itself (with same-shape parameters'
   * updates in one kernel). The values are the same either way, to float rounding.
   */
  fused?: boolean;
}

export interface ParamGroup {
  /** Which parameters the group holds, by dotted name (a tied one by the name it first appears under). */
  params: (name: string, param: Param) => boolean;
  /** This group's weight decay (default: the optimizer's). */
  weightDecay?: number;
  /**
   * This group's lr is the optimizer's times this factor (default 1): torch's per-group lr. A
   * schedule runs from the group's lr (see LrScheduler.groupRate), so a floor such as CosineLR's
   * minLr is the same for every group, as in torch.
   */
  lrScale?: number;
}

/** The options every optimizer takes, beside its own. */
const COMMON_KEYS = ['lr', 'clipNorm', 'scheduler', 'maximize', 'groups', 'fused'] as const;

/**
 * Checks `groups` for untyped callers; returns them. `settings`: the optimizer's settings a group
 * may override (the optimizer checks their values, see GroupSettings).
 */
function checkGroups(op: string, v: unknown, settings: readonly string[]): readonly ParamGroup[] {
  if (v === undefined) return [];
  const list = checkArray(op, 'groups', v);
  return list.map((g, i) => {
    const params = field(g, 'params');
    if (typeof params !== 'function') throw new ArgumentError(`groups[${i}].params must be a function (name, param) => boolean, got ${show(params)}`, { op });
    // A group's lr is lrScale (a factor on the optimizer's lr, so that setting opt.lr moves every group).
    checkKeys(`${op} groups[${i}]`, g, ['params', 'weightDecay', 'lrScale', ...settings]);
    const wd = field(g, 'weightDecay');
    const scale = field(g, 'lrScale');
    return {
      params: (name: string, param: Param) => Boolean(Reflect.apply(params, g, [name, param])),
      ...(wd !== undefined ? { weightDecay: checkSetting(op, `groups[${i}].weightDecay`, wd, (x) => x >= 0, 'a finite number >= 0') } : {}),
      ...(scale !== undefined ? { lrScale: checkSetting(op, `groups[${i}].lrScale`, scale, (x) => x >= 0, 'a finite number >= 0') } : {}),
    };
  });
}

/** What `step` takes as its rate: a schedule has `next`. */
function isScheduler(v: unknown): v is LrScheduler {
  return typeof field(v, 'next') === 'function' && typeof field(v, 'kind') === 'string';
}

export abstract class Optimizer<B extends Backend = Backend> {
  abstract readonly kind: string;
  private readonly states = new Map<ParamId, ParamState<B>>();
  private rate: number;
  /** Step along the gradient (see OptimizerOptions.maximize). */
  readonly maximize: boolean;
  /** The optimizer's own weight decay (a group may set another). */
  abstract readonly weightDecay: number;
  readonly groups: readonly ParamGroup[];

  /**
   * `keys`: the subclass's own option names, beside lr, clipNorm, scheduler and maximize;
   * `groupKeys`: those of them a parameter group may override (read with GroupSettings).
   */
  constructor(
    lr: number,
    readonly options: OptimizerOptions = {},
    keys: readonly string[] = [],
    groupKeys: readonly string[] = [],
  ) {
    // Untyped callers and bad settings fail here, named, not as NaN weights steps later (torch raises too).
    const op = new.target.name;
    if (typeof options !== 'object' || options === null) throw new ArgumentError(`options must be an object, got ${show(options)}`, { op });
    checkKeys(op, options, [...COMMON_KEYS, ...keys]);
    // A negative rate is allowed (gradient ascent); NaN and the infinities are not.
    this.rate = checkSetting(op, 'lr', lr, () => true, 'a finite number');
    if (options.clipNorm !== undefined) checkSetting(op, 'clipNorm', options.clipNorm, (v) => v >= 0, 'a finite number >= 0');
    if (options.scheduler !== undefined && !isScheduler(options.scheduler)) throw new ArgumentError(`scheduler must be a learning-rate schedule (optim.StepLR, optim.CosineLR, ...), got ${show(options.scheduler)}`, { op });
    // torch's OneCycleLR refuses an optimizer without a momentum to cycle when it is made.
    if (options.scheduler) this.checkMomentum(op, options.scheduler, 0);
    this.maximize = options.maximize === undefined ? false : checkBoolean(op, 'maximize', options.maximize);
    this.groups = checkGroups(op, options.groups, groupKeys);
    this.fused = options.fused === undefined ? undefined : checkBoolean(op, 'fused', options.fused);
  }

  /** The `fused` option: undefined means the backend decides per device. */
  readonly fused: boolean | undefined;

  /** The base learning rate: the rate of every step without a schedule, and a schedule's base. */
  get lr(): number {
    return this.rate;
  }

  set lr(v: number) {
    this.rate = checkSetting(this.constructor.name, 'lr', v, () => true, 'a finite number');
  }

  /**
   * The new value of one parameter at rate `lr` and weight decay `weightDecay` (its group's);
   * `state` holds what earlier steps left (see setState); `at` its group and a schedule's momentum
   * (GroupSettings.of gives the settings they make).
   */
  protected abstract update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number, weightDecay: number, at: StepContext): Tensor<B, 'float'>;

  /**
   * The setting a schedule's momentum replaces (OneCycleLR's cycleMomentum: torch's 'momentum',
   * or beta1 where the optimizer has betas), named; undefined where there is none to set.
   */
  protected momentumSetting(): string | undefined {
    return undefined;
  }

  /**
   * A schedule that sets the momentum at any of its steps needs an optimizer with one (torch
   * raises when the OneCycleLR is made); returns the momentum of step `step`.
   */
  private checkMomentum(op: string, schedule: LrScheduler, step: number): number | undefined {
    const momentum = schedule.momentumAt(step);
    if ((momentum !== undefined || schedule.setsMomentum()) && this.momentumSetting() === undefined) {
      throw new ArgumentError(`the schedule '${schedule.kind}' sets the momentum (OneCycleLR's cycleMomentum), and ${this.constructor.name} takes none from a schedule`, {
        op,
        hint: "give the schedule cycleMomentum: false (torch's Adagrad, Adadelta, Rprop and ASGD have no momentum; NAdam's product of momenta here is a function of the step count)",
      });
    }
    return momentum;
  }

  /** The rate the last step used. */
  lastLr: number | undefined;

  /**
   * Updates every trainable parameter of `module` that has a gradient in `grads`, at `rate`: a
   * number, a schedule (which moves on one step), or by default the options' scheduler or `lr`.
   * `clip: false` skips the clipNorm option (for callers that clipped on a norm over more
   * gradients than these).
   */
  step(module: Module<B>, grads: ParamGrads<B>, rate: number | LrScheduler | undefined = this.options.scheduler, options: { clip?: boolean } = {}): Module<B> {
    // Untyped callers: what a step needs of its arguments, named.
    const m: unknown = module;
    const g: unknown = grads;
    if (typeof m !== 'object' || m === null || !('params' in m) || typeof m.params !== 'function') throw new ArgumentError(`the first argument must be the module to step, got ${show(m)}`, { op: 'Optimizer.step', hint: 'opt.step(model, ParamGrads.from(loss.backward(), model))' });
    if (typeof g !== 'object' || g === null || !('get' in g) || typeof g.get !== 'function') throw new ArgumentError(`the gradients must be a ParamGrads, got ${show(g)}`, { op: 'Optimizer.step', hint: 'ParamGrads.from(loss.backward(), model)' });
    const given: unknown = rate;
    if (given !== undefined && typeof given !== 'number' && !isScheduler(given)) throw new ArgumentError(`the rate must be a number or a learning-rate schedule, got ${show(given)}`, { op: 'Optimizer.step' });
    const clip = field(options, 'clip');
    if (clip !== undefined) checkBoolean('Optimizer.step', 'options.clip', clip);
    if (typeof rate === 'number') checkSetting('step', 'the learning rate', rate, () => true, 'a finite number');
    const schedule = typeof rate === 'object' ? rate : undefined;
    const scheduleStep = schedule?.stepCount ?? 0;
    // Read before the schedule moves on: a refused one is not moved.
    const momentum = schedule ? this.checkMomentum('Optimizer.step', schedule, scheduleStep) : undefined;
    // The step's rate and each group's (a scaled lr, or the schedule run from the group's lr), all
    // read and checked before the schedule moves on (a lambda that throws or a NaN rate leaves it).
    const scaled = this.groups.filter((group) => group.lrScale !== undefined);
    const scales = scaled.map((group) => group.lrScale ?? 1);
    const fixed = typeof rate === 'number' ? rate : this.lr;
    const rates = schedule ? schedule.ratesAt(scheduleStep, this.lr, scales) : { rate: fixed, groups: scales.map((scale) => fixed * scale) };
    const lr = rates.rate;
    // A schedule's rate is checked too: NaN would reach every weight.
    if (schedule && !Number.isFinite(lr)) throw new ArgumentError(`the schedule '${schedule.kind}' gave the rate ${lr} at its step ${scheduleStep}`, { op: 'Optimizer.step', hint: "check the schedule's settings" });
    const groupRates = new Map<ParamGroup, number>();
    scaled.forEach((group, i) => {
      const r = rates.groups[i]!;
      if (!Number.isFinite(r)) throw new ArgumentError(`the schedule '${schedule?.kind}' gave a group the rate ${r} at its step ${scheduleStep}`, { op: 'Optimizer.step', hint: "check the schedule's settings" });
      groupRates.set(group, r);
    });
    schedule?.advance(this.lr);
    this.lastLr = lr;
    if (this.options.clipNorm !== undefined && clip !== false) clipGradNorm(grads, this.options.clipNorm)?.dispose();
    // params() lists a parameter that appears in several places (tied weights) once: stepped once.
    const names = this.groups.length > 0 ? firstNames(module) : undefined;
    noGrad(() => {
      for (const p of module.params()) {
        const g = grads.get(p.id);
        if (!p.trainable || !g) continue;
        // Broadcasting would reshape the parameter to the gradient's shape, silently.
        if (!sameShape(g.shape, p.value.shape)) {
          throw new ShapeError(`the gradient of parameter ${p.id} has another shape than the parameter`, { op: 'Optimizer.step', shapes: [p.value.shape, g.shape], hint: 'ParamGrads.from(loss.backward(), model) pairs each parameter with its own gradient' });
        }
        let state = this.states.get(p.id);
        if (!state) this.states.set(p.id, (state = { step: 0, tensors: new Map() }));
        state.step++;
        const s = state;
        const index = names ? this.groups.findIndex((gr) => gr.params(names.get(p)!, p)) : -1;
        const group = index >= 0 ? this.groups[index] : undefined;
        const rate = (group && groupRates.get(group)) ?? lr;
        const decay = group?.weightDecay ?? this.weightDecay;
        const next = tidy(() => {
          const here = g.device.key === p.value.device.key ? g : g.toDevice(p.value.device as DeviceOf<B>);
          // torch's maximize: every rule runs on the negated gradient.
          return this.update(p.value, this.maximize ? here.neg() : here, s, rate, decay, { group: group ? index : undefined, momentum });
        });
        p.set(next);
      }
    });
    return module;
  }

  /**
   * An update written once over program values (see UpdateValues), run as one fused record per
   * parameter or op by op (the `fused` option); the state it sets is stored as setState does.
   */
  protected elementwiseUpdate(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, rule: (v: UpdateValues<B>) => ProgramValue): Tensor<B, 'float'> {
    const program = new ElementwiseProgram<B>(p);
    // float16 values are computed in float32 and stored back in float16, as torch's fused kernels
    // do: in float16 itself, eps 1e-8 rounds to 0 and a small second moment to 0, so 0 / 0.
    const wide = (v: ProgramValue): ProgramValue => (v.dtype === 'float16' ? v.cast('float32') : v);
    const sets = new Map<string, ProgramValue>();
    const next = rule({
      p: wide(program.input(p)),
      g: wide(program.input(g)),
      state: (name) => {
        const t = state.tensors.get(name);
        return t === undefined ? undefined : wide(program.input(t));
      },
      setState: (name, v) => void sets.set(name, v),
      // Cast as a tensor: a broadcast input cannot be a step's only operand inside the program.
      tensor: (t) => program.input(t.dtype === 'float16' ? t.cast('float32') : t),
    });
    // Each output its own step in the parameter's dtype: an input or a value listed twice is copied.
    const outputs: ProgramValue[] = [];
    for (const v of [next, ...sets.values()]) {
      if (v.dtype !== p.dtype) outputs.push(v.cast(p.dtype));
      else outputs.push('input' in v.arg || outputs.includes(v) ? v.clone() : v);
    }
    // By default fused where the device runs fused chains faster, unless a Fusion decorator
    // buffers them (it joins same-shape parameters' updates and the gradient ops before them).
    const key = p.device.key;
    const fuse = this.fused ?? (!(p.backend.buffersElementwise?.(key) ?? false) && (p.backend.fusesElementwise?.(key, p.size) ?? true));
    const [nextT, ...stateT] = program.run(outputs, fuse).map(floatTensor);
    [...sets.keys()].forEach((name, i) => this.setState(state, name, stateT[i]!));
    return nextT!;
  }

  /** Replaces a named state tensor (kept beyond the step's tidy scope). */
  protected setState(state: ParamState<B>, name: string, t: Tensor<B, 'float'>): void {
    const old = state.tensors.get(name);
    state.tensors.set(name, keep(t));
    if (old && old !== t) old.dispose();
  }

  /**
   * Every state tensor (moments, momentum buffers), by parameter and then by name, in the order
   * they were made: a fixed order from step to step (what `captureStep`'s `state` lists).
   */
  stateTensors(): Tensor<B, 'float'>[] {
    const out: Tensor<B, 'float'>[] = [];
    for (const s of this.states.values()) for (const t of s.tensors.values()) out.push(t);
    return out;
  }

  /** The state as plain data (one transferable buffer per tensor). */
  async state(): Promise<OptimizerRecord> {
    const params: Record<string, { step: number; tensors: Record<string, TensorRecord> }> = {};
    await Promise.all(
      [...this.states].map(async ([id, s]) => {
        const tensors: Record<string, TensorRecord> = {};
        for (const [name, t] of s.tensors) {
          const { shape, values } = await t.toData();
          tensors[name] = { shape, dtype: 'float32', data: ownedFloat32(values) };
        }
        params[id] = { step: s.step, tensors };
      }),
    );
    return { kind: this.kind, params };
  }

  /**
   * The shape a state tensor named `name` has for a parameter of shape `param`, or undefined for
   * a name this optimizer does not keep. Each optimizer lists its own; the default (an optimizer
   * defined outside this library) accepts any name with the parameter's shape.
   */
  protected stateShape(name: string, param: readonly number[]): readonly number[] | undefined {
    void name;
    return param;
  }

  /**
   * Restores saved state for the parameters of `module`, each tensor on its parameter's device
   * and in its dtype (float16 parameters keep float16 state). Every tensor is checked against
   * its parameter before anything changes.
   */
  loadState(record: OptimizerRecord, module: Module<B>): void {
    const r0: unknown = record;
    const params: unknown = field(r0, 'params');
    if (typeof field(r0, 'kind') !== 'string' || typeof params !== 'object' || params === null) {
      throw new ArgumentError(`the state must be { kind, params } as opt.state() returns, got ${show(r0)}`, { op: 'loadState' });
    }
    if (typeof field(module, 'params') !== 'function') throw new ArgumentError(`the second argument must be the module the state belongs to, got ${show(module)}`, { op: 'loadState' });
    if (record.kind !== this.kind) throw new ArgumentError(`optimizer state of kind '${record.kind}' cannot load into ${this.kind}`, { op: 'loadState', hint: `load it into a ${record.kind} optimizer` });
    const stored = Object.keys(record.params).length;
    // State that belongs to no parameter here would load as nothing, and training would restart
    // its moments silently (ParamIds come with the module's record, not with a rebuilt model).
    if (stored > 0 && !module.params().some((p) => record.params[p.id])) {
      throw new ArgumentError(`none of the ${stored} parameter states belongs to this module (no ParamId matches)`, { op: 'loadState', hint: "load the module from the record saved with this state (its ParamIds), e.g. model.fromRecord(...) before opt.loadState(...)" });
    }
    for (const p of module.params()) {
      const r: unknown = record.params[p.id];
      if (r === undefined) continue;
      const step = field(r, 'step');
      const tensors = field(r, 'tensors');
      if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0 || typeof tensors !== 'object' || tensors === null) {
        throw new ArgumentError(`the state of parameter ${p.id} must be { step, tensors } with a step count >= 0, got ${show(r)}`, { op: 'loadState' });
      }
      for (const [name, t] of Object.entries(tensors)) {
        const want = this.stateShape(name, p.shape);
        if (!want) throw new ArgumentError(`${this.kind} keeps no state named '${name}' (parameter ${p.id})`, { op: 'loadState', hint: 'load state saved by the same optimizer with the same options' });
        const shape: unknown = field(t, 'shape');
        const data: unknown = field(t, 'data');
        if (!Array.isArray(shape) || !sameShape(shape, want) || !(data instanceof Float32Array) || data.length !== want.reduce((a, d) => a * d, 1)) {
          throw new ShapeError(`state '${name}' of parameter ${p.id} must hold ${want.reduce((a, d) => a * d, 1)} float32 values of shape [${want.join(', ')}], got ${Array.isArray(shape) ? `shape [${shape.join(', ')}]` : show(shape)}`, { op: 'loadState', shapes: [want, Array.isArray(shape) ? shape.filter((d): d is number => typeof d === 'number') : []] });
        }
      }
    }
    this.clear();
    for (const p of module.params()) {
      const r = record.params[p.id];
      if (!r) continue;
      const tensors = new Map<string, Tensor<B, 'float'>>();
      for (const [name, t] of Object.entries(r.tensors)) {
        tensors.set(name, keep(fromData(p.value.backend, t.data, { shape: t.shape, device: p.value.device, dtype: p.value.dtype })));
      }
      this.states.set(p.id, { step: r.step, tensors });
    }
  }

  /** Drops all state. */
  clear(): void {
    for (const s of this.states.values()) for (const t of s.tensors.values()) t.dispose();
    this.states.clear();
  }
}

/** What an update rule reads and writes, as values of one elementwise program. */
export interface UpdateValues<B extends Backend = Backend> {
  /** The parameter. */
  readonly p: ProgramValue;
  /** Its gradient (negated under `maximize`). */
  readonly g: ProgramValue;
  /** A state tensor that earlier steps set, or undefined (the first step). */
  state(name: string): ProgramValue | undefined;
  /** The state tensor's value after this step. */
  setState(name: string, v: ProgramValue): void;
  /** Another tensor the rule reads, of the parameter's shape or one that broadcasts to it (combine it with a value of that shape). */
  tensor(t: Tensor<B, 'float'>): ProgramValue;
}

function isFloatTensor<B extends Backend>(t: Tensor<B, Kind>): t is Tensor<B, 'float'> {
  return isFloat(t.dtype);
}

/** A program output of a float rule (its steps keep the parameter's float dtype). */
function floatTensor<B extends Backend>(t: Tensor<B, Kind>): Tensor<B, 'float'> {
  if (!isFloatTensor(t)) throw new ArgumentError(`an update rule gave a ${t.dtype} value`, { op: 'Optimizer.step', hint: 'a rule keeps to float arithmetic' });
  return t;
}

/**
 * An optimizer's settings and each parameter group's, as torch's param_groups hold them: a group
 * overrides some (its type lists which), and takes the optimizer's for the rest. `read` reads
 * options over a base and checks each value it takes, naming it with `where` before its name:
 * the optimizer's own options over its defaults (where ''), each group over the optimizer's
 * (where 'groups[i].'). Made once, in the constructor: a bad group setting fails there.
 */
export class GroupSettings<S> {
  /** The optimizer's own. */
  readonly own: S;
  private readonly byGroup: readonly S[];

  /** `withMomentum`: the settings with a schedule's momentum in place of theirs (see Optimizer.momentumSetting). */
  constructor(
    options: object,
    defaults: S,
    read: (o: unknown, base: S, where: string) => S,
    private readonly withMomentum?: (s: S, momentum: number) => S,
  ) {
    // Exported for optimizers written outside: untyped callers get a typed error, not a TypeError.
    if (typeof options !== 'object' || options === null) throw new ArgumentError(`GroupSettings takes the optimizer's options object, got ${show(options)}`, { op: 'GroupSettings' });
    if (typeof read !== 'function') throw new ArgumentError(`GroupSettings takes a function that reads options over a base, got ${show(read)}`, { op: 'GroupSettings', hint: 'see the README section on optimizers (parameter groups)' });
    this.own = read(options, defaults, '');
    const groups = field(options, 'groups');
    const list: readonly unknown[] = Array.isArray(groups) ? groups : [];
    this.byGroup = list.map((g, i) => read(g, this.own, `groups[${i}].`));
  }

  /** The settings of a step (update's `at`): its group's, the optimizer's own for none, with the schedule's momentum. */
  of(at: StepContext): S {
    const s = at.group === undefined ? this.own : (this.byGroup[at.group] ?? this.own);
    if (at.momentum === undefined) return s;
    if (!this.withMomentum) throw new ArgumentError("a schedule's momentum reached an optimizer without one", { op: 'Optimizer.step' });
    return this.withMomentum(s, at.momentum);
  }
}

/** What a parameter's step takes beside its rate and weight decay. */
export interface StepContext {
  /** The index in `groups` of the parameter's group; undefined for none. */
  readonly group: number | undefined;
  /** A schedule's momentum for this step (OneCycleLR's cycleMomentum), in every group; undefined for none. */
  readonly momentum: number | undefined;
}

/** An option `name` of `o`, or `base` where it is left out (or undefined). */
export function given(o: unknown, name: string, base: unknown): unknown {
  const v = field(o, name);
  return v === undefined ? base : v;
}

/** Two numbers (betas, etas...) from `o[name]` or `base`, each checked by `ok` and named `name[i]`. */
export function checkPair(op: string, o: unknown, name: string, base: readonly [number, number], where: string, ok: (v: number) => boolean, what: string, pairWhat: string): readonly [number, number] {
  const v: unknown = given(o, name, base);
  if (!Array.isArray(v) || v.length !== 2) throw new ArgumentError(`${where}${name} must be ${pairWhat}, got ${String(v)}`, { op });
  const a: unknown = v[0];
  const b: unknown = v[1];
  return [checkSetting(op, `${where}${name}[0]`, a, ok, what), checkSetting(op, `${where}${name}[1]`, b, ok, what)];
}

/** A numeric optimizer setting: a finite number that `ok` accepts, else an ArgumentError naming it. */
export function checkSetting(op: string, name: string, v: unknown, ok: (v: number) => boolean, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new ArgumentError(`${name} must be ${what}, got ${show(v)}`, { op });
  return v;
}

/** Each parameter's dotted name, a tied one under the name it first appears under. */
function firstNames<B extends Backend>(module: Module<B>): Map<Param<B>, string> {
  const out = new Map<Param<B>, string>();
  for (const [name, p] of module.namedParams()) if (!out.has(p)) out.set(p, name);
  return out;
}
