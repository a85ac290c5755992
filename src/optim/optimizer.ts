/**
 * The optimizer base: state per ParamId (so gradients from another device or thread apply to
 * the right parameter), updates under noGrad, each parameter in its own tidy scope on its own
 * device, and state that can be saved and restored as plain data.
 */
import { noGrad } from '../autodiff/grad-mode.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { sameShape } from '../ir/shape.js';
import { show } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import { keep, tidy } from '../memory/tidy.js';
import type { Module } from '../nn/module.js';
import type { ParamId } from '../nn/param.js';
import { ownedFloat32, type TensorRecord } from '../nn/record.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
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
}

export abstract class Optimizer<B extends Backend = Backend> {
  abstract readonly kind: string;
  private readonly states = new Map<ParamId, ParamState<B>>();

  constructor(
    /** The base learning rate: the rate of every step without a schedule, and a schedule's base. */
    public lr: number,
    readonly options: OptimizerOptions = {},
  ) {
    // Untyped callers and bad settings fail here, named, not as NaN weights steps later (torch raises too).
    const op = new.target.name;
    if (typeof options !== 'object' || options === null) throw new ArgumentError(`options must be an object, got ${show(options)}`, { op });
    // A negative rate is allowed (gradient ascent); NaN and the infinities are not.
    checkSetting(op, 'lr', lr, () => true, 'a finite number');
  }

  /** The new value of one parameter; `state` holds what earlier steps left (see setState). */
  protected abstract update(p: Tensor<B, 'float'>, g: Tensor<B, 'float'>, state: ParamState<B>, lr: number): Tensor<B, 'float'>;

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
    if (typeof rate === 'number') checkSetting('step', 'the learning rate', rate, () => true, 'a finite number');
    const lr = rate === undefined ? this.lr : typeof rate === 'number' ? rate : rate.next(this.lr);
    this.lastLr = lr;
    if (this.options.clipNorm !== undefined && options.clip !== false) clipGradNorm(grads, this.options.clipNorm)?.dispose();
    // params() lists a parameter that appears in several places (tied weights) once: stepped once.
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
        const next = tidy(() => {
          const here = g.device.key === p.value.device.key ? g : g.toDevice(p.value.device as DeviceOf<B>);
          return this.update(p.value, here, s, lr);
        });
        p.set(next);
      }
    });
    return module;
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

  /** Restores saved state for the parameters of `module` (each on its parameter's device). */
  loadState(record: OptimizerRecord, module: Module<B>): void {
    if (record.kind !== this.kind) throw new ArgumentError(`optimizer state of kind '${record.kind}' cannot load into ${this.kind}`, { op: 'loadState', hint: `load it into a ${record.kind} optimizer` });
    const stored = Object.keys(record.params).length;
    // State that belongs to no parameter here would load as nothing, and training would restart
    // its moments silently (ParamIds come with the module's record, not with a rebuilt model).
    if (stored > 0 && !module.params().some((p) => record.params[p.id])) {
      throw new ArgumentError(`none of the ${stored} parameter states belongs to this module (no ParamId matches)`, { op: 'loadState', hint: "load the module from the record saved with this state (its ParamIds), e.g. model.fromRecord(...) before opt.loadState(...)" });
    }
    this.clear();
    module.visit((p) => {
      const r = record.params[p.id];
      if (!r) return;
      const tensors = new Map<string, Tensor<B, 'float'>>();
      for (const [name, t] of Object.entries(r.tensors)) {
        tensors.set(name, keep(fromData(p.value.backend, t.data, { shape: t.shape, device: p.value.device }) as Tensor<B, 'float'>));
      }
      this.states.set(p.id, { step: r.step, tensors });
    });
  }

  /** Drops all state. */
  clear(): void {
    for (const s of this.states.values()) for (const t of s.tensors.values()) t.dispose();
    this.states.clear();
  }
}

/** A numeric optimizer setting: a finite number that `ok` accepts, else an ArgumentError naming it. */
export function checkSetting(op: string, name: string, v: unknown, ok: (v: number) => boolean, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new ArgumentError(`${name} must be ${what}, got ${show(v)}`, { op });
  return v;
}
